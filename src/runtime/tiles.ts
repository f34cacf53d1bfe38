// The tile routines of the tiled factorizations (api/linalg_tiled.ts builds
// their DAGs): each call writes one tile of the result once, reading tiles of
// the input and tiles of the result that earlier calls wrote, so that a re-run
// of any call gives the same bits and a lost tile is recomputed from its
// lineage (numpywren's idempotent tasks). The LAPACK/BLAS tile kernels
// (POTRF, TRSM, SYRK, GEMM) are plain TypeScript loops over dense float64
// copies of the tiles, blocked over K for the cache; a call folds the updates
// its tile needs (SYRK or GEMM over the panel of earlier columns) into the
// call that finishes it, since a node's chunk is written once:
//   potrf    L_jj = chol(A_jj − Σ_k<j L_jk L_jkᵀ): reads A_jj (its lower
//            triangle only, as LAPACK's potrf 'L'), then the tiles L_jk;
//   trsm     L_ij = (A_ij − Σ_k<j L_ik L_jkᵀ) · L_jj⁻ᵀ for i > j: reads A_ij,
//            L_jj, then the tiles L_ik, then the tiles L_jk;
//   zero     a tile above the diagonal: zeros;
//   trsolve  one tile of X in T X = B (T triangular, scipy's solve_triangular):
//            X_ic = T_ii⁻¹ (B_ic − Σ_k T_ik X_kc) over the tiles k left of the
//            diagonal (lower) or right of it (upper): reads B_ic, T_ii, the
//            tiles T_ik, then the tiles X_kc already solved.
// Every read is one tile, so a task holds a few tiles however large the
// matrix (a peer fetches just those), and on the local heap a float64 tile
// is read in place, not copied.
// float64 and float32 regions (float32 computed in float64 and rounded once
// on store). A pivot that is not positive is NumPy's LinAlgError 'Matrix is
// not positive definite', naming the tile; a NaN pivot gives NaNs, as LAPACK
// does. An exact zero on a triangular solve's diagonal is SciPy's
// 'singular matrix: resolution failed at diagonal i'.
// In: routine parameters and regions (./region.ts). Out: one tile written.

import { LinAlgError } from '../graph/linalg.js';
import type { RoutineParams } from '../graph/node.js';
import { type Region, type RegionSpec, type Routine, flag, onlyParams } from './region.js';

/** Columns of K a GEMM update takes at a time: a block of the rows of P and Q stays in the L2 cache. */
const KB = 128;

// ---------------------------------------------------------------------------
// Dense tile kernels over row-major float64 arrays (exported for tests and benchmarks)

/**
 * C −= P Qᵀ over row-major blocks given by offset and leading dimension:
 * C[a, b] (r×c) −= Σ_k P[a, k] Q[b, k] (P r×K, Q c×K); `lower` updates
 * b <= a (SYRK, P = Q). Register blocks of 4×2 dot products over K blocks of
 * KB: each loaded value serves two or four products. With `lower` a
 * register block on the diagonal also updates the few entries just above it
 * (its callers' strict upper triangles are scratch).
 */
export function gemmNT(
  C: Float64Array, co: number, ldc: number, r: number, c: number,
  P: Float64Array, po: number, ldp: number, Q: Float64Array, qo: number, ldq: number, K: number, lower = false,
): void {
  for (let k0 = 0; k0 < K; k0 += KB) {
    const kn = Math.min(K, k0 + KB) - k0;
    let a = 0;
    for (; a + 3 < r; a += 4) {
      const p0 = po + a * ldp + k0, p1 = p0 + ldp, p2 = p1 + ldp, p3 = p2 + ldp;
      const c0 = co + a * ldc, c1 = c0 + ldc, c2 = c1 + ldc, c3 = c2 + ldc;
      const bEnd = lower ? Math.min(c, a + 4) : c;
      let b = 0;
      for (; b + 1 < bEnd; b += 2) {
        const q0 = qo + b * ldq + k0, q1 = q0 + ldq;
        let s00 = 0, s01 = 0, s10 = 0, s11 = 0, s20 = 0, s21 = 0, s30 = 0, s31 = 0;
        for (let k = 0; k < kn; k++) {
          const y0 = Q[q0 + k]!, y1 = Q[q1 + k]!;
          const x0 = P[p0 + k]!, x1 = P[p1 + k]!, x2 = P[p2 + k]!, x3 = P[p3 + k]!;
          s00 += x0 * y0; s01 += x0 * y1; s10 += x1 * y0; s11 += x1 * y1;
          s20 += x2 * y0; s21 += x2 * y1; s30 += x3 * y0; s31 += x3 * y1;
        }
        C[c0 + b] -= s00; C[c0 + b + 1] -= s01; C[c1 + b] -= s10; C[c1 + b + 1] -= s11;
        C[c2 + b] -= s20; C[c2 + b + 1] -= s21; C[c3 + b] -= s30; C[c3 + b + 1] -= s31;
      }
      for (; b < bEnd; b++) {
        const q0 = qo + b * ldq + k0;
        let s0 = 0, s1 = 0, s2 = 0, s3 = 0;
        for (let k = 0; k < kn; k++) {
          const y = Q[q0 + k]!;
          s0 += P[p0 + k]! * y; s1 += P[p1 + k]! * y; s2 += P[p2 + k]! * y; s3 += P[p3 + k]! * y;
        }
        C[c0 + b] -= s0; C[c1 + b] -= s1; C[c2 + b] -= s2; C[c3 + b] -= s3;
      }
    }
    for (; a < r; a++) {
      const p0 = po + a * ldp + k0, c0 = co + a * ldc;
      const bEnd = lower ? Math.min(c, a + 1) : c;
      for (let b = 0; b < bEnd; b++) {
        const q0 = qo + b * ldq + k0;
        let s = 0;
        for (let k = 0; k < kn; k++) s += P[p0 + k]! * Q[q0 + k]!;
        C[c0 + b] -= s;
      }
    }
  }
}

