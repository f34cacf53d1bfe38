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
import { type Attrs, type Node, binary, constant, reduce, slice, source } from '../graph/node.js';
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
/** Sample size aimed at: its sort is cheap, and its rank error ~ n / sqrt(SAMPLE). */
const SAMPLE = 1 << 16;
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
  // at least every other value: a short line still goes through a bracket, not a copy of itself
  const stride = Math.max(2, Math.floor(len / SAMPLE));
  const sampleNode = slice(x, [0], [stride], [Math.ceil(len / stride)]);
  const nanNode = float ? reduce('sum', binary('not_equal', x, x, 'bool'), [0], false, 'int64') : undefined;
  await store.run(nanNode ? [sampleNode, nanNode] : [sampleNode], opts);
  const nans = nanNode ? Number(store.read(nanNode)[0]) : 0;
  const sample = Array.from(store.read(sampleNode) as ArrayLike<Value>).filter((v) => v === v).sort(order);
  store.drop!(sampleNode);
  if (nanNode) store.drop!(nanNode);
  const nn = len - nans;
  // the ranks quantileLine reads (the values do not steer which: only whether the last is NaN)
  const ranks = new Set<number>();
  const probe = (k: number): number => { if (k < nn) ranks.add(k); return k >= nn ? NaN : 0; };
  quantileLine(probe, len, x.dtype, n.dtype, spec);
  const wanted = [...ranks].sort((a, b) => a - b);
  const values = new Map<number, Value>();
  if (wanted.length) {
    if (!sample.length) return undefined;
    let found: Map<number, Value> | undefined;
    for (let margin = 4; margin <= 64 && !found; margin *= 4) found = await bracketed(x, wanted, nn, sample, margin, store, opts);
    if (!found) return undefined;
    for (const [k, v] of found) values.set(k, v);
  }
  const r = quantileLine((k) => (k >= nn ? NaN : values.get(k)!), len, x.dtype, n.dtype, spec);
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
  const spread = margin * Math.sqrt(m) + margin;
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
  const take = (vs: TypedArray): void => {
    const a = vs as unknown as ArrayLike<Value>;
    for (let j = 0; j < a.length; j++) {
      const v = a[j]!;
      for (let i = 0; i < brackets.length; i++) if (v >= brackets[i]!.lo && v <= brackets[i]!.hi) kept[i]!.push(v);
    }
  };
  const len = x.shape[0]!, chunk = x.chunk[0]!, chunks = Math.ceil(len / chunk);
  if (store.has?.(x) && store.chunkView) {
    for (let i = 0; i < chunks; i++) take(store.chunkView(x, i));
  } else {
    const group = chunk * Math.max(1, Math.min(4, Math.floor(MAX_HELD / chunk)));
    for (let start = 0; start < len; start += group) {
      const part = slice(x, [start], [1], [Math.min(group, len - start)]);
      await store.run([part], opts);
      take(store.read(part));
      store.drop!(part);
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
