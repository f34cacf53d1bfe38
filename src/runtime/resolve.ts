// Iterative tiling for lengths known only at run time (Mars's approach). A
// boolean-mask selection (`compress` node) has an unknown (NaN) length, so
// nothing that depends on it can be tiled yet. `resolve` runs the graph in
// stages: it computes the inputs of every compress whose inputs are known,
// compacts the selection into a stored chunk set of the now-known length,
// rebuilds the dependent nodes over it (shapes and checks inferred again),
// and repeats until no unknown length is left. The inverse of a scatter's
// index (`invert` node, for x[index] = v), sorted lines (`sort` node),
// binary searches (`search`) and ufunc.at's folds (`scatter`) are computed
// the same way, once their inputs are known. A 1-d sort of several chunks
// gathers nothing: it runs as stages of routine tasks (./routines.ts) on
// the pool or the mesh, every chunk sorted on its own, then each output
// chunk merged from the slices of the sorted chunks that hold its ranks,
// which the host brackets from a table of the ranks of samples of the sorted
// chunks (positions only: it reads no sorted value).
// Nor do ufunc.at's associative folds (add, minimum, maximum: bincount's and
// histogram's counts too) or a search with 1-d keys, when an input has
// several chunks (./scatter.ts): a fold as partial rows of fixed groups of
// the values, then a combine per output chunk; a search as one task per
// chunk of keys reading every chunk of the sorted array.
// The quantiles of a 1-d array of several chunks are found by selection
// (./select.ts) before their input is run, so a lazy input is never stored. A `defer` node (an
// operation that needs lengths to be built: a reversal, a split, a repeat
// by counts computed in the run) is built in the rebuild once its inputs'
// lengths are known; what it builds may read nodes computed in an earlier
// stage, which the next pass substitutes. The caller then runs the concrete graph as usual.
// In: output Nodes (possibly with unknown lengths). Out: equivalent Nodes
// with every length known (the same Nodes when there was nothing to resolve).

import { ARRAY_CTOR, INFO, type TypedArray } from '../graph/dtype.js';
import { decodeHalf, halfBits, halfBitsOf } from '../graph/half.js';
import { type Attrs, type Node, type RoutineCall, binary, constant, expand, gather, iota, rebuild, reduce, routine, scatter, source, topo } from '../graph/node.js';
import { resolveBinary } from '../graph/ops.js';
import { quantileLine } from '../numerics/quantile.js';
import { selectQuantiles, selects } from './select.js';
import { binaryScalar, castScalar } from '../ir/scalar.js';
import { linalgParts } from '../graph/linalg.js';
import { linalgCompute } from '../numerics/linalg.js';
import { singularValues } from '../numerics/svd.js';
import { chunkGrid, hasUnknown, numChunks, shapeStr, sizeOf } from '../graph/shape.js';
import { chunkBox } from '../tile/tile.js';
import type { RunOptions } from './runtime.js';
import { now } from './debug.js';
import { RADIX_LINE, isSortable, radixKeys, radixLine } from './routines.js';
import { foldsInChunks, routes, rowDtype } from './scatter.js';

/** What resolve needs from the runtime (the local one, or later a mesh coordinator). */
export interface Store {
  run(nodes: readonly Node[], opts: RunOptions): Promise<unknown>;
  read(n: Node): TypedArray;
  put(n: Node, data: TypedArray): void;
  /** Whether `n` is stored (its graph is not walked again). */
  has?(n: Node): boolean;
  /** A view of chunk `c` of stored `n` (no copy): how the host reads a small stored summary (counts, a sort's ranks). */
  chunkView?(n: Node, c: number): TypedArray;
  /** Hands stored `from`'s data to source node `to` (same layout). */
  move?(from: Node, to: Node): void;
  /** Frees stored `n` at once. */
  drop?(n: Node): void;
  /** Whether stored `n` is held on mesh workers (kept by a stage), not here. */
  remoteOf?(n: Node): unknown;
}

/** Operations computed on the host where their inputs are gathered, never as kernels: each gives the stored source node holding its result. */
const HOST_OPS: Readonly<Record<string, (n: Node, store: Store) => Node>> = {
  compress: compact, invert: inverse, scatter: scattered, search: searched, sort: sorted, quantile: quantiles, svdvals, linalg, check: checked,
};
const isHostOp = (n: Node): boolean => Object.hasOwn(HOST_OPS, n.op);

/** Quantile nodes whose brackets could not be narrowed: the whole-line path computes them. */
const unselectable = new WeakSet<Node>();
/** host-computed node → the stored source node holding its result. */
const computed = new WeakMap<Node, Node>();
let counter = 0;

export async function resolve(outputs: readonly Node[], store: Store, opts: RunOptions): Promise<Node[]> {
  let cur = [...outputs];
  const leaf = (n: Node): boolean => store.has?.(n) ?? false;
  for (;;) {
    cur = substitute(cur, leaf);
    const order = topo(cur, leaf);
    // a deferred build may hand back nodes computed already (captured before the run): substituted on the next pass
    if (order.some((n) => computed.has(n))) continue;
    if (!order.some((n) => hasUnknown(n.shape) || isHostOp(n))) return cur;
    // The host computes a node once nothing it reads waits on another host computation.
    const blocked = new Set<Node>();
    for (const n of order) if (n.inputs.some((i) => isHostOp(i) || blocked.has(i))) blocked.add(n);
    let frontier = order.filter((n) => isHostOp(n) && !computed.has(n) && !blocked.has(n));
    // 1-d quantiles of several chunks by selection, before their input is run (it may be a lazy draw, never stored)
    for (const f of frontier.filter((q) => selects(q, store) && !unselectable.has(q))) {
      const t0 = now();
      const s = await selectQuantiles(f, store, opts);
      opts.execution?.hostOp('quantile.select', t0, now(), { node: f.id, shape: shapeStr(f.shape) });
      if (s) computed.set(f, s); else unselectable.add(f);
    }
    frontier = frontier.filter((f) => !computed.has(f));
    if (!frontier.length) continue;
    if (!frontier.length) {
      const stuck = order.filter((n) => hasUnknown(n.shape) && !n.inputs.some((i) => hasUnknown(i.shape)));
      throw new Error(`internal: unknown lengths left but no selection can be computed (${stuck.map((n) => `${n.op === 'defer' ? (n.attrs as { name: string }).name : n.op}${shapeStr(n.shape)}`).join(', ')})`);
    }
    // (a chunked selection of positions reads its mask alone; a chunked count its index and values)
    const reads = (f: Node): readonly Node[] => (compressesInChunks(f, store) && selectsPositions(f) ? [f.inputs[1]!]
      : countsInChunks(f, store) ? f.inputs.slice(0, 2) : f.inputs);
    // what routine tasks read stays where it is computed (on a mesh, its workers); what the host computes on comes here
    const chunked = frontier.filter((f) => chunkedOp(f, store));
    await stageAll([...new Set(chunked.flatMap(reads))], store, opts, true);
    await stageAll([...new Set(frontier.filter((f) => !chunked.includes(f)).flatMap(reads))], store, opts);
    for (const f of frontier) {
      const inChunks = chunkedOp(f, store);
      if (inChunks) { computed.set(f, await inChunks(f, store, opts)); continue; }
      const t0 = now();
      computed.set(f, HOST_OPS[f.op]!(f, store));
      opts.execution?.hostOp(f.op, t0, now(), { node: f.id, shape: shapeStr(f.shape) });
    }
    // a deferred build reads the values of the selections it waits on here: those kept on mesh workers come here
    const read = frontier.filter((f) => order.some((d) => d.op === 'defer' && d.inputs.includes(f))).map((f) => computed.get(f)!);
    await stageAll(read.filter((r) => store.remoteOf?.(r)), store, opts);
  }
}

