// Quantiles of a 1-d array of several chunks by selection, never gathered
// whole (DESIGN.md, "Nothing is gathered whole"; issue 31 item 3). In: the
// quantile node and the store. Out: the stored result (or undefined where the
// bracket cannot be narrowed, and the host's whole-line path takes over).
// Passes over the input, which may be lazy (a random draw never stored):
//   1. a strided sample (a slice node) and the NaN count, fused in one run;
//   2. the ranks quantileLine reads are found by probing it; each rank's
//      bracket [lo, hi] comes from the sorted sample with a margin of a few
//      standard deviations of the sample's rank error;
//   3. count(x < lo) and count(x <= hi) per bracket as fused reductions (one
//      streaming pass): the bracket must hold its rank, and all brackets
//      together at most MAX_HELD values, else a bigger margin is tried;
//   4. the bracketed values are taken from a few chunks at a time (a stored
//      input's chunk views, or a lazy input's slices run and dropped), kept
//      in input order, sorted stably, and the ranks read off them;
//   5. quantileLine's own arithmetic turns those order statistics into
//      NumPy's bits for every method.

import { ARRAY_CTOR, type DType, INFO, type TypedArray } from '../graph/dtype.js';
import { type Attrs, type Node, binary, constant, reduce, slice, source, where } from '../graph/node.js';
import { quantileLine } from '../numerics/quantile.js';
import { chunkGrid } from '../graph/shape.js';
import type { RunOptions } from './runtime.js';

/** What selection needs of the store (resolve.ts's Store, structurally). */
export interface SelectStore {
  run(nodes: readonly Node[], opts: RunOptions): Promise<unknown>;
  read(n: Node): TypedArray;
  put(n: Node, data: TypedArray): void;
  has?(n: Node): boolean;
  chunkView?(n: Node, c: number): TypedArray;
  drop?(n: Node): void;
}

/** Dtypes whose values order as JS numbers (NaNs apart) or, int64's, as BigInts do. */
const SELECTABLE = new Set<DType>(['float64', 'float32', 'int64', 'int32', 'int16', 'int8', 'uint32', 'uint16', 'uint8']);
/** Bounds on the sample's size: a sort of it is cheap; a rank's error in it is ~ n / sqrt(size) values. */
const MIN_SAMPLE = 1 << 16, MAX_SAMPLE = 1 << 23;
/** A bracket's half-width, in standard deviations of a sampled rank (sqrt(m p (1 - p)) <= sqrt(m) / 2 positions). */
const MARGIN = 6;
/** Chunks of a lazy input computed per run of the extraction pass (two such runs are held at once). */
const GROUP = 4;
/** Most bracketed values held on the host at once. */
const MAX_HELD = 1 << 22;

/** Whether quantile node `n` is computed here: a 1-d line of several chunks of a selectable dtype. */
export function selects(n: Node, store: SelectStore): boolean {
  const x = n.inputs[0];
  return n.op === 'quantile' && x !== undefined && x.shape.length === 1 && x.shape[0]! > x.chunk[0]!
    && SELECTABLE.has(x.dtype) && SELECTABLE.has(n.dtype) && store.drop !== undefined;
}

let counter = 0;
/** A value of the line: a number, or int64's BigInt. */
type Value = number | bigint;
/** Ascending, stable, -0 equal to 0 (NaNs are never compared: they are left out). */
const order = (p: Value, q: Value): number => (p < q ? -1 : p > q ? 1 : 0);

export async function selectQuantiles(n: Node, store: SelectStore, opts: RunOptions): Promise<Node | undefined> {
  const x = n.inputs[0]!;
  const { spec } = n.attrs as Attrs['quantile'];
  const len = x.shape[0]!;
  const float = x.dtype.startsWith('float');
  // a sample large enough that the brackets, a few of its standard deviations wide, hold under a quarter of MAX_HELD
  // (each bracket ~ len * MARGIN / sqrt(size) values); at least every other value, so a short line is bracketed too
  const size = Math.min(MAX_SAMPLE, Math.max(MIN_SAMPLE, Math.ceil((4 * MARGIN * len / MAX_HELD) ** 2)));
  const stride = Math.max(2, Math.floor(len / size));
  const sampleNode = slice(x, [0], [stride], [Math.ceil(len / stride)]);
  // the NaN count (floats), in the same run
  const numNode = float ? reduce('sum', binary('equal', x, x, 'bool'), [0], false, 'int64') : undefined;
  const first = [sampleNode, ...(numNode ? [numNode] : [])];
  await store.run(first, opts);
  const nans = numNode ? len - Number(store.read(numNode)[0]) : 0;
  // the typed array's own sort (NaNs last, cut off): the sample only places the brackets, so -0 before 0 does not matter
  const sorted = store.read(sampleNode).slice().sort();
  const sample = Array.from(sorted.subarray(0, float ? (sorted as Float64Array).findIndex((v) => v !== v) >>> 0 : sorted.length) as ArrayLike<Value>);
  first.forEach((q) => store.drop!(q));
  const nn = len - nans;
  // the ranks quantileLine reads, the NaN count telling it where the NaNs lie (values do not steer which ranks)
  const ranks = new Set<number>();
  const nanAt = (k: number): boolean => k >= nn;
  quantileLine((k) => { ranks.add(k); return 0; }, len, x.dtype, n.dtype, spec, nanAt);
  const values = new Map<number, Value>();
  // ranks 0 and n-1 (q = 0 or 1) are the least and greatest values (NaNs apart): fused min and max, not a bracket
  const ends = ([[0, 'min', Infinity], [nn - 1, 'max', -Infinity]] as const).filter(([k]) => ranks.has(k));
  if (ends.length) {
    const nodes = ends.map(([, op, fill]) => reduce(op, float ? where(binary('equal', x, x, 'bool'), x, constant(fill, x.dtype)) : x, [0], false, x.dtype));
    await store.run(nodes, opts);
    ends.forEach(([k], i) => values.set(k, store.read(nodes[i]!)[0]!));
    nodes.forEach((q) => store.drop!(q));
  }
  const wanted = [...ranks].filter((k) => !values.has(k)).sort((p, q) => p - q);
  if (wanted.length) {
    if (!sample.length) return undefined;
    let found: Map<number, Value> | undefined;
    for (let margin = MARGIN; margin <= 16 * MARGIN && !found; margin *= 4) found = await bracketed(x, wanted, nn, sample, margin, store, opts);
    if (!found) return undefined;
    for (const [k, v] of found) values.set(k, v);
  }
  const r = quantileLine((k) => (k >= nn ? NaN : values.get(k)!), len, x.dtype, n.dtype, spec, nanAt);
  const out = new ARRAY_CTOR[n.dtype](r.length) as unknown as Value[];
  r.forEach((v, i) => { out[i] = n.dtype === 'int64' ? BigInt(v) : Number(v); });
  const s = source(`selected${counter++}`, n.dtype, n.shape, chunkGrid(n.shape, INFO[n.dtype].bytes));
  store.put(s, out as unknown as TypedArray);
  return s;
}

