// Dense linear algebra of one small matrix, on the host where a stack of
// matrices is gathered (runtime/resolve.ts), for np.linalg's solvers and
// decompositions: LU with partial pivoting (det, slogdet, inv, solve),
// Cholesky, Householder QR, the cyclic Jacobi eigenvalue method for
// symmetric matrices (eigh), one-sided Jacobi SVD with its vectors
// (svd, lstsq), extending ./svd.ts, and LAPACK's dgeev for the
// eigenvalues of a general matrix (eig, eigvals: ./eig.ts, which this
// file gives NumPy's errors). Each is what one tile-level step of
// a blocked factorisation computes (numpywren, DESIGN.md); the blocked
// programs over tiles come later. O(n^3) per matrix, in float64.
// In: row-major float64 matrices and a `LinalgSpec`. Out: the result's
// parts, each a row-major Float64Array, of the shapes graph/linalg.ts's
// `linalgParts` gives.

import { LinAlgError, type LinalgSpec } from '../graph/linalg.js';
import { geev } from './eig.js';
import { SvdError, orthogonalize, unitScale } from './svd.js';

/** The parts of `spec` for a (m x n) and, for solve and lstsq, b (m x k). */
export function linalgCompute(spec: LinalgSpec, a: Float64Array, m: number, n: number, b?: Float64Array, k = 0): Float64Array[] {
  switch (spec.fn) {
    case 'det': { const f = lu(a, n); return [Float64Array.of(f.singular ? 0 : f.sign * diagProduct(f.lu, n))]; }
    case 'slogdet': return slogdet(a, n);
    case 'inv': {
      const f = lu(a, n);
      if (f.singular && spec.singular === 'nan') return [new Float64Array(n * n).fill(NaN)];
      return [luSolve(luChecked(f), n, identity(n), n)];
    }
    case 'solve': return [luSolve(luChecked(lu(a, n)), n, b!, k)];
    case 'cholesky': return [cholesky(a, n, spec.upper)];
    case 'qr': return qr(a, m, n, spec.mode);
    case 'eigh': { const [w, v] = eigh(a, n, spec.uplo); return spec.vectors ? [w, v] : [w]; }
    case 'eig': return eig(a, n, spec.vectors);
    case 'svd': return svd(a, m, n, spec.full);
    case 'lstsq': return lstsq(a, m, n, b!, k, spec.rcond);
    default: return spec satisfies never;
  }
}

function identity(n: number): Float64Array {
  const e = new Float64Array(n * n);
  for (let i = 0; i < n; i++) e[i * n + i] = 1;
  return e;
}

function transpose(a: Float64Array, m: number, n: number): Float64Array {
  const t = new Float64Array(m * n);
  for (let i = 0; i < m; i++) for (let j = 0; j < n; j++) t[j * m + i] = a[i * n + j]!;
  return t;
}

interface LU { lu: Float64Array; perm: Int32Array; sign: number; singular: boolean }

/**
 * PA = LU with partial pivoting (LAPACK's getrf, right-looking): L unit lower
 * and U upper share one array. A pivot exactly zero marks the matrix
 * singular, as getrf's info > 0 does; its column is left as it is.
 */
function lu(a: Float64Array, n: number): LU {
  const f = Float64Array.from(a);
  const perm = Int32Array.from({ length: n }, (_, i) => i);
  let sign = 1, singular = false;
  for (let j = 0; j < n; j++) {
    let p = j, best = Math.abs(f[j * n + j]!);
    for (let i = j + 1; i < n; i++) {
      const v = Math.abs(f[i * n + j]!);
      if (v > best || (best !== best && v === v)) { best = v; p = i; }
    }
    if (p !== j) {
      for (let c = 0; c < n; c++) { const t = f[j * n + c]!; f[j * n + c] = f[p * n + c]!; f[p * n + c] = t; }
      const t = perm[j]!; perm[j] = perm[p]!; perm[p] = t;
      sign = -sign;
    }
    const d = f[j * n + j]!;
    if (d === 0) { singular = true; continue; }
    for (let i = j + 1; i < n; i++) {
      const l = (f[i * n + j]! /= d);
      if (l === 0) continue;
      for (let c = j + 1; c < n; c++) f[i * n + c]! -= l * f[j * n + c]!;
    }
  }
  return { lu: f, perm, sign, singular };
}

function luChecked(f: LU): LU {
  if (f.singular) throw new LinAlgError('Singular matrix');
  return f;
}

function diagProduct(f: Float64Array, n: number): number {
  let p = 1;
  for (let i = 0; i < n; i++) p *= f[i * n + i]!;
  return p;
}

