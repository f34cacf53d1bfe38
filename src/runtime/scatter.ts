// Routines of ufunc.at and bincount in chunks (issue 31): the chunk work
// runtime/resolve.ts plans instead of gathering whole arrays (./search.ts has
// searchsorted's).
//   scatter.partial  one group of consecutive (index, value) slices folded,
//                    in index order, into one dense row of the output's
//                    length, filled first with the operation's identity
//                    (with `unit`, index slices alone, each counting one:
//                    bincount's counts, with no array of ones);
//   scatter.combine  one chunk of the base, then the same chunk of every
//                    group's row, folded in group order: the final chunk;
//   scatter.route    a group of (index, value) pairs sorted, stably, by
//                    the piece of the output each falls in: a row of counts
//                    per piece, then positions, then values;
//   scatter.apply    one piece of the base, then every group's pairs for it
//                    applied in group order, so each position's values in
//                    index order: NumPy's bits for any ufunc.at.
// The folds are 'add', 'minimum' and 'maximum' into the values' own dtype:
// associative operations, so a tree of groups gives ufunc.at's sequential
// answer exactly for integers (int64 adds wrap as NumPy's do, word by word,
// with no BigInt per element) and for min/max; a float sum is not
// associative, so the planner routes it by position (route, apply) instead,
// as it does every other ufunc into a dtype a row carries (all but float16
// and bool).
// In: parameters and heap regions. Out: the output region written.

import { type DType, INFO, type TypedArray } from '../graph/dtype.js';
import type { RoutineParams } from '../graph/node.js';
import { type BinaryOp, isBinaryOp, resolveBinary } from '../graph/ops.js';
import { binaryScalar } from '../ir/scalar.js';
import { type Region, type RegionSpec, type Routine, contiguous, flag, len, onlyParams, words } from './region.js';

export type FoldOp = 'add' | 'minimum' | 'maximum';
const FOLDS: readonly FoldOp[] = ['add', 'minimum', 'maximum'];

/** Whether a fold into `d` runs in chunks: a sum into bool is a logical or and float16 sums round through float32 (host path). */
export function foldsInChunks(op: string, d: DType): op is FoldOp {
  if (!(FOLDS as readonly string[]).includes(op) || d === 'float16') return false;
  return op !== 'add' || d !== 'bool';
}

function foldOf(params: RoutineParams): FoldOp {
  const op = params.op;
  if (typeof op !== 'string' || !(FOLDS as readonly string[]).includes(op)) {
    throw new TypeError(`routine parameter op must be one of ${FOLDS.join(', ')}`);
  }
  return op as FoldOp;
}

const is1d = (r: RegionSpec): boolean => r.shape.length === 1;
/** Dtypes whose every value a float64 holds exactly, so a float64 route row carries them (int64 takes an int64 row; float16 and bool neither). */
const ROUTABLE: ReadonlySet<DType> = new Set<DType>(['int8', 'int16', 'int32', 'uint8', 'uint16', 'uint32', 'float32', 'float64']);

/** The dtype of a route's row for values of dtype `d`: int64 rows carry int64 values (and positions) exactly, float64 rows the rest. */
export const rowDtype = (d: DType): DType => (d === 'int64' ? 'int64' : 'float64');

/**
 * Whether ufunc.at of `op` into dtype `d` (computed in d) can be routed by
 * position: d's values fit a route's row, and op's loop for d computes and
 * returns d (the host path's cast back is then no cast).
 */
export function routes(op: string, d: DType): op is BinaryOp {
  if (!(ROUTABLE.has(d) || d === 'int64') || !isBinaryOp(op)) return false;
  try {
    const { compute, result } = resolveBinary(op, d);
    return compute === d && result === d;
  } catch {
    return false; // no loop for d (a bitwise op on floats)
  }
}

/** A non-negative integer parameter. */
function count(params: RoutineParams, name: string): number {
  const v = params[name];
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) throw new TypeError(`routine parameter ${name} must be a count`);
  return v;
}

/** A row of a group's partial: [1, n]. */
const isRow = (r: RegionSpec, n: number): boolean => r.shape.length === 2 && r.shape[0] === 1 && r.shape[1] === n;

/** A row region's n elements (rows of a [1, n] box are contiguous). */
const rowOf = (r: Region): TypedArray => r.data.subarray(0, r.shape[r.shape.length - 1]!) as TypedArray;

