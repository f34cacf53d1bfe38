// The WGSL emitter on a real WebGPU device (Dawn in Node; with no GPU here it
// runs on Chromium's SwiftShader Vulkan driver), against the reference
// interpreter, kernel by kernel and task by task: every unary and binary op in
// every 32-bit-or-narrower dtype over special values, every cast, reductions
// in full and partial mode over sub-boxes (with NaN and ties), nested
// reductions, strided and transposed loads, lazy `where`, the Philox stream,
// and grids wider than one dispatch dimension.
//
// Exact: every integer and boolean result, every cast, min/max/argmin/argmax,
// comparisons, the random stream, and float32 +, -, *, / (IEEE, correctly
// rounded in WGSL), except that a subnormal float32 result (below 1.2e-38)
// may be flushed to zero, as WGSL allows and SwiftShader does. Within a tolerance (|gpu - ref| <= atol + rtol * |ref|,
// both NaN, or equal infinities): WGSL's built-in functions, which the spec
// lets be a few ulp off (rtol 4e-6: exp, log, sin, sqrt, ...), the formulas
// this emitter builds from them (rtol 3e-5: pow, cbrt, hypot, expm1, log1p,
// log10, the hyperbolics; float floor_divide, whose quotient the CPU forms in
// float64), and float sums and products, which a workgroup
// adds in another order than the CPU (rtol 1e-5 of the sum of |terms|).
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as mt from '../src/api/tensor.js';
import { fuse } from '../src/fuse/fuse.js';
import { ARRAY_CTOR, type DType, type TypedArray } from '../src/graph/dtype.js';
import { decodeHalf, halfBits } from '../src/graph/half.js';
import * as G from '../src/graph/node.js';
import { BINARY_OPS, UNARY_OPS, type BinaryOp, type UnaryOp, resolveBinary, resolveUnary } from '../src/graph/ops.js';
import { interpret } from '../src/ir/interpret.js';
import type { Kernel } from '../src/ir/ir.js';
import { runtime } from '../src/runtime/runtime.js';
import { GpuDevice, type Region } from '../src/runtime/webgpu.js';
import { gpuSupport, renderWgsl } from '../src/wgsl/render.js';

let dev: GpuDevice;
/** The device the cases run on: `dev`, or one that combines reductions in the workgroup tree only. */
let on: GpuDevice;
let treeDev: GpuDevice;
beforeAll(async () => {
  const d = await GpuDevice.open();
  if (!d) throw new Error('no WebGPU adapter: `npm test` installs chromium (SwiftShader) and libvulkan1; run `npm run setup` as root');
  dev = on = d;
  treeDev = (await GpuDevice.open({ subgroups: false }))!;
}, 60_000);
afterAll(() => { dev?.destroy(); treeDev?.destroy(); });

const F32_SPECIAL = [0, -0, 1, -1, 0.5, -2.5, 3.75, 1e-3, -7e-4, 1e-30, 123.456, -98765.4, 3.4e38, -3.4e38, Infinity, -Infinity, NaN, 2.5, -3.5, 0.1, 9.99, 1e6, -1e6];
const INT_SPECIAL: Record<string, number[]> = {
  int32: [0, 1, -1, 2, -2, 7, -7, 100, -100, 2147483647, -2147483648, 65536, -65537, 12345678, 3, -3],
  uint32: [0, 1, 2, 3, 7, 100, 4294967295, 2147483648, 65536, 12345678, 4000000000, 5, 9, 255, 256, 1000],
  int16: [0, 1, -1, 2, -2, 7, -7, 100, -100, 32767, -32768, 255, -256, 1234, 3, -3],
  uint16: [0, 1, 2, 3, 7, 100, 65535, 32768, 255, 256, 1234, 5, 9, 1000, 60000, 4],
  int8: [0, 1, -1, 2, -2, 7, -7, 100, -100, 127, -128, 64, -65, 12, 3, -3],
  uint8: [0, 1, 2, 3, 7, 100, 255, 128, 64, 200, 12, 5, 9, 250, 16, 4],
  bool: [0, 1, 1, 0, 1, 0, 0, 1, 1, 1, 0, 0, 1, 0, 1, 0],
};
const DTYPES32: DType[] = ['float32', 'int32', 'uint32', 'int16', 'uint16', 'int8', 'uint8', 'bool'];

const valuesOf = (d: DType): number[] => (d === 'float32' ? F32_SPECIAL : INT_SPECIAL[d]!);

/** A typed array of `dtype` holding `vals` repeated to length n. */
function arrayOf(d: DType, vals: number[], n: number): TypedArray {
  const a = new ARRAY_CTOR[d](n) as TypedArray;
  for (let i = 0; i < n; i++) (a as unknown as number[])[i] = vals[i % vals.length]!;
  return a;
}

const cstrides = (shape: readonly number[]) => shape.map((_, i) => shape.slice(i + 1).reduce((a, b) => a * b, 1));
const sizeOf = (shape: readonly number[]) => shape.reduce((a, b) => a * b, 1);

interface Case { kernel: Kernel; inputs: Region[]; outShape: number[]; outer: [number, number][]; red: [number, number][]; partial?: boolean }

/** The one kernel of `node` over sources whose data is given. */
function kernelOf(node: G.Node): Kernel {
  const st = fuse([node], (n) => n.op === 'source').at(-1)!;
  if (st.kind !== 'kernel') throw new Error('expected a kernel');
  return st.kernel;
}

