// The tile routines of the tiled LU with tournament pivoting (CALU; api/
// linalg_lu.ts builds their DAG). Each call writes one chunk once, reading a
// few tiles, so a re-run gives the same bits (as ./tiles.ts's Cholesky
// routines). Step k of the factorization over T×T tiles:
//   lutourn   a combine of the tournament: two tiles of panel column k, or
//             two candidate sets (global row index in column 0, the rows'
//             values after it, index −1 past the last), stacked and factored
//             by partial-pivoting GETRF, the pivot rows kept as a candidate
//             set; at the root (`root`, reading one or two), the winners'
//             indices in pivot order and their packed LU factors (L_kk unit
//             lower below the diagonal, U_kk on and above it): the step's record;
//   lucol     L_ik = swap(A_ik) U_kk⁻¹ (TRSM right, upper);
//   lurow     U_kj = L_kk⁻¹ gather(k, j), stored transposed (the updates'
//             GEMM reads it in place): block row k after the swap gathers
//             the winners' rows from the tiles of block column j;
//   lutrans   a tile transposed (U_kj out of the workspace);
//   luupdate  A_ij − L_ik U_kj over swap(A_ij): the tile with the rows that
//             block k sends down put in (GEMM through ./tiles.ts's gemmNT);
//   lulower   an output tile of L (below the diagonal): the rows of the raw
//             L tiles of its block column, permuted by the later steps;
//   lutri     L_kk (unit lower) or U_kk (upper) out of the root's record;
//   luperm    a chunk of the permutation: the original row at each final row;
//   lupmat    a tile of P (P[perm[c], c] = 1) or of Pᵀ;
//   lurows    a tile of Pᵀ B (B's rows gathered by the permutation);
//   ludet     step k's part of det: [∏ u_ii · (−1)^swaps, sign, Σ log|u_ii|, zero pivot];
//   lugetrf   a whole one-chunk matrix (any shape) factored in one call:
//             [perm, perm's inverse, packed L\U] (SciPy's lu of one chunk);
//   lugate    a tile copied, once no step's record has a zero pivot (else
//             NumPy's LinAlgError 'Singular matrix': solve and inv).
// The row permutation of step k is LAPACK's: for r in order, row k0 + r
// swaps with the row where winner r now is. Rows outside block k only ever
// receive rows of block k, so a tile below it after the swap reads itself and
// the tile of block k of its column (`stepSource`). A zero pivot skips the
// scaling (LAPACK's getrf): a singular matrix factors, U gets the zero.
// Regions float64 or float32 (computed in float64, rounded once on store);
// workspace chunks are [T, T + 1], a tile in their top-left.
// In: routine parameters and regions (./region.ts). Out: one chunk written.

import { LinAlgError } from '../graph/linalg.js';
import type { RoutineParams } from '../graph/node.js';
import { type Region, type RegionSpec, type Routine, flag, onlyParams } from './region.js';
import { gemmNT, trsmRightLowerT } from './tiles.js';

// ---------------------------------------------------------------------------
// Dense kernels over row-major float64 arrays (exported for tests)

/** Columns below which the recursive GETRF factors a panel column by column. */
const LEAF = 16;

/**
 * Partial-pivoting LU (LAPACK's getrf) of the m×c row-major A in place:
 * the pivot is the first largest |A[i, j]| over i >= j; a zero pivot skips
 * the scaling of the column below it. `ids` (the rows' labels) is permuted
 * with the rows, so its first min(m, c) entries are the pivot rows in order.
 * Recursive over columns (LAPACK's getrf2): the left half factored, the
 * right half's top solved with its unit lower factor and its bottom updated
 * in one gemmNT, then factored; panels of LEAF columns column by column.
 */
export function getrf(A: Float64Array, m: number, c: number, ids: Float64Array): void {
  const p = Math.min(m, c);
  getrf2(A, m, c, ids, 0, p);
  if (c > p) lowerSolve(A, c, 0, p, p, c);
}