/** Rebuilds every node over the computed selections, inputs first. */
function substitute(outputs: readonly Node[], leaf: (n: Node) => boolean): Node[] {
  const map = new Map<Node, Node>();
  for (const n of topo(outputs, leaf)) {
    const done = computed.get(n);
    // (a result kept on mesh workers goes with its execution: a later one computes it again)
    if (done && !leaf(done)) computed.delete(n);
    else if (done) { map.set(n, done); continue; }
    const inputs = n.inputs.map((i) => map.get(i) ?? i);
    map.set(n, rebuild(n, inputs));
  }
  return outputs.map((n) => map.get(n) ?? n);
}

/** The inverse index itself: position -> the last entry of the index that names it, or -1. */
function inverse(n: Node, store: Store): Node {
  const idx = store.read(n.inputs[0]!) as BigInt64Array;
  const size = (n.attrs as { size: number }).size;
  const out = new BigInt64Array(size).fill(-1n);
  for (let i = 0; i < idx.length; i++) {
    const j = Number(idx[i]);
    if (!(j >= 0 && j < size)) throw new RangeError(`index out of bounds in an assignment: entry ${i} of an index known only at run time lies outside its axis`);
    out[j] = BigInt(i);
  }
  const s = source(`inverse${counter++}`, 'int64', [size], chunkGrid([size], 8));
  store.put(s, out);
  return s;
}

/**
 * The flat array after ufunc.at: each value folded into its position in index
 * order (positions named twice accumulate). A sum into its own dtype adds
 * straight into the typed array (whose store rounds or wraps as the dtype
 * does; int64 through float64 counts while no sum can reach 2**53).
 */
function scattered(n: Node, store: Store): Node {
  const [base, index, values] = n.inputs as [Node, Node, Node];
  const { op, compute } = n.attrs as Attrs['scatter'];
  const d = n.dtype;
  const half = (t: TypedArray, h: boolean): TypedArray => (h ? decodeHalf(t as Uint16Array) : t);
  const out = half(store.read(base), d === 'float16');
  const idx = store.read(index) as BigInt64Array;
  const vs = half(store.read(values), compute === 'float16');
  const size = out.length;
  // positions from the int64 words' halves (little-endian, as WASM's memory is): no bigint per entry
  const pos = new Int32Array(idx.length);
  const words = new Int32Array(idx.buffer, idx.byteOffset, 2 * idx.length);
  for (let i = 0; i < idx.length; i++) {
    const j = words[2 * i]!;
    if (j < 0 || j >= size || words[2 * i + 1] !== 0) throw new RangeError(`index ${idx[i]} is out of bounds for axis 0 with size ${size}`);
    pos[i] = j;
  }
  if (op === 'add' && compute === d && d !== 'bool' && d !== 'float16') {
    if (d !== 'int64') {
      const o = out as Float64Array, v = vs as Float64Array;
      for (let i = 0; i < pos.length; i++) o[pos[i]!]! += v[i]!;
    } else {
      const o = out as BigInt64Array, v = vs as BigInt64Array;
      // values that are int32s (the high word the low word's sign) summed as float64s while no sum can reach 2**53
      const vw = new Int32Array(v.buffer, v.byteOffset, 2 * v.length);
      let bound = 0;
      for (let i = 0; i < v.length && bound < 2 ** 53; i++) bound = vw[2 * i + 1] === vw[2 * i]! >> 31 ? bound + Math.abs(vw[2 * i]!) : Infinity;
      if (bound < 2 ** 53) {
        const acc = new Float64Array(size);
        for (let i = 0; i < pos.length; i++) acc[pos[i]!]! += vw[2 * i]!;
        for (let j = 0; j < size; j++) if (acc[j]) o[j] = BigInt.asIntN(64, o[j]! + BigInt(acc[j]!));
      } else {
        for (let i = 0; i < pos.length; i++) o[pos[i]!] = BigInt.asIntN(64, o[pos[i]!]! + v[i]!);
      }
    }
  } else {
    const res = resolveBinary(op, compute).result;
    const o = out as unknown as (number | bigint)[], v = vs as unknown as (number | bigint)[];
    for (let i = 0; i < pos.length; i++) {
      const j = pos[i]!;
      o[j] = castScalar(binaryScalar(op, castScalar(o[j]!, d, compute), v[i]!, compute), res, d);
    }
  }
  const s = source(`scattered${counter++}`, d, base.shape, base.chunk);
  store.put(s, d === 'float16' ? halfBitsOf(out as Float32Array) : out);
  return s;
}

/** searchsorted's indices by binary search, in the order lineOrder sorts (NaNs last). */
function searched(n: Node, store: Store): Node {
  const [a, k] = n.inputs as [Node, Node];
  const side = (n.attrs as Attrs['search']).side;
  const f16 = a.dtype === 'float16';
  const xs = f16 ? decodeHalf(store.read(a) as Uint16Array) : store.read(a);
  const ks = f16 ? decodeHalf(store.read(k) as Uint16Array) : store.read(k);
  const order = lineOrder(a.dtype === 'int64');
  const out = new BigInt64Array(ks.length);
  const len = xs.length;
  for (let i = 0; i < ks.length; i++) {
    const key = ks[i]!;
    // the first position whose value is not before the key ('left') or is after it ('right')
    let lo = 0, hi = len;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const c = order(xs[mid]!, key);
      if (side === 'left' ? c < 0 : c <= 0) lo = mid + 1;
      else hi = mid;
    }
    out[i] = BigInt(lo);
  }
  const s = source(`searched${counter++}`, 'int64', k.shape, k.chunk);
  store.put(s, out);
  return s;
}

/**
 * The sorted lines themselves (or the positions that sort them): each line
 * along the axis sorted on its own, NaNs last (NumPy's order), ties kept in
 * their order (NumPy's kind='stable'): a long line by radix over keys that
 * order as the values do (radixLine), a short one by JS's stable sort.
 */
function sorted(n: Node, store: Store): Node {
  const x = n.inputs[0]!;
  const { axis, indices } = n.attrs as { axis: number; indices: boolean };
  const xs = store.read(x);
  const len = x.shape[axis]!;
  const inner = sizeOf(x.shape.slice(axis + 1));
  const outer = sizeOf(x.shape.slice(0, axis));
  const out = new ARRAY_CTOR[n.dtype](sizeOf(x.shape)) as TypedArray;
  const idx = new Array<number>(len);
  const vals = new Array<number | bigint>(len);
  const order = lineOrder(x.dtype === 'int64');
  const cmp = (a: number, b: number): number => order(vals[a]!, vals[b]!);
  const radix = len >= RADIX_LINE ? radixKeys(x.dtype, xs) : undefined;
  for (let o = 0; o < outer; o++) {
    for (let i = 0; i < inner; i++) {
      const base = o * len * inner + i;
      if (radix) { radixLine(radix, xs, out, indices, base, len, inner); continue; }
      for (let k = 0; k < len; k++) { idx[k] = k; vals[k] = xs[base + k * inner]!; }
      idx.sort(cmp);
      for (let k = 0; k < len; k++) (out as unknown as (number | bigint)[])[base + k * inner] = indices ? BigInt(idx[k]!) : vals[idx[k]!]!;
    }
  }
  const s = source(`sorted${counter++}`, n.dtype, x.shape, chunkGrid(x.shape, INFO[n.dtype].bytes));
  store.put(s, out);
  return s;
}

