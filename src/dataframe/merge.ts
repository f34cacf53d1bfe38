// pandas 1.5's merge and join over chunked columns, by sort and search with
// nothing gathered whole (the only strategy for now: no broadcast of a small
// side, no shuffle by key between peers). Each row's key tuple becomes one
// code in a space both sides share: a string its rank in the union of the
// two dictionaries (code-point order, built on the host: dictionaries are
// small; a missing string ranks last), an integer or a float its value, a
// bool 0 or 1; several keys fold into one int64 composite of dense codes (a
// non-string key's inverse in np.unique of both sides' values), ranked again
// among the composites present when the next key would overflow it. Missing
// keys match each other, as pandas matches NaN with NaN.
//
// Row order, as pandas 1.5 gives it (checked against it, not its docs):
// inner and outer merges order groups by their first appearance over the
// left rows, then the right; within a group the left rows in order, each with
// its matches in the right's order; an outer merge appends the right rows no
// left row matched, by group (their groups come after every left one). A
// left merge keeps the left's rows in order, a right merge the right's; an
// outer merge with a side known to be empty is the other side's left or
// right merge, as pandas makes it. sort=True: a final stable sort by key.
//
// Matching: the driving side's rows (the left, or the right in a right
// merge; for inner and outer, stably sorted by group) each find the first
// of their matches in the other side's rows sorted by code, and their
// count: by two searchsorted calls, or, where the codes span a small space
// (strings, bools, an integer key whose values span at most 2^16, read at
// run time), by tables of the other side's counts per code and their
// cumulative sum (bincount), first appearances then coming from a scatter
// of minimum positions (ufunc.at) rather than np.unique. Small codes sort by
// counting (./join_order.ts), others by a chunked argsort; an inner merge
// over small codes drops the unmatched rows in that counting sort and
// orders the left's columns by it too, rather than gathering them. When
// no row matches more than once (decided at run time over [sum(counts),
// max(counts)] with `onValues`), the result's rows are a selection of the
// driving rows and a gather of the other side's at sorted_perm[lo];
// otherwise each driving row is repeated by its count through the counts'
// cumulative sum (a searchsorted of each output position in it): chunked as
// well, the host reading only the two numbers. The result is a pair of int64
// row positions into each side (-1: no row), through which every column is
// taken (an inner merge's shared key from the shorter side; a left merge
// without repeats keeps the left's columns as they are). A side that may
// miss rows (the right in a left merge, both in an outer one) gives its
// integer columns as float64 with NaN and its strings missing whether or not
// a row is missed in the end (pandas decides this from the data; a lazy
// graph's dtypes are set before it runs), and refuses a bool column there
// (pandas' object column). This module knows a frame only as a map of
// columns, so that ./frame.ts may import it.

import * as mt from '../api/tensor.js';
import { deferred, deferredAll, onValues } from '../api/core.js';
import { type Column, type Labels, dtypeName } from './series.js';
import { codePointOrder, permuteLabels } from './sort.js';
import { grouping } from './join_order.js';

/** The hows of a merge. */
export type How = 'inner' | 'left' | 'right' | 'outer';
const HOWS: readonly How[] = ['inner', 'left', 'right', 'outer'];

/** What DataFrame.merge takes besides the right frame. */
export interface MergeOptions {
  /** Key columns both frames hold. */
  readonly on?: string | readonly string[];
  /** The left frame's key columns (with right_on). */
  readonly left_on?: string | readonly string[];
  /** The right frame's key columns (with left_on). */
  readonly right_on?: string | readonly string[];
  /** Which rows are kept: those matched (default), every left row, every right row, or both sides' rows. */
  readonly how?: How;
  /** What overlapping non-key names end with: the left's and the right's (default ['_x', '_y']). */
  readonly suffixes?: readonly [string | null, string | null];
  /** Rows ordered by key (stably), not as the how orders them. */
  readonly sort?: boolean;
}

/** One side of a merge: its columns by name, and its key columns (names, or columns outside the frame: join's index). */
export interface MergeSide {
  readonly cols: ReadonlyMap<string, Column>;
  readonly keys: readonly Column[];
  /** The keys' names, for errors and to tell keys the two sides share. */
  readonly keyNames: readonly string[];
}

/** The result: its columns in pandas' order, each result row's position in the left frame (-1: none), and the names that took suffixes. */
export interface Merged {
  readonly cols: Map<string, Column>;
  readonly leftRows: mt.Tensor;
  readonly overlap: ReadonlySet<string>;
}