/** Columns of a block in the blocked POTRF and TRSM: its dot products go through gemmNT, the rest is NB-wide. */
const NB = 32;

/**
 * C's lower triangle (c×c) replaced by its Cholesky factor L (POTRF 'L',
 * blocked left-looking: each NB-column block updated by gemmNT from the
 * columns before it, then factored by dot products); the strict upper
 * triangle is zeroed. Returns -1, or the column whose pivot is not positive
 * (C is left part-way).
 */
export function potrfLower(C: Float64Array, c: number): number {
  for (let jb = 0; jb < c; jb += NB) {
    const nb = Math.min(NB, c - jb);
    const d = jb * c + jb;
    gemmNT(C, d, c, c - jb, nb, C, jb * c, c, C, jb * c, c, jb, true);
    for (let j = 0; j < nb; j++) {
      const rj = d + j * c;
      let v = C[rj + j]!;
      for (let k = 0; k < j; k++) v -= C[rj + k]! * C[rj + k]!;
      if (v <= 0) return jb + j;
      const s = Math.sqrt(v);
      C[rj + j] = s;
      for (let i = j + 1; i < c - jb; i++) {
        const ri = d + i * c;
        let u = C[ri + j]!;
        for (let k = 0; k < j; k++) u -= C[ri + k]! * C[rj + k]!;
        C[ri + j] = u / s;
      }
    }
  }
  for (let i = 0; i < c; i++) C.fill(0, i * c + i + 1, (i + 1) * c);
  return -1;
}

/** X (r×c) = C · L⁻ᵀ in place (TRSM right, lower, transposed), by NB-column blocks: X[:, B] = (C[:, B] − X[:, <B] L[B, <B]ᵀ) L[B, B]⁻ᵀ. */
export function trsmRightLowerT(C: Float64Array, r: number, c: number, L: Float64Array): void {
  for (let jb = 0; jb < c; jb += NB) {
    const nb = Math.min(NB, c - jb);
    gemmNT(C, jb, c, r, nb, C, 0, c, L, jb * c, c, jb);
    for (let a = 0; a < r; a++) {
      const ra = a * c + jb;
      for (let b = 0; b < nb; b++) {
        const rb = (jb + b) * c + jb;
        let v = C[ra + b]!;
        for (let k = 0; k < b; k++) v -= C[ra + k]! * L[rb + k]!;
        C[ra + b] = v / L[rb + b]!;
      }
    }
  }
}

/** C (r×w, dense) −= P (r×K, leading dimension ldp) · X (K×w, leading dimension ldx): GEMM NN, rows of X as axpys. */
export function gemmNN(C: Float64Array, r: number, w: number, P: Float64Array, ldp: number, X: Float64Array, ldx: number, K: number): void {
  for (let a = 0; a < r; a++) {
    const ca = a * w, pa = a * ldp;
    for (let k = 0; k < K; k++) {
      const p = P[pa + k]!;
      if (p === 0) continue;
      const xk = k * ldx;
      for (let b = 0; b < w; b++) C[ca + b] -= p * X[xk + b]!;
    }
  }
}

/**
 * T X = C in place for a triangular r×r T (TRSM left): forward substitution
 * for a lower T, backward for an upper one; `unit` takes T's diagonal as
 * ones without reading it. Returns -1, or the first row whose diagonal is an
 * exact zero (LAPACK's trtrs checks those before it solves).
 */