/** Columns [j0, j0 + n) of rows j0.. of A (m×c) factored (see getrf), whole rows swapped. */
function getrf2(A: Float64Array, m: number, c: number, ids: Float64Array, j0: number, n: number): void {
  if (n <= LEAF) {
    const j1 = j0 + n;
    for (let j = j0; j < j1; j++) {
      let piv = j, best = Math.abs(A[j * c + j]!);
      for (let i = j + 1; i < m; i++) { const v = Math.abs(A[i * c + j]!); if (v > best) { best = v; piv = i; } }
      if (piv !== j) {
        for (let q = 0; q < c; q++) { const t = A[j * c + q]!; A[j * c + q] = A[piv * c + q]!; A[piv * c + q] = t; }
        const t = ids[j]!; ids[j] = ids[piv]!; ids[piv] = t;
      }
      const d = A[j * c + j]!;
      if (d !== 0) for (let i = j + 1; i < m; i++) A[i * c + j]! /= d;
      for (let i = j + 1; i < m; i++) {
        const l = A[i * c + j]!;
        if (l === 0) continue;
        const ri = i * c, rj = j * c;
        for (let q = j + 1; q < j1; q++) A[ri + q] -= l * A[rj + q]!;
      }
    }
    return;
  }
  const n1 = n >> 1, n2 = n - n1, k1 = j0 + n1;
  getrf2(A, m, c, ids, j0, n1);
  if (n1 < 32) lowerSolve(A, c, j0, k1, k1, j0 + n);
  else {
    // a wide enough block solved through gemmNT (trsmLeftUnitLower), copied out and back
    const L11 = new Float64Array(n1 * n1), A12 = new Float64Array(n1 * n2);
    for (let a = 0; a < n1; a++) {
      L11.set(A.subarray((j0 + a) * c + j0, (j0 + a) * c + k1), a * n1);
      A12.set(A.subarray((j0 + a) * c + k1, (j0 + a) * c + j0 + n), a * n2);
    }
    trsmLeftUnitLower(L11, n1, A12, n2);
    for (let a = 0; a < n1; a++) A.set(A12.subarray(a * n2, a * n2 + n2), (j0 + a) * c + k1);
  }
  if (m > k1) {
    // A22 −= A21 A12, with A12ᵀ as gemmNT's Q
    const Ut = new Float64Array(n2 * n1);
    for (let a = 0; a < n1; a++) for (let b = 0; b < n2; b++) Ut[b * n1 + a] = A[(j0 + a) * c + k1 + b]!;
    gemmNT(A, k1 * c + k1, c, m - k1, n2, A, k1 * c + j0, c, Ut, 0, n1, n1);
  }
  getrf2(A, m, c, ids, k1, n2);
}

/** Rows [j0, j1) of A (c wide), columns [q0, q1): L⁻¹ times them, L the unit lower factor in columns [j0, j1) of those rows. */
function lowerSolve(A: Float64Array, c: number, j0: number, j1: number, q0: number, q1: number): void {
  for (let j = j0; j < j1; j++) {
    for (let i = j + 1; i < j1; i++) {
      const l = A[i * c + j]!;
      if (l === 0) continue;
      for (let q = q0; q < q1; q++) A[i * c + q] -= l * A[j * c + q]!;
    }
  }
}

/**
 * X U = C in place (r×c C, c×c upper U with leading dimension ldu at offset uo): a zero u_bb leaves column b unscaled
 * (getrf's rule). Blocked through ./tiles.ts's trsmRightLowerT (X (Uᵀ)ᵀ = C) when no u_bb is zero.
 */
