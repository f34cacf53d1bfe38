// pandas' groupby over chunked columns, with nothing gathered whole. Each
// key column becomes a dense code per row (a string column's dictionary
// rank, an integer's offset from its minimum, a float's rank among its
// distinct values), the codes of several keys one composite number in the
// keys' lexicographic order, and that a group number: the composite itself
// when the key space is small, else a number among the composites present
// given by a hash shuffle (each partition's own hash table; no sort). Then
// the runtime's `gfold` routine (runtime/group.ts) folds each block of
// chunks into a row of partial aggregates per group, and plain reductions
// over the rows combine them (a tree of reductions, the tensor layer's), or
// a shuffle moves each group's rows to one partition. Groups with no row
// drop out by a chunked selection; pandas' sort=False order is the groups'
// first rows'. cumcount (and head) number each group's rows by a scan over
// the chunks (per-chunk counts, their running sum), not a sort.
// A variance takes a second fold around each group's mean (as NumPy's two
// passes, not a sum of squares). Every result column is a lazy 1-d tensor
// whose length (the number of groups) is known when it runs; a key whose
// range the graph cannot know yet (an integer's minimum and maximum, a
// float's distinct values) defers the build until the run has it.

import * as mt from '../api/tensor.js';
import { Tensor, onValues } from '../api/core.js';
import * as G from '../graph/node.js';
import { type DType, INFO } from '../graph/dtype.js';
import { FOLD, type Fold } from '../runtime/group.js';
import { type Column, dtypeName } from './series.js';

export interface GroupByOptions {
  /** Groups in key order (default); false: in the order of their first rows. */
  readonly sort?: boolean;
  /** Rows with a missing key belong to no group (default); false: missing is a group of its own, last. */
  readonly dropna?: boolean;
  /** The keys as the result's index (default); false: as its first columns. */
  readonly as_index?: boolean;
  /** pandas' observed: the groups are always the key values present (observed=True); false is refused. */
  readonly observed?: boolean;
  /**
   * How partial aggregates meet: 'tree' (each block of chunks folds every
   * group, the rows of partials reduced in a tree), 'shuffle' (rows moved
   * to the partition of their group first, each partition folding its
   * groups alone), or 'auto' (default): the tree unless fewer than
   * TREE_CALLS calls' partials fit PARTIAL_BYTES, as with many groups, and the
   * rows it would copy take less than SHUFFLE_BYTES. A
   * median or nunique needs each group's rows together: it always folds
   * by the shuffle.
   */
  readonly method?: 'tree' | 'shuffle' | 'auto';
}

/** The aggregations a groupby computes. */
export const AGGS = ['sum', 'mean', 'min', 'max', 'count', 'size', 'std', 'var', 'median', 'nunique', 'prod', 'first', 'last', 'any', 'all'] as const;
export type Agg = (typeof AGGS)[number];
/** Those that only numeric columns take (pandas drops other columns from a whole-frame call). */
const NUMERIC: ReadonlySet<Agg> = new Set(['sum', 'mean', 'std', 'var', 'median', 'prod']);
export const isAgg = (s: unknown): s is Agg => typeof s === 'string' && (AGGS as readonly string[]).includes(s);
export const numericOnly = (a: Agg): boolean => NUMERIC.has(a);

/** One aggregation asked for: a column, what to compute, and the result column's name. */
export interface Request { readonly column: string; readonly agg: Agg | RowOp; readonly name: string }
/** What a groupby computes per row rather than per group (its frame's rows, in their order). */
export type RowOp = 'cumcount' | 'cumsum';

/** A groupby's options as the build reads them; `rows`: a result per row of the frame (transform, cumcount, cumsum), not per group. */
export type AggOptions = Required<Pick<GroupByOptions, 'sort' | 'dropna' | 'as_index'>> & Pick<GroupByOptions, 'method'> & { readonly rows?: boolean };

/**
 * Group numbers past `dense` are numbered among the composites present (a
 * hash shuffle) instead of used as they are; the shuffle's partitions take
 * about `hashRows` rows each (at least one partition per chunk). Tests lower
 * them to run these paths over small frames.
 */
export const groupLimits = { dense: 1 << 22, hashRows: 1 << 17 };
/** Partial bytes a tree's calls may take together: with many groups, a call folds more chunks (fewer rows to combine). */
const PARTIAL_BYTES = 1 << 26;
/** Calls a tree keeps at least (or one per chunk): fewer would leave cores idle, and the shuffle runs instead. */
const TREE_CALLS = 8;
/**
 * Bytes of rows past which a shuffle's copy (the group numbers and every
 * column it reorders) costs more memory than a tree whose partials take an
 * eighth of it: 'auto' then folds by the tree, with fewer, longer calls (a
 * 1e8-row groupby of 1e6 groups keeps to a few hundred MiB of partials
 * instead of a 2 GB copy).
 */
const SHUFFLE_BYTES = 1 << 29;

/** What a key contributes: per-row codes in [0, size), -1 for a missing key, and the key's values back from a code. */
interface KeyCode { code: Tensor; size: number; decode: (code: Tensor) => Column }

const codePointOrder = (a: string, b: string): number => {
  // Python compares str by code point; JS's < by UTF-16 unit (they differ past U+FFFF)
  const x = [...a], y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i]!.codePointAt(0)! - y[i]!.codePointAt(0)!;
    if (d) return d;
  }
  return x.length - y.length;
};

const isInt = (d: DType): boolean => d.startsWith('int') || d.startsWith('uint');
const I32 = (t: Tensor): Tensor => mt.astype(t, 'int32');