/** Runs `c` on the GPU and in the interpreter; returns [gpu, ref] outputs (one or two). */
async function both(c: Case): Promise<[TypedArray[], TypedArray[]]> {
  const k = c.kernel;
  const red = k.reduce;
  const argPartial = !!c.partial && !!red && (red.op === 'argmin' || red.op === 'argmax');
  const outDtypes: DType[] = !red || !c.partial ? [k.dtype] : argPartial ? [red.body.dtype, 'int64'] : [red.dtype];
  const n = sizeOf(c.outShape);
  const poison = (d: DType) => { const a = new ARRAY_CTOR[d](n) as TypedArray; (a as unknown as { fill(v: unknown): void }).fill(d === 'int64' ? -7n : d === 'bool' ? 1 : 77); return a; };
  const gpuOut = outDtypes.map(poison);
  await on.run({ kernel: k, partial: !!c.partial, inputs: c.inputs, outputs: gpuOut.map((data, i) => ({ data, dtype: outDtypes[i]!, origin: c.outShape.map(() => 0), strides: cstrides(c.outShape) })), outer: c.outer, red: c.red });
  // The interpreter on one heap holding copies of the inputs and the poisoned outputs.
  const parts = [...c.inputs.map((r) => r.data), ...outDtypes.map(poison)];
  let top = 0;
  const ptrs = parts.map((p) => { const at = top; top += Math.ceil(p.byteLength / 8) * 8 + 8; return at; });
  const heap = new ArrayBuffer(top + 8);
  parts.forEach((p, i) => new Uint8Array(heap, ptrs[i]!, p.byteLength).set(new Uint8Array(p.buffer, p.byteOffset, p.byteLength)));
  interpret(k, {
    inputs: c.inputs.map((r, i) => ({ ptr: ptrs[i]!, origin: r.origin, strides: r.strides })),
    outputs: outDtypes.map((_, i) => ({ ptr: ptrs[c.inputs.length + i]!, origin: c.outShape.map(() => 0), strides: cstrides(c.outShape) })),
    outer: c.outer, red: c.red, partial: !!c.partial,
  }, heap);
  const ref = outDtypes.map((d, i) => new ARRAY_CTOR[d](heap, ptrs[c.inputs.length + i]!, n) as TypedArray);
  return [gpuOut, ref];
}

const full = (shape: readonly number[]): [number, number][] => shape.map((d) => [0, d]);

/** |a - b| <= atol + rtol * |b|, NaN with NaN, infinities equal; reports the worst element. */
function expectClose(got: TypedArray, want: TypedArray, rtol: number, atol: number, what: string): void {
  for (let i = 0; i < want.length; i++) {
    const g = Number(got[i]), w = Number(want[i]);
    if (Number.isNaN(w) ? Number.isNaN(g) : !Number.isFinite(w) ? g === w : Math.abs(g - w) <= atol + rtol * Math.abs(w)) continue;
    expect.fail(`${what}: element ${i}: got ${g}, want ${w}`);
  }
}

/** Bitwise equality, -0 distinct from +0, NaN equal to NaN. */
function expectExact(got: TypedArray, want: TypedArray, what: string): void {
  const norm = (a: TypedArray) => Array.from(a as ArrayLike<number | bigint>, (x) => (typeof x === 'bigint' ? String(x) : Object.is(x, -0) ? '-0' : Number.isNaN(x) ? 'NaN' : String(x)));
  const g = norm(got), w = norm(want);
  // WGSL lets a GPU flush subnormal float32 results to zero (SwiftShader does)
  const sub = (x: string) => { const v = Number(x); return v !== 0 && Math.abs(v) < 1.1754943508222875e-38; };
  const i = w.findIndex((x, j) => x !== g[j] && !(want instanceof Float32Array && sub(x) && (g[j] === '0' || g[j] === '-0')));
  if (i >= 0 || g.length !== w.length) expect.fail(`${what}: element ${i} of ${w.length}: got ${g[i]}, want ${w[i]}`);
}

const src = (name: string, d: DType, shape: number[]) => G.source(name, d, shape, shape);
const region = (data: TypedArray, d: DType, shape: number[]): Region => ({ data, dtype: d, origin: shape.map(() => 0), strides: cstrides(shape) });

const TRANSCENDENTAL = new Set<UnaryOp>(['exp', 'exp2', 'log', 'log2', 'sin', 'cos', 'tan', 'arcsin', 'arccos', 'arctan', 'sqrt']);
const FORMULA = new Set<UnaryOp>(['cbrt', 'expm1', 'log1p', 'log10', 'sinh', 'cosh', 'tanh', 'arcsinh', 'arccosh', 'arctanh']);

describe('elementwise ops on WebGPU match the reference', () => {
  it('every unary op in every dtype, over special values', async () => {
    for (const d of DTYPES32) {
      const vals = valuesOf(d);
      const shape = [vals.length];
      for (const op of UNARY_OPS) {
        let r;
        try { r = resolveUnary(op, d); } catch { continue; }
        const node = G.unary(op, G.cast(src('x', d, shape), r.compute), r.result);
        const k = kernelOf(node);
        if (gpuSupport(k)) continue; // float64 results (float ufuncs of narrow ints give float32 here, of int32 float64)
        const [[g], [w]] = await both({ kernel: k, inputs: [region(arrayOf(d, vals, vals.length), d, shape)], outShape: shape, outer: full(shape), red: [] });
        const what = `${op}(${d})`;
        if (r.result !== 'float32' || ['negative', 'abs', 'sign', 'square', 'floor', 'ceil', 'trunc', 'rint', 'isnan', 'isinf', 'isfinite', 'logical_not', 'reciprocal'].includes(op)) {
          if (op === 'reciprocal' && r.result === 'float32') expectClose(g!, w!, 1.5e-7, 1.2e-38, what);
          else expectExact(g!, w!, what);
        } else if (op === 'sin' || op === 'cos' || op === 'tan') {
          // reduction by pi/2 in float32 arithmetic: the error grows with the argument beyond |x| ~ 8192
          const xs = arrayOf(d, vals, vals.length);
          for (let i = 0; i < w!.length; i++) {
            const gi = Number(g![i]), wi = Number(w![i]);
            if (Number.isNaN(wi) ? !Number.isNaN(gi) : Math.abs(gi - wi) > 4e-6 * Math.abs(wi) * (op === 'tan' ? 4 : 1) + 1.2e-7 * Math.abs(Number(xs[i])) * (op === 'tan' ? 1 + wi * wi : 1)) expect.fail(`${what}: element ${i}: got ${gi}, want ${wi}`);
          }
        } else {
          expectClose(g!, w!, TRANSCENDENTAL.has(op) ? 4e-6 : FORMULA.has(op) ? 3e-5 : 4e-6, op.startsWith('log') ? 1e-6 : 1e-37, what);
        }
      }
    }
  });

  it('every binary op in every dtype, all pairs of special values', async () => {
    for (const d of DTYPES32) {
      const vals = valuesOf(d);
      const m = vals.length;
      for (const op of BINARY_OPS) {
        let r;
        try { r = resolveBinary(op, d); } catch { continue; }
        const a = src('a', d, [m, 1]), b = src('b', d, [1, m]);
        const node = G.binary(op, G.cast(G.expand(a, [m, m]), r.compute), G.cast(G.expand(b, [m, m]), r.compute), r.result);
        const k = kernelOf(node);
        if (gpuSupport(k)) continue;
        const [[g], [w]] = await both({
          kernel: k, inputs: [region(arrayOf(d, vals, m), d, [m, 1]), region(arrayOf(d, vals, m), d, [1, m])], outShape: [m, m], outer: full([m, m]), red: [],
        });
        const what = `${op}(${d})`;
        if (r.result === 'float32' && ['power', 'arctan2', 'hypot', 'floor_divide'].includes(op)) expectClose(g!, w!, 3e-5, 1e-37, what);
        else expectExact(g!, w!, what);
      }
    }
  });

  it('every cast between the 32-bit-or-narrower dtypes, exactly', async () => {
    for (const from of DTYPES32) {
      for (const to of DTYPES32) {
        if (to === from) continue;
        const vals = from === 'float32' ? [...F32_SPECIAL, 3e9, -3e9, 4294967296, 1e19, -1e19, 9.2e18, 65537.5, -129.75, 300.5] : valuesOf(from);
        const shape = [vals.length];
        const k = kernelOf(G.cast(src('x', from, shape), to));
        const [[g], [w]] = await both({ kernel: k, inputs: [region(arrayOf(from, vals, vals.length), from, shape)], outShape: shape, outer: full(shape), red: [] });
        expectExact(g!, w!, `${from} -> ${to}`);
      }
    }
  });
});

