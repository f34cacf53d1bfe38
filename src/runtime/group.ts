// The routine of a DataFrame's groupby (dataframe/groupby.ts), which folds
// rows into per-group partial aggregates instead of gathering a column:
//   gfold  the rows of one or more chunks, each row's group number (int32,
//          negative: the row is in no group) and its values, into one
//          [slots, groups] row of partials: per slot one fold (a size, a
//          count, a sum, a min, ...) of one value input. The partials of
//          several calls combine with plain reductions over their first
//          axis (sums add, mins take the min), which the tensor layer runs
//          as a tree of reductions: the groupby's tree combine. With `lo`,
//          a call folds groups lo..lo+G-1 (a shuffle's partition).
//   gcount the rows of one chunk per partition of the groups (P ranges of
//          Gp groups, then the rows in no group): a shuffle's first stage;
//   gbucket one column of one chunk, its rows stably ordered by their
//          group's partition, so that partition p's rows of every chunk
//          are one box the fold of p reads (from wherever the chunk is).
//   gscan  each row's place in its group (a cumcount) over one chunk: the
//          count of the group's rows in the chunks before it (a [G] row of
//          int64, the exclusive running sum of the chunks' sizes per
//          group, which gfold and the tensor layer's cumsum compute), then
//          one more per row of the group in the chunk; -1 for a row in no
//          group. No sort: a chunk's rows are read once, in their order.
// and, to number the groups of many keys without a sort (the composite
// codes of a key space too large to index), a hash shuffle:
//   hcount  one chunk's rows per partition of their code's hash (P, then
//           the rows of a negative code: in no group);
//   hbucket one chunk's codes stably ordered by that partition;
//   hfactor the codes of one partition (its box of every chunk) numbered by
//           first appearance with a hash table: [N] int64 of the rows' local
//           numbers, then [N] of the distinct codes (-1 past them);
//   hunbucket one chunk's group numbers in row order: a row of partition p
//           takes p·N plus the next of p's local numbers for the chunk.
// A float64 output folds in doubles (NaN values skipped, as pandas skips
// them). An int64 output folds integer inputs exactly: sums and products
// wrap as NumPy's int64 does (a sum is kept as the sums of its values'
// high and low 32-bit words, exact to 2^21 rows between flushes), and
// positions (first, last) are rows' global indices.
// In: parameters and heap regions. Out: the [1, slots, groups] region written.

import type { TypedArray } from '../graph/dtype.js';
import type { RoutineParams } from '../graph/node.js';
import { type Region, type RegionSpec, type Routine, contiguous, onlyParams, words } from './region.js';

/** The folds of a slot, by number (what `ops` holds). */
export const FOLD = {
  /** rows in the group */
  size: 0,
  /** values not missing */
  count: 1,
  sum: 2,
  min: 3,
  max: 4,
  prod: 5,
  /** the smallest global row index of a value not missing */
  first: 6,
  /** the largest */
  last: 7,
  /** the sum of (x - aux[g])^2 over values not missing: a variance's second pass around the group's mean */
  dev2: 8,
  /** whether any value not missing is non-zero (1 or 0) */
  any: 9,
  /** whether every value not missing is non-zero */
  all: 10,
  /** the median of the values not missing (NaN for none): a call must see each group's every row (a shuffle's partition) */
  median: 11,
  /** how many distinct values not missing: likewise */
  nunique: 12,
} as const;
export type Fold = keyof typeof FOLD;
const FOLDS = Object.keys(FOLD).length;

const INT = new Set(['int8', 'int16', 'int32', 'int64', 'uint8', 'uint16', 'uint32', 'bool']);

function nums(params: RoutineParams, name: string): readonly number[] {
  const v = params[name];
  if (!Array.isArray(v) || !v.every((x) => Number.isSafeInteger(x))) throw new TypeError(`routine parameter ${name} must be a list of integers`);
  return v;
}
function int(params: RoutineParams, name: string): number {
  const v = params[name];
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) throw new TypeError(`routine parameter ${name} must be a count`);
  return v;
}

interface Layout { G: number; E: number; m: number; ops: readonly number[]; vals: readonly number[]; aux: readonly number[]; na: readonly number[]; lo: number }

/**
 * The call's layout: G groups; E auxiliary [G] float64 tables first among
 * the inputs (a group's mean, for dev2); then groups of 1 + m inputs per
 * chunk (its group numbers, then its m value inputs); per slot its fold,
 * its value input (1..m, or 0 for size) and its table (-1: none); per value
 * input whether a negative value is missing (a string column's codes).
 */