/** A string key: its dictionary's ranks (sorted) or the dictionary's order. */
function stringKey(c: Column, sort: boolean, dropna: boolean): KeyCode {
  const dict = c.dict!;
  const order = dict.map((_, i) => i);
  if (sort) order.sort((a, b) => codePointOrder(dict[a]!, dict[b]!));
  const rank = new Int32Array(dict.length);
  order.forEach((code, r) => { rank[code] = r; });
  const D = dict.length;
  const codes = c.values;
  const ranked = sort ? mt.take(mt.tensor(rank), mt.maximum(codes, 0)) : codes;
  const code = mt.where(mt.less(codes, 0), dropna ? -1 : D, ranked);
  const newDict = order.map((i) => dict[i]!);
  return { code: I32(code), size: dropna ? D : D + 1, decode: (k) => ({ values: I32(mt.where(mt.equal(k, D), -1, k)), dict: newDict, missing: 'NaN' }) };
}

/** An integer key between `lo` and `hi`: its offset from lo. */
function intKey(c: Column, lo: number, hi: number): KeyCode {
  const dt = c.values.dtype;
  return {
    code: mt.subtract(mt.astype(c.values, 'int64'), lo), size: hi - lo + 1,
    decode: (k) => ({ values: mt.astype(mt.add(mt.astype(k, 'int64'), lo), dt) }),
  };
}

/** A key ranked among its distinct values (np.unique's inverse): floats, and integers over a wide range. NaN (missing) ranks last. */
function rankedKey(c: Column, distinct: Tensor, inverse: Tensor, dropna: boolean): KeyCode {
  const floats = c.values.dtype.startsWith('float');
  const n = distinct.shape[0]!;
  const code = floats && dropna ? mt.where(mt.isnan(c.values), -1, inverse) : inverse;
  return { code: mt.astype(code, 'int64'), size: n, decode: (k) => ({ values: mt.take(distinct, k) }) };
}

/** A bool key: 0 or 1. */
function boolKey(c: Column): KeyCode {
  return { code: I32(c.values), size: 2, decode: (k) => ({ values: mt.astype(k, 'bool') }) };
}

/** The column an aggregation writes: its dtype as pandas gives it. */
function resultDType(agg: Agg, c: Column): DType | 'dict' {
  const d = c.values.dtype;
  switch (agg) {
    case 'count': case 'size': case 'nunique': return 'int64';
    case 'mean': case 'std': case 'var': case 'median': return 'float64';
    case 'sum': case 'prod': return d.startsWith('float') ? d : 'int64';
    case 'any': case 'all': return 'bool';
    default: return c.dict ? 'dict' : d;
  }
}

/** The fold that combines a slot's partials across calls. */
function combine(fold: Fold, t: Tensor): Tensor {
  switch (fold) {
    case 'min': case 'first': case 'all': return mt.min(t, { axis: 0 });
    case 'max': case 'last': case 'any': return mt.max(t, { axis: 0 });
    case 'prod': return mt.prod(t, { axis: 0 });
    default: return mt.sum(t, { axis: 0 });
  }
}

/** The slots of one gfold node, deduplicated, and what each reads. */
class Slots {
  readonly ops: number[] = [];
  readonly vals: number[] = [];
  readonly aux: number[] = [];
  private readonly at = new Map<string, number>();
  constructor(readonly int64: boolean) {}
  add(fold: Fold, value: number, aux = -1): number {
    const key = `${fold}/${value}/${aux}`;
    let s = this.at.get(key);
    if (s === undefined) {
      s = this.ops.length;
      this.ops.push(FOLD[fold]); this.vals.push(value); this.aux.push(aux);
      this.at.set(key, s);
    }
    return s;
  }
}

/**
 * The aggregates of `slots` per group over the rows (group numbers `gid`
 * in [0, G), value inputs `values`, [G] tables `tables`), one [G] tensor
 * per slot: by a tree of partials or by a shuffle (GroupByOptions.method).
 */
function fold(
  gid: Tensor, G_: number, values: readonly Tensor[], na: readonly number[], slots: Slots, tables: readonly Tensor[], method: AggOptions['method'],
  shared: Map<number, Tensor> = new Map(),
): Tensor[] {
  const n = gid.shape[0]!, c = Math.max(1, gid.node.chunk[0]!);
  const chunks = Math.max(1, Math.ceil(n / c));
  const S = slots.ops.length;
  // calls whose partials fit PARTIAL_BYTES together: a block of chunks per call
  const partialBytes = 8 * S * Math.max(1, G_);
  // a median or a count of distinct values needs each group's rows in one call: only a shuffle gives that
  const whole = slots.ops.some((op) => op === FOLD.median || op === FOLD.nunique);
  const moved = n * values.reduce((a, v) => a + INFO[v.dtype].bytes, 4);
  const big = !whole && method !== 'shuffle' && moved > SHUFFLE_BYTES;
  const fit = Math.floor((big ? Math.max(PARTIAL_BYTES, moved / 8) : PARTIAL_BYTES) / partialBytes);
  const per = Math.max(1, Math.ceil(chunks / Math.max(1, fit)));
  // the tree while it keeps TREE_CALLS calls in parallel (or one per chunk), else the shuffle, unless its copy is big
  const shuffle = chunks > 1 && (whole || method === 'shuffle' || (method !== 'tree' && !big && fit < Math.min(chunks, TREE_CALLS)));
  if (shuffle) return foldShuffled(gid, G_, values, na, slots, tables, shared);
  const calls: G.RoutineCall[] = [];
  const E = tables.length, m = values.length;
  for (let p = 0, call = 0; p < chunks; p += per, call++) {
    const reads: G.RoutineCall['reads'][number][] = tables.map((_, e) => ({ input: e, box: [[0, G_]] as [number, number][] }));
    for (let k = p; k < Math.min(chunks, p + per); k++) {
      const box: [number, number][] = [[k * c, Math.min(n, (k + 1) * c)]];
      reads.push({ input: E, box });
      for (let v = 0; v < m; v++) reads.push({ input: E + 1 + v, box });
    }
    calls.push({ routine: 'gfold', params: { G: G_, E, m, ops: slots.ops, vals: slots.vals, aux: slots.aux, na }, reads, chunk: call });
  }
  const rows = calls.length;
  const node = G.routine('groupby.fold', [...tables, gid, ...values].map((t) => t.node), calls, slots.int64 ? 'int64' : 'float64', [rows, S, G_], [1, S, G_]);
  const partials = new Tensor(node);
  return slots.ops.map((op, s) => {
    const row = partials.get(mt.slice(null), s, mt.slice(null));
    return rows === 1 ? mt.reshape(row, [G_]) : combine(foldName(op), row);
  });
}