export function trsmRightUpper(C: Float64Array, r: number, c: number, U: Float64Array, uo: number, ldu: number): void {
  let zero = false;
  for (let b = 0; b < c; b++) if (U[uo + b * ldu + b] === 0) zero = true;
  if (!zero) {
    const Lt = new Float64Array(c * c);
    for (let a = 0; a < c; a++) for (let b = a; b < c; b++) Lt[b * c + a] = U[uo + a * ldu + b]!;
    trsmRightLowerT(C, r, c, Lt);
    return;
  }
  for (let a = 0; a < r; a++) {
    const ra = a * c;
    for (let b = 0; b < c; b++) {
      const d = U[uo + b * ldu + b]!;
      const x = d !== 0 ? C[ra + b]! / d : C[ra + b]!;
      C[ra + b] = x;
      if (x === 0) continue;
      const ub = uo + b * ldu;
      for (let q = b + 1; q < c; q++) C[ra + q] -= x * U[ub + q]!;
    }
  }
}

/** L X = C in place for a unit lower c×c L (row-major, its diagonal not read) and a c×w C: Xᵀ = Cᵀ L⁻ᵀ by trsmRightLowerT. */
export function trsmLeftUnitLower(L: Float64Array, c: number, C: Float64Array, w: number): void {
  const Ct = new Float64Array(w * c);
  for (let a = 0; a < c; a++) for (let b = 0; b < w; b++) Ct[b * c + a] = C[a * w + b]!;
  trsmRightUnitLowerT(Ct, w, c, L);
  for (let a = 0; a < c; a++) for (let b = 0; b < w; b++) C[a * w + b] = Ct[b * c + a]!;
}

/** X Lᵀ = C in place for a unit lower c×c L (its diagonal not read) and an r×c C: trsmRightLowerT over L with ones on its diagonal. */
export function trsmRightUnitLowerT(C: Float64Array, r: number, c: number, L: Float64Array): void {
  const Lu = new Float64Array(c * c);
  for (let a = 0; a < c; a++) { Lu.set(L.subarray(a * c, a * c + a), a * c); Lu[a * c + a] = 1; }
  trsmRightLowerT(C, r, c, Lu);
}

/**
 * Step k's row permutation as a map from the rows it changes to where their
 * new contents were before it (new[x] = old[src(x)]), for winners `w`
 * (global rows, in pivot order) and block k starting at row k0: LAPACK's
 * sequential swaps. Also the number of swaps that moved a row (det's sign).
 */
export function stepSource(k0: number, w: ArrayLike<number>): { src: Map<number, number>; swaps: number } {
  const rowAt = new Map<number, number>(), posOf = new Map<number, number>();
  let swaps = 0;
  for (let r = 0; r < w.length; r++) {
    const a = k0 + r, wr = w[r]!;
    const p = posOf.get(wr) ?? wr;
    if (p === a) continue;
    swaps++;
    const ra = rowAt.get(a) ?? a, rp = rowAt.get(p) ?? p;
    rowAt.set(a, rp); rowAt.set(p, ra); posOf.set(rp, a); posOf.set(ra, p);
  }
  return { src: rowAt, swaps };
}

// ---------------------------------------------------------------------------
// Regions in and out

/** A 2-d region's rows [0, m) and columns [c0, c0 + n) as a dense row-major float64 array. */
function dense(r: Region, c0 = 0, n = r.shape[1]! - c0, m = r.shape[0]!): Float64Array {
  const [s0, s1] = r.strides as [number, number];
  const out = new Float64Array(m * n);
  const d = r.data as Float64Array | Float32Array;
  if (s1 === 1) for (let i = 0; i < m; i++) out.set(d.subarray(i * s0 + c0, i * s0 + c0 + n), i * n);
  else for (let i = 0; i < m; i++) for (let j = 0; j < n; j++) out[i * n + j] = d[i * s0 + (c0 + j) * s1]!;
  return out;
}

/** A region read in place when it is float64 rows (its leading dimension the row stride), else its dense copy. */
function rows(r: Region): { a: Float64Array; ld: number } {
  if (r.data instanceof Float64Array && (r.strides[1] === 1 || r.shape[1]! <= 1)) return { a: r.data, ld: r.strides[0]! };
  return { a: dense(r), ld: r.shape[1]! };
}

