// The Tensor (a lazy value wrapping one graph Node) and the operations the
// rest of the api builds on: session options, the deferral of work over
// lengths known only at run time, the elementwise ufuncs generated from the
// op tables, reductions, creation, shapes, products, and `execute`. Nothing
// here computes: `execute`/`fetch` hand the graph to the runtime. dtype rules
// come from graph/dtype, shape rules from graph/shape. It imports no other
// api module that builds tensors, so each of them imports it and none is
// imported back; the `mt` namespace (tensor.ts) adds the ndarray methods
// and ufunc methods that live in those modules.

import { CASTINGS, type Casting, type DType, INFO, type WeakKind, canCast, defaultDTypeOfWeak, floatResultOf, integerRange, isFloat, outOfIntRange, parseDType, promoteTypes, promoteWeak, sumResultOf, weakKindOf } from '../graph/dtype.js';
import * as G from '../graph/node.js';
import type { Node } from '../graph/node.js';
import { BINARY_OPS, type BinaryOp, type ReduceOp, UNARY_OPS, type UnaryOp, resolveBinary, resolveUnary } from '../graph/ops.js';
import { broadcastShapes, checkShape, chunkGrid, hasUnknown, isUnknown, MAX_SIZE, normalizeAxes, normalizeAxis, repr, shapeStr, sizeOf } from '../graph/shape.js';
import { type DeviceChoice, type Report, type RunOptions, runtime } from '../runtime/runtime.js';
import { resolve } from '../runtime/resolve.js';
import { Execution, debugLevel } from '../runtime/debug.js';
import { castScalar } from '../ir/scalar.js';
import { type JsData, NDArray, dtypeArg, fromJs } from './convert.js';
import { checkOrder, isOptions, knownLength, kwargs, need, trailingOpts } from './bind.js';

export { NDArray } from './convert.js';
export type { DeviceChoice, Report } from '../runtime/runtime.js';

/** Session-wide defaults (NumPy has none of these; Mars has similar options). */
export const options = {
  /** Start every operation as soon as it is written. */
  eager: false,
  /** Worker threads for the local executor (default: one per core; 0 = inline). */
  workers: undefined as number | undefined,
  /** Called with {done, total} as tasks finish. */
  onProgress: undefined as RunOptions['onProgress'],
  /**
   * Where kernels run: 'wasm' (the CPU), 'webgpu' (the GPU for every kernel it
   * can run: float32 and 32-bit integer work; float64 stays on WASM), or
   * 'auto' (WebGPU on a hardware GPU only). Without an adapter, or when the
   * device is lost mid-job, the work runs on WASM.
   */
  device: 'wasm' as DeviceChoice,
  /**
   * What each execution prints (runtime/debug.ts): 0 nothing, 1 a summary,
   * 2 each task, 3 the graphs and kernels too. Unset: the TESSERA_DEBUG (or
   * DEBUG) environment variable, in Node. `mt.lastReport().trace` holds the
   * timeline at every level.
   */
  debug: undefined as number | undefined,
  /**
   * The mesh session every execution runs on unless its own options name one
   * (Mars' default session): learn's estimators and md's frames, which
   * execute inside their methods, then run on the mesh too. Undefined: this
   * machine's cores.
   */
  session: undefined as RunOptions['session'],
  /**
   * Partial results one combine task folds at most (default 64): a reduction
   * split into more partials (one per chunk of the reduced axes) combines in
   * a tree of levels, each folding this many rows of the one below, as Dask's
   * split_every; on a mesh, no task then reads thousands of pieces. An
   * arg-reduction's partials combine in one level.
   */
  get combineFanIn(): number { return runtime.combineFanIn; },
  set combineFanIn(n: number) { runtime.combineFanIn = n; },
};

export type Operand = Tensor | number | boolean | JsData;
type ChunkSize = number | readonly (number | null)[];
export interface CreateOpts {
  dtype?: DType | string;
  chunkSize?: ChunkSize;
  /** Run the work on this tensor on WebGPU (as Mars's gpu=True): a graph holding one runs with device 'webgpu'. */
  gpu?: boolean;
  /** NumPy's memory order: checked as NumPy checks it, changes no value (values are C-ordered). */
  order?: string | null;
}

/** Nodes created with { gpu: true }. */
const gpuNodes = new WeakSet<Node>();
/** Marks work for WebGPU ({ gpu: true }); random.ts places its draws with it (as _placed). */
function placed<T extends Tensor | Node>(t: T, o: CreateOpts): T {
  if (o.gpu) gpuNodes.add(t instanceof Tensor ? t.node : t);
  return t;
}
interface AxisOpts { axis?: number | readonly number[] | null; keepdims?: boolean; dtype?: DType | string; initial?: number | boolean | null; where?: Operand }
/** NumPy's positional order of each reduction's parameters. */
const SUM_P = ['axis', 'dtype', 'out', 'keepdims', 'initial', 'where'];
const MINMAX_P = ['axis', 'out', 'keepdims', 'initial', 'where'];
/** any/all/mean/var/std: `where` is keyword-only (and any/all have no `initial`). */
const LOGIC_P = ['axis', 'out', 'keepdims'];
const MEAN_P = ['axis', 'dtype', 'out', 'keepdims'];
const WHERE_KW = ['where'];
const VAR_P = ['axis', 'dtype', 'out', 'ddof', 'keepdims'];
const ARG_P = ['axis', 'out'];
const SCAN_P = ['axis', 'dtype', 'out'];
const CREATE_KW = ['chunkSize', 'gpu'];
/** Positional or keyword arguments after the array, in NumPy's order (see `kwargs`). */
type Args = unknown[];

export class Tensor {
  private pending: Promise<unknown> | undefined;

  private current: Node;

  constructor(node: Node) {
    this.current = node;
    if (options.eager) {
      this.pending = this.execute().catch(() => undefined);
    }
  }

  /** The graph node behind this tensor (replaced by an equivalent one once unknown lengths are computed). */
  get node(): Node { return this.current; }
  /** @internal Called by `realize` only. */
  _resolved(n: Node): void { this.current = n; }

  /** NaN marks a length known only after execution (a boolean-mask selection), as in Mars and Dask. */
  get shape(): number[] { return [...this.node.shape]; }
  get dtype(): DType { return this.node.dtype; }
  get ndim(): number { return this.node.shape.length; }
  get size(): number { return sizeOf(this.node.shape); }
  get T(): Tensor { return transpose(this); }
  /** ndarray.mT: the last two axes swapped (a stack of matrices transposed). */
  get mT(): Tensor {
    if (this.ndim < 2) throw new RangeError('matrix transpose with ndim < 2 is undefined');
    return swapaxes(this, -1, -2);
  }

  /** Runs the graph behind this tensor; resolves to the same tensor, now materialised. */
  async execute(opts: RunOptions = {}): Promise<this> {
    await realize([this], withDefaults(opts));
    return this;
  }

  /** Computes (if needed) and returns the values. */
  async fetch(opts: RunOptions = {}): Promise<NDArray> {
    if (this.pending) await this.pending;
    await realize([this], withDefaults(opts));
    return new NDArray(this.shape, this.dtype, runtime.read(this.node));
  }

  toString(): string { return `Tensor(shape=${shapeStr(this.shape)}, dtype=${this.dtype})`; }

  // Methods where NumPy's ndarray has them.
  reshape(...shape: (number | readonly number[] | { order?: 'C' | 'F' })[]): Tensor {
    const [dims, o] = trailingOpts<{ order?: 'C' | 'F' }>(shape);
    return reshape(this, dims.length === 1 ? (dims[0] as number | number[]) : (dims as number[]), o);
  }
  astype(dtype: DType | string, ...args: Args): Tensor { return astype(this, dtype, ...args); }
  ravel(...args: Args): Tensor { return ravel(this, ...args); }
  flatten(...args: Args): Tensor { return ravel(this, ...args); }
  transpose(...axes: (number | readonly number[] | null | { axes?: readonly number[] | null })[]): Tensor {
    // ndarray.transpose takes the axes as one list or as separate integers.
    return axes.length > 1 && axes.every((a) => typeof a === 'number') ? transpose(this, axes) : transpose(this, ...axes);
  }
  swapaxes(...args: Args): Tensor { return swapaxes(this, ...args); }
  squeeze(...args: Args): Tensor { return squeeze(this, ...args); }
  sum(...args: Args): Tensor { return sum(this, ...args); }
  prod(...args: Args): Tensor { return prod(this, ...args); }
  mean(...args: Args): Tensor { return mean(this, ...args); }
  var(...args: Args): Tensor { return var_(this, ...args); }
  std(...args: Args): Tensor { return std(this, ...args); }
  min(...args: Args): Tensor { return min(this, ...args); }
  max(...args: Args): Tensor { return max(this, ...args); }
  argmin(...args: Args): Tensor { return argmin(this, ...args); }
  argmax(...args: Args): Tensor { return argmax(this, ...args); }
  any(...args: Args): Tensor { return any(this, ...args); }
  all(...args: Args): Tensor { return all(this, ...args); }
  ptp(...args: Args): Tensor { return ptp(this, ...args); }
  cumsum(...args: Args): Tensor { return cumsum(this, ...args); }
  cumprod(...args: Args): Tensor { return cumprod(this, ...args); }
  clip(...args: Args): Tensor { return clip(this, ...args); }
  round(...args: Args): Tensor { return round(this, ...args); }
  dot(b: Operand): Tensor { return dot(this, b); }
  take(indices: Operand, ...args: Args): Tensor { return take(this, indices, ...args); }
  trace(...args: Args): Tensor { return trace(this, ...args); }
  copy(): Tensor { return this; }
  matmul(b: Operand): Tensor { return matmul(this, b); }
  conj(): Tensor { return this; }
  /** The real part: the tensor itself (Tessera has no complex dtypes). */
  get real(): Tensor { return this; }
  /** The imaginary part of a real array: zeros of its shape and dtype. */
  get imag(): Tensor { return zeros_like(this); }
  get itemsize(): number { return INFO[this.dtype].bytes; }
  get nbytes(): number { return this.size * INFO[this.dtype].bytes; }

  // NumPy's ndarray readers, awaited here: `await x.item()`, `await x.tolist()`, `await x.tobytes()`.
  /** item(*args): one value as a JS number (bool, bigint past 2^53), as NDArray.item. */
  async item(...index: number[]): Promise<number | boolean | bigint> { return (await this.fetch()).item(...index); }
  /** tolist(): nested JS arrays, as NDArray.toArray. */
  async tolist(): Promise<unknown> { return (await this.fetch()).toArray(); }
  /** tobytes(): the C-order bytes of the values (little-endian). */
  async tobytes(): Promise<Uint8Array> {
    const d = (await this.fetch()).raw;
    return new Uint8Array(d.buffer, d.byteOffset, d.byteLength).slice();
  }

  // ndarray's in-place methods: Tessera's values are immutable, so each names its functional form.
  sort(): never { throw new TypeError('x.sort() sorts in place in NumPy, and Tessera\'s tensors are immutable: use mt.sort(x, ...), which returns the sorted tensor'); }
  partition(): never { throw new TypeError('x.partition() works in place in NumPy, and Tessera\'s tensors are immutable: use mt.partition(x, kth, ...)'); }
  fill(): never { throw new TypeError('x.fill() works in place in NumPy, and Tessera\'s tensors are immutable: use mt.full_like(x, value)'); }
  put(): never { throw new TypeError('x.put() works in place in NumPy, and Tessera\'s tensors are immutable: use x.set(indices, values) or mt.put_along_axis, which return a new tensor'); }
  resize(): never { throw new TypeError('x.resize() works in place in NumPy, and Tessera\'s tensors are immutable: use mt.resize(x, new_shape), which returns the new tensor'); }
  __getitem__?: never;