function layout(params: RoutineParams): Layout {
  onlyParams(params, ['G', 'E', 'm', 'ops', 'vals', 'aux', 'na', 'lo']);
  const G = int(params, 'G'), E = int(params, 'E'), m = int(params, 'm'), lo = params.lo === undefined ? 0 : int(params, 'lo');
  const ops = nums(params, 'ops'), vals = nums(params, 'vals'), aux = nums(params, 'aux'), na = nums(params, 'na');
  if (vals.length !== ops.length || aux.length !== ops.length || na.length !== m) {
    throw new TypeError('gfold: ops, vals and aux give one entry per slot, na one per value input');
  }
  if (ops.some((o) => o < 0 || o >= FOLDS)) throw new TypeError('gfold: an unknown fold');
  if (vals.some((v, s) => v < 0 || v > m || (v === 0) !== (ops[s] === FOLD.size))) {
    throw new TypeError('gfold: every slot but a size reads one of the m value inputs');
  }
  if (aux.some((a, s) => a < -1 || a >= E || (a >= 0) !== (ops[s] === FOLD.dev2))) {
    throw new TypeError('gfold: a dev2 slot, and only it, reads one of the E tables');
  }
  return { G, E, m, ops, vals, aux, na, lo };
}

/** A shuffle's partitions: P of Gp groups each; rows in no group (a negative number) go after them, to partition P. */
function partitions(params: RoutineParams): { P: number; Gp: number } {
  onlyParams(params, ['P', 'Gp']);
  const P = int(params, 'P'), Gp = int(params, 'Gp');
  if (P < 1 || Gp < 1) throw new RangeError('gcount and gbucket take at least one partition of at least one group');
  return { P, Gp };
}

/** Codes a hash shuffle reads: int32 or int64, 1-d. */
const isCode = (r: RegionSpec | undefined): boolean =>
  !!r && (r.dtype === 'int32' || r.dtype === 'int64') && r.shape.length === 1;

/** A code's 32-bit hash from its high and low words (murmur3's finalizer over both). */
function mix(hi: number, lo: number): number {
  let h = lo ^ Math.imul(hi, 0x9e3779b1);
  h ^= h >>> 16; h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13; h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/** The words of a 1-d code region (high, low per element), read through `at(i)` into `hi` and `lo`. */
function codeWords(r: Region): { n: number; hi: (i: number) => number; lo: (i: number) => number } {
  const n = r.shape[0]!, s = r.strides[0]!;
  if (r.dtype === 'int64') {
    const w = words(r.data);
    return { n, hi: (i) => w[2 * i * s + 1]!, lo: (i) => w[2 * i * s]! };
  }
  const d = r.data as Int32Array;
  return { n, hi: (i) => (d[i * s]! < 0 ? -1 : 0), lo: (i) => d[i * s]! };
}

/**
 * Each row's partition by its code's hash (its high bits, so that a
 * partition's table indexes by the low ones); P for a negative code.
 */
function hashParts(r: Region, P: number): Int32Array {
  const { n, hi, lo } = codeWords(r);
  const parts = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const h = hi(i);
    parts[i] = h < 0 ? P : Math.floor(((mix(h, lo(i)) >>> 0) * P) / 2 ** 32);
  }
  return parts;
}

