// The routine of exact nearest neighbours (learn/neighbors.ts):
//   knn   for each row of a block of queries, its k nearest rows among every
//         block of the indexed data (each read as its own region, so no
//         block is gathered by the host): exact distances in float64
//         (squared euclidean, manhattan, chebyshev or minkowski's p-th
//         power: each a monotone image of the metric, the host takes the
//         root), kept in a sorted list of k per query, ties to the lower
//         index; with `self`, a query's own row (the same global index) is
//         skipped, as scikit-learn skips it when the query is the indexed
//         data. One float64 row per query: k distances ascending, then their
//         k indices.
// In: queries (rows × d), then m blocks of indexed rows (each n_i × d).
// Out: [rows, 2k].
// Design: a kd-tree over the indexed rows (./kdtree.ts); each query walks it
// depth first, nearer child first, and skips a node whose box is farther
// than its current k-th distance. The bound is exact, not approximate: it
// sums the same per-dimension terms in the same order as the distance, each
// from a gap no larger than the difference it stands for, and rounding is
// monotone, so the bound computed never exceeds any distance computed in
// the box; a node is skipped only on a strict excess, so an equal distance
// of a lower index is still seen. Queries go in the order of a kd-tree of
// their own, so that consecutive queries touch the same leaves (cache).
// For squared euclidean distances, a node of at most SCAN_ROWS rows goes
// whole to a WebAssembly SIMD kernel (wasm/knn.ts), which passes over its
// leaves by the same bound and scans the others four rows per step, bit for
// bit the scalar sums, listing only the rows not above the k-th distance;
// other metrics, and hosts without WebAssembly SIMD, run in plain
// TypeScript. What is left is mostly memory traffic: a query reads some
// ten thousand rows from leaves its predecessor did not all touch.

import type { RoutineParams } from '../graph/node.js';
import { KNN_BLOCK, knnLeafBytes, knnModule } from '../wasm/knn.js';
import { type KdTree, kdTree } from './kdtree.js';
import { type Region, type Routine, onlyParams } from './region.js';

type Metric = 'sqeuclidean' | 'manhattan' | 'chebyshev' | 'minkowski';
const METRICS: readonly Metric[] = ['sqeuclidean', 'manhattan', 'chebyshev', 'minkowski'];

/**
 * Rows per leaf of the indexed tree, queries per leaf of theirs, and the most
 * rows under a node the kernel scans whole (passing over its leaves by their
 * boxes itself): a node visit in TypeScript costs more than a bound in the
 * kernel, and in ten dimensions many are visited.
 */
const LEAF = 128, QUERY_LEAF = 32, SCAN_ROWS = 1024;
/** The widest rows the kernel keeps the query of in registers. */
const WASM_MAX_D = 64;

interface KnnParams { k: number; d: number; m: number; self: boolean; metric: Metric; p: number }

function knnParams(params: RoutineParams): KnnParams {
  onlyParams(params, ['k', 'd', 'm', 'self', 'metric', 'p']);
  const { k, d, m, self, metric, p } = params;
  for (const [name, v] of [['k', k], ['d', d], ['m', m]] as const) {
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 1) throw new TypeError(`routine parameter ${name} must be a positive count`);
  }
  if (typeof self !== 'boolean') throw new TypeError('routine parameter self must be a boolean');
  if (typeof metric !== 'string' || !METRICS.includes(metric as Metric)) throw new TypeError(`routine parameter metric must be one of ${METRICS.join(', ')}`);
  if (typeof p !== 'number' || !(p >= 1)) throw new TypeError('routine parameter p must be a number >= 1');
  return { k: k as number, d: d as number, m: m as number, self, metric: metric as Metric, p };
}

/** One query's k nearest so far (ascending; ties to the lower index) and the search's node stack. */
interface Best { dist: Float64Array; idx: Float64Array; stack: Int32Array }

function newBest(k: number, t: KdTree): Best {
  return { dist: new Float64Array(k), idx: new Float64Array(k), stack: new Int32Array(2 * Math.ceil(Math.log2(t.nodes + 1)) + 8) };
}

