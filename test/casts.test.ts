// Float-to-integer casts against NumPy's x86-64 results (test/fixtures/gen_casts.py:
// numpy_casts.json, which test/conformance.test.ts also runs through the
// runtime, and casts_fused.json): NaN, infinities and out-of-range values
// included. The same expected values are checked here on every other path a
// cast takes: the reference interpreter (ir/scalar.ts), the WGSL emitter on
// the WebGPU device (Dawn on SwiftShader in Node, as test/webgpu.test.ts),
// JS data given with an integer dtype (api/convert.ts), and casts fused into
// arithmetic, through the runtime, the interpreter and WebGPU.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as mt from '../src/api/tensor.js';
import { fromJs } from '../src/api/convert.js';
import { fuse } from '../src/fuse/fuse.js';
import { ARRAY_CTOR, type DType, type TypedArray } from '../src/graph/dtype.js';
import { halfView } from '../src/graph/half.js';
import type { Node } from '../src/graph/node.js';
import { interpret } from '../src/ir/interpret.js';
import type { Kernel } from '../src/ir/ir.js';
import { GpuDevice } from '../src/runtime/webgpu.js';
import { gpuSupport } from '../src/wgsl/render.js';

type Scalar = number | string | boolean;
interface Enc { tensor: unknown; shape: number[]; dtype: string }
interface Expected { shape: number[]; dtype: string; data: Scalar[] }
interface Case { name: string; fn: string; args: unknown[]; kwargs: Record<string, unknown>; expected: Expected }
interface Fused { name: string; expr: keyof typeof FUSED; x: Enc; expected: Expected }

const read = <T>(f: string): T => JSON.parse(readFileSync(new URL(`./fixtures/${f}`, import.meta.url), 'utf8')) as T;
const ASTYPE = read<Case[]>('numpy_casts.json').filter((c) => c.fn === 'astype');
const FUSED_CASES = read<Fused[]>('casts_fused.json');

/** The expressions gen_casts.py's FUSED names, in Tessera. */
const FUSED = {
  double_to_int32: (x: mt.Tensor) => mt.multiply(x, 2).astype('int32'),
  int16_plus_1: (x: mt.Tensor) => mt.add(x.astype('int16'), 1),
  uint8_times_3: (x: mt.Tensor) => mt.multiply(x.astype('uint8'), 3),
  uint32_of_neg: (x: mt.Tensor) => mt.negative(x).astype('uint32'),
  int64_of_half: (x: mt.Tensor) => mt.multiply(x, 0.5).astype('int64'),
  int8_where: (x: mt.Tensor) => mt.where(mt.greater(x, 0), x.astype('int8'), -1),
  int32_to_float: (x: mt.Tensor) => mt.subtract(x.astype('int32').astype(x.dtype), x),
  nan_fill_int32: (x: mt.Tensor) => mt.where(mt.greater(x, 0), x.astype('int32'), mt.full(x.shape, NaN, { dtype: 'int32' })),
  fill_int8_plus: (x: mt.Tensor) => mt.add(x.astype('int8'), mt.full(x.shape, 300.5, { dtype: 'int8' })),
};

const num = (v: Scalar): number => (v === 'nan' ? NaN : v === 'inf' ? Infinity : v === '-inf' ? -Infinity : typeof v === 'boolean' ? +v : v as number);
const nested = (v: unknown): unknown => (Array.isArray(v) ? v.map(nested) : num(v as Scalar));

/** A fixture's input: a tensor of it, its values in C order as JS numbers, and as stored (float16 as its bits). */
function input(e: Enc): { x: mt.Tensor; values: number[]; dtype: DType; stored: TypedArray } {
  const data = nested(e.tensor) as number[], dtype = e.dtype as DType;
  const stored = fromJs(data, dtype).data;
  return { x: mt.tensor(data, { dtype }), values: [...(dtype === 'float16' ? halfView(stored as Uint16Array) : stored as ArrayLike<number>)], dtype, stored };
}

