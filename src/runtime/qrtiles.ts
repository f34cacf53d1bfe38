// The tile routines of the tiled QR (api/linalg_qr.ts builds their DAG),
// PLASMA's tile QR (Buttari, Langou, Kurzak, Dongarra) with inner blocking:
//   qrgeqrt  Householder QR of a diagonal tile: R and the reflectors V (unit
//            lower, as LAPACK's geqrt keeps them) and the compact-WY factors
//            T of each inner block of ib columns;
//   qrunmqr  a tile C replaced by Q_kkᵀ C (trans) or Q_kk C, Q_kk = geqrt's;
//   qrtsqrt  QR of [R_kk; A_ik], a triangle on top of a square: the new R,
//            the square's reflectors V2 (each [e_j; v2_j]) and their T;
//   qrtsmqr  the pair [A_kj; A_ij] replaced by Q_ikᵀ [A_kj; A_ij] (trans) or
//            Q_ik [A_kj; A_ij], both tiles in one chunk;
//   qreye    a tile of the identity (diagonal) or zeros: Q's start;
//   qrcopy   a tile out of the workspace (R with zeros below the diagonal).
// Every workspace chunk is [2T + ib, T] float64: rows [0, T) a tile, rows
// [T, 2T) a second tile (tsqrt's V2, tsmqr's lower tile), rows [2T, 2T + ib)
// the T factors (LAPACK's ib × n layout). Tiles are stored transposed (the
// columns of A as rows), zero-padded to T × T: a Householder vector is then
// a contiguous row, and the block-reflector updates are C −= P Qᵀ products
// with contiguous rows of K (wasm/qrgemm.ts, run in place in the module's
// memory with one copy in and out a task). A zero pad is harmless: its
// reflectors are the identity (LAPACK's tau = 0 for a zero column) and its
// rows never mix with the matrix's. A tile read from the input itself (the
// call's `raw` reads) is any box of it, of its dtype, transposed on the way in.
// Each block of ib columns: Householder panels of IB2 columns by dot products
// and axpys (level 2), each applied to the rest of its block, then the
// block's reflectors applied to the rest of the tile as three GEMMs (W = X V,
// Z = W T, X −= Z Vᵀ, with V's columns copied compact for the last): the
// arithmetic of qrtsmqr, nearly all of the factorization's, is GEMM-shaped.
// One thread at T = 512 (GFLOP/s of PLASMA's counts, CPU time): tsmqr 15.2
// against 15.6 for the Cholesky's gemmNT on 512³, tsqrt 12.7, unmqr 13.5,
// geqrt 11.7. Householder as LAPACK's dlarfg (R's diagonal may be negative;
// the norm rescaled where its sum of squares could underflow or overflow; a
// NaN spreads NaNs, as LAPACK's does).
// In: routine parameters and regions (./region.ts). Out: one chunk written.

import type { RoutineParams } from '../graph/node.js';
import { qrBlockNegModule, qrGemmModule, qrGemmNNModule, qrLevel2Modules } from '../wasm/qrgemm.js';
import { type Region, type RegionSpec, type Routine, flag, onlyParams } from './region.js';
import { gemmNTTs } from './tiles.js';

/** Columns of a sub-panel: the level-2 part of a block of ib columns (the rest of the block is updated by GEMMs). */
const IB2 = 16;

// ---------------------------------------------------------------------------
// The arena: this thread's WebAssembly memory, the GEMM over element offsets into it

type Mul = (C: number, ldc: number, P: number, ldp: number, Q: number, ldq: number, r: number, c: number, K: number) => void;
/** The arena's values and its two products over element offsets into them: nt, C −= P Qᵀ; nn, C −= P Q. */
interface Arena {
  f: Float64Array; nt: Mul; nn: Mul;
  /** D = −S, or D −= S (sub), r × c blocks. */
  neg: (D: number, ldd: number, S: number, lds: number, r: number, c: number, sub: boolean) => void;
  /** Σ f[x + k] f[y + k] over k < n. */
  dot: (x: number, y: number, n: number) => number;
  /** f[y + k] += a f[x + k] for k < n. */
  axpy: (y: number, x: number, a: number, n: number) => void;
}