const isInt = (d: string): boolean => d.startsWith('int') || d.startsWith('uint');
const isFloat = (d: string): boolean => d.startsWith('float');
const I64 = (t: mt.Tensor): mt.Tensor => mt.astype(t, 'int64');
/** Composite codes stay below this. */
const COMPOSITE_LIMIT = 2 ** 62;
/**
 * Key codes spanning at most this many values match through tables indexed
 * by code, not by searches (each chunk folds a partial table of this length:
 * bincount's and ufunc.at's routines).
 */
const DENSE_CODES = 1 << 16;

/** One key pair in the shared code space: each side's codes (or values) and how many codes there may be. */
interface KeyPair {
  readonly left: mt.Tensor;
  readonly right: mt.Tensor;
  /** The number of codes when they are dense from 0 (strings, bools); undefined for values. */
  readonly size?: number;
  /** The two sides' columns in one value space (a string: the union dictionary's codes, -1 missing), for a combined key column. */
  readonly combined: readonly [Column, Column];
}

/** The dtype family of a key, for pandas' check. */
function kind(c: Column): 'string' | 'bool' | 'number' | 'other' {
  if (c.dict) return 'string';
  const d = c.values.dtype;
  if (d === 'bool') return 'bool';
  return isInt(d) || isFloat(d) ? 'number' : 'other';
}

/** Key columns `l` and `r` in one code space; pandas' error when their dtypes do not merge. */
function keyPair(l: Column, r: Column, ln: string, rn: string): KeyPair {
  const kl = kind(l), kr = kind(r);
  if (kl !== kr || kl === 'other') {
    throw new TypeError(`ValueError: You are trying to merge on ${dtypeName(l)} and ${dtypeName(r)} columns (${JSON.stringify(ln)} and ${JSON.stringify(rn)}). If you wish to proceed you should use pd.concat`);
  }
  if (kl === 'string') {
    // the union of the dictionaries in code-point order: each side's codes mapped through a small table
    const union = [...new Set([...l.dict!, ...r.dict!])].sort(codePointOrder);
    const at = new Map(union.map((s, i) => [s, i]));
    const D = union.length;
    const table = (dict: readonly string[]): mt.Tensor => mt.tensor(Int32Array.from(dict, (s) => at.get(s)!));
    const mapped = (c: Column): mt.Tensor => mt.astype(mt.where(mt.less(c.values, 0), -1, mt.take(table(c.dict!), mt.maximum(c.values, 0))), 'int32');
    const ml = mapped(l), mr = mapped(r);
    const missing = l.missing ?? r.missing;
    const col = (v: mt.Tensor): Column => ({ values: v, dict: union, ...(missing ? { missing } : {}) });
    // a missing key is a code of its own, last
    const code = (v: mt.Tensor): mt.Tensor => I64(mt.where(mt.less(v, 0), D, v));
    return { left: code(ml), right: code(mr), size: D + 1, combined: [col(ml), col(mr)] };
  }
  if (kl === 'bool') return { left: I64(l.values), right: I64(r.values), size: 2, combined: [l, r] };
  const dl = l.values.dtype, dr = r.values.dtype;
  if (isInt(dl) && isInt(dr)) {
    const same = dl === dr;
    const as = (c: Column): Column => (same ? c : { values: I64(c.values) });
    return { left: I64(l.values), right: I64(r.values), combined: [as(l), as(r)] };
  }
  // a float with anything numeric: compared as float64, zeros of both signs alike (-0.0 + 0 is 0.0)
  const f = (c: Column): mt.Tensor => mt.add(mt.astype(c.values, 'float64'), 0);
  return { left: f(l), right: f(r), combined: [{ values: mt.astype(l.values, 'float64') }, { values: mt.astype(r.values, 'float64') }] };
}

