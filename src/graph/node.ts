// Graph nodes: plain, immutable records of one operation each (kind, inputs,
// attributes, dtype, shape, chunk grid). Constructors infer shape and dtype
// and validate arguments, so a bad call throws where the user wrote it. A
// length known only at run time (NaN) comes only from a selection or a
// deferred build; a builder that needs a length refuses NaN rather than
// compute over it (UnknownLengthError).
// In: parent nodes and attributes. Out: a new Node. Nothing here computes.

import { type DType, INFO } from './dtype.js';
import { LinAlgError, type LinalgSpec, SQUARE, linalgParts } from './linalg.js';
import { type QuantileSpec, quantileDType } from './quantile.js';
import { type BinaryOp, REDUCE, type RandomDist, type ReduceOp, type ScanOp, type UnaryOp, widens } from './ops.js';
import {
  AUTO_CHUNK_BYTES, type Shape, broadcastShapes, checkTiling, chunkGrid, chunksOfSize, hasUnknown, isUnknown, numChunks, shapeStr, sizeOf,
} from './shape.js';

/** Attributes per node kind. `source` nodes carry data held by the runtime under `key`. */
export interface Attrs {
  source: { key: string };
  const: { value: number | boolean | string };
  iota: { axis: number };
  random: { dist: RandomDist; seed: readonly [number, number]; stream: number };
  unary: { op: UnaryOp };
  binary: { op: BinaryOp };
  where: Record<string, never>;
  cast: Record<string, never>;
  reduce: { op: ReduceOp; axes: readonly number[]; keepdims: boolean };
  reshape: Record<string, never>;
  permute: { axes: readonly number[] };
  expand: Record<string, never>;
  slice: { starts: readonly number[]; steps: readonly number[] };
  concat: { axis: number };
  gather: { axis: number };
  scan: { op: ScanOp; axis: number };
  matmul: Record<string, never>;
  compress: { axis: number };
  invert: { size: number };
  scatter: { op: BinaryOp; compute: DType };
  search: { side: 'left' | 'right' };
  sort: { axis: number; indices: boolean };
  quantile: { spec: QuantileSpec };
  svdvals: Record<string, never>;
  linalg: { spec: LinalgSpec };
  check: { test: 'nonzero'; error: string; message: string };
  routine: RoutineAttrs;
  defer: { name: string; build: (inputs: readonly Node[]) => Node };
}
export type OpKind = keyof Attrs;

/** A routine's parameters: plain JSON values, so that a plan can name them and a peer can validate them. */
export type RoutineParams = Readonly<Record<string, number | boolean | string | readonly number[]>>;

/**
 * One call of a hand-written routine (runtime/routines.ts) over boxes of the
 * node's inputs, writing one chunk of the node. `input` counts the node's
 * inputs; the index one past them names the node itself, so that a call may
 * read tiles earlier calls wrote (a tiled factorization's DAG).
 */
export interface RoutineCall {
  readonly routine: string;
  readonly params: RoutineParams;
  readonly reads: readonly { readonly input: number; readonly box: readonly (readonly [number, number])[] }[];
  readonly chunk: number;
}

/** A routine node: its calls, in an order in which every call comes after those whose tiles it reads. */
export interface RoutineAttrs { readonly name: string; readonly calls: readonly RoutineCall[] }

export interface Node<K extends OpKind = OpKind> {
  readonly id: number;
  readonly op: K;
  readonly inputs: readonly Node[];
  readonly attrs: Attrs[K];
  readonly dtype: DType;
  readonly shape: Shape;
  /** Chunk length along each axis: the grid this node is tiled by. */
  readonly chunk: Shape;
}

let nextId = 1;

/**
 * The error of a builder asked for a length it cannot have: one known only
 * at run time (after a boolean mask), where the operation needs it now. The
 * API defers such operations until the run knows the length (api/core's
 * `deferred`); this is the net under any it does not, so that nothing is
 * computed over a made-up length.
 */
export class UnknownLengthError extends TypeError {
  constructor(what: string, hint = '') {
    super(`${what} needs a length known only at run time (after a boolean mask, nonzero or unique): execute() the array first${hint}`);
    this.name = 'TypeError';
  }
}

/** Lengths known only at run time come from a selection (or a deferred build) upstream; no other node may make one up. */
const MAKES_UNKNOWN: ReadonlySet<OpKind> = new Set<OpKind>(['compress', 'defer']);

function make<K extends OpKind>(op: K, inputs: readonly Node[], attrs: Attrs[K], dtype: DType, shape: Shape, chunk?: Shape): Node<K> {
  if (hasUnknown(shape) && !MAKES_UNKNOWN.has(op) && !inputs.some((i) => hasUnknown(i.shape))) throw new UnknownLengthError(`a ${op} of shape ${shapeStr(shape)}`);
  const c = (chunk ?? chunkGrid(shape, INFO[dtype].bytes)).map((v, i) => Math.max(1, Math.min(v, Math.max(1, shape[i]!))));
  checkTiling(shape, c, INFO[dtype].bytes, dtype);
  return Object.freeze({
    id: nextId++, op, inputs: Object.freeze([...inputs]), attrs: Object.freeze(attrs) as Attrs[K], dtype,
    shape: Object.freeze([...shape]), chunk: Object.freeze(c),
  });
}