type Fn = (...a: number[]) => void;
let MODULE: { memory: WebAssembly.Memory; nt: Fn; nn: Fn; neg: Fn; dot: (...a: number[]) => number; axpy: Fn } | null | undefined;
let PLAIN: Float64Array | null = null;

/** An arena of at least `n` float64 values: the modules' memory (grown as needed), or a plain array and TypeScript loops where SIMD is missing. */
function arena(n: number): Arena {
  if (MODULE === undefined) {
    try {
      const memory = new WebAssembly.Memory({ initial: 1 });
      const make = (bytes: Uint8Array<ArrayBuffer>): WebAssembly.Exports =>
        new WebAssembly.Instance(new WebAssembly.Module(bytes), { env: { memory } }).exports;
      const l2 = qrLevel2Modules();
      MODULE = {
        memory, nt: make(qrGemmModule()).gemmnt as Fn, nn: make(qrGemmNNModule()).gemmnn as Fn, neg: make(qrBlockNegModule()).blockneg as Fn,
        dot: make(l2.dot).dot as (...a: number[]) => number, axpy: make(l2.axpy).axpy as Fn,
      };
    } catch { MODULE = null; }
  }
  if (MODULE) {
    const m = MODULE;
    const pages = Math.ceil((8 * n) / 65536) - m.memory.buffer.byteLength / 65536;
    if (pages > 0) m.memory.grow(pages);
    const f = new Float64Array(m.memory.buffer);
    return {
      f,
      nt: (C, ldc, P, ldp, Q, ldq, r, c, K) => { if (r && c && K) m.nt(8 * C, ldc, 8 * P, ldp, 8 * Q, ldq, r, c, K); },
      nn: (C, ldc, P, ldp, Q, ldq, r, c, K) => { if (r && c && K) m.nn(8 * C, ldc, 8 * P, ldp, 8 * Q, ldq, r, c, K); },
      neg: (D, ldd, S, lds, r, c, sub) => m.neg(8 * D, ldd, 8 * S, lds, r, c, sub ? 1 : 0),
      dot: (x, y, n) => m.dot(8 * x, 8 * y, n),
      axpy: (y, x, a, n) => m.axpy(8 * y, 8 * x, a, n),
    };
  }
  if (!PLAIN || PLAIN.length < n) PLAIN = new Float64Array(n);
  const f = PLAIN;
  return {
    f,
    nt: (C, ldc, P, ldp, Q, ldq, r, c, K) => gemmNTTs(f, C, ldc, r, c, f, P, ldp, f, Q, ldq, K),
    nn: (C, ldc, P, ldp, Q, ldq, r, c, K) => {
      for (let a = 0; a < r; a++) {
        for (let k = 0; k < K; k++) {
          const p = f[P + a * ldp + k]!, q = Q + k * ldq, o = C + a * ldc;
          for (let b = 0; b < c; b++) f[o + b] -= p * f[q + b]!;
        }
      }
    },
    neg: (D, ldd, S, lds, r, c, sub) => {
      for (let a = 0; a < r; a++) for (let b = 0; b < c; b++) f[D + a * ldd + b] = (sub ? f[D + a * ldd + b]! : 0) - f[S + a * lds + b]!;
    },
    dot: (x, y, n) => { let s = 0; for (let k = 0; k < n; k++) s += f[x + k]! * f[y + k]!; return s; },
    axpy: (y, x, a, n) => { for (let k = 0; k < n; k++) f[y + k] += a * f[x + k]!; },
  };
}

/** Offsets of the arena's parts for tiles of side T and inner blocks of ib (all multiples of 4 values: 16-byte rows for SIMD). */
function layout(T: number, ib: number) {
  const T2 = T * T;
  const Y = 0, X = T2, Vt = 2 * T2, W = 3 * T2, Z = W + T * ib, Tq = Z + T * ib, G = Tq + ib * ib, Tf = G + ib * ib, Vb = Tf + ib * T, tau = Vb + T * ib;
  return { Y, X, Vt, W, Z, Tq, G, Tf, Vb, tau, end: tau + ib };
}

// ---------------------------------------------------------------------------
// Tiles in and out