/** Each side's rows as one int64 code per key tuple, in key order, and the size of the code space where it is small enough for tables. */
function composite(pairs: readonly KeyPair[], nL: number): [mt.Tensor, mt.Tensor, number | undefined] {
  const small = (n: number | undefined): number | undefined => (n !== undefined && n <= DENSE_CODES ? n : undefined);
  if (pairs.length === 1) return [pairs[0]!.left, pairs[0]!.right, small(pairs[0]!.size)];
  const split = (both: mt.Tensor): [mt.Tensor, mt.Tensor] => [both.get(mt.slice(0, nL)), both.get(mt.slice(nL, null))];
  const dense = (p: KeyPair): { both: mt.Tensor; size: number } => {
    const both = mt.concatenate([p.left, p.right]);
    if (p.size !== undefined) return { both, size: p.size };
    // values: their rank among the distinct values of both sides (fewer than the rows)
    const [, inverse] = mt.unique(both, { return_inverse: true }) as [mt.Tensor, mt.Tensor];
    return { both: I64(inverse), size: Math.max(1, both.shape[0]!) };
  };
  let { both: code, size } = dense(pairs[0]!);
  for (const p of pairs.slice(1)) {
    const next = dense(p);
    if (size * next.size > COMPOSITE_LIMIT) {
      // rank the composite so far among those present before it takes another key
      code = I64((mt.unique(code, { return_inverse: true }) as [mt.Tensor, mt.Tensor])[1]);
      size = Math.max(1, code.shape[0]!);
      if (size * next.size > COMPOSITE_LIMIT) throw new RangeError(`merge: ${pairs.length} keys over ${code.shape[0]} rows span more codes than int64 holds`);
    }
    code = mt.add(mt.multiply(code, next.size), next.both);
    size *= next.size;
  }
  return [...split(code), small(size)];
}

/**
 * How rows find their matches and in which order: each side's match codes
 * (equal keys, equal codes), each side's order codes (sorting by them gives
 * the how's group order), and, where the match codes are dense in [0, size),
 * that size.
 */
interface Keyed {
  readonly cL: mt.Tensor;
  readonly cR: mt.Tensor;
  readonly oL: mt.Tensor;
  readonly oR: mt.Tensor;
  readonly size?: number;
}

/**
 * Codes `cL` and `cR` (in key order) as a Keyed: order codes that are the
 * rank of each group's first appearance over the left rows, then the right,
 * where `firstOrder` (else the codes themselves). Dense codes find their
 * first rows by a scatter of minimum positions into a table of `size`; others
 * by np.unique's first indices (a chunked sort): each row's group's first row
 * is its order code, and the match code too (`innerOnly`: over the left rows
 * alone, an inner merge's groups being the left's; the codes then match as
 * they are).
 */
function keyed(cL: mt.Tensor, cR: mt.Tensor, size: number | undefined, firstOrder: boolean, innerOnly = false): Keyed {
  const nL = cL.shape[0]!, nR = cR.shape[0]!;
  if (size !== undefined) {
    const c32L = mt.astype(cL, 'int32'), c32R = mt.astype(cR, 'int32');
    if (!firstOrder) return { cL: c32L, cR: c32R, oL: c32L, oR: c32R, size };
    const none = nL + nR;
    const firstOf = (c: mt.Tensor, n: number, from: number): mt.Tensor => mt.full([size], none, { dtype: 'int64' }).at(c).minimum(mt.arange(from, from + n, { dtype: 'int64', chunkSize: c.node.chunk[0] || 1 }));
    const first = mt.minimum(firstOf(c32L, nL, 0), firstOf(c32R, nR, nL));
    // each code's rank among the first rows (codes without rows rank last, unused)
    const rank = mt.astype(mt.argsort(mt.argsort(first, { kind: 'stable' }), { kind: 'stable' }), 'int32');
    return { cL: c32L, cR: c32R, oL: mt.take(rank, c32L), oR: mt.take(rank, c32R), size };
  }
  if (!firstOrder) return { cL, cR, oL: cL, oR: cR };
  // (a group's first row is an order code as good as its rank among the first rows: no sort of them)
  if (innerOnly) {
    // an inner merge's groups all have left rows: their first appearance over the left alone orders them
    const [, first, inverse] = mt.unique(cL, { return_index: true, return_inverse: true }) as mt.Tensor[];
    return { cL, cR, oL: mt.take(first!, inverse!), oR: cR };
  }
  const [, first, inverse] = mt.unique(mt.concatenate([cL, cR]), { return_index: true, return_inverse: true }) as mt.Tensor[];
  const g = mt.take(first!, inverse!);
  const gL = g.get(mt.slice(0, nL)), gR = g.get(mt.slice(nL, null));
  return { cL: gL, cR: gR, oL: gL, oR: gR };
}

/** Positions `rows` into a tensor of `n` rows, where a negative position takes nothing: -1 kept, others clipped into range. */
const safe = (rows: mt.Tensor, n: number): mt.Tensor => mt.minimum(mt.maximum(rows, 0), Math.max(0, n - 1));

/**
 * The result's rows as positions into each side (-1 where a side has no
 * row), and the left's columns in the result's order where its every row is
 * a left row (inner and left merges): a gather through the left positions,
 * or, where faster, the column itself (a left merge whose rows match at
 * most once) or the counting sort that gave those positions, applied to the
 * column (./join_order.ts: no gather from everywhere).
 */