const foldName = (op: number): Fold => (Object.keys(FOLD) as Fold[]).find((k) => FOLD[k] === op)!;

/** Partitions a shuffle moves rows into: one per chunk, up to this many. */
const MAX_PARTITIONS = 64;

/**
 * A groupby's shuffle: P partitions of Gp groups each; every chunk's rows
 * (group numbers and value inputs) stably reordered by partition (gbucket)
 * and counted per partition (gcount, the only numbers the host reads: P + 1
 * per chunk); then partition p folds the box of its rows in every chunk
 * (gfold with lo = p·Gp), whose groups no other partition has: no combine.
 * A row's position is lost in the reordering, so first and last fold the
 * rows' positions as values (min and max; -1 where the value is missing).
 */
function foldShuffled(
  gid: Tensor, G_: number, values: readonly Tensor[], na: readonly number[], slots: Slots, tables: readonly Tensor[],
  shared: Map<number, Tensor>,
): Tensor[] {
  const n = gid.shape[0]!, c = Math.max(1, gid.node.chunk[0]!), k = Math.ceil(n / c);
  const P = Math.min(MAX_PARTITIONS, k), Gp = Math.ceil(Math.max(1, G_) / P);
  const all = [...values], allNa = [...na], ops = [...slots.ops], vs = [...slots.vals];
  ops.forEach((op, s) => {
    if (op !== FOLD.first && op !== FOLD.last) return;
    const x = all[vs[s]! - 1]!;
    const missing = allNa[vs[s]! - 1] ? mt.less(x, 0)
      : x.dtype.startsWith('float') ? mt.isnan(x) : mt.zeros_like(x, { dtype: 'bool' });
    all.push(mt.where(missing, -1, mt.arange(n, { dtype: 'int64', chunkSize: c })));
    allNa.push(1);
    vs[s] = all.length;
    ops[s] = op === FOLD.first ? FOLD.min : FOLD.max;
  });
  // only the inputs a slot reads move (each once per groupby: the float and the integer folds share them)
  const used = [...new Set(vs.filter((v) => v > 0))].sort((a, b) => a - b);
  const vals = used.map((v) => all[v - 1]!), nas = used.map((v) => allNa[v - 1]!);
  vs.forEach((v, s) => { vs[s] = v > 0 ? used.indexOf(v) + 1 : 0; });
  const chunkCalls = (routine: string, params: G.RoutineParams, inputs: number, extent: (j: number) => number): G.RoutineCall[] =>
    Array.from({ length: k }, (_, j) => ({
      routine, params, chunk: j,
      reads: Array.from({ length: inputs }, (_, i) => ({ input: i, box: [[j * c, j * c + extent(j)]] as [number, number][] })),
    }));
  const rowsOf = (j: number): number => Math.min(n, (j + 1) * c) - j * c;
  const once = (key: number, make: () => Tensor): Tensor => {
    let t = shared.get(key);
    if (!t) shared.set(key, (t = make()));
    return t;
  };
  // (keyed by node: -1 for the counts, every fold of a groupby having one gid and so one partitioning)
  const counts = once(-1, () => new Tensor(G.routine(
    'groupby.count', [gid.node], chunkCalls('gcount', { P, Gp }, 1, rowsOf), 'int64', [k, P + 1], [1, P + 1])));
  const bucket = (x: Tensor): Tensor => once(x.node.id, () => new Tensor(G.routine(
    'groupby.bucket', [gid.node, x.node], chunkCalls('gbucket', { P, Gp }, 2, rowsOf), x.dtype, [n], [c])));
  const bucketed = [gid, ...vals].map(bucket);
  const padded = tables.map((t) => (P * Gp > G_ ? mt.concatenate([t, mt.zeros([P * Gp - G_], { dtype: t.dtype })]) : t));
  const S = ops.length, E = padded.length, m = vals.length;
  const params = { G: Gp, E, m, ops, vals: vs, aux: slots.aux, na: nas };
  const partials = onValues('groupby', counts, [...padded, ...bucketed], slots.int64 ? 'int64' : 'float64', [P, S, Gp], (cv, ts) => {
    const calls: G.RoutineCall[] = [];
    for (let p = 0; p < P; p++) {
      const reads: G.RoutineCall['reads'][number][] = padded.map((_, e) => ({ input: e, box: [[p * Gp, (p + 1) * Gp]] as [number, number][] }));
      for (let j = 0; j < k; j++) {
        // partition p's rows of chunk j: after those of the partitions before it
        let from = j * c;
        for (let q = 0; q < p; q++) from += cv[j * (P + 1) + q]!;
        const box: [number, number][] = [[from, from + cv[j * (P + 1) + p]!]];
        for (let i = 0; i <= m; i++) reads.push({ input: E + i, box });
      }
      calls.push({ routine: 'gfold', params: { ...params, lo: p * Gp }, reads, chunk: p });
    }
    return new Tensor(G.routine('groupby.fold', ts.map((t) => t.node), calls, slots.int64 ? 'int64' : 'float64', [P, S, Gp], [1, S, Gp]));
  });
  return ops.map((_, s) => mt.reshape(partials.get(mt.slice(null), s, mt.slice(null)), [P * Gp]).get(mt.slice(0, G_)));
}

/** A column an aggregation reads, as the fold reads it: a string column's ranks (so min and max order as strings), and whether a negative value is missing. */
interface Input { values: Tensor; na: number; dict?: readonly string[] }