/** The wanted ranks' values, or undefined when a bracket misses its rank or they hold too many values. */
async function bracketed(
  x: Node, wanted: readonly number[], nn: number, sample: readonly Value[], margin: number, store: SelectStore, opts: RunOptions,
): Promise<Map<number, Value> | undefined> {
  const m = sample.length;
  // sample position of rank k, give or take `margin` standard deviations of a binomial count
  const spread = (margin * Math.sqrt(m)) / 2 + 2;
  const pos = (k: number): number => (k / Math.max(1, nn - 1)) * (m - 1);
  const brackets: { lo: Value; hi: Value; ks: number[] }[] = [];
  for (const k of wanted) {
    const a = Math.floor(pos(k) - spread), b = Math.ceil(pos(k) + spread);
    const lo = a < 0 ? -Infinity : sample[a]!, hi = b >= m ? Infinity : sample[b]!;
    const last = brackets[brackets.length - 1];
    if (last && lo <= last.hi) { last.hi = hi > last.hi ? hi : last.hi; last.ks.push(k); } else brackets.push({ lo, hi, ks: [k] });
  }
  const c = (v: Value): Node => constant(v, x.dtype);
  const count = (op: 'less' | 'less_equal', v: Value): Node => reduce('sum', binary(op, x, c(v), 'bool'), [0], false, 'int64');
  // an open end needs no pass: nothing lies below -inf, and every value but the NaNs lies below +inf
  const slots = brackets.flatMap((b) => [b.lo === -Infinity ? 0 : count('less', b.lo), b.hi === Infinity ? nn : count('less_equal', b.hi)]);
  const nodes = slots.filter((q): q is Node => typeof q !== 'number');
  if (nodes.length) await store.run(nodes, opts);
  const counts = slots.map((q) => (typeof q === 'number' ? q : Number(store.read(q)[0])));
  nodes.forEach((q) => store.drop!(q));
  let held = 0;
  for (let i = 0; i < brackets.length; i++) {
    const [below, upto] = [counts[2 * i]!, counts[2 * i + 1]!];
    if (brackets[i]!.ks.some((k) => k < below || k >= upto)) return undefined;
    held += upto - below;
  }
  if (held > MAX_HELD) return undefined;
  // the bracketed values, a few chunks at a time, in input order
  const kept: Value[][] = brackets.map(() => []);
  const one = brackets.length === 1 ? brackets[0]! : undefined;
  const take = (vs: TypedArray): void => {
    const a = vs as unknown as ArrayLike<Value>;
    if (one) {
      const [lo, hi, out] = [one.lo, one.hi, kept[0]!];
      for (let j = 0; j < a.length; j++) { const v = a[j]!; if (v >= lo && v <= hi) out.push(v); }
      return;
    }
    for (let j = 0; j < a.length; j++) {
      const v = a[j]!;
      for (let i = 0; i < brackets.length; i++) if (v >= brackets[i]!.lo && v <= brackets[i]!.hi) kept[i]!.push(v);
    }
  };
  const len = x.shape[0]!, chunk = x.chunk[0]!;
  const chunksOf = (m: number): number => Math.ceil(m / chunk);
  if (store.has?.(x) && store.chunkView) {
    // stored: its chunks read in place
    for (let i = 0; i < chunksOf(len); i++) take(store.chunkView(x, i));
  } else {
    // lazy: slices of GROUP chunks computed and dropped, the next one computed while the host filters this one
    const group = chunk * GROUP;
    const part = (start: number): Node => slice(x, [start], [1], [Math.min(group, len - start)]);
    let cur = part(0), running = store.run([cur], opts);
    for (let start = 0; start < len; start += group) {
      await running;
      const next = start + group < len ? part(start + group) : undefined;
      if (next) running = store.run([next], opts);
      if (store.chunkView) for (let i = 0; i < chunksOf(cur.shape[0]!); i++) take(store.chunkView(cur, i));
      else take(store.read(cur));
      store.drop!(cur);
      if (next) cur = next;
    }
  }
  const found = new Map<number, Value>();
  brackets.forEach((b, i) => {
    // stable, -0 equal to 0: the order the whole-line radix sort gives
    const vs = kept[i]!.sort(order);
    const below = counts[2 * i]!;
    for (const k of b.ks) found.set(k, vs[k - below]!);
  });
  return found;
}