interface Rows {
  readonly rows: [mt.Tensor, mt.Tensor];
  left(x: mt.Tensor): mt.Tensor;
}

/** `build`'s Rows over values `stats` and `operands`, built once the run knows the values, once for every output. */
function rowsOnValues(stats: mt.Tensor, operands: readonly mt.Tensor[], build: (v: number[], ts: mt.Tensor[]) => Rows): Rows {
  const done = new Map<string, Rows>();
  const once = (v: number[], ts: mt.Tensor[]): Rows => {
    const key = `${v.join(',')}|${ts.map((t) => t.node.id).join(',')}`;
    let r = done.get(key);
    if (!r) done.set(key, (r = build(v, ts)));
    return r;
  };
  const rows = [0, 1].map((i) => onValues('merge', stats, operands, 'int64', [NaN], (v, ts) => once(v, ts).rows[i]!));
  const left = (x: mt.Tensor): mt.Tensor =>
    onValues('merge', stats, [...operands, x], x.dtype, [NaN], (v, ts) => once(v, ts.slice(0, -1)).left(ts[ts.length - 1]!));
  return { rows: rows as [mt.Tensor, mt.Tensor], left };
}

/**
 * The result rows from keyed codes `k` (lengths known). Dense codes of an
 * inner merge drop the driving rows without a match in the counting sort
 * that groups them (group number -1), so that no selection follows.
 */