/** Elementwise equality with NumPy's values (NaN with NaN), naming the first few inputs that differ. */
function expectNumpy(got: ArrayLike<number | bigint>, want: Expected, inputs: number[], what: string): void {
  const w = want.data.map(num);
  expect(got.length, what).toBe(w.length);
  const bad: string[] = [];
  for (let i = 0; i < w.length && bad.length < 5; i++) {
    const g = Number(got[i]);
    if (!(g === w[i] || (Number.isNaN(g) && Number.isNaN(w[i])))) bad.push(`x=${inputs[i]}: got ${g}, want ${w[i]}`);
  }
  expect(bad, `${what}: ${bad.length} mismatches`).toEqual([]);
}

/** The one kernel computing `t` from its sources. */
function kernelOf(t: mt.Tensor): { kernel: Kernel; inputs: Node[] } {
  const steps = fuse([t.node], (n) => n.op === 'source');
  const s = steps.at(-1)!;
  if (s.kind !== 'kernel' || steps.length !== 1) throw new Error('expected one kernel');
  return { kernel: s.kernel, inputs: s.inputs as Node[] };
}

const cstrides = (shape: readonly number[]) => shape.map((_, i) => shape.slice(i + 1).reduce((a, b) => a * b, 1));

/** Runs `k` (one input, read whole) in the reference interpreter on a private heap. */
function interpretOne(k: Kernel, shape: number[], stored: TypedArray): TypedArray {
  const n = shape.reduce((a, b) => a * b, 1);
  const inBytes = Math.ceil(stored.byteLength / 8) * 8;
  const heap = new ArrayBuffer(inBytes + n * 8 + 8);
  new Uint8Array(heap, 0, stored.byteLength).set(new Uint8Array(stored.buffer, stored.byteOffset, stored.byteLength));
  interpret(k, {
    inputs: [{ ptr: 0, origin: shape.map(() => 0), strides: cstrides(shape) }],
    outputs: [{ ptr: inBytes, origin: shape.map(() => 0), strides: cstrides(shape) }],
    outer: shape.map((d) => [0, d] as [number, number]), red: [], partial: false,
  }, heap);
  return new ARRAY_CTOR[k.dtype](heap, inBytes, n) as TypedArray;
}

let gpu: GpuDevice;
beforeAll(async () => {
  const d = await GpuDevice.open();
  if (!d) throw new Error('no WebGPU adapter: `npm test` installs chromium (SwiftShader) and libvulkan1; run `npm run setup` as root');
  gpu = d;
}, 60_000);
afterAll(() => { gpu?.destroy(); mt.shutdown(); });

/** Runs `k` (one input, read whole) on the WebGPU device. */
async function onGpu(k: Kernel, shape: number[], dtype: DType, stored: TypedArray): Promise<TypedArray> {
  const out = new ARRAY_CTOR[k.dtype](shape.reduce((a, b) => a * b, 1)) as TypedArray;
  const origin = shape.map(() => 0), strides = cstrides(shape);
  await gpu.run({
    kernel: k, partial: false, inputs: [{ data: stored, dtype, origin, strides }],
    outputs: [{ data: out, dtype: k.dtype, origin, strides }], outer: shape.map((d) => [0, d]), red: [],
  });
  return out;
}

const astype = (c: Case) => {
  const x = input(c.args[0] as Enc);
  return { ...x, to: c.args[1] as DType, shape: (c.args[0] as Enc).shape };
};