describe.each(['subgroups', 'workgroup tree'])('reductions on WebGPU match the reference (combined with %s)', (how) => {
  beforeAll(() => {
    on = how === 'subgroups' ? dev : treeDev;
    // SwiftShader has subgroups; without them both runs take the tree
    if (how === 'subgroups' && !dev.info.subgroups) console.warn('this adapter has no subgroups');
    expect(treeDev.usesSubgroups).toBe(false);
  });
  afterAll(() => { on = dev; });
  const shape = [5, 37, 6];
  const n = sizeOf(shape);
  it('integer and boolean reductions, exactly, in full and partial mode over sub-boxes', async () => {
    for (const d of ['int32', 'uint32', 'int8', 'bool'] as DType[]) {
      const data = arrayOf(d, valuesOf(d).map((v, i) => (i % 3 === 0 ? v : v >> 4)), n);
      for (const op of ['sum', 'prod', 'min', 'max', 'argmin', 'argmax', 'any', 'all'] as const) {
        for (const axes of [[1], [0, 2], [2]]) {
          const acc: DType = op === 'sum' || op === 'prod' ? (d === 'uint32' ? 'uint32' : 'int32') : op === 'argmin' || op === 'argmax' ? 'int64' : op === 'any' || op === 'all' ? 'bool' : d;
          const x = G.cast(src('x', d, shape), op === 'argmin' || op === 'argmax' || op === 'any' || op === 'all' ? d : acc);
          const node = op === 'argmin' || op === 'argmax' ? G.reduce(op, x, [axes[0]!], false, 'int64') : G.reduce(op, x, axes, false, acc);
          const k = kernelOf(node);
          if (gpuSupport(k)) throw new Error(`${op} ${d}: ${gpuSupport(k)}`);
          const outShape = [...k.shape];
          const redFull = k.reduce!.vars.map((v) => [0, v.size] as [number, number]);
          const redSub = k.reduce!.vars.map((v) => [Math.min(1, v.size), Math.max(Math.min(1, v.size), v.size - 2)] as [number, number]);
          for (const [red, partial] of [[redFull, false], [redSub, true], [redFull, true]] as const) {
            const outer = outShape.map((s) => [s > 2 ? 1 : 0, s] as [number, number]);
            const [g, w] = await both({ kernel: k, inputs: [region(data, d, shape)], outShape, outer, red: [...red], partial });
            g.forEach((x, i) => expectExact(x, w[i]!, `${op}(${d}) axes ${axes} partial ${partial}`));
          }
        }
      }
    }
  });

  it('float32 reductions with NaN, infinities and ties: min/max/arg exactly, sums within tolerance', async () => {
    const data = arrayOf('float32', [1.5, -2, 3, 3, -0, 0, 7.25, -7.25, 0.1, 1e-3], n);
    const withNaN = Float32Array.from(data, (v, i) => (i % 97 === 13 ? NaN : i % 89 === 5 ? Infinity : v));
    for (const arr of [data, withNaN]) {
      for (const op of ['sum', 'prod', 'min', 'max', 'argmin', 'argmax'] as const) {
        for (const axes of [[0], [1], [2]]) {
          const node = op === 'argmin' || op === 'argmax' ? G.reduce(op, src('x', 'float32', shape), axes, false, 'int64') : G.reduce(op, op === 'prod' ? G.binary('add', G.binary('multiply', src('x', 'float32', shape), G.constant(0.01, 'float32'), 'float32'), G.constant(1, 'float32'), 'float32') : src('x', 'float32', shape), axes, false, 'float32');
          const k = kernelOf(node);
          for (const partial of [false, true]) {
            const [g, w] = await both({ kernel: k, inputs: [region(arr, 'float32', shape)], outShape: [...k.shape], outer: full(k.shape), red: k.reduce!.vars.map((v) => [0, v.size]), partial });
            const what = `${op} axis ${axes} partial ${partial}`;
            if (op === 'sum' || op === 'prod') expectClose(g[0]!, w[0]!, 1e-5, 1e-4, what);
            else g.forEach((x, i) => expectExact(x, w[i]!, what));
          }
        }
      }
    }
  });

  it('an elementwise epilogue over a reduction, and a count in int64', async () => {
    const x = src('x', 'float32', shape);
    const node = G.unary('sqrt', G.reduce('max', G.unary('square', x, 'float32'), [2], false, 'float32'), 'float32');
    const k = kernelOf(node);
    const data = arrayOf('float32', [1.5, -2, 3, 3, -0, 0, 7.25, -7.25, 0.1, 1e-3, NaN], n);
    const [[g], [w]] = await both({ kernel: k, inputs: [region(data, 'float32', shape)], outShape: [...k.shape], outer: full(k.shape), red: k.reduce!.vars.map((v) => [0, v.size]) });
    expectClose(g!, w!, 1.5e-7, 0, 'sqrt(max(x**2, axis=2))');
    const cnt = kernelOf(G.reduce('sum', G.binary('greater', x, G.constant(0, 'float32'), 'bool'), [0, 1, 2], false, 'int64'));
    const [[gc], [wc]] = await both({ kernel: cnt, inputs: [region(data, 'float32', shape)], outShape: [], outer: [], red: cnt.reduce!.vars.map((v) => [0, v.size]) });
    expectExact(gc!, wc!, 'count of x > 0 (int64)');
  });
});