  /** The Array API's device: 'cpu' (where the values are read back; kernels may run on a GPU or peers). */
  get device(): 'cpu' { return 'cpu'; }
  /** to_device('cpu'): the tensor itself, as NumPy's; another device is NumPy's error. */
  to_device(device: string, ...args: Args): Tensor {
    kwargs('to_device', args, [], ['stream']);
    if (device !== 'cpu') throw new RangeError(`Device not understood. Only "cpu" is allowed, but received: ${String(device)}`);
    return this;
  }
}
// The in-place methods above, as the coverage table lists them (./refuse.ts).
for (const m of ['sort', 'partition', 'fill', 'put', 'resize'] as const) Object.assign(Tensor.prototype[m], { refused: 'works in place; raises, naming the functional form' });

/** Resolves unknown lengths (iterative tiling), then runs all outputs as one graph. */
async function realize(ts: readonly Tensor[], given: RunOptions): Promise<void> {
  const opts: RunOptions = { ...given, execution: given.execution ?? new Execution(debugLevel(given.debug)) };
  // the report's largest allocation is this execution's, every stage of it
  if (!given.execution) runtime.heap.largest = 0;
  try {
    await realizeIn(ts, opts);
  } finally {
    if (!given.execution) {
      // what the stages of its routines kept on mesh workers goes with the execution
      runtime.releaseScope(opts.execution!);
      opts.execution!.finish();
    }
  }
}

async function realizeIn(ts: readonly Tensor[], opts: RunOptions): Promise<void> {
  const nodes = await resolve(ts.map((t) => t.node), runtime, opts);
  ts.forEach((t, i) => t._resolved(nodes[i]!));
  // a graph holding a tensor created with { gpu: true } runs on WebGPU
  if (opts.session) {
    const job = { ...(opts.name ? { name: opts.name } : {}), ...(opts.signal ? { signal: opts.signal } : {}), ...(opts.debug !== undefined ? { debug: opts.debug } : {}) };
    await opts.session.runNodes(nodes, opts.onProgress, job);
    return;
  }
  // a local run cannot stop midway: it honours a cancellation given before it starts
  opts.signal?.throwIfAborted();
  const gpu = opts.device === 'wasm' && G.topo(nodes, (n) => runtime.has(n)).some((n) => gpuNodes.has(n));
  await runtime.run(nodes, gpu ? { ...opts, device: 'webgpu' } : opts);
}

function withDefaults(o: RunOptions): RunOptions {
  const debug = o.debug ?? options.debug;
  const session = o.session ?? options.session;
  return {
    workers: o.workers ?? options.workers,
    onProgress: o.onProgress ?? options.onProgress,
    device: o.device ?? options.device,
    ...(session ? { session } : {}),
    ...(o.name ? { name: o.name } : {}),
    ...(o.signal ? { signal: o.signal } : {}),
    ...(debug !== undefined ? { debug } : {}),
  };
}

/** Ops that are halves of a multi-output ufunc (frexp): reached through `frexp`, not as methods. */
type PartOp = 'frexp_mantissa' | 'frexp_exponent';
const PART_OPS: ReadonlySet<string> = new Set<PartOp>(['frexp_mantissa', 'frexp_exponent']);
export interface Tensor extends Record<`${Exclude<UnaryOp, PartOp>}` | 'absolute' | 'positive' | 'conjugate', (o?: UFuncKw) => Tensor> {}
export interface Tensor extends Record<BinaryOp | 'true_divide' | 'remainder' | 'pow', (b: Operand, o?: UFuncKw) => Tensor> {}

// ---------------------------------------------------------------------------
// Operands

export const isTensor = (x: unknown): x is Tensor => x instanceof Tensor;

/** A shape given to a creation function; NaN (len() of a selection, known only at run time) is refused with what to do. */
function concreteShape(fn: string, shape: unknown): number[] {
  const arr = typeof shape === 'number' ? [shape] : shape;
  if (Array.isArray(arr) && arr.some((d) => typeof d === 'number' && Number.isNaN(d))) {
    throw new G.UnknownLengthError(`${fn}() of shape ${shapeStr(arr as number[])}`, fn === 'full' ? ', or build from the array itself (zeros_like, full_like)' : '');
  }
  return checkShape(shape);
}

function checkNumber(v: unknown, fn: string, name: string): number {
  if (typeof v !== 'number') throw new TypeError(`${fn}(): '${name}' must be a number, got ${repr(v)}`);
  return v;
}

function checkInt(v: unknown, fn: string, name: string): number {
  if (!Number.isInteger(checkNumber(v, fn, name))) throw new TypeError(`${fn}(): '${name}' must be an integer, got ${repr(v)}`);
  return v as number;
}

/** NumPy 2 refuses a Python int that the target integer dtype cannot hold (OverflowError), where it would wrap. */
function checkIntFits(v: number | boolean | bigint, d: DType): void {
  if (typeof v !== 'boolean' && (typeof v === 'bigint' || Number.isInteger(v)) && outOfIntRange(v, d)) {
    throw new RangeError(`Python integer ${v} out of bounds for ${d}`);
  }
}

/** A tensor for JS data; scalars stay weak for promotion (see binaryOp). */
type ArrayOpts = CreateOpts & { order?: string | null; copy?: boolean | null; ndmin?: number };

/**
 * np.array(object, dtype, *, copy, order, ndmin): nested JS arrays, a typed
 * array, a tensor, or lists that hold tensors (stacked, as NumPy stacks the
 * arrays inside a list). `order` and `copy` change no value here: a tensor
 * is immutable and its data C-ordered.
 */
export function tensor(data: JsData | Tensor, ...args: (DType | string | ArrayOpts | null | undefined)[]): Tensor {
  const o = kwargs<ArrayOpts>('array', args, ['dtype', 'order'], [...CREATE_KW, 'copy', 'ndmin']);
  checkOrder(o.order);
  const ndmin = checkInt(o.ndmin ?? 0, 'array', 'ndmin');
  const dtype = dtypeArg(o.dtype);
  let t: Tensor;
  if (isTensor(data)) t = dtype ? astype(data, dtype) : data;
  else if (Array.isArray(data) && holdsTensor(data)) {
    const stacked = stackNested(data);
    t = dtype ? astype(stacked, dtype) : stacked;
  } else {
    const v = fromJs(data, dtype);
    const chunk = chunkGrid(v.shape, INFO[v.dtype].bytes, o.chunkSize);
    const n = G.source(`data${Math.random().toString(36).slice(2)}`, v.dtype, v.shape, chunk);
    runtime.put(n, v.data);
    t = new Tensor(n);
  }
  if (ndmin > t.ndim) t = reshape(t, [...Array(ndmin - t.ndim).fill(1), ...t.shape]);
  return placed(t, o);
}

const holdsTensor = (x: unknown): boolean => isTensor(x) || (Array.isArray(x) && x.some(holdsTensor));
/** A list holding tensors: its items (tensors, JS values or such lists) stacked along a new first axis. */
function stackNested(xs: readonly unknown[]): Tensor {
  const items = xs.map((x) => (isTensor(x) ? x : Array.isArray(x) && holdsTensor(x) ? stackNested(x) : tensor(x as JsData)));
  const shapes = new Set(items.map((t) => shapeStr(t.shape)));
  if (shapes.size > 1) throw new RangeError(`setting an array element with a sequence. The requested array has an inhomogeneous shape after 1 dimensions (items of shapes ${[...shapes].join(', ')}).`);
  return stack(items);
}
export const array = tensor;
export const asarray = tensor;

type Arg = { node: Node; weak?: WeakKind; value?: number | boolean };

function arg(x: Operand): Arg {
  if (isTensor(x)) return { node: x.node };
  if (typeof x === 'number' || typeof x === 'boolean') {
    const weak = weakKindOf(x);
    return { node: G.constant(x, defaultDTypeOfWeak(weak)), weak, value: x };
  }
  if (typeof x === 'bigint') return { node: G.constant(x, 'int64') };
  if (x === null || x === undefined) throw new TypeError(`unsupported operand type ${x === null ? 'null' : 'undefined'}`);
  return { node: tensor(x as JsData).node };
}

/**
 * `build` over `operands`, which needs their lengths: at once when they are
 * known; otherwise a node the run builds once they are (a selection's
 * length, runtime/resolve.ts). The dtype and shape come from building over
 * stand-ins whose unknown lengths are probes: two long ones far apart, no
 * known length equal to either, then the short lengths 0, 1 and 2 (where
 * the build takes them). A result dim that differs between probes follows
 * an unknown length (n, n - 1, ceil(n / 8), min(n, 3) alike) and is NaN.
 * Where the long probes fail, an unknown length must equal a known one (a
 * selection weighted by, or contracted with, an array of known length: the
 * operands' and the `hints`): the probe is then that known length, and every
 * result dim NaN (the run's build checks the lengths, with NumPy's error
 * where they differ).
 */
export function deferred(name: string, operands: readonly Tensor[], build: (ts: Tensor[]) => Tensor, hints: readonly number[] = []): Tensor {
  if (!operands.some((t) => hasUnknown(t.shape))) return build([...operands]);
  const knownDims = [...new Set([...operands.flatMap((t) => t.shape.filter((d) => !isUnknown(d))), ...hints])];
  // long enough for the windows, offsets and kth a call usually names, short enough for builds that list the positions
  const probe = Math.max(1, ...knownDims) + 100;
  const over = (p: number): Tensor => {
    // (the probes are graphs over stand-ins, never to be run: not even with options.eager)
    const eager = options.eager;
    options.eager = false;
    try {
      return build(operands.map((t, i) => {
        const shape = t.shape.map((d) => (isUnknown(d) ? p : d));
        return new Tensor(G.source(`standin${i}`, t.dtype, shape, chunkGrid(shape, INFO[t.dtype].bytes)));
      }));
    } finally {
      options.eager = eager;
    }
  };
  const attempt = (p: number): Tensor | undefined => {
    try {
      return over(p);
    } catch {
      return undefined; // (a length the operation does not take: NumPy's error, if the run meets it)
    }
  };
  let r: Tensor, r2: Tensor;
  try {
    r = over(probe);
    r2 = over(probe + 71);
  } catch (e) {
    if (e instanceof G.UnknownLengthError) throw e;
    const matched = knownDims.map(attempt).find((t) => t !== undefined);
    if (!matched) throw new RangeError(`${name}(): an operand's shape is known only at run time (after a boolean mask) and must match another's: execute() it first (${(e as Error).message})`);
    return new Tensor(G.defer(name, operands.map((t) => t.node), (ins) => build(ins.map((n) => new Tensor(n))).node, matched.dtype, matched.shape.map(() => NaN)));
  }
  const shapes = [r2.shape, ...[0, 1, 2].map((p) => attempt(p)?.shape).filter((s) => s?.length === r.ndim)];
  const shape = r.shape.map((d, i) => (d === probe || shapes.some((s) => s![i] !== d) ? NaN : d));
  return new Tensor(G.defer(name, operands.map((t) => t.node), (ins) => build(ins.map((n) => new Tensor(n))).node, r.dtype, shape));
}

/** `deferred` for an operation with `count` outputs (a split's pieces): each output is built, once the lengths are known, from the whole. */
export function deferredAll(name: string, operands: readonly Tensor[], count: number, build: (ts: Tensor[]) => Tensor[], hints: readonly number[] = []): Tensor[] {
  if (!operands.some((t) => hasUnknown(t.shape))) return build([...operands]);
  return Array.from({ length: count }, (_, i) => deferred(name, operands, (ts) => build(ts)[i]!, hints));
}

