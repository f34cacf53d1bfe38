// pandas' sort_values and sort_index over chunked columns: the permutation
// that orders the rows, as a lazy int64 tensor, and the columns and row
// labels taken through it. Several keys sort as pandas' lexsort does, by
// chained stable argsorts from the last key to the first (each a chunked
// radix sort of the key permuted so far, composed with a take), so ties keep
// their input order. Each key becomes a sort code whose ascending order is
// the order asked for: a number itself (descending: its negation, an
// integer's bitwise complement, which neither overflows nor breaks ties'
// order), a string its dictionary's rank in code-point order (Python's str
// order), a bool 0 or 1. Missing values (NaN, a missing string) go where
// na_position says whatever the direction: a missing string's code is past
// either end, a float key with na_position='first' takes one more stable pass
// on whether it is NaN. Tessera's sort is always stable: pandas' default kind
// ('quicksort') is not, so where a single key has ties their order may differ
// from pandas' (it equals kind='stable''s). This module knows columns by
// their shape only (a tensor and an optional dictionary), so that
// ./series.ts may import it.

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

/** The stable passes one key takes, most significant first: codes whose stable ascending order is the key's order. */
function passes(k: SortKey, ascending: boolean, na: NaPosition): mt.Tensor[] {
  const v = k.values;
  if (k.dict) {
    const D = k.dict.length;
    const rank = dictRanks(k.dict);
    const r = mt.take(mt.tensor(ascending ? rank : rank.map((x) => D - 1 - x)), mt.maximum(v, 0));
    return [mt.where(mt.less(v, 0), na === 'last' ? D : -1, r)];
  }
  const d = v.dtype;
  if (d === 'bool') return [ascending ? mt.astype(v, 'int8') : mt.subtract(1, mt.astype(v, 'int8'))];
  if (d.startsWith('float')) {
    // -0.0 + 0 is 0.0: zeros of either sign tie, as pandas' comparison has them
    const code = ascending ? v : mt.add(mt.negative(v), 0);
    // argsort puts NaN last; first: one more pass before it (more significant) on whether the value is NaN
    return na === 'last' ? [code] : [mt.logical_not(mt.isnan(v)), code];
  }
  if (d.startsWith('int') || d.startsWith('uint')) return [ascending ? v : mt.invert(v)];
  throw new TypeError(`sort_values: a column of dtype ${d} does not sort`);
}

/** The int64 permutation that sorts rows by `keys` (first key first), stably. */
export function sortPermutation(keys: readonly SortKey[], ascending: readonly boolean[], na: NaPosition): mt.Tensor {
  const codes = keys.flatMap((k, i) => passes(k, ascending[i]!, na));
  // the least significant pass first; each later pass sorts stably what the earlier ones ordered
  let perm: mt.Tensor | undefined;
  for (let i = codes.length - 1; i >= 0; i--) {
    const c = codes[i]!;
    perm = perm === undefined ? mt.argsort(c, { kind: 'stable' }) : mt.take(perm, mt.argsort(mt.take(c, perm), { kind: 'stable' }));
  }
  return perm!;
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