/** The identity of `op` over dtype `d`, as its typed array stores it (int64's as a bigint). */
function identity(op: FoldOp, d: DType): number | bigint {
  if (d === 'int64') return op === 'add' ? 0n : op === 'minimum' ? 2n ** 63n - 1n : -(2n ** 63n);
  const { kind, bytes } = INFO[d];
  // -0 for a float sum: -0 + x is x for every x, where 0 + -0 would lose a sign
  if (op === 'add') return kind === 'f' ? -0 : 0;
  if (kind === 'f') return op === 'minimum' ? Infinity : -Infinity;
  if (kind === 'b') return op === 'minimum' ? 1 : 0;
  const bits = 8 * bytes;
  if (kind === 'u') return op === 'minimum' ? 2 ** bits - 1 : 0;
  return op === 'minimum' ? 2 ** (bits - 1) - 1 : -(2 ** (bits - 1));
}

/**
 * Folds v[i] into o[pos[i]] for i < n (into o[i] without `pos`). Sums of
 * narrow integers wrap through the typed array's store; float32's round
 * there, as each step of NumPy's float32 loop does; min/max as NumPy's (a
 * NaN wins; -0 is below 0).
 */
function foldNumbers(op: FoldOp, o: TypedArray, v: TypedArray, n: number, pos?: Int32Array): void {
  const os = o as Float64Array, vs = v as Float64Array;
  if (!pos) {
    if (op === 'add') for (let i = 0; i < n; i++) os[i]! += vs[i]!;
    else if (op === 'maximum') for (let i = 0; i < n; i++) os[i] = max(os[i]!, vs[i]!);
    else for (let i = 0; i < n; i++) os[i] = min(os[i]!, vs[i]!);
    return;
  }
  if (op === 'add') for (let i = 0; i < n; i++) os[pos[i]!]! += vs[i]!;
  else if (op === 'maximum') for (let i = 0; i < n; i++) { const j = pos[i]!; os[j] = max(os[j]!, vs[i]!); }
  else for (let i = 0; i < n; i++) { const j = pos[i]!; os[j] = min(os[j]!, vs[i]!); }
}

// a NaN operand itself, as NumPy's loops return it: Math's (and an optimiser's fold of a NaN constant into it) would be the CPU's negative NaN
const max = (x: number, y: number): number => (x !== x ? x : y !== y ? y : Math.max(x, y));
const min = (x: number, y: number): number => (x !== x ? x : y !== y ? y : Math.min(x, y));

/** foldNumbers for int64, on the words (little-endian, low word first): a sum wraps mod 2**64 through its carry. */
function foldWords(op: FoldOp, o: Int32Array, v: Int32Array, n: number, pos?: Int32Array): void {
  for (let i = 0; i < n; i++) foldWord(op, o, 2 * (pos ? pos[i]! : i), v, 2 * i);
}

/** Folds the int64 at words v[b], v[b + 1] into the one at o[a], o[a + 1]. */
function foldWord(op: FoldOp, o: Int32Array, a: number, v: Int32Array, b: number): void {
  const ol = o[a]! >>> 0, oh = o[a + 1]!, vl = v[b]! >>> 0, vh = v[b + 1]!;
  if (op === 'add') {
    const lo = ol + vl;
    o[a] = lo | 0;
    o[a + 1] = (oh + vh + (lo > 0xffffffff ? 1 : 0)) | 0;
    return;
  }
  const less = vh < oh || (vh === oh && vl < ol);
  if (op === 'minimum' ? less : !less && (vh !== oh || vl !== ol)) { o[a] = v[b]!; o[a + 1] = vh; }
}

function fill(o: TypedArray, value: number | bigint): void {
  (o as unknown as { fill(v: number | bigint): void }).fill(value);
}

/** Positions of an index slice, checked against the output's length: the error names the first index outside it. */
function positions(idx: TypedArray, size: number, to: Int32Array): void {
  const w = words(idx), n = idx.length;
  for (let i = 0; i < n; i++) {
    const j = w[2 * i]!;
    if (j < 0 || j >= size || w[2 * i + 1] !== 0) {
      throw new RangeError(`index ${(idx as BigInt64Array)[i]} is out of bounds for axis 0 with size ${size}`);
    }
    to[i] = j;
  }
}