/** Chunk grid of a broadcast result: taken from the inputs that span each axis. */
function mergeChunks(shape: Shape, inputs: readonly Node[], dtype: DType): number[] {
  const auto = chunkGrid(shape, INFO[dtype].bytes);
  return shape.map((d, i) => {
    let best = Infinity;
    for (const n of inputs) {
      const j = i - (shape.length - n.shape.length);
      if (j >= 0 && n.shape[j] === d && d > 1) best = Math.min(best, n.chunk[j]!);
    }
    return best === Infinity ? auto[i]! : best;
  });
}

export function source(key: string, dtype: DType, shape: Shape, chunk: Shape): Node<'source'> {
  return make('source', [], { key }, dtype, shape, chunk);
}

export function constant(value: number | boolean | bigint, dtype: DType): Node<'const'> {
  const v = typeof value === 'bigint' ? value.toString() : value;
  return make('const', [], { value: v }, dtype, []);
}

export function iota(shape: Shape, axis: number, chunk?: Shape): Node<'iota'> {
  if (hasUnknown(shape)) throw new UnknownLengthError(`an index grid (iota) of shape ${shapeStr(shape)}`);
  return make('iota', [], { axis }, 'int64', shape, chunk);
}

export function random(dist: RandomDist, seed: readonly [number, number], stream: number, shape: Shape, chunk?: Shape): Node<'random'> {
  const dtype: DType = dist === 'bits' ? 'uint32' : dist === 'uniform32' ? 'float32' : 'float64';
  return make('random', [], { dist, seed, stream }, dtype, shape, chunk);
}

export function unary(op: UnaryOp, x: Node, dtype: DType): Node<'unary'> {
  return make('unary', [x], { op }, dtype, x.shape, x.chunk);
}

/** Both operands must already have the compute dtype; `dtype` is the result dtype. */
export function binary(op: BinaryOp, a: Node, b: Node, dtype: DType): Node<'binary'> {
  const shape = broadcastShapes(a.shape, b.shape);
  return make('binary', [a, b], { op }, dtype, shape, mergeChunks(shape, [a, b], dtype));
}

export function where(c: Node, a: Node, b: Node): Node<'where'> {
  const shape = broadcastShapes(c.shape, a.shape, b.shape);
  return make('where', [c, a, b], {}, a.dtype, shape, mergeChunks(shape, [c, a, b], a.dtype));
}

export function cast(x: Node, dtype: DType): Node {
  if (x.dtype === dtype) return x;
  return make('cast', [x], {}, dtype, x.shape, x.chunk);
}

/**
 * A selection feeding a reduction, undone: when `x` is an elementwise
 * expression over boolean selections compress(x_i, m, axis) that share one
 * mask and axis (its other operands broadcast along that axis), the same
 * expression over the x_i, with the mask and axis. Reducing over that axis
 * the expression with the unselected terms set to the reduction's identity
 * gives the reduction of the selection, in one fused pass that never stores
 * it (x[m].sum() reads x and m once). Undefined for anything else.
 */
function unselect(x: Node): { expr: Node; mask: Node; axis: number } | undefined {
  const rank = x.shape.length;
  const unknown = x.shape.flatMap((d, i) => (isUnknown(d) ? [i] : []));
  if (unknown.length !== 1) return undefined;
  const axis = unknown[0]!;
  let mask: Node | undefined;
  const memo = new Map<Node, Node | undefined>();
  const walk = (n: Node): Node | undefined => {
    if (memo.has(n)) return memo.get(n);
    let out: Node | undefined;
    if (!hasUnknown(n.shape)) {
      // a known operand must broadcast along the selected axis: span it with length 1, or not at all
      const i = axis - (rank - n.shape.length);
      out = i < 0 || n.shape[i] === 1 ? n : undefined;
    } else if (n.shape.length !== rank) {
      out = undefined;
    } else if (n.op === 'compress') {
      const m = n.inputs[1]!;
      mask ??= m;
      out = mask === m && (n.attrs as Attrs['compress']).axis === axis && !hasUnknown(n.inputs[0]!.shape) ? n.inputs[0] : undefined;
    } else if (n.op === 'unary' || n.op === 'binary' || n.op === 'where' || n.op === 'cast') {
      const ins = n.inputs.map(walk);
      out = ins.every((i) => i !== undefined) ? rebuild(n, ins as Node[]) : undefined;
    }
    memo.set(n, out);
    return out;
  };
  const expr = walk(x);
  return expr && mask ? { expr, mask, axis } : undefined;
}