describe('the tiled matmul shader (shaders/matmul.wgsl)', () => {
  it('matches the reference at awkward sizes, in sub-boxes and K ranges, within float32 rounding', async () => {
    for (const [m, n, k] of [[1, 1, 1], [3, 5, 7], [64, 64, 16], [65, 130, 67], [70, 37, 513], [2, 3, 0], [200, 150, 100]] as const) {
      const A = src('a', 'float32', [m, k]), B = src('b', 'float32', [k, n]);
      const kernel = kernelOf(G.matmul(A, B, 'float32'));
      const av = Float32Array.from({ length: m * k }, (_, i) => Math.sin(i * 1.7) * (1 + (i % 5)));
      const bv = Float32Array.from({ length: k * n }, (_, i) => Math.cos(i * 0.3) - 0.25);
      const boxes: [[number, number][], [number, number][]][] = [[full([m, n]), [[0, k]]], [[[Math.min(1, m), m], [Math.min(2, n), n]], [[Math.floor(k / 3), k]]]];
      for (const [outer, red] of boxes) {
        const before = dev.stats.tasks;
        const [[g], [w]] = await both({ kernel, inputs: [region(av, 'float32', [m, k]), region(bv, 'float32', [k, n])], outShape: [m, n], outer, red });
        expect(dev.stats.tasks).toBe(before + (outer.some(([lo, hi]) => hi <= lo) ? 0 : 1));
        // |error| <= K * eps * sum |a||b| per element, bounded here by the magnitudes used
        expectClose(g!, w!, 0, Math.max(1, k) * 6e-8 * 6 * 1.25 * Math.max(1, k), `${m}x${k} @ ${k}x${n} box ${JSON.stringify(outer)} k ${JSON.stringify(red)}`);
      }
    }
  });
});

describe('the tiled matmul shader, batched', () => {
  it('runs a batch of matrices (one workgroup z each) in sub-boxes of the batch, without a generated kernel', async () => {
    // a 2-D product first, so the shader itself is compiled before counting
    const A2 = src('a', 'float32', [2, 2]), B2 = src('b', 'float32', [2, 2]);
    await both({ kernel: kernelOf(G.matmul(A2, B2, 'float32')), inputs: [region(Float32Array.of(1, 2, 3, 4), 'float32', [2, 2]), region(Float32Array.of(5, 6, 7, 8), 'float32', [2, 2])], outShape: [2, 2], outer: full([2, 2]), red: [[0, 2]] });
    for (const [batch, m, n, k] of [[[2], 5, 3, 7], [[3, 2], 65, 130, 67], [[4], 1, 70, 33]] as const) {
      const A = src('a', 'float32', [...batch, m, k]), B = src('b', 'float32', [...batch, k, n]);
      const kernel = kernelOf(G.matmul(A, B, 'float32'));
      const mats = batch.reduce((a, b) => a * b, 1);
      const av = Float32Array.from({ length: mats * m * k }, (_, i) => Math.sin(i * 1.3) * (1 + (i % 3)));
      const bv = Float32Array.from({ length: mats * k * n }, (_, i) => Math.cos(i * 0.7) - 0.5);
      const sub: [number, number][] = batch.map((d) => [d > 1 ? 1 : 0, d]);
      const boxes: [[number, number][], [number, number][]][] = [
        [full([...batch, m, n]), [[0, k]]],
        [[...sub, [Math.min(1, m - 1), m], [2, n]], [[Math.floor(k / 4), k]]],
      ];
      for (const [outer, red] of boxes) {
        const compiled = dev.stats.compiled;
        const [[g], [w]] = await both({ kernel, inputs: [region(av, 'float32', [...batch, m, k]), region(bv, 'float32', [...batch, k, n])], outShape: [...batch, m, n], outer, red });
        expect(dev.stats.compiled, 'the hand-written shader, compiled once already').toBe(compiled);
        expectClose(g!, w!, 0, k * 6e-8 * 3 * 1.5 * k, `${JSON.stringify(batch)} x ${m}x${k} @ ${k}x${n} box ${JSON.stringify(outer)} k ${JSON.stringify(red)}`);
      }
    }
  });
});