// This thread's scratch arrays, reused from call to call (as ./routines.ts's
// are): a group's temporaries would otherwise be garbage the collector frees late.
let posScratch = new Int32Array(1024);
let accScratch = new Float64Array(1024);
let bucketPos = new Int32Array(1024);
let bucketVal = new Float64Array(1024);
let countScratch = new Int32Array(1024);

/** Scratch past this many bytes is not kept after a call (a fold into a row of 10^8 would hold 800 MB a thread). */
const SCRATCH_KEEP = 32 * 2 ** 20;

function trimScratch(): void {
  const big = (a: ArrayBufferView): boolean => a.byteLength > SCRATCH_KEEP;
  if (big(posScratch)) posScratch = new Int32Array(1024);
  if (big(accScratch)) accScratch = new Float64Array(1024);
  if (big(bucketPos) || big(bucketVal)) { bucketPos = new Int32Array(1024); bucketVal = new Float64Array(1024); }
  if (big(countScratch)) countScratch = new Int32Array(1024);
}

/** Bins of one bucket: 64 KiB of float64, within a core's L2 cache. */
const BUCKET_BITS = 13;
/** Whether a sum of n values into a row of `size` goes bucket by bucket: a row past the cache, and values enough to pay the pass. */
const bucketed = (n: number, size: number): boolean => size > 1 << 17 && n > 1 << 14;

/**
 * A float64-accumulated int64 sum's (position, value) pairs regrouped by
 * bucket of positions, for a row longer than the cache: the fold then visits
 * one bucket's bins at a time instead of missing the cache at every value
 * (twice the speed into 10^6 float64 bins; an Int32Array's increments are
 * fast enough without). A counting sort, stable, so each position's values
 * keep their order. `stride` 2 reads int32s from the low words of int64s; no
 * `v`, ones. The pairs live in this thread's scratch memory.
 */
function byBucket(pos: Int32Array, v: ArrayLike<number> | undefined, stride: number, n: number, size: number): [Int32Array, Float64Array] {
  const buckets = (size >>> BUCKET_BITS) + 1;
  const at = new Int32Array(buckets + 1);
  for (let i = 0; i < n; i++) at[(pos[i]! >>> BUCKET_BITS) + 1]!++;
  for (let b = 0; b < buckets; b++) at[b + 1]! += at[b]!;
  if (bucketPos.length < n) { bucketPos = new Int32Array(n); bucketVal = new Float64Array(n); }
  const bp = bucketPos, bv = bucketVal;
  for (let i = 0; i < n; i++) {
    const p = pos[i]!, t = at[p >>> BUCKET_BITS]!++;
    bp[t] = p;
    bv[t] = v ? v[stride * i]! : 1;
  }
  return [bp, bv];
}

/**
 * A bound on the magnitude of any partial sum of a group's int64 values when
 * they are int32s (high word the low word's sign), else Infinity: below
 * 2**53 they sum exactly as float64s, below 2**31 as int32s. Counts, mostly.
 */
function smallSum(inputs: readonly Region[]): number {
  let bound = 0;
  for (let p = 1; p < inputs.length && bound < 2 ** 53; p += 2) {
    const w = words(contiguous(inputs[p]!)), n = w.length;
    for (let i = 0; i < n && bound < 2 ** 53; i += 2) bound = w[i + 1] === w[i]! >> 31 ? bound + Math.abs(w[i]!) : Infinity;
  }
  return bound;
}

/**
 * An int64 sum of small values (`bound` from smallSum; with `unit`, of ones,
 * the group's length): added as int32s below 2**31 (a random increment of an
 * Int32Array costs a third of a float64's), else as float64s, exact below
 * 2**53 (long rows bucket by bucket: byBucket), and written as int64 words
 * once at the end; either is several times the speed of carrying through
 * word pairs element by element.
 */