const HASH_ROUTINES: Readonly<Record<'hcount' | 'hbucket' | 'hfactor' | 'hunbucket', Routine>> = {
  hcount: {
    check(params, inputs, output) {
      const { P } = hashParams(params);
      if (inputs.length !== 1 || !isCode(inputs[0])) throw new TypeError('hcount reads one 1-d int32 or int64 region of codes');
      if (output.dtype !== 'int64' || output.shape.length !== 2 || output.shape[0] !== 1 || output.shape[1] !== P + 1) {
        throw new TypeError(`hcount writes one [1, ${P + 1}] int64 row`);
      }
    },
    run(params, [code], out) {
      const { P } = hashParams(params);
      const parts = hashParts(code!, P), counts = new Float64Array(P + 1);
      for (let i = 0; i < parts.length; i++) counts[parts[i]!]!++;
      const w = words(out.data), s = out.strides[1]!;
      for (let p = 0; p <= P; p++) putExact(w, p * s, counts[p]!);
    },
  },
  hbucket: {
    check(params, inputs, output) {
      hashParams(params);
      if (inputs.length !== 1 || !isCode(inputs[0])) throw new TypeError('hbucket reads one 1-d int32 or int64 region of codes');
      if (output.dtype !== inputs[0]!.dtype || output.shape.length !== 1 || output.shape[0] !== inputs[0]!.shape[0]) {
        throw new TypeError('hbucket writes the codes reordered');
      }
    },
    run(params, [code], out) {
      const { P } = hashParams(params);
      const parts = hashParts(code!, P), n = parts.length, at = new Float64Array(P + 2);
      for (let i = 0; i < n; i++) at[parts[i]! + 1]!++;
      for (let p = 1; p <= P + 1; p++) at[p]! += at[p - 1]!;
      const { hi, lo } = codeWords(code!);
      const os = out.strides[0]!;
      if (out.dtype === 'int64') {
        const w = words(out.data);
        for (let i = 0; i < n; i++) { const o = at[parts[i]!]!++ * os; w[2 * o] = lo(i); w[2 * o + 1] = hi(i); }
      } else {
        const o = out.data as Int32Array;
        for (let i = 0; i < n; i++) o[at[parts[i]!]!++ * os] = lo(i);
      }
    },
  },
  hfactor: {
    check(params, inputs, output) {
      const { N } = hashParams(params);
      if (!inputs.length || !inputs.every(isCode) || inputs.some((r) => r.dtype !== inputs[0]!.dtype)) {
        throw new TypeError('hfactor reads 1-d code regions of one dtype');
      }
      if (inputs.reduce((a, r) => a + r.shape[0]!, 0) > N) throw new RangeError(`hfactor: a partition of more than ${N} rows`);
      if (output.dtype !== 'int64' || output.shape.length !== 1 || output.shape[0] !== 2 * N) {
        throw new TypeError(`hfactor writes [${2 * N}] int64`);
      }
    },
    run(params, inputs, out) {
      const { N } = hashParams(params);
      const rows = inputs.reduce((a, r) => a + r.shape[0]!, 0);
      // open addressing, at most half full, one slot of 4 words per entry (the code's high and low words, its
      // local number + 1, 0 when empty): a probe touches one cache line, not one per array
      let cap = 16;
      while (cap < 2 * rows) cap *= 2;
      const mask = cap - 1, table = new Int32Array(4 * cap);
      const w = words(out.data), os = out.strides[0]!;
      let row = 0, D = 0;
      for (const r of inputs) {
        const n = r.shape[0]!, s = r.strides[0]!;
        const wide = r.dtype === 'int64', cw = wide ? words(r.data) : (r.data as Int32Array);
        for (let i = 0; i < n; i++, row++) {
          const l = wide ? cw[2 * i * s]! : cw[i * s]!, h = wide ? cw[2 * i * s + 1]! : l < 0 ? -1 : 0;
          let t = (mix(h, l) & mask) << 2;
          while (table[t + 2] !== 0 && (table[t] !== h || table[t + 1] !== l)) t = (t + 4) & (4 * cap - 1);
          let id = table[t + 2]! - 1;
          if (id < 0) {
            id = D++;
            table[t] = h; table[t + 1] = l; table[t + 2] = id + 1;
            const o = 2 * (N + id) * os;
            w[o] = l; w[o + 1] = h;
          }
          const o = 2 * row * os;
          w[o] = id; w[o + 1] = 0;
        }
      }
      for (let i = row; i < N; i++) { w[2 * i * os] = -1; w[2 * i * os + 1] = -1; }
      for (let d = D; d < N; d++) { w[2 * (N + d) * os] = -1; w[2 * (N + d) * os + 1] = -1; }
    },
  },
  hunbucket: {
    check(params, inputs, output) {
      const { P } = hashParams(params);
      if (inputs.length !== P + 1 || !isCode(inputs[0]) || inputs.slice(1).some((r) => r.dtype !== 'int64' || r.shape.length !== 1)) {
        throw new TypeError(`hunbucket reads a chunk's codes, then the local numbers of its rows in each of ${P} partitions`);
      }
      if (output.dtype !== 'int32' || output.shape.length !== 1 || output.shape[0] !== inputs[0]!.shape[0]) {
        throw new TypeError('hunbucket writes one int32 group number per row');
      }
    },
    run(params, [code, ...locals], out) {
      const { P, N } = hashParams(params);
      const parts = hashParts(code!, P), next = new Int32Array(P);
      const ls = locals.map((r) => ({ w: words(r.data), s: r.strides[0]!, n: r.shape[0]! }));
      const o = out.data as Int32Array, os = out.strides[0]!;
      for (let i = 0; i < parts.length; i++) {
        const p = parts[i]!;
        if (p === P) { o[i * os] = -1; continue; }
        const l = ls[p]!, k = next[p]!++;
        if (k >= l.n) throw new RangeError('hunbucket: more rows of a partition than its local numbers');
        o[i * os] = p * N + l.w[2 * k * l.s]!;
      }
    },
  },
};

/** A hash shuffle's parameters: P partitions, N rows (and numbers) at most per partition. */
function hashParams(params: RoutineParams): { P: number; N: number } {
  onlyParams(params, ['P', 'N']);
  const P = int(params, 'P'), N = params.N === undefined ? 0 : int(params, 'N');
  if (P < 1 || P * N >= 2 ** 31) throw new RangeError('a hash shuffle takes at least one partition, P·N below 2^31');
  return { P, N };
}

const partOf = (g: number, P: number, Gp: number): number => (g < 0 ? P : Math.min(P, Math.floor(g / Gp)));