/** How host op `n` runs as routine tasks on the pool or the mesh instead of gathered, where it can. */
function chunkedOp(n: Node, store: Store): ((n: Node, store: Store, opts: RunOptions) => Promise<Node>) | undefined {
  if (sortsInChunks(n, store)) return sortInChunks;
  if (quantilesInLines(n, store)) return quantileLines;
  if (sortsLines(n, store)) return sortLines;
  if (compressesInChunks(n, store)) return compressInChunks;
  if (n.op === 'check' && sizeOf(numChunks(n.inputs[0]!.shape, n.inputs[0]!.chunk)) > 1) return checkInChunks;
  if (n.op === 'invert' && store.move && store.chunkView && n.inputs[0]!.shape[0]! > n.inputs[0]!.chunk[0]!) return invertInChunks;
  if (scattersInChunks(n, store)) return scatterInChunks;
  if (searchesInChunks(n, store)) return searchInChunks;
  return undefined;
}

/**
 * The inverse of an index of several chunks: for each position the last
 * entry naming it, which is the maximum of the entries' own positions
 * scattered there (np.maximum.at over -1s), folded in chunks; an entry
 * outside the axis fails the run with NumPy's IndexError text.
 */
async function invertInChunks(n: Node, store: Store, opts: RunOptions): Promise<Node> {
  const index = n.inputs[0]!;
  const size = (n.attrs as Attrs['invert']).size;
  const base = expand(constant(-1, 'int64'), [size], chunkGrid([size], 8));
  const at = iota(index.shape, 0, index.chunk);
  const m = scatter('maximum', base, index, at, 'int64');
  if (!scattersInChunks(m, store)) {
    const t0 = now();
    const s = inverse(n, store);
    opts.execution?.hostOp('invert', t0, now(), { node: n.id, shape: shapeStr(n.shape) });
    return s;
  }
  try {
    return await scatterInChunks(m, store, opts);
  } catch (e) {
    // the index holds -2**52 where an entry lay outside its axis (api/indexing.ts flatIndex): its value says nothing
    if (e instanceof RangeError && /out of bounds/.test(e.message)) {
      throw new RangeError('index out of bounds in an assignment: an entry of an index known only at run time lies outside its axis');
    }
    throw e;
  }
}

/** Runs routine node `node`: on the mesh with a session, else on the local pool. */
async function stage(node: Node, store: Store, opts: RunOptions, keep = false): Promise<void> {
  await stageAll([node], store, opts, keep);
}

/**
 * Runs `nodes` into the store: on the mesh with a session, else on the
 * local pool. With `keep`, a mesh keeps them on the workers that computed
 * them (JobOptions.keep) until the execution ends: the next stage reads
 * them there, peer to peer, and the host never holds them; without, they
 * come here for the host to read (counts, split positions).
 */
async function stageAll(nodes: readonly Node[], store: Store, opts: RunOptions, keep = false): Promise<void> {
  if (!nodes.length) return;
  if (!opts.session) { await store.run(nodes, opts); return; }
  const job = { ...(opts.debug !== undefined ? { debug: opts.debug } : {}), ...(keep && opts.execution ? { keep: opts.execution } : {}) };
  await opts.session.runNodes(nodes, undefined, job);
}

/** Whether sort node `n` runs as routine tasks: a 1-d array of more than one chunk, of a dtype the radix sort orders. */
function sortsInChunks(n: Node, store: Store): boolean {
  const x = n.inputs[0];
  if (n.op !== 'sort' || !store.chunkView || !store.move || x === undefined) return false;
  return x.shape.length === 1 && x.shape[0]! > x.chunk[0]! && isSortable(x.dtype);
}

/** Whether compress node `n` selects positions (an index grid along a 1-d axis): np.flatnonzero's. */
const selectsPositions = (n: Node): boolean => n.inputs[0]!.op === 'iota' && n.inputs[0]!.shape.length === 1;

/** Whether compress node `n` runs as routine tasks: its data spans more than one chunk. */
function compressesInChunks(n: Node, store: Store): boolean {
  const x = n.inputs[0];
  if (n.op !== 'compress' || !store.chunkView || !store.move || x === undefined || sizeOf(x.shape) === 0) return false;
  return sizeOf(numChunks(x.shape, x.chunk)) > 1 || sizeOf(numChunks(n.inputs[1]!.shape, n.inputs[1]!.chunk)) > 1;
}

/**
 * A boolean selection along an axis in two stages of routine tasks, on the
 * pool or the mesh: 'count' counts the mask's true entries in each segment
 * of the data's chunk grid along the axis; the host adds them up (one number
 * per segment), and so knows the result's length and where each segment's
 * kept elements go; then 'compact' writes each chunk of the result (the
 * data's chunking, along the axis too) from the segments that hold its
 * ranks, skipping those of the first segment that an earlier chunk took.
 * The mask is computed once, in the first stage, and kept for the second.
 * A selection of positions (an index grid along a 1-d axis, which
 * np.flatnonzero and np.nonzero select) writes them from the masks alone.
 */
async function compressInChunks(n: Node, store: Store, opts: RunOptions): Promise<Node> {
  const [x, m] = n.inputs as [Node, Node];
  const axis = (n.attrs as Attrs['compress']).axis;
  const len = x.shape[axis]!, c = x.chunk[axis]!, k = Math.ceil(len / c);
  // the positions themselves (np.flatnonzero's 0, 1, 2, ...): written by the routine, not computed to be compacted
  const positions = selectsPositions(n);
  const seg = (j: number): [number, number] => [j * c, Math.min(len, (j + 1) * c)];
  const counts = routine('compress.count', [m], Array.from({ length: k }, (_, j) => ({
    routine: 'count', params: {}, reads: [{ input: 0, box: [seg(j)] }], chunk: j,
  })), 'int64', [k], [1]);
  await stage(counts, store, opts);
  // where each segment's kept elements start in the result
  const start = [0];
  for (let j = 0; j < k; j++) start.push(start[j]! + Number((store.chunkView!(counts, j) as BigInt64Array)[0]));
  store.drop?.(counts);
  const total = start[k]!;
  const shape = x.shape.map((d, i) => (i === axis ? total : d));
  const chunk = x.chunk.map((d, i) => (i === axis ? Math.max(1, Math.min(total, c)) : d));
  const s = source(`selection${counter++}`, x.dtype, shape, chunk);
  if (sizeOf(shape) === 0) { store.put(s, new ARRAY_CTOR[x.dtype](0) as TypedArray); return s; }
  const calls: RoutineCall[] = [];
  const grid = numChunks(shape, chunk);
  for (let o = 0; o < sizeOf(grid); o++) {
    const box = chunkBox(shape, chunk, o);
    const [r0, r1] = box[axis]!;
    const reads = [];
    let skip = -1;
    for (let j = 0; j < k; j++) {
      if (start[j + 1]! <= r0 || start[j]! >= r1) continue;
      if (skip < 0) skip = r0 - start[j]!;
      reads.push({ input: 0, box: box.map((r, i) => (i === axis ? seg(j) : r)) }, { input: 1, box: [seg(j)] });
    }
    calls.push(positions
      ? { routine: 'positions', params: { skip }, reads: reads.filter((r) => r.input === 1).map((r) => ({ ...r, input: 0 })), chunk: o }
      : { routine: 'compact', params: { axis, skip }, reads, chunk: o });
  }
  const node = positions
    ? routine('compress.positions', [m], calls, x.dtype, shape, chunk)
    : routine('compress.compact', [x, m], calls, x.dtype, shape, chunk);
  await stage(node, store, opts, true);
  store.move!(node, s);
  return s;
}

