// The WebGPU kernels in a real browser: Debian's headless Chromium, driven by
// playwright-core, opens test/browser/gpu.html from a Vite dev server on
// localhost (a secure context) with --enable-unsafe-webgpu, and runs kernels
// the test sends as plain IR on navigator.gpu (SwiftShader here). Each answer
// is checked against the reference interpreter in Node with the same rules as
// test/webgpu.test.ts: exact for integers, booleans, casts, comparisons,
// min/max/arg and the random stream; within its tolerances for float math.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, type Page, chromium } from 'playwright-core';
import { type ViteDevServer, createServer } from 'vite';
import { fuse } from '../src/fuse/fuse.js';
import { ARRAY_CTOR, type DType, type TypedArray } from '../src/graph/dtype.js';
import { halfBits, halfValue } from '../src/graph/half.js';
import * as G from '../src/graph/node.js';
import { UNARY_OPS, resolveUnary } from '../src/graph/ops.js';
import { interpret } from '../src/ir/interpret.js';
import type { Kernel } from '../src/ir/ir.js';
import { encodeKernel } from '../src/ir/wire.js';
import { gpuSupport } from '../src/wgsl/render.js';

const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'];

let server: ViteDevServer;
let browser: Browser;
let page: Page;
beforeAll(async () => {
  server = await createServer({ root: new URL('..', import.meta.url).pathname, logLevel: 'error', server: { host: '127.0.0.1', port: 0 } });
  await server.listen();
  const { existsSync } = await import('node:fs');
  browser = await chromium.launch({
    executablePath: CHROMIUM.find((p) => existsSync(p)),
    args: ['--enable-unsafe-webgpu', '--enable-features=Vulkan', '--use-vulkan=swiftshader', '--use-webgpu-adapter=swiftshader', '--disable-vulkan-surface', '--no-sandbox'],
  });
  page = await browser.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`${server.resolvedUrls!.local[0]!}test/browser/gpu.html`);
  await page.waitForFunction(() => document.getElementById('status')?.textContent !== 'loading', undefined, { timeout: 60_000 }).catch(() => undefined);
  const status = await page.textContent('#status');
  if (status !== 'ready') throw new Error(`the page did not get a WebGPU device: ${status} ${errors.join('; ')}`);
}, 120_000);
afterAll(async () => { await browser?.close(); await server?.close(); });

const cstrides = (shape: readonly number[]) => shape.map((_, i) => shape.slice(i + 1).reduce((a, b) => a * b, 1));
const sizeOf = (shape: readonly number[]) => shape.reduce((a, b) => a * b, 1);
const kernelOf = (node: G.Node): Kernel => {
  const st = fuse([node], (n) => n.op === 'source').at(-1)!;
  if (st.kind !== 'kernel') throw new Error('expected a kernel');
  return st.kernel;
};
const decode = (v: number | string): number => (v === 'NaN' ? NaN : v === 'inf' ? Infinity : v === '-inf' ? -Infinity : v === '-0' ? -0 : Number(v));

/** Runs one task in the page and in the interpreter; returns [browser, reference] of the first output. */
async function both(kernel: Kernel, inputs: { data: TypedArray; dtype: DType; shape: number[] }[], outShape: number[], red: [number, number][] = []): Promise<[number[], number[]]> {
  const n = sizeOf(outShape);
  const outer = outShape.map((d) => [0, d] as [number, number]);
  const task = {
    kernel: encodeKernel(kernel), // text, as a peer receives it
    partial: false,
    inputs: inputs.map((x) => ({ data: Array.from(x.data as ArrayLike<number>, Number), dtype: x.dtype, origin: x.shape.map(() => 0), strides: cstrides(x.shape) })),
    outputs: [{ data: new Array<number>(n).fill(0), dtype: kernel.dtype, origin: outShape.map(() => 0), strides: cstrides(outShape) }],
    outer, red,
  };
  const [got] = (await page.evaluate((t) => (window as unknown as { runTask: (t: unknown) => Promise<(number | string)[][]> }).runTask(t), task)) as (number | string)[][];
  let top = 0;
  const ptrs = [...inputs.map((x) => x.data.byteLength), n * 8].map((b) => { const at = top; top += Math.ceil(b / 8) * 8 + 8; return at; });
  const heap = new ArrayBuffer(top + 8);
  inputs.forEach((x, i) => new Uint8Array(heap, ptrs[i]!, x.data.byteLength).set(new Uint8Array(x.data.buffer, x.data.byteOffset, x.data.byteLength)));
  interpret(kernel, {
    inputs: inputs.map((x, i) => ({ ptr: ptrs[i]!, origin: x.shape.map(() => 0), strides: cstrides(x.shape) })),
    outputs: [{ ptr: ptrs[inputs.length]!, origin: outShape.map(() => 0), strides: cstrides(outShape) }],
    outer, red, partial: false,
  }, heap);
  const want = new ARRAY_CTOR[kernel.dtype](heap, ptrs[inputs.length]!, n) as TypedArray;
  return [got!.map(decode), Array.from(want as ArrayLike<number | bigint>, Number)];
}