/** Column `c` of a 2-d region (a record's row indices). */
function column(r: Region, c = 0): number[] {
  const [s0, s1] = r.strides as [number, number];
  return Array.from({ length: r.shape[0]! }, (_, i) => r.data[i * s0 + c * s1] as number);
}

/** A dense m×n array into the output region's top-left (the output's dtype rounds once), zeros elsewhere. */
function store(src: Float64Array, m: number, n: number, out: Region): void {
  const [M, N] = out.shape as [number, number];
  const [s0, s1] = out.strides as [number, number];
  const d = out.data as Float64Array | Float32Array;
  if (s1 === 1) {
    // row by row (float32 rounds in the set): the tile's row, then zeros to the chunk's width; zero rows past the tile
    for (let i = 0; i < M; i++) {
      if (i < m) { d.set(src.subarray(i * n, i * n + Math.min(n, N)), i * s0); d.fill(0, i * s0 + Math.min(n, N), i * s0 + N); }
      else d.fill(0, i * s0, i * s0 + N);
    }
    return;
  }
  for (let i = 0; i < M; i++) for (let j = 0; j < N; j++) d[i * s0 + j * s1] = i < m && j < n ? src[i * n + j]! : 0;
}

/** Row `x` (global) of the tile whose rows start at `row0`, copied over row `to` of the dense n-wide `dst`. */
function copyRow(src: Region, row0: number, x: number, dst: Float64Array, to: number, n: number): void {
  const [s0, s1] = src.strides as [number, number];
  const d = src.data as Float64Array | Float32Array;
  const at = (x - row0) * s0;
  for (let j = 0; j < n; j++) dst[to * n + j] = d[at + j * s1]!;
}

/** src of step k0 applied to the rows of a dense tile C (rows from row0): rows that change are taken from block k's tile `blk`. */
function swapInto(C: Float64Array, row0: number, r: number, n: number, src: Map<number, number>, blk: Region, k0: number): void {
  for (const [x, y] of src) if (x >= row0 && x < row0 + r && y !== x) copyRow(blk, k0, y, C, x - row0, n);
}

const FLOATS = new Set(['float64', 'float32']);

function int(params: RoutineParams, name: string): number {
  const v = params[name];
  if (!Number.isSafeInteger(v) || (v as number) < 0) throw new TypeError(`routine parameter ${name} must be a non-negative integer`);
  return v as number;
}

function ints(params: RoutineParams, name: string): number[] {
  const v = params[name];
  if (!Array.isArray(v) || !v.every((x) => Number.isSafeInteger(x) && x >= 0)) {
    throw new TypeError(`routine parameter ${name} must be a list of non-negative integers`);
  }
  return v as number[];
}

/** Every region float64 or float32, 2-d unless `oneD` names it, and at least `count` of them. */
function floats(inputs: readonly RegionSpec[], output: RegionSpec, count: number, name: string, oneD: readonly number[] = []): void {
  if (inputs.length < count) throw new TypeError(`${name} reads at least ${count} regions`);
  for (const [i, r] of inputs.entries()) {
    if (!FLOATS.has(r.dtype) || r.shape.length !== (oneD.includes(i) ? 1 : 2)) throw new TypeError(`${name} reads float64 or float32 tiles`);
  }
  if (!FLOATS.has(output.dtype) || output.shape.length !== 2) throw new TypeError(`${name} writes a 2-d float64 or float32 chunk`);
}

/**
 * The rows of tiles (c wide, rows from rows0[q]) and candidate sets (c + 1 wide, valid where the index is >= 0)
 * stacked: their values and global row indices.
 */