/** Elements of an output chunk of the line sort, at least (a chunk then holds whole lines, however long the input's chunks are along the axis). */
const LINES_CHUNK = 1 << 20;

/** Whether sort node `n` sorts the lines of an n-d array of several chunks as routine tasks: lines short enough for a chunk to hold some whole. */
function sortsLines(n: Node, store: Store): boolean {
  const x = n.inputs[0];
  if (n.op !== 'sort' || !store.move || x === undefined || x.shape.length < 2 || !isSortable(x.dtype) || sizeOf(x.shape) === 0) return false;
  const axis = (n.attrs as Attrs['sort']).axis;
  return sizeOf(numChunks(x.shape, x.chunk)) > 1 && x.shape[axis]! <= Math.max(LINES_CHUNK, sizeOf(x.chunk));
}

/**
 * The lines of an n-d array along an axis, each sorted on its own (or its
 * positions), as routine tasks 'lines': the result is chunked as the input
 * but for whole lines along the axis, its other axes' chunks narrowed (the
 * leading ones first) so that a chunk stays near the input's chunk size;
 * each task reads its box of the input (copied when it spans chunks along
 * the axis: a chunk's worth) and writes its chunk.
 */
async function sortLines(n: Node, store: Store, opts: RunOptions): Promise<Node> {
  const x = n.inputs[0]!;
  const { axis, indices } = n.attrs as Attrs['sort'];
  const chunk = lineChunks(x, axis);
  const calls: RoutineCall[] = [];
  for (let o = 0; o < sizeOf(numChunks(x.shape, chunk)); o++) {
    calls.push({ routine: 'lines', params: { axis, indices }, reads: [{ input: 0, box: chunkBox(x.shape, chunk, o) }], chunk: o });
  }
  const node = routine('sort.lines', [x], calls, n.dtype, x.shape, chunk);
  await stage(node, store, opts, true);
  const s = source(`sorted${counter++}`, n.dtype, x.shape, chunk);
  store.move!(node, s);
  return s;
}

/**
 * Whether quantile node `n` runs as routine tasks: lines of an n-d array of
 * several chunks (a 1-d one is selected: ./select.ts), short enough for a
 * chunk to hold some whole.
 */
function quantilesInLines(n: Node, store: Store): boolean {
  const x = n.inputs[0];
  if (n.op !== 'quantile' || !store.move || x === undefined || x.shape.length < 2 || !isSortable(x.dtype) || sizeOf(x.shape) === 0) return false;
  return sizeOf(numChunks(x.shape, x.chunk)) > 1 && x.shape[x.shape.length - 1]! <= Math.max(LINES_CHUNK, sizeOf(x.chunk));
}

/** The lines' chunking for a routine over whole lines along `axis`: the input's, narrowed on the other axes (leading first) to keep near its chunk size. */
function lineChunks(x: Node, axis: number): number[] {
  const chunk = x.chunk.map((c, i) => (i === axis ? x.shape[axis]! : c));
  const budget = Math.max(sizeOf(x.chunk), x.shape[axis]!);
  for (let i = 0; i < chunk.length && sizeOf(chunk) > budget; i++) {
    if (i !== axis) chunk[i] = Math.max(1, Math.floor(chunk[i]! / Math.ceil(sizeOf(chunk) / budget)));
  }
  return chunk;
}

/**
 * Quantiles of the lines along the last axis of an n-d array, as routine
 * tasks 'quantiles': each reads whole lines (a box of lineChunks) and writes
 * their quantiles, q's axes whole in every chunk of the result.
 */
async function quantileLines(n: Node, store: Store, opts: RunOptions): Promise<Node> {
  const x = n.inputs[0]!;
  const { spec } = n.attrs as Attrs['quantile'];
  const nd = x.shape.length;
  const lines = lineChunks(x, nd - 1);
  const chunk = [...n.shape.slice(0, n.shape.length - (nd - 1)), ...lines.slice(0, -1)];
  const params = { method: spec.method, qs: [...spec.qs], qShape: [...spec.qShape], qKind: spec.qKind, omitNaN: spec.omitNaN ?? false };
  const calls: RoutineCall[] = [];
  for (let o = 0; o < sizeOf(numChunks(n.shape, chunk)); o++) {
    const box = chunkBox(n.shape, chunk, o).slice(n.shape.length - (nd - 1));
    calls.push({ routine: 'quantiles', params, reads: [{ input: 0, box: [...box, [0, x.shape[nd - 1]!]] }], chunk: o });
  }
  const node = routine('quantile.lines', [x], calls, n.dtype, n.shape, chunk);
  await stage(node, store, opts, true);
  const s = source(`quantiles${counter++}`, n.dtype, n.shape, chunk);
  store.move!(node, s);
  return s;
}

/**
 * Sorted runs a chunked sort makes at most (each a task of every stage):
 * locally, fewer and longer runs merge in fewer passes; on a mesh, a run of
 * one chunk is sorted where its chunk was computed, where a longer one
 * would fetch its other chunks.
 */
const maxRuns = (opts: RunOptions): number => (opts.session ? 128 : 64);

/**
 * Samples taken from each sorted run of c elements, for k runs: about 4096
 * in all, so that the rank table (k rows of k·S int32, which stays where
 * its rows are computed) is at most 2 MiB (128 runs, on a mesh), and at
 * most one per 64 elements of a run, so that short runs are not mostly
 * samples; at least 16. The merge's extra work stays small: the runs'
 * sample grids are shifted against each other (routines.ts samplePos), so
 * between two samples next in the total order lie about n/(k·S) elements
 * when the runs are drawn alike (n/S at worst: every run's gap at once),
 * and a bracket overshoots its chunk by one such gap at each end, about
 * 2/S of a chunk's n/k (2·k/S chunks at worst).
 */
const samplesPerRun = (k: number, c: number): number => Math.max(16, Math.min(1024, Math.ceil(4096 / k), Math.floor(c / 64)));

/**
 * A 1-d stable sort (or argsort) in four stages of routine tasks, on the
 * local pool or, with a session, on the mesh, as a sample-based range
 * partition: 'sort' sorts every run (one chunk, or a few consecutive ones
 * when there are more than maxRuns) on its own (argsort's runs as keys and
 * positions); 'sample' takes S evenly spaced keys of each; 'rank' counts,
 * for every sample, the elements of one run that come before it in the
 * total order (key, run, position). The host reads only that table of
 * counts (never a value, so the runs may stay where they were sorted): a
 * sample's global rank is its column's sum, and each column says where the
 * sample falls in every run. For each chunk of the output's regular grid
 * (one per run) it brackets the chunk's ranks between two samples (or the
 * ends), and 'merge' merges the runs' slices between them, skipping the
 * elements ranked before the chunk. Ties order by run, then position:
 * input order, NumPy's kind='stable', whatever the chunking.
 */