function inputOf(c: Column): Input {
  if (!c.dict) return { values: c.values, na: 0 };
  const order = c.dict.map((_, i) => i).sort((a, b) => codePointOrder(c.dict![a]!, c.dict![b]!));
  const rank = new Int32Array(c.dict.length);
  order.forEach((code, r) => { rank[code] = r; });
  return { values: I32(mt.where(mt.less(c.values, 0), -1, mt.take(mt.tensor(rank), mt.maximum(c.values, 0)))), na: 1, dict: order.map((i) => c.dict![i]!) };
}

/**
 * A running count or sum within each row's group, in row order: the rows
 * stably sorted by group (so each group's in their order), the count or
 * sum from its group's start, and back to row order. A missing value
 * stays NaN and adds nothing. A row in no group (a missing key) gets -1
 * as its count and NaN as a float sum, 0 as an integer one: pandas 1.5
 * makes such a result float64 with NaN there, a dtype that depends on the
 * data, which a lazy column cannot promise.
 */
function perRow(op: RowOp, gid: Tensor, G_: number, x: Tensor, size: Tensor): Tensor {
  if (op === 'cumcount') {
    const scanned = scannedCount(gid, G_);
    if (scanned) return scanned;
  }
  const order = mt.argsort(gid, { kind: 'stable' });
  const back = mt.argsort(order, { kind: 'stable' });
  const outside = mt.sum(mt.less(gid, 0));
  const sizes = mt.astype(size, 'int64');
  const start = mt.add(mt.subtract(mt.cumsum(sizes), sizes), outside);
  const groups = mt.take(gid, order);
  const first = mt.where(mt.less(groups, 0), 0, mt.take(start, mt.maximum(groups, 0)));
  const none = mt.less(gid, 0);
  if (op === 'cumcount') return mt.where(none, -1, mt.take(mt.subtract(mt.arange(gid.shape[0]!, { dtype: 'int64' }), first), back));
  const floats = x.dtype.startsWith('float');
  const v = mt.take(floats ? mt.where(mt.isnan(x), 0, x) : mt.astype(x, 'int64'), order);
  const run = mt.cumsum(v);
  const before = mt.take(mt.concatenate([mt.zeros([1], { dtype: run.dtype }), run]), first);
  const sums = mt.take(mt.subtract(run, before), back);
  return floats ? mt.where(mt.logical_or(mt.isnan(x), none), NaN, sums) : mt.where(none, 0, sums);
}

/** Cells of the per-chunk counts a scanned cumcount may keep ([chunks, groups] int64): past it, the sort. */
const SCAN_CELLS = 1 << 23;

/**
 * A cumcount without a sort: each chunk's rows counted per group (gfold's
 * size, one call per chunk), their running sum over the chunks before each
 * one (the tensor layer's cumsum), and each chunk's rows numbered from its
 * groups' counts before it (gscan). Undefined where the counts would take
 * more than SCAN_CELLS (many groups over many chunks).
 */
function scannedCount(gid: Tensor, G_: number): Tensor | undefined {
  const n = gid.shape[0]!, c = Math.max(1, gid.node.chunk[0]!), k = Math.max(1, Math.ceil(n / c)), g = Math.max(1, G_);
  if (n === 0 || k * g > SCAN_CELLS) return undefined;
  const box = (j: number): [number, number][] => [[j * c, Math.min(n, (j + 1) * c)]];
  const params = { G: g, E: 0, m: 0, ops: [FOLD.size], vals: [0], aux: [-1], na: [] };
  const counts = new Tensor(G.routine('groupby.sizes', [gid.node], Array.from({ length: k }, (_, j) => ({
    routine: 'gfold', params, chunk: j, reads: [{ input: 0, box: box(j) }],
  })), 'int64', [k, 1, g], [1, 1, g]));
  const before = mt.subtract(mt.cumsum(counts, { axis: 0 }), counts);
  return new Tensor(G.routine('groupby.scan', [gid.node, before.node], Array.from({ length: k }, (_, j) => ({
    routine: 'gscan', params: { G: g }, chunk: j,
    reads: [{ input: 0, box: box(j) }, { input: 1, box: [[j, j + 1], [0, 1], [0, g]] as [number, number][] }],
  })), 'int64', [n], [c]));
}

/** What a groupby computes, once the keys' ranges are known: the key columns and the aggregations', every one of the groups' length. */
interface Built { keys: Column[]; aggs: Column[] }

/**
 * The groups of `keys` over the rows, and `requests` over them. `ranges`:
 * each integer key's [min, max] and each ranked key's distinct values and
 * inverse, as the caller knows them now.
 */
