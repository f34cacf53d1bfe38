// The tile routines of the tiled factorizations (api/linalg_tiled.ts builds
// their DAGs): each call writes one tile once, reading a few tiles of the
// input and tiles that earlier calls of its node wrote, so that a re-run of
// any call gives the same bits and a lost tile is recomputed from its lineage
// (numpywren's idempotent tasks). Every read is one tile: a task holds a few
// tiles however large the matrix (a peer fetches just those), and a float64
// tile is read in place on the heap. The kernels are plain TypeScript loops
// over dense float64 copies of the tiles, register-blocked and blocked over K
// for the cache (one strided GEMM, gemmNT, does the arithmetic of all four;
// past 32³ multiply-adds it runs as WebAssembly SIMD, wasm/tilegemm.ts):
//   potrf    L_jj = chol(A_jj), from A_jj's lower triangle (LAPACK's potrf 'L');
//   trsm     L_ij = A_ij · L_jj⁻ᵀ;
//   syrk     A_jj − L_jk L_jkᵀ (its lower triangle);
//   gemm     A_ij − L_ik L_jkᵀ;
//   copy     one tile as it is (the factor's tiles out of the workspace);
//   zero     a tile of zeros (above the factor's diagonal);
//   trsolve  one tile of X in T X = B (T triangular, scipy's solve_triangular):
//            X_ic = T_ii⁻¹ (B_ic − Σ_k T_ik X_kc) over the tiles k left of the
//            diagonal (lower) or right of it (upper): reads B_ic, T_ii, the
//            tiles T_ik, then the tiles X_kc already solved.
// The Cholesky routines write their tile into the top-left of a workspace
// chunk (zeros past a ragged tile's extent). float64 and float32 regions
// (float32 computed in float64 and rounded once on store). A pivot that is
// not positive is NumPy's LinAlgError 'Matrix is not positive definite',
// naming the tile; a NaN pivot gives NaNs, as LAPACK does. An exact zero on a
// triangular solve's diagonal is SciPy's 'singular matrix: resolution failed
// at diagonal i'.
// In: routine parameters and regions (./region.ts). Out: one tile written.

import { LinAlgError } from '../graph/linalg.js';
import type { RoutineParams } from '../graph/node.js';
import { tileGemmModule } from '../wasm/tilegemm.js';
import { type Region, type RegionSpec, type Routine, flag, onlyParams } from './region.js';

/** Columns of K a GEMM update takes at a time: a block of the rows of P and Q stays in the L2 cache. */
const KB = 128;

// ---------------------------------------------------------------------------
// Dense tile kernels over row-major float64 arrays (exported for tests and benchmarks)

/**
 * C −= P Qᵀ over row-major blocks given by offset and leading dimension:
 * C[a, b] (r×c) −= Σ_k P[a, k] Q[b, k] (P r×K, Q c×K); `lower` updates
 * b <= a (SYRK, P = Q): the WebAssembly kernel past WASM_MIN_WORK, else the
 * TypeScript loops. Either may also update entries just above the diagonal
 * with `lower` (its callers' strict upper triangles are scratch).
 */
export function gemmNT(
  C: Float64Array, co: number, ldc: number, r: number, c: number,
  P: Float64Array, po: number, ldp: number, Q: Float64Array, qo: number, ldq: number, K: number, lower = false,
): void {
  const w = r * c * K >= WASM_MIN_WORK ? tileGemm() : null;
  if (w) gemmNTWasm(w, C, co, ldc, r, c, P, po, ldp, Q, qo, ldq, K, lower);
  else gemmNTTs(C, co, ldc, r, c, P, po, ldp, Q, qo, ldq, K, lower);
}

/** Multiply-adds below which an update stays in TypeScript (the copies into the kernel's memory cost more than they save). */
const WASM_MIN_WORK = 32 ** 3;

interface TileGemm { memory: WebAssembly.Memory; fn: (C: number, P: number, Q: number, r: number, c: number, K: number, lower: number) => void }
let TILE_GEMM: TileGemm | null | undefined;

/** This thread's instance of the WebAssembly tile GEMM (wasm/tilegemm.ts), made on first use; null where SIMD is missing. */
function tileGemm(): TileGemm | null {
  if (TILE_GEMM === undefined) {
    try {
      const memory = new WebAssembly.Memory({ initial: 1 });
      const inst = new WebAssembly.Instance(new WebAssembly.Module(tileGemmModule()), { env: { memory } });
      TILE_GEMM = { memory, fn: inst.exports.gemmnt as TileGemm['fn'] };
    } catch { TILE_GEMM = null; }
  }
  return TILE_GEMM;
}