function sumSmall(inputs: readonly Region[], size: number, o: Int32Array, unit: boolean, bound: number): void {
  const step = unit ? 1 : 2;
  const slices = (fold: (pos: Int32Array, n: number, vw: Int32Array | undefined) => void): void => {
    for (let p = 0; p + step - 1 < inputs.length; p += step) {
      const idx = contiguous(inputs[p]!), vw = unit ? undefined : words(contiguous(inputs[p + 1]!));
      if (posScratch.length < idx.length) posScratch = new Int32Array(idx.length);
      positions(idx, size, posScratch);
      // (the bound in a local: a BigInt64Array's length read in the loop costs five times the loop)
      fold(posScratch, idx.length, vw);
    }
  };
  // arrays of their own length, not subarrays: V8 folds a subarray's loop several times slower
  if (bound < 2 ** 31) {
    if (countScratch.length !== size) countScratch = new Int32Array(size);
    const acc = countScratch.fill(0);
    slices((pos, n, vw) => {
      if (vw) for (let i = 0; i < n; i++) acc[pos[i]!]! += vw[2 * i]!;
      else for (let i = 0; i < n; i++) acc[pos[i]!]!++;
    });
    for (let j = 0; j < size; j++) { const a = acc[j]!; o[2 * j] = a; o[2 * j + 1] = a >> 31; }
    return;
  }
  if (accScratch.length !== size) accScratch = new Float64Array(size);
  const acc = accScratch.fill(0);
  slices((pos, n, vw) => {
    if (bucketed(n, size)) {
      const [bp, bv] = byBucket(pos, vw, 2, n, size);
      for (let i = 0; i < n; i++) acc[bp[i]!]! += bv[i]!;
    } else if (vw) {
      for (let i = 0; i < n; i++) acc[pos[i]!]! += vw[2 * i]!;
    } else {
      for (let i = 0; i < n; i++) acc[pos[i]!]!++;
    }
  });
  for (let j = 0; j < size; j++) {
    const a = acc[j]!, hi = Math.floor(a / 2 ** 32);
    o[2 * j] = (a - hi * 2 ** 32) | 0;
    o[2 * j + 1] = hi | 0;
  }
}

/** 'scatter.partial': the group's row filled with the identity, then its pairs folded in, in order. */
function runPartial(params: RoutineParams, inputs: readonly Region[], out: Region): void {
  const op = params.op as FoldOp;
  const size = out.shape[1]!;
  const o = rowOf(out);
  if (params.unit === true) { sumSmall(inputs, size, words(o), true, inputs.reduce((a, r) => a + len(r), 0)); return; }
  const bound = out.dtype === 'int64' && op === 'add' ? smallSum(inputs) : Infinity;
  if (bound < 2 ** 53) { sumSmall(inputs, size, words(o), false, bound); return; }
  fill(o, identity(op, out.dtype));
  for (let p = 0; p + 1 < inputs.length; p += 2) {
    const idx = contiguous(inputs[p]!), vs = contiguous(inputs[p + 1]!);
    if (posScratch.length < idx.length) posScratch = new Int32Array(idx.length);
    const pos = posScratch;
    positions(idx, size, pos);
    if (out.dtype === 'int64') foldWords(op, words(o), words(vs), idx.length, pos);
    else foldNumbers(op, o, vs, idx.length, pos);
  }
}

/**
 * 'scatter.route': the group's pairs sorted stably by piece (a counting
 * sort), behind the counts. A float64 row holds every number as it is; an
 * int64 row holds counts and positions as int64s and the values' own words.
 */
function runRoute(params: RoutineParams, inputs: readonly Region[], out: Region): void {
  const size = params.size as number, piece = params.piece as number, pieces = Math.ceil(size / piece);
  const wide = out.dtype === 'int64';
  let m = 0;
  for (let p = 0; p < inputs.length; p += 2) m += inputs[p]!.shape[0]!;
  if (posScratch.length < m) posScratch = new Int32Array(m);
  const pos = posScratch, vals = wide ? undefined : new Float64Array(m), vw = wide ? new Int32Array(2 * m) : undefined;
  let at = 0;
  for (let p = 0; p < inputs.length; p += 2) {
    const idx = contiguous(inputs[p]!), vs = contiguous(inputs[p + 1]!), n = idx.length;
    positions(idx, size, pos.subarray(at, at + n));
    if (vw) vw.set(words(vs), 2 * at);
    else for (let i = 0; i < n; i++) vals![at + i] = vs[i] as number;
    at += n;
  }
  const counts = new Float64Array(pieces), start = new Float64Array(pieces + 1);
  for (let i = 0; i < m; i++) counts[Math.floor(pos[i]! / piece)]!++;
  for (let r = 0; r < pieces; r++) start[r + 1] = start[r]! + counts[r]!;
  const row = rowOf(out);
  if (!wide) {
    const rf = row as Float64Array;
    rf.fill(0);
    rf.set(counts);
    for (let i = 0; i < m; i++) {
      const t = start[Math.floor(pos[i]! / piece)]!++;
      rf[pieces + t] = pos[i]!;
      rf[pieces + m + t] = vals![i]!;
    }
    return;
  }
  const rw = words(row);
  rw.fill(0);
  for (let r = 0; r < pieces; r++) rw[2 * r] = counts[r]!;
  for (let i = 0; i < m; i++) {
    const t = start[Math.floor(pos[i]! / piece)]!++;
    rw[2 * (pieces + t)] = pos[i]!;
    rw[2 * (pieces + m + t)] = vw![2 * i]!;
    rw[2 * (pieces + m + t) + 1] = vw![2 * i + 1]!;
  }
}

