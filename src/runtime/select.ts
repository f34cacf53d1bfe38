// Quantiles of a 1-d array of several chunks by selection, never gathered
// whole (DESIGN.md, "Nothing is gathered whole"; issue 31 item 3). In: the
// quantile node and the store. Out: the stored result, or undefined where no
// bracket could be placed (the host's whole-line path in resolve.ts then
// computes it, after TRIES misses). Two passes over the input, which may be lazy (a random draw
// that is never stored):
//   1. a strided sample (a slice node: only its own elements are computed),
//      sorted on the host; from its NaN share and the ranks quantileLine reads
//      (found by probing it), a bracket [lo, hi] of values around each rank,
//      MARGIN standard deviations of a sampled rank wide;
//   2. one streaming pass, a few chunks at a time (a stored input's chunk
//      views, or slices of a lazy one run and dropped, the next computed
//      while the host reads this one; in a mesh session the sample and the
//      slices run on the peers): the NaN count, the least and greatest
//      values, how many values fall below each bracket, and the values inside
//      it, in input order (at most MAX_HELD of them; past that only counted).
// With the exact counts the ranks are known; each must fall inside its
// bracket's values, which are then sorted stably (-0 equal to 0, as the
// whole-line radix sort orders them) and read; else a bracket MARGIN_GROWTH
// times wider is tried. quantileLine's own arithmetic then turns the order
// statistics into NumPy's bits for every method. The counts are the host's,
// not fused reductions: each reduction is a pass of its own over the input
// (a lazy draw recomputed), and the filtering pass reads every value anyway.

import { ARRAY_CTOR, type DType, INFO, type TypedArray } from '../graph/dtype.js';
import { type Attrs, type Node, slice, source } from '../graph/node.js';
import { quantileLine } from '../numerics/quantile.js';
import type { QuantileSpec } from '../graph/quantile.js';
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
  /** Whether stored `n` is held on mesh workers, not here. */
  remoteOf?(n: Node): unknown;
}

/** Dtypes whose values order as JS numbers (NaNs apart) or, int64's, as BigInts do. */
const SELECTABLE = new Set<DType>([
  'float64', 'float32', 'int64', 'int32', 'int16', 'int8', 'uint32', 'uint16', 'uint8',
]);
/**
 * Bounds on the sample's size: a sort of it is cheap; a rank's error in it
 * is ~ n / sqrt(size) values. At the largest, a median's bracket over 1e10
 * values holds ~1.5e7 of them, within MAX_HELD.
 */
const MIN_SAMPLE = 1 << 16, MAX_SAMPLE = 1 << 24;
/** A bracket's half-width, in standard deviations of a sampled rank (sqrt(m p (1 - p)) <= sqrt(m) / 2 positions). */
const MARGIN = 6;
/** How much wider each retry's brackets are, and how many retries there are. */
const MARGIN_GROWTH = 4, TRIES = 3;
/** Chunks of a lazy input computed per run of the filtering pass (two such runs are held at once). */
const GROUP = 4;
/** Bracketed values a sample is sized to leave about a quarter of in a bracket; at most MAX_HELD are held (2^25 doubles: 256 MiB). */
const HELD = 1 << 22, MAX_HELD = 1 << 25;

/** Whether quantile node `n` is computed here: a 1-d line of several chunks of a selectable dtype. */
export function selects(n: Node, store: SelectStore): boolean {
  const x = n.inputs[0];
  return n.op === 'quantile' && x !== undefined && x.shape.length === 1 && x.shape[0]! > x.chunk[0]!
    && SELECTABLE.has(x.dtype) && SELECTABLE.has(n.dtype) && store.drop !== undefined;
}

let counter = 0;
/** Runs `nodes` into the store: on the mesh where the run has a session (results come back here), else locally. */
function stage(nodes: readonly Node[], store: SelectStore, opts: RunOptions): Promise<unknown> {
  if (!opts.session) return store.run(nodes, opts);
  return opts.session.runNodes([...nodes], undefined, opts.debug !== undefined ? { debug: opts.debug } : {});
}
/** A value of the line: a number, or int64's BigInt. */
type Value = number | bigint;
/** Ascending, stable, -0 equal to 0 (NaNs are never compared: they are left out). */
const order = (p: Value, q: Value): number => (p < q ? -1 : p > q ? 1 : 0);

/** The ranks (0-based, NaNs last) quantileLine reads for a line of `len` values, `nn` of them not NaN. */
function ranksRead(len: number, nn: number, x: DType, out: DType, spec: QuantileSpec): number[] {
  const ranks = new Set<number>();
  // a rank among the NaNs reads NaN: no value to find
  quantileLine((k) => { if (k < nn) ranks.add(k); return k < nn ? 0 : NaN; }, len, x, out, spec, (k) => k >= nn);
  return [...ranks].sort((p, q) => p - q);
}