function candidates(sets: readonly Region[], c: number, rows0: readonly number[]): { A: Float64Array; ids: Float64Array; m: number } {
  const keep: [Region, number, number][] = [];
  sets.forEach((s, q) => {
    if (s.shape[1] === c) for (let i = 0; i < s.shape[0]!; i++) keep.push([s, i, rows0[q]! + i]);
    else column(s).forEach((v, i) => { if (v >= 0) keep.push([s, i, v]); });
  });
  const A = new Float64Array(keep.length * c), ids = new Float64Array(keep.length);
  keep.forEach(([s, i, id], q) => {
    ids[q] = id;
    const at = i * s.strides[0]! + (s.shape[1] === c ? 0 : s.strides[1]!);
    for (let j = 0; j < c; j++) A[q * c + j] = s.data[at + j * s.strides[1]!] as number;
  });
  return { A, ids, m: keep.length };
}

/** Writes a candidate set: row q = [ids[q], values of row q (c wide)] for q < p, index −1 after. */
function storeCandidates(ids: ArrayLike<number>, vals: Float64Array, p: number, c: number, out: Region): void {
  const buf = new Float64Array(out.shape[0]! * (c + 1));
  for (let q = 0; q < out.shape[0]!; q++) {
    buf[q * (c + 1)] = q < p ? ids[q]! : -1;
    if (q < p) buf.set(vals.subarray(q * c, q * c + c), q * (c + 1) + 1);
  }
  store(buf, out.shape[0]!, c + 1, out);
}

/** The src maps of the steps whose index columns are `recs`, step s's block starting at (first + s)·T. */
const sources = (recs: readonly Region[], first: number, T: number): Map<number, number>[] => recs.map((r, s) => stepSource((first + s) * T, column(r)).src);

export const LU_ROUTINES: Readonly<Record<
  'lutourn' | 'lucol' | 'lurow' | 'luupdate' | 'lulower' | 'lutri' | 'luperm' | 'lupmat' | 'lurows' | 'ludet' | 'lugetrf' | 'lugate' | 'lutrans', Routine
