// The page side of test/browser.test.ts: opens the WebGPU device through
// navigator.gpu and runs the kernels the test sends (IR as text, as a peer
// receives it) on typed arrays rebuilt from plain ones, answering with the
// outputs as plain arrays. The test compares them with the reference.
import { ARRAY_CTOR, type DType, type TypedArray } from '../../src/graph/dtype.js';
import { decodeKernel } from '../../src/ir/wire.js';
import { GpuDevice } from '../../src/runtime/webgpu.js';

interface PlainRegion { data: number[]; dtype: DType; origin: number[]; strides: number[] }
interface PlainTask { kernel: string; partial: boolean; inputs: PlainRegion[]; outputs: PlainRegion[]; outer: [number, number][]; red: [number, number][] }

const status = document.getElementById('status')!;
const typed = (r: PlainRegion) => {
  const a = new ARRAY_CTOR[r.dtype](r.data.length) as TypedArray;
  r.data.forEach((v, i) => { (a as unknown as (number | bigint)[])[i] = r.dtype === 'int64' ? BigInt(v) : v; });
  return { ...r, data: a };
};
const plain = (a: TypedArray): (number | null)[] => Array.from(a as ArrayLike<number | bigint>, (v) => {
  const n = Number(v);
  return Number.isNaN(n) ? null : Object.is(n, -0) ? -0 : n;
});

const device = await GpuDevice.open();
(window as unknown as Record<string, unknown>).gpuInfo = device ? { adapter: device.info.adapter, features: device.info.features } : null;
(window as unknown as Record<string, unknown>).runTask = async (t: PlainTask) => {
  const outputs = t.outputs.map(typed);
  await device!.run({ kernel: decodeKernel(t.kernel), partial: t.partial, inputs: t.inputs.map(typed), outputs, outer: t.outer, red: t.red });
  // NaN and infinities do not survive JSON: send them as strings
  return outputs.map((o) => plain(o.data).map((v) => (v === null ? 'NaN' : v === Infinity ? 'inf' : v === -Infinity ? '-inf' : Object.is(v, -0) ? '-0' : v)));
};
status.textContent = device ? 'ready' : 'no adapter';