export async function selectQuantiles(n: Node, store: SelectStore, opts: RunOptions): Promise<Node | undefined> {
  const x = n.inputs[0]!;
  const { spec } = n.attrs as Attrs['quantile'];
  const len = x.shape[0]!;
  // a sample large enough that a bracket (~ len * MARGIN / sqrt(size) values) holds under a quarter of HELD,
  // up to MAX_SAMPLE; at least every other value, so that a short line is bracketed too
  const size = Math.min(MAX_SAMPLE, Math.max(MIN_SAMPLE, Math.ceil((4 * MARGIN * len / HELD) ** 2)));
  const stride = Math.max(2, Math.floor(len / size));
  const sampleNode = slice(x, [0], [stride], [Math.ceil(len / stride)]);
  await stage([sampleNode], store, opts);
  // every try's brackets from the sample at once: the sample (up to 2^24 values) goes before the passes
  const tries = ((): Bracket[][] => {
    // the typed array's own sort (NaNs last, cut off): the sample only places brackets, so -0 before 0 does not matter
    const sorted = store.read(sampleNode).sort(); // (read gives a copy of its own: sorted in place)
    store.drop!(sampleNode);
    const firstNaN = x.dtype.startsWith('float') ? (sorted as Float64Array).findIndex((v) => v !== v) : -1;
    const sample = sorted.subarray(0, firstNaN < 0 ? sorted.length : firstNaN) as unknown as ArrayLike<Value>;
    // ranks for the sample's share of NaNs: the pass counts them exactly, and the brackets' margin covers the difference
    const nnGuess = Math.round((len * sample.length) / sorted.length);
    const ks = ranksRead(len, nnGuess, x.dtype, n.dtype, spec);
    return Array.from({ length: TRIES }, (_, t) => brackets(ks, nnGuess, sample, MARGIN * MARGIN_GROWTH ** t));
  })();
  for (const guessed of tries) {
    const pass = await filtered(x, guessed, store, opts);
    const nn = len - pass.nans;
    const values = new Map<number, Value>();
    let ok = true;
    for (const k of ranksRead(len, nn, x.dtype, n.dtype, spec)) {
      if (k === 0 || k === nn - 1) { values.set(k, k === 0 ? pass.least! : pass.greatest!); continue; }
      const b = pass.brackets.find((q) => k >= q.below && k < q.below + q.count && q.kept);
      if (!b) { ok = false; break; }
      values.set(k, b.kept![k - b.below]!);
    }
    if (!ok) continue;
    const r = quantileLine((k) => (k >= nn ? NaN : values.get(k)!), len, x.dtype, n.dtype, spec, (k) => k >= nn);
    const out = new ARRAY_CTOR[n.dtype](r.length) as unknown as Value[];
    r.forEach((v, i) => { out[i] = n.dtype === 'int64' ? BigInt(v) : Number(v); });
    const s = source(`selected${counter++}`, n.dtype, n.shape, chunkGrid(n.shape, INFO[n.dtype].bytes));
    store.put(s, out as unknown as TypedArray);
    return s;
  }
  return undefined;
}

interface Bracket { lo: Value; hi: Value }

/** Disjoint brackets, ascending, around the ranks `ks` of `nn` values, placed by the sorted sample. */
function brackets(ks: readonly number[], nn: number, sample: ArrayLike<Value>, margin: number): Bracket[] {
  const m = sample.length;
  const out: Bracket[] = [];
  // a sample of NaNs only places nothing: one bracket of every value, kept if there are few enough
  if (!m) return ks.length ? [{ lo: -Infinity, hi: Infinity }] : out;
  for (const k of ks) {
    const at = (k / Math.max(1, nn - 1)) * (m - 1);
    // a sampled rank's deviation is sqrt(m p (1 - p)) positions: a tail quantile's bracket is narrower than the median's
    const p = Math.min(1, Math.max(0, k / Math.max(1, nn - 1)));
    const spread = margin * Math.sqrt(m * Math.max(p * (1 - p), 1 / m)) + 2;
    const a = Math.floor(at - spread), b = Math.ceil(at + spread);
    const lo = a < 0 ? -Infinity : sample[a]!, hi = b >= m ? Infinity : sample[b]!;
    const last = out[out.length - 1];
    if (last && lo <= last.hi) last.hi = hi > last.hi ? hi : last.hi;
    else out.push({ lo, hi });
  }
  return out;
}

interface Pass {
  nans: number;
  least: Value | undefined;
  greatest: Value | undefined;
  /** Per bracket: the values below it, the values inside it, and those values sorted (unless there were too many). */
  brackets: { below: number; count: number; kept: ArrayLike<Value> | undefined }[];
}

