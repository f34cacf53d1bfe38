// What a Series or a frame computes on one column (or a few), as pandas 1.5
// does, over lazy tensors: missing masks and fills, a string column's
// functions (computed once per dictionary entry on the host, then mapped to
// the rows with a take of that small table), value mapping, counts of
// values and duplicates (built on the groupby of ./aggregate.ts), the
// statistics of describe and quantile. The host sees a dictionary and a
// handful of numbers at most: never a column. Both ./frame.ts and
// ./series_api.ts build on these, so neither imports the other for them.

import * as mt from '../api/tensor.js';
import { type Agg, type AggOptions, type Request, type RowOp, aggregate } from './aggregate.js';
import { type Column, type Labels, Series, dtypeName } from './series.js';

const isFloat = (c: Column): boolean => !c.dict && c.values.dtype.startsWith('float');
/** Whether a column is a number column (bool excluded, as pandas' numeric statistics exclude it from describe). */
export const isNumber = (c: Column): boolean => !c.dict && c.values.dtype !== 'bool';

/** Where a value is missing: a string's code -1, a float's NaN (integers and bools have none). */
export function missingOf(c: Column): mt.Tensor {
  if (c.dict) return mt.less(c.values, 0);
  return isFloat(c) ? mt.isnan(c.values) : mt.zeros_like(c.values, { dtype: 'bool' });
}

/** A string column with `s` in its dictionary: the column (over that dictionary) and s's code. */
export function withString(c: Column, s: string): [Column, number] {
  const at = c.dict!.indexOf(s);
  if (at >= 0) return [c, at];
  return [{ ...c, dict: [...c.dict!, s] }, c.dict!.length];
}

/** A column's missing values replaced by `value` (pandas' fillna; a value of another kind is refused, naming the dtypes). */
export function fillColumn(c: Column, value: number | string | boolean, what: string): Column {
  if (c.dict) {
    if (typeof value !== 'string') {
      throw new TypeError(`${what}: a string (object) column filled with a ${typeof value} would become mixed (fill it with a string)`);
    }
    const [d, code] = withString(c, value);
    return { ...d, values: mt.where(mt.less(c.values, 0), code, c.values) };
  }
  // (integers and bools have no missing value to fill: pandas leaves them as they are, whatever the value)
  if (!isFloat(c)) return c;
  if (typeof value === 'string') {
    const kind = `a ${dtypeName(c)} column filled with the string ${JSON.stringify(value)}`;
    throw new TypeError(`${what}: ${kind} would become object (fill it with a number)`);
  }
  return { values: mt.where(mt.isnan(c.values), mt.astype(value, c.values.dtype), c.values) };
}

/** A host table of one value per dictionary entry, taken at each row's code (a missing row's is the first entry's: callers mask it). */
function perEntry<T extends Float64Array | Uint8Array>(c: Column, table: T): mt.Tensor {
  return mt.take(mt.tensor(table), mt.maximum(c.values, 0));
}

/** `f` of each string (false where missing: pandas gives NaN there, an object column). */
export function stringBools(c: Column, f: (s: string) => boolean): mt.Tensor {
  const hit = perEntry(c, Uint8Array.from(c.dict!, (s) => (f(s) ? 1 : 0)));
  return mt.logical_and(mt.greater_equal(c.values, 0), mt.astype(hit, 'bool'));
}

/** `f` of each string as float64 (NaN where missing). */
export function stringNumbers(c: Column, f: (s: string) => number): mt.Tensor {
  return mt.where(mt.less(c.values, 0), NaN, perEntry(c, Float64Array.from(c.dict!, f)));
}

/**
 * `f` of each string, a string column again: the new dictionary holds each
 * result once (lower() may make two entries equal), and the codes move to
 * it, so that equal strings keep one code (string equality compares codes).
 */
export function stringStrings(c: Column, f: (s: string) => string | null): Column {
  const dict: string[] = [];
  const at = new Map<string, number>();
  const table = Int32Array.from(c.dict!, (s) => {
    const r = f(s);
    if (r === null) return -1;
    let k = at.get(r);
    if (k === undefined) { k = dict.length; dict.push(r); at.set(r, k); }
    return k;
  });
  const codes = mt.where(mt.less(c.values, 0), -1, mt.take(mt.tensor(table), mt.maximum(c.values, 0)));
  return { values: mt.astype(codes, 'int32'), dict, ...(c.missing ? { missing: c.missing } : {}) };
}