export function reduce(op: ReduceOp, x: Node, axes: readonly number[], keepdims: boolean, dtype: DType): Node {
  // NumPy's half loops add and multiply a reduction in float32, rounding once at the end
  const rule = REDUCE[op];
  if (dtype === 'float16' && widens(op)) return cast(reduce(op, cast(x, 'float32'), axes, keepdims, 'float32'), 'float16');
  // a selection reduced by an op with an identity is its input with the other terms set to it
  const identity = rule.kind === 'fold' ? rule.identity : undefined;
  if (identity !== undefined && hasUnknown(x.shape)) {
    const u = unselect(x);
    if (u && axes.includes(u.axis)) {
      const m = reshape(u.mask, [u.mask.shape[0]!, ...new Array<number>(u.expr.shape.length - u.axis - 1).fill(1)]);
      const fill = constant(u.expr.dtype === 'bool' ? Boolean(identity) : Number(identity), u.expr.dtype);
      return reduce(op, where(cast(m, 'bool'), u.expr, fill), axes, keepdims, dtype);
    }
  }
  for (const a of axes) {
    if (x.shape[a] === 0 && identity === undefined) {
      throw new RangeError(`zero-size array to reduction operation ${rule.ufunc} which has no identity`);
    }
  }
  const shape: number[] = [];
  const chunk: number[] = [];
  x.shape.forEach((d, i) => {
    if (!axes.includes(i)) {
      shape.push(d);
      chunk.push(x.chunk[i]!);
    } else if (keepdims) {
      shape.push(1);
      chunk.push(1);
    }
  });
  return make('reduce', [x], { op, axes: [...axes], keepdims }, dtype, shape, chunk);
}

export function reshape(x: Node, shape: Shape): Node {
  if (hasUnknown(shape) && !hasUnknown(x.shape)) {
    // an unknown target dim over a known input is the one the size leaves (NumPy's -1)
    const known = shape.filter((d) => !isUnknown(d)).reduce((p, d) => p * d, 1);
    const total = sizeOf(x.shape);
    const fill = shape.filter(isUnknown).length === 1 && known > 0 ? total / known : NaN;
    if (!Number.isInteger(fill)) throw new RangeError(`cannot reshape array of size ${total} into shape ${shapeStr(shape)}`);
    return reshape(x, shape.map((d) => (isUnknown(d) ? fill : d)));
  }
  if (hasUnknown(shape) || hasUnknown(x.shape)) {
    if (shape.filter(isUnknown).length > 1) throw new RangeError(`cannot reshape an array of unknown size ${shapeStr(x.shape)} into ${shapeStr(shape)} with more than one unknown dimension`);
    return make('reshape', [x], {}, x.dtype, shape);
  }
  if (sizeOf(shape) !== sizeOf(x.shape)) {
    throw new RangeError(`cannot reshape array of size ${sizeOf(x.shape)} into shape ${shapeStr(shape)}`);
  }
  if (shape.length === x.shape.length && shape.every((d, i) => d === x.shape[i])) return x;
  // a chunked input's chunks keep about their size (its axes may regroup; tiny ones grow to RESHAPE_MIN_CHUNK):
  // the default grid of the new shape could be the whole array
  const chunked = sizeOf(numChunks(x.shape, x.chunk)) > 1 ? chunksOfSize(shape, Math.max(RESHAPE_MIN_CHUNK, sizeOf(x.chunk))) : undefined;
  return make('reshape', [x], {}, x.dtype, shape, unitReshapeChunk(x, shape) ?? chunked);
}

/** Elements a reshape's chunk holds at least, where the input's chunks are smaller (a test's chunkSize of 3). */
const RESHAPE_MIN_CHUNK = 1 << 16;

/**
 * The input's chunking carried over when a reshape only adds or drops axes
 * of length 1 (a column [n] -> [n, 1]): a chunked array stays chunked as it
 * was, rather than taking the default grid of its new shape.
 */
function unitReshapeChunk(x: Node, shape: Shape): number[] | undefined {
  const from = x.shape.map((d, i) => [d, x.chunk[i]!] as const).filter(([d]) => d !== 1);
  const to = shape.filter((d) => d !== 1);
  if (from.length !== to.length || from.some(([d], i) => d !== to[i])) return undefined;
  let k = 0;
  return shape.map((d) => (d === 1 ? 1 : from[k++]![1]));
}

export function permute(x: Node, axes: readonly number[]): Node {
  if (axes.every((a, i) => a === i)) return x;
  return make('permute', [x], { axes: [...axes] }, x.dtype, axes.map((a) => x.shape[a]!), axes.map((a) => x.chunk[a]!));
}