/** The known lengths among a call's arguments (of tensors, and of JS lists): the lengths an unknown one may have to equal. */
function lengthsIn(v: unknown, out: Set<number> = new Set()): number[] {
  if (isTensor(v)) {
    v.shape.forEach((d) => { if (!isUnknown(d)) out.add(d); });
  } else if (Array.isArray(v)) {
    out.add(v.length);
    v.forEach((x) => { if (typeof x === 'object' && x !== null) lengthsIn(x, out); });
  } else if (isOptions(v)) {
    Object.values(v).forEach((x) => lengthsIn(x, out));
  }
  return [...out];
}

/** The tensors among a call's arguments whose lengths are known only at run time: at the top, in JS lists, and in an options object. */
function unknownIn(v: unknown, out: Tensor[] = []): Tensor[] {
  if (isTensor(v)) {
    if (hasUnknown(v.shape)) out.push(v);
  } else if (Array.isArray(v)) {
    v.forEach((x) => unknownIn(x, out));
  } else if (isOptions(v)) {
    Object.values(v).forEach((x) => unknownIn(x, out));
  }
  return out;
}
/** The arguments with those tensors replaced, in the same order, by `ts`. */
function swapUnknown(v: unknown, ts: Tensor[]): unknown {
  if (isTensor(v)) return hasUnknown(v.shape) ? ts.shift()! : v;
  if (Array.isArray(v)) return v.map((x) => swapUnknown(x, ts));
  if (isOptions(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, swapUnknown(x, ts)]));
  return v;
}

/**
 * `fn(...args)` once the lengths of its tensor arguments are known: undefined
 * when they are (the caller goes on and builds), else a node the run builds
 * when it knows them (`deferred`). For operations whose graph needs lengths
 * (a reversal, a rotation, a grid): NumPy users write them on selections.
 */
export function whenKnown<A extends unknown[]>(name: string, args: [...A], fn: (...args: A) => Tensor): Tensor | undefined {
  const ts = unknownIn(args);
  if (!ts.length) return undefined;
  return deferred(name, ts, (us) => fn(...(swapUnknown(args, [...us]) as A)), args.flatMap((a) => lengthsIn(a)));
}
/** `whenKnown` for an operation with `count` outputs. */
export function whenKnownAll<A extends unknown[]>(name: string, args: [...A], count: number, fn: (...args: A) => Tensor[]): Tensor[] | undefined {
  const ts = unknownIn(args);
  if (!ts.length) return undefined;
  return deferredAll(name, ts, count, (us) => fn(...(swapUnknown(args, [...us]) as A)), args.flatMap((a) => lengthsIn(a)));
}

/**
 * `build` over the values of `t` (as JS numbers) and `operands`: now when t
 * is computed (or JS data), else a node the run builds once it has computed
 * t, which it does first (a selection of all of t: the values set the
 * result's shape, as repeat's counts and insert's positions do). The result
 * has `dtype` and `shape` (NaN where the values set it).
 */
export function onValues(name: string, t: Tensor, operands: readonly Tensor[], dtype: DType, shape: readonly number[], build: (values: number[], ts: Tensor[]) => Tensor): Tensor {
  if (runtime.has(t.node)) return build(Array.from(runtime.values(t.node), Number), [...operands]);
  const flat = t.ndim === 1 ? t.node : G.reshape(t.node, [hasUnknown(t.shape) ? NaN : sizeOf(t.shape)]);
  const all = G.compress(flat, G.binary('logical_or', G.cast(flat, 'bool'), G.constant(true, 'bool'), 'bool'), 0);
  return new Tensor(G.defer(name, [all, ...operands.map((o) => o.node)], (ins) => build(Array.from(runtime.values(ins[0]!), Number), ins.slice(1).map((n) => new Tensor(n))).node, dtype, shape));
}

/**
 * The values of a tensor that must be known when the line runs (JS data, or
 * a tensor already computed), as JS numbers: the parameters a draw is set up
 * with on the host. (Values that set a result's shape in the run, repeat's
 * counts or quantile's q, go through `onValues` instead.)
 */
export function valuesNow(fn: string, t: Tensor, what: string, why: string): number[] {
  if (!runtime.has(t.node)) throw new TypeError(`${fn}(): ${what} held in a tensor must be computed first (await it.execute()): ${why}`);
  return Array.from(runtime.values(t.node), Number);
}

/**
 * Whether an exponent known when the line is written (a JS number, bigint,
 * JS data or a tensor already computed) holds a negative value; an exponent
 * computed in the same run gives 0 there (README).
 */
function knownNegative(b: Arg): boolean {
  if (b.weak !== undefined) return Number(b.value) < 0;
  if (b.node.op === 'const') return Number((b.node.attrs as { value: number | string }).value) < 0;
  if (b.node.op !== 'source' || !runtime.has(b.node)) return false;
  for (const v of runtime.values(b.node)) if (v < 0) return true;
  return false;
}

function castArg(a: Arg, d: DType): Node {
  if (a.weak !== undefined) {
    if (a.weak === 'int') checkIntFits(a.value!, d);
    return G.constant(a.value!, d);
  }
  return G.cast(a.node, d);
}

function promoteArgs(args: Arg[]): DType {
  const strong = args.filter((a) => a.weak === undefined);
  if (strong.length) {
    let d = strong.map((a) => a.node.dtype).reduce(promoteTypes);
    for (const a of args) if (a.weak !== undefined) d = promoteWeak(d, a.weak);
    return d;
  }
  return args.map((a) => defaultDTypeOfWeak(a.weak!)).reduce(promoteTypes);
}

/** A ufunc's arguments after its operands: NumPy's `out` (refused) positionally; `dtype`, `casting`, `order`, `where` by keyword. */
interface UFuncOpts { dtype?: DType; casting: Casting }
const NO_UFUNC_OPTS: UFuncOpts = { casting: 'same_kind' };
function ufuncOpts(fn: string, rest: readonly unknown[]): UFuncOpts {
  if (!rest.length) return NO_UFUNC_OPTS;
  const o = kwargs<{ dtype?: DType | string | null; casting?: string; order?: string; where?: unknown; subok?: boolean }>(fn, rest, ['out'], ['where', 'casting', 'order', 'dtype', 'subok']);
  if (o.where !== undefined && o.where !== true) throw new TypeError(`${fn}(): where= is not supported (Tessera's values are immutable): use mt.where(mask, mt.${fn}(...), other)`);
  if (o.casting !== undefined && !(CASTINGS as readonly string[]).includes(o.casting)) throw new RangeError(`casting must be one of 'no', 'equiv', 'safe', 'same_kind', or 'unsafe' (got ${JSON.stringify(o.casting)})`);
  checkOrder(o.order);
  const dtype = dtypeArg(o.dtype);
  return { ...(dtype ? { dtype } : {}), casting: (o.casting ?? 'same_kind') as Casting };
}

/**
 * The loop a ufunc runs with `dtype=` (NumPy's signature): `d` in and out,
 * its inputs cast to `d` under the casting rule. Predicates (comparisons,
 * isnan, logical_*) only take dtype=bool, their own result.
 */
function loopFor(fn: string, r: { compute: DType; result: DType }, d: DType, args: readonly Arg[], casting: Casting): { compute: DType; result: DType } | undefined {
  if (r.result === 'bool' && d === 'bool') return undefined;
  if (r.compute !== d || r.result !== d) throw new TypeError(`No loop matching the specified signature and casting was found for ufunc ${fn}`);
  args.forEach((a, i) => {
    const from = a.weak === undefined ? a.node.dtype : a.weak === 'float' ? 'float64' : undefined;
    if (from && !canCast(from, d, casting)) throw new TypeError(`Cannot cast ufunc '${fn}' input ${i} from dtype('${from}') to dtype('${d}') with casting rule '${casting}'`);
  });
  return { compute: d, result: d };
}

function unaryOp(op: UnaryOp, x: Operand, o: UFuncOpts = NO_UFUNC_OPTS): Tensor {
  const a = arg(x);
  let r = resolveUnary(op, a.node.dtype);
  if (o.dtype) r = loopFor(op, resolveUnary(op, o.dtype), o.dtype, [a], o.casting) ?? r;
  return new Tensor(G.unary(op, castArg(a, r.compute), r.result));
}

const COMPARISONS = new Set<BinaryOp>(['equal', 'not_equal', 'less', 'less_equal', 'greater', 'greater_equal']);
function outOfRange(a: Arg, d: DType): boolean {
  const r = integerRange(d);
  return a.weak === 'int' && r !== undefined && r !== null && (Number(a.value) < r[0] || Number(a.value) > r[1]);
}

const FLOAT_ONLY = new Set<BinaryOp>(['arctan2', 'hypot', 'copysign', 'nextafter']);

/**
 * The float of a float-only binary ufunc's operands (logaddexp, heaviside: NumPy's
 * loops are float ones): the smallest float both arrays convert to safely, or
 * the float of their promotion with a JS scalar.
 */
export function floatOperandType(x: Operand, y: Operand): DType {
  const a = arg(x), b = arg(y);
  broadcastShapes(a.node.shape, b.node.shape);
  if (a.weak === undefined && b.weak === undefined) return promoteTypes(floatResultOf(a.node.dtype), floatResultOf(b.node.dtype));
  return floatResultOf(promoteArgs([a, b]));
}

/**
 * ldexp's loops take a float mantissa and an int32 or int64 exponent and return
 * the mantissa's float (float16 for a JS int mantissa). The IR's
 * binary ops take one dtype, so the exponent is cast to that float: exact up
 * to 2**24, and past it the result is 0 or inf whichever way it rounds.
 */
function ldexpOp(a: Arg, b: Arg, o: UFuncOpts): Tensor {
  const notSupported = () => new TypeError("ufunc 'ldexp' not supported for the input types, and the inputs could not be safely coerced to any supported types according to the casting rule ''safe''");
  if (b.weak === 'float' || (b.weak === undefined && isFloat(b.node.dtype))) throw notSupported();
  // a JS int exponent takes the int32 loop, as in NumPy
  if (b.weak === 'int') checkIntFits(b.value!, 'int32');
  let m: DType;
  if (a.weak === undefined) m = floatResultOf(a.node.dtype);
  else if (a.weak === 'float' || b.weak !== undefined) m = 'float64';
  else m = b.node.dtype === 'bool' && a.weak === 'int' ? 'float64' : 'float16';
  if (o.dtype && o.dtype !== m) throw new TypeError('No loop matching the specified signature and casting was found for ufunc ldexp');
  const e = b.weak !== undefined ? G.constant(Number(b.value), m) : G.cast(b.node, m);
  return new Tensor(G.binary('ldexp', castArg(a, m), e, m));
}