function matchRows(k: Keyed, how: How, sort: boolean): Rows {
  const nL = k.cL.shape[0]!, nR = k.cR.shape[0]!;
  const rightDrives = how === 'right';
  const [cD, cO, oD] = rightDrives ? [k.cR, k.cL, k.oR] : [k.cL, k.cR, k.oL];
  const nD = rightDrives ? nR : nL, nO = rightDrives ? nL : nR;
  const positions = (n: number, like: mt.Tensor): mt.Tensor => mt.arange(n, { dtype: 'int64', chunkSize: like.node.chunk[0] || 1 });
  // inner and outer: the driving rows in group order (a stable sort); left and right: as they are
  const grouped = how === 'inner' || how === 'outer';
  const size = k.size;
  const countsO = size === undefined ? undefined : mt.bincount(cO, { minlength: size });
  const filtered = countsO !== undefined && how === 'inner';
  const gidD = filtered ? mt.astype(mt.where(mt.greater(mt.take(countsO, cD), 0), oD, -1), 'int32') : oD;
  // dense codes sort by counting (./join_order.ts), which carries the codes along rather than gathering them
  const grp = grouped && size !== undefined ? grouping(gidD, size) : undefined;
  const sortedD = (): [mt.Tensor, mt.Tensor] => {
    const p = mt.argsort(oD, { kind: 'stable' });
    return [p, mt.take(cD, p)];
  };
  const [PD, dc] = !grouped ? [positions(nD, cD), cD] : grp ? [grp.order(positions(nD, gidD)), grp.order(cD)] : sortedD();
  // the other side's rows by code, and each driving row's first match and count there
  const PO = size !== undefined ? grouping(cO, size).order(positions(nO, cO)) : mt.argsort(cO, { kind: 'stable' });
  let lo: mt.Tensor, cnt: mt.Tensor;
  if (countsO !== undefined) {
    lo = mt.take(mt.subtract(mt.cumsum(countsO), countsO), dc);
    cnt = mt.take(countsO, dc);
  } else {
    const SO = mt.take(cO, PO);
    lo = mt.searchsorted(SO, dc, { side: 'left' });
    cnt = mt.subtract(mt.searchsorted(SO, dc, { side: 'right' }), lo);
  }
  const emitOf = (c: mt.Tensor): mt.Tensor => (how === 'inner' ? c : mt.maximum(c, 1));
  // (a 0 joins the counts rather than max's initial, which a length known only at run time loses)
  const most = mt.max(mt.concatenate([I64(cnt), mt.zeros([1], { dtype: 'int64' })]));
  const stats = mt.stack([I64(mt.sum(emitOf(cnt))), most]);

  // (what the first stage computed comes back as operands, so that the rest reads it rather than computing it again)
  const operands = [PD, lo, cnt, PO, k.cL, k.cR, k.oR, ...(grp ? grp.parts : [])];
  const build = ([total, most]: number[], [PD, lo, cnt, PO, cL, cR, oR, ...parts]: mt.Tensor[]): Rows => {
    const emit = emitOf(cnt!);
    const gathered = (at: mt.Tensor): mt.Tensor => (nO === 0 ? mt.full_like(at, -1, { dtype: 'int64' }) : mt.take(PO!, safe(at, nO)));
    let rowD: mt.Tensor, rowO: mt.Tensor;
    // the left's columns without a gather through rowL, where its rows allow
    let fast: ((x: mt.Tensor) => mt.Tensor) | undefined;
    if (most! <= 1) {
      if (how === 'inner' && !filtered) {
        const keep = mt.greater(cnt!, 0);
        rowD = mt.compress(keep, PD!);
        rowO = gathered(mt.compress(keep, lo!));
      } else if (how === 'inner') {
        rowD = PD!;
        rowO = gathered(lo!);
        const g = grp!.over(parts);
        fast = (x) => g.order(x);
      } else {
        rowD = PD!;
        rowO = mt.where(mt.greater(cnt!, 0), gathered(lo!), -1);
        if (how === 'left' && !sort) fast = (x) => x;
      }
    } else {
      // each driving row repeated by its count: output position j belongs to the row whose end offset first passes j
      const ends = mt.cumsum(emit);
      const j = mt.arange(total!, { dtype: 'int64', chunkSize: PD!.node.chunk[0] || 1 });
      const row = mt.searchsorted(ends, j, { side: 'right' });
      const within = mt.subtract(j, mt.subtract(mt.take(ends, row), mt.take(emit, row)));
      rowD = mt.take(PD!, row);
      rowO = mt.where(mt.greater(mt.take(cnt!, row), 0), gathered(mt.add(mt.take(lo!, row), within)), -1);
    }
    let [rowL, rowR] = rightDrives ? [rowO, rowD] : [rowD, rowO];
    if (how === 'outer') {
      // the right rows no left row matched, by group (their groups follow every left group's), after the rest
      let unmatched: mt.Tensor;
      if (k.size !== undefined) {
        unmatched = mt.equal(mt.take(mt.bincount(cL!, { minlength: k.size }), cR!), 0);
      } else {
        const SL = mt.take(cL!, PD!);
        unmatched = mt.equal(mt.searchsorted(SL, cR!, { side: 'left' }), mt.searchsorted(SL, cR!, { side: 'right' }));
      }
      const only = mt.compress(unmatched, positions(nR, cR!));
      const byGroup = mt.take(only, mt.argsort(mt.take(oR!, only), { kind: 'stable' }));
      rowL = mt.concatenate([rowL, mt.full_like(byGroup, -1)]);
      rowR = mt.concatenate([rowR, byGroup]);
    }
    if (sort && how !== 'inner' && nL + nR > 0) {
      // by key, stably: the match codes are in key order when sorting
      const codeL = nL === 0 ? undefined : mt.take(cL!, safe(rowL, nL));
      const codeR = nR === 0 ? undefined : mt.take(cR!, safe(rowR, nR));
      const code = !codeL ? codeR! : !codeR ? codeL : mt.where(mt.greater_equal(rowL, 0), codeL, codeR);
      const order = mt.argsort(code, { kind: 'stable' });
      rowL = mt.take(rowL, order);
      rowR = mt.take(rowR, order);
    }
    const rows: [mt.Tensor, mt.Tensor] = [rowL, rowR];
    return { rows, left: fast ?? ((x) => mt.take(x, rows[0])) };
  };
  return rowsOnValues(stats, operands, build);
}

/**
 * The result rows of merging on key pairs `pairs`: positions into each
 * side (-1 where none), built once the sides' lengths are known.
 */
function rowsOf(pairs: readonly KeyPair[], how: How, sort: boolean): Rows {
  const operands = pairs.flatMap((p) => [p.left, p.right]);
  // (one build for every output: the run builds each deferred output over the same operands)
  const done = new Map<string, Rows>();
  const build = (ts: mt.Tensor[]): Rows => {
    const key = ts.map((t) => t.node.id).join(',');
    const hit = done.get(key);
    if (hit) return hit;
    const known = pairs.map((p, i) => ({ ...p, left: ts[2 * i]!, right: ts[2 * i + 1]! }));
    const nL = known[0]!.left.shape[0]!;
    const [cL, cR, size] = composite(known, nL);
    const firstOrder = (how === 'inner' || how === 'outer') && !sort;
    const ints = known.length === 1 && isInt(cL.dtype) && size === undefined;
    const rows = ints ? intRows(cL, cR, how, sort, firstOrder) : matchRows(keyed(cL, cR, size, firstOrder, how === 'inner'), how, sort);
    done.set(key, rows);
    return rows;
  };
  if (!operands.some((t) => Number.isNaN(t.shape[0]))) return build(operands);
  const rows = deferredAll('merge', operands, 2, (ts) => build(ts).rows) as [mt.Tensor, mt.Tensor];
  return { rows, left: (x) => deferred('merge', [...operands, x], (ts) => build(ts.slice(0, -1)).left(ts[ts.length - 1]!)) };
}