/**
 * gemmNT by the WebAssembly kernel: the blocks copied into its memory,
 * padded with zeros to its multiples (rows of P and C to 4, of Q to 2, K to
 * 2), and C's rows copied back (with `lower`, only b <= a).
 */
function gemmNTWasm(
  w: TileGemm, C: Float64Array, co: number, ldc: number, r: number, c: number,
  P: Float64Array, po: number, ldp: number, Q: Float64Array, qo: number, ldq: number, K: number, lower: boolean,
): void {
  const R4 = Math.ceil(r / 4) * 4, C2 = Math.ceil(c / 2) * 2, K2 = Math.ceil(K / 2) * 2;
  const oC = 0, oP = oC + 8 * R4 * C2, oQ = oP + 8 * R4 * K2, end = oQ + 8 * C2 * K2;
  const pages = Math.ceil(end / 65536) - w.memory.buffer.byteLength / 65536;
  if (pages > 0) w.memory.grow(pages);
  const f = new Float64Array(w.memory.buffer, 0, end / 8);
  // only the padding is zeroed: the rows past r (C, P) and c (Q), and the columns past c (C) and K (P, Q)
  for (let a = 0; a < r; a++) {
    f.set(C.subarray(co + a * ldc, co + a * ldc + c), oC / 8 + a * C2);
    f.set(P.subarray(po + a * ldp, po + a * ldp + K), oP / 8 + a * K2);
    if (C2 > c) f[oC / 8 + a * C2 + c] = 0;
    if (K2 > K) f[oP / 8 + a * K2 + K] = 0;
  }
  for (let b = 0; b < c; b++) {
    f.set(Q.subarray(qo + b * ldq, qo + b * ldq + K), oQ / 8 + b * K2);
    if (K2 > K) f[oQ / 8 + b * K2 + K] = 0;
  }
  f.fill(0, oC / 8 + r * C2, oP / 8);
  f.fill(0, oP / 8 + r * K2, oQ / 8);
  f.fill(0, oQ / 8 + c * K2, end / 8);
  w.fn(oC, oP, oQ, R4, C2, K2, lower ? 1 : 0);
  for (let a = 0; a < r; a++) {
    const n = lower ? Math.min(c, a + 1) : c;
    C.set(f.subarray(oC / 8 + a * C2, oC / 8 + a * C2 + n), co + a * ldc);
  }
}

