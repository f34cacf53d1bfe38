// What a graph needs of np.linalg's host computations (numerics/linalg.ts):
// which computation a `linalg` node runs (`LinalgSpec`), the shapes of its
// result's parts (`linalgParts`), so the graph infers them when a call is
// built, which functions take square matrices, and NumPy's LinAlgError.

/** NumPy's numpy.linalg.LinAlgError: an Error named so. */
export class LinAlgError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LinAlgError';
  }
}

/** Which host computation a `linalg` node runs, with NumPy's options. */
export type LinalgSpec =
  | { fn: 'det' } | { fn: 'slogdet' } | { fn: 'solve' }
  /** nan: a singular matrix's inverse is NaNs, not an error (np.linalg.cond's use of inv) */
  | { fn: 'inv'; singular: 'raise' | 'nan' }
  | { fn: 'cholesky'; upper: boolean }
  | { fn: 'qr'; mode: 'reduced' | 'complete' | 'r' }
  | { fn: 'eigh'; uplo: 'L' | 'U'; vectors: boolean }
  /** a general matrix's eigenvalues (eigvals) and, with `vectors`, its right eigenvectors (eig) */
  | { fn: 'eig'; vectors: boolean }
  | { fn: 'svd'; full: boolean }
  | { fn: 'lstsq'; rcond: number };

/** Functions whose matrix must be square. */
export const SQUARE: ReadonlySet<LinalgSpec['fn']> = new Set(['det', 'slogdet', 'inv', 'solve', 'cholesky', 'eigh', 'eig']);

/**
 * The shapes of the parts of one matrix's result: a is m x n, the right-hand
 * side (solve, lstsq) m x k. lstsq's parts: x, the residuals (k; the API keeps
 * them only where NumPy does), the rank, the singular values.
 */
export function linalgParts(spec: LinalgSpec, m: number, n: number, k = 0): number[][] {
  const p = Math.min(m, n);
  switch (spec.fn) {
    case 'det': return [[]];
    case 'slogdet': return [[], []];
    case 'inv': return [[n, n]];
    case 'solve': return [[n, k]];
    case 'cholesky': return [[n, n]];
    case 'qr': return spec.mode === 'r' ? [[p, n]] : spec.mode === 'complete' ? [[m, m], [m, n]] : [[m, p], [p, n]];
    case 'eigh': return spec.vectors ? [[n], [n, n]] : [[n]];
    case 'eig': return spec.vectors ? [[n], [n, n]] : [[n]];
    case 'svd': return spec.full ? [[m, m], [p], [n, n]] : [[m, p], [p], [p, n]];
    case 'lstsq': return [[n, k], [k], [], [p]];
    default: return spec satisfies never;
  }
}