function binaryOp(op: BinaryOp, x: Operand, y: Operand, o: UFuncOpts = NO_UFUNC_OPTS): Tensor {
  const a = arg(x), b = arg(y);
  broadcastShapes(a.node.shape, b.node.shape);
  // A float-only ufunc of two integer arrays runs in the smallest float both convert to
  // safely (int8 with uint16: float32), not in the float of their promoted integer type.
  if (op === 'ldexp') return ldexpOp(a, b, o);
  const floatOnly = FLOAT_ONLY.has(op) && a.weak === undefined && b.weak === undefined;
  let r = resolveBinary(op, floatOnly ? promoteTypes(floatResultOf(a.node.dtype), floatResultOf(b.node.dtype)) : promoteArgs([a, b]));
  if (o.dtype) r = loopFor(op, resolveBinary(op, o.dtype), o.dtype, [a, b], o.casting) ?? r;
  // NumPy 2 compares integer arrays with out-of-range Python ints by value (uint8 > -1 is all true).
  if (r.result === 'bool' && COMPARISONS.has(op) && r.compute !== 'int64' && [a, b].some((v) => outOfRange(v, r.compute))) {
    const wide = [a, b].some((v) => v.weak === 'int' && Math.abs(Number(v.value)) >= 2 ** 63) ? 'float64' : 'int64';
    r = { compute: wide, result: 'bool' };
  }
  if (op === 'power' && !isFloat(r.compute) && r.compute !== 'bool' && knownNegative(b)) {
    throw new RangeError('Integers to negative integer powers are not allowed.');
  }
  // x**0.5 is sqrt(x), as NumPy's scalar fast path computes it (sqrt(-0) = -0, sqrt(-inf) = NaN).
  if (op === 'power' && b.weak !== undefined && b.value === 0.5 && a.weak === undefined && isFloat(r.compute)) {
    return new Tensor(G.unary('sqrt', castArg(a, r.compute), r.result));
  }
  // x**2 is x*x exactly (pow is exact there, NaN/inf/-0 included): one multiply, not a pow call per element.
  if (op === 'power' && b.weak !== undefined && b.value === 2 && a.weak === undefined) {
    return new Tensor(G.unary('square', castArg(a, r.compute), r.result));
  }
  return new Tensor(G.binary(op, castArg(a, r.compute), castArg(b, r.compute), r.result));
}

// ---------------------------------------------------------------------------
// Elementwise ufuncs, generated from the op tables.

/** Keyword arguments of a ufunc (NumPy's `dtype`, `casting`, `order`; `where` only as true). */
export type UFuncKw = { dtype?: DType | string | null; casting?: Casting; order?: 'K' | 'A' | 'C' | 'F'; where?: true; subok?: boolean; out?: null };
type UFuncs = { [P in UnaryOp]: (x: Operand, o?: UFuncKw) => Tensor } & { [P in BinaryOp]: (x: Operand, y: Operand, o?: UFuncKw) => Tensor };
const ufuncs = {} as UFuncs;
for (const op of UNARY_OPS) {
  (ufuncs as Record<string, unknown>)[op] = (x: Operand, ...rest: unknown[]) => unaryOp(op, x, ufuncOpts(op, rest));
  if (!PART_OPS.has(op)) (Tensor.prototype as unknown as Record<string, unknown>)[op] = function (this: Tensor, ...rest: unknown[]) { return unaryOp(op, this, ufuncOpts(op, rest)); };
}
for (const op of BINARY_OPS) {
  (ufuncs as Record<string, unknown>)[op] = (x: Operand, y: Operand, ...rest: unknown[]) => {
    if (y === undefined) throw new TypeError(`${op}() takes from 2 to 3 positional arguments but 1 were given`);
    return binaryOp(op, x, y, ufuncOpts(op, rest));
  };
  (Tensor.prototype as unknown as Record<string, unknown>)[op] = function (this: Tensor, y: Operand, ...rest: unknown[]) {
    if (y === undefined) throw new TypeError(`${op}() takes from 2 to 3 positional arguments but 1 were given`);
    return binaryOp(op, this, y, ufuncOpts(op, rest));
  };
}
const proto = Tensor.prototype as unknown as Record<string, unknown>;
proto.absolute = proto.abs;
proto.true_divide = proto.divide;
proto.remainder = proto.mod;
proto.pow = proto.power;
proto.positive = function (this: Tensor) { return positive(this); };
proto.conjugate = function (this: Tensor) { return this; };

export const {
  negative, abs, sign, sqrt, square, cbrt, reciprocal, exp, exp2, expm1, log, log2, log10, log1p,
  sin, cos, tan, arcsin, arccos, arctan, sinh, cosh, tanh, arcsinh, arccosh, arctanh, floor, ceil, trunc, rint,
  logical_not, bitwise_not, isnan, isinf, isfinite, signbit,
  add, subtract, multiply, divide, floor_divide, mod, power, arctan2, maximum, minimum, fmax, fmin, hypot,
  equal, not_equal, less, less_equal, greater, greater_equal, logical_and, logical_or, logical_xor,
  bitwise_and, bitwise_or, bitwise_xor, fmod, copysign, nextafter, ldexp, gcd, lcm, left_shift, right_shift,
} = ufuncs;
/** @internal The two halves of frexp (api/ufuncs.ts puts them together). */
export const _frexpParts = { mantissa: ufuncs.frexp_mantissa, exponent: ufuncs.frexp_exponent };
export const absolute = abs, true_divide = divide, remainder = mod, invert = bitwise_not;
export const bitwise_left_shift = left_shift, bitwise_right_shift = right_shift;
// NumPy 2's Array API names of the same ufuncs
export const pow = power, acos = arccos, asin = arcsin, atan = arctan, atan2 = arctan2, acosh = arccosh, asinh = arcsinh, atanh = arctanh, bitwise_invert = bitwise_not;
export const positive = (x: Operand): Tensor => {
  const t = isTensor(x) ? x : tensor(x as JsData);
  if (t.dtype === 'bool') throw new TypeError("The numpy boolean negative, the `-` operator, is not supported, use the `~` operator or the logical_not function instead.");
  return t;
};

/** astype(dtype, order='K', casting='unsafe', subok=True, copy=True): a cast the casting rule allows (values are immutable: copy and order change nothing). */
export function astype(x: Operand, dtype: DType | string, ...args: Args): Tensor {
  const o = kwargs<{ order?: string; casting?: string; subok?: boolean; copy?: boolean }>('astype', args, ['order', 'casting', 'subok', 'copy']);
  checkOrder(o.order);
  const a = arg(x).node, d = parseDType(dtype);
  if (o.casting !== undefined) {
    if (!(CASTINGS as readonly string[]).includes(o.casting)) throw new RangeError(`casting must be one of 'no', 'equiv', 'safe', 'same_kind', or 'unsafe' (got ${JSON.stringify(o.casting)})`);
    if (!canCast(a.dtype, d, o.casting as Casting)) throw new TypeError(`Cannot cast array data from dtype('${a.dtype}') to dtype('${d}') according to the rule '${o.casting}'`);
  }
  return new Tensor(G.cast(a, d));
}

/** where(condition, x, y): x where the condition holds, else y (the one-argument form, nonzero, is the namespace's: tensor.ts). */
export function where(c: Operand, x: Operand, y: Operand): Tensor {
  if (x === undefined || y === undefined) throw new TypeError('either both or neither of x and y should be given');
  const ca = arg(c), a = arg(x), b = arg(y);
  const d = promoteArgs([a, b]);
  // NumPy 2's where casts a Python int the result dtype cannot hold unsafely (uint8 with -1: 255).
  const value = (v: Arg) => (outOfRange(v, d) ? G.cast(G.constant(v.value!, 'int64'), d) : castArg(v, d));
  return new Tensor(G.where(G.cast(ca.node, 'bool'), value(a), value(b)));
}

/** clip(a, a_min, a_max), also min=/max= (NumPy 2.1's names) as keywords. */
export function clip(x: Operand, ...args: Args): Tensor {
  const o = kwargs<{ a_min?: Operand | null; a_max?: Operand | null; min?: Operand | null; max?: Operand | null }>('clip', args, ['a_min', 'a_max'], ['min', 'max']);
  const lo = o.a_min ?? o.min, hi = o.a_max ?? o.max;
  let r = isTensor(x) ? x : tensor(x as JsData);
  // A Python int bound outside an integer dtype's range clips as if at the range's end (NumPy 2).
  const range = r.dtype === 'int64' ? undefined : integerRange(r.dtype);
  const bound = (v: Operand): Operand => (range && typeof v === 'number' && Number.isInteger(v) ? Math.min(Math.max(v, range[0]), range[1]) : v);
  if (lo !== null && lo !== undefined) r = maximum(r, bound(lo));
  if (hi !== null && hi !== undefined) r = minimum(r, bound(hi));
  return r;
}

export function round(x: Operand, ...args: Args): Tensor {
  const o = kwargs<{ decimals?: number }>('round', args, ['decimals', 'out']);
  const t = isTensor(x) ? x : tensor(x as JsData);
  const d = checkInt(o.decimals ?? 0, 'round', 'decimals');
  if (t.dtype === 'bool') {
    // NumPy rounds booleans to float16 and has no loop for decimals.
    if (d !== 0) throw new TypeError("round(): ufunc 'multiply' did not contain a loop with signature matching types for a boolean array with decimals != 0");
    return astype(t, 'float16');
  }
  if (!isFloat(t.dtype)) {
    // Integers: unchanged unless decimals < 0, then NumPy rounds half to even at 10**-decimals.
    if (d >= 0) return t;
    const f = 10 ** -d;
    return astype(multiply(rint(divide(t, f)), f), t.dtype);
  }
  if (d === 0) return rint(t);
  const f = 10 ** Math.abs(d);
  return d > 0 ? divide(rint(multiply(t, f)), f) : multiply(rint(divide(t, f)), f);
}
export const around = round;

export function nan_to_num(x: Operand, ...args: Args): Tensor {
  const o = kwargs<{ nan?: number; posinf?: number; neginf?: number }>('nan_to_num', args, ['copy', 'nan', 'posinf', 'neginf']);
  const t = isTensor(x) ? x : tensor(x as JsData);
  if (!isFloat(t.dtype)) return t;
  const big = t.dtype === 'float32' ? 3.4028234663852886e38 : t.dtype === 'float16' ? 65504 : Number.MAX_VALUE;
  let r = where(isnan(t), o.nan ?? 0, t);
  r = where(equal(t, Infinity), o.posinf ?? big, r);
  return where(equal(t, -Infinity), o.neginf ?? -big, r);
}

// ---------------------------------------------------------------------------
// Reductions

function reduceOp(op: ReduceOp, x: Operand, o: AxisOpts, result?: (d: DType) => DType): Tensor {
  let a = arg(x).node;
  const initial = o.initial ?? undefined;
  const mask = maskOf(o);
  if (mask !== undefined) {
    // where=: the masked-out terms become the reduction's identity, or `initial` for min and max.
    const fill = op === 'sum' || op === 'any' ? 0 : op === 'prod' || op === 'all' ? 1 : initial;
    const name = op === 'min' ? 'minimum' : op === 'max' ? 'maximum' : op;
    if (fill === undefined) throw new RangeError(`reduction operation '${name}' does not have an identity, so to use a where mask one has to specify 'initial'`);
    const m = arg(mask).node;
    if (shapeStr(broadcastShapes(m.shape, a.shape)) !== shapeStr(a.shape)) throw new RangeError(`where= of shape ${shapeStr(m.shape)} does not broadcast to the array's shape ${shapeStr(a.shape)}`);
    const v = a.dtype === 'bool' ? fill !== 0 && fill !== false : typeof fill === 'boolean' ? Number(fill) : fill;
    if (!isFloat(a.dtype) && typeof v === 'number' && !Number.isInteger(v)) throw new TypeError(`initial=${v} cannot be cast to the ${a.dtype} of the array`);
    a = G.where(G.cast(m, 'bool'), a, G.constant(v, a.dtype));
  }
  if (initial !== undefined) {
    // initial=: one more term of every reduction (the whole result where nothing is reduced).
    const { initial: _, where: __, ...rest } = o;
    if ((op === 'min' || op === 'max') && sizeOf(a.shape) === 0) {
      // Nothing to compare with: initial in the shape of the result (what a sum over the same axes has).
      const shape = reduceOp('sum', new Tensor(a), { axis: rest.axis, keepdims: rest.keepdims }).shape;
      return full(shape, initial, { dtype: dtypeArg(rest.dtype) ?? a.dtype });
    }
    const r = reduceOp(op, new Tensor(a), rest, result);
    const f = op === 'sum' ? add : op === 'prod' ? multiply : op === 'min' ? minimum : op === 'max' ? maximum : op === 'any' ? logical_or : logical_and;
    return astype(f(r, initial), r.dtype);
  }
  // NumPy lets a 0-d array be reduced over axis 0 (or -1): its one value.
  const axes = a.shape.length === 0 && [o.axis].flat().every((v) => v === 0 || v === -1) ? [] : normalizeAxes(o.axis, a.shape.length);
  let src = a;
  const want = dtypeArg(o.dtype);
  if (want) src = G.cast(src, want);
  const dtype = result ? result(src.dtype) : src.dtype;
  if (dtype !== src.dtype && (op === 'sum' || op === 'prod')) src = G.cast(src, dtype);
  return new Tensor(G.reduce(op, src, axes, o.keepdims ?? false, dtype));
}