/** gemmNT in TypeScript: register blocks of 4×2 dot products over K blocks of KB. */
export function gemmNTTs(
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
/** Columns of an outer block of the triangular solve (trsmRightLowerT). */
const NB2 = 128;

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

/**
 * X (r×c) = C · L⁻ᵀ in place (TRSM right, lower, transposed), by NB-column blocks: X[:, B] = (C[:, B] − X[:, <B]
 * L[B, <B]ᵀ) L[B, B]⁻ᵀ, the update from the columns before B's block of NB2 in one GEMM per such block (each
 * GEMM copies the solved columns it reads into the kernel's memory: fewer, larger ones copy less).
 */
export function trsmRightLowerT(C: Float64Array, r: number, c: number, L: Float64Array): void {
  for (let ob = 0; ob < c; ob += NB2) {
    const onb = Math.min(NB2, c - ob);
    gemmNT(C, ob, c, r, onb, C, 0, c, L, ob * c, c, ob);
    for (let jb = ob; jb < ob + onb; jb += NB) trsmBlock(C, r, c, L, ob, jb, Math.min(NB, ob + onb - jb));
  }
}

/** trsmRightLowerT's columns [jb, jb + nb) of the outer block from ob: the update from the block's columns before jb, then the substitution. */
function trsmBlock(C: Float64Array, r: number, c: number, L: Float64Array, ob: number, jb: number, nb: number): void {
  gemmNT(C, jb, c, r, nb, C, ob, c, L, jb * c + ob, c, jb - ob);
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

/**
 * C (r×w, dense) −= P (r×K, leading dimension ldp) · X (K×w, leading dimension ldx): past WASM_MIN_WORK through
 * gemmNT with Xᵀ copied into scratch slot 4 (K·w copies against r·w·K multiply-adds), else rows of X as axpys.
 */
export function gemmNN(C: Float64Array, r: number, w: number, P: Float64Array, ldp: number, X: Float64Array, ldx: number, K: number): void {
  if (r * w * K >= WASM_MIN_WORK && tileGemm()) {
    const Xt = scratch(4, w * K);
    for (let k = 0; k < K; k++) for (let b = 0, xk = k * ldx; b < w; b++) Xt[b * K + k] = X[xk + b]!;
    gemmNT(C, 0, w, r, w, P, 0, ldp, Xt, 0, K, K);
    return;
  }
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
  if (d instanceof Float64Array && s1 === 1) for (let i = 0; i < m; i++) out.set(d.subarray(i * s0, i * s0 + n), i * n);
  else for (let i = 0; i < m; i++) for (let j = 0; j < n; j++) out[i * n + j] = d[i * s0 + j * s1]!;
  return out;
}

/** A region read in place when it is float64 rows (its leading dimension the row stride), else its dense copy in slot `slot`. */
function rows(r: Region, slot: number): { a: Float64Array; ld: number } {
  if (r.data instanceof Float64Array && (r.strides[1] === 1 || r.shape[1]! <= 1)) return { a: r.data, ld: r.strides[0]! };
  return { a: dense(r, slot), ld: r.shape[1]! };
}

/**
 * A dense row-major m×n array written into the top-left of the output region
 * (float32 rounds here, once), zeros in the rest of it: a version tile of the
 * Cholesky workspace is a whole chunk, whatever the extent of its tile.
 */
function store(src: Float64Array, m: number, n: number, out: Region): void {
  const [M, N] = out.shape as [number, number];
  const [s0, s1] = out.strides as [number, number];
  const d = out.data as Float64Array | Float32Array;
  if (d instanceof Float64Array && s1 === 1) {
    // row by row: the tile's row, then zeros to the chunk's width; zero rows past the tile
    for (let i = 0; i < M; i++) {
      if (i < m) { d.set(src.subarray(i * n, i * n + Math.min(n, N)), i * s0); d.fill(0, i * s0 + Math.min(n, N), i * s0 + N); }
      else d.fill(0, i * s0, i * s0 + N);
    }
    return;
  }
  for (let i = 0; i < M; i++) for (let j = 0; j < N; j++) d[i * s0 + j * s1] = i < m && j < n ? src[i * n + j]! : 0;
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

/** The tiles after the first `skip` inputs, in `groups` runs of equal length (each a list of K tiles): their count per run. */
function runs(inputs: readonly RegionSpec[], skip: number, groups: number, what: string): number {
  const m = (inputs.length - skip) / groups;
  if (!Number.isInteger(m) || m < 0) throw new TypeError(what);
  return m;
}

/** The output region of the float dtype of `first` holds an r×c tile (its top-left; a workspace chunk may be larger). */
function checkOut(output: RegionSpec, first: RegionSpec | undefined, r: number, c: number, name: string): string {
  if (!first || !FLOATS.has(first.dtype) || output.dtype !== first.dtype || output.shape.length !== 2 || output.shape[0]! < r || output.shape[1]! < c) {
    throw new TypeError(`${name} writes a float64 or float32 tile of at least [${r}, ${c}], of its inputs' dtype`);
  }
  return first.dtype;
}

/** A 2-d region's extent. */
const dims = (r: RegionSpec | undefined, name: string): [number, number] => {
  if (!r || r.shape.length !== 2) throw new TypeError(`${name} reads 2-d tiles`);
  return r.shape as [number, number];
};

export const TILE_ROUTINES: Readonly<Record<'potrf' | 'trsm' | 'syrk' | 'gemm' | 'copy' | 'zero' | 'trsolve', Routine>> = {
  potrf: {
    check(params, inputs, output) {
      onlyParams(params, ['tile']);
      tileOf(params);
      if (inputs.length !== 1) throw new TypeError('potrf reads one diagonal tile');
      const [c] = dims(inputs[0], 'potrf');
      const dtype = checkOut(output, inputs[0], c, c, 'potrf');
      checkTile(inputs[0], c, c, dtype, 'potrf\'s diagonal tile');
    },
    run(params, [a], out) {
      const c = a!.shape[0]!;
      const C = dense(a!, 0);
      const bad = potrfLower(C, c);
      if (bad >= 0) {
        // every tile before the last is as long as a workspace chunk is: tile i starts at row i·T
        const [i] = tileOf(params);
        const order = i * out.shape[0]! + bad + 1;
        throw new LinAlgError(`Matrix is not positive definite (the leading minor of order ${order} is not positive, in tile (${i}, ${i}))`);
      }
      store(C, c, c, out);
    },
  },
  trsm: {
    check(params, inputs, output) {
      onlyParams(params, ['tile']);
      tileOf(params);
      if (inputs.length !== 2) throw new TypeError('trsm reads a tile of A, then L\'s diagonal tile of its column');
      const [r, c] = dims(inputs[0], 'trsm');
      const dtype = checkOut(output, inputs[0], r, c, 'trsm');
      checkTile(inputs[1], c, c, dtype, 'trsm\'s diagonal tile');
    },
    run(_params, [a, l], out) {
      const [r, c] = a!.shape as [number, number];
      const C = dense(a!, 0);
      trsmRightLowerT(C, r, c, dense(l!, 3));
      store(C, r, c, out);
    },
  },
  syrk: {
    check(params, inputs, output) {
      onlyParams(params, []);
      if (inputs.length !== 2) throw new TypeError('syrk reads a diagonal tile, then one tile of L of its row');
      const [c] = dims(inputs[0], 'syrk');
      const dtype = checkOut(output, inputs[0], c, c, 'syrk');
      checkTile(inputs[0], c, c, dtype, 'syrk\'s diagonal tile');
      checkTile(inputs[1], c, inputs[1]?.shape[1] ?? 0, dtype, 'syrk\'s tile of L');
    },
    run(_params, [a, p], out) {
      const c = a!.shape[0]!, K = p!.shape[1]!;
      const C = dense(a!, 0), P = rows(p!, 1);
      gemmNT(C, 0, c, c, c, P.a, 0, P.ld, P.a, 0, P.ld, K, true);
      store(C, c, c, out);
    },
  },
  gemm: {
    check(params, inputs, output) {
      onlyParams(params, []);
      if (inputs.length !== 3) throw new TypeError('gemm reads a tile C, then the tiles P and Q of C − P Qᵀ');
      const [r, c] = dims(inputs[0], 'gemm');
      const dtype = checkOut(output, inputs[0], r, c, 'gemm');
      const K = inputs[1]?.shape[1] ?? 0;
      checkTile(inputs[1], r, K, dtype, 'gemm\'s P');
      checkTile(inputs[2], c, K, dtype, 'gemm\'s Q');
    },
    run(_params, [a, p, q], out) {
      const [r, c] = a!.shape as [number, number];
      const C = dense(a!, 0), P = rows(p!, 1), Q = rows(q!, 2);
      gemmNT(C, 0, c, r, c, P.a, 0, P.ld, Q.a, 0, Q.ld, p!.shape[1]!);
      store(C, r, c, out);
    },
  },
  copy: {
    check(params, inputs, output) {
      onlyParams(params, []);
      if (inputs.length !== 1) throw new TypeError('copy reads one tile');
      const [r, c] = dims(inputs[0], 'copy');
      checkOut(output, inputs[0], r, c, 'copy');
    },
    run(_params, [a], out) {
      store(dense(a!, 0), a!.shape[0]!, a!.shape[1]!, out);
    },
  },
  zero: {
    check(params, inputs, output) {
      onlyParams(params, []);
      if (!FLOATS.has(output.dtype) || output.shape.length !== 2) throw new TypeError('zero writes a 2-d float64 or float32 tile');
      if (inputs.length) throw new TypeError('zero reads nothing');
    },
    run(_params, _inputs, out) {
      store(scratch(0, 0), 0, 0, out);
    },
  },
  trsolve: {
    check(params, inputs, output) {
      onlyParams(params, ['tile', 'lower', 'unit']);
      tileOf(params);
      flag(params, 'lower');
      flag(params, 'unit');
      const m = runs(inputs, 2, 2, 'trsolve reads B\'s tile and T\'s diagonal tile, then tiles of T and the tiles of X they multiply (as many of each)');
      const [r, w] = dims(inputs[0], 'trsolve');
      const dtype = checkOut(output, inputs[0], r, w, 'trsolve');
      checkTile(output, r, w, dtype, 'trsolve\'s output');
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
      store(C, r, w, out);
    },
  },
};