/**
 * The result rows of merging on one integer key, codes `cL` and `cR` (its
 * values): where the values of both sides span at most DENSE_CODES, each
 * value less the smallest is a dense code (key order kept), so that rows
 * match through tables and sort by counting; else by value.
 */
function intRows(cL: mt.Tensor, cR: mt.Tensor, how: How, sort: boolean, firstOrder: boolean): Rows {
  // (an infinity joins each side rather than min's and max's initial, which a length known only at run time loses)
  const span = (c: mt.Tensor): mt.Tensor[] => {
    const f = mt.astype(c, 'float64');
    return [mt.min(mt.concatenate([f, mt.tensor([Infinity])])), mt.max(mt.concatenate([f, mt.tensor([-Infinity])]))];
  };
  const stats = mt.stack([...span(cL), ...span(cR)]);
  return rowsOnValues(stats, [cL, cR], ([l0, l1, r0, r1], [cL, cR]) => {
    const lo = Math.min(l0!, r0!), hi = Math.max(l1!, r1!);
    // (hi - lo is exact: both are int64s read as doubles, and a span this small has them within 2^53 of each other)
    if (!(hi - lo < DENSE_CODES) || !Number.isSafeInteger(lo)) {
      return matchRows(keyed(cL!, cR!, undefined, firstOrder, how === 'inner'), how, sort);
    }
    const code = (c: mt.Tensor): mt.Tensor => mt.subtract(c, lo);
    return matchRows(keyed(code(cL!), code(cR!), hi - lo + 1, firstOrder), how, sort);
  });
}

/** Values `v` at positions `rows`, `fill` where a position is negative (undefined: none is). */
function gather(v: mt.Tensor, rows: mt.Tensor, fill: number | undefined): mt.Tensor {
  if (fill === undefined) return mt.take(v, rows);
  // a side's length the run will know: gathered once it does (an empty side gives only the fill)
  if (Number.isNaN(v.shape[0])) return deferred('merge', [v, rows], ([u, r]) => gather(u!, r!, fill));
  const n = v.shape[0]!;
  if (n === 0) return mt.full_like(rows, fill, { dtype: v.dtype });
  return mt.where(mt.less(rows, 0), fill, mt.take(v, safe(rows, n)));
}

/** Column `c` through positions `rows`; where a side may miss rows, with its missing value there. */
function taken(c: Column, rows: mt.Tensor, mayMiss: boolean, name: string, side: string, how: How): Column {
  if (!mayMiss) return { ...c, values: mt.take(c.values, rows) };
  if (c.dict) return { values: gather(c.values, rows, -1), dict: c.dict, missing: c.missing ?? 'NaN' };
  const d = c.values.dtype;
  if (d === 'bool') {
    throw new TypeError(`merge: the bool column ${JSON.stringify(name)} of the ${side} frame may get missing values in a ${how} merge (pandas' object column), which is not supported: cast it first`);
  }
  return { values: gather(isFloat(d) ? c.values : mt.astype(c.values, 'float64'), rows, NaN) };
}

/** A key column both sides share, combined as pandas combines it: the left's value where a left row is, else the right's. */
function combinedKey(p: KeyPair, rowL: mt.Tensor, rowR: mt.Tensor): Column {
  const [l, r] = p.combined;
  // (each side's value, or a stand-in where it has no row: the other side's is taken there)
  const stand = l.dict ? -1 : 0;
  const values = mt.where(mt.greater_equal(rowL, 0), gather(l.values, rowL, stand), gather(r.values, rowR, stand));
  return { ...l, values: l.dict ? mt.astype(values, 'int32') : values };
}

/**
 * Whether an inner merge takes shared key `p` from the right side (the same
 * values): when the right is the shorter, whose rows a gather reads from
 * fewer places (db-benchmark's small tables), and its values are the
 * left's, dtype and all.
 */
function fromRight(p: KeyPair, l: Column): boolean {
  const [, r] = p.combined;
  const nL = l.values.shape[0]!, nR = r.values.shape[0]!;
  // (not floats: a left -0.0 matches a right 0.0, and pandas shows the left's)
  const same = l.dict ? !!r.dict : r.values.dtype === l.values.dtype && !isFloat(l.values.dtype);
  return same && nR < nL && !(Number.isNaN(nL) || Number.isNaN(nR));
}