export function expand(x: Node, shape: Shape, chunk?: Shape): Node {
  // an unknown target length must be the input's own (it is rebuilt as the input's length): a length-1 or missing axis cannot follow it
  const off = shape.length - x.shape.length;
  if (shape.some((d, i) => isUnknown(d) && !(i >= off && isUnknown(x.shape[i - off]!)))) throw new UnknownLengthError(`broadcasting an array of shape ${shapeStr(x.shape)} to shape ${shapeStr(shape)}`);
  const out = broadcastShapes(x.shape, shape);
  if (out.length !== shape.length || out.some((d, i) => d !== shape[i] && !(isUnknown(d) && isUnknown(shape[i]!)))) {
    throw new RangeError(`cannot broadcast an array of shape ${shapeStr(x.shape)} to shape ${shapeStr(shape)}`);
  }
  if (out.length === x.shape.length && out.every((d, i) => d === x.shape[i])) return x;
  return make('expand', [x], {}, x.dtype, shape, chunk ?? mergeChunks(shape, [x], x.dtype));
}

/** out[i] = x[starts + i*steps] per axis; the caller has clipped starts/steps/shape as NumPy does. */
export function slice(x: Node, starts: readonly number[], steps: readonly number[], shape: Shape): Node {
  // an axis whose length is known only at run time can only be taken whole (rebuilt at its computed length) or not at all
  shape.forEach((d, i) => {
    const whole = isUnknown(d) && isUnknown(x.shape[i]!) && starts[i] === 0 && steps[i] === 1;
    const ok = whole || (Number.isInteger(d) && d >= 0 && Number.isInteger(starts[i]) && Number.isInteger(steps[i]) && steps[i] !== 0 && (!isUnknown(x.shape[i]!) || d === 0));
    if (!ok) throw new UnknownLengthError(`a slice (start ${starts[i]}, step ${steps[i]}, length ${d}) of axis ${i} of an array of shape ${shapeStr(x.shape)}`);
  });
  if (shape.every((d, i) => d === x.shape[i]) && starts.every((s) => s === 0) && steps.every((s) => s === 1)) return x;
  const chunk = shape.map((d, i) => Math.max(1, Math.min(d, Math.ceil(x.chunk[i]! / Math.abs(steps[i]!)))));
  return make('slice', [x], { starts: [...starts], steps: [...steps] }, x.dtype, shape, chunk);
}

export function concat(xs: readonly Node[], axis: number, dtype: DType): Node {
  // The API checks known lengths at the call; lengths known only at run time are checked here when the graph is rebuilt.
  xs.forEach((x, i) => x.shape.forEach((d, j) => {
    const d0 = xs[0]!.shape[j]!;
    if (j !== axis && d !== d0 && !isUnknown(d) && !isUnknown(d0)) {
      throw new RangeError(`all the input array dimensions except for the concatenation axis must match exactly, but along dimension ${j}, the array at index 0 has size ${d0} and the array at index ${i} has size ${d}`);
    }
  }));
  const shape = [...xs[0]!.shape];
  shape[axis] = xs.reduce((a, n) => a + n.shape[axis]!, 0);
  const chunk = [...xs[0]!.chunk];
  chunk[axis] = Math.max(1, Math.max(...xs.map((n) => n.chunk[axis]!)));
  return make('concat', xs, { axis }, dtype, shape, chunk);
}

/** np.take(x, indices, axis): indices is an integer node whose values index `axis`. */
export function gather(x: Node, indices: Node, axis: number): Node {
  const shape = [...x.shape.slice(0, axis), ...indices.shape, ...x.shape.slice(axis + 1)];
  if (x.shape.length === 1 && x.shape[0]! > x.chunk[0]! && !hasUnknown(indices.shape) && sizeOf(indices.shape) > 0) return takeChunks(x, indices);
  // rows of an array chunked by rows only (a table of samples): the same, whole rows at a time
  if (axis === 0 && x.shape.length > 1 && x.shape[0]! > x.chunk[0]! && x.shape.every((d, i) => i === 0 || x.chunk[i] === d)
    && !hasUnknown(indices.shape) && !hasUnknown(x.shape) && sizeOf(indices.shape) > 0) return takeRows(x, indices);
  // chunked as the indices along their axes and as x along the others: the default grid could be the whole result
  const chunk = hasUnknown(shape) ? undefined : [...x.chunk.slice(0, axis), ...indices.chunk, ...x.chunk.slice(axis + 1)];
  return make('gather', [x, indices], { axis }, x.dtype, shape, chunk);
}

/** Boxes of every chunk of a grid, in C order of the chunk index. */
function gridBoxes(shape: Shape, chunk: Shape): [number, number][][] {
  let boxes: [number, number][][] = [[]];
  shape.forEach((d, i) => {
    const c = chunk[i]!, n = Math.ceil(d / c);
    boxes = boxes.flatMap((b) => Array.from({ length: n }, (_, k) => [...b, [k * c, Math.min(d, (k + 1) * c)] as [number, number]]));
  });
  return boxes;
}

/**
 * A gather from a 1-d array of several chunks, as routine tasks ('take',
 * runtime/routines.ts): each chunk of the result, chunked as the indices,
 * reads its indices and every chunk of x, each a chunk of its own (on the
 * pool, views of the shared heap: no copy of x is made). The kernel form
 * would read x as one box, which copies the whole array for every task.
 */