export function trsmLeft(T: Float64Array, r: number, C: Float64Array, w: number, lower: boolean, unit: boolean): number {
  if (!unit) for (let a = 0; a < r; a++) if (T[a * r + a] === 0) return a;
  for (let s = 0; s < r; s++) {
    const a = lower ? s : r - 1 - s;
    const ca = a * w, ta = a * r;
    const [k0, k1] = lower ? [0, a] : [a + 1, r];
    for (let k = k0; k < k1; k++) {
      const t = T[ta + k]!;
      if (t === 0) continue;
      const xk = k * w;
      for (let b = 0; b < w; b++) C[ca + b] -= t * C[xk + b]!;
    }
    if (!unit) { const d = T[ta + a]!; for (let b = 0; b < w; b++) C[ca + b] /= d; }
  }
  return -1;
}

// ---------------------------------------------------------------------------
// Regions in and out

/** Per-thread scratch by slot, reused from call to call (a tile's copy is no garbage for the collector). */
const SCRATCH: Float64Array[] = [];
function scratch(slot: number, n: number): Float64Array {
  const have = SCRATCH[slot];
  if (have && have.length >= n) return have.subarray(0, n);
  const b = new Float64Array(n);
  SCRATCH[slot] = b;
  return b;
}

/** A 2-d region copied into a dense row-major float64 array of scratch slot `slot`. */
function dense(r: Region, slot: number): Float64Array {
  const [m, n] = r.shape as [number, number];
  const [s0, s1] = r.strides as [number, number];
  const out = scratch(slot, m * n);
  const d = r.data as Float64Array | Float32Array;
  for (let i = 0; i < m; i++) for (let j = 0; j < n; j++) out[i * n + j] = d[i * s0 + j * s1]!;
  return out;
}

/** A region read in place when it is float64 rows (its leading dimension the row stride), else its dense copy in slot `slot`. */
function rows(r: Region, slot: number): { a: Float64Array; ld: number } {
  if (r.data instanceof Float64Array && (r.strides[1] === 1 || r.shape[1]! <= 1)) return { a: r.data, ld: r.strides[0]! };
  return { a: dense(r, slot), ld: r.shape[1]! };
}

/** A dense row-major array written into the output region (float32 rounds here, once). */
function store(src: Float64Array, out: Region): void {
  const [m, n] = out.shape as [number, number];
  const [s0, s1] = out.strides as [number, number];
  const d = out.data as Float64Array | Float32Array;
  for (let i = 0; i < m; i++) for (let j = 0; j < n; j++) d[i * s0 + j * s1] = src[i * n + j]!;
}

const FLOATS = new Set(['float64', 'float32']);

/** A float region [rows, cols] of the output's dtype. */
function checkTile(r: RegionSpec | undefined, rows: number, cols: number, dtype: string, what: string): void {
  if (!r || r.dtype !== dtype || r.shape.length !== 2 || r.shape[0] !== rows || r.shape[1] !== cols) {
    throw new TypeError(`${what} must be a ${dtype} [${rows}, ${cols}] region`);
  }
}

/** The tile's grid position [i, j] (for the errors that name it). */
function tileOf(params: RoutineParams): [number, number] {
  const t = params.tile;
  if (!Array.isArray(t) || t.length !== 2 || !t.every((v) => Number.isSafeInteger(v) && v >= 0)) {
    throw new TypeError('routine parameter tile must be a [row, column] pair of tile indices');
  }
  return t as [number, number];
}

/** The output's dtype when it is a 2-d float region. */
function floatOut(output: RegionSpec, name: string): string {
  if (!FLOATS.has(output.dtype) || output.shape.length !== 2) throw new TypeError(`${name} writes a 2-d float64 or float32 tile`);
  return output.dtype;
}

/** The tiles after the first `skip` inputs, in `groups` runs of equal length (each a list of K tiles): their count per run. */
function runs(inputs: readonly RegionSpec[], skip: number, groups: number, what: string): number {
  const m = (inputs.length - skip) / groups;
  if (!Number.isInteger(m) || m < 0) throw new TypeError(what);
  return m;
}