export const GROUP_ROUTINES: Readonly<Record<'gfold' | 'gcount' | 'gbucket' | 'gscan' | 'hcount' | 'hbucket' | 'hfactor' | 'hunbucket', Routine>> = {
  ...HASH_ROUTINES,
  gscan: {
    check(params, inputs, output) {
      onlyParams(params, ['G']);
      const G = int(params, 'G');
      const [gid, before] = inputs;
      if (inputs.length !== 2 || gid!.dtype !== 'int32' || gid!.shape.length !== 1) {
        throw new TypeError('gscan reads a 1-d int32 region of group numbers, then the counts before it');
      }
      if (before!.dtype !== 'int64' || before!.shape.reduce((a, d) => a * d, 1) !== G || before!.shape[before!.shape.length - 1] !== G) {
        throw new TypeError(`gscan: the counts before the chunk are one row of ${G} int64`);
      }
      if (output.dtype !== 'int64' || output.shape.length !== 1 || output.shape[0] !== gid!.shape[0]) {
        throw new TypeError('gscan writes one int64 per row');
      }
    },
    run(params, [gid, before], out) {
      const G = int(params, 'G');
      const g = contiguous(gid!) as Int32Array, bw = words(before!.data), bs = before!.strides[before!.shape.length - 1]!;
      const seen = new Float64Array(G);
      for (let k = 0; k < G; k++) seen[k] = bw[2 * k * bs + 1]! * 2 ** 32 + (bw[2 * k * bs]! >>> 0);
      const ow = words(out.data), os = out.strides[0]!;
      for (let i = 0; i < g.length; i++) {
        const k = g[i]!;
        putExact(ow, i * os, k < 0 ? -1 : seen[k]!++);
      }
    },
  },
  gcount: {
    check(params, inputs, output) {
      const { P } = partitions(params);
      if (inputs.length !== 1 || inputs[0]!.dtype !== 'int32' || inputs[0]!.shape.length !== 1) {
        throw new TypeError('gcount reads one 1-d int32 region of group numbers');
      }
      if (output.dtype !== 'int64' || output.shape.length !== 2 || output.shape[0] !== 1 || output.shape[1] !== P + 1) {
        throw new TypeError(`gcount writes one [1, ${P + 1}] int64 row`);
      }
    },
    run(params, [gid], out) {
      const { P, Gp } = partitions(params);
      const counts = new Float64Array(P + 1), g = contiguous(gid!) as Int32Array;
      for (let i = 0; i < g.length; i++) counts[partOf(g[i]!, P, Gp)]!++;
      const w = words(out.data), s = out.strides[1]!;
      for (let p = 0; p <= P; p++) { w[2 * p * s] = counts[p]!; w[2 * p * s + 1] = 0; }
    },
  },
  gbucket: {
    check(params, inputs, output) {
      partitions(params);
      const [gid, x] = inputs;
      if (inputs.length !== 2 || gid!.dtype !== 'int32' || gid!.shape.length !== 1 || x!.shape.length !== 1 || x!.shape[0] !== gid!.shape[0]) {
        throw new TypeError('gbucket reads a 1-d int32 region of group numbers and a column region of its length');
      }
      if (output.dtype !== x!.dtype || output.shape.length !== 1 || output.shape[0] !== x!.shape[0] || x!.dtype === 'float16') {
        throw new TypeError('gbucket writes the column region reordered');
      }
    },
    run(params, [gid, x], out) {
      const { P, Gp } = partitions(params);
      const g = contiguous(gid!) as Int32Array, n = g.length;
      const parts = new Int32Array(n), at = new Float64Array(P + 2);
      for (let i = 0; i < n; i++) { const p = partOf(g[i]!, P, Gp); parts[i] = p; at[p + 1]!++; }
      for (let p = 1; p <= P + 1; p++) at[p]! += at[p - 1]!;
      const xs = contiguous(x!), os = out.strides[0]!, o = out.data as unknown as { [i: number]: number | bigint };
      for (let i = 0; i < n; i++) o[at[parts[i]!]!++ * os] = (xs as unknown as { [i: number]: number | bigint })[i]!;
    },
  },
  gfold: {
    check(params, inputs, output) {
      const { G, E, m, ops, vals } = layout(params);
      const S = ops.length;
      if (output.shape.length !== 3 || output.shape[0] !== 1 || output.shape[1] !== S || output.shape[2] !== G) {
        throw new TypeError(`gfold writes one [1, ${S}, ${G}] row of partials`);
      }
      const int64 = output.dtype === 'int64';
      if (!int64 && output.dtype !== 'float64') throw new TypeError('gfold writes float64 or int64 partials');
      if (inputs.length < E || (inputs.length - E) % (1 + m) !== 0) throw new TypeError(`gfold reads ${E} tables, then groups of ${1 + m} regions per chunk`);
      for (let e = 0; e < E; e++) {
        if (inputs[e]!.dtype !== 'float64' || inputs[e]!.shape.length !== 1 || inputs[e]!.shape[0] !== G) {
          throw new TypeError('gfold: a table is a [G] float64 region');
        }
      }
      for (let p = E; p < inputs.length; p += 1 + m) {
        const gid = inputs[p]!;
        if (gid.dtype !== 'int32' || gid.shape.length !== 1) throw new TypeError('gfold: group numbers are a 1-d int32 region');
        for (let v = 1; v <= m; v++) {
          const x = inputs[p + v]!;
          if (x.shape.length !== 1 || x.shape[0] !== gid.shape[0]) throw new TypeError('gfold: each value region matches its group numbers');
          if (int64 && vals.includes(v) && !INT.has(x.dtype)) throw new TypeError(`gfold: int64 partials fold integer values, not ${x.dtype}`);
        }
      }
      if (int64 && ops.some((o) => o === FOLD.dev2 || o === FOLD.median || o === FOLD.nunique)) {
        throw new TypeError('gfold: dev2, median and nunique fold into float64 partials');
      }
    },
    run(params, inputs, out) {
      const L = layout(params);
      if (out.dtype === 'int64') foldInts(L, inputs, out);
      else foldFloats(L, inputs, out);
    },
  },
};