function build(
  keyCols: readonly Column[], keyCodes: readonly KeyCode[], cols: ReadonlyMap<string, Column>, requests: readonly Request[], opts: AggOptions,
): Built {
  // the composite code, in the keys' lexicographic order
  let space = 1;
  for (const k of keyCodes) space *= Math.max(1, k.size);
  if (space > 2 ** 62) {
    // the composite would overflow int64: rank the wide integer keys among their distinct values first
    const wide = keyCols.map((k, j) => (!k.dict && isInt(k.values.dtype) && keyCodes[j]!.size > 1 << 16 ? j : -1)).filter((j) => j >= 0);
    if (!wide.length) throw new RangeError(`groupby: ${keyCodes.length} keys span ${space} possible groups, past int64`);
    const pairs = wide.map((j) => mt.unique(keyCols[j]!.values, { return_inverse: true }) as [Tensor, Tensor]);
    return lazily(templates(keyCols, cols, requests, opts.sort, opts.rows), keyCount(keyCols, opts), pairs.flat(), (ts) => build(
      keyCols, keyCodes.map((k, j) => (wide.includes(j) ? rankedKey(keyCols[j]!, ts[2 * wide.indexOf(j)]!, ts[2 * wide.indexOf(j) + 1]!, opts.dropna) : k)),
      cols, requests, opts), resultLength(keyCols, opts));
  }
  const strides = keyCodes.map((_, j) => keyCodes.slice(j + 1).reduce((a, k) => a * Math.max(1, k.size), 1));
  const wide = space > 2 ** 31 - 1;
  let composite: Tensor = mt.astype(keyCodes[0]!.code, wide ? 'int64' : 'int32');
  let missing: Tensor = mt.less(keyCodes[0]!.code, 0);
  for (let j = 1; j < keyCodes.length; j++) {
    composite = mt.add(mt.multiply(composite, keyCodes[j]!.size), mt.astype(keyCodes[j]!.code, wide ? 'int64' : 'int32'));
    missing = mt.logical_or(missing, mt.less(keyCodes[j]!.code, 0));
  }
  if (keyCodes.length > 1) composite = mt.where(missing, -1, composite);
  if (space <= groupLimits.dense) {
    return grouped(I32(composite), space, mt.arange(space, { dtype: wide ? 'int64' : 'int32' }), keyCodes, strides, keyCols, cols, requests, opts);
  }
  // too many possible groups: number the composites present by a hash shuffle, and group by number
  const [codes, gid] = hashGroups(composite);
  const tpl = templates(keyCols, cols, requests, opts.sort, opts.rows);
  return lazily(tpl, keyCount(keyCols, opts), [codes, gid],
    (ts) => grouped(ts[1]!, ts[0]!.shape[0]!, ts[0]!, keyCodes, strides, keyCols, cols, requests, opts, false),
    resultLength(keyCols, opts));
}

/** Partitions a hash shuffle makes at most (else more rows than groupLimits.hashRows each). */
const MAX_HASH_PARTITIONS = 256;

/**
 * The composite codes present, numbered without a sort: every chunk's rows
 * counted and stably ordered by the partition of their code's hash (P
 * partitions: one per chunk, more for smaller tables), each partition's codes
 * numbered by first appearance with a hash table (hfactor: at most N rows,
 * the largest partition's), and each row's group number p·N + its local
 * number, back in row order (hunbucket). Returns the [P·N] codes by group
 * number (-1 where a partition has fewer) and the rows' group numbers (-1
 * for a missing key); the numbers follow no key order.
 */
function hashGroups(composite: Tensor): [Tensor, Tensor] {
  const n = composite.shape[0]!, c = Math.max(1, composite.node.chunk[0]!), k = Math.max(1, Math.ceil(n / c));
  // partitions of about groupLimits.hashRows rows (a table of a few MiB, which the cache holds), at least one per chunk
  const P = Math.max(Math.min(MAX_PARTITIONS, k), Math.min(MAX_HASH_PARTITIONS, Math.ceil(n / groupLimits.hashRows)));
  const box = (j: number): [number, number][] => [[j * c, Math.min(n, (j + 1) * c)]];
  const perChunk = (routine: string, params: G.RoutineParams): G.RoutineCall[] =>
    Array.from({ length: k }, (_, j) => ({ routine, params, chunk: j, reads: [{ input: 0, box: box(j) }] }));
  const counts = new Tensor(G.routine('groupby.hcount', [composite.node], perChunk('hcount', { P }), 'int64', [k, P + 1],
    [1, P + 1]));
  const bucketed = new Tensor(G.routine('groupby.hbucket', [composite.node], perChunk('hbucket', { P }), composite.dtype,
    [n], [c]));
  // rows of partition p in the chunks before chunk j
  const before = (cv: number[], j: number, p: number): number => {
    let s = 0;
    for (let i = 0; i < j; i++) s += cv[i * (P + 1) + p]!;
    return s;
  };
  const widest = (cv: number[]): number => Math.max(1, ...Array.from({ length: P }, (_, p) => before(cv, k, p)));
  // each deferred build once per counts and operands: the run resolves a deferred node once per consumer
  const once = (make: (cv: number[], ts: Tensor[]) => Tensor) => {
    const done = new Map<string, Tensor>();
    return (cv: number[], ts: Tensor[]): Tensor => {
      const key = `${cv.join(',')}|${ts.map((t) => t.node.id).join(',')}`;
      let t = done.get(key);
      if (!t) done.set(key, (t = make(cv, ts)));
      return t;
    };
  };
  const factors = onValues('groupby', counts, [bucketed], 'int64', [NaN], once((cv, [b]) => {
    const N = widest(cv);
    const calls = Array.from({ length: P }, (_, p): G.RoutineCall => ({
      routine: 'hfactor', params: { P, N }, chunk: p,
      reads: Array.from({ length: k }, (_, j) => {
        let from = j * c;
        for (let q = 0; q < p; q++) from += cv[j * (P + 1) + q]!;
        return { input: 0, box: [[from, from + cv[j * (P + 1) + p]!]] as [number, number][] };
      }),
    }));
    return new Tensor(G.routine('groupby.hfactor', [b!.node], calls, 'int64', [P * 2 * N], [2 * N]));
  }));
  const gid = onValues('groupby', counts, [composite, factors], 'int32', [n], once((cv, [code, f]) => {
    const N = widest(cv);
    const calls = Array.from({ length: k }, (_, j): G.RoutineCall => ({
      routine: 'hunbucket', params: { P, N }, chunk: j,
      reads: [{ input: 0, box: box(j) }, ...Array.from({ length: P }, (_, p) => {
        const from = p * 2 * N + before(cv, j, p);
        return { input: 1, box: [[from, from + cv[j * (P + 1) + p]!]] as [number, number][] };
      })],
    }));
    return new Tensor(G.routine('groupby.hunbucket', [code!.node, f!.node], calls, 'int32', [n], [c]));
  }));
  const codes = onValues('groupby', counts, [factors], 'int64', [NaN], once((cv, [f]) => {
    const N = widest(cv);
    return mt.reshape(mt.reshape(f!, [P, 2, N]).get(mt.slice(null), 1, mt.slice(null)), [P * N]);
  }));
  // the codes and group numbers kept once computed (a selection of every row is stored): the fold's shuffle and
  // the selection of the groups present read them in later runs, which would each compute the hash shuffle again
  const store = (t: Tensor): Tensor => mt.compress(mt.logical_or(mt.astype(t, 'bool'), true), t);
  return [store(codes), store(gid)];
}