export const sum = (x: Operand, ...args: Args): Tensor => { const o = kwargs<AxisOpts>('sum', args, SUM_P); return reduceOp('sum', x, o, (d) => (o.dtype ? d : sumResultOf(d))); };
export const prod = (x: Operand, ...args: Args): Tensor => { const o = kwargs<AxisOpts>('prod', args, SUM_P); return reduceOp('prod', x, o, (d) => (o.dtype ? d : sumResultOf(d))); };
export const min = (x: Operand, ...args: Args): Tensor => { const o = kwargs<AxisOpts>('min', args, MINMAX_P); return reduceOp('min', x, o); };
export const max = (x: Operand, ...args: Args): Tensor => { const o = kwargs<AxisOpts>('max', args, MINMAX_P); return reduceOp('max', x, o); };
export const amin = min, amax = max;
export const any = (x: Operand, ...args: Args): Tensor => { const o = kwargs<AxisOpts>('any', args, LOGIC_P, WHERE_KW); return reduceOp('any', astype(x, 'bool'), o); };
export const all = (x: Operand, ...args: Args): Tensor => { const o = kwargs<AxisOpts>('all', args, LOGIC_P, WHERE_KW); return reduceOp('all', astype(x, 'bool'), o); };

/** A reduction's where= mask; undefined for none (or `true`). */
const maskOf = (o: { where?: Operand }): Operand | undefined => (o.where === undefined || o.where === true ? undefined : o.where);

/**
 * Elements reduced over `axes` (those a where= mask keeps): a number, or a
 * lazy count (keepdims) when masked or when a length is known only at run time.
 */
function countOf(x: Node, axes: number[], dtype: DType = 'float64', mask?: Operand): number | Tensor {
  if (mask !== undefined) return sum(broadcast_to(astype(mask, 'bool'), x.shape), { axis: axes, keepdims: true, dtype });
  const n = axes.reduce((a, i) => a * x.shape[i]!, 1);
  if (!Number.isNaN(n)) return n;
  return sum(logical_or(new Tensor(G.cast(x, 'bool')), true), { axis: axes, keepdims: true, dtype });
}

export function mean(x: Operand, ...args: Args): Tensor {
  const o = kwargs<AxisOpts>('mean', args, MEAN_P, WHERE_KW);
  const a = arg(x).node;
  const out = dtypeArg(o.dtype) ?? (isFloat(a.dtype) ? a.dtype : 'float64');
  // NumPy's mean of float16 sums and divides in float32, then rounds
  const s = sum(new Tensor(a), { ...o, dtype: out === 'float32' || out === 'float16' ? 'float32' : 'float64' });
  const axes = normalizeAxes(o.axis, a.shape.length);
  let n = countOf(a, axes, 'float64', maskOf(o));
  if (isTensor(n) && !o.keepdims) n = reshape(n, s.shape);
  return astype(divide(s, n), out);
}

type VarOpts = AxisOpts & { ddof?: number; mean?: Operand; correction?: number };
/** NumPy 2's keywords of var and std beyond ddof: a precomputed `mean` (keepdims shape) and `correction`, ddof's Array API name. */
const VAR_KW = ['where', 'mean', 'correction'];

export function var_(x: Operand, ...args: Args): Tensor {
  const o = kwargs<VarOpts>('var', args, VAR_P, VAR_KW);
  const t = new Tensor(arg(x).node);
  const axes = normalizeAxes(o.axis, t.ndim);
  const mask = maskOf(o);
  const w = mask !== undefined ? { where: mask } : {};
  const m = o.mean ?? mean(t, { axis: axes, keepdims: true, ...(o.dtype ? { dtype: o.dtype } : {}), ...w });
  const dev = subtract(t, m);
  const ss = sum(multiply(dev, dev), { axis: axes, keepdims: o.keepdims ?? false, ...(o.dtype ? { dtype: o.dtype } : {}), ...w });
  const c = countOf(t.node, axes, 'float64', mask);
  if (o.correction !== undefined && (o.ddof ?? 0) !== 0) throw new RangeError("ddof and correction can't be provided simultaneously.");
  const ddof = checkNumber(o.correction ?? o.ddof ?? 0, 'var', o.correction !== undefined ? 'correction' : 'ddof');
  // NumPy divides by max(n - ddof, 0): inf past the count, NaN for an empty one.
  const n = isTensor(c) ? maximum(subtract(o.keepdims ? c : reshape(c, ss.shape), ddof), 0) : Math.max(c - ddof, 0);
  const r = divide(ss, n);
  return o.dtype ? astype(r, o.dtype) : r;
}
export { var_ as var };

export const std = (x: Operand, ...args: Args): Tensor => { const o = kwargs<VarOpts>('std', args, VAR_P, VAR_KW); return sqrt(var_(x, o)); };

function argReduce(op: 'argmin' | 'argmax', x: Operand, o: { axis?: number; keepdims?: boolean }): Tensor {
  let a = arg(x).node;
  // A 0-d array is its own first element (axis 0 or -1 as for one axis).
  if (a.shape.length === 0) {
    if (o.axis !== undefined && o.axis !== null) normalizeAxis(o.axis, 1);
    return new Tensor(G.constant(0, 'int64'));
  }
  if (o.axis === undefined || o.axis === null) {
    if (sizeOf(a.shape) === 0) throw new RangeError(`attempt to get ${op} of an empty sequence`);
    const flat = G.reshape(a, [sizeOf(a.shape)]);
    const r = G.reduce(op, flat, [0], false, 'int64');
    return new Tensor(o.keepdims ? G.reshape(r, a.shape.map(() => 1)) : r);
  }
  const ax = normalizeAxis(o.axis, a.shape.length);
  if (a.shape[ax] === 0) throw new RangeError(`attempt to get ${op} of an empty sequence`);
  a = G.reduce(op, a, [ax], o.keepdims ?? false, 'int64');
  return new Tensor(a);
}
export const argmin = (x: Operand, ...args: Args): Tensor => { const o = kwargs<{ axis?: number; keepdims?: boolean }>('argmin', args, ARG_P, ['keepdims']); return argReduce('argmin', x, o); };
export const argmax = (x: Operand, ...args: Args): Tensor => { const o = kwargs<{ axis?: number; keepdims?: boolean }>('argmax', args, ARG_P, ['keepdims']); return argReduce('argmax', x, o); };

export const count_nonzero = (x: Operand, ...args: Args): Tensor => { const o = kwargs<AxisOpts>('count_nonzero', args, ['axis'], ['keepdims']); return sum(astype(x, 'bool'), { ...o, dtype: 'int64' }); };
export const ptp = (x: Operand, ...args: Args): Tensor => { const o = kwargs<AxisOpts>('ptp', args, LOGIC_P); return subtract(max(x, o), min(x, o)); };

export function nansum(x: Operand, ...args: Args): Tensor {
  const o = kwargs<AxisOpts>('nansum', args, SUM_P);
  const t = isTensor(x) ? x : tensor(x as JsData);
  return sum(isFloat(t.dtype) ? where(isnan(t), 0, t) : t, o);
}
export function nanmean(x: Operand, ...args: Args): Tensor {
  const o = kwargs<AxisOpts>('nanmean', args, MEAN_P, WHERE_KW);
  const t = isTensor(x) ? x : tensor(x as JsData);
  if (!isFloat(t.dtype)) return mean(t, o);
  const mask = maskOf(o);
  const kept = mask !== undefined ? logical_and(logical_not(isnan(t)), mask) : logical_not(isnan(t));
  const count = sum(kept, { axis: o.axis ?? null, keepdims: o.keepdims ?? false, dtype: t.dtype });
  const r = divide(nansum(t, o), count);
  return o.dtype ? astype(r, o.dtype) : r;
}
export function nanmin(x: Operand, ...args: Args): Tensor {
  const o = kwargs<AxisOpts>('nanmin', args, MINMAX_P);
  const t = isTensor(x) ? x : tensor(x as JsData);
  if (!isFloat(t.dtype)) return min(t, o);
  const m = min(where(isnan(t), Infinity, t), o);
  // NumPy's fmmin.reduce: a slice of NaNs only is NaN, unless `initial` joins it.
  if (o.initial !== undefined && o.initial !== null) return m;
  return where(all(isnan(t), { axis: o.axis, keepdims: o.keepdims, where: o.where }), NaN, m);
}
export function nanmax(x: Operand, ...args: Args): Tensor {
  const o = kwargs<AxisOpts>('nanmax', args, MINMAX_P);
  const t = isTensor(x) ? x : tensor(x as JsData);
  if (!isFloat(t.dtype)) return max(t, o);
  const m = max(where(isnan(t), -Infinity, t), o);
  // NumPy's fmmax.reduce: a slice of NaNs only is NaN, unless `initial` joins it.
  if (o.initial !== undefined && o.initial !== null) return m;
  return where(all(isnan(t), { axis: o.axis, keepdims: o.keepdims, where: o.where }), NaN, m);
}

function scanOp(op: 'sum' | 'prod', x: Operand, o: { axis?: number | null; dtype?: DType | string }): Tensor {
  let a = arg(x).node;
  // No axis flattens; a 0-d array scans as one element along axis 0 (NumPy's 1-element result).
  if (o.axis === undefined || o.axis === null || a.shape.length === 0) { a = G.reshape(a, [sizeOf(a.shape)]); }
  const ax = normalizeAxis(o.axis ?? 0, a.shape.length);
  const d = dtypeArg(o.dtype) ?? sumResultOf(a.dtype);
  return new Tensor(G.scan(op, G.cast(a, d), ax, d));
}
export const cumsum = (x: Operand, ...args: Args): Tensor => { const o = kwargs<{ axis?: number | null; dtype?: DType | string }>('cumsum', args, SCAN_P); return scanOp('sum', x, o); };
export const cumprod = (x: Operand, ...args: Args): Tensor => { const o = kwargs<{ axis?: number | null; dtype?: DType | string }>('cumprod', args, SCAN_P); return scanOp('prod', x, o); };

// ---------------------------------------------------------------------------
// Creation

function creationChunk(shape: number[], dtype: DType, o: CreateOpts): number[] {
  return chunkGrid(shape, INFO[dtype].bytes, o.chunkSize);
}

/** full(shape, fill_value, dtype, order), chunkSize and gpu as keywords. */
export function full(shape: number | readonly number[], value: Operand, ...args: Args): Tensor {
  const o = kwargs<CreateOpts>('full', args, ['dtype', 'order'], CREATE_KW);
  checkOrder(o.order, 'CF');
  const s = concreteShape('full', shape);
  if (typeof value !== 'number' && typeof value !== 'boolean') {
    // an array fill value: its dtype (unless one is asked for), copied into every place it broadcasts to
    if (value === null || typeof value !== 'object') throw new TypeError(`full(): fill_value must be a number, a boolean or an array, got ${repr(value)}`);
    const t = toTensor(value);
    const fits = t.ndim <= s.length && t.shape.every((d, i) => d === 1 || d === s[s.length - t.ndim + i]);
    const tight = (dims: readonly number[]) => `(${dims.join(',')}${dims.length === 1 ? ',' : ''})`; // NumPy's copyto spells shapes so
    if (!fits) throw new RangeError(`could not broadcast input array from shape ${tight(t.shape)} into shape ${tight(s)}`);
    return placed(broadcast_to(astype(t, dtypeArg(o.dtype) ?? t.dtype), s), o);
  }
  const d = dtypeArg(o.dtype) ?? defaultDTypeOfWeak(weakKindOf(value));
  checkIntFits(value, d);
  return placed(new Tensor(G.expand(G.constant(value, d), s, creationChunk(s, d, o))), o);
}
const filled = (fn: string, v: number) => (shape: number | readonly number[], ...args: Args): Tensor =>
  full(shape, v, { dtype: 'float64', ...kwargs<CreateOpts>(fn, args, ['dtype', 'order'], CREATE_KW) });