async function sortInChunks(n: Node, store: Store, opts: RunOptions): Promise<Node> {
  const x = n.inputs[0]!;
  const indices = (n.attrs as Attrs['sort']).indices;
  // runs of whole chunks, at most maxRuns of them: every rank task reads every run's samples
  const len = x.shape[0]!, c = x.chunk[0]! * Math.ceil(Math.ceil(len / x.chunk[0]!) / maxRuns(opts)), k = Math.ceil(len / c);
  const S = samplesPerRun(k, c);
  const span = (lo: number, hi: number) => (indices ? [[0, 2], [lo, hi]] as const : [[lo, hi]] as const);
  const run = (i: number) => span(i * c, Math.min(len, (i + 1) * c));
  const keyType = indices ? 'int64' : x.dtype;
  const localCalls: RoutineCall[] = Array.from({ length: k }, (_, i) => ({
    routine: 'sort', params: { indices }, reads: [{ input: 0, box: [[i * c, Math.min(len, (i + 1) * c)]] }], chunk: i,
  }));
  const local = indices
    ? routine('sort.local', [x], localCalls, 'int64', [2, len], [2, c])
    : routine('sort.local', [x], localCalls, x.dtype, [len], [c]);
  await stage(local, store, opts, true);
  const samples = routine('sort.sample', [local], Array.from({ length: k }, (_, i) => ({
    routine: 'sample', params: { indices, count: S, run: i, runs: k }, reads: [{ input: 0, box: run(i) }], chunk: i,
  })), keyType, [k * S], [S]);
  await stage(samples, store, opts, true);
  const rankParams = { indices, count: S, runLength: c, length: len };
  const ranks = routine('sort.rank', [local, samples], Array.from({ length: k }, (_, i) => ({
    routine: 'rank', params: { ...rankParams, run: i },
    reads: [{ input: 0, box: run(i) }, { input: 1, box: [[0, k * S]] }], chunk: i,
  })), 'int32', [k, k * S], [1, k * S]);
  await stage(ranks, store, opts, true);
  store.drop?.(samples);
  const lens = Array.from({ length: k }, (_, i) => Math.min(len, (i + 1) * c) - i * c);
  const table = await rankTable(ranks, store, opts);
  const t0 = now();
  const cuts = brackets(table.rank, len, c);
  opts.execution?.hostOp('sort.brackets', t0, now(), { node: n.id, shape: shapeStr(n.shape), chunks: k });
  const count = k * S;
  const place = await table.places(cuts.flatMap((b) => [b.lower, b.upper]).filter((q) => q >= 0 && q < count));
  store.drop?.(ranks);
  // where sample q (or a sentinel: -1 every run's start, `count` every run's end) falls in run i
  const at = (q: number, i: number): number => (q < 0 ? 0 : q === count ? lens[i]! : place(q, i));
  const mergeCalls: RoutineCall[] = cuts.map(({ lower, upper, skip }, o) => {
    const reads = [];
    for (let i = 0; i < k; i++) {
      const [from, to] = [at(lower, i), at(upper, i)];
      if (to > from) reads.push({ input: 0, box: span(i * c + from, i * c + to) });
    }
    return { routine: 'merge', params: { indices, skip }, reads, chunk: o };
  });
  const merged = routine('sort.merge', [local], mergeCalls, n.dtype, [len], [c]);
  await stage(merged, store, opts, true);
  // the result as a source: the sorted runs go once nothing else holds them, not when the result does
  const s = source(`sorted${counter++}`, n.dtype, [len], [c]);
  store.move!(merged, s);
  return s;
}

/**
 * The sort's rank table as the host reads it: row i holds, for every
 * sample, how many elements of run i come before it in the total order, so
 * a column's sum is the sample's global rank (`rank`), and the column itself
 * where the sample falls in every run (`places`, asked for the samples that
 * bracket a chunk). Held here, the rows are read in place; held on mesh
 * workers, the sums are a reduction computed there and only the asked-for
 * columns come here: k·S + k·(2 per chunk) numbers rather than k²·S.
 */
async function rankTable(ranks: Node, store: Store, opts: RunOptions): Promise<{
  rank: Float64Array; places(qs: readonly number[]): Promise<(q: number, run: number) => number>;
}> {
  const [k, count] = ranks.shape as [number, number];
  const rank = new Float64Array(count);
  if (!store.remoteOf?.(ranks)) {
    const rows = Array.from({ length: k }, (_, i) => store.chunkView!(ranks, i) as Int32Array);
    for (const row of rows) for (let q = 0; q < count; q++) rank[q]! += row[q]!;
    return { rank, places: async () => (q, i) => rows[i]![q]! };
  }
  const sums = reduce('sum', ranks, [0], false, 'int64');
  await stageAll([sums], store, opts);
  store.read(sums).forEach((v, q) => { rank[q] = Number(v); });
  store.drop?.(sums);
  return {
    rank,
    async places(qs) {
      const wanted = [...new Set(qs)].sort((a, b) => a - b);
      const col = new Map(wanted.map((q, j) => [q, j]));
      if (!wanted.length) return () => 0;
      const idx = source(`samples${counter++}`, 'int64', [wanted.length], [wanted.length]);
      store.put(idx, BigInt64Array.from(wanted, BigInt));
      const picked = gather(ranks, idx, 1);
      await stageAll([picked], store, opts);
      const t = store.read(picked) as Int32Array;
      store.drop?.(picked);
      return (q, i) => t[i * wanted.length + col.get(q)!]!;
    },
  };
}

/**
 * The samples that bracket each output chunk, from their global ranks
 * alone: with two sentinels (-1, rank 0: every run's start; `rank.length`,
 * rank n: every run's end), chunk o's ranks [o·step, end) lie between the
 * last sample ranked at most o·step and the first ranked at least `end`;
 * each run's slice runs between the two samples' places in it, and the
 * merge skips the o·step − rank(lower) elements that precede the chunk.
 */
function brackets(rank: Float64Array, total: number, step: number): { lower: number; upper: number; skip: number }[] {
  const count = rank.length;
  const order = [-1, ...Array.from({ length: count }, (_, q) => q).sort((p, q) => rank[p]! - rank[q]!), count];
  const rankOf = (q: number): number => (q < 0 ? 0 : q === count ? total : rank[q]!);
  const cuts = [];
  let lower = 0, upper = 0;
  for (let start = 0; start < total; start += step) {
    const end = Math.min(total, start + step);
    while (rankOf(order[lower + 1]!) <= start) lower++;
    while (rankOf(order[upper]!) < end) upper++;
    cuts.push({ lower: order[lower]!, upper: order[upper]!, skip: start - rankOf(order[lower]!) });
  }
  return cuts;
}