function reset(b: Best): void {
  b.dist.fill(Infinity);
  // an index above every real one, so that a first distance of Infinity (overflow) still gets in
  b.idx.fill(Infinity);
}

/** Offers row `g` at distance `v`: kept if it is among the k nearest so far. */
function offer(b: Best, v: number, g: number): void {
  const dist = b.dist, idx = b.idx;
  let i = dist.length - 1;
  if (v > dist[i]! || (v === dist[i]! && !(g < idx[i]!))) return;
  while (i > 0 && (dist[i - 1]! > v || (dist[i - 1]! === v && idx[i - 1]! > g))) { dist[i] = dist[i - 1]!; idx[i] = idx[i - 1]!; i--; }
  dist[i] = v; idx[i] = g;
}

/** The distance's monotone image between row `a` of `q` and row `b` of `x` (both row-major, d wide); past `bound`, some partial sum above it. */
function distance(q: Float64Array, a: number, x: Float64Array, b: number, d: number, metric: Metric, p: number, bound: number): number {
  const qa = a * d, xb = b * d;
  let s = 0;
  if (metric === 'sqeuclidean') {
    for (let f = 0; f < d; f++) { const t = q[qa + f]! - x[xb + f]!; s += t * t; if (s > bound) return s; }
  } else if (metric === 'manhattan') {
    for (let f = 0; f < d; f++) { s += Math.abs(q[qa + f]! - x[xb + f]!); if (s > bound) return s; }
  } else if (metric === 'chebyshev') {
    for (let f = 0; f < d; f++) { const t = Math.abs(q[qa + f]! - x[xb + f]!); if (t > s) s = t; }
  } else {
    for (let f = 0; f < d; f++) { s += Math.abs(q[qa + f]! - x[xb + f]!) ** p; if (s > bound) return s; }
  }
  return s;
}

/** A lower bound of the distance from row `a` of `q` to any row in node `node`'s box, by the distance's own terms. */
function boxBound(q: Float64Array, a: number, t: KdTree, node: number, d: number, metric: Metric, p: number): number {
  const qa = a * d, o = node * d, lo = t.lo, hi = t.hi;
  let s = 0;
  for (let f = 0; f < d; f++) {
    const v = q[qa + f]!, l = lo[o + f]!, h = hi[o + f]!;
    // v - l and v - h, as the distance computes q - x: a gap never exceeds the difference it bounds
    const g = v < l ? v - l : v > h ? v - h : 0;
    if (metric === 'sqeuclidean') s += g * g;
    else if (metric === 'manhattan') s += Math.abs(g);
    else if (metric === 'chebyshev') { if (Math.abs(g) > s) s = Math.abs(g); }
    else s += Math.abs(g) ** p;
  }
  // pow need not be monotone to the last bit: a margin keeps minkowski's bound below
  return metric === 'minkowski' ? s * (1 - 1e-12) : s;
}

/** Scans the rows [b0, b1) of a leaf for query `a`, offering each. */
type LeafScan = (a: number, node: number, b0: number, b1: number, best: Best) => void;

/** Walks the indexed tree for query `a` of `q`: every leaf, or node of at most `whole` rows, not excluded by its bound is scanned. */
function search(q: Float64Array, a: number, xt: KdTree, o: KnnParams, best: Best, scan: LeafScan, whole: number): void {
  const { d, metric, p } = o, stack = best.stack, dist = best.dist, last = dist.length - 1;
  reset(best);
  let top = 0;
  stack[top++] = 0;
  while (top > 0) {
    const node = stack[--top]!;
    if (boxBound(q, a, xt, node, d, metric, p) > dist[last]!) continue;
    const l = xt.left[node]!, b0 = xt.start[node]!, b1 = xt.end[node]!;
    // until k rows are known, down to a single leaf: a first scan of a whole node would list all its rows
    if (l < 0 || (b1 - b0 <= whole && dist[last]! < Infinity)) { scan(a, node, b0, b1, best); continue; }
    // the nearer child is searched first, to shrink the k-th distance early
    const leftFirst = q[a * d + xt.dim[node]!]! < xt.split[node]!;
    stack[top++] = leftFirst ? xt.right[node]! : l;
    stack[top++] = leftFirst ? l : xt.right[node]!;
  }
}