/** A result column's dtype and dictionary, known before the build: what a deferred column promises. */
type Template = Pick<Column, 'dict' | 'missing'> & { dtype: DType };

/**
 * Columns built by `make` over `operands` once their lengths are known (one
 * build shared by every column), promising `templates`: at once when the
 * lengths are known already.
 */
function lazily(templates: readonly Template[], keys: number, operands: readonly Tensor[], make: (ts: Tensor[]) => Built, length = NaN): Built {
  if (!operands.some((t) => t.shape.some((d) => Number.isNaN(d)))) return make([...operands]);
  const once = memo((ts: Tensor[]) => ts.map((t) => t.node.id).join(','), make);
  return split(templates.map((c, i) => ({
    ...(c.dict ? { dict: c.dict } : {}), ...(c.missing ? { missing: c.missing } : {}),
    values: new Tensor(G.defer('groupby', operands.map((t) => t.node),
      (ins) => columnOf(once(ins.map((n) => new Tensor(n))), i, keys).values.node, c.dtype, [length])),
  })), keys);
}

/** `make` run once per key. */
function memo<A extends unknown[]>(key: (...a: A) => string, make: (...a: A) => Built): (...a: A) => Built {
  const done = new Map<string, Built>();
  return (...a) => {
    const k = key(...a);
    let b = done.get(k);
    if (!b) done.set(k, (b = make(...a)));
    return b;
  };
}

/** Key columns a result has: none for a result per row. */
const keyCount = (keyCols: readonly Column[], opts: AggOptions): number => (opts.rows ? 0 : keyCols.length);
/** A result's length: the frame's for a result per row, else the number of groups (known when it runs). */
const resultLength = (keyCols: readonly Column[], opts: AggOptions): number => (opts.rows ? keyCols[0]!.values.shape[0]! : NaN);
const columnOf = (b: Built, i: number, keys: number): Column => (i < keys ? b.keys[i]! : b.aggs[i - keys]!);
const split = (cols: Column[], k: number): Built => ({ keys: cols.slice(0, k), aggs: cols.slice(k) });

/** What each result column will be: the keys', then the aggregations'. */
function templates(keyCols: readonly Column[], cols: ReadonlyMap<string, Column>, requests: readonly Request[], sort: boolean, rows = false): Template[] {
  const sorted = (d: readonly string[]): string[] => [...d].sort(codePointOrder);
  return [
    ...(rows ? [] : keyCols).map((k): Template => (k.dict
      ? { dtype: 'int32', dict: sort ? sorted(k.dict) : k.dict, missing: 'NaN' }
      : { dtype: k.values.dtype })),
    ...requests.map((r): Template => {
      const c = cols.get(r.column)!;
      if (r.agg === 'cumcount') return { dtype: 'int64' };
      if (r.agg === 'cumsum') return { dtype: c.values.dtype.startsWith('float') ? c.values.dtype : 'int64' };
      const dt = resultDType(r.agg, c);
      if (dt !== 'dict') return { dtype: dt };
      return { dtype: 'int32', dict: r.agg === 'min' || r.agg === 'max' ? sorted(c.dict!) : c.dict! };
    }),
  ];
}

/**
 * The aggregations over group numbers `gid` in [0, G) whose composite key
 * codes are `codes` (in key order unless not `ordered`).
 */