/**
 * pandas' Series.map of a dict: each value's entry, missing where there is
 * none. Numbers map to float64 (pandas gives int64 when every row maps to
 * an integer; whether one does not depends on the rows, and a lazy column's
 * dtype is set before they are read), strings to a string column (a
 * value with no entry is NaN, as pandas prints it).
 */
export function mapColumn(c: Column, mapping: ReadonlyMap<unknown, unknown>): Column {
  const results = [...mapping.values()].filter((v) => v !== null && v !== undefined);
  const strings = results.length > 0 && results.every((v) => typeof v === 'string');
  if (!strings && results.some((v) => typeof v !== 'number' && typeof v !== 'boolean')) {
    throw new TypeError('Series.map: a dict of numbers or of strings');
  }
  if (c.dict) {
    const entry = (s: string): unknown => mapping.get(s) ?? null;
    if (strings) return { ...stringStrings(c, (s) => entry(s) as string | null), missing: 'NaN' };
    return { values: stringNumbers(c, (s) => (entry(s) === null ? NaN : Number(entry(s)))) };
  }
  // numbers: the sorted keys, searched; a value maps where the key found equals it
  const keys = [...mapping.keys()]
    .filter((k): k is number | boolean => typeof k === 'number' || typeof k === 'boolean')
    .map(Number).sort((a, b) => a - b);
  if (!keys.length) {
    if (strings) return { values: mt.full_like(c.values, -1, { dtype: 'int32' }), dict: [], missing: 'NaN' };
    return { values: mt.full_like(c.values, NaN, { dtype: 'float64' }) };
  }
  const find = (k: number): unknown => mapping.get(mapping.has(k) ? k : k === 1 || k === 0 ? Boolean(k) : k);
  const x = mt.astype(c.values, 'float64');
  const pos = mt.minimum(mt.searchsorted(mt.tensor(Float64Array.from(keys)), x), keys.length - 1);
  const hit = mt.equal(mt.take(mt.tensor(Float64Array.from(keys)), pos), x);
  if (strings) {
    const dict = [...new Set(keys.map(find).filter((v): v is string => typeof v === 'string'))];
    const table = Int32Array.from(keys, (k) => {
      const v = find(k);
      return typeof v === 'string' ? dict.indexOf(v) : -1;
    });
    return { values: mt.astype(mt.where(hit, mt.take(mt.tensor(table), pos), -1), 'int32'), dict, missing: 'NaN' };
  }
  const table = Float64Array.from(keys, (k) => {
    const v = find(k);
    return v === null || v === undefined ? NaN : Number(v);
  });
  return { values: mt.where(hit, mt.take(mt.tensor(table), pos), NaN) };
}

/**
 * The distinct values and how many rows hold each (pandas' value_counts):
 * in order of first appearance, or by count, highest first (`ascending`:
 * lowest), ties in order of first appearance. `dropna` false: missing is a
 * value too. `normalize`: shares of the rows counted, float64.
 */
export function valueCounts(
  c: Column, opts: { sort?: boolean; ascending?: boolean; dropna?: boolean; normalize?: boolean },
): { keys: Column; counts: mt.Tensor } {
  const [k, n] = groups([c], { sort: false, dropna: opts.dropna ?? true, as_index: true }, 'size');
  let keys: Column = { ...k!, values: n![0]! }, counts = n![1]!;
  if (opts.sort ?? true) {
    const order = mt.argsort(opts.ascending ? counts : mt.negative(counts), { kind: 'stable' });
    keys = { ...keys, values: mt.take(keys.values, order) };
    counts = mt.take(counts, order);
  }
  if (opts.normalize) counts = mt.divide(counts, mt.sum(counts));
  return { keys: c.dict ? { ...keys, missing: c.missing ?? 'NaN' } : keys, counts };
}

/**
 * The groups of `keys` (./aggregate.ts) and aggregations `aggs` of the first
 * key: the first key's column, and the result tensors (the first key's
 * values per group, then the aggregations'; per row: only these). Over columns whose
 * length the run decides (after a selection), the whole build waits for it.
 */