/** The leaf scan in plain TypeScript (any metric). */
function scanTs(q: Float64Array, xt: KdTree, o: KnnParams, me: Float64Array | null): LeafScan {
  const { d, metric, p } = o;
  return (a, _node, b0, b1, best) => {
    const last = best.dist.length - 1, skip = me ? me[a]! : -1;
    for (let b = b0; b < b1; b++) {
      const g = xt.index[b]!;
      if (g !== skip) offer(best, distance(q, a, xt.rows, b, d, metric, p, best.dist[last]!), g);
    }
  };
}

interface KnnWasm { memory: WebAssembly.Memory; scan: (q: number, x: number, blocks: number, kth: number, out: number) => number }
/** One instance per row width and thread, made on first use (null where WebAssembly or its SIMD is missing). */
const INSTANCES = new Map<number, KnnWasm | null>();

function knnWasm(d: number): KnnWasm | null {
  if (!INSTANCES.has(d)) {
    let w: KnnWasm | null = null;
    try {
      const memory = new WebAssembly.Memory({ initial: 1 });
      const inst = new WebAssembly.Instance(new WebAssembly.Module(knnModule(d)), { env: { memory } });
      w = { memory, scan: inst.exports.scan as KnnWasm['scan'] };
    } catch { w = null; }
    INSTANCES.set(d, w);
  }
  return INSTANCES.get(d)!;
}

/**
 * The squared euclidean scan by the kernel: the indexed rows are copied into
 * its memory leaf by leaf in its layout (leaves in tree order, so a node's
 * leaves are one run); the query is copied in when a new one starts.
 */
function scanWasm(w: KnnWasm, q: Float64Array, xt: KdTree, d: number, me: Float64Array | null): LeafScan {
  const OUT = 8 * d + 15 & ~15, X = OUT + 16 * (SCAN_ROWS + SCAN_ROWS / LEAF * KNN_BLOCK + KNN_BLOCK);
  // per node: the byte offset of its first leaf, and how many leaves it holds
  const ptr = new Int32Array(xt.nodes), leaves = new Int32Array(xt.nodes);
  let bytes = X;
  for (let node = xt.nodes - 1; node >= 0; node--) {
    const l = xt.left[node]!;
    leaves[node] = l < 0 ? 1 : leaves[l]! + leaves[xt.right[node]!]!;
  }
  for (let node = 0; node < xt.nodes; node++) {
    ptr[node] = bytes;
    if (xt.left[node]! < 0) bytes += knnLeafBytes(xt.end[node]! - xt.start[node]!, d);
  }
  const pages = Math.ceil(bytes / 65536) - w.memory.buffer.byteLength / 65536;
  if (pages > 0) w.memory.grow(pages);
  const heap = new Float64Array(w.memory.buffer), words = new Int32Array(w.memory.buffer);
  for (let node = 0; node < xt.nodes; node++) {
    if (xt.left[node]! >= 0) continue;
    const s = xt.start[node]!, n = xt.end[node]! - s, base = ptr[node]! / 8, blocks = Math.ceil(n / KNN_BLOCK);
    words[base * 2] = blocks; words[base * 2 + 1] = s;
    heap.set(xt.lo.subarray(node * d, node * d + d), base + 2);
    heap.set(xt.hi.subarray(node * d, node * d + d), base + 2 + d);
    const x0 = base + 2 + 2 * d;
    heap.fill(NaN, x0, x0 + blocks * KNN_BLOCK * d);
    for (let r = 0; r < n; r++) {
      const at = x0 + ((r / KNN_BLOCK) | 0) * KNN_BLOCK * d + (r % KNN_BLOCK);
      for (let f = 0; f < d; f++) heap[at + f * KNN_BLOCK] = xt.rows[(s + r) * d + f]!;
    }
  }
  let current = -1;
  const scan = w.scan, rows = xt.index, at = OUT / 8;
  return (a, node, _b0, _b1, best) => {
    if (a !== current) { heap.set(q.subarray(a * d, a * d + d), 0); current = a; }
    const skip = me ? me[a]! : -1;
    const n = scan(0, ptr[node]!, leaves[node]!, best.dist[best.dist.length - 1]!, OUT);
    for (let i = 0; i < n; i++) {
      const g = rows[heap[at + 2 * i + 1]!]!;
      if (g !== skip) offer(best, heap[at + 2 * i]!, g);
    }
  };
}

