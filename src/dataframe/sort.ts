// pandas' sort_values and sort_index over chunked columns: the permutation
// that orders the rows, as a lazy int64 tensor, and the columns and row
// labels taken through it. Several keys sort as pandas' lexsort does, by
// chained stable argsorts from the last key to the first (each a chunked
// radix sort of the key permuted so far, composed with a take), so ties keep
// their input order. Each key becomes a sort code whose ascending order is
// the order asked for: a number itself (descending: its negation, an
// integer's bitwise complement, which neither overflows nor breaks ties'
// order), a string its dictionary's rank in code-point order (Python's str
// order), a bool 0 or 1; adjacent keys of such small dense codes (strings,
// bools) fold into one composite code, one sort for them all. Missing values
// (NaN, a missing string) go where na_position says whatever the direction:
// a missing string's code is past either end, a float key with
// na_position='first' takes one more stable pass on whether it is NaN.
// Tessera's sort is always stable: pandas' default kind ('quicksort') is
// not, so where a single key has ties their order may differ from pandas'
// (it equals kind='stable''s). This module knows columns by their shape only
// (a tensor and an optional dictionary), so that ./series.ts may import it.

import * as mt from '../api/tensor.js';

/** A sort key: a 1-d tensor, and a string column's dictionary (int32 codes, -1 missing). */
export interface SortKey {
  readonly values: mt.Tensor;
  readonly dict?: readonly string[];
}

/** Where missing values go. */
export type NaPosition = 'last' | 'first';

/** What sort_values takes besides the keys. */
export interface SortOptions {
  /** Ascending (default), or one direction per key. */
  readonly ascending?: boolean | readonly boolean[];
  /** Missing values last (default) or first. */
  readonly na_position?: NaPosition;
  /** pandas' sort algorithm: accepted and ignored (every sort here is stable). */
  readonly kind?: string;
}

/** Python's order of str (by code point; JS's `<` compares UTF-16 units, which differ past U+FFFF). */
export function codePointOrder(a: string, b: string): number {
  const x = [...a], y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i]!.codePointAt(0)! - y[i]!.codePointAt(0)!;
    if (d) return d;
  }
  return x.length - y.length;
}

/** A dictionary's rank of each code, in code-point order. */
export function dictRanks(dict: readonly string[]): Int32Array {
  const order = dict.map((_, i) => i).sort((a, b) => codePointOrder(dict[a]!, dict[b]!));
  const rank = new Int32Array(dict.length);
  order.forEach((code, r) => { rank[code] = r; });
  return rank;
}

/** The directions of `n` keys, checked as pandas checks them. */
export function directions(ascending: boolean | readonly boolean[] | undefined, n: number): boolean[] {
  if (ascending === undefined) return Array(n).fill(true);
  if (typeof ascending === 'boolean') return Array(n).fill(ascending);
  if (!Array.isArray(ascending) || ascending.some((a) => typeof a !== 'boolean')) {
    throw new TypeError(`sort_values: ascending takes a boolean or a list of booleans, got ${JSON.stringify(ascending)}`);
  }
  if (ascending.length !== n) throw new RangeError(`ValueError: Length of ascending (${ascending.length}) != length of by (${n})`);
  return [...ascending];
}

/** na_position, checked. */
export function naPosition(p: string | undefined): NaPosition {
  if (p === undefined || p === 'last' || p === 'first') return p ?? 'last';
  throw new RangeError(`ValueError: invalid na_position: ${p}`);
}

/** One stable pass: codes whose ascending order is the order asked for, and their count where they are dense in [0, size). */
interface Pass { readonly code: mt.Tensor; readonly size?: number }