/** sign and log|det| from the LU diagonal: a sum of logs, so large matrices do not overflow. */
function slogdet(a: Float64Array, n: number): Float64Array[] {
  const f = lu(a, n);
  if (f.singular) return [Float64Array.of(0), Float64Array.of(-Infinity)];
  let sign = f.sign, log = 0;
  for (let i = 0; i < n; i++) {
    const d = f.lu[i * n + i]!;
    if (d < 0) sign = -sign;
    log += Math.log(Math.abs(d));
  }
  return [Float64Array.of(sign), Float64Array.of(log)];
}

/** X with A X = B for B n x k, from A's LU: permute, forward with unit L, back with U. */
function luSolve(f: LU, n: number, b: Float64Array, k: number): Float64Array {
  const x = new Float64Array(n * k);
  for (let i = 0; i < n; i++) x.set(b.subarray(f.perm[i]! * k, f.perm[i]! * k + k), i * k);
  const u = f.lu;
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < i; j++) {
      const l = u[i * n + j]!;
      if (l !== 0) for (let c = 0; c < k; c++) x[i * k + c]! -= l * x[j * k + c]!;
    }
  }
  for (let i = n - 1; i >= 0; i--) {
    for (let j = i + 1; j < n; j++) {
      const v = u[i * n + j]!;
      if (v !== 0) for (let c = 0; c < k; c++) x[i * k + c]! -= v * x[j * k + c]!;
    }
    const d = u[i * n + i]!;
    for (let c = 0; c < k; c++) x[i * k + c]! /= d;
  }
  return x;
}

/**
 * Lower L with L L^T = A, reading A's lower triangle only (LAPACK's potrf
 * 'L'); `upper` gives U = L^T from A's upper triangle ('U'). A pivot that is
 * not positive is NumPy's LinAlgError; a NaN one gives NaNs, as NumPy's
 * LAPACK does.
 */
function cholesky(a: Float64Array, n: number, upper: boolean): Float64Array {
  const s = upper ? transpose(a, n, n) : a;
  const l = new Float64Array(n * n);
  for (let j = 0; j < n; j++) {
    let d = s[j * n + j]!;
    for (let c = 0; c < j; c++) d -= l[j * n + c]! * l[j * n + c]!;
    if (d <= 0) throw new LinAlgError('Matrix is not positive definite');
    const r = Math.sqrt(d);
    l[j * n + j] = r;
    for (let i = j + 1; i < n; i++) {
      let v = s[i * n + j]!;
      for (let c = 0; c < j; c++) v -= l[i * n + c]! * l[j * n + c]!;
      l[i * n + j] = v / r;
    }
  }
  return upper ? transpose(l, n, n) : l;
}

/**
 * Householder QR (LAPACK's geqrf + orgqr): reflectors H_j = I - tau v v^T
 * zero column j below the diagonal; Q = H_0 ... H_{p-1} applied to the first
 * columns of the identity, accumulated backwards. R's diagonal may be
 * negative, as LAPACK's is.
 */
function qr(a: Float64Array, m: number, n: number, mode: 'reduced' | 'complete' | 'r'): Float64Array[] {
  const p = Math.min(m, n);
  const r = Float64Array.from(a);
  const vs: Float64Array[] = [];
  const taus: number[] = [];
  for (let j = 0; j < p; j++) {
    let norm = 0;
    for (let i = j; i < m; i++) norm = Math.hypot(norm, r[i * n + j]!);
    const x0 = r[j * n + j]!;
    const v = new Float64Array(m - j);
    if (norm === 0) { vs.push(v); taus.push(0); continue; }
    const alpha = x0 >= 0 ? -norm : norm;
    v[0] = x0 - alpha;
    for (let i = j + 1; i < m; i++) v[i - j] = r[i * n + j]!;
    let vv = 0;
    for (let i = 0; i < v.length; i++) vv += v[i]! * v[i]!;
    const tau = vv === 0 ? 0 : 2 / vv;
    vs.push(v); taus.push(tau);
    for (let c = j; c < n; c++) {
      let dot = 0;
      for (let i = j; i < m; i++) dot += v[i - j]! * r[i * n + c]!;
      dot *= tau;
      for (let i = j; i < m; i++) r[i * n + c]! -= dot * v[i - j]!;
    }
    r[j * n + j] = alpha;
    for (let i = j + 1; i < m; i++) r[i * n + j] = 0;
  }
  const rows = mode === 'complete' ? m : p;
  const rOut = r.slice(0, rows * n);
  if (mode === 'r') return [rOut];
  const cols = mode === 'complete' ? m : p;
  const q = new Float64Array(m * cols);
  for (let i = 0; i < Math.min(m, cols); i++) q[i * cols + i] = 1;
  for (let j = p - 1; j >= 0; j--) {
    const v = vs[j]!, tau = taus[j]!;
    if (tau === 0) continue;
    for (let c = 0; c < cols; c++) {
      let dot = 0;
      for (let i = j; i < m; i++) dot += v[i - j]! * q[i * cols + c]!;
      dot *= tau;
      for (let i = j; i < m; i++) q[i * cols + c]! -= dot * v[i - j]!;
    }
  }
  return [q, rOut];
}