/** The filtering pass: counts, the least and greatest values, and each bracket's values, in input order then sorted. */
async function filtered(x: Node, bs: readonly Bracket[], store: SelectStore, opts: RunOptions): Promise<Pass> {
  const k = bs.length;
  // gap[i]: values between bracket i-1 and bracket i (gap[k]: above the last); inside[i]: in bracket i
  const gap = new Array<number>(k + 1).fill(0), inside = new Array<number>(k).fill(0);
  const kept: (Value[] | undefined)[] = bs.map(() => []);
  const lows = bs.map((b) => b.lo), highs = bs.map((b) => b.hi);
  // the least value below every bracket and the greatest above them (where there are such): the first of equal least
  // values and the last of equal greatest ones, ranks 0 and n-1 in stable order; NaN compares false to both ends
  const first = k ? lows[0]! : Infinity, last = k ? highs[k - 1]! : -Infinity;
  let nans = 0, held = 0, least: Value = first, greatest: Value = last;
  const keep = (i: number, v: Value): void => {
    inside[i]!++;
    const into = kept[i];
    if (!into) return;
    if (held++ < MAX_HELD) into.push(v);
    else kept[i] = undefined;
  };
  const take = (vs: TypedArray): void => {
    // the counters of the hot loop in locals (the closure's own are context slots), written back after
    const a = vs as unknown as ArrayLike<Value>;
    let below = 0, above = 0, nan = 0, lo = least, hi = greatest;
    for (let j = 0; j < a.length; j++) {
      const v = a[j]!;
      if (v < first) { below++; if (v < lo) lo = v; continue; }
      if (v > last) { above++; if (v >= hi) hi = v; continue; }
      if (v !== v) { nan++; continue; }
      for (let i = 0; i < k; i++) {
        if (v < lows[i]!) { gap[i]!++; break; }
        if (v <= highs[i]!) { keep(i, v); break; }
      }
    }
    gap[0]! += below; gap[k]! += above; nans += nan; least = lo; greatest = hi;
  };
  const len = x.shape[0]!, chunk = x.chunk[0]!;
  const chunksOf = (m: number): number => Math.ceil(m / chunk);
  if (store.has?.(x) && !store.remoteOf?.(x) && store.chunkView) {
    // stored here: its chunks read in place
    for (let i = 0; i < chunksOf(len); i++) take(store.chunkView(x, i));
  } else {
    // lazy: slices of GROUP chunks computed and dropped, the next one computed while the host reads this one
    const group = chunk * GROUP;
    const part = (start: number): Node => slice(x, [start], [1], [Math.min(group, len - start)]);
    let cur = part(0), running = stage([cur], store, opts);
    for (let start = 0; start < len; start += group) {
      await running;
      const next = start + group < len ? part(start + group) : undefined;
      if (next) running = stage([next], store, opts);
      if (store.chunkView) for (let i = 0; i < chunksOf(cur.shape[0]!); i++) take(store.chunkView(cur, i));
      else take(store.read(cur));
      store.drop!(cur);
      if (next) cur = next;
    }
  }
  const out: Pass['brackets'] = [];
  let below = 0;
  for (let i = 0; i < k; i++) {
    below += gap[i]!;
    out.push({ below, count: inside[i]!, kept: kept[i] && stableSorted(kept[i]!, x.dtype) });
    kept[i] = undefined; // (its JS array goes: the sorted copy stays)
    below += inside[i]!;
  }
  // with nothing below the first bracket (above the last), the end value is its first (last) kept one
  const end = (b: Pass['brackets'][number] | undefined, at: (vs: ArrayLike<Value>) => Value | undefined): Value | undefined =>
    (b?.kept?.length ? at(b.kept) : undefined);
  return {
    nans,
    least: gap[0] ? least : end(out[0], (vs) => vs[0]),
    greatest: gap[k] ? greatest : end(out[k - 1], (vs) => vs[vs.length - 1]),
    brackets: out,
  };
}

/**
 * Values sorted ascending, ties in input order (-0 equal to 0, as the
 * whole-line radix sort orders them): the typed array's native sort, which
 * puts -0 before 0, with the run of zeros then rewritten in input order.
 */
function stableSorted(vs: Value[], d: DType): ArrayLike<Value> {
  if (d === 'float16' || vs.length < 64) return vs.sort(order);
  // the typed array itself, not a JS array copy of it: a bracket over 1e10 values holds ~1.5e7 of them
  const out = (ARRAY_CTOR[d] as unknown as { from(v: Value[]): TypedArray }).from(vs).sort() as unknown as Value[];
  if (!d.startsWith('float')) return out;
  let z = out.findIndex((v) => v === 0);
  if (z < 0) return out;
  for (const v of vs) if (v === 0) out[z++] = v;
  return out;
}