/** The stable passes one key takes, most significant first. */
function passes(k: SortKey, ascending: boolean, na: NaPosition): Pass[] {
  const v = k.values;
  if (k.dict) {
    // ranks in [0, D), missing at D (last) or the ranks shifted past a missing 0 (first)
    const D = k.dict.length;
    const rank = dictRanks(k.dict);
    const shift = na === 'first' ? 1 : 0;
    const table = Int32Array.from(rank, (r) => (ascending ? r : D - 1 - r) + shift);
    const code = mt.where(mt.less(v, 0), na === 'last' ? D : 0, mt.take(mt.tensor(table), mt.maximum(v, 0)));
    return [{ code: mt.astype(code, 'int32'), size: D + 1 }];
  }
  const d = v.dtype;
  if (d === 'bool') return [{ code: ascending ? mt.astype(v, 'int32') : mt.subtract(1, mt.astype(v, 'int32')), size: 2 }];
  if (d.startsWith('float')) {
    // -0.0 + 0 is 0.0: zeros of either sign tie, as pandas' comparison has them
    const code = ascending ? v : mt.add(mt.negative(v), 0);
    // argsort puts NaN last; first: one more pass before it (more significant) on whether the value is NaN
    return na === 'last' ? [{ code }] : [{ code: mt.astype(mt.logical_not(mt.isnan(v)), 'int32'), size: 2 }, { code }];
  }
  if (d.startsWith('int') || d.startsWith('uint')) return [{ code: ascending ? v : mt.invert(v) }];
  throw new TypeError(`sort_values: a column of dtype ${d} does not sort`);
}

/** Adjacent passes over dense codes folded into one (a composite in their order) while it fits in int32: fewer sorts. */
function folded(ps: readonly Pass[]): Pass[] {
  const out: Pass[] = [];
  for (const p of ps) {
    const last = out[out.length - 1];
    if (last?.size !== undefined && p.size !== undefined && last.size * p.size < 2 ** 31) {
      out[out.length - 1] = { code: mt.add(mt.multiply(last.code, p.size), p.code), size: last.size * p.size };
    } else {
      out.push(p);
    }
  }
  return out;
}

/** The int64 permutation that sorts rows by `keys` (first key first), stably. */
export function sortPermutation(keys: readonly SortKey[], ascending: readonly boolean[], na: NaPosition): mt.Tensor {
  if (!keys.length) throw new RangeError('sort_values: no key to sort by');
  const codes = folded(keys.flatMap((k, i) => passes(k, ascending[i]!, na))).map((p) => p.code);
  // the least significant pass first; each later pass sorts stably what the earlier ones ordered
  let perm = mt.argsort(codes[codes.length - 1]!, { kind: 'stable' });
  for (let i = codes.length - 2; i >= 0; i--) perm = mt.take(perm, mt.argsort(mt.take(codes[i]!, perm), { kind: 'stable' }));
  return perm;
}

/** Row labels (a RangeIndex or levels of columns) in the shape ./series.ts gives them. */
export type SortLabels<C extends SortKey> = { readonly kind: 'range' } | { readonly kind: 'index'; readonly names: readonly (string | null)[]; readonly cols: readonly C[] };

/** Labels through permutation `perm`: a RangeIndex becomes the positions, as pandas prints them. */
export function permuteLabels<C extends SortKey>(labels: SortLabels<C>, perm: mt.Tensor): SortLabels<C> {
  if (labels.kind === 'range') return { kind: 'index', names: [null], cols: [{ values: perm } as C] };
  return { ...labels, cols: labels.cols.map((c) => ({ ...c, values: mt.take(c.values, perm) })) };
}

/** The permutation of sort_index: by every level of the labels, or `n` rows' positions for a RangeIndex. */
export function indexPermutation<C extends SortKey>(labels: SortLabels<C>, n: number, chunk: number, ascending: boolean, na: NaPosition): mt.Tensor {
  const keys: SortKey[] = labels.kind === 'range' ? [{ values: mt.arange(n, { dtype: 'int64', chunkSize: chunk }) }] : [...labels.cols];
  return sortPermutation(keys, keys.map(() => ascending), na);
}