function grouped(
  gid: Tensor, G_: number, codes: Tensor, keyCodes: readonly KeyCode[], strides: readonly number[], keyCols: readonly Column[],
  cols: ReadonlyMap<string, Column>, requests: readonly Request[], opts: AggOptions, ordered = true,
): Built {
  const inputs: Input[] = [];
  const inputOfCol = new Map<string, number>();
  const value = (name: string): number => {
    let v = inputOfCol.get(name);
    if (v === undefined) { v = inputs.length; inputs.push(inputOf(cols.get(name)!)); inputOfCol.set(name, v); }
    return v + 1;
  };
  const floats = new Slots(false), ints = new Slots(true);
  const isFloat = (name: string): boolean => cols.get(name)!.values.dtype.startsWith('float');
  // (size and first row fold apart from the float slots: one loop of every slot measured slower, and a median's
  // shuffle of the floats would move every row's position for a first row)
  const size = ints.add('size', 0);
  // the order of first rows, for sort=False: the smallest row index in each group (read from the group numbers, never missing)
  let firstRow = -1;
  if (!opts.sort) {
    inputs.push({ values: gid, na: 1 });
    firstRow = ints.add('first', inputs.length);
  }
  // slots, per request: where each result comes from
  type Plan = (get: (int64: boolean, s: number) => Tensor, dev: (name: string) => Tensor) => Column;
  const plans: Plan[] = [];
  const needsMean = new Set<string>();
  for (const r of requests) {
    const c = cols.get(r.column)!;
    if (r.agg === 'cumcount' || r.agg === 'cumsum') {
      const op = r.agg;
      plans.push((get) => ({ values: perRow(op, gid, G_, c.values, get(true, size)) }));
      continue;
    }
    const fl = isFloat(r.column);
    const slots = fl ? floats : ints;
    const v = r.agg === 'size' ? 0 : value(r.column);
    const dt = resultDType(r.agg, c);
    // values not missing: an integer or bool column has none missing, so its count is the group's size
    const counted = fl || !!c.dict;
    const countOf = (get: (int64: boolean, s: number) => Tensor): Tensor => (counted ? get(!fl, count) : get(true, size));
    const count = r.agg === 'size' || !counted || !['count', 'min', 'max', 'first', 'last'].includes(r.agg) ? -1 : slots.add('count', v);
    const asDType = (t: Tensor): Tensor => (dt === 'dict' ? I32(t) : mt.astype(t, dt));
    switch (r.agg) {
      case 'size': plans.push((get) => ({ values: get(true, size) })); break;
      case 'count': plans.push((get) => ({ values: mt.astype(countOf(get), 'int64') })); break;
      case 'sum': case 'prod': {
        const s = slots.add(r.agg, v);
        plans.push((get) => ({ values: asDType(get(!fl, s)) }));
        break;
      }
      case 'any': case 'all': {
        const s = slots.add(r.agg, v);
        plans.push((get) => ({ values: mt.astype(get(!fl, s), 'bool') }));
        break;
      }
      case 'mean': {
        // (an integer column's count is its group's size: no slot of its own)
        const s = floats.add('sum', v), n = counted ? floats.add('count', v) : -1;
        plans.push((get) => ({ values: mt.divide(get(false, s), counted ? get(false, n) : mt.astype(get(true, size), 'float64')) }));
        break;
      }
      case 'var': case 'std': {
        needsMean.add(r.column);
        floats.add('sum', v);
        const n = floats.add('count', v);
        const agg = r.agg;
        plans.push((get, dev) => {
          const variance = mt.divide(dev(r.column), mt.subtract(get(false, n), 1));
          const out = agg === 'std' ? mt.sqrt(variance) : variance;
          return { values: mt.where(mt.less_equal(get(false, n), 1), NaN, out) };
        });
        break;
      }
      case 'min': case 'max': {
        const s = slots.add(r.agg, v);
        const dict = inputs[v - 1]!.dict;
        plans.push((get) => {
          const t = get(!fl, s);
          if (dict) return { values: I32(mt.where(mt.equal(countOf(get), 0), -1, t)), dict };
          // a float group whose values are all missing: NaN
          return { values: asDType(fl ? mt.where(mt.equal(countOf(get), 0), NaN, t) : t) };
        });
        break;
      }
      case 'median': case 'nunique': {
        // (a call must see each group's every row: these fold by the shuffle)
        const s = floats.add(r.agg, v);
        const agg = r.agg;
        plans.push((get) => ({ values: agg === 'median' ? get(false, s) : mt.astype(get(false, s), 'int64') }));
        break;
      }
      case 'first': case 'last': {
        const s = slots.add(r.agg, v);
        plans.push((get) => {
          const none = mt.equal(countOf(get), 0);
          const at = mt.where(none, 0, mt.astype(get(!fl, s), 'int64'));
          const picked = mt.take(c.values, at);
          if (c.dict) return { values: I32(mt.where(none, -1, picked)), dict: c.dict };
          return { values: fl ? mt.where(none, NaN, picked) : picked };
        });
        break;
      }
    }
  }
  const vals = inputs.map((i) => i.values), na = inputs.map((i) => i.na);
  const shared = new Map<number, Tensor>();
  const fOut = floats.ops.length ? fold(gid, G_, vals, na, floats, [], opts.method, shared) : [];
  const iOut = ints.ops.length ? fold(gid, G_, vals, na, ints, [], opts.method, shared) : [];
  const get = (int64: boolean, s: number): Tensor => (int64 ? iOut[s]! : fOut[s]!);
  // variances: a second fold of (x - mean)^2 around each group's mean
  const devs = new Map<string, Tensor>();
  if (needsMean.size) {
    const second = new Slots(false);
    const names = [...needsMean];
    const tables = names.map((name) => {
      const v = value(name);
      return mt.divide(get(false, floats.add('sum', v)), get(false, floats.add('count', v)));
    });
    // (the first fold computed these sums and counts: slots added above, before it was built)
    const slotOf = names.map((name, e) => second.add('dev2', inputOfCol.get(name)! + 1, e));
    const out = fold(gid, G_, vals, na, second, tables, opts.method, shared);
    names.forEach((name, e) => devs.set(name, out[slotOf[e]!]!));
  }
  const aggsFull = plans.map((p) => p(get, (name) => devs.get(name)!));
  if (opts.rows) {
    // each row's group's value (pandas' transform): NaN for a row in no group (0 for an integer result: see perRow)
    return {
      keys: [],
      aggs: aggsFull.map((c, i) => {
        const op = requests[i]!.agg;
        if (op === 'cumcount' || op === 'cumsum') return c;
        const at = mt.take(c.values, mt.maximum(gid, 0));
        return { ...c, values: mt.where(mt.less(gid, 0), c.values.dtype.startsWith('float') ? NaN : 0, at) };
      }),
    };
  }
  // the groups that have rows, in key order or in the order of their first rows: one selection per dtype
  const present = mt.greater(get(true, size), 0);
  const full = [codes, ...aggsFull.map((c) => c.values), ...(opts.sort ? [] : [get(true, firstRow)])];
  const kept = selectTogether(present, full);
  // group numbers in no key order (a hash's): sorted by their composite codes
  // (first rows as int32 where they fit: the radix sort takes half the passes of int64's)
  const first = (): Tensor => (gid.shape[0]! < 2 ** 31 ? I32(kept[kept.length - 1]!) : kept[kept.length - 1]!);
  const stable = { kind: 'stable' } as const;
  const order = opts.sort ? (ordered ? undefined : mt.argsort(kept[0]!, stable)) : mt.argsort(first(), stable);
  const pick = (i: number): Tensor => (order ? mt.take(kept[i]!, order) : kept[i]!);
  const groupCodes = pick(0);
  const keys = keyCodes.map((k, j) => {
    const code = keyCodes.length === 1 ? groupCodes : mt.remainder(mt.floor_divide(groupCodes, strides[j]!), k.size);
    const col = k.decode(code);
    return keyCols[j]!.dict ? col : { values: mt.astype(col.values, keyCols[j]!.values.dtype) };
  });
  return { keys, aggs: aggsFull.map((c, i) => ({ ...c, values: pick(i + 1) })) };
}