function takeChunks(x: Node, indices: Node): Node {
  const idx = indices.dtype === 'int64' ? indices : cast(indices, 'int64');
  const xs = gridBoxes(x.shape, x.chunk).map((box) => ({ input: 0, box }));
  const calls = gridBoxes(idx.shape, idx.chunk).map((box, c) => ({ routine: 'take', params: {}, reads: [{ input: 1, box }, ...xs], chunk: c }));
  return routine('take', [x, idx], calls, x.dtype, idx.shape, idx.chunk);
}

/** A gather of whole rows from an array chunked by rows only, as routine tasks ('takerows'): takeChunks' scheme, rows for elements. */
function takeRows(x: Node, indices: Node): Node {
  const idx = indices.dtype === 'int64' ? indices : cast(indices, 'int64');
  const xs = gridBoxes(x.shape, x.chunk).map((box) => ({ input: 0, box }));
  const rest = x.shape.slice(1);
  // a result chunk holds as many rows as a chunk of x (not as many as a chunk of indices: a row is many elements)
  const ichunk = idx.shape.length === 1 ? [Math.min(idx.chunk[0]!, x.chunk[0]!)] : idx.chunk;
  const calls = gridBoxes(idx.shape, ichunk).map((box, c) => ({ routine: 'takerows', params: {}, reads: [{ input: 1, box }, ...xs], chunk: c }));
  return routine('takerows', [x, idx], calls, x.dtype, [...idx.shape, ...rest], [...ichunk, ...rest]);
}

export function scan(op: ScanOp, x: Node, axis: number, dtype: DType): Node {
  // float16 steps as NumPy's accumulate: the terms cast to float16, each step rounded (runtime/exec.ts)
  const terms = dtype === 'float16' ? cast(x, 'float16') : x;
  return make('scan', [terms], { op, axis }, dtype, x.shape, terms.chunk);
}

/** Batched matmul; both operands already share batch dims: a [..., n, k], b [..., k, m]. */
export function matmul(a: Node, b: Node, dtype: DType): Node {
  // NumPy's half matmul and dot sum float32 products in float32 and round once
  if (dtype === 'float16') return cast(matmul(cast(a, 'float32'), cast(b, 'float32'), 'float32'), 'float16');
  const r = a.shape.length;
  const [k, kb] = [a.shape[r - 1]!, b.shape[r - 2]!];
  if (k !== kb && !isUnknown(k) && !isUnknown(kb)) throw new RangeError(`matmul: mismatch in the core dimension (size ${kb} is different from ${k})`);
  const shape = [...a.shape.slice(0, r - 1), b.shape[r - 1]!];
  const chunk = [...a.chunk.slice(0, r - 1), b.chunk[r - 1]!];
  // Rows of a by columns of b can make a block far past a chunk (an outer product of two long
  // vectors): then the output takes the automatic grid, and tasks read the inputs by box.
  const big = sizeOf(chunk) * INFO[dtype].bytes > 4 * AUTO_CHUNK_BYTES;
  return make('matmul', [a, b], {}, dtype, shape, big ? undefined : chunk);
}

/**
 * Boolean-mask selection along `axis`: mask (1-d, length x.shape[axis]) keeps
 * the positions where it is true. The output length along `axis` is unknown
 * (NaN) until the mask is computed; the runtime then replaces this node by its
 * stored result and rebuilds what depends on it (iterative tiling, as Mars).
 */
export function compress(x: Node, mask: Node, axis: number): Node<'compress'> {
  if (mask.dtype !== 'bool' || mask.shape.length !== 1) throw new TypeError('compress(): the mask must be a 1-d bool array');
  if (!isUnknown(x.shape[axis]!) && !isUnknown(mask.shape[0]!) && mask.shape[0] !== x.shape[axis]) {
    throw new RangeError(`boolean index did not match indexed array along axis ${axis}; size of axis is ${x.shape[axis]} but size of corresponding boolean axis is ${mask.shape[0]}`);
  }
  const shape = x.shape.map((d, i) => (i === axis ? NaN : d));
  return make('compress', [x, mask], { axis }, x.dtype, shape, x.chunk);
}

/**
 * The inverse of a flat integer index, for NumPy's `x[index] = v`, which
 * writes in index order: for each of `size` positions, the last i with
 * index[i] == position, or -1 (an entry out of range fails the run). Like a
 * compress it is computed where the index is known (runtime/resolve.ts), in
 * O(size + len(index)); comparing every position with every index would be
 * O(size x len(index)).
 */
/**
 * x sorted along `axis` (NaNs last, ties in their order: a stable sort), or
 * with `indices` the positions that sort it (argsort). Sorting is no kernel:
 * like a compress it is computed where the data is gathered
 * (runtime/resolve.ts), one line at a time.
 */