const EPS = 2 ** -53;
const MAX_SWEEPS = 60;

/**
 * Eigenvalues (ascending) and eigenvectors (columns) of the symmetric matrix
 * whose `uplo` triangle A holds: cyclic Jacobi (rotate each off-diagonal pair
 * to zero until every one is negligible against its diagonal), which gives
 * small eigenvalues to high relative accuracy and orthonormal vectors. A
 * NaN entry gives NaNs (NumPy's LAPACK returns values that mean nothing).
 */
function eigh(a0: Float64Array, n: number, uplo: 'L' | 'U'): [Float64Array, Float64Array] {
  const a = new Float64Array(n * n);
  let fro = 0;
  for (let i = 0; i < n; i++) for (let j = 0; j <= i; j++) {
    const v = uplo === 'L' ? a0[i * n + j]! : a0[j * n + i]!;
    if (Number.isNaN(v)) return [new Float64Array(n).fill(NaN), new Float64Array(n * n).fill(NaN)];
    a[i * n + j] = v; a[j * n + i] = v;
    fro = Math.hypot(fro, v);
  }
  const v = identity(n);
  const floor = fro * EPS * 2 ** -20;
  for (let sweep = 0; ; sweep++) {
    if (sweep === MAX_SWEEPS) throw new LinAlgError('Eigenvalues did not converge');
    let rotated = false;
    for (let p = 0; p < n - 1; p++) {
      for (let q = p + 1; q < n; q++) {
        const apq = a[p * n + q]!, app = a[p * n + p]!, aqq = a[q * n + q]!;
        if (Math.abs(apq) <= EPS * Math.sqrt(Math.abs(app)) * Math.sqrt(Math.abs(aqq)) || Math.abs(apq) <= floor) continue;
        rotated = true;
        const theta = (aqq - app) / (2 * apq);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(1 + theta * theta));
        const c = 1 / Math.sqrt(1 + t * t), s = c * t;
        for (let r = 0; r < n; r++) {
          const x = a[r * n + p]!, y = a[r * n + q]!;
          a[r * n + p] = c * x - s * y; a[r * n + q] = s * x + c * y;
        }
        for (let r = 0; r < n; r++) {
          const x = a[p * n + r]!, y = a[q * n + r]!;
          a[p * n + r] = c * x - s * y; a[q * n + r] = s * x + c * y;
        }
        a[p * n + p] = app - t * apq; a[q * n + q] = aqq + t * apq;
        a[p * n + q] = 0; a[q * n + p] = 0;
        for (let r = 0; r < n; r++) {
          const x = v[r * n + p]!, y = v[r * n + q]!;
          v[r * n + p] = c * x - s * y; v[r * n + q] = s * x + c * y;
        }
      }
    }
    if (!rotated) break;
  }
  const order = Array.from({ length: n }, (_, i) => i).sort((i, j) => a[i * n + i]! - a[j * n + j]!);
  const w = Float64Array.from(order, (i) => a[i * n + i]!);
  const vecs = new Float64Array(n * n);
  for (let r = 0; r < n; r++) order.forEach((i, c) => { vecs[r * n + c] = v[r * n + i]!; });
  return [w, vecs];
}

/**
 * w (and v) of a general matrix through ./eig.ts, with NumPy's errors:
 * a NaN or infinity (NumPy's _assert_finite), a complex eigenvalue (NumPy
 * would return complex arrays, which Tessera cannot hold), and QR
 * iterations that do not converge.
 */
function eig(a: Float64Array, n: number, vectors: boolean): Float64Array[] {
  for (let i = 0; i < a.length; i++) if (!Number.isFinite(a[i]!)) throw new LinAlgError('Array must not contain infs or NaNs');
  const r = geev(a, n, vectors);
  if (r.ok) return r.v ? [r.w, r.v] : [r.w];
  if (r.reason === 'convergence') throw new LinAlgError('Eigenvalues did not converge');
  throw new LinAlgError(`linalg.${vectors ? 'eig' : 'eigvals'}: the matrix has complex eigenvalues, and Tessera has no complex dtype`);
}

/**
 * U, S, Vh of a (m x n): one-sided Jacobi (./svd.ts) on the taller
 * orientation, accumulating the rotations into V; U's columns are the
 * rotated columns over their norms, completed to an orthonormal basis where
 * a singular value is zero or `full` asks for more columns than there are
 * singular values.
 */