/** Groups a chunked fold makes at most: partial rows past the threads that fold them at once only cost memory. */
const MAX_GROUPS = 16;
/** Elements a group folds at least: fewer would cost a row of the output's length for little work. */
const MIN_GROUP = 256;
/** Bytes of a group's row (one chunk) past which a fold stays on the host: a chunk that size would crowd the heap. */
const MAX_ROW_BYTES = 2 ** 28;
/** Regions a chunked search reads at most (chunks of keys x chunks of the sorted array): a plan past it is too long to ship. */
const MAX_SEARCH_READS = 2 ** 22;

/**
 * Whether scatter node `n` (ufunc.at, bincount, histogram's counts) runs as
 * routine tasks: an input of several chunks, and add, minimum or maximum
 * (folded in groups) or a ufunc computing in the dtype of values a float64
 * holds (routed by position).
 */
function scattersInChunks(n: Node, store: Store): boolean {
  if (n.op !== 'scatter' || !store.move || !store.chunkView) return false;
  const [base, index, values] = n.inputs as [Node, Node, Node];
  const { op, compute } = n.attrs as Attrs['scatter'];
  if (compute !== n.dtype || !(foldsInChunks(op, n.dtype) || routes(op, n.dtype)) || !index.shape[0] || !base.shape[0]) return false;
  // a routed update (routedInChunks) has no row of the output's length
  if (!routed(n) && base.shape[0]! * INFO[n.dtype].bytes > MAX_ROW_BYTES) return false;
  return [base, index, values].some((x) => x.shape[0]! > x.chunk[0]!);
}

/**
 * Whether scatter node `n` is routed by position: a float sum (not
 * associative), a ufunc no fold of groups can take, or fewer values than
 * places where it can be routed (a group's dense row would cost more than
 * its values; a route costs the values alone, and a row of a huge array
 * could not be held).
 */
function routed(n: Node): boolean {
  const op = (n.attrs as Attrs['scatter']).op, d = n.dtype;
  if ((op === 'add' && INFO[d].kind === 'f') || !foldsInChunks(op, d)) return true;
  const [base, index] = n.inputs as [Node, Node];
  // (bincount's ones are never made: its counts fold, whatever the lengths)
  return routes(op, d) && index.shape[0]! < base.shape[0]! && !onesValues(n);
}

/** Whether a scatter's values are an int64 1 broadcast (bincount's counts): the fold counts the index, no array of ones made. */
function onesValues(n: Node): boolean {
  const v = n.inputs[2]!, c = v.op === 'expand' ? v.inputs[0] : undefined;
  return n.dtype === 'int64' && c?.op === 'const' && c.dtype === 'int64' && Number((c.attrs as Attrs['const']).value) === 1;
}

/** Elements of each group of a fold of `len` values into `size` places (the last may have fewer): from the lengths alone. */
function foldSpan(len: number, size: number, maxGroups: number): number {
  // no more groups than the output's length goes into the values: a row costs a fill and a fold of its length
  return Math.ceil(len / Math.max(1, Math.min(maxGroups, Math.ceil(len / MIN_GROUP), Math.floor(len / size))));
}

/**
 * Groups a fold makes at most here: on the local pool two per thread (each
 * group's row is a pass of the combine; 16 rows of a million bins made the
 * combine half of bincount's time), on the mesh MAX_GROUPS for its peers.
 * A fold that takes groups is exact whatever their number (integer sums
 * wrap, minima and maxima pick), so the result does not depend on it.
 */
const foldGroups = (opts: RunOptions): number => (opts.session ? MAX_GROUPS : Math.min(MAX_GROUPS, 2 * Math.max(1, opts.workers ?? 1)));

/** Whether scatter node `n` folds in chunks and its values are ones (bincount's counts): they are never made, the index counts. */
function countsInChunks(n: Node, store: Store): boolean {
  return scattersInChunks(n, store) && (n.attrs as Attrs['scatter']).op === 'add' && onesValues(n);
}

/**
 * ufunc.at's fold (and bincount's, histogram's) in two stages of routine
 * tasks, on the pool or the mesh: 'scatter.partial' folds each group of
 * consecutive (index, value) pairs, in order, into a row of the output's
 * length filled with the operation's identity; 'scatter.combine' folds, for
 * each chunk of the base, that chunk of every row into it in group order.
 * Integer sums (wrapping) and minima and maxima are associative, so this is
 * ufunc.at's answer exactly; a float sum, which is not, is routed by
 * position instead (routedInChunks), as are the other ufuncs. The groups
 * are ranges of element positions, chosen from the lengths and the threads
 * (at most foldGroups, and no more
 * than the output's length goes into the values: their rows together hold
 * no more than the values do, and each row's fill and fold cost less than
 * its group). A group reads each slice within one chunk of the index and
 * one of the values (a view; small chunks several at once, copied:
 * readSpan), cutting at both grids' boundaries; bincount's ones are never made (countsInChunks): its groups
 * read the index alone. The result is chunked in pieces of the base's
 * chunks (`piece`), so that the threads share the combine of a long one.
 */
async function scatterInChunks(n: Node, store: Store, opts: RunOptions): Promise<Node> {
  const [base, index, values] = n.inputs as [Node, Node, Node];
  if (routed(n)) return routedInChunks(n, store, opts);
  const unit = countsInChunks(n, store);
  const params = { op: (n.attrs as Attrs['scatter']).op, ...(unit ? { unit } : {}) };
  const len = index.shape[0]!, size = base.shape[0]!;
  const span = foldSpan(len, size, foldGroups(opts));
  const groups = Math.ceil(len / span);
  const partialCalls: RoutineCall[] = Array.from({ length: groups }, (_, g) => ({
    routine: 'scatter.partial', params, reads: slices(index, unit ? undefined : values, g * span, Math.min(len, (g + 1) * span)), chunk: g,
  }));
  const partial = routine('scatter.partial', unit ? [index] : [index, values], partialCalls, n.dtype, [groups, size], [1, size]);
  const c = piece(base.chunk[0]!);
  const combineCalls: RoutineCall[] = Array.from({ length: Math.ceil(size / c) }, (_, k) => {
    const box = [k * c, Math.min(size, (k + 1) * c)] as const;
    const rows = Array.from({ length: groups }, (_, g) => ({ input: 1, box: [[g, g + 1], box] as const }));
    return { routine: 'scatter.combine', params: { op: params.op }, reads: [{ input: 0, box: [box] as const }, ...rows], chunk: k };
  });
  const combined = routine('scatter.combine', [base, partial], combineCalls, n.dtype, [size], [c]);
  await stage(partial, store, opts, true);
  await stage(combined, store, opts, true);
  store.drop?.(partial);
  const s = source(`scattered${counter++}`, n.dtype, [size], [c]);
  store.move!(combined, s);
  return s;
}

/** Reads of elements [lo, hi) of the index (input 0) and the values (input 1, when given), cut at both grids' boundaries (readSpan's). */
function slices(index: Node, values: Node | undefined, lo: number, hi: number): RoutineCall['reads'] {
  const cuts = new Set([lo, hi]);
  for (const c of (values ? [index.chunk[0]!, values.chunk[0]!] : [index.chunk[0]!]).map(readSpan)) {
    for (let b = (Math.floor(lo / c) + 1) * c; b < hi; b += c) cuts.add(b);
  }
  const at = [...cuts].sort((p, q) => p - q);
  return at.slice(1).flatMap((e, i) => [{ input: 0, box: [[at[i]!, e]] as const }, ...(values ? [{ input: 1, box: [[at[i]!, e]] as const }] : [])]);
}