export const zeros = filled('zeros', 0);
export const ones = filled('ones', 1);
export const empty = zeros;
const filledLike = (fn: string, x: Operand, v: Operand, args: Args): Tensor => {
  const t = toTensor(x);
  const o = kwargs<CreateOpts & { shape?: number | number[] }>(fn, args, ['dtype', 'order', 'subok', 'shape'], CREATE_KW);
  const { shape, subok: _s, order, ...rest } = o as CreateOpts & { shape?: number | number[]; subok?: unknown };
  checkOrder(order);
  // of an array whose length the run will know: filled once it does
  const later = shape === undefined ? whenKnown(fn, [t, v], (u, w) => filledLike(fn, u, w, args)) : undefined;
  if (later) return later;
  return full(shape ?? t.shape, v, { dtype: t.dtype, ...rest });
};
export const full_like = (x: Operand, v: Operand, ...args: Args): Tensor => filledLike('full_like', x, v, args);
export const zeros_like = (x: Operand, ...args: Args): Tensor => filledLike('zeros_like', x, 0, args);
export const ones_like = (x: Operand, ...args: Args): Tensor => filledLike('ones_like', x, 1, args);
export const empty_like = zeros_like;

export function arange(stop: number, o?: CreateOpts): Tensor;
export function arange(start: number, stop: number, o?: CreateOpts): Tensor;
export function arange(start: number, stop: number, step: number, o?: CreateOpts): Tensor;
export function arange(start: number, stop: number, step: number, dtype: DType | string, o?: CreateOpts): Tensor;
export function arange(...args: (number | string | null | CreateOpts | undefined)[]): Tensor {
  const o = kwargs<CreateOpts & { start?: number; stop?: number; step?: number }>('arange', args, ['start', 'stop', 'step', 'dtype'], CREATE_KW);
  let [start, stop, step] = [o.start, o.stop, o.step].map((v, i) => (v === undefined || v === null ? undefined : checkNumber(v, 'arange', ['start', 'stop', 'step'][i]!)));
  if (start === undefined) throw new TypeError('arange() requires stop to be specified.');
  if (stop === undefined) { stop = start; start = 0; }
  step ??= 1;
  if (step === 0) throw new RangeError('Maximum allowed size exceeded (step is zero)');
  const len = Math.ceil((stop - start) / step);
  if (Number.isNaN(len)) throw new RangeError('arange: cannot compute length (a NaN bound: a length known only at run time, after a boolean mask, is NaN until the run computes it; execute() that array first)');
  if (len > MAX_SIZE) throw new RangeError(`Maximum allowed size exceeded (arange would have ${len} elements)`);
  const n = Math.max(0, len);
  const allInt = [start, stop, step].every(Number.isInteger);
  const d = dtypeArg(o.dtype) ?? (allInt ? 'int64' : 'float64');
  if (d === 'bool' && n > 2) throw new RangeError('arange() is only supported for booleans when the result has at most length 2.');
  const chunk = creationChunk([n], d, o);
  const idx = G.iota([n], 0, chunk);
  // NumPy's fill: the first two values are start and start + step in the result's dtype,
  // and value i is first + i * (second - first), computed in that dtype (so an integer
  // dtype steps by the difference of the truncated first two values).
  const compute: DType = isFloat(d) ? d : 'int64';
  const inD = (v: number): number => (isFloat(d) ? Number(castScalar(v, 'float64', d)) : Math.trunc(v));
  const first = inD(start), second = inD(start + step);
  if (!isFloat(d) && d !== 'bool') checkIntFits(first, d);
  const delta = inD(second - first);
  const i = G.cast(idx, compute);
  let v: Node = G.binary('add', G.binary('multiply', i, G.constant(delta, compute), compute), G.constant(first, compute), compute);
  if (isFloat(d) && n > 1) v = G.where(G.binary('equal', idx, G.constant(1, 'int64'), 'bool'), G.constant(second, compute), v);
  return placed(new Tensor(G.cast(v, d)), o);
}

export function linspace(start: number, stop: number, ...rest: [...unknown[], { retstep: true }]): [Tensor, number];
export function linspace(start: Operand, stop: Operand, ...rest: [...unknown[], { retstep: true }]): [Tensor, Tensor | number];
export function linspace(start: Operand, stop: Operand, o?: CreateOpts & { endpoint?: boolean; num?: number; axis?: number }): Tensor;
export function linspace(start: Operand, stop: Operand, num: number, o?: CreateOpts & { endpoint?: boolean; axis?: number }): Tensor;
export function linspace(start: Operand, stop: Operand, ...rest: unknown[]): Tensor | [Tensor, Tensor | number] {
  const o = kwargs<CreateOpts & { endpoint?: boolean; num?: number; retstep?: boolean; axis?: number }>('linspace', rest, ['num', 'endpoint', 'retstep', 'dtype', 'axis'], CREATE_KW);
  if (o.endpoint !== undefined && typeof o.endpoint !== 'boolean') throw new TypeError(`linspace(): endpoint must be a boolean, got ${repr(o.endpoint)}`);
  const num = checkInt(knownLength('linspace', o.num ?? 50, 'num'), 'linspace', 'num');
  if (num > MAX_SIZE) throw new RangeError(`Maximum allowed size exceeded (linspace of ${num} samples)`);
  if (!Number.isInteger(num) || num < 0) throw new RangeError(`Number of samples, ${num}, must be non-negative.`);
  const endpoint = o.endpoint ?? true;
  const div = endpoint ? num - 1 : num;
  const axis = o.axis === undefined ? 0 : checkInt(o.axis, 'linspace', 'axis');
  const [samples, step] = typeof start === 'number' && typeof stop === 'number'
    ? linspaceNumbers(start, stop, num, endpoint, div, o)
    : linspaceArrays(start, stop, num, endpoint, div, o);
  const y = axis === 0 ? samples : moveaxis(samples, 0, axis);
  // retstep=True: (samples, step); a JS number for number bounds (NaN where there is none, as NumPy's), else an array
  return o.retstep ? [y, step] : y;
}

/** linspace of two JS numbers: float64 samples, then NumPy's cast (floored into an integer dtype). */
function linspaceNumbers(start: number, stop: number, num: number, endpoint: boolean, div: number, o: CreateOpts): [Tensor, number] {
  checkNumber(start, 'linspace', 'start'); checkNumber(stop, 'linspace', 'stop');
  const step = div > 0 ? (stop - start) / div : NaN;
  const d = dtypeArg(o.dtype) ?? 'float64';
  const chunk = creationChunk([num], d, o);
  const i = G.cast(G.iota([num], 0, chunk), 'float64');
  let v: Node = div > 0
    ? G.binary('add', G.binary('multiply', i, G.constant(step, 'float64'), 'float64'), G.constant(start, 'float64'), 'float64')
    : G.binary('add', G.binary('multiply', i, G.constant(stop - start, 'float64'), 'float64'), G.constant(start, 'float64'), 'float64');
  if (endpoint && num > 1) v = G.where(G.binary('equal', G.iota([num], 0, chunk), G.constant(num - 1, 'int64'), 'bool'), G.expand(G.constant(stop, 'float64'), [num]), v);
  // NumPy 2 floors the samples into an integer dtype (a cast alone would truncate toward zero).
  if (!isFloat(d) && d !== 'bool') v = G.unary('floor', v, 'float64');
  return [placed(new Tensor(G.cast(v, d)), o), step];
}

/**
 * linspace of arrays, as NumPy's: samples along a new first axis, in the
 * inexact result type of start and stop (JS numbers weak), the step
 * delta / div (or i / div * delta where some step underflows to 0), the
 * last sample `stop` itself.
 */
function linspaceArrays(start: Operand, stop: Operand, num: number, endpoint: boolean, div: number, o: CreateOpts): [Tensor, Tensor | number] {
  const bounds = [start, stop];
  const strong = bounds.filter((b) => typeof b !== 'number' && typeof b !== 'boolean').map((b) => toTensor(b as Operand).dtype);
  const weak = bounds.filter((b): b is number | boolean => typeof b === 'number' || typeof b === 'boolean').map(weakKindOf);
  const dt = [...weak, weakKindOf(0.5)].reduce(promoteWeak, strong.reduce(promoteTypes));
  const s = astype(start, dt), e = astype(stop, dt);
  const delta = subtract(e, s);
  const lead = (t: Tensor): Tensor => reshape(t, [-1, ...delta.shape.map(() => 1)]);
  const i = lead(arange(0, num, { dtype: dt, ...(o.chunkSize !== undefined ? { chunkSize: o.chunkSize } : {}) }));
  let y: Tensor, step: Tensor | number;
  if (div > 0) {
    step = divide(delta, div);
    y = where(any(equal(step, 0)), multiply(divide(i, div), delta), multiply(i, step));
  } else {
    step = NaN;
    y = multiply(i, delta);
  }
  y = add(y, s);
  if (endpoint && num > 1) y = where(lead(equal(arange(num), num - 1)), e, y);
  const d = dtypeArg(o.dtype) ?? dt;
  if (!isFloat(d) && d !== 'bool') y = floor(y);
  return [placed(astype(y, d), o), step];
}

export function eye(n: number, o?: CreateOpts & { k?: number; M?: number }): Tensor;
export function eye(n: number, m: number | null, o?: CreateOpts & { k?: number }): Tensor;
export function eye(n: number, m: number | null, k: number, o?: CreateOpts): Tensor;
export function eye(n: number, m: number | null, k: number, dtype: DType | string, o?: CreateOpts): Tensor;
export function eye(n: number, ...rest: (number | string | null | (CreateOpts & { k?: number; M?: number }) | undefined)[]): Tensor {
  const fn = 'eye';
  const o = kwargs<CreateOpts & { k?: number; M?: number | null }>('eye', rest, ['M', 'k', 'dtype', 'order'], CREATE_KW);
  const m = o.M ?? n;
  const k = checkInt(o.k ?? 0, 'eye', 'k');
  const shape = concreteShape(fn, [n, m]);
  const d = dtypeArg(o.dtype) ?? 'float64';
  const chunk = creationChunk(shape, d, o);
  const diff = G.binary('subtract', G.iota(shape, 1, chunk), G.iota(shape, 0, chunk), 'int64');
  return placed(new Tensor(G.cast(G.binary('equal', diff, G.constant(k, 'int64'), 'bool'), d)), o);
}
export const identity = (n: number, ...args: Args): Tensor => eye(n, n, kwargs<CreateOpts>('identity', args, ['dtype'], CREATE_KW));

/** tri(N, M=N, k=0): ones at and below the k-th diagonal. */
export function tri(n: number, ...rest: (number | string | null | (CreateOpts & { k?: number; M?: number }) | undefined)[]): Tensor {
  const fn = 'tri';
  const o = kwargs<CreateOpts & { k?: number; M?: number | null }>('tri', rest, ['M', 'k', 'dtype'], CREATE_KW);
  const m = o.M ?? n;
  const k = o.k ?? 0;
  const shape = concreteShape(fn, [n, m]);
  const d = dtypeArg(o.dtype) ?? 'float64';
  return placed(new Tensor(G.cast(triMask(shape, checkInt(k, 'tri', 'k'), true), d)), o);
}