export function sort(x: Node, axis: number, indices: boolean): Node {
  if (axis < 0 || axis >= x.shape.length) throw new RangeError(`axis ${axis} is out of bounds for array of dimension ${x.shape.length}`);
  // the host sorts numbers: float16 lines as their (exact) float32 values
  if (x.dtype === 'float16') { const s = sort(cast(x, 'float32'), axis, indices); return indices ? s : cast(s, 'float16'); }
  return make('sort', [x], { axis, indices }, indices ? 'int64' : x.dtype, x.shape, x.chunk);
}

/**
 * A node computed by routine calls (runtime/routines.ts), each writing one
 * chunk of the result from boxes of the inputs: no kernel, never fused, always
 * stored. Every chunk of the grid is written by exactly one call.
 */
export function routine(
  name: string, inputs: readonly Node[], calls: readonly RoutineCall[], dtype: DType, shape: Shape, chunk: Shape,
): Node<'routine'> {
  const total = sizeOf(numChunks(shape, chunk));
  const written = new Set(calls.map((c) => c.chunk));
  if (written.size !== calls.length || written.size !== total || calls.some((c) => c.chunk < 0 || c.chunk >= total)) {
    throw new Error(`internal: routine ${name} writes ${written.size} distinct chunks in ${calls.length} calls, of ${total}`);
  }
  for (const c of calls) {
    for (const r of c.reads) {
      const of = r.input === inputs.length ? shape : inputs[r.input]?.shape;
      if (!of || r.box.length !== of.length || r.box.some(([lo, hi], d) => lo < 0 || hi < lo || hi > of[d]!)) {
        throw new Error(`internal: routine ${name} reads a box outside input ${r.input}`);
      }
    }
  }
  return make('routine', inputs, { name, calls }, dtype, shape, chunk);
}

/**
 * Quantiles (or the median) of each line along the last axis of `lines`,
 * q's axes first: like sort, computed on the host where the lines are
 * gathered (runtime/resolve.ts), so a line's length may be known only at
 * run time.
 */
export function quantile(lines: Node, spec: QuantileSpec): Node<'quantile'> {
  if (lines.shape.length === 0) throw new RangeError('axis 0 is out of bounds for array of dimension 0');
  const lead = lines.shape.slice(0, -1);
  const dtype = quantileDType(lines.dtype, spec);
  const chunk = [...spec.qShape, ...lead.map((d) => (isUnknown(d) ? 1 : d))];
  return make('quantile', [lines], { spec }, dtype, [...spec.qShape, ...lead], hasUnknown(lead) ? chunk : undefined);
}

/**
 * The singular values of each matrix over the last two axes, largest
 * first (float32 stays float32; other dtypes give float64): computed on the
 * host where the stack is gathered (runtime/resolve.ts, numerics/svd.ts).
 */
export function svdvals(x: Node): Node<'svdvals'> {
  noHalf(x);
  if (x.shape.length < 2) throw new RangeError(`${x.shape.length}-dimensional array given. Array must be at least two-dimensional`);
  const [m, n] = x.shape.slice(-2) as [number, number];
  const shape = [...x.shape.slice(0, -2), isUnknown(m) || isUnknown(n) ? NaN : Math.min(m, n)];
  const dtype = x.dtype === 'float32' ? 'float32' : 'float64';
  return make('svdvals', [x], {}, dtype, shape, hasUnknown(shape) ? shape.map((d) => (isUnknown(d) ? 1 : d)) : undefined);
}

/**
 * np.linalg's solvers and decompositions of each matrix over the last two
 * axes of `a` (and, for solve and lstsq, of the right-hand sides `b`, whose
 * leading axes the API has broadcast to a's): computed on the host where the
 * stack is gathered (runtime/resolve.ts, numerics/linalg.ts), all parts of a
 * result at once. The node holds them packed: shape [...stack, width], each
 * matrix's parts (`linalgParts`) flattened one after another along the last
 * axis, for the API to slice. float32 when every input is float32, else
 * float64, as NumPy's results. Shapes must be known (the API defers).
 */
export function linalg(spec: LinalgSpec, a: Node, b?: Node): Node<'linalg'> {
  noHalf(a);
  if (b) noHalf(b);
  const nd = a.shape.length;
  if (nd < 2) throw new LinAlgError(`${nd}-dimensional array given. Array must be at least two-dimensional`);
  const [m, n] = a.shape.slice(-2) as [number, number];
  if (SQUARE.has(spec.fn) && m !== n) throw new LinAlgError('Last 2 dimensions of the array must be square');
  const stack = a.shape.slice(0, -2);
  let k = 0;
  if (b) {
    const bs = b.shape;
    if (bs.length !== nd || bs[nd - 2] !== m || stack.some((d, i) => bs[i] !== d)) {
      throw new Error(`internal: linalg.${spec.fn}() right-hand side ${shapeStr(bs)} does not fit ${shapeStr(a.shape)}`);
    }
    k = bs[nd - 1]!;
  }
  const width = linalgParts(spec, m, n, k).reduce((w, p) => w + sizeOf(p), 0);
  const dtype = a.dtype === 'float32' && (!b || b.dtype === 'float32') ? 'float32' : 'float64';
  return make('linalg', b ? [a, b] : [a], { spec }, dtype, [...stack, width]);
}