/** Shared key `p` of an inner merge taken from the right side's rows `rowR`, printing as the left's column `l` would (a missing string as it shows there). */
function rightKey(p: KeyPair, l: Column, rowR: mt.Tensor): Column {
  const r = p.combined[1];
  return { values: mt.take(r.values, rowR), ...(r.dict ? { dict: r.dict } : {}), ...(l.missing ? { missing: l.missing } : {}) };
}

/** Names as a list. */
const list = (x: string | readonly string[] | undefined): string[] | undefined => (x === undefined ? undefined : typeof x === 'string' ? [x] : [...x]);

/** The key names of each side, checked as pandas checks them. */
export function mergeKeys(left: ReadonlyMap<string, Column>, right: ReadonlyMap<string, Column>, opts: MergeOptions): [string[], string[]] {
  const extra = Object.keys(opts).filter((k) => !['on', 'left_on', 'right_on', 'how', 'suffixes', 'sort'].includes(k));
  if (extra.length) throw new TypeError(`merge: unknown option ${extra[0]} (the options are on, left_on, right_on, how, suffixes, sort)`);
  const on = list(opts.on), lo = list(opts.left_on), ro = list(opts.right_on);
  let ln: string[], rn: string[];
  if (on) {
    if (lo || ro) throw new Error('MergeError: Can only pass argument "on" OR "left_on" and "right_on", not a combination of both.');
    ln = rn = on;
  } else if (lo || ro) {
    if (!lo || !ro) throw new Error(`MergeError: Must pass "${lo ? 'right_on' : 'left_on'}" OR "${lo ? 'right_index' : 'left_index'}".`);
    if (lo.length !== ro.length) throw new Error('ValueError: len(right_on) must equal len(left_on)');
    ln = lo; rn = ro;
  } else {
    // pandas: the columns both frames hold
    ln = rn = [...left.keys()].filter((n) => right.has(n));
    if (!ln.length) throw new Error('MergeError: No common columns to perform merge on. Merge options: left_on=None, right_on=None, left_index=False, right_index=False');
  }
  if (!ln.length) throw new Error('MergeError: no key columns to merge on');
  for (const n of ln) if (!left.has(n)) throw new Error(`KeyError: ${JSON.stringify(n)}: no such column in the left frame (the columns are ${[...left.keys()].map((c) => JSON.stringify(c)).join(', ')})`);
  for (const n of rn) if (!right.has(n)) throw new Error(`KeyError: ${JSON.stringify(n)}: no such column in the right frame (the columns are ${[...right.keys()].map((c) => JSON.stringify(c)).join(', ')})`);
  return [ln, rn];
}

/** `how`, checked. */
export function howOf(how: unknown): How {
  if (how === undefined) return 'inner';
  if (!HOWS.includes(how as How)) throw new Error(`KeyError: ${JSON.stringify(how)}: merge's how is one of ${HOWS.join(', ')}`);
  return how as How;
}

/**
 * pandas' merge of sides `L` and `R`: the left's columns (a key both sides
 * share once, combined in an outer merge), then the right's others;
 * overlapping names take `suffixes`. `shareKeys`: keys of one name on both
 * sides appear once (merge), else every column is kept (join on an index).
 */
export function mergeFrames(L: MergeSide, R: MergeSide, how_: How, sort: boolean, suffixes: readonly [string | null, string | null], shareKeys: boolean): Merged {
  // pandas: an outer merge with a side known to be empty is the other side's left or right merge (its rows in order, its dtypes kept)
  const how = how_ !== 'outer' ? how_ : R.keys[0]!.values.shape[0] === 0 ? 'left' : L.keys[0]!.values.shape[0] === 0 ? 'right' : how_;
  const pairs = L.keys.map((k, i) => keyPair(k, R.keys[i]!, L.keyNames[i]!, R.keyNames[i]!));
  const { rows: [rowL, rowR], left } = rowsOf(pairs, how, sort);
  const shared = new Map<string, number>();
  if (shareKeys) L.keyNames.forEach((n, i) => { if (R.keyNames[i] === n && L.cols.has(n)) shared.set(n, i); });
  const leftNames = [...L.cols.keys()], rightNames = [...R.cols.keys()].filter((n) => !shared.has(n));
  const overlap = new Set(leftNames.filter((n) => !shared.has(n) && rightNames.includes(n)));
  const [sl, sr] = [suffixes[0] ?? '', suffixes[1] ?? ''];
  if (overlap.size && !sl && !sr) throw new Error(`ValueError: columns overlap but no suffix specified: Index([${[...overlap].map((n) => `'${n}'`).join(', ')}], dtype='object')`);
  const missL = how === 'right' || how === 'outer', missR = how === 'left' || how === 'outer';
  const cols = new Map<string, Column>();
  for (const n of leftNames) {
    const i = shared.get(n);
    let c: Column;
    if (i === undefined && !missL) c = { ...L.cols.get(n)!, values: left(L.cols.get(n)!.values) };
    else if (i === undefined) c = taken(L.cols.get(n)!, rowL, missL, n, 'left', how);
    else if (missL) c = combinedKey(pairs[i]!, rowL, rowR);
    else if (how === 'inner' && fromRight(pairs[i]!, L.cols.get(n)!)) c = rightKey(pairs[i]!, L.cols.get(n)!, rowR);
    else c = { ...L.cols.get(n)!, values: left(L.cols.get(n)!.values) };
    cols.set(overlap.has(n) ? n + sl : n, c);
  }
  for (const n of rightNames) cols.set(overlap.has(n) ? n + sr : n, taken(R.cols.get(n)!, rowR, missR, n, 'right', how));
  return { cols, leftRows: rowL, overlap };
}