/**
 * `ts` (1-d, one length) where `mask` holds: the tensors of one dtype
 * stacked and selected as one (a selection is two stages of tasks, on a
 * mesh two jobs: one pair per dtype, not per column).
 */
function selectTogether(mask: Tensor, ts: readonly Tensor[]): Tensor[] {
  const out: Tensor[] = new Array(ts.length);
  const byDType = new Map<string, number[]>();
  ts.forEach((t, i) => { const l = byDType.get(t.dtype) ?? []; l.push(i); byDType.set(t.dtype, l); });
  for (const idx of byDType.values()) {
    if (idx.length === 1) { out[idx[0]!] = mt.compress(mask, ts[idx[0]!]!); continue; }
    const sel = mt.compress(mask, mt.stack(idx.map((i) => ts[i]!)), { axis: 1 });
    idx.forEach((i, r) => { out[i] = sel.get(r); });
  }
  return out;
}

/**
 * The key codes of `keyCols` and the aggregations over them: at once where
 * every key's range is known (strings, bools), else once the run knows the
 * integer keys' minimum and maximum and the float keys' distinct values.
 */
export function aggregate(keyCols: readonly Column[], cols: ReadonlyMap<string, Column>, requests: readonly Request[], opts: AggOptions): Built {
  for (const k of keyCols) {
    const d = k.values.dtype;
    if (!k.dict && d !== 'bool' && !isInt(d) && !d.startsWith('float')) throw new TypeError(`groupby: a key of dtype ${dtypeName(k)} is not supported`);
  }
  // rows known only at run time (after a selection): built once their number is
  const used = [...new Set([...keyCols, ...requests.map((r) => cols.get(r.column)!)].map((c) => c.values))];
  if (used.some((t) => Number.isNaN(t.shape[0]!))) {
    return lazily(templates(keyCols, cols, requests, opts.sort, opts.rows), keyCount(keyCols, opts), used, (ts) => {
      const swap = new Map(used.map((t, i) => [t, ts[i]!]));
      const sub = (c: Column): Column => ({ ...c, values: swap.get(c.values) ?? c.values });
      return aggregate(keyCols.map(sub), new Map([...cols].map(([n, c]) => [n, sub(c)])), requests, opts);
    });
  }
  const ranked = keyCols.map((k) => (k.values.dtype.startsWith('float') ? (mt.unique(k.values, { return_inverse: true }) as [Tensor, Tensor]) : undefined));
  const ints = keyCols.map((k, j) => (!k.dict && isInt(k.values.dtype) ? j : -1)).filter((j) => j >= 0);
  const codesWith = (bounds: readonly number[], rankedNow: readonly ([Tensor, Tensor] | undefined)[]): KeyCode[] => keyCols.map((k, j) => {
    if (k.dict) return stringKey(k, opts.sort, opts.dropna);
    if (k.values.dtype === 'bool') return boolKey(k);
    const r = rankedNow[j];
    if (r) return rankedKey(k, r[0], r[1], opts.dropna);
    const i = ints.indexOf(j);
    const lo = bounds[2 * i]!, hi = bounds[2 * i + 1]!;
    return lo > hi ? intKey(k, 0, 0) : intKey(k, lo, hi);
  });
  const rankedTs = ranked.flatMap((r) => r ?? []);
  const tpl = templates(keyCols, cols, requests, opts.sort, opts.rows);
  // integer keys whose bounds an earlier groupby learnt (a column's statistics, as a database keeps them): no first pass
  const known = ints.map((j) => boundsOf.get(keyCols[j]!.values));
  if (known.every((b) => b !== undefined)) {
    const b = known.flatMap((x) => [...x!]);
    const make = (ts: Tensor[]): Built => build(keyCols, codesWith(b, regroup(ranked, ts)), cols, requests, opts);
    return lazily(tpl, keyCount(keyCols, opts), rankedTs, make, resultLength(keyCols, opts));
  }
  // the integer keys' bounds, computed first (an empty column's: the initial values, lo > hi)
  const bounds = mt.stack(ints.flatMap((j) => {
    const v = mt.astype(keyCols[j]!.values, 'int64');
    return [mt.min(v, { initial: 2 ** 62 }), mt.max(v, { initial: -(2 ** 62) })];
  }));
  const once = memo((b: number[], ts: Tensor[]) => `${b.join(',')}|${ts.map((t) => t.node.id).join(',')}`, (b: number[], ts: Tensor[]) => {
    ints.forEach((j, i) => boundsOf.set(keyCols[j]!.values, [b[2 * i]!, b[2 * i + 1]!]));
    return build(keyCols, codesWith(b, regroup(ranked, ts)), cols, requests, opts);
  });
  return split(tpl.map((c, i): Column => ({
    ...(c.dict ? { dict: c.dict } : {}), ...(c.missing ? { missing: c.missing } : {}),
    values: onValues('groupby', bounds, rankedTs, c.dtype, [resultLength(keyCols, opts)], (b, ts) => columnOf(once(b, ts), i, keyCount(keyCols, opts)).values),
  })), keyCount(keyCols, opts));
}

/**
 * Integer columns' minimum and maximum, learnt by the groupbys that needed
 * them, kept while the column is (a tensor's values never change): a later
 * groupby by the column skips the pass that finds them.
 */
const boundsOf = new WeakMap<Tensor, readonly [number, number]>();

/** The ranked keys' [distinct, inverse] pairs, with the computed tensors `ts` in their places. */
function regroup(ranked: readonly ([Tensor, Tensor] | undefined)[], ts: readonly Tensor[]): ([Tensor, Tensor] | undefined)[] {
  let i = 0;
  return ranked.map((r) => (r ? [ts[i++]!, ts[i++]!] : undefined));
}