/** NumPy's linalg has no float16 routines, and says so. */
function noHalf(x: Node): void {
  if (x.dtype === 'float16') throw new TypeError('array type float16 is unsupported in linalg');
}

/**
 * x itself, once the host has seen that it passes `test` ('nonzero': no
 * element is 0); otherwise the run fails with the error named `error` and
 * `message` when it reaches it (NumPy's average() raises ZeroDivisionError
 * for weights that sum to zero, a sum known only at run time).
 */
export function check(x: Node, test: Attrs['check']['test'], error: string, message: string): Node<'check'> {
  return make('check', [x], { test, error, message }, x.dtype, x.shape, x.chunk);
}

/**
 * An operation that needs its inputs' lengths to be built (a trace's
 * diagonal, einsum's contractions), over inputs whose lengths are known
 * only at run time: the run builds it (`build`) once they are known
 * (runtime/resolve.ts), as Mars tiles such operations iteratively. Its
 * dtype and shape (NaN where it follows an unknown length) are given; over
 * known lengths it is built at once. The build must keep that dtype, rank
 * and the lengths given (a rank that follows a length fails the run).
 */
export function defer(name: string, inputs: readonly Node[], build: (inputs: readonly Node[]) => Node, dtype: DType, shape: Shape): Node {
  // over known lengths there is nothing to wait for (and the run would never rebuild it): built now
  if (!inputs.some((i) => hasUnknown(i.shape))) return built(name, build(inputs), dtype, shape);
  return make('defer', inputs, { name, build }, dtype, shape, chunkGrid(shape.map((d) => (isUnknown(d) ? 1 : d)), INFO[dtype].bytes));
}

/** A deferred operation's build over known lengths, which must give the dtype and the known lengths it promised. */
function built(name: string, r: Node, dtype: DType, shape: Shape): Node {
  if (r.shape.length !== shape.length) {
    // NumPy's result has another rank for some lengths (a selection of one element squeezed away)
    throw new RangeError(`${name}(): over the lengths the run computed, the result has ${r.shape.length} dimensions, not the ${shape.length} it was built with (a length known only at run time changed its rank): execute() the array first`);
  }
  if (r.dtype !== dtype || r.shape.some((v, i) => !isUnknown(shape[i]!) && v !== shape[i])) {
    throw new Error(`internal: ${name}() built over known lengths gives ${r.dtype}${shapeStr(r.shape)}, not ${dtype}${shapeStr(shape)}`);
  }
  return r;
}

export function invert(index: Node, size: number): Node<'invert'> {
  if (index.shape.length !== 1 || index.dtype !== 'int64') throw new TypeError('invert(): the index must be a 1-d int64 array');
  if (!Number.isInteger(size)) throw new UnknownLengthError(`an assignment into an array of ${size} elements`);
  return make('invert', [index], { size }, 'int64', [size]);
}

/**
 * NumPy's unbuffered ufunc.at on a flat array: `base` with `values[i]` folded
 * into position `index[i]` by `op`, in index order, so repeated positions
 * accumulate. Each step computes in `compute` (values are of it) and casts
 * back to base's dtype, as ufunc.at casts into its array. Like invert it is
 * computed where index and values are gathered (runtime/resolve.ts), in
 * O(len(base) + len(index)); a kernel comparing every position with every
 * index would be O(len(base) x len(index)).
 */
export function scatter(op: BinaryOp, base: Node, index: Node, values: Node, compute: DType): Node<'scatter'> {
  if (base.shape.length !== 1 || index.shape.length !== 1 || values.shape.length !== 1) throw new TypeError('scatter(): base, index and values must be 1-d');
  if (index.dtype !== 'int64') throw new TypeError('scatter(): the index must be an int64 array');
  if (values.dtype !== compute) throw new TypeError(`scatter(): values of dtype ${values.dtype} for a ${compute} loop`);
  const [n, m] = [index.shape[0]!, values.shape[0]!];
  if (!isUnknown(n) && !isUnknown(m) && n !== m) throw new RangeError(`scatter(): ${m} values for ${n} positions`);
  if (!Number.isInteger(base.shape[0]!)) throw new UnknownLengthError(`an update into an array of ${base.shape[0]} elements`);
  return make('scatter', [base, index, values], { op, compute }, base.dtype, base.shape, base.chunk);
}

/**
 * searchsorted by binary search: for each of `keys`, the count of the 1-d
 * `sorted` (NaNs last) that come before it ('left') or not after it
 * ('right'), int64 of keys' shape. Both of one dtype. Computed on the host
 * where both are gathered (runtime/resolve.ts), in O(len(keys) log len(sorted)).
 */