/** Numbers a loop reads: a typed array of a number dtype. */
type Nums = Exclude<TypedArray, BigInt64Array | BigUint64Array>;

/** A 1-d region's elements, contiguous, as numbers (an int64 region's as doubles: exact to 2^53). */
function numbers(r: Region): Nums {
  if (r.dtype !== 'int64') return contiguous(r) as Nums;
  const n = r.shape[0]!, s = r.strides[0]!, w = words(r.data), out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = w[2 * i * s + 1]! * 2 ** 32 + (w[2 * i * s]! >>> 0);
  return out;
}

function initial(op: number): number {
  switch (op) {
    case FOLD.min: case FOLD.first: return Infinity;
    case FOLD.all: case FOLD.prod: return 1;
    case FOLD.max: case FOLD.last: return -Infinity;
    default: return 0;
  }
}

/** One chunk's group numbers and value inputs, read once for every slot. */
/**
 * One chunk's group numbers and the value inputs the slots read: as
 * numbers, but a contiguous int64 region as its 32-bit words (`words`
 * true), which the loop reads as a number itself (no converted copy).
 */
interface Block { gid: Int32Array; origin: number; values: (Nums | undefined)[]; words: boolean[]; regions: Region[] }

/** The chunks of a call, each with the value inputs the slots read. */
function blocks(L: Layout, inputs: readonly Region[], read: ReadonlySet<number>): Block[] {
  const out: Block[] = [];
  for (let p = L.E; p < inputs.length; p += 1 + L.m) {
    const gr = inputs[p]!;
    const regions = inputs.slice(p + 1, p + 1 + L.m) as Region[];
    let gid = contiguous(gr) as Int32Array;
    if (L.lo) gid = gid.map((g) => (g < 0 ? g : g - L.lo));
    const wide = regions.map((r) => r.dtype === 'int64' && (r.strides[0] === 1 || r.shape[0]! <= 1));
    const values = regions.map((r, v) => (!read.has(v + 1) ? undefined : wide[v] ? words(r.data).subarray(0, 2 * r.shape[0]!) : numbers(r)));
    out.push({ gid, origin: gr.origin[0]!, regions, values, words: wide });
  }
  return out;
}

/** A value input of a block as numbers (an int64 region's words converted). */
const numbersOf = (b: Block, v: number): Nums => (b.words[v - 1] ? numbers(b.regions[v - 1]!) : b.values[v - 1]!);

/** A slot as a fused loop folds it: its fold, its value input (1..m, 0 for none), whether a negative value is missing, whether the input is int64 words. */
interface FusedSlot { op: number; v: number; neg: boolean; w: boolean }
type Fused = (gid: Int32Array, xs: readonly (Nums | undefined)[], accs: readonly Float64Array[], tables: readonly (Nums | undefined)[], origin: number) => void;

/** The statement of each fold, over value `v`, its test `ok` (not missing), accumulator `a` and table `t`. */
const STATEMENT: Readonly<Record<number, string>> = {
  [FOLD.size]: 'a[g]++;',
  [FOLD.count]: 'if (ok) a[g]++;',
  [FOLD.sum]: 'if (ok) a[g] += v;',
  [FOLD.min]: 'if (ok && v < a[g]) a[g] = v;',
  [FOLD.max]: 'if (ok && v > a[g]) a[g] = v;',
  [FOLD.prod]: 'if (ok) a[g] *= v;',
  [FOLD.first]: 'if (ok && origin + i < a[g]) a[g] = origin + i;',
  [FOLD.last]: 'if (ok && origin + i > a[g]) a[g] = origin + i;',
  [FOLD.dev2]: 'if (ok) { const d = v - t[g]; a[g] += d * d; }',
  [FOLD.any]: 'if (ok && v !== 0) a[g] = 1;',
  [FOLD.all]: 'if (ok && v === 0) a[g] = 0;',
};