/** Tile `r` into f at `o` as its transpose, zero-padded to T × T: a box of the input (raw), or a stored (already transposed) tile. */
function load(f: Float64Array, o: number, T: number, r: Region, raw: boolean): void {
  const [m, n] = r.shape as [number, number];
  const [s0, s1] = r.strides as [number, number];
  const d = r.data as Float64Array | Float32Array;
  f.fill(0, o, o + T * T);
  if (!raw) {
    if (d instanceof Float64Array && s1 === 1 && s0 === T && n === T) f.set(d.subarray(0, m * T), o);
    else if (d instanceof Float64Array && s1 === 1) for (let i = 0; i < m; i++) f.set(d.subarray(i * s0, i * s0 + n), o + i * T);
    else for (let i = 0; i < m; i++) for (let j = 0; j < n; j++) f[o + i * T + j] = d[i * s0 + j * s1]!;
    return;
  }
  // transposed by 16 × 16 blocks: both the reads and the writes stay within a few cache lines
  for (let i0 = 0; i0 < m; i0 += 16) {
    for (let j0 = 0; j0 < n; j0 += 16) {
      const i1 = Math.min(m, i0 + 16), j1 = Math.min(n, j0 + 16);
      for (let i = i0; i < i1; i++) for (let j = j0; j < j1; j++) f[o + j * T + i] = d[i * s0 + j * s1]!;
    }
  }
}

/** Rows [row0, row0 + rows) of a workspace chunk from f at `o` (T values a row). */
function put(f: Float64Array, o: number, T: number, out: Region, row0: number, rows: number): void {
  const [s0, s1] = out.strides as [number, number];
  const d = out.data as Float64Array;
  if (s1 === 1 && s0 === T) d.set(f.subarray(o, o + rows * T), row0 * T);
  else if (s1 === 1) for (let i = 0; i < rows; i++) d.set(f.subarray(o + i * T, o + i * T + T), (row0 + i) * s0);
  else for (let i = 0; i < rows; i++) for (let j = 0; j < T; j++) d[(row0 + i) * s0 + j * s1] = f[o + i * T + j]!;
}

/** Rows [row0, row0 + rows) of a workspace chunk zeroed. */
function clear(out: Region, row0: number, rows: number): void {
  const [s0, s1] = out.strides as [number, number];
  const d = out.data as Float64Array;
  const T = out.shape[1]!;
  for (let i = row0; i < row0 + rows; i++) for (let j = 0; j < T; j++) d[i * s0 + j * s1] = 0;
}

// ---------------------------------------------------------------------------
// Householder reflectors and block reflectors over the arena (X is a transposed tile: X[c, i] = A[i, c])

/**
 * LAPACK's dlarfg over alpha = f[ai] and x = f[xo, xo + n): H (alpha; x) = (beta; 0) with
 * H = I − tau (1; v)(1; v)ᵀ; x becomes v, alpha beta. Returns tau (0 when x is zero: H = I).
 */
function reflector(A: Arena, ai: number, xo: number, n: number): number {
  const f = A.f;
  let xnorm = Math.sqrt(A.dot(xo, xo, n));
  // a sum of squares that may have underflowed or overflowed: the norm again, scaled by the largest |x| (dnrm2's care)
  if (!(xnorm > 1e-150 && xnorm < 1e150)) {
    let m = 0;
    for (let k = xo; k < xo + n; k++) m = Math.max(m, Math.abs(f[k]!));
    if (m > 0 && m < Infinity) {
      let t = 0;
      for (let k = xo; k < xo + n; k++) t += (f[k]! / m) ** 2;
      xnorm = m * Math.sqrt(t);
    }
  }
  if (xnorm === 0) return 0;
  const alpha = f[ai]!;
  const beta = (alpha >= 0 ? -1 : 1) * Math.hypot(alpha, xnorm);
  const scale = 1 / (alpha - beta);
  for (let k = xo; k < xo + n; k++) f[k] *= scale;
  f[ai] = beta;
  return (beta - alpha) / beta;
}

/**
 * The w × w upper T of a block (LAPACK's dlarft, forward, columnwise) into f at `to` (ld w), from
 * G = −Vᵀ V (the block's Gram matrix, negated, at `go`) and the block's taus (at `tau`).
 */