export function svd(a: Float64Array, m: number, n: number, full: boolean): Float64Array[] {
  if (m < n) {
    const [u, s, vh] = svd(transpose(a, m, n), n, m, full) as [Float64Array, Float64Array, Float64Array];
    // A^T = U' S V'^T, so A = V' S U'^T: U = V' = vh'^T, Vh = U'^T.
    return [transpose(vh, m, m), s, transpose(u, n, full ? n : m)];
  }
  // m >= n from here: n columns of length m, stored column by column.
  const cols = transpose(a, m, n);
  const v = identity(n); // column-major: column j at j*n
  const uCols = full ? m : n;
  let finite = true;
  for (let i = 0; i < m * n; i++) {
    if (Number.isNaN(cols[i]!)) throw new SvdError();
    if (!Number.isFinite(cols[i]!)) finite = false;
  }
  if (!finite) return [new Float64Array(m * uCols).fill(NaN), new Float64Array(n).fill(NaN), new Float64Array(n * n).fill(NaN)];
  const scale = unitScale(cols);
  orthogonalize(cols, m, n, v);
  const norms = Float64Array.from({ length: n }, (_, j) => {
    let ss = 0;
    for (let i = 0; i < m; i++) ss += cols[j * m + i]! * cols[j * m + i]!;
    return Math.sqrt(ss);
  });
  const order = Array.from({ length: n }, (_, i) => i).sort((i, j) => norms[j]! - norms[i]!);
  const s = Float64Array.from(order, (j) => norms[j]! / scale);
  // U column by column (basis[c] is column c), then completed.
  const basis: Float64Array[] = [];
  const missing: number[] = [];
  order.forEach((j, c) => {
    const nj = norms[j]!;
    if (nj === 0) { basis.push(new Float64Array(m)); missing.push(c); return; }
    basis.push(Float64Array.from({ length: m }, (_, i) => cols[j * m + i]! / nj));
  });
  for (let c = n; c < uCols; c++) { basis.push(new Float64Array(m)); missing.push(c); }
  complete(basis, missing, m);
  const u = new Float64Array(m * uCols);
  for (let c = 0; c < uCols; c++) for (let i = 0; i < m; i++) u[i * uCols + c] = basis[c]![i]!;
  const vh = new Float64Array(n * n);
  order.forEach((j, r) => { for (let i = 0; i < n; i++) vh[r * n + i] = v[j * n + i]!; });
  return [u, s, vh];
}

/** Fills the `missing` columns of `basis` with unit vectors orthogonal to the rest (Gram-Schmidt, twice, over e_0, e_1, ...). */
function complete(basis: Float64Array[], missing: readonly number[], m: number): void {
  const set = new Set(missing);
  let e = 0;
  for (const c of missing) {
    for (; ; e++) {
      if (e >= m) throw new Error('internal: no basis vector left to complete U');
      const x = new Float64Array(m);
      x[e] = 1;
      for (let pass = 0; pass < 2; pass++) {
        basis.forEach((b, j) => {
          if (j === c || (set.has(j) && j > c)) return;
          let d = 0;
          for (let i = 0; i < m; i++) d += b[i]! * x[i]!;
          for (let i = 0; i < m; i++) x[i]! -= d * b[i]!;
        });
      }
      let nx = 0;
      for (let i = 0; i < m; i++) nx += x[i]! * x[i]!;
      nx = Math.sqrt(nx);
      if (nx > 0.5) { for (let i = 0; i < m; i++) x[i]! /= nx; basis[c] = x; e++; break; }
    }
  }
}

/**
 * Least squares through the SVD (as LAPACK's gelsd): singular values at most
 * rcond * s_max count as zero (the API resolves NumPy's defaults for rcond).
 * The residuals are the squared norms of b - a x per column.
 */
function lstsq(a: Float64Array, m: number, n: number, b: Float64Array, k: number, rcond: number): Float64Array[] {
  const p = Math.min(m, n);
  const [u, s, vh] = svd(a, m, n, false) as [Float64Array, Float64Array, Float64Array];
  const cutoff = rcond * (s[0] ?? 0);
  let rank = 0;
  const x = new Float64Array(n * k);
  for (let j = 0; j < p; j++) {
    if (!(s[j]! > cutoff)) continue;
    rank++;
    for (let c = 0; c < k; c++) {
      let d = 0;
      for (let i = 0; i < m; i++) d += u[i * p + j]! * b[i * k + c]!;
      d /= s[j]!;
      for (let i = 0; i < n; i++) x[i * k + c]! += vh[j * n + i]! * d;
    }
  }
  const res = new Float64Array(k);
  for (let i = 0; i < m; i++) {
    for (let c = 0; c < k; c++) {
      let r = b[i * k + c]!;
      for (let j = 0; j < n; j++) r -= a[i * n + j]! * x[j * k + c]!;
      res[c]! += r * r;
    }
  }
  return [x, res, Float64Array.of(rank), s];
}