describe('float16 on WebGPU: f32 words, rounded to float16 by integer arithmetic, bit for bit the reference', () => {
  // every float16 class: zeros, subnormals, the smallest normal, ties of float32 values, 65504, infinities, NaN
  const H_SPECIAL = [0, -0, 6e-8, -1.2e-7, 6.1e-5, 2 ** -14, 1, -1, 0.1, 1 / 3, 1.5, -2.5, 3.75, 1000, 2049, -0.000123, 65504, -65504, Infinity, -Infinity, NaN, 7.25, 0.5, 300];
  const halfArray = (vals: number[]): TypedArray => Uint16Array.from(vals, halfBits);
  /** Uint16 outputs compared as float16 values. */
  const asValues = (a: TypedArray, d: DType): TypedArray => (d === 'float16' ? decodeHalf(a as Uint16Array) : a);
  const EXACT_UNARY = new Set(['negative', 'abs', 'sign', 'sqrt', 'square', 'reciprocal', 'floor', 'ceil', 'trunc', 'rint', 'isnan', 'isinf', 'isfinite', 'signbit', 'logical_not', 'frexp_mantissa', 'frexp_exponent']);

  it('every unary op: exact where float32 is correctly rounded, else within one float16 ulp', async () => {
    const shape = [H_SPECIAL.length];
    for (const op of UNARY_OPS) {
      let r;
      try { r = resolveUnary(op, 'float16'); } catch { continue; }
      const k = kernelOf(G.unary(op, src('x', 'float16', shape), r.result));
      expect(gpuSupport(k), op).toBeUndefined();
      const [[g], [w]] = await both({ kernel: k, inputs: [region(halfArray(H_SPECIAL), 'float16', shape)], outShape: shape, outer: full(shape), red: [] });
      const [gv, wv] = [asValues(g!, r.result), asValues(w!, r.result)];
      if (EXACT_UNARY.has(op)) expectExact(gv, wv, `${op}(float16)`);
      else expectClose(gv, wv, 2 ** -10, 2 ** -24, `${op}(float16)`);
    }
  });

  it('every binary op, all pairs: + - * / exactly, the others within one float16 ulp', async () => {
    const m = H_SPECIAL.length;
    for (const op of BINARY_OPS) {
      let r;
      try { r = resolveBinary(op, 'float16'); } catch { continue; }
      const node = G.binary(op, G.expand(src('a', 'float16', [m, 1]), [m, m]), G.expand(src('b', 'float16', [1, m]), [m, m]), r.result);
      const k = kernelOf(node);
      expect(gpuSupport(k), op).toBeUndefined();
      const [[g], [w]] = await both({ kernel: k, inputs: [region(halfArray(H_SPECIAL), 'float16', [m, 1]), region(halfArray(H_SPECIAL), 'float16', [1, m])], outShape: [m, m], outer: full([m, m]), red: [] });
      const [gv, wv] = [asValues(g!, r.result), asValues(w!, r.result)];
      if (['power', 'arctan2', 'hypot', 'floor_divide', 'mod', 'fmod', 'ldexp'].includes(op)) expectClose(gv, wv, 2 ** -10, 2 ** -24, `${op}(float16)`);
      else expectExact(gv, wv, `${op}(float16)`);
    }
  });

  it('casts to float16 round to nearest, ties to even, as the reference; casts from it are exact', async () => {
    // float32 values at and next to every kind of float16 rounding boundary, subnormal ones included
    const f32 = [...H_SPECIAL, 1 + 2 ** -11, 1 + 3 * 2 ** -11, 1 + 2 ** -11 + 2 ** -23, 65519.99, 65520, 2 ** -25, 2 ** -25 * 1.0000001, 3 * 2 ** -26, 5 * 2 ** -26, 1e-9, 3e38, -1e6, 2047.5, 2048.9];
    const rnd = Array.from({ length: 4096 }, (_, i) => Math.fround(Math.sin(i * 12.9898) * 43758.5453 % 1 * 2 ** ((i % 40) - 26)));
    for (const vals of [f32, rnd]) {
      const shape = [vals.length];
      const k = kernelOf(G.cast(src('x', 'float32', shape), 'float16'));
      const [[g], [w]] = await both({ kernel: k, inputs: [region(Float32Array.from(vals), 'float32', shape)], outShape: shape, outer: full(shape), red: [] });
      expectExact(g!, w!, 'float32 -> float16 bits');
    }
    for (const d of DTYPES32) {
      const ints = d === 'float32' ? [] : valuesOf(d);
      const shape = [H_SPECIAL.length];
      const from = kernelOf(G.cast(src('x', 'float16', shape), d));
      const [[g], [w]] = await both({ kernel: from, inputs: [region(halfArray(H_SPECIAL), 'float16', shape)], outShape: shape, outer: full(shape), red: [] });
      expectExact(g!, w!, `float16 -> ${d}`);
      if (!ints.length) continue;
      const to = kernelOf(G.cast(src('x', d, [ints.length]), 'float16'));
      const [[g2], [w2]] = await both({ kernel: to, inputs: [region(arrayOf(d, ints, ints.length), d, [ints.length])], outShape: [ints.length], outer: full([ints.length]), red: [] });
      expectExact(g2!, w2!, `${d} -> float16 bits`);
    }
  });

  it('reductions: min/max/argmin/argmax exactly, sums (in float32) within one float16 ulp of their terms', async () => {
    const shape = [5, 37, 6];
    const n = sizeOf(shape);
    const data = halfArray(Array.from({ length: n }, (_, i) => H_SPECIAL[(i * 7) % 16]! * (1 + (i % 5) / 8)));
    for (const op of ['min', 'max', 'argmin', 'argmax', 'sum'] as const) {
      for (const axes of [[1], [0, 2]]) {
        if ((op === 'argmin' || op === 'argmax') && axes.length > 1) continue;
        const x = src('x', 'float16', shape);
        const node = op === 'argmin' || op === 'argmax' ? G.reduce(op, x, axes, false, 'int64') : G.reduce(op, x, axes, false, 'float16');
        const k = kernelOf(node);
        expect(gpuSupport(k), op).toBeUndefined();
        const [[g], [w]] = await both({ kernel: k, inputs: [region(data, 'float16', shape)], outShape: [...k.shape], outer: full(k.shape), red: k.reduce!.vars.map((v) => [0, v.size]) });
        if (op === 'sum') expectClose(decodeHalf(g as Uint16Array), decodeHalf(w as Uint16Array), 2 ** -10, 1e-3, `sum(float16) axes ${axes}`);
        else if (op === 'min' || op === 'max') expectExact(decodeHalf(g as Uint16Array), decodeHalf(w as Uint16Array), `${op}(float16) axes ${axes}`);
        else expectExact(g!, w!, `${op}(float16) axes ${axes}`);
      }
    }
  });
});