export function search(sorted: Node, keys: Node, side: 'left' | 'right'): Node<'search'> {
  if (sorted.shape.length !== 1) throw new TypeError('search(): the sorted array must be 1-d');
  if (sorted.dtype !== keys.dtype) throw new TypeError(`search(): keys of dtype ${keys.dtype} in a ${sorted.dtype} array`);
  return make('search', [sorted, keys], { side }, 'int64', keys.shape, keys.chunk);
}

/**
 * The same operation over new inputs (whose unknown lengths are now known):
 * shape, dtype and chunk grid are inferred again, with the builders' checks.
 */
export function rebuild(n: Node, inputs: readonly Node[]): Node {
  if (inputs.length === n.inputs.length && inputs.every((x, i) => x === n.inputs[i])) return n;
  const [x, y, z] = inputs as [Node, Node, Node];
  const a = n.attrs as Attrs[OpKind] & Record<string, unknown>;
  const sameRankShape = (target: Shape, from: Shape): number[] => {
    // An unknown dim takes the length of the aligned input dim (expand/reshape targets).
    const off = from.length - target.length;
    return target.map((d, i) => (isUnknown(d) ? (from[i + off] ?? NaN) : d));
  };
  switch (n.op) {
    case 'source': case 'const': case 'iota': case 'random': return n;
    case 'unary': return unary((a as Attrs['unary']).op, x, n.dtype);
    case 'binary': return binary((a as Attrs['binary']).op, x, y, n.dtype);
    case 'where': return where(x, y, z);
    case 'cast': return cast(x, n.dtype);
    case 'reduce': { const r = a as Attrs['reduce']; return reduce(r.op, x, r.axes, r.keepdims, n.dtype); }
    case 'reshape': {
      let shape = [...n.shape];
      // (an input whose length is still unknown, when an earlier selection was computed, keeps the target as it is)
      if (hasUnknown(shape) && !hasUnknown(x.shape)) {
        const known = shape.filter((d) => !isUnknown(d)).reduce((p, d) => p * d, 1);
        const total = sizeOf(x.shape);
        shape = shape.map((d) => (isUnknown(d) ? (known === 0 ? 0 : total / known) : d));
        if (!shape.every(Number.isInteger)) throw new RangeError(`cannot reshape array of size ${total} into shape ${shapeStr(n.shape)}`);
      }
      return reshape(x, shape);
    }
    case 'permute': return permute(x, (a as Attrs['permute']).axes);
    case 'expand': return expand(x, sameRankShape(n.shape, x.shape));
    case 'slice': {
      const s = a as Attrs['slice'];
      return slice(x, s.starts, s.steps, n.shape.map((d, i) => (isUnknown(d) ? x.shape[i]! : d)));
    }
    case 'concat': return concat(inputs, (a as Attrs['concat']).axis, n.dtype);
    case 'gather': return gather(x, y, (a as Attrs['gather']).axis);
    case 'scan': { const s = a as Attrs['scan']; return scan(s.op, x, s.axis, n.dtype); }
    case 'matmul': return matmul(x, y, n.dtype);
    case 'compress': return compress(x, y, (a as Attrs['compress']).axis);
    case 'invert': return invert(x, (a as Attrs['invert']).size);
    case 'scatter': { const o = a as Attrs['scatter']; return scatter(o.op, x, y, z, o.compute); }
    case 'search': return search(x, y, (a as Attrs['search']).side);
    case 'sort': { const o = a as Attrs['sort']; return sort(x, o.axis, o.indices); }
    case 'quantile': return quantile(x, (a as Attrs['quantile']).spec);
    case 'svdvals': return svdvals(x);
    case 'linalg': return linalg((a as Attrs['linalg']).spec, x, inputs[1]);
    case 'check': { const c = a as Attrs['check']; return check(x, c.test, c.error, c.message); }
    case 'routine': {
      const r = a as Attrs['routine'];
      return routine(r.name, inputs, r.calls, n.dtype, n.shape, n.chunk);
    }
    case 'defer': {
      const d = a as Attrs['defer'];
      return defer(d.name, inputs, d.build, n.dtype, n.shape);
    }
    default: return n.op satisfies never;
  }
}

/** Topological order of everything the outputs depend on (inputs before users); a `leaf` node's own inputs are not visited (a stored tensor). */
export function topo(outputs: readonly Node[], leaf?: (n: Node) => boolean): Node[] {
  const seen = new Set<Node>();
  const order: Node[] = [];
  const stack: [Node, number][] = outputs.map((n) => [n, 0]);
  while (stack.length) {
    const top = stack[stack.length - 1]!;
    const [n, i] = top;
    if (i === 0 && seen.has(n)) {
      stack.pop();
      continue;
    }
    if (i < n.inputs.length && !(i === 0 && leaf?.(n))) {
      top[1]++;
      const c = n.inputs[i]!;
      if (!seen.has(c)) stack.push([c, 0]);
    } else {
      stack.pop();
      if (!seen.has(n)) {
        seen.add(n);
        order.push(n);
      }
    }
  }
  return order;
}