/**
 * 'scatter.apply' into int64, on the words: a sum wraps through its carry,
 * min/max compare the words, any other ufunc through the reference scalar
 * semantics on bigints (rarer, and slower).
 */
function applyWords(op: BinaryOp, base: Region, rest: readonly Region[], out: Region): void {
  const o = contiguous(out) as BigInt64Array, ow = words(o), n = o.length, origin = out.origin[0]!;
  o.set(contiguous(base) as BigInt64Array);
  const fold: FoldOp | undefined = op === 'add' || op === 'maximum' || op === 'minimum' ? op : undefined;
  for (let p = 0; p < rest.length; p += 2) {
    const pw = words(rowOf(rest[p]!)), vs = rowOf(rest[p + 1]!) as BigInt64Array, vw = words(vs), k = vs.length;
    for (let i = 0; i < k; i++) {
      const j = pw[2 * i]! - origin;
      if (!(j >= 0 && j < n) || pw[2 * i + 1] !== 0) throw new RangeError(`scatter.apply: a position lies outside its chunk at ${origin}`);
      if (fold) foldWord(fold, ow, 2 * j, vw, 2 * i);
      else o[j] = binaryScalar(op, o[j]!, vs[i]!, 'int64') as bigint;
    }
  }
}

export const SCATTER_ROUTINES: Readonly<Record<'scatter.partial' | 'scatter.combine' | 'scatter.route' | 'scatter.apply', Routine>> = {
  'scatter.partial': {
    check(params, inputs, output) {
      onlyParams(params, ['op', 'unit']);
      const op = foldOf(params);
      const d = output.dtype;
      if (!foldsInChunks(op, d) || output.shape.length !== 2 || output.shape[0] !== 1) {
        throw new TypeError(`scatter.partial writes one [1, n] row of a dtype ${op} folds into in chunks`);
      }
      if (params.unit !== undefined && flag(params, 'unit')) {
        if (op !== 'add' || d !== 'int64' || !inputs.every((i) => is1d(i) && i.dtype === 'int64')) {
          throw new TypeError('scatter.partial counts (unit) into int64 rows from 1-d int64 index slices alone');
        }
        return;
      }
      const pairs = inputs.length / 2;
      if (!Number.isInteger(pairs)) throw new TypeError('scatter.partial reads (index, values) slices in pairs');
      for (let p = 0; p < pairs; p++) {
        const [i, v] = [inputs[2 * p]!, inputs[2 * p + 1]!];
        if (!is1d(i) || !is1d(v) || i.dtype !== 'int64' || v.dtype !== d || i.shape[0] !== v.shape[0]) {
          throw new TypeError(`scatter.partial's slice pair ${p}: a 1-d int64 index and as many values of the row's dtype`);
        }
      }
    },
    run(params, inputs, out) {
      try {
        runPartial(params, inputs, out);
      } finally {
        trimScratch();
      }
    },
  },
  'scatter.combine': {
    check(params, inputs, output) {
      onlyParams(params, ['op']);
      const op = foldOf(params);
      const base = inputs[0], d = output.dtype;
      const n = output.shape[0];
      const ok = base !== undefined && foldsInChunks(op, d) && is1d(output) && is1d(base) && base.dtype === d && base.shape[0] === n
        && inputs.slice(1).every((r) => r.dtype === d && isRow(r, n!));
      if (!ok) throw new TypeError('scatter.combine reads one 1-d chunk of the base and [1, n] rows of the partials, and writes the chunk');
    },
    run(params, [base, ...rows], out) {
      const op = params.op as FoldOp;
      const n = out.shape[0]!;
      const o = contiguous(out) as TypedArray;
      o.set(contiguous(base!) as never);
      for (const r of rows) {
        if (out.dtype === 'int64') foldWords(op, words(o), words(rowOf(r)), n);
        else foldNumbers(op, o, rowOf(r), n);
      }
    },
  },
  'scatter.route': {
    check(params, inputs, output) {
      onlyParams(params, ['size', 'piece']);
      const size = count(params, 'size'), piece = count(params, 'piece');
      const pairs = inputs.length / 2;
      if (!Number.isInteger(pairs) || piece < 1) throw new TypeError('scatter.route reads (index, values) slices in pairs into pieces of at least one place');
      let m = 0;
      for (let p = 0; p < pairs; p++) {
        const [i, v] = [inputs[2 * p]!, inputs[2 * p + 1]!];
        const fits = ROUTABLE.has(v.dtype) || v.dtype === 'int64';
        if (!is1d(i) || !is1d(v) || i.dtype !== 'int64' || !fits || v.dtype !== inputs[1]!.dtype || i.shape[0] !== v.shape[0]) {
          throw new TypeError(`scatter.route's slice pair ${p}: a 1-d int64 index and as many values a row holds`);
        }
        m += i.shape[0]!;
      }
      const want = inputs.length ? rowDtype(inputs[1]!.dtype) : 'float64';
      if (output.dtype !== want || output.shape.length !== 2 || output.shape[0] !== 1 || output.shape[1]! < Math.ceil(size / piece) + 2 * m) {
        throw new TypeError(`scatter.route writes one ${want} [1, w] row: a count per piece, then the positions, then the values`);
      }
    },
    run(params, inputs, out) {
      try {
        runRoute(params, inputs, out);
      } finally {
        trimScratch();
      }
    },
  },
  'scatter.apply': {
    check(params, inputs, output) {
      onlyParams(params, ['op']);
      if (typeof params.op !== 'string' || !routes(params.op, output.dtype)) {
        throw new TypeError(`scatter.apply's op must be a ufunc computing in its output's dtype (${output.dtype})`);
      }
      const [base, ...rest] = inputs;
      const row = rowDtype(output.dtype);
      const ok = base !== undefined && is1d(base) && output.dtype === base.dtype && is1d(output)
        && output.shape[0] === base.shape[0] && rest.length % 2 === 0
        && rest.every((r, i) => r.dtype === row && r.shape.length === 2 && r.shape[0] === 1 && r.shape[1] === rest[i ^ 1]!.shape[1]);
      if (!ok) {
        throw new TypeError(`scatter.apply reads a chunk of the base and (positions, values) ${row} [1, k] slices in pairs, and writes the chunk`);
      }
    },
    run(params, [base, ...rest], out) {
      const op = params.op as BinaryOp, d = out.dtype;
      if (d === 'int64') { applyWords(op, base!, rest, out); return; }
      const o = contiguous(out) as Float64Array, n = o.length, origin = out.origin[0]!;
      // a float sum adds in place (the store rounds a float32 as its loop does), min/max as the folds take them (a NaN operand's own
      // bits), any other ufunc through the reference scalar semantics
      const sum = op === 'add' && (d === 'float64' || d === 'float32');
      o.set(contiguous(base!) as never);
      for (let p = 0; p < rest.length; p += 2) {
        const ps = rowOf(rest[p]!), vs = rowOf(rest[p + 1]!) as Float64Array, k = ps.length;
        for (let i = 0; i < k; i++) {
          const j = (ps[i] as number) - origin;
          if (!(j >= 0 && j < n)) throw new RangeError(`scatter.apply: position ${ps[i]} lies outside its chunk at ${origin}`);
          if (sum) o[j]! += vs[i]!;
          else if (op === 'maximum' || op === 'minimum') o[j] = op === 'maximum' ? max(o[j]!, vs[i]!) : min(o[j]!, vs[i]!);
          else o[j] = binaryScalar(op, o[j]!, vs[i]!, d) as number;
        }
      }
    },
  },
};