function groups(keys: readonly Column[], opts: AggOptions, ...aggs: (Agg | RowOp)[]): [Column, mt.Tensor[]] {
  // missing as a group of its own comes last from the groupby: the groups go back to the order of their first rows
  const byFirstRow = !opts.sort && !opts.dropna && !opts.rows;
  const build = (vs: readonly mt.Tensor[]): { key: Column; ts: mt.Tensor[] } => {
    const cols = keys.map((c, i) => ({ ...c, values: vs[i]! }));
    const named = new Map(cols.map((c, i) => [`k${i}`, c]));
    const requests: Request[] = aggs.map((agg, i) => ({ column: 'k0', agg, name: `a${i}` }));
    if (byFirstRow) {
      const chunkSize = Math.max(1, vs[0]!.node.chunk[0]!);
      named.set('row', { values: mt.arange(vs[0]!.shape[0]!, { dtype: 'int64', chunkSize }) });
      requests.push({ column: 'row', agg: 'first', name: 'row' });
    }
    const built = aggregate(cols, named, requests, opts);
    const ts = [...(opts.rows ? [] : [built.keys[0]!]), ...built.aggs.slice(0, aggs.length)].map((c) => c.values);
    if (!byFirstRow) return { key: built.keys[0] ?? cols[0]!, ts };
    const order = mt.argsort(built.aggs[aggs.length]!.values, { kind: 'stable' });
    return { key: built.keys[0]!, ts: ts.map((t) => mt.take(t, order)) };
  };
  const values = keys.map((c) => c.values);
  if (!values.some((v) => Number.isNaN(v.shape[0]))) {
    const now = build(values);
    return [now.key, now.ts];
  }
  // (the first key's dictionary, as a groupby in the order of first rows gives it back: what the callers reading the key ask for)
  const first = keys[0]!;
  const key: Column = { values: first.values, ...(first.dict ? { dict: first.dict, missing: 'NaN' as const } : {}) };
  return [key, mt.deferredAll('groupby', values, (opts.rows ? 0 : 1) + aggs.length, (vs) => build(vs).ts)];
}

/** The distinct values in order of first appearance, missing among them (pandas' unique). */
export function uniqueOf(c: Column): Column {
  const [k, n] = groups([c], { sort: false, dropna: false, as_index: true }, 'size');
  const keys: Column = { ...k!, values: n![0]! };
  if (!c.dict) return keys;
  const { missing: _drop, ...rest } = keys;
  return c.missing ? { ...rest, missing: c.missing } : rest;
}

/** How many distinct values (missing not counted unless `dropna` is false), a 0-d int64 tensor. */
export function nuniqueOf(c: Column, dropna = true): mt.Tensor {
  if (c.dict) {
    const counts = codeCounts(c);
    const present = mt.sum(mt.greater(counts.get(mt.slice(0, c.dict.length)), 0));
    return dropna ? present : mt.add(present, mt.astype(mt.greater(counts.get(c.dict.length), 0), 'int64'));
  }
  const [, n] = groups([c], { sort: false, dropna, as_index: true }, 'size');
  return mt.astype(mt.sum(mt.greater(n![1]!, 0)), 'int64');
}

/** A string column's rows per code, and the missing rows last (bincount: one pass, a table as long as the dictionary). */
function codeCounts(c: Column): mt.Tensor {
  const D = c.dict!.length;
  return mt.bincount(mt.where(mt.less(c.values, 0), D, c.values), { minlength: D + 1 });
}

/**
 * Which rows repeat an earlier row's values in `keys` (pandas' duplicated,
 * missing values equal to each other): keep 'first' marks all but the first
 * of each set, 'last' all but the last, false every row of a set of two or more.
 */
export function duplicatedOf(keys: readonly Column[], keep: 'first' | 'last' | false): mt.Tensor {
  const [, ts] = groups(keys, { sort: true, dropna: false, as_index: true, rows: true }, 'cumcount', 'size');
  const at = mt.astype(ts![0]!, 'int64'), n = mt.astype(ts![1]!, 'int64');
  if (keep === 'first') return mt.greater(at, 0);
  if (keep === 'last') return mt.less(mt.add(at, 1), n);
  return mt.greater(n, 1);
}

/** pandas' quantile of a number column (linear, NaN skipped): float64, a 0-d tensor for a number, 1-d for a list. */
export function quantileOf(c: Column, q: number | readonly number[], what: string): mt.Tensor {
  if (!isNumber(c)) throw new TypeError(`${what}: quantile of a ${dtypeName(c)} column`);
  const x = mt.astype(c.values, 'float64');
  return mt.nanquantile(x, typeof q === 'number' ? q : [...q]);
}