/** What DataFrame.join takes besides the other frame. */
export interface JoinOptions {
  /** This frame's columns matched to the other's index (else this frame's index is). */
  readonly on?: string | readonly string[];
  /** 'left' (default): every row of this frame; 'inner': those matched. */
  readonly how?: 'left' | 'inner';
  /** What overlapping names end with on this frame's side. */
  readonly lsuffix?: string;
  /** What overlapping names end with on the other's side. */
  readonly rsuffix?: string;
  /** Rows ordered by key. */
  readonly sort?: boolean;
}

/** A frame as join reads it: its columns, labels and length. */
export interface JoinSide {
  readonly cols: ReadonlyMap<string, Column>;
  readonly labels: Labels;
  readonly length: number;
}

/**
 * pandas' join: `R`'s rows matched by its index to `L`'s columns `on` (else
 * to L's index), every column of both kept, over L's labels. As pandas 1.5
 * does, an inner join on a column whose name both frames hold also gives
 * the key itself, unsuffixed, at the key's place among the first columns.
 */
export function joinFrames(L: JoinSide, R: JoinSide, opts: JoinOptions): { cols: Map<string, Column>; labels: Labels } {
  const extra = Object.keys(opts).filter((k) => !['on', 'how', 'lsuffix', 'rsuffix', 'sort'].includes(k));
  if (extra.length) throw new TypeError(`join: unknown option ${extra[0]} (the options are on, how, lsuffix, rsuffix, sort)`);
  const how = opts.how ?? 'left';
  if (how !== 'left' && how !== 'inner') throw new Error(`join: how=${JSON.stringify(how)} is not supported yet (left or inner; merge takes every how)`);
  const index = (f: JoinSide): Column[] => {
    if (f.labels.kind === 'index') return [...f.labels.cols];
    if (Number.isNaN(f.length)) throw new RangeError('join: a RangeIndex over a length known only at run time (after a selection, its labels are the positions kept): execute() the frame first');
    return [{ values: mt.arange(f.length, { dtype: 'int64' }) }];
  };
  const on = list(opts.on);
  for (const n of on ?? []) if (!L.cols.has(n)) throw new Error(`KeyError: ${JSON.stringify(n)}: no such column to join on (the columns are ${[...L.cols.keys()].map((c) => JSON.stringify(c)).join(', ')})`);
  const lk = on ? on.map((n) => L.cols.get(n)!) : index(L), rk = index(R);
  if (lk.length !== rk.length) throw new Error('ValueError: len(left_on) must equal the number of levels in the index of "right"');
  const names = (k: Column[]): string[] => k.map((_, i) => on?.[i] ?? 'index');
  const m = mergeFrames({ cols: L.cols, keys: lk, keyNames: names(lk) }, { cols: R.cols, keys: rk, keyNames: names(rk) }, how, opts.sort ?? false, [opts.lsuffix ?? '', opts.rsuffix ?? ''], false);
  let cols = m.cols;
  const keysBack = how === 'inner' ? (on ?? []).map((n, i) => [n, i] as const).filter(([n]) => m.overlap.has(n)) : [];
  if (keysBack.length) {
    const entries = [...cols];
    for (const [n, i] of keysBack) entries.splice(i, 0, [n, { ...L.cols.get(n)!, values: mt.take(L.cols.get(n)!.values, m.leftRows) }]);
    cols = new Map(entries);
  }
  return { cols, labels: permuteLabels(L.labels, m.leftRows) };
}