function larft(f: Float64Array, to: number, go: number, w: number, tau: number): void {
  f.fill(0, to, to + w * w);
  for (let j = 0; j < w; j++) {
    const t = f[tau + j]!;
    f[to + j * w + j] = t;
    // T[0:j, j] = −tau T[0:j, 0:j] Vᵀ v_j = tau T[0:j, 0:j] G[0:j, j]
    for (let i = 0; i < j; i++) {
      let s = 0;
      for (let l = i; l < j; l++) s += f[to + i * w + l]! * f[go + l * w + j]!;
      f[to + i * w + j] = t * s;
    }
  }
}
/** The block's T (w × w, from the factors in Tf, columns kb…) into Tq (ld w) as the second product's Q: T for Qᵀ (trans), Tᵀ for Q. */
function tq(f: Float64Array, L: ReturnType<typeof layout>, T: number, kb: number, w: number, trans: boolean): void {
  for (let a = 0; a < w; a++) for (let k = 0; k < w; k++) f[L.Tq + k * w + a] = trans ? f[L.Tf + k * T + kb + a]! : f[L.Tf + a * T + kb + k]!;
}

/**
 * The block's reflectors (Vt's rows kb…, from column c0) as V's columns, compact (T × w, ld w) at Vb: the third product's Q
 * with short contiguous rows (reading Vt's rows down a column of V is slower, and a whole transposed V would cost T² strided writes).
 */
function compactV(f: Float64Array, L: ReturnType<typeof layout>, T: number, kb: number, w: number, c0: number): void {
  for (let i = c0; i < T; i++) for (let a = 0; a < w; a++) f[L.Vb + i * w + a] = f[L.Vt + (kb + a) * T + i]!;
}

/**
 * The block reflector of geqrt's block (kb, w) applied to nr rows of X from `xo` (columns of A): with the reflectors in Vt's
 * rows kb… (zero before column kb) and Tq from tq, X −= ((X V) T) Vᵀ, i.e. A ← (I − V Tᵀ Vᵀ) A (trans) or (I − V T Vᵀ) A.
 */
function applyGe(A: Arena, L: ReturnType<typeof layout>, T: number, xo: number, nr: number, kb: number, w: number): void {
  const f = A.f;
  f.fill(0, L.W, L.W + nr * w);
  A.nt(L.W, w, xo + kb, T, L.Vt + kb * T + kb, T, nr, w, T - kb);
  f.fill(0, L.Z, L.Z + nr * w);
  A.nn(L.Z, w, L.W, w, L.Tq, w, nr, w, w);
  compactV(f, L, T, kb, w, kb);
  A.nt(xo + kb, T, L.Z, w, L.Vb + kb * w, w, nr, T - kb, w);
}

/**
 * The block reflector of a tsqrt block (kb, w) applied to nr rows of the pair (Y from `yo`: the top tile, X from `xo`: the
 * bottom one), reflectors [e_j; v2_j] with V2's rows in Vt's rows kb…: Z = (Y_b + X V2_b) T, Y_b −= Z, X −= Z V2_bᵀ.
 */
function applyTs(A: Arena, L: ReturnType<typeof layout>, T: number, yo: number, xo: number, nr: number, kb: number, w: number): void {
  const f = A.f;
  A.neg(L.W, w, yo + kb, T, nr, w, false);
  A.nt(L.W, w, xo, T, L.Vt + kb * T, T, nr, w, T);
  f.fill(0, L.Z, L.Z + nr * w);
  A.nn(L.Z, w, L.W, w, L.Tq, w, nr, w, w);
  A.neg(yo + kb, T, L.Z, w, nr, w, true);
  compactV(f, L, T, kb, w, 0);
  A.nt(xo, T, L.Z, w, L.Vb, w, nr, T, w);
}

/** The T of the block of w reflectors in Vt's rows kb… (zero before column c0), taus at L.tau + tau0, into Tq (ld w). */
function blockT(A: Arena, L: ReturnType<typeof layout>, T: number, kb: number, w: number, c0: number, tau0: number): void {
  A.f.fill(0, L.G, L.G + w * w);
  A.nt(L.G, w, L.Vt + kb * T + c0, T, L.Vt + kb * T + c0, T, w, w, T - c0);
  larft(A.f, L.Tq, L.G, w, L.tau + tau0);
}