/**
 * A float ufunc.at sum (np.add.at, weighted bincount and histogram), or any
 * ufunc.at a fold of groups cannot take (subtract, multiply, divide, ...),
 * with NumPy's exact bits whatever the chunking: each position's values must
 * be applied to it in index order, one after another, so the work is split
 * by position, not by value. 'scatter.route' takes each group of consecutive
 * (index, value) pairs and sorts them, stably, by the piece of the output
 * they fall in (a row of counts, positions, values: the group's bytes again,
 * a shuffle); the host reads the counts (groups x pieces numbers); then
 * 'scatter.apply', for each piece of the output, applies to that piece of
 * the base the slices of every group's row that fall in it, in group order.
 */
async function routedInChunks(n: Node, store: Store, opts: RunOptions): Promise<Node> {
  const [base, index, values] = n.inputs as [Node, Node, Node];
  const len = index.shape[0]!, size = base.shape[0]!;
  const c = piece(base.chunk[0]!), pieces = Math.ceil(size / c);
  // a group's row holds its pairs again (the shuffle's bytes): a chunk of the index at most, so no row is the whole array
  const span = Math.min(Math.ceil(len / Math.min(MAX_GROUPS, Math.ceil(len / MIN_GROUP))), Math.max(MIN_GROUP, index.chunk[0]!));
  const groups = Math.ceil(len / span), width = pieces + 2 * span;
  const routeCalls: RoutineCall[] = Array.from({ length: groups }, (_, g) => ({
    routine: 'scatter.route', params: { size, piece: c }, reads: slices(index, values, g * span, Math.min(len, (g + 1) * span)), chunk: g,
  }));
  const routed = routine('scatter.route', [index, values], routeCalls, rowDtype(values.dtype), [groups, width], [1, width]);
  await stage(routed, store, opts);
  const t0 = now();
  // where each piece's pairs start in each group's row
  const counts = Array.from({ length: groups }, (_, g) => Array.from(store.chunkView!(routed, g).subarray(0, pieces) as ArrayLike<number | bigint>, Number));
  opts.execution?.hostOp('scatter.counts', t0, now(), { node: n.id, shape: shapeStr(n.shape), chunks: groups });
  const offsets = counts.map((row) => { let at = 0; return row.map((k) => { const o = at; at += k; return o; }); });
  const applyCalls: RoutineCall[] = Array.from({ length: pieces }, (_, r) => {
    const reads: { input: number; box: readonly (readonly [number, number])[] }[] = [{ input: 0, box: [[r * c, Math.min(size, (r + 1) * c)]] }];
    for (let g = 0; g < groups; g++) {
      const k = counts[g]![r]!, m = Math.min(len, (g + 1) * span) - g * span, at = pieces + offsets[g]![r]!;
      if (k > 0) reads.push({ input: 1, box: [[g, g + 1], [at, at + k]] }, { input: 1, box: [[g, g + 1], [at + m, at + m + k]] });
    }
    return { routine: 'scatter.apply', params: { op: (n.attrs as Attrs['scatter']).op }, reads, chunk: r };
  });
  const applied = routine('scatter.apply', [base, routed], applyCalls, n.dtype, [size], [c]);
  await stage(applied, store, opts, true);
  store.drop?.(routed);
  const s = source(`scattered${counter++}`, n.dtype, [size], [c]);
  store.move!(applied, s);
  return s;
}

/** Whether search node `n` (searchsorted, digitize, isin) runs as routine tasks: 1-d keys (the api flattens others), either side of several chunks. */
function searchesInChunks(n: Node, store: Store): boolean {
  if (n.op !== 'search' || !store.move) return false;
  const [a, k] = n.inputs as [Node, Node];
  if (k.shape.length !== 1 || a.dtype === 'float16' || !a.shape[0]) return false;
  const chunks = (x: Node): number => Math.ceil(x.shape[0]! / x.chunk[0]!) || 1;
  return chunks(a) * chunks(k) > 1 && chunks(a) * chunks(k) <= MAX_SEARCH_READS;
}

/** Elements of the piece a combine or search task writes, where a chunk divides into such pieces: a chunk of a million makes 16 tasks. */
const PIECE = 2 ** 16;

/** Elements below which chunks are read several at once (a copy of a few KiB costs less than a region each: chunks of 7 made 60,000 reads a search). */
const SMALL_READ = 2 ** 12;

/** Whole chunks of length c read as one box: one chunk, or as many as fit in SMALL_READ elements. */
const readSpan = (c: number): number => c * Math.max(1, Math.floor(SMALL_READ / c));

/**
 * A chunked result's chunk length: a divisor of its input's chunk c near
 * PIECE (so each task reads a view of one chunk), else c; small chunks
 * several at once (readSpan).
 */
function piece(c: number): number {
  if (c < SMALL_READ) return readSpan(c);
  const least = Math.ceil(c / PIECE);
  for (let p = least; p <= 4 * least; p++) if (c % p === 0) return c / p;
  return c;
}

/**
 * searchsorted in routine tasks: for each chunk of the keys, one 'search'
 * call reads that chunk and every chunk of the sorted array (each a view of
 * one chunk) and writes the keys' positions: the sum of their places in
 * the chunks, which the routine finds by one search over the chunks' last
 * elements and one within a chunk. A long chunk of keys is split into
 * pieces (`piece`) so that the threads share it; the result is chunked
 * by piece.
 */
async function searchInChunks(n: Node, store: Store, opts: RunOptions): Promise<Node> {
  const [a, k] = n.inputs as [Node, Node];
  const params = { side: (n.attrs as Attrs['search']).side };
  const len = a.shape[0]!, c = a.chunk[0]!, m = k.shape[0]!, kc = piece(k.chunk[0]!);
  const span = readSpan(c);
  const chunks = Array.from({ length: Math.ceil(len / span) }, (_, i) => ({ input: 0, box: [[i * span, Math.min(len, (i + 1) * span)]] as const }));
  const calls: RoutineCall[] = Array.from({ length: Math.ceil(m / kc) || 1 }, (_, i) => ({
    routine: 'search', params, reads: [{ input: 1, box: [[i * kc, Math.min(m, (i + 1) * kc)]] as const }, ...chunks], chunk: i,
  }));
  const node = routine('search', [a, k], calls, 'int64', [m], [kc]);
  await stage(node, store, opts, true);
  const s = source(`searched${counter++}`, 'int64', [m], [kc]);
  store.move!(node, s);
  return s;
}

/** How a line's values sort: NaNs last (NumPy's order), int64 as BigInts. */
function lineOrder(big: boolean): (p: number | bigint, q: number | bigint) => number {
  return big
    ? (p, q) => (p < q ? -1 : p > q ? 1 : 0)
    : (p, q) => {
      if (p !== p) return q !== q ? 0 : 1;
      if (q !== q) return -1;
      return p < q ? -1 : p > q ? 1 : 0;
    };
}

/**
 * Quantiles of each line along the last axis (numerics/quantile.ts has
 * NumPy's arithmetic), q's axes leading the result's.
 */