describe('memory access, control flow and random numbers on WebGPU', () => {
  it('reads strided and transposed regions of a larger chunk, and guards loads with where', async () => {
    const shape = [9, 13];
    const data = arrayOf('int32', INT_SPECIAL.int32!, sizeOf(shape));
    const x = src('x', 'int32', shape);
    const t = G.permute(x, [1, 0]);
    const node = G.where(G.binary('greater', t, G.constant(0, 'int32'), 'bool'), G.binary('multiply', t, G.constant(3, 'int32'), 'int32'), G.unary('negative', t, 'int32'));
    const k = kernelOf(node);
    const [[g], [w]] = await both({ kernel: k, inputs: [region(data, 'int32', shape)], outShape: [13, 9], outer: [[2, 11], [1, 8]], red: [] });
    expectExact(g!, w!, 'where(t > 0, 3t, -t) of a transpose, in a sub-box');
  });

  it('keeps NaN, infinite and negative-zero constants (shader compilers fold a literal -0 into +0)', async () => {
    const vals = [1, -1, NaN, 0, -0, Infinity];
    const x = src('x', 'float32', [vals.length]);
    const node = G.where(G.unary('isnan', x, 'bool'), G.constant(-0, 'float32'),
      G.where(G.binary('greater', x, G.constant(0, 'float32'), 'bool'), G.binary('fmax', x, G.constant(-Infinity, 'float32'), 'float32'), G.binary('add', x, G.constant(NaN, 'float32'), 'float32')));
    const [[g], [w]] = await both({ kernel: kernelOf(node), inputs: [region(Float32Array.from(vals), 'float32', [vals.length])], outShape: [vals.length], outer: full([vals.length]), red: [] });
    expectExact(g!, w!, 'special constants');
    // A JS number past float32's range is +-inf there, not a literal the shader compiler rejects.
    const big = G.binary('add', G.binary('multiply', x, G.constant(1e39, 'float32'), 'float32'), G.constant(-1e300, 'float32'), 'float32');
    const [[gb], [wb]] = await both({ kernel: kernelOf(big), inputs: [region(Float32Array.from(vals), 'float32', [vals.length])], outShape: [vals.length], outer: full([vals.length]), red: [] });
    expectExact(gb!, wb!, 'constants past float32');
  });

  it('computes expm1 up to the top of float32 (no overflow on the way to a finite result)', async () => {
    const vals = [80, 85, 87, 88, 88.7, 89, -90];
    const x = src('x', 'float32', [vals.length]);
    const [[g], [w]] = await both({ kernel: kernelOf(G.unary('expm1', x, 'float32')), inputs: [region(Float32Array.from(vals), 'float32', [vals.length])], outShape: [vals.length], outer: full([vals.length]), red: [] });
    expectClose(g!, w!, 4e-6, 0, 'expm1 near overflow');
  });

  it('draws the same Philox bits as the CPU path, in any box', async () => {
    const shape = [7, 300];
    const node = G.binary('bitwise_xor', G.random('bits', [0x9e3779b9, 77], 5, shape), G.random('bits', [3, 0], 2 ** 31 + 9, shape), 'uint32');
    const u32 = G.binary('subtract', G.random('uniform32', [11, 12], 4, shape), G.constant(0.25, 'float32'), 'float32');
    for (const k of [kernelOf(node), kernelOf(u32)]) {
      for (const outer of [full(shape), [[1, 6], [17, 299]] as [number, number][]]) {
        const [[g], [w]] = await both({ kernel: k, inputs: [], outShape: shape, outer, red: [] });
        expectExact(g!, w!, `${k.dtype} draws`);
      }
    }
    // other seeds and streams: the same shaders (seeds are parameters), the CPU's bits
    const compiled = dev.stats.compiled;
    const again = G.binary('bitwise_xor', G.random('bits', [0xdeadbeef, 2 ** 32 - 1], 2 ** 32 - 2, shape), G.random('bits', [8, 9], 0, shape), 'uint32');
    const [[g], [w]] = await both({ kernel: kernelOf(again), inputs: [], outShape: shape, outer: full(shape), red: [] });
    expectExact(g!, w!, 'draws of other seeds');
    expect(dev.stats.compiled, 'no new shader for new seeds').toBe(compiled);
  });

  it('runs grids wider than one dispatch dimension (more than 65535 workgroups)', async () => {
    const n = 65535 * 64 + 1000;
    const node = G.binary('add', G.cast(G.iota([n], 0), 'int32'), G.constant(1, 'int32'), 'int32');
    const k = kernelOf(node);
    const [[g], [w]] = await both({ kernel: k, inputs: [], outShape: [n], outer: full([n]), red: [] });
    expect(g![n - 1]).toBe(n);
    expectExact(g!, w!, 'iota + 1');
    const rows = 70000;
    const rk = kernelOf(G.reduce('max', G.cast(G.iota([rows, 3], 1), 'int32'), [1], false, 'int32'));
    const [[gr], [wr]] = await both({ kernel: rk, inputs: [], outShape: [rows], outer: full([rows]), red: [[0, 3]] });
    expectExact(gr!, wr!, 'max over 70000 rows');
  });

  it('passes its own self-test, which compares a small kernel with the reference', async () => {
    expect(await dev.selfTest()).toBeUndefined();
    // SwiftShader has subgroups, and they pass the self-test, so reductions use them
    expect(dev.info.subgroups).toBe(true);
    expect(dev.usesSubgroups).toBe(true);
    const k = kernelOf(G.reduce('sum', src('x', 'int32', [100]), [0], false, 'int32'));
    expect(renderWgsl(k, false, { subgroups: true }).code).toContain('subgroupAdd(acc)');
    expect(renderWgsl(k, false).code).not.toContain('subgroup');
    // and timestamp queries, so the device measures the GPU time of its dispatches
    expect(dev.info.timestamps).toBe(true);
    expect(dev.stats.kernelNs).toBeGreaterThan(0);
  });

  it('says why a kernel cannot run on WebGPU', () => {
    expect(gpuSupport(kernelOf(G.unary('sqrt', src('x', 'float64', [3]), 'float64')))).toMatch(/float64/);
    expect(gpuSupport(kernelOf(G.random('uniform', [1, 2], 3, [4])))).toMatch(/float64/);
    expect(gpuSupport(kernelOf(G.reduce('sum', src('x', 'int32', [8]), [0], false, 'int64')))).toMatch(/32 bits/);
    expect(gpuSupport(kernelOf(G.reduce('sum', G.cast(src('x', 'bool', [8]), 'int64'), [0], false, 'int64')))).toBeUndefined();
  });
});