/** Tq (ld w, the T of block kb) into the T factors' columns kb…. */
function saveT(f: Float64Array, L: ReturnType<typeof layout>, T: number, kb: number, w: number): void {
  for (let a = 0; a < w; a++) for (let j = 0; j < w; j++) f[L.Tf + a * T + kb + j] = f[L.Tq + a * w + j]!;
}
/**
 * geqrt over X (the tile, transposed) in place: R and V as LAPACK keeps them, the T factors in Tf, Vt's rows the
 * explicit reflectors. Each block of ib columns is factored by sub-panels of IB2 (Householder by dot products and
 * axpys), each applied to the rest of its block as a block reflector, so only an IB2-wide part is level 2.
 */
function geqrt(A: Arena, L: ReturnType<typeof layout>, T: number, ib: number): void {
  const f = A.f, X = L.X;
  f.fill(0, L.Tf, L.Tf + ib * T);
  f.fill(0, L.Vt, L.Vt + T * T);
  for (let kb = 0; kb < T; kb += ib) {
    const w = Math.min(ib, T - kb);
    for (let sb = kb; sb < kb + w; sb += IB2) {
      const w2 = Math.min(IB2, kb + w - sb);
      for (let j = sb; j < sb + w2; j++) {
        const rj = X + j * T;
        const tau = reflector(A, rj + j, rj + j + 1, T - j - 1);
        f[L.tau + j - kb] = tau;
        if (tau !== 0) {
          for (let c = j + 1; c < sb + w2; c++) {
            const rc = X + c * T;
            const s = tau * (f[rc + j]! + A.dot(rj + j + 1, rc + j + 1, T - j - 1));
            f[rc + j] -= s;
            A.axpy(rc + j + 1, rj + j + 1, -s, T - j - 1);
          }
        }
        const vj = L.Vt + j * T;
        f[vj + j] = 1;
        for (let i = j + 1; i < T; i++) f[vj + i] = f[rj + i]!;
      }
      if (sb + w2 < kb + w) {
        blockT(A, L, T, sb, w2, sb, sb - kb);
        applyGe(A, L, T, X + (sb + w2) * T, kb + w - sb - w2, sb, w2);
      }
    }
    blockT(A, L, T, kb, w, kb, 0);
    saveT(f, L, T, kb, w);
    if (kb + w < T) {
      tq(f, L, T, kb, w, true);
      applyGe(A, L, T, X + (kb + w) * T, T - kb - w, kb, w);
    }
  }
}
/** Vt explicit (zeros, the unit diagonal, then v) from a geqrt tile loaded at Vt's place (R and V mixed, transposed). */
function explicitV(f: Float64Array, L: ReturnType<typeof layout>, T: number): void {
  for (let j = 0; j < T; j++) {
    const r = L.Vt + j * T;
    f.fill(0, r, r + j);
    f[r + j] = 1;
  }
}

/**
 * tsqrt over the top tile at Y (R, transposed; below its diagonal ignored) and the square at X: X becomes V2's rows,
 * Y the new R; sub-panels of IB2 as in geqrt.
 */
function tsqrt(A: Arena, L: ReturnType<typeof layout>, T: number, ib: number): void {
  const f = A.f, Y = L.Y, X = L.X;
  for (let c = 0; c < T; c++) f.fill(0, Y + c * T + c + 1, Y + c * T + T);
  f.fill(0, L.Tf, L.Tf + ib * T);
  for (let kb = 0; kb < T; kb += ib) {
    const w = Math.min(ib, T - kb);
    for (let sb = kb; sb < kb + w; sb += IB2) {
      const w2 = Math.min(IB2, kb + w - sb);
      for (let j = sb; j < sb + w2; j++) {
        const rj = X + j * T;
        const tau = reflector(A, Y + j * T + j, rj, T);
        f[L.tau + j - kb] = tau;
        if (tau === 0) continue;
        for (let c = j + 1; c < sb + w2; c++) {
          const rc = X + c * T;
          const s = tau * (f[Y + c * T + j]! + A.dot(rj, rc, T));
          f[Y + c * T + j] -= s;
          A.axpy(rc, rj, -s, T);
        }
      }
      f.copyWithin(L.Vt + sb * T, X + sb * T, X + (sb + w2) * T);
      if (sb + w2 < kb + w) {
        blockT(A, L, T, sb, w2, 0, sb - kb);
        applyTs(A, L, T, Y + (sb + w2) * T, X + (sb + w2) * T, kb + w - sb - w2, sb, w2);
      }
    }
    blockT(A, L, T, kb, w, 0, 0);
    saveT(f, L, T, kb, w);
    if (kb + w < T) {
      tq(f, L, T, kb, w, true);
      applyTs(A, L, T, Y + (kb + w) * T, X + (kb + w) * T, T - kb - w, kb, w);
    }
  }
}
// ---------------------------------------------------------------------------
// Checks