const same = (g: number, w: number) => Object.is(g, w) || (Number.isNaN(g) && Number.isNaN(w)) || (w !== 0 && Math.abs(w) < 1.1754943508222875e-38 && g === 0);
const close = (g: number, w: number, rtol: number, atol: number) => (Number.isNaN(w) ? Number.isNaN(g) : !Number.isFinite(w) ? g === w : Math.abs(g - w) <= atol + rtol * Math.abs(w));

const F32 = Float32Array.from([0, -0, 1, -1, 0.5, -2.5, 3.75, 1e-3, -7e-4, 1e-30, 123.456, -98765.4, 3.4e38, -3.4e38, Infinity, -Infinity, NaN, 2.5, -3.5, 0.1, 9.99]);
const EXACT = new Set(['negative', 'abs', 'sign', 'square', 'floor', 'ceil', 'trunc', 'rint', 'isnan', 'isinf', 'isfinite', 'logical_not']);

describe('WebGPU kernels in headless Chromium match the reference', () => {
  it('has a WebGPU adapter in the page', async () => {
    const info = await page.evaluate(() => (window as unknown as { gpuInfo: { adapter: string } }).gpuInfo);
    expect(info.adapter).toMatch(/./);
  });

  it('every float32 unary op over special values', async () => {
    for (const op of UNARY_OPS) {
      let r;
      try { r = resolveUnary(op, 'float32'); } catch { continue; }
      const k = kernelOf(G.unary(op, G.source('x', 'float32', [F32.length], [F32.length]), r.result));
      if (gpuSupport(k)) continue;
      const [g, w] = await both(k, [{ data: F32, dtype: 'float32', shape: [F32.length] }], [F32.length]);
      w.forEach((wi, i) => {
        const gi = g[i]!;
        const ok = EXACT.has(op) ? same(gi, wi)
          : op === 'sin' || op === 'cos' || op === 'tan' ? close(gi, wi, 1.6e-5, 1.2e-7 * Math.abs(F32[i]!) * (op === 'tan' ? 1 + wi * wi : 1))
            : close(gi, wi, 3e-5, op.startsWith('log') ? 1e-6 : 1.2e-38);
        if (!ok) expect.fail(`${op}(${F32[i]}): got ${gi}, want ${wi}`);
      });
    }
  });

  it('float16: every unary op and casts to and from it, bit for bit where float32 rounds correctly, else within one float16 ulp', async () => {
    const H = Uint16Array.from([0, -0, 6e-8, 6.1e-5, 1, -1, 0.1, 1 / 3, -2.5, 1000, 2049, 65504, -65504, Infinity, -Infinity, NaN, 7.25, 300], halfBits);
    const half = (bits: number[]) => bits.map(halfValue);
    const n = H.length;
    const x = G.source('x', 'float16', [n], [n]);
    for (const op of UNARY_OPS) {
      let r;
      try { r = resolveUnary(op, 'float16'); } catch { continue; }
      const k = kernelOf(G.unary(op, x, r.result));
      const [g, w] = await both(k, [{ data: H, dtype: 'float16', shape: [n] }], [n]);
      const [gv, wv] = r.result === 'float16' ? [half(g), half(w)] : [g, w];
      wv.forEach((wi, i) => {
        const ok = EXACT.has(op) || op === 'sqrt' || op === 'reciprocal' || r.result !== 'float16' ? same(gv[i]!, wi) : close(gv[i]!, wi, 2 ** -10, 2 ** -24);
        if (!ok) expect.fail(`${op}(float16 ${halfValue(H[i]!)}): got ${gv[i]}, want ${wi}`);
      });
    }
    const F = Float32Array.from([0.1, 1 + 2 ** -11, 1 + 3 * 2 ** -11, 65519.99, 65520, 2 ** -25, 3 * 2 ** -26, -1e-9, 3e38, 2047.5, NaN, -Infinity]);
    const [g, w] = await both(kernelOf(G.cast(G.source('f', 'float32', [F.length], [F.length]), 'float16')), [{ data: F, dtype: 'float32', shape: [F.length] }], [F.length]);
    expect(g).toEqual(w);
    for (const to of ['float32', 'int32', 'uint8', 'bool'] as DType[]) {
      const [g2, w2] = await both(kernelOf(G.cast(x, to)), [{ data: H, dtype: 'float16', shape: [n] }], [n]);
      w2.forEach((wi, i) => { if (!same(g2[i]!, wi)) expect.fail(`float16 ${halfValue(H[i]!)} -> ${to}: got ${g2[i]}, want ${wi}`); });
    }
  });

  it('integer arithmetic, comparisons and casts, exactly', async () => {
    const a = Int32Array.from([0, 1, -1, 7, -7, 2147483647, -2147483648, 100, -100, 12345678]);
    const m = a.length;
    const A = G.expand(G.source('a', 'int32', [m, 1], [m, 1]), [m, m]), B = G.expand(G.source('b', 'int32', [1, m], [1, m]), [m, m]);
    const nodes = [
      G.binary('floor_divide', A, B, 'int32'), G.binary('mod', A, B, 'int32'), G.binary('multiply', A, B, 'int32'),
      G.binary('less', A, B, 'bool'), G.cast(G.binary('add', A, B, 'int32'), 'int8'), G.cast(G.cast(A, 'float32'), 'uint16'),
    ];
    for (const [j, node] of nodes.entries()) {
      const k = kernelOf(node);
      const ins = [{ data: a, dtype: 'int32' as DType, shape: [m, 1] }, { data: a, dtype: 'int32' as DType, shape: [1, m] }].slice(0, k.inputs.length);
      const [g, w] = await both(k, ins, [m, m]);
      const i = w.findIndex((x, t) => !Object.is(x, g[t]));
      if (i >= 0) expect.fail(`program ${j}: element ${i} (${a[Math.floor(i / m)]}, ${a[i % m]}): got ${g[i]}, want ${w[i]}`);
    }
  });

  it('reductions (a workgroup per output) and the Philox stream', async () => {
    const shape = [6, 50];
    const x = Float32Array.from({ length: sizeOf(shape) }, (_, i) => (i % 11 === 3 ? NaN : Math.sin(i) * 10));
    const src = G.source('x', 'float32', shape, shape);
    for (const op of ['max', 'min', 'argmax', 'argmin'] as const) {
      const k = kernelOf(op.startsWith('arg') ? G.reduce(op, src, [1], false, 'int64') : G.reduce(op, src, [1], false, 'float32'));
      const [g, w] = await both(k, [{ data: x, dtype: 'float32', shape }], [6], [[0, 50]]);
      w.forEach((wi, i) => { if (!same(g[i]!, wi)) expect.fail(`${op} row ${i}: got ${g[i]}, want ${wi}`); });
    }
    const bits = kernelOf(G.random('bits', [12345, 678], 9, [3, 400]));
    const [g, w] = await both(bits, [], [3, 400]);
    expect(g).toEqual(w);
  });

  it('kernels with NaN, infinite and negative-zero constants survive the trip as text', async () => {
    const x = G.source('x', 'float32', [F32.length], [F32.length]);
    const node = G.where(G.binary('greater', x, G.constant(0, 'float32'), 'bool'),
      G.binary('fmax', x, G.constant(-Infinity, 'float32'), 'float32'),
      G.where(G.unary('isnan', x, 'bool'), G.constant(-0, 'float32'), G.binary('add', x, G.constant(NaN, 'float32'), 'float32')));
    const [g, w] = await both(kernelOf(node), [{ data: F32, dtype: 'float32', shape: [F32.length] }], [F32.length]);
    w.forEach((wi, i) => { if (!same(g[i]!, wi)) expect.fail(`element ${i} (${F32[i]}): got ${g[i]}, want ${wi}`); });
  });

  it('the tiled matmul shader', async () => {
    const [m, k, n] = [37, 70, 45];
    const a = Float32Array.from({ length: m * k }, (_, i) => Math.sin(i));
    const b = Float32Array.from({ length: k * n }, (_, i) => Math.cos(i * 0.7));
    const kernel = kernelOf(G.matmul(G.source('a', 'float32', [m, k], [m, k]), G.source('b', 'float32', [k, n], [k, n]), 'float32'));
    const [g, w] = await both(kernel, [{ data: a, dtype: 'float32', shape: [m, k] }, { data: b, dtype: 'float32', shape: [k, n] }], [m, n], [[0, k]]);
    w.forEach((wi, i) => { if (!close(g[i]!, wi, 0, k * 1.2e-7 * 4)) expect.fail(`element ${i}: got ${g[i]}, want ${wi}`); });
  });
});