const fusedLoops = new Map<string, Fused>();

/**
 * One loop over a block's rows folding every slot (the group number read
 * once per row, each value input once), written for the call's slots and
 * compiled once per thread: the slots come from a checked layout (numbers
 * only), so the text is one of finitely many, never data.
 */
function fused(slots: readonly FusedSlot[]): Fused {
  // the text below is made of these numbers and flags alone, each checked again here: no peer's text reaches it
  for (const s of slots) {
    if (STATEMENT[s.op] === undefined || !Number.isSafeInteger(s.v) || s.v < 0 || typeof s.neg !== 'boolean' || typeof s.w !== 'boolean') {
      throw new TypeError('gfold: a slot outside the folds');
    }
  }
  const key = slots.map((s) => `${s.op}:${s.v}:${s.neg ? 1 : 0}:${s.w ? 1 : 0}`).join(',');
  let f = fusedLoops.get(key);
  if (f) return f;
  const inputs = [...new Set(slots.filter((s) => s.v > 0).map((s) => s.v))];
  const neg = (v: number): boolean => slots.some((s) => s.v === v && s.neg);
  const wide = (v: number): boolean => slots.some((s) => s.v === v && s.w);
  const load = (v: number): string => (wide(v) ? `x${v}[2 * i + 1] * 4294967296 + (x${v}[2 * i] >>> 0)` : `x${v}[i]`);
  const head = [
    ...inputs.map((v) => `const x${v} = xs[${v - 1}];`),
    ...slots.map((_, k) => `const a${k} = accs[${k}], t${k} = tables[${k}];`),
  ];
  const body = [
    ...inputs.map((v) => `const v${v} = ${load(v)}, ok${v} = v${v} === v${v}${neg(v) ? ` && v${v} >= 0` : ''};`),
    ...slots.map((s, k) => STATEMENT[s.op]!.replaceAll('a[', `a${k}[`).replaceAll('t[', `t${k}[`)
      .replace(/\bok\b/g, `ok${s.v}`).replace(/\bv\b/g, `v${s.v}`)),
  ];
  const src = `${head.join('\n')}\nconst n = gid.length;\nfor (let i = 0; i < n; i++) {\nconst g = gid[i];\nif (g < 0) continue;\n${body.join('\n')}\n}`;
  f = new Function('gid', 'xs', 'accs', 'tables', 'origin', src) as Fused;
  fusedLoops.set(key, f);
  return f;
}

/** The fused loop of slots `ss` of a call's layout, over block b (whose int64 inputs it reads by their words). */
function loopFor(L: Layout, b: Block, ss: readonly number[]): Fused {
  return fused(ss.map((s) => {
    const v = L.vals[s]!;
    return { op: L.ops[s]!, v, neg: v > 0 && L.na[v - 1] === 1, w: v > 0 && b.words[v - 1]! };
  }));
}

/** Float64 partials: every slot in one loop over each block's rows. */
function foldFloats(L: Layout, inputs: readonly Region[], out: Region): void {
  const { G, ops, vals, aux, na } = L;
  const os = out.strides[1]!, og = out.strides[2]!, o = out.data as Float64Array;
  const bs = blocks(L, inputs, new Set(vals));
  const accs = ops.map((op) => new Float64Array(G).fill(initial(op)));
  const tables = aux.map((e) => (e >= 0 ? numbers(inputs[e]!) : undefined));
  const whole = (op: number): boolean => op === FOLD.median || op === FOLD.nunique;
  const streamed = ops.map((_, s) => s).filter((s) => !whole(ops[s]!));
  if (streamed.length) {
    const mine = streamed.map((s) => accs[s]!), theirs = streamed.map((s) => tables[s]);
    for (const b of bs) loopFor(L, b, streamed)(b.gid, b.values, mine, theirs, b.origin);
  }
  ops.forEach((op, s) => { if (whole(op)) foldSorted(op, bs, vals[s]!, vals[s]! > 0 && na[vals[s]! - 1] === 1, accs[s]!); });
  accs.forEach((acc, s) => { for (let g = 0; g < G; g++) o[s * os + g * og] = acc[g]!; });
}

/**
 * A median or a count of distinct values per group, from each group's
 * values not missing, laid out group by group (a counting sort) and each
 * group's sorted on its own.
 */