/** The tile side T and inner block ib of a call (T a multiple of 4, ib a multiple of 4 at most T). */
function sizes(params: RoutineParams): [number, number] {
  const { t, ib } = params;
  if (!Number.isSafeInteger(t) || (t as number) <= 0 || (t as number) % 4) throw new TypeError('routine parameter t must be a positive multiple of 4');
  if (!Number.isSafeInteger(ib) || (ib as number) <= 0 || (ib as number) % 4 || (ib as number) > (t as number)) {
    throw new TypeError('routine parameter ib must be a positive multiple of 4, at most t');
  }
  return [t as number, ib as number];
}

/** The reads that come from the input matrix itself (any box of it, untransposed), by index. */
function rawReads(params: RoutineParams, n: number): Set<number> {
  const r = params.raw;
  if (!Array.isArray(r) || !r.every((v) => Number.isSafeInteger(v) && v >= 0 && v < n)) throw new TypeError('routine parameter raw must list read indices');
  return new Set(r as number[]);
}

/** Each read a 2-d float region: a raw one at most T × T, a stored tile T × T float64 (`rows` rows: T, or ib for T factors). */
function checkReads(name: string, inputs: readonly RegionSpec[], raw: Set<number>, T: number, rows: readonly number[]): void {
  if (inputs.length !== rows.length) throw new TypeError(`${name} reads ${rows.length} regions`);
  inputs.forEach((r, i) => {
    const ok = r.shape.length === 2 && (raw.has(i)
      ? (r.dtype === 'float64' || r.dtype === 'float32') && r.shape[0]! <= T && r.shape[1]! <= T
      : r.dtype === 'float64' && r.shape[0] === rows[i] && r.shape[1] === T);
    if (!ok) throw new TypeError(`${name}'s read ${i} must be ${raw.has(i) ? `a float box of at most [${T}, ${T}]` : `a float64 [${rows[i]}, ${T}] region`}`);
  });
}

function checkWork(name: string, output: RegionSpec, T: number, ib: number): void {
  if (output.dtype !== 'float64' || output.shape.length !== 2 || output.shape[0] !== 2 * T + ib || output.shape[1] !== T) {
    throw new TypeError(`${name} writes a float64 [${2 * T + ib}, ${T}] workspace chunk`);
  }
}

// ---------------------------------------------------------------------------
// The routines