/** The tri mask over the last two axes of `shape` (a 1-d input is taken as its row repeated: NumPy's m.shape[-2:]). */
function triMask(shape: readonly number[], k: number, lower: boolean): Node {
  const r = shape.length;
  if (r === 0) throw new RangeError(`${lower ? 'tril' : 'triu'}: input must be at least 1-dimensional`);
  const s2 = r === 1 ? [shape[0]!, shape[0]!] : shape.slice(r - 2);
  const diff = G.binary('subtract', G.iota(s2, 1), G.iota(s2, 0), 'int64');
  return G.binary(lower ? 'less_equal' : 'greater_equal', diff, G.constant(k, 'int64'), 'bool');
}
export function tril(x: Operand, ...args: Args): Tensor {
  const t = isTensor(x) ? x : tensor(x as JsData);
  const k = checkInt(kwargs<{ k?: number }>('tril', args, ['k']).k ?? 0, 'tril', 'k');
  // the mask is a grid over the last two lengths: built once the run knows them
  const later = whenKnown('tril', [t], (u) => tril(u, k));
  if (later) return later;
  return where(new Tensor(triMask(t.shape, k, true)), t, zeros([], { dtype: t.dtype }));
}
export function triu(x: Operand, ...args: Args): Tensor {
  const t = isTensor(x) ? x : tensor(x as JsData);
  const k = checkInt(kwargs<{ k?: number }>('triu', args, ['k']).k ?? 0, 'triu', 'k');
  const later = whenKnown('triu', [t], (u) => triu(u, k));
  if (later) return later;
  return where(new Tensor(triMask(t.shape, k, false)), t, zeros([], { dtype: t.dtype }));
}

// ---------------------------------------------------------------------------
// Shape and movement

export function toTensor(x: Operand): Tensor { return isTensor(x) ? x : new Tensor(arg(x).node); }

/** reshape(a, newshape, order='C'); order 'F' reads and writes the elements in Fortran order (by transposes). */
export function reshape(x: Operand, shape: number | readonly number[] | { shape?: number | readonly number[]; order?: string }, ...args: Args): Tensor {
  // the shape by keyword too (NumPy 2.1's `shape`, or the older `newshape`)
  const byKw = isOptions(shape);
  const o = kwargs<{ order?: string; shape?: number | readonly number[]; newshape?: number | readonly number[]; copy?: boolean | null }>('reshape', byKw ? [shape, ...args] : args, ['order'], ['shape', 'newshape', 'copy']);
  const dims = byKw ? o.shape ?? o.newshape : (shape as number | readonly number[]);
  if (dims === undefined) throw new TypeError("reshape() missing required argument 'shape' (pos 2)");
  const order = o.order ?? 'C';
  if (order === 'F') return transpose(reshape(transpose(x), typeof dims === 'number' ? [dims] : [...dims].reverse()));
  if (order !== 'C' && order !== 'A') throw new RangeError(`reshape(): order must be 'C' or 'F', got ${JSON.stringify(order)}`);
  const t = toTensor(x);
  const s = typeof dims === 'number' ? [dims] : [...dims];
  // Any negative length is the unknown one (NumPy 2 reads -2 as -1).
  const neg = s.filter((d) => d < 0).length;
  if (neg > 1) throw new RangeError('can only specify one unknown dimension');
  if (hasUnknown(t.shape)) {
    // Size known only after execution: -1 (or a matching NaN) stands for the unknown part.
    return new Tensor(G.reshape(t.node, s.map((d) => (d < 0 ? NaN : d))));
  }
  if (neg === 1) {
    const known = s.filter((d) => !(d < 0)).reduce((a, b) => a * b, 1);
    if (known === 0 || t.size % known !== 0) throw new RangeError(`cannot reshape array of size ${t.size} into shape ${shapeStr(s)}`);
    s[s.findIndex((d) => d < 0)] = t.size / known;
  }
  return new Tensor(G.reshape(t.node, checkShape(s)));
}
export const ravel = (x: Operand, ...args: Args): Tensor => reshape(x, [-1], kwargs<{ order?: string }>('ravel', args, ['order']));

export function transpose(x: Operand, ...args: Args): Tensor {
  const given = kwargs<{ axes?: number | readonly number[] | null }>('transpose', args, ['axes']).axes ?? undefined;
  const axes = typeof given === 'number' ? [given] : given;
  const t = toTensor(x);
  const r = t.ndim;
  const ax = axes ? axes.map((a) => normalizeAxis(a, r)) : Array.from({ length: r }, (_, i) => r - 1 - i);
  if (ax.length !== r || new Set(ax).size !== r) throw new RangeError("axes don't match array");
  return new Tensor(G.permute(t.node, ax));
}
export function swapaxes(x: Operand, ...args: Args): Tensor {
  const o = kwargs<{ axis1?: number; axis2?: number }>('swapaxes', args, ['axis1', 'axis2']);
  const a = need<number>('swapaxes', o, 'axis1'), b = need<number>('swapaxes', o, 'axis2');
  const t = toTensor(x);
  const ax = Array.from({ length: t.ndim }, (_, i) => i);
  const i = normalizeAxis(a, t.ndim), j = normalizeAxis(b, t.ndim);
  [ax[i], ax[j]] = [ax[j]!, ax[i]!];
  return transpose(t, ax);
}
export function moveaxis(x: Operand, ...args: Args): Tensor {
  const o = kwargs<{ source?: number | readonly number[]; destination?: number | readonly number[] }>('moveaxis', args, ['source', 'destination']);
  const source = need<number | readonly number[]>('moveaxis', o, 'source'), destination = need<number | readonly number[]>('moveaxis', o, 'destination');
  const t = toTensor(x);
  const list = (a: number | readonly number[], what: string) => {
    const l = (typeof a === 'number' ? [a] : [...a]).map((v) => normalizeAxis(v, t.ndim));
    if (new Set(l).size !== l.length) throw new RangeError(`repeated axis in \`${what}\` argument`);
    return l;
  };
  const src = list(source, 'source'), dst = list(destination, 'destination');
  if (src.length !== dst.length) throw new RangeError('`source` and `destination` arguments must have the same number of elements');
  const order = Array.from({ length: t.ndim }, (_, i) => i).filter((i) => !src.includes(i));
  dst.map((d, i) => [d, src[i]!] as const).sort((p, q) => p[0] - q[0]).forEach(([d, s]) => order.splice(d, 0, s));
  return transpose(t, order);
}
export function expand_dims(x: Operand, ...args: Args): Tensor {
  const axis = need<number | readonly number[]>('expand_dims', kwargs('expand_dims', args, ['axis']), 'axis');
  const t = toTensor(x);
  const list = typeof axis === 'number' ? [axis] : [...axis];
  const r = t.ndim + list.length;
  const ax = list.map((a) => normalizeAxis(a, r));
  if (new Set(ax).size !== ax.length) throw new RangeError('repeated axis');
  const shape: number[] = [];
  let k = 0;
  for (let i = 0; i < r; i++) shape.push(ax.includes(i) ? 1 : t.shape[k++]!);
  return reshape(t, shape);
}
export function squeeze(x: Operand, ...args: Args): Tensor {
  const o = kwargs<{ axis?: number | readonly number[] | null }>('squeeze', args, ['axis']);
  const t = toTensor(x);
  // A 0-d array has nothing to squeeze; NumPy still checks the axes as if it had one axis.
  if (t.ndim === 0) { if (o.axis !== undefined && o.axis !== null) normalizeAxes(o.axis, 1); return t; }
  // which axes have length 1 is known once every length is (a selection of one element loses its axis)
  const later = o.axis === undefined || o.axis === null ? whenKnown('squeeze', [t], (u) => squeeze(u)) : undefined;
  if (later) return later;
  const ax = o.axis === undefined || o.axis === null ? t.shape.map((d, i) => (d === 1 ? i : -1)).filter((i) => i >= 0) : normalizeAxes(o.axis, t.ndim);
  for (const a of ax) {
    if (isUnknown(t.shape[a]!)) return deferred('squeeze', [t], (u) => squeeze(u[0]!, { axis: o.axis }));
    if (t.shape[a] !== 1) throw new RangeError('cannot select an axis to squeeze out which has size not equal to one');
  }
  return reshape(t, t.shape.filter((_, i) => !ax.includes(i)));
}
export function broadcast_to(x: Operand, ...args: Args): Tensor {
  const shape = need<number | readonly number[]>('broadcast_to', kwargs('broadcast_to', args, ['shape', 'subok']), 'shape');
  const t = toTensor(x);
  const s = typeof shape === 'number' ? [shape] : [...shape];
  if (s.some(isUnknown)) {
    // NaN (x.shape's own entry, len() of a selection) stands for that same run-time length of x
    const off = s.length - t.ndim;
    s.forEach((d, i) => { if (isUnknown(d) && !(i >= off && isUnknown(t.shape[i - off]!))) throw new G.UnknownLengthError(`broadcast_to() of an array of shape ${shapeStr(t.shape)} to shape ${shapeStr(s)}`); });
    checkShape(s.map((d) => (isUnknown(d) ? 0 : d)));
    return new Tensor(G.expand(t.node, s));
  }
  const later = whenKnown('broadcast_to', [t], (u) => broadcast_to(u, s));
  if (later) return later;
  return new Tensor(G.expand(t.node, checkShape(s)));
}

export function concatenate(xs: readonly Operand[], ...args: Args): Tensor {
  if (!Array.isArray(xs)) throw new TypeError('concatenate(): the first argument must be a list of arrays');
  const o = kwargs<{ axis?: number | null; dtype?: DType | string }>('concatenate', args, ['axis', 'out'], ['dtype']);
  // axis=None: the arrays are flattened first.
  const ts = o.axis === null ? xs.map((x) => ravel(x)) : xs.map(toTensor);
  if (!ts.length) throw new RangeError('need at least one array to concatenate');
  const r = ts[0]!.ndim;
  if (r === 0) throw new RangeError('zero-dimensional arrays cannot be concatenated');
  const axis = normalizeAxis(o.axis ?? 0, r);
  ts.forEach((t, i) => {
    if (t.ndim !== r) throw new RangeError(`all the input array dimensions except for the concatenation axis must match exactly, but along dimension 0, the array at index 0 has ${r} dimension(s) and the array at index ${i} has ${t.ndim} dimension(s)`);
    // Lengths known only at run time are checked again when the graph is rebuilt over them (G.concat).
    t.shape.forEach((d, j) => { if (j !== axis && d !== ts[0]!.shape[j] && !isUnknown(d) && !isUnknown(ts[0]!.shape[j]!)) throw new RangeError(`all the input array dimensions except for the concatenation axis must match exactly, but along dimension ${j}, the array at index 0 has size ${ts[0]!.shape[j]} and the array at index ${i} has size ${d}`); });
  });
  const d = dtypeArg(o.dtype) ?? ts.map((t) => t.dtype).reduce(promoteTypes);
  return new Tensor(G.concat(ts.map((t) => G.cast(t.node, d)), axis, d));
}
export function stack(xs: readonly Operand[], ...args: Args): Tensor {
  if (!Array.isArray(xs)) throw new TypeError('stack(): the first argument must be a list of arrays');
  const o = kwargs<{ axis?: number }>('stack', args, ['axis', 'out']);
  const ts = xs.map(toTensor);
  if (!ts.length) throw new RangeError('need at least one array to stack');
  const axis = normalizeAxis(o.axis ?? 0, ts[0]!.ndim + 1);
  ts.forEach((t) => { if (t.shape.join() !== ts[0]!.shape.join()) throw new RangeError('all input arrays must have the same shape'); });
  return concatenate(ts.map((t) => expand_dims(t, axis)), { axis });
}
/** The arrays of a stacking function's first argument (a list, as NumPy's sequence). */
export function arrayList(fn: string, xs: unknown): Tensor[] {
  if (!Array.isArray(xs)) throw new TypeError(`${fn}(): the first argument must be a list of arrays`);
  return xs.map(toTensor);
}
export function vstack(xs: readonly Operand[], ...args: Args): Tensor {
  const o = kwargs<{ dtype?: DType | string }>('vstack', args, [], ['dtype', 'casting']);
  return concatenate(arrayList('vstack', xs).map((t) => (t.ndim < 2 ? reshape(t, [1, t.size]) : t)), { axis: 0, dtype: o.dtype });
}
export function hstack(xs: readonly Operand[], ...args: Args): Tensor {
  const o = kwargs<{ dtype?: DType | string }>('hstack', args, [], ['dtype', 'casting']);
  const ts = arrayList('hstack', xs).map((t) => (t.ndim === 0 ? reshape(t, [1]) : t));
  return concatenate(ts, { axis: ts[0] && ts[0].ndim === 1 ? 0 : 1, dtype: o.dtype });
}