function foldSorted(op: number, bs: readonly Block[], v: number, neg: boolean, acc: Float64Array): void {
  const G = acc.length, at = new Float64Array(G + 1);
  const ok = (x: number): boolean => x === x && !(neg && x < 0);
  const xs = bs.map((b) => numbersOf(b, v));
  bs.forEach((b, k) => {
    const x = xs[k]!, g = b.gid;
    for (let i = 0; i < g.length; i++) if (g[i]! >= 0 && ok(x[i]!)) at[g[i]! + 1]!++;
  });
  for (let g = 0; g < G; g++) at[g + 1]! += at[g]!;
  const vals = new Float64Array(at[G]!), next = at.slice(0, G);
  bs.forEach((b, k) => {
    const x = xs[k]!, g = b.gid;
    for (let i = 0; i < g.length; i++) if (g[i]! >= 0 && ok(x[i]!)) vals[next[g[i]!]!++] = x[i]!;
  });
  for (let g = 0; g < G; g++) {
    const k = at[g + 1]! - at[g]!;
    if (k === 0) { acc[g] = op === FOLD.median ? NaN : 0; continue; }
    const part = vals.subarray(at[g]!, at[g + 1]!);
    if (op === FOLD.median) { acc[g] = median(part); continue; }
    part.sort();
    let d = 1;
    for (let i = 1; i < k; i++) if (part[i] !== part[i - 1]) d++;
    acc[g] = d;
  }
}

/**
 * The median of `a` (no NaN), reordering it: the upper middle element by a
 * selection (Hoare's partitions around a median of three, O(n) expected,
 * where a sort is O(n log n)), the lower one the largest before it.
 */
export function median(a: Float64Array): number {
  const n = a.length, h = n >> 1;
  let l = 0, r = n - 1;
  while (r - l >= 16) {
    const x = a[l]!, y = a[(l + r) >> 1]!, z = a[r]!;
    const pivot = x < y ? (y < z ? y : x < z ? z : x) : (x < z ? x : y < z ? z : y);
    let i = l, j = r;
    while (i <= j) {
      while (a[i]! < pivot) i++;
      while (a[j]! > pivot) j--;
      if (i <= j) { const t = a[i]!; a[i++] = a[j]!; a[j--] = t; }
    }
    // [l, j] at most the pivot, [i, r] at least it, anything between equal to it
    if (h <= j) r = j;
    else if (h >= i) l = i;
    else { l = r = h; break; }
  }
  // a short range: sorted by insertion (everything before it is at most its smallest)
  for (let i = l + 1; i <= r; i++) {
    const v = a[i]!;
    let j = i - 1;
    while (j >= l && a[j]! > v) { a[j + 1] = a[j]!; j--; }
    a[j + 1] = v;
  }
  const hi = a[h]!;
  if (n & 1) return hi;
  let lo = -Infinity;
  for (let i = 0; i < h; i++) if (a[i]! > lo) lo = a[i]!;
  return (lo + hi) / 2;
}

const FLUSH = 1 << 20;
const I64_MAX = 2n ** 63n - 1n, I64_MIN = -(2n ** 63n);

/**
 * Int64 partials, exact: sums as the sums of the values' high (signed) and
 * low (unsigned) 32-bit words, each exact in a double for 2^20 rows and
 * flushed into BigInts; products, and mins and maxes of values past 2^53,
 * in BigInts; counts and positions as doubles (exact below 2^53).
 */
function foldInts(L: Layout, inputs: readonly Region[], out: Region): void {
  const { G, ops, vals, na } = L;
  const os = out.strides[1]!, og = out.strides[2]!, o = out.data as BigInt64Array, ow = words(o);
  const rows = blockRows(L, inputs);
  // an int64 sum in doubles while it stays exact (values within 2^32, fewer than 2^20 rows), else by words into BigInts
  // each int64 input's widest high word, found once
  const spans = new Map<number, number>();
  const span = (v: number): number => {
    let w = spans.get(v);
    if (w === undefined) spans.set(v, (w = highSpan(inputs, L.E, L.m, v)));
    return w;
  };
  const wordSum = (s: number): boolean => ops[s] === FOLD.sum && vals[s]! > 0 && inputs[L.E + vals[s]!]!.dtype === 'int64'
    && !(rows <= FLUSH && span(vals[s]!) < 1);
  const bs = blocks(L, inputs, new Set(vals.filter((v, s) => v > 0 && ops[s] !== FOLD.prod && !wordSum(s))));
  const accs = ops.map((op) => new Float64Array(G).fill(initial(op)));
  const bigs: (bigint[] | undefined)[] = [];
  const plain: number[] = [];
  for (let s = 0; s < ops.length; s++) {
    const op = ops[s]!, v = vals[s]!;
    const negMissing = v > 0 && na[v - 1] === 1;
    // mins and maxes in doubles unless a value lies past 2^53 (then in BigInts)
    const exactly = (op === FOLD.min || op === FOLD.max) && span(v) >= 2 ** 21;
    const byWords = wordSum(s);
    if (op !== FOLD.prod && !exactly && !byWords) { plain.push(s); continue; }
    const big = new Array<bigint>(G).fill(op === FOLD.prod ? 1n : op === FOLD.min ? I64_MAX : op === FOLD.max ? I64_MIN : 0n);
    bigs[s] = big;
    for (const b of bs) {
      if (byWords) sumWords(b.gid, b.regions[v - 1]!, accs[s]!, big);
      else foldExact(op, b.gid, b.regions[v - 1]!, negMissing, big);
    }
  }
  // the folds exact in doubles, in one loop
  if (plain.length) {
    const mine = plain.map((s) => accs[s]!), none = plain.map(() => undefined);
    for (const b of bs) {
      loopFor(L, b, plain)(b.gid, b.values, mine, none, b.origin);
    }
  }
  for (let s = 0; s < ops.length; s++) {
    const acc = accs[s]!, big = bigs[s];
    for (let g = 0; g < G; g++) {
      const at = s * os + g * og;
      if (big) o[at] = big[g]!;
      else if (acc[g] === Infinity || acc[g] === -Infinity) o[at] = acc[g]! > 0 ? I64_MAX : I64_MIN;
      else putExact(ow, at, acc[g]!);
    }
  }
}