function quantiles(n: Node, store: Store): Node {
  const x = n.inputs[0]!;
  const { spec } = n.attrs as Attrs['quantile'];
  const xs = x.dtype === 'float16' ? decodeHalf(store.read(x) as Uint16Array) : store.read(x);
  const len = x.shape[x.shape.length - 1]!;
  const lines = sizeOf(x.shape.slice(0, -1));
  const nq = spec.method === 'median' ? 1 : spec.qs.length;
  const out = new ARRAY_CTOR[n.dtype](lines * nq) as unknown as (number | bigint | boolean)[];
  const order = lineOrder(x.dtype === 'int64');
  const line = new Array<number | bigint>(len);
  const bool = x.dtype === 'bool';
  // long lines sorted by radix, all at once (half floats by their float32 values, as decoded)
  const radix = len >= RADIX_LINE ? radixKeys(x.dtype === 'float16' ? 'float32' : x.dtype, xs) : undefined;
  const srt = radix && (new (xs.constructor as new (n: number) => TypedArray)(xs.length));
  for (let l = 0; l < lines; l++) {
    if (srt) radixLine(radix!, xs, srt, false, l * len, len, 1);
    else {
      for (let k = 0; k < len; k++) line[k] = xs[l * len + k]!;
      line.sort(order);
    }
    const r = quantileLine(srt ? (k) => (bool ? srt[l * len + k] !== 0 : srt[l * len + k]!) : (k) => (bool ? line[k] !== 0 : line[k]!), len, x.dtype, n.dtype, spec);
    r.forEach((v, i) => { out[i * lines + l] = typeof v === 'boolean' ? +v : n.dtype === 'float16' ? halfBits(Number(v)) : v; });
  }
  const s = source(`quantiles${counter++}`, n.dtype, n.shape, chunkGrid(n.shape, INFO[n.dtype].bytes));
  store.put(s, out as unknown as TypedArray);
  return s;
}

/** The singular values of each matrix over the last two axes (numerics/svd.ts). */
function svdvals(n: Node, store: Store): Node {
  const x = n.inputs[0]!;
  const xs = store.read(x);
  const [m, c] = x.shape.slice(-2) as [number, number];
  const k = Math.min(m, c);
  const count = sizeOf(x.shape.slice(0, -2));
  const out = new ARRAY_CTOR[n.dtype](count * k) as Float32Array | Float64Array;
  const a = new Float64Array(m * c);
  for (let b = 0; b < count; b++) {
    for (let i = 0; i < m * c; i++) a[i] = Number(xs[b * m * c + i]);
    out.set(singularValues(a, m, c), b * k);
  }
  const s = source(`svdvals${counter++}`, n.dtype, n.shape, chunkGrid(n.shape, INFO[n.dtype].bytes));
  store.put(s, out);
  return s;
}

/**
 * np.linalg's solvers and decompositions of each matrix of the stack
 * (numerics/linalg.ts), every part of each result packed along the last axis;
 * a singular or not positive-definite matrix fails the run with NumPy's
 * LinAlgError.
 */
function linalg(n: Node, store: Store): Node {
  const { spec } = n.attrs as Attrs['linalg'];
  const [x, y] = n.inputs as [Node, Node | undefined];
  const xs = store.read(x), ys = y && store.read(y);
  const [m, c] = x.shape.slice(-2) as [number, number];
  const k = y ? y.shape[y.shape.length - 1]! : 0;
  const count = sizeOf(x.shape.slice(0, -2));
  const width = n.shape[n.shape.length - 1]!;
  if (width !== linalgParts(spec, m, c, k).reduce((w, p) => w + sizeOf(p), 0)) throw new Error(`internal: linalg.${spec.fn}() width ${width}`);
  const out = new ARRAY_CTOR[n.dtype](count * width) as Float32Array | Float64Array;
  const a = new Float64Array(m * c), b = new Float64Array(m * k);
  for (let i = 0; i < count; i++) {
    for (let j = 0; j < m * c; j++) a[j] = Number(xs[i * m * c + j]);
    if (ys) for (let j = 0; j < m * k; j++) b[j] = Number(ys[i * m * k + j]);
    let at = i * width;
    for (const part of linalgCompute(spec, a, m, c, b, k)) { out.set(part, at); at += part.length; }
  }
  const s = source(`linalg${counter++}`, n.dtype, n.shape, chunkGrid(n.shape, INFO[n.dtype].bytes));
  store.put(s, out);
  return s;
}

/** A check's error: JS's own class for the names JS has (RangeError for NumPy's ValueError), else an Error of that name (ZeroDivisionError). */
function checkError(name: string, message: string): Error {
  const Js = ({ RangeError, TypeError } as Record<string, ErrorConstructor>)[name];
  return Js ? new Js(message) : Object.assign(new Error(message), { name });
}

/** A checked node's input, stored, once it passes the check; the check's error otherwise. */
function checked(n: Node, store: Store): Node {
  const x = n.inputs[0]!;
  const c = n.attrs as Attrs['check'];
  const xs = store.read(x);
  // float16's bits are 0 for +0 only: -0 is 0x8000
  const zero = (v: number | bigint) => (x.dtype === 'float16' ? (Number(v) & 0x7fff) === 0 : Number(v) === 0);
  for (let i = 0; i < xs.length; i++) {
    if (zero(xs[i]!)) throw checkError(c.error, c.message);
  }
  const s = source(`checked${counter++}`, x.dtype, x.shape, x.chunk);
  store.put(s, xs);
  return s;
}

/**
 * A check over an array of several chunks: whether any element is zero is a
 * fused reduction (a pass over the chunks on the pool or the mesh), and the
 * host reads its one value; the checked array, stored already, is the result.
 */
async function checkInChunks(n: Node, store: Store, opts: RunOptions): Promise<Node> {
  const x = n.inputs[0]!;
  const c = n.attrs as Attrs['check'];
  const zero = reduce('any', binary('equal', x, constant(0, x.dtype), 'bool'), x.shape.map((_, i) => i), false, 'bool');
  await stage(zero, store, opts);
  const hit = store.read(zero)[0];
  store.drop?.(zero);
  if (hit) throw checkError(c.error, c.message);
  return x;
}

/** The selection itself: x's [lead, N, trail] blocks kept where mask is true, in order. */
function compact(n: Node, store: Store): Node {
  const [x, m] = n.inputs as [Node, Node];
  const axis = (n.attrs as { axis: number }).axis;
  const xs = store.read(x), ms = store.read(m);
  const lead = sizeOf(x.shape.slice(0, axis));
  const len = x.shape[axis]!;
  const trail = sizeOf(x.shape.slice(axis + 1));
  let count = 0;
  for (let i = 0; i < len; i++) if (ms[i]) count++;
  const out = new ARRAY_CTOR[x.dtype](lead * count * trail) as TypedArray;
  let o = 0;
  for (let l = 0; l < lead; l++) {
    const base = l * len * trail;
    for (let i = 0; i < len; i++) {
      if (!ms[i]) continue;
      const from = base + i * trail;
      if (trail === 1) out[o++] = xs[from]!;
      else { out.set(xs.subarray(from, from + trail) as never, o); o += trail; }
    }
  }
  const shape = x.shape.map((d, i) => (i === axis ? count : d));
  const s = source(`selection${counter++}`, x.dtype, shape, chunkGrid(shape, INFO[x.dtype].bytes));
  store.put(s, out);
  return s;
}