describe('astype from floats, as NumPy on x86-64', () => {
  it('has fixtures for every float source and integer target', () => {
    const pairs = new Set(ASTYPE.map((c) => `${(c.args[0] as Enc).dtype}->${c.args[1]}`));
    for (const f of ['float64', 'float32', 'float16']) {
      for (const t of ['int64', 'int32', 'int16', 'int8', 'uint32', 'uint16', 'uint8', 'bool']) expect(pairs).toContain(`${f}->${t}`);
    }
  });

  it.each(ASTYPE.map((c) => [c.name, c] as const))('reference interpreter: %s', (_, c) => {
    const { x, values, dtype, stored, to, shape } = astype(c);
    const k = kernelOf(x.astype(to)).kernel;
    expectNumpy(interpretOne(k, shape, stored), c.expected, values, c.name);
  });

  it.each(ASTYPE.map((c) => [c.name, c] as const))('WebGPU: %s', async (_, c) => {
    const { x, values, dtype, stored, to, shape } = astype(c);
    const k = kernelOf(x.astype(to)).kernel;
    // WGSL has no float64 and no int64 data: those casts stay on WASM
    if (dtype === 'float64' || to === 'int64') { expect(gpuSupport(k)).toBeDefined(); return; }
    expect(gpuSupport(k)).toBeUndefined();
    expectNumpy(await onGpu(k, shape, dtype, stored), c.expected, values, c.name);
  });

  it.each(ASTYPE.map((c) => [c.name, c] as const))('JS data with the dtype: %s', async (_, c) => {
    const { values, dtype, stored, to } = astype(c);
    // nested JS numbers are float64 values; a float32 or float16 source goes as its typed array
    const data = dtype === 'float64' ? values : dtype === 'float32' ? stored : halfView(stored as Uint16Array);
    const r = await mt.tensor(data as number[], { dtype: to }).fetch();
    expectNumpy(r.data as ArrayLike<number>, c.expected, values, c.name);
  });

  it('gives the values the task names (NumPy 2.4 on x86-64)', async () => {
    const cast = async (xs: number[], to: string, from = 'float64') => Array.from((await mt.tensor(xs, { dtype: from }).astype(to).fetch()).data as ArrayLike<number>, Number);
    expect(await cast([NaN, 1e10, -1e10, 2 ** 31 - 0.5, -(2 ** 31) - 0.5], 'int32')).toEqual([-2147483648, -2147483648, -2147483648, 2147483647, -2147483648]);
    expect(await cast([300.5, NaN, 1e10], 'int8')).toEqual([44, 0, 0]);
    expect(await cast([-1.5, 1e10], 'uint8')).toEqual([255, 0]);
    expect(await cast([2 ** 31 + 1, 2 ** 32, 1e10, Infinity, -Infinity, NaN, -129.7], 'uint32')).toEqual([2147483649, 0, 0, 0, 2147483648, 2147483648, 4294967167]);
    expect(await cast([NaN, Infinity, 2 ** 63, -(2 ** 63), 1e19], 'int64')).toEqual([-(2 ** 63), -(2 ** 63), -(2 ** 63), -(2 ** 63), -(2 ** 63)]);
    expect(await cast([NaN, Infinity, -Infinity, -1.5], 'uint32', 'float16')).toEqual([0, 0, 0, 4294967295]);
    expect(Array.from((await mt.tensor([300.5, NaN], { dtype: 'int8' }).fetch()).data as Int8Array)).toEqual([44, 0]);
  });
});

describe('casts fused into arithmetic, as NumPy', () => {
  it.each(FUSED_CASES.map((c) => [c.name, c] as const))('%s', async (_, c) => {
    const { x, values, dtype, stored } = input(c.x);
    const t = FUSED[c.expr](x);
    expect(t.dtype).toBe(c.expected.dtype);
    // through the runtime (WASM)
    expectNumpy((await t.fetch()).data as ArrayLike<number>, c.expected, values, `${c.name} runtime`);
    // the reference interpreter, and WebGPU where the kernel can run there
    const k = kernelOf(t).kernel;
    expectNumpy(interpretOne(k, c.x.shape, stored), c.expected, values, `${c.name} interpreter`);
    if (!gpuSupport(k)) expectNumpy(await onGpu(k, c.x.shape, dtype, stored), c.expected, values, `${c.name} WebGPU`);
  });
});