export function flip(x: Operand, ...args: Args): Tensor {
  const o = kwargs<{ axis?: number | readonly number[] | null }>('flip', args, ['axis']);
  const t = toTensor(x);
  const ax = normalizeAxes(o.axis ?? null, t.ndim);
  // a reversal starts at the last element: built once the run knows where that is
  if (ax.some((a) => isUnknown(t.shape[a]!))) return deferred('flip', [t], ([u]) => flip(u!, ax));
  const starts = t.shape.map((d, i) => (ax.includes(i) ? d - 1 : 0));
  const steps = t.shape.map((_, i) => (ax.includes(i) ? -1 : 1));
  return new Tensor(G.slice(t.node, starts, steps, t.shape));
}

// ---------------------------------------------------------------------------
// Linear algebra basics

export function matmul(x: Operand, y: Operand): Tensor {
  let a = toTensor(x), b = toTensor(y);
  if (a.ndim === 0 || b.ndim === 0) throw new RangeError("matmul: Input operand does not have enough dimensions (has 0, gufunc core with signature (n?,k),(k,m?)->(n?,m?) requires 1)");
  const va = a.ndim === 1, vb = b.ndim === 1;
  if (va) a = reshape(a, [1, a.size]);
  if (vb) b = reshape(b, [b.size, 1]);
  const k = a.shape[a.ndim - 1]!;
  if (b.shape[b.ndim - 2] !== k && !isUnknown(k) && !isUnknown(b.shape[b.ndim - 2]!)) {
    throw new RangeError(`matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature (n?,k),(k,m?)->(n?,m?) (size ${b.shape[b.ndim - 2]} is different from ${k})`);
  }
  const batch = broadcastShapes(a.shape.slice(0, -2), b.shape.slice(0, -2));
  // stacks whose count the run will know are broadcast once it does
  if (hasUnknown(batch)) return deferred('matmul', [toTensor(x), toTensor(y)], ([p, q]) => matmul(p!, q!));
  const d = promoteTypes(a.dtype, b.dtype);
  const cd: DType = d === 'bool' ? 'bool' : d;
  const an = G.expand(G.cast(a.node, cd), [...batch, ...a.shape.slice(-2)]);
  const bn = G.expand(G.cast(b.node, cd), [...batch, ...b.shape.slice(-2)]);
  let out = new Tensor(G.matmul(an, bn, cd));
  if (va) out = squeeze(out, { axis: out.ndim - 2 });
  if (vb) out = squeeze(out, { axis: out.ndim - 1 });
  return out;
}

export function dot(x: Operand, y: Operand): Tensor {
  const a = toTensor(x), b = toTensor(y);
  if (a.ndim === 0 || b.ndim === 0) return multiply(a, b);
  if (b.ndim <= 2) return matmul(a, b);
  return tensordot(a, b, { axes: [[a.ndim - 1], [b.ndim - 2]] });
}

export function tensordot(x: Operand, y: Operand, ...args: Args): Tensor {
  const o = kwargs<{ axes?: number | [readonly number[] | number, readonly number[] | number] }>('tensordot', args, ['axes']);
  const a = toTensor(x), b = toTensor(y);
  // the contracted lengths must agree: checked, and the operands folded into matrices, once the run knows them
  const later = whenKnown('tensordot', [a, b], (p, q) => tensordot(p, q, o));
  if (later) return later;
  const ax = o.axes ?? 2;
  const [aa, ba] = typeof ax === 'number'
    ? [Array.from({ length: ax }, (_, i) => a.ndim - ax + i), Array.from({ length: ax }, (_, i) => i)]
    : [[ax[0]].flat().map((i) => normalizeAxis(i, a.ndim)), [ax[1]].flat().map((i) => normalizeAxis(i, b.ndim))];
  aa.forEach((i, j) => { if (a.shape[i] !== b.shape[ba[j]!]) throw new RangeError('shape-mismatch for sum'); });
  const fa = Array.from({ length: a.ndim }, (_, i) => i).filter((i) => !aa.includes(i));
  const fb = Array.from({ length: b.ndim }, (_, i) => i).filter((i) => !ba.includes(i));
  const k = aa.reduce((p, i) => p * a.shape[i]!, 1);
  const A = reshape(transpose(a, [...fa, ...aa]), [fa.reduce((p, i) => p * a.shape[i]!, 1), k]);
  const B = reshape(transpose(b, [...ba, ...fb]), [k, fb.reduce((p, i) => p * b.shape[i]!, 1)]);
  return reshape(matmul(A, B), [...fa.map((i) => a.shape[i]!), ...fb.map((i) => b.shape[i]!)]);
}

export const inner = (x: Operand, y: Operand): Tensor => {
  const a = toTensor(x), b = toTensor(y);
  if (a.ndim === 0 || b.ndim === 0) return multiply(a, b);
  return tensordot(a, b, { axes: [[a.ndim - 1], [b.ndim - 1]] });
};
export const outer = (x: Operand, y: Operand): Tensor => multiply(reshape(ravel(x), [-1, 1]), reshape(ravel(y), [1, -1]));
export const vdot = (x: Operand, y: Operand): Tensor => {
  const p = multiply(ravel(x), ravel(y));
  return sum(p, { dtype: p.dtype });
};

/** trace(a, offset=0, axis1=0, axis2=1, dtype=None). */
export function trace(x: Operand, ...args: Args): Tensor {
  const o = kwargs<{ offset?: number; axis1?: number; axis2?: number; dtype?: DType | string }>('trace', args, ['offset', 'axis1', 'axis2', 'dtype', 'out']);
  let t = toTensor(x);
  if (t.ndim < 2) throw new RangeError('diag requires an array of at least two dimensions');
  const a1 = normalizeAxis(o.axis1 ?? 0, t.ndim), a2 = normalizeAxis(o.axis2 ?? 1, t.ndim);
  if (a1 === a2) throw new RangeError('axis1 and axis2 cannot be the same');
  t = moveaxis(t, [a1, a2], [0, 1]);
  if (o.dtype !== undefined) t = astype(t, o.dtype);
  const [n, m] = [t.shape[0]!, t.shape[1]!];
  if (isUnknown(n) || isUnknown(m)) return deferred('trace', [t], ([u]) => trace(u!, { offset: o.offset ?? 0, ...(o.dtype !== undefined ? { dtype: o.dtype } : {}) }));
  const so = o.dtype !== undefined ? { dtype: o.dtype } : {};
  const k = checkInt(o.offset ?? 0, 'trace', 'offset');
  const len = Math.max(0, Math.min(n - Math.max(0, -k), m - Math.max(0, k)));
  if (len === 0) return sum(zeros([0, ...t.shape.slice(2)], { dtype: t.dtype }), { axis: 0, ...so });
  const rows = arange(Math.max(0, -k), Math.max(0, -k) + len);
  const flat = reshape(t, [n * m, ...t.shape.slice(2)]);
  const idx = add(multiply(rows, m + 1), k);
  return sum(take(flat, idx, { axis: 0 }), { axis: 0, ...so });
}

export function take(x: Operand, indices: Operand, ...args: Args): Tensor {
  const o = kwargs<{ axis?: number | null; mode?: string }>('take', args, ['axis', 'out', 'mode']);
  const mode = o.mode ?? 'raise';
  if (mode !== 'raise' && mode !== 'wrap' && mode !== 'clip') throw new RangeError(`clipmode must be one of 'clip', 'raise', or 'wrap' (got ${JSON.stringify(mode)})`);
  let t = toTensor(x);
  if (o.axis === undefined || o.axis === null) t = ravel(t);
  const ax = normalizeAxis(o.axis ?? 0, t.ndim);
  let i = toTensor(indices);
  if (isFloat(i.dtype)) throw new TypeError(`Cannot cast array data from dtype('${i.dtype}') to dtype('int64') according to the rule 'safe'`);
  // take casts booleans to 0 and 1 (they are not a mask here).
  if (i.dtype === 'bool') i = astype(i, 'int64');
  // wrapped or clipped indices, and JS ones (checked now, as NumPy's IndexError), need the axis length: built once the run knows it
  if (isUnknown(t.shape[ax]!) && (mode !== 'raise' || !isTensor(indices))) return deferred('take', [t], ([u]) => take(u!, indices, { axis: ax, mode }));
  if (mode !== 'raise') {
    // 'wrap' takes indices modulo the length, 'clip' clamps them into it (a negative index to 0)
    const n = t.shape[ax]!;
    if (n === 0 && i.size !== 0) throw new RangeError('cannot do a non-empty take from an empty axes.');
    if (n > 0) i = mode === 'wrap' ? mod(astype(i, 'int64'), n) : clip(astype(i, 'int64'), 0, n - 1);
    return new Tensor(G.gather(t.node, i.node, ax));
  }
  // Indices given as JS data are checked now (NumPy's IndexError); a tensor's values only at run time (clamped).
  if (!isTensor(indices) && i.node.op === 'source') {
    const n = t.shape[ax]!;
    for (const v of runtime.values(i.node)) if (Number(v) < -n || Number(v) >= n) throw new RangeError(`index ${v} is out of bounds for axis ${ax} with size ${n}`);
  }
  return new Tensor(G.gather(t.node, i.node, ax));
}

// ---------------------------------------------------------------------------
// Execution

/** Runs several outputs in one graph, sharing common work. */
export async function execute(...ts: Tensor[]): Promise<Tensor[]> {
  ts.forEach((t, i) => { if (!isTensor(t)) throw new TypeError(`execute(): argument ${i} is not a tensor (got ${repr(t)})`); });
  await realize(ts, withDefaults({}));
  return ts;
}

/** `execute` with run options (a mesh session, progress): one graph for all of `ts`. */
export async function executeWith(opts: RunOptions, ...ts: Tensor[]): Promise<Tensor[]> {
  await realize(ts, withDefaults(opts));
  return ts;
}

/** The report of the last execution (tasks, kernels compiled, bytes, peak chunk memory). */
export const lastReport = (): Report | undefined => runtime.lastReport;

/** Chunk-heap bytes held now and worker threads alive (for tests and monitoring). */
export const usage = (): { bytesInUse: number; workers: number } => runtime.usage();

/** Stops the worker pool (it idles unref'd otherwise). */
export const shutdown = (): Promise<void> => runtime.close();

export { sizeOf as _sizeOf, placed as _placed };