/** Writes integer double d (exact, below 2^53) as int64 element `at` of words `w`, without a BigInt. */
function putExact(w: Int32Array, at: number, d: number): void {
  const hi = Math.floor(d / 2 ** 32);
  w[2 * at] = (d - hi * 2 ** 32) | 0;
  w[2 * at + 1] = hi;
}

/** Rows of the call's blocks. */
function blockRows(L: Layout, inputs: readonly Region[]): number {
  let n = 0;
  for (let p = L.E; p < inputs.length; p += 1 + L.m) n += inputs[p]!.shape[0]!;
  return n;
}

/**
 * An int64 sum, exactly: each value's high (signed) and low (unsigned)
 * words summed apart, in doubles exact for 2^20 rows, then flushed into
 * the BigInt sums (wrapping as NumPy's int64 does).
 */
function sumWords(gid: Int32Array, r: Region, lo: Float64Array, big: bigint[]): void {
  const w = words(r.data), s = r.strides[0]!, n = gid.length, G = lo.length;
  const hi = new Float64Array(G);
  for (let from = 0; from < n; from += FLUSH) {
    const to = Math.min(n, from + FLUSH);
    for (let i = from; i < to; i++) {
      const g = gid[i]!;
      if (g >= 0) { hi[g]! += w[2 * i * s + 1]!; lo[g]! += w[2 * i * s]! >>> 0; }
    }
    for (let g = 0; g < G; g++) {
      if (lo[g] || hi[g]) { big[g] = BigInt.asIntN(64, big[g]! + BigInt(hi[g]!) * 2n ** 32n + BigInt(lo[g]!)); lo[g] = 0; hi[g] = 0; }
    }
  }
}

/** A product, or a min or max of values past 2^53, in BigInts. */
function foldExact(op: number, gid: Int32Array, r: Region, negMissing: boolean, big: bigint[]): void {
  const w = r.dtype === 'int64' ? words(r.data) : undefined;
  for (let i = 0; i < gid.length; i++) {
    const g = gid[i]!;
    if (g < 0) continue;
    const v = exact(r, i, w);
    if (negMissing && v < 0n) continue;
    if (op === FOLD.prod) big[g] = BigInt.asIntN(64, big[g]! * v);
    else if (op === FOLD.min ? v < big[g]! : v > big[g]!) big[g] = v;
  }
}

/**
 * The largest |high word| (a value's high 32 bits, as a signed number, -1
 * counted as 0) over value input v's int64 regions: below 1, every value
 * lies within ±2^32; below 2^21, every value is exact in a double. 0 for
 * other dtypes (exact already).
 */
function highSpan(inputs: readonly Region[], E: number, m: number, v: number): number {
  let most = 0;
  for (let p = E; p < inputs.length; p += 1 + m) {
    const r = inputs[p + v]!;
    if (r.dtype !== 'int64') continue;
    const w = words(r.data), s = 2 * r.strides[0]!, n = r.shape[0]!;
    for (let i = 0, at = 1; i < n; i++, at += s) {
      const h = w[at]!, a = h < 0 ? -h - 1 : h;
      if (a > most) most = a;
    }
  }
  return most;
}

/** Element i of an integer region as a BigInt, exactly. */
function exact(r: Region, i: number, w: Int32Array | undefined): bigint {
  const s = r.strides[0]!;
  if (w) return (BigInt(w[2 * i * s + 1]!) << 32n) | BigInt(w[2 * i * s]! >>> 0);
  return BigInt((r.data as Exclude<TypedArray, BigInt64Array | BigUint64Array>)[i * s]!);
}