export const TILE_ROUTINES: Readonly<Record<'potrf' | 'trsm' | 'zero' | 'trsolve', Routine>> = {
  potrf: {
    check(params, inputs, output) {
      onlyParams(params, ['tile']);
      tileOf(params);
      const dtype = floatOut(output, 'potrf');
      const c = output.shape[0]!;
      if (output.shape[1] !== c) throw new TypeError('potrf writes a square tile');
      runs(inputs, 1, 1, 'potrf reads the diagonal tile of A, then the tiles of L left of it');
      checkTile(inputs[0], c, c, dtype, 'potrf\'s diagonal tile');
      for (const t of inputs.slice(1)) checkTile(t, c, t.shape[1] ?? 0, dtype, 'potrf\'s tiles of L');
    },
    run(params, inputs, out) {
      const c = out.shape[0]!;
      const C = dense(inputs[0]!, 0);
      for (const t of inputs.slice(1)) {
        const p = rows(t, 1), K = t.shape[1]!;
        gemmNT(C, 0, c, c, c, p.a, 0, p.ld, p.a, 0, p.ld, K, true);
      }
      const bad = potrfLower(C, c);
      if (bad >= 0) {
        const [i] = tileOf(params);
        const at = inputs[0]!.origin[0]! + bad;
        throw new LinAlgError(`Matrix is not positive definite (the leading minor of order ${at + 1} is not positive, in tile (${i}, ${i}))`);
      }
      store(C, out);
    },
  },
  trsm: {
    check(params, inputs, output) {
      onlyParams(params, ['tile']);
      tileOf(params);
      const dtype = floatOut(output, 'trsm');
      const [r, c] = output.shape as [number, number];
      const m = runs(inputs, 2, 2, 'trsm reads A\'s tile and L\'s diagonal tile, then the tiles of L left of each (as many for both)');
      checkTile(inputs[0], r, c, dtype, 'trsm\'s tile of A');
      checkTile(inputs[1], c, c, dtype, 'trsm\'s diagonal tile');
      for (let k = 0; k < m; k++) {
        const K = inputs[2 + k]!.shape[1] ?? 0;
        checkTile(inputs[2 + k], r, K, dtype, 'trsm\'s row tile');
        checkTile(inputs[2 + m + k], c, K, dtype, 'trsm\'s diagonal row tile');
      }
    },
    run(_params, inputs, out) {
      const [r, c] = out.shape as [number, number];
      const m = (inputs.length - 2) / 2;
      const C = dense(inputs[0]!, 0);
      for (let k = 0; k < m; k++) {
        const p = rows(inputs[2 + k]!, 1), q = rows(inputs[2 + m + k]!, 2);
        gemmNT(C, 0, c, r, c, p.a, 0, p.ld, q.a, 0, q.ld, inputs[2 + k]!.shape[1]!);
      }
      trsmRightLowerT(C, r, c, dense(inputs[1]!, 3));
      store(C, out);
    },
  },
  zero: {
    check(params, inputs, output) {
      onlyParams(params, []);
      floatOut(output, 'zero');
      if (inputs.length) throw new TypeError('zero reads nothing');
    },
    run(_params, _inputs, out) {
      store(scratch(0, out.shape[0]! * out.shape[1]!).fill(0), out);
    },
  },
  trsolve: {
    check(params, inputs, output) {
      onlyParams(params, ['tile', 'lower', 'unit']);
      tileOf(params);
      flag(params, 'lower');
      flag(params, 'unit');
      const dtype = floatOut(output, 'trsolve');
      const [r, w] = output.shape as [number, number];
      const m = runs(inputs, 2, 2, 'trsolve reads B\'s tile and T\'s diagonal tile, then tiles of T and the tiles of X they multiply (as many of each)');
      checkTile(inputs[0], r, w, dtype, 'trsolve\'s tile of B');
      checkTile(inputs[1], r, r, dtype, 'trsolve\'s diagonal tile');
      for (let k = 0; k < m; k++) {
        const K = inputs[2 + k]!.shape[1] ?? 0;
        checkTile(inputs[2 + k], r, K, dtype, 'trsolve\'s tile of T');
        checkTile(inputs[2 + m + k], K, w, dtype, 'trsolve\'s tile of X');
      }
    },
    run(params, inputs, out) {
      const [r, w] = out.shape as [number, number];
      const m = (inputs.length - 2) / 2;
      const C = dense(inputs[0]!, 0);
      for (let k = 0; k < m; k++) {
        const p = rows(inputs[2 + k]!, 1), x = rows(inputs[2 + m + k]!, 2);
        gemmNN(C, r, w, p.a, p.ld, x.a, x.ld, inputs[2 + k]!.shape[1]!);
      }
      const bad = trsmLeft(dense(inputs[1]!, 3), r, C, w, params.lower === true, params.unit === true);
      if (bad >= 0) throw new LinAlgError(`singular matrix: resolution failed at diagonal ${inputs[1]!.origin[0]! + bad}`);
      store(C, out);
    },
  },
};