export const QR_TILE_ROUTINES: Readonly<Record<'qrgeqrt' | 'qrunmqr' | 'qrtsqrt' | 'qrtsmqr' | 'qreye' | 'qrcopy', Routine>> = {
  qrgeqrt: {
    check(params, inputs, output) {
      onlyParams(params, ['t', 'ib', 'raw']);
      const [T, ib] = sizes(params);
      checkReads('qrgeqrt', inputs, rawReads(params, 1), T, [T]);
      checkWork('qrgeqrt', output, T, ib);
    },
    run(params, [a], out) {
      const [T, ib] = sizes(params);
      const L = layout(T, ib), A = arena(L.end);
      load(A.f, L.X, T, a!, rawReads(params, 1).has(0));
      geqrt(A, L, T, ib);
      put(A.f, L.X, T, out, 0, T);
      clear(out, T, T);
      put(A.f, L.Tf, T, out, 2 * T, ib);
    },
  },
  qrunmqr: {
    check(params, inputs, output) {
      onlyParams(params, ['t', 'ib', 'raw', 'trans']);
      flag(params, 'trans');
      const [T, ib] = sizes(params);
      checkReads('qrunmqr', inputs, rawReads(params, 3), T, [T, T, ib]);
      checkWork('qrunmqr', output, T, ib);
    },
    run(params, [c, v, t], out) {
      const [T, ib] = sizes(params);
      const trans = params.trans === true;
      const L = layout(T, ib), A = arena(L.end), f = A.f;
      load(f, L.X, T, c!, rawReads(params, 3).has(0));
      load(f, L.Vt, T, v!, false);
      explicitV(f, L, T);
      load(f, L.Tf, T, t!, false);
      const nb = Math.ceil(T / ib);
      for (let s = 0; s < nb; s++) {
        const kb = (trans ? s : nb - 1 - s) * ib, w = Math.min(ib, T - kb);
        tq(f, L, T, kb, w, trans);
        applyGe(A, L, T, L.X, T, kb, w);
      }
      put(f, L.X, T, out, 0, T);
      clear(out, T, T + ib);
    },
  },
  qrtsqrt: {
    check(params, inputs, output) {
      onlyParams(params, ['t', 'ib', 'raw']);
      const [T, ib] = sizes(params);
      checkReads('qrtsqrt', inputs, rawReads(params, 2), T, [T, T]);
      checkWork('qrtsqrt', output, T, ib);
    },
    run(params, [r, a], out) {
      const [T, ib] = sizes(params);
      const raw = rawReads(params, 2);
      const L = layout(T, ib), A = arena(L.end);
      load(A.f, L.Y, T, r!, raw.has(0));
      load(A.f, L.X, T, a!, raw.has(1));
      tsqrt(A, L, T, ib);
      put(A.f, L.Y, T, out, 0, T);
      put(A.f, L.X, T, out, T, T);
      put(A.f, L.Tf, T, out, 2 * T, ib);
    },
  },
  qrtsmqr: {
    check(params, inputs, output) {
      onlyParams(params, ['t', 'ib', 'raw', 'trans']);
      flag(params, 'trans');
      const [T, ib] = sizes(params);
      checkReads('qrtsmqr', inputs, rawReads(params, 4), T, [T, T, T, ib]);
      checkWork('qrtsmqr', output, T, ib);
    },
    run(params, [a1, a2, v, t], out) {
      const [T, ib] = sizes(params);
      const trans = params.trans === true;
      const raw = rawReads(params, 4);
      const L = layout(T, ib), A = arena(L.end), f = A.f;
      load(f, L.Y, T, a1!, raw.has(0));
      load(f, L.X, T, a2!, raw.has(1));
      load(f, L.Vt, T, v!, false);
      load(f, L.Tf, T, t!, false);
      const nb = Math.ceil(T / ib);
      for (let s = 0; s < nb; s++) {
        const kb = (trans ? s : nb - 1 - s) * ib, w = Math.min(ib, T - kb);
        tq(f, L, T, kb, w, trans);
        applyTs(A, L, T, L.Y, L.X, T, kb, w);
      }
      put(f, L.Y, T, out, 0, T);
      put(f, L.X, T, out, T, T);
      clear(out, 2 * T, ib);
    },
  },
  qreye: {
    check(params, inputs, output) {
      onlyParams(params, ['t', 'ib', 'diag']);
      flag(params, 'diag');
      const [T, ib] = sizes(params);
      if (inputs.length) throw new TypeError('qreye reads nothing');
      checkWork('qreye', output, T, ib);
    },
    run(params, _inputs, out) {
      const T = out.shape[1]!;
      clear(out, 0, out.shape[0]!);
      if (params.diag === true) for (let i = 0; i < T; i++) (out.data as Float64Array)[i * out.strides[0]! + i * out.strides[1]!] = 1;
    },
  },
  qrcopy: {
    check(params, inputs, output) {
      onlyParams(params, ['tri']);
      flag(params, 'tri');
      const r = inputs[0];
      if (inputs.length !== 1 || r?.dtype !== 'float64' || r.shape.length !== 2) throw new TypeError('qrcopy reads one float64 stored tile');
      if ((output.dtype !== 'float64' && output.dtype !== 'float32') || output.shape.length !== 2
        || output.shape[0] !== r.shape[1] || output.shape[1] !== r.shape[0]) {
        throw new TypeError(`qrcopy writes a float [${r.shape[1]}, ${r.shape[0]}] tile (its read's transpose)`);
      }
    },
    run(params, [x], out) {
      const [c, r] = x!.shape as [number, number];
      const [s0, s1] = x!.strides as [number, number];
      const [o0, o1] = out.strides as [number, number];
      const d = x!.data, o = out.data;
      const tri = params.tri === true;
      for (let i = 0; i < r; i++) for (let j = 0; j < c; j++) o[i * o0 + j * o1] = tri && i > j ? 0 : d[j * s0 + i * s1]!;
    },
  },
};