/** describe()'s statistics of a number column: count, mean, std, min, 25%, 50%, 75%, max, float64. */
export const DESCRIBE = ['count', 'mean', 'std', 'min', '25%', '50%', '75%', 'max'];
/** Those eight of a number column, a float64 tensor of 8 (NaN skipped; std with ddof 1). */
export function describeNumbers(c: Column): mt.Tensor {
  // (no rows: a count of 0 and NaN, where a minimum of nothing would be NumPy's error)
  if (c.values.shape[0] === 0) return mt.tensor(Float64Array.from(DESCRIBE, (_, i) => (i ? NaN : 0)));
  const x = mt.astype(c.values, 'float64');
  const count = mt.astype(mt.sum(mt.logical_not(mt.isnan(x))), 'float64');
  const q = mt.nanquantile(x, [0.25, 0.5, 0.75]);
  const stat = (t: mt.Tensor): mt.Tensor => mt.reshape(t, [1]);
  const [mean, std, min, max] = [mt.nanmean(x), mt.nanstd(x, { ddof: 1 }), mt.nanmin(x), mt.nanmax(x)];
  return mt.concatenate([stat(count), stat(mean), stat(std), stat(min), q, stat(max)]);
}

/** describe()'s statistics of a string or bool column: count, unique, top, freq (pandas' object describe). */
export const DESCRIBE_STRINGS = ['count', 'unique', 'top', 'freq'];
/**
 * Those four as a string column (pandas shows an object column: numbers
 * and the top string): the numbers become its dictionary when the run has
 * them, the one place the host reads a result to build a column. The top
 * value of a tie is the first in the dictionary's order (pandas': the first
 * of a sort that is not stable).
 */
export function describeStrings(col: Column): Column {
  // bools as the strings they print as (True first: pandas' top of a tie here)
  const c = col.dict
    ? { values: col.values, dict: col.dict }
    : { values: mt.astype(mt.where(col.values, 0, 1), 'int32'), dict: ['True', 'False'] };
  const D = c.dict.length;
  const counts = codeCounts(c);
  const present = counts.get(mt.slice(0, D));
  const stats = mt.stack([
    mt.sum(present), mt.sum(mt.greater(present, 0)),
    D ? mt.argmax(present) : mt.tensor(0), D ? mt.max(present) : mt.tensor(0),
  ].map((t) => mt.astype(t, 'int64')));
  const dict: string[] = [];
  const codeOf = (s: string): number => { const i = dict.indexOf(s); return i >= 0 ? i : dict.push(s) - 1; };
  const values = mt.onValues('describe', stats, [], 'int32', [4], ([count, unique, top, freq]) => {
    dict.length = 0;
    const codes = count
      ? [codeOf(String(count)), codeOf(String(unique)), codeOf(c.dict[top!]!), codeOf(String(freq))]
      : [codeOf('0'), codeOf('0'), -1, -1];
    return mt.tensor(Int32Array.from(codes));
  });
  return { values, dict, missing: 'NaN' };
}

/** The reductions a frame's or a Series' agg takes by name. */
export const REDUCTIONS = ['sum', 'mean', 'min', 'max', 'std', 'var', 'median', 'count', 'nunique'] as const;
export type Reduction = (typeof REDUCTIONS)[number];
/** `f` as a Reduction, or pandas' AttributeError naming the ones there are. */
export function checkReduction(f: string): Reduction {
  if (!(REDUCTIONS as readonly string[]).includes(f)) {
    throw new Error(`AttributeError: '${f}' is not a valid function for agg (the functions are ${REDUCTIONS.join(', ')})`);
  }
  return f as Reduction;
}

/** Reduction `f` of a column: a 0-d tensor (NaN skipped, as pandas skips it). */
export function reduceColumn(c: Column, f: Reduction): mt.Tensor {
  if (f === 'nunique') return nuniqueOf(c);
  return new Series(c)[f]();
}

/** An index of names (a reduction's column names, describe's statistics): an unnamed string level. */
export function namesLabels(names: readonly string[]): Labels {
  const codes = mt.tensor(Int32Array.from(names, (_, i) => i));
  return { kind: 'index', names: [null], cols: [{ values: codes, dict: [...names] }] };
}