/** The leaf scan for these parameters (the kernel's where it applies), and the most rows it takes whole. */
function leafScan(q: Float64Array, xt: KdTree, o: KnnParams, me: Float64Array | null): [LeafScan, number] {
  const w = o.metric === 'sqeuclidean' && o.d <= WASM_MAX_D ? knnWasm(o.d) : null;
  return w ? [scanWasm(w, q, xt, o.d, me), SCAN_ROWS] : [scanTs(q, xt, o, me), 0];
}

function run(o: KnnParams, q: Region, blocks: readonly Region[], out: Region): void {
  const { k, d } = o;
  const qt = kdTree([q], d, QUERY_LEAF), xt = kdTree(blocks, d, LEAF);
  const first = q.origin[0]!;
  const od = out.data as Float64Array, o0 = out.strides[0]!, o1 = out.strides[1]!;
  const best = newBest(k, xt);
  const [scan, whole] = leafScan(qt.rows, xt, o, o.self ? qt.index : null);
  for (let a = 0; a < qt.index.length; a++) {
    search(qt.rows, a, xt, o, best, scan, whole);
    const row = (qt.index[a]! - first) * o0;
    for (let j = 0; j < k; j++) { od[row + j * o1] = best.dist[j]!; od[row + (k + j) * o1] = best.idx[j]!; }
  }
}

/**
 * The same exact search on this thread for rows gathered by the host (the
 * queries the GPU's screening could not certify, runtime/knn_gpu.ts): `q`
 * (rows × d) against `x` (n × d), squared euclidean, query i skipping row
 * skip[i] of x where given. Out: [rows, 2k] as the routine writes it.
 */
export function knnRows(q: Float64Array, x: Float64Array, d: number, k: number, skip: Float64Array | null): Float64Array {
  const rows = q.length / d, n = x.length / d;
  const region = (data: Float64Array, r: number): Region => ({ data, dtype: 'float64', shape: [r, d], strides: [d, 1], origin: [0, 0] });
  const o: KnnParams = { k, d, m: 1, self: skip !== null, metric: 'sqeuclidean', p: 2 };
  const qt = kdTree([region(q, rows)], d, QUERY_LEAF), xt = kdTree([region(x, n)], d, LEAF);
  const out = new Float64Array(rows * 2 * k);
  const best = newBest(k, xt);
  const [scan, whole] = leafScan(qt.rows, xt, o, skip ? Float64Array.from(qt.index, (i) => skip[i]!) : null);
  for (let a = 0; a < rows; a++) {
    search(qt.rows, a, xt, o, best, scan, whole);
    const row = qt.index[a]! * 2 * k;
    out.set(best.dist, row);
    out.set(best.idx, row + k);
  }
  return out;
}

export const NEIGHBOR_ROUTINES: Readonly<Record<'knn', Routine>> = {
  knn: {
    check(params, inputs, output) {
      const { k, d, m } = knnParams(params);
      if (inputs.length !== 1 + m) throw new TypeError(`knn reads the queries and ${m} blocks of indexed rows`);
      for (const r of inputs) {
        if (r.dtype !== 'float64' || r.shape.length !== 2 || r.shape[1] !== d) throw new TypeError(`knn reads float64 [n, ${d}] regions`);
      }
      if (output.dtype !== 'float64' || output.shape.length !== 2 || output.shape[0] !== inputs[0]!.shape[0] || output.shape[1] !== 2 * k) {
        throw new TypeError(`knn writes a float64 [queries, ${2 * k}] block`);
      }
    },
    run(params, [q, ...blocks], out) { run(knnParams(params), q!, blocks, out); },
  },
};

// What the radius search (./radius.ts) shares with the k-nearest search: the metrics, their exact terms and box bounds.
export { type Metric, METRICS, boxBound, distance };
