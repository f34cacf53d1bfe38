// Singular values of one small dense matrix, on the host where a stack of
// matrices is gathered (runtime/resolve.ts), for linalg.svdvals and the
// matrix norms of order 2, -2 and 'nuc'. One-sided Jacobi (Hestenes 1958;
// Demmel & Veselic 1992): rotate pairs of columns until every pair is
// orthogonal to working precision; the column norms are then the singular
// values, to high relative accuracy (small ones included, which
// bidiagonalisation does not promise). O(sweeps * m * n^2): for the matrix
// sizes a norm is taken of, not for factoring large arrays.
// In: a row-major m x n float64 matrix. Out: its min(m, n) singular values,
// largest first.

const MAX_SWEEPS = 60;

export class SvdError extends Error {
  constructor() {
    super('SVD did not converge');
    this.name = 'LinAlgError';
  }
}

/** Scales `cols` in place by a power of two so its largest magnitude is near 1 (squared norms neither overflow nor underflow); returns the factor. */
export function unitScale(cols: Float64Array): number {
  let big = 0;
  for (let i = 0; i < cols.length; i++) big = Math.max(big, Math.abs(cols[i]!));
  const scale = big === 0 ? 1 : 2 ** -Math.round(Math.log2(big));
  for (let i = 0; i < cols.length; i++) cols[i]! *= scale;
  return scale;
}

/**
 * One-sided Jacobi: rotates pairs of the c columns of `cols` (each of length
 * r, stored column by column) until every pair is orthogonal to working
 * precision; the same rotations go into `v` (c x c, column by column) when
 * given, so that the rotated columns are the input times v.
 */
export function orthogonalize(cols: Float64Array, r: number, c: number, v?: Float64Array): void {
  // LAPACK dgesvj's threshold, sqrt(r) eps: the rounding of the r products in gamma alone is
  // about that, so a pair at 1 eps may never get there (a 3x3 matrix of small integers stopped
  // at 1.1e-16 and rotated in vain until the sweeps ran out)
  const tol = Math.sqrt(r) * 2 ** -53;
  for (let sweep = 0; ; sweep++) {
    if (sweep === MAX_SWEEPS) throw new SvdError();
    let rotated = false;
    for (let p = 0; p < c - 1; p++) {
      for (let q = p + 1; q < c; q++) {
        let alpha = 0, beta = 0, gamma = 0;
        const P = p * r, Q = q * r;
        for (let i = 0; i < r; i++) {
          const x = cols[P + i]!, y = cols[Q + i]!;
          alpha += x * x; beta += y * y; gamma += x * y;
        }
        // the square roots apart: alpha * beta underflows for columns near 1e-160
        if (gamma === 0 || Math.abs(gamma) <= tol * Math.sqrt(alpha) * Math.sqrt(beta)) continue;
        const zeta = (beta - alpha) / (2 * gamma);
        const t = Math.sign(zeta || 1) / (Math.abs(zeta) + Math.sqrt(1 + zeta * zeta));
        const cs = 1 / Math.sqrt(1 + t * t), sn = cs * t;
        // a rotation too small to change a value does not count: another sweep would repeat it
        for (let i = 0; i < r; i++) {
          const x = cols[P + i]!, y = cols[Q + i]!;
          const x2 = cs * x - sn * y, y2 = sn * x + cs * y;
          if (x2 !== x || y2 !== y) rotated = true;
          cols[P + i] = x2; cols[Q + i] = y2;
        }
        if (v) {
          for (let i = 0; i < c; i++) {
            const x = v[p * c + i]!, y = v[q * c + i]!;
            v[p * c + i] = cs * x - sn * y; v[q * c + i] = sn * x + cs * y;
          }
        }
      }
    }
    if (!rotated) return;
  }
}

export function singularValues(a: ArrayLike<number>, m: number, n: number): Float64Array {
  const k = Math.min(m, n);
  if (k === 0) return new Float64Array(0);
  let finite = true;
  for (let i = 0; i < m * n; i++) {
    const v = a[i]!;
    if (Number.isNaN(v)) throw new SvdError(); // LAPACK does not converge on NaN, and NumPy raises
    if (!Number.isFinite(v)) finite = false;
  }
  if (!finite) return new Float64Array(k).fill(NaN); // NumPy gives NaN singular values for an infinite entry
  // Work on the columns of the taller orientation: c columns of length r, stored column by column.
  const tall = m >= n;
  const r = tall ? m : n, c = tall ? n : m;
  const cols = new Float64Array(r * c);
  for (let i = 0; i < m; i++) for (let j = 0; j < n; j++) {
    if (tall) cols[j * r + i] = a[i * n + j]!;
    else cols[i * r + j] = a[i * n + j]!;
  }
  const scale = unitScale(cols);
  orthogonalize(cols, r, c);
  const s = new Float64Array(c);
  for (let j = 0; j < c; j++) {
    let ss = 0;
    for (let i = 0; i < r; i++) ss += cols[j * r + i]! * cols[j * r + i]!;
    s[j] = Math.sqrt(ss) / scale;
  }
  return s.sort().reverse();
}
