// The routine of searchsorted and digitize in chunks (issue 31), which
// runtime/resolve.ts plans instead of gathering whole arrays:
//   search  one chunk of searched keys against every chunk of the sorted
//           array: each key's position is the sum of its places in the
//           chunks (only one chunk can hold it strictly inside, found by a
//           search over the chunks' last elements first), in NumPy's order
//           (NaNs last; int64 compared on its words, exactly).
// In: parameters and heap regions. Out: the keys' int64 positions.

import type { TypedArray } from '../graph/dtype.js';
import type { RoutineParams } from '../graph/node.js';
import { type RegionSpec, type Routine, contiguous, onlyParams, words } from './region.js';

function sideOf(params: RoutineParams): 'left' | 'right' {
  const s = params.side;
  if (s !== 'left' && s !== 'right') throw new TypeError("routine parameter side must be 'left' or 'right'");
  return s;
}

const is1d = (r: RegionSpec): boolean => r.shape.length === 1;

export const SEARCH_ROUTINES: Readonly<Record<'search', Routine>> = {
  search: {
    check(params, inputs, output) {
      onlyParams(params, ['side']);
      sideOf(params);
      const keys = inputs[0];
      const ok = keys !== undefined && is1d(keys) && keys.dtype !== 'float16' && inputs.every((r) => is1d(r) && r.dtype === keys.dtype)
        && output.dtype === 'int64' && is1d(output) && output.shape[0] === keys.shape[0];
      if (!ok) throw new TypeError('search reads a 1-d chunk of keys and the chunks of a sorted array of their dtype, and writes int64 positions');
    },
    run(params, [keys, ...chunks], out) {
      const ks = contiguous(keys!);
      const parts = chunks.map(contiguous).filter((c) => c.length > 0);
      const o = words(contiguous(out));
      if (keys!.dtype === 'int64') searchWords(ks, parts, sideOf(params), o);
      else searchNumbers(ks, parts, sideOf(params), o);
    },
  },
};

/** Where each chunk starts in the whole sorted array. */
function starts(parts: readonly TypedArray[]): number[] {
  const s = [0];
  for (const p of parts) s.push(s[s.length - 1]! + p.length);
  return s;
}

function writePosition(o: Int32Array, i: number, p: number): void {
  o[2 * i] = p % 2 ** 32;
  o[2 * i + 1] = Math.floor(p / 2 ** 32);
}

/**
 * searchsorted over number dtypes. A key's position is the count of
 * elements before it ('left': x < key) or not after it ('right': x <= key):
 * a prefix of the sorted array, so the first chunk whose last element is not
 * counted holds the position (a binary search over the chunks' last
 * elements), found by a binary search within it. A NaN compares false, so
 * NaN elements (last, in NumPy's order) are never counted for a number key;
 * a NaN key comes after every number ('left': before the first NaN) and
 * after no NaN ('right': the end). Two loops, one per side, with no call per
 * comparison: the hot path of a million-key search.
 */
function searchNumbers(ks: TypedArray, parts: readonly TypedArray[], side: 'left' | 'right', o: Int32Array): void {
  const at = starts(parts), k = parts.length, total = at[k]!;
  const ps = parts as readonly Float64Array[];
  const lasts = Float64Array.from(ps, (p) => p[p.length - 1]!);
  // where the NaNs start: the first chunk ending in one, then its first NaN
  let nanStart = total;
  for (let c = 0; c < k; c++) {
    if (lasts[c] === lasts[c]) continue;
    const p = ps[c]!;
    let a = 0, b = p.length - 1;
    while (a < b) { const m = (a + b) >>> 1; if (p[m] === p[m]) a = m + 1; else b = m; }
    nanStart = at[c]! + a;
    break;
  }
  const left = side === 'left';
  for (let i = 0, n = ks.length; i < n; i++) {
    const key = ks[i] as number;
    if (key !== key) { writePosition(o, i, left ? nanStart : total); continue; }
    let lo = 0, hi = k;
    if (left) while (lo < hi) { const m = (lo + hi) >>> 1; if (lasts[m]! < key) lo = m + 1; else hi = m; }
    else while (lo < hi) { const m = (lo + hi) >>> 1; if (lasts[m]! <= key) lo = m + 1; else hi = m; }
    if (lo === k) { writePosition(o, i, total); continue; }
    const p = ps[lo]!;
    let a = 0, b = p.length - 1;
    if (left) while (a < b) { const m = (a + b) >>> 1; if (p[m]! < key) a = m + 1; else b = m; }
    else while (a < b) { const m = (a + b) >>> 1; if (p[m]! <= key) a = m + 1; else b = m; }
    writePosition(o, i, at[lo]! + a);
  }
}

/** searchsorted over int64 as searchNumbers, on the words: the high words signed, the low ones unsigned. */
function searchWords(ks: TypedArray, parts: readonly TypedArray[], side: 'left' | 'right', o: Int32Array): void {
  const at = starts(parts), k = parts.length, total = at[k]!;
  const kw = words(ks), pw = parts.map(words);
  const lastHi = Int32Array.from(pw, (w) => w[w.length - 1]!), lastLo = Uint32Array.from(pw, (w) => w[w.length - 2]!);
  // 'left' counts x < key, 'right' x <= key (a comparison V8 inlines: the flag is constant through the call)
  const orEqual = side === 'right';
  const before = (h: number, l: number, kh: number, kl: number): boolean => h < kh || (h === kh && (orEqual ? l <= kl : l < kl));
  for (let i = 0, n = ks.length; i < n; i++) {
    const kh = kw[2 * i + 1]!, kl = kw[2 * i]! >>> 0;
    let lo = 0, hi = k;
    while (lo < hi) { const m = (lo + hi) >>> 1; if (before(lastHi[m]!, lastLo[m]!, kh, kl)) lo = m + 1; else hi = m; }
    if (lo === k) { writePosition(o, i, total); continue; }
    const w = pw[lo]!;
    let a = 0, b = w.length / 2 - 1;
    while (a < b) { const m = (a + b) >>> 1; if (before(w[2 * m + 1]!, w[2 * m]! >>> 0, kh, kl)) a = m + 1; else b = m; }
    writePosition(o, i, at[lo]! + a);
  }
}