>> = {
  lutourn: {
    check(params, inputs, output) {
      onlyParams(params, ['cols', 'root', 'rows0']);
      const c = int(params, 'cols');
      flag(params, 'root');
      floats(inputs, output, 1, 'lutourn');
      const rows0 = params.rows0;
      if (inputs.length > 2 || !Array.isArray(rows0) || rows0.length !== inputs.length || !rows0.every((r) => Number.isSafeInteger(r))
        || inputs.some((s, q) => s.shape[1] !== (rows0[q]! >= 0 ? c : c + 1)) || output.shape[1]! < c + 1 || output.shape[0]! < c) {
        throw new TypeError('lutourn reads one or two tiles (cols wide, their first rows in rows0) or candidate sets (cols + 1 wide, rows0 −1)');
      }
    },
    run(params, sets, out) {
      const c = int(params, 'cols');
      const { A, ids, m } = candidates(sets, c, params.rows0 as number[]);
      const orig = A.slice();
      const rowOf = new Map<number, number>();
      ids.forEach((v, q) => rowOf.set(v, q));
      getrf(A, m, c, ids);
      const p = Math.min(m, c);
      if (params.root === true) { storeCandidates(ids, A, p, c, out); return; }
      const vals = new Float64Array(p * c);
      for (let q = 0; q < p; q++) { const at = rowOf.get(ids[q]!)!; vals.set(orig.subarray(at * c, at * c + c), q * c); }
      storeCandidates(ids, vals, p, c, out);
    },
  },
  lucol: {
    check(params, inputs, output) {
      onlyParams(params, ['k0', 'row0']);
      int(params, 'k0'); int(params, 'row0');
      floats(inputs, output, 3, 'lucol');
      const [r, c] = inputs[0]!.shape as [number, number];
      if (inputs.length !== 3 || inputs[1]!.shape[1] !== c || inputs[2]!.shape[0] !== c || inputs[2]!.shape[1] !== c + 1 || output.shape[0]! < r) {
        throw new TypeError('lucol reads a tile of the panel, block k\'s tile of it, then the step\'s record');
      }
    },
    run(params, [t, blk, rec], out) {
      const [r, c] = t!.shape as [number, number];
      const C = dense(t!);
      swapInto(C, int(params, 'row0'), r, c, stepSource(int(params, 'k0'), column(rec!)).src, blk!, int(params, 'k0'));
      trsmRightUpper(C, r, c, dense(rec!, 1), 0, c);
      store(C, r, c, out);
    },
  },
  lurow: {
    check(params, inputs, output) {
      onlyParams(params, ['k0', 'rows0']);
      int(params, 'k0');
      const rows0 = ints(params, 'rows0');
      floats(inputs, output, 2, 'lurow');
      const c = inputs[0]!.shape[0]!, w = inputs[1]!.shape[1]!;
      if (inputs.length !== rows0.length + 1 || inputs[0]!.shape[1] !== c + 1 || inputs.slice(1).some((t) => t.shape[1] !== w)) {
        throw new TypeError('lurow reads the step\'s record, then one tile of block column j per row tile from block k on');
      }
    },
    run(params, [rec, ...tiles], out) {
      const c = rec!.shape[0]!, w = tiles[0]!.shape[1]!;
      const rows0 = ints(params, 'rows0');
      const C = new Float64Array(c * w);
      column(rec!).forEach((x, r) => {
        let q = rows0.length - 1;
        while (rows0[q]! > x) q--;
        copyRow(tiles[q]!, rows0[q]!, x, C, r, w);
      });
      // U_kjᵀ = (L_kk⁻¹ C)ᵀ = Cᵀ L_kk⁻ᵀ
      const Ct = new Float64Array(w * c);
      for (let a = 0; a < c; a++) for (let b = 0; b < w; b++) Ct[b * c + a] = C[a * w + b]!;
      trsmRightUnitLowerT(Ct, w, c, dense(rec!, 1));
      store(Ct, w, c, out);
    },
  },
  luupdate: {
    check(params, inputs, output) {
      onlyParams(params, ['k0', 'row0']);
      int(params, 'k0'); int(params, 'row0');
      floats(inputs, output, 5, 'luupdate');
      const [r, w] = inputs[0]!.shape as [number, number];
      const c = inputs[3]!.shape[1]!;
      if (inputs.length !== 5 || inputs[1]!.shape[1] !== w || inputs[2]!.shape[1] !== 1 || inputs[3]!.shape[0] !== r || inputs[4]!.shape[1] !== c
        || inputs[4]!.shape[0] !== w || output.shape[0]! < r || output.shape[1]! < w) {
        throw new TypeError('luupdate reads A_ij, A_kj, the record\'s row indices, L_ik and U_kjᵀ');
      }
    },
    run(params, [t, blk, idx, l, u], out) {
      const [r, w] = t!.shape as [number, number];
      const c = l!.shape[1]!;
      const C = dense(t!);
      swapInto(C, int(params, 'row0'), r, w, stepSource(int(params, 'k0'), column(idx!)).src, blk!, int(params, 'k0'));
      const L = rows(l!), Ut = rows(u!);
      gemmNT(C, 0, w, r, w, L.a, 0, L.ld, Ut.a, 0, Ut.ld, c);
      store(C, r, w, out);
    },
  },
  lulower: {
    check(params, inputs, output) {
      onlyParams(params, ['row0', 'first', 'T', 'tiles']);
      const [row0, first, T, tiles] = ['row0', 'first', 'T', 'tiles'].map((p) => int(params, p)) as [number, number, number, number];
      floats(inputs, output, tiles, 'lulower');
      if (inputs.length !== tiles + Math.floor(row0 / T) - first + 1 || inputs.slice(tiles).some((r) => r.shape[1] !== 1)) {
        throw new TypeError('lulower reads the raw L tiles of its block column below the diagonal, then the row indices of the steps after it up to its own');
      }
    },
    run(params, inputs, out) {
      const row0 = int(params, 'row0'), first = int(params, 'first'), T = int(params, 'T'), tiles = int(params, 'tiles');
      const raw = inputs.slice(0, tiles), srcs = sources(inputs.slice(tiles), first, T);
      const [r, c] = [out.shape[0]!, raw[0]!.shape[1]!];
      const C = new Float64Array(r * c);
      for (let x = 0; x < r; x++) {
        let y = row0 + x;
        for (let s = srcs.length - 1; s >= 0; s--) y = srcs[s]!.get(y) ?? y;
        const q = Math.floor(y / T) - first;
        copyRow(raw[q]!, (first + q) * T, y, C, x, c);
      }
      store(C, r, c, out);
    },
  },
  lutri: {
    check(params, inputs, output) {
      onlyParams(params, ['part']);
      if (params.part !== 'L' && params.part !== 'U') throw new TypeError('routine parameter part must be \'L\' or \'U\'');
      floats(inputs, output, 1, 'lutri');
      if (inputs.length !== 1 || inputs[0]!.shape[0] !== inputs[0]!.shape[1]) throw new TypeError('lutri reads the square packed LU factors of a record');
    },
    run(params, [rec], out) {
      const c = rec!.shape[0]!;
      const A = dense(rec!);
      const lower = params.part === 'L';
      for (let i = 0; i < c; i++) for (let j = 0; j < c; j++) if (lower ? j >= i : j < i) A[i * c + j] = lower && i === j ? 1 : 0;
      store(A, c, c, out);
    },
  },
  luperm: {
    check(params, inputs, output) {
      onlyParams(params, ['T', 'row0']);
      int(params, 'T'); int(params, 'row0');
      if (inputs.some((r) => !FLOATS.has(r.dtype) || r.shape.length !== 2 || r.shape[1] !== 1) || output.dtype !== 'float64' || output.shape.length !== 1) {
        throw new TypeError('luperm reads the row indices of steps 0 to its own and writes a float64 chunk of the permutation');
      }
    },
    run(params, recs, out) {
      const T = int(params, 'T');
      const srcs = sources(recs, 0, T);
      const d = out.data as Float64Array;
      for (let x = 0; x < out.shape[0]!; x++) {
        let y = int(params, 'row0') + x;
        for (let s = srcs.length - 1; s >= 0; s--) y = srcs[s]!.get(y) ?? y;
        d[x * out.strides[0]!] = y;
      }
    },
  },
  lupmat: {
    check(params, inputs, output) {
      onlyParams(params, ['transpose', 'offset']);
      flag(params, 'transpose'); int(params, 'offset');
      floats(inputs, output, 1, 'lupmat', [0]);
      if (inputs.length !== 1 || inputs[0]!.shape[0] !== output.shape[params.transpose === true ? 0 : 1]) {
        throw new TypeError('lupmat reads the permutation\'s chunk');
      }
    },
    run(params, [perm], out) {
      const [M, N] = out.shape as [number, number];
      const off = int(params, 'offset'), tr = params.transpose === true;
      const p = Array.from({ length: perm!.shape[0]! }, (_, i) => perm!.data[i * perm!.strides[0]!] as number);
      const C = new Float64Array(M * N);
      // P[perm[c], c] = 1 (rows from offset); Pᵀ[x, perm[x]] = 1 (columns from offset)
      if (tr) for (let x = 0; x < M; x++) { const c = p[x]! - off; if (c >= 0 && c < N) C[x * N + c] = 1; }
      else for (let c = 0; c < N; c++) { const x = p[c]! - off; if (x >= 0 && x < M) C[x * N + c] = 1; }
      store(C, M, N, out);
    },
  },
  lurows: {
    check(params, inputs, output) {
      onlyParams(params, ['rows0']);
      const rows0 = ints(params, 'rows0');
      floats(inputs, output, 2, 'lurows', [0]);
      if (inputs.length !== rows0.length + 1 || inputs.slice(1).some((t) => t.shape[1] !== output.shape[1])) {
        throw new TypeError('lurows reads the permutation\'s chunk, then the tiles of B\'s block column');
      }
    },
    run(params, [perm, ...tiles], out) {
      const [M, N] = out.shape as [number, number];
      const rows0 = ints(params, 'rows0');
      const C = new Float64Array(M * N);
      for (let x = 0; x < M; x++) {
        const y = perm!.data[x * perm!.strides[0]!] as number;
        let q = rows0.length - 1;
        while (rows0[q]! > y) q--;
        copyRow(tiles[q]!, rows0[q]!, y, C, x, N);
      }
      store(C, M, N, out);
    },
  },
  ludet: {
    check(params, inputs, output) {
      onlyParams(params, ['k0']);
      int(params, 'k0');
      floats(inputs, output, 1, 'ludet');
      if (inputs.length !== 1 || inputs[0]!.shape[1] !== inputs[0]!.shape[0]! + 1 || output.shape[1] !== 4) throw new TypeError('ludet reads a step\'s record');
    },
    run(params, [rec], out) {
      const c = rec!.shape[0]!;
      const A = dense(rec!);
      const { swaps } = stepSource(int(params, 'k0'), column(rec!));
      let det = swaps % 2 ? -1 : 1, sign = det, log = 0, zero = 0;
      for (let i = 0; i < c; i++) {
        const u = A[i * (c + 1) + 1 + i]!;
        det *= u;
        sign *= Math.sign(u);
        log += Math.log(Math.abs(u));
        if (u === 0) zero = 1;
      }
      store(Float64Array.of(det, sign, log, zero), 1, 4, out);
    },
  },
  lugate: {
    check(params, inputs, output) {
      onlyParams(params, []);
      floats(inputs, output, 2, 'lugate');
      if (inputs.length !== 2 || inputs[1]!.shape[1] !== 1 || output.shape[0] !== inputs[0]!.shape[0] || output.shape[1] !== inputs[0]!.shape[1]) {
        throw new TypeError('lugate reads a tile, then the zero-pivot column of the steps\' det records');
      }
    },
    run(_params, [t, zero], out) {
      if (column(zero!).some((z) => z !== 0)) throw new LinAlgError('Singular matrix');
      store(dense(t!), t!.shape[0]!, t!.shape[1]!, out);
    },
  },
  lugetrf: {
    check(params, inputs, output) {
      onlyParams(params, []);
      floats(inputs, output, 1, 'lugetrf');
      if (inputs.length !== 1 || output.shape[0] !== inputs[0]!.shape[0] || output.shape[1] !== inputs[0]!.shape[1]! + 2) {
        throw new TypeError('lugetrf reads one m×n matrix and writes [m, n + 2]');
      }
    },
    run(_params, [t], out) {
      const [m, n] = t!.shape as [number, number];
      const A = dense(t!);
      const ids = Float64Array.from({ length: m }, (_, i) => i);
      getrf(A, m, n, ids);
      const buf = new Float64Array(m * (n + 2));
      for (let x = 0; x < m; x++) {
        buf[x * (n + 2)] = ids[x]!;
        buf[ids[x]! * (n + 2) + 1] = x;
        buf.set(A.subarray(x * n, x * n + n), x * (n + 2) + 2);
      }
      store(buf, m, n + 2, out);
    },
  },
  lutrans: {
    check(params, inputs, output) {
      onlyParams(params, []);
      floats(inputs, output, 1, 'lutrans');
      if (inputs.length !== 1 || output.shape[0] !== inputs[0]!.shape[1] || output.shape[1] !== inputs[0]!.shape[0]) {
        throw new TypeError('lutrans reads one tile and writes its transpose');
      }
    },
    run(_params, [t], out) {
      const [r, c] = t!.shape as [number, number];
      const A = dense(t!), B = new Float64Array(r * c);
      for (let a = 0; a < r; a++) for (let b = 0; b < c; b++) B[b * r + a] = A[a * c + b]!;
      store(B, c, r, out);
    },
  },
};