describe("the API on WebGPU (options.device = 'webgpu')", () => {
  afterAll(async () => { mt.options.device = 'wasm'; await mt.shutdown(); });
  const both = async (f: () => mt.Tensor, workers = 2) => {
    const out: [TypedArray, mt.Report][] = [];
    for (const device of ['wasm', 'webgpu'] as const) {
      mt.options.device = device;
      const r = await f().fetch({ workers });
      out.push([r.data, mt.lastReport()!]);
    }
    mt.options.device = 'wasm';
    return out;
  };

  it('runs float32 and int32 programs on the GPU, chunked, beside the worker pool, with the CPU answers', async () => {
    const a = mt.arange(0, 60000, 1, { dtype: 'float32', chunkSize: 7000 }).reshape([60, 1000]);
    const [[cpu, rc], [gpu, rg]] = await both(() => mt.sqrt(a.multiply(a).sum({ axis: 1 })).add(1));
    expect(rc.gpuTasks).toBe(0);
    expect(rg.gpuTasks).toBeGreaterThan(0);
    expect(rg.gpu).toMatch(/./);
    expectClose(gpu, cpu, 1e-5, 0, 'sqrt(sum(a*a, axis=1)) + 1');
    const b = mt.arange(0, 300000, 1, { dtype: 'int32', chunkSize: 40000 });
    const [[ci], [gi, ri]] = await both(() => b.multiply(7).mod(1013).subtract(500));
    expect(ri.gpuTasks).toBeGreaterThan(1);
    expectExact(gi, ci, '(b * 7) % 1013 - 500');
    const [[cm], [gm]] = await both(() => mt.argmax(b.multiply(7).mod(1013)));
    expectExact(gm, cm, 'argmax over chunks');
  });

  it('runs float16 programs on the GPU with the CPU answers, bit for bit (float32 words, one rounding per operation)', async () => {
    const h = mt.arange(0, 40000, 1, { dtype: 'float16', chunkSize: 6000 }).multiply(0.01).reshape([40, 1000]);
    const [[cpu, rc], [gpu, rg]] = await both(() => mt.sqrt(h.multiply(h).add(1)).subtract(h.divide(3)));
    expect(rc.gpuTasks).toBe(0);
    expect(rg.gpuTasks).toBeGreaterThan(0);
    expectExact(Float32Array.from(gpu as ArrayLike<number>), Float32Array.from(cpu as ArrayLike<number>), 'sqrt(h*h + 1) - h/3 in float16');
    const [[cm], [gm, rm]] = await both(() => mt.max(h.multiply(-1.5), { axis: 1 }));
    expect(rm.gpuTasks).toBeGreaterThan(0);
    expectExact(Float32Array.from(gm as ArrayLike<number>), Float32Array.from(cm as ArrayLike<number>), 'max(-1.5 h, axis=1)');
  });

  it('runs float32 cumulative sums and products along an axis on the GPU, bit for bit the CPU result', async () => {
    // values with few significant bits keep products finite but still rounding
    const xs = (await mt.arange(0, 600 * 700, 1, { dtype: 'float32' }).reshape([600, 700]).multiply(0.37).sin().multiply(0.5).add(1).fetch()).toArray();
    // chunks of 300 x 350: two chunks along either axis, the second continuing from the first,
    // and at least 256 lines in each (fewer stay on the CPU)
    const x = mt.tensor(xs as number[][], { dtype: 'float32', chunkSize: [300, 350] });
    for (const axis of [0, 1]) {
      for (const op of ['cumsum', 'cumprod'] as const) {
        const f = () => mt[op](x, { axis }).add(0);
        const [[cpu, rc], [gpu, rg]] = await both(f);
        expect(rc.gpuTasks).toBe(0);
        // the scans, and the elementwise kernels after them, all ran there
        expect(rg.gpuTasks).toBe(rg.tasks);
        expectExact(gpu, cpu, `${op} axis ${axis}`);
      }
    }
    // scans of one line stay on the CPU (one invocation would walk it all)
    const line = mt.arange(0, 5000, 1, { dtype: 'float32', chunkSize: 1000 });
    const [[c1], [g1, r1]] = await both(() => mt.cumsum(line));
    expectExact(g1, c1, 'cumsum of one line');
    // (arange's five chunks are kernels, which the GPU takes; the five scans are not)
    expect(r1.tasks - r1.gpuTasks).toBe(5);
  });

  it('sends the work on a tensor created with { gpu: true } to WebGPU, as Mars does with gpu=True', async () => {
    mt.options.device = 'wasm';
    const want = (await mt.arange(0, 5000, 1, { dtype: 'int32' }).multiply(3).mod(1001).max().fetch()).item();
    expect(mt.lastReport()!.gpuTasks).toBe(0);
    const got = (await mt.arange(0, 5000, 1, { dtype: 'int32', gpu: true }).multiply(3).mod(1001).max().fetch()).item();
    expect(mt.lastReport()!.gpuTasks).toBeGreaterThan(0);
    expect(got).toBe(want);
    // float64 work on such a tensor still runs on WASM
    await mt.arange(0, 5000, 1, { gpu: true }).multiply(0.5).sum().fetch();
    expect(mt.lastReport()!.gpuTasks).toBe(0);
  });

  it('keeps stored chunks resident on the GPU: a second job over the same tensor uploads only its parameters', async () => {
    const x = mt.tensor(Float32Array.from({ length: 100000 }, (_, i) => Math.sin(i)), { chunkSize: 25000 });
    mt.options.device = 'webgpu';
    const first = (await x.multiply(2).max().fetch()).item();
    const d = (await runtime.gpuDevice())!;
    const up = d.stats.bytesUp, hits = d.stats.residentHits;
    const second = (await x.multiply(2).max().fetch()).item();
    const r = mt.lastReport()!;
    mt.options.device = 'wasm';
    expect(r.gpuTasks).toBeGreaterThanOrEqual(4);
    expect(d.stats.residentHits - hits).toBeGreaterThanOrEqual(4);
    expect(d.stats.bytesUp - up).toBeLessThan(4096);
    expect(second).toBe(first);
    expect(first).toBe((await x.multiply(2).max().fetch()).item());
  });

  it('keeps the chunks a kernel wrote on the GPU for the kernels that read them next, reads back only the results, submits the tasks ready together at once, and frees the chunks', async () => {
    const grid = (n: number, m: number, f: (i: number) => number) => Array.from({ length: n }, (_, i) => Array.from({ length: m }, (_, j) => f(i * m + j)));
    const [A, B] = [grid(256, 192, Math.sin), grid(192, 128, Math.cos)];
    const a = mt.tensor(A, { dtype: 'float32', chunkSize: [64, 192] });
    const b = mt.tensor(B, { dtype: 'float32', chunkSize: [192, 128] });
    await mt.execute(a, b);
    // (k a) @ b: an elementwise kernel, the matrix product (the hand-written shader), then two reductions of it
    const program = async (k: number) => {
      const c = mt.matmul(a.multiply(k), b);
      const [s, m] = [c.sum({ axis: 1 }), c.max({ axis: 1 })];
      await mt.execute(s, m);
      const report = mt.lastReport()!;
      return { report, got: [...((await s.fetch()).data as Float32Array), ...((await m.fetch()).data as Float32Array)] };
    };
    mt.options.device = 'webgpu';
    try {
      await program(1); // a and b become resident
      const d = (await runtime.gpuDevice())!;
      const [up, down, hits, submits] = [d.stats.bytesUp, d.stats.bytesDown, d.stats.residentHits, d.stats.submits];
      const resident = (d as unknown as { resident: Map<object, unknown> }).resident;
      const freed = new WeakSet<object>();
      let dropped = 0;
      const release = runtime.heap.onRelease;
      runtime.heap.onRelease = (blk) => { freed.add(blk); if (resident.has(blk)) dropped++; release?.(blk); };
      const { report, got } = await program(2).finally(() => { runtime.heap.onRelease = release; });
      expect(report.gpuTasks).toBe(4 + 4 + 8);
      // tasks ready together go in one submission: the scalings, the products, the reductions
      expect(d.stats.submits - submits).toBe(3);
      // the products read k a from the GPU, and the reductions the products: only parameters went up
      expect(d.stats.residentHits - hits).toBe(4 * 3 + 8);
      expect(d.stats.bytesUp - up).toBeLessThan(16 * 1024);
      // and only the results came back: k a and the products lived on the GPU only
      expect(d.stats.bytesDown - down).toBe(2 * 256 * 4);
      // and the chunks of k a and of the products were freed after their last reader, their GPU copies with them
      expect(dropped).toBeGreaterThanOrEqual(8);
      expect([...resident.keys()].filter((k) => freed.has(k))).toEqual([]);
      const rows = A.map((r) => B[0]!.map((_, j) => r.reduce((acc, x, i) => acc + 2 * x * B[i]![j]!, 0)));
      const want = [...rows.map((r) => r.reduce((x, y) => x + y, 0)), ...rows.map((r) => Math.max(...r))];
      got.forEach((v, i) => expect(Math.abs(v - want[i]!)).toBeLessThanOrEqual(1e-4 * 128 * Math.max(1, Math.abs(want[i]!))));
    } finally {
      mt.options.device = 'wasm';
    }
  });

  it('runs the Monte Carlo pi program in float32 on the GPU, counting as the CPU does but for points on the circle', async () => {
    const n = 300000;
    const pi = async () => {
      mt.random.seed(7);
      const d = mt.random.uniform(-1, 1, [n, 2], { dtype: 'float32', chunkSize: 100000 });
      return Number((await mt.sqrt(d.power(2).sum({ axis: 1 })).less(1).sum().fetch()).item());
    };
    mt.options.device = 'wasm';
    const cpu = await pi();
    mt.options.device = 'webgpu';
    const gpu = await pi();
    const r = mt.lastReport()!;
    mt.options.device = 'wasm';
    expect(r.gpuTasks).toBeGreaterThan(0);
    // the GPU adds a point's two squares in float32, the CPU in float64: a point within an ulp of the circle may flip
    expect(Math.abs(gpu - cpu)).toBeLessThanOrEqual(3);
    expect(Math.abs((4 * cpu) / n - Math.PI)).toBeLessThan(6 * Math.sqrt(Math.PI * (4 - Math.PI) / n));
  });

  it('keeps a kernel with more inputs than the adapter has storage bindings on WASM, in the same job', async () => {
    const d = (await runtime.gpuDevice())!;
    const parts = Array.from({ length: d.info.maxStorageBuffersPerShaderStage }, (_, i) => mt.arange(i * 10, i * 10 + 10, 1, { dtype: 'int32' }).execute());
    const ts = await Promise.all(parts);
    const [[c], [g, r]] = await both(() => mt.concatenate(ts).multiply(3), 0);
    expect(r.tasks).toBeGreaterThan(0);
    expectExact(g, c, 'concatenate of many inputs');
    expect(Array.from(g as Int32Array).slice(0, 3)).toEqual([0, 3, 6]);
  });

  it('keeps float64 work on WASM', async () => {
    const x = mt.arange(0, 1000, 1, { dtype: 'float64' });
    const [[c], [g, r]] = await both(() => x.multiply(x).sum());
    expect(r.gpuTasks).toBe(0);
    expectExact(g, c, 'float64 sum');
  });

  it('finishes a job with the right answer when the device is lost mid-job', async () => {
    const b = mt.arange(0, 400000, 1, { dtype: 'int32', chunkSize: 20000 });
    mt.options.device = 'wasm';
    const want = (await b.multiply(3).mod(17).fetch({ workers: 0 })).data;
    mt.options.device = 'webgpu';
    let lost = false;
    const got = (await b.multiply(3).mod(17).fetch({
      workers: 0,
      onProgress: ({ done }) => { if (done === 3 && !lost) { lost = true; void runtime.gpuDevice().then((d) => d!.lose()); } },
    })).data;
    const r = mt.lastReport()!;
    mt.options.device = 'wasm';
    expect(lost).toBe(true);
    expect(r.gpuTasks).toBeGreaterThanOrEqual(3);
    expect(r.gpuTasks).toBeLessThan(r.tasks);
    expectExact(got, want, 'after a device loss');
    // the next job gets a fresh device
    mt.options.device = 'webgpu';
    await b.add(1).fetch({ workers: 0 });
    mt.options.device = 'wasm';
    expect(mt.lastReport()!.gpuTasks).toBeGreaterThan(0);
  });

  it('runs a job again on WASM when the device is lost with chunks that lived on it only', async () => {
    const grid = (n: number, m: number, f: (i: number) => number) => Array.from({ length: n }, (_, i) => Array.from({ length: m }, (_, j) => f(i * m + j)));
    const a = mt.tensor(grid(512, 64, Math.sin), { dtype: 'float32', chunkSize: [64, 64] });
    const b = mt.tensor(grid(64, 32, Math.cos), { dtype: 'float32', chunkSize: [64, 32] });
    await mt.execute(a, b);
    // a * 3 and the products live on the GPU only (their readers, the products and the row sums, run there too)
    const program = () => mt.matmul(a.multiply(3), b).sum({ axis: 1 });
    expect(runtime.planOf([program().node]).kernels.length).toBe(3);
    mt.options.device = 'wasm';
    const want = (await program().fetch({ workers: 0 })).data;
    mt.options.device = 'webgpu';
    try {
      let lost = false;
      const d = (await runtime.gpuDevice())!;
      const down = d.stats.bytesDown;
      const got = (await program().add(0).fetch({
        workers: 0,
        onProgress: ({ done }) => { if (done === 8 && !lost) { lost = true; d.lose(); } },
      })).data;
      expect(lost).toBe(true);
      expect(d.stats.bytesDown - down).toBe(0); // nothing came back before the loss: the products lived on the GPU only
      expect(mt.lastReport()!.gpuTasks).toBe(0); // the run that finished was the one on WASM
      expectExact(got, want, 'after a device loss');
    } finally {
      mt.options.device = 'wasm';
    }
  });

  it('runs on WASM where there is no adapter', () => {
    const script = `import * as mt from './dist/api/tensor.js';
      mt.options.device = 'webgpu';
      const r = await mt.arange(0, 1000, 1, { dtype: 'int32' }).multiply(2).sum().fetch();
      console.log(JSON.stringify({ v: Number(r.item()), gpu: mt.lastReport().gpu, tasks: mt.lastReport().gpuTasks }));
      await mt.shutdown();`;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: join(__dirname, '..'), encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, VK_ICD_FILENAMES: '/nonexistent/icd.json' },
    });
    expect(JSON.parse(out.trim().split('\n').at(-1)!)).toEqual({ v: 999000, gpu: 'no WebGPU adapter', tasks: 0 });
  });
});

