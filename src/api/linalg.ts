// np.linalg: norms, solvers and decompositions of stacks of matrices over
// the last two axes. The factorisations (det, slogdet, inv, solve,
// cholesky, qr, eigh, eig, svd, lstsq) are one host node each
// (graph/node.ts `linalg`, computed by runtime/resolve.ts with
// numerics/linalg.ts's routines) holding every part of the result, which the
// parts here slice out: a decomposition is computed once per run however
// many of its parts are read. A square matrix over more than one chunk goes
// through the tiled LU instead (det, slogdet, inv, solve, scipy's lu:
// ./linalg_lu.ts). What is matrix products only (multi_dot,
// matrix_power, pinv's recombination) stays lazy matmul, run in kernels.
// In: tensors, JS data and NumPy's arguments (keywords in a trailing
// options object). Out: lazy Tensors, lists of them for NumPy's tuples.
// Errors: NumPy's LinAlgError (an Error named so) at the call when the
// shapes show it, when the run reaches it when only the values do.

import { isFloat } from '../graph/dtype.js';
import { LinAlgError, type LinalgSpec, SQUARE, linalgParts } from '../graph/linalg.js';
import * as G from '../graph/node.js';
import { broadcastShapes, hasUnknown, isUnknown, normalizeAxis, sizeOf } from '../graph/shape.js';
import { kwargs } from './bind.js';
import {
  type Operand, Tensor, abs, any, astype, broadcast_to, deferred, deferredAll, divide, equal, eye, greater, isnan, logical_and, logical_not, matmul,
  max, min, moveaxis, multiply, not_equal, power, reshape, sqrt, subtract, sum, swapaxes, toTensor, transpose, where, zeros,
} from './core.js';
import { compress } from './indexing.js';
import { spansChunks, tallSkinny, tileSize, tiledCholesky, tiledCholeskyUpper, tiledTriangularSolve, tsqr } from './linalg_tiled.js';
import { finiteChecked, luTileSize, oneChunkLu, tiledDet, tiledInv, tiledLuParts, tiledSlogdet, tiledSolve } from './linalg_lu.js';
import { qrTileSize, tiledQR } from './linalg_qr.js';

type Args = unknown[];
type NormOrd = number | 'fro' | 'f' | 'nuc' | null;

export { LinAlgError } from '../graph/linalg.js';

// ---------------------------------------------------------------------------
// Host factorisations and their parts

/** The parts of `spec` over a (and b): slices of one packed host node; while a length is known only at run time, one deferred node per part (each then computing the whole). */
function host(name: string, spec: LinalgSpec, a: Tensor, b?: Tensor): Tensor[] {
  const ops = b ? [a, b] : [a];
  let [m, n] = a.shape.slice(-2) as [number, number];
  const k = b ? b.shape[b.ndim - 1]! : 0;
  const stack = a.shape.slice(0, -2);
  if (ops.some((t) => hasUnknown(t.shape))) {
    // A square matrix's unknown side is its known one (stand-ins of another length would fail the check).
    if (SQUARE.has(spec.fn)) [m, n] = isUnknown(m) ? [n, n] : [m, m];
    const dtype = ops.every((t) => t.dtype === 'float32') ? 'float32' : 'float64';
    return linalgParts(spec, m, n, k).map((shape, i) => new Tensor(G.defer(name, ops.map((t) => t.node),
      (ins) => host(name, spec, new Tensor(ins[0]!), ins[1] && new Tensor(ins[1]))[i]!.node, dtype, [...stack, ...shape])));
  }
  const packed = G.linalg(spec, a.node, b?.node);
  const r = packed.shape.length - 1;
  let at = 0;
  return linalgParts(spec, m, n, k).map((shape) => {
    const len = sizeOf(shape);
    const piece = G.slice(packed, packed.shape.map((_, i) => (i === r ? at : 0)), packed.shape.map(() => 1), packed.shape.map((d, i) => (i === r ? len : d)));
    at += len;
    return new Tensor(G.reshape(piece, [...stack, ...shape]));
  });
}

/** NumPy's _assert_stacked_square, at the call. */
function stackedSquare(t: Tensor): void {
  if (t.ndim < 2) throw new LinAlgError(`${t.ndim}-dimensional array given. Array must be at least two-dimensional`);
  const [m, n] = t.shape.slice(-2) as [number, number];
  if (m !== n && !hasUnknown([m, n])) throw new LinAlgError('Last 2 dimensions of the array must be square');
}

/** Float dtypes stay; other inputs compute in float64 (NumPy's _commonType). */
const floating = (t: Tensor): Tensor => (isFloat(t.dtype) ? t : astype(t, 'float64'));
const mT = (t: Tensor): Tensor => swapaxes(t, -1, -2);
const EPS64 = 2 ** -52;
const epsOf = (t: Tensor): number => (t.dtype === 'float32' ? 2 ** -23 : EPS64);

/** np.linalg.solve's right-hand side: (..., M) only when b is 1-d (NumPy 2's rule), else (..., M, K); both broadcast to a's stack. */
function solveOperands(a: Tensor, b: Tensor): [Tensor, Tensor, boolean] {
  stackedSquare(a);
  const m = a.shape[a.ndim - 1]!;
  const vector = b.ndim === 1;
  if (b.ndim === 0) throw new RangeError('solve: Input operand 1 does not have enough dimensions (has 0, gufunc core with signature (m,m),(m,n)->(m,n) requires 2)');
  const bm = vector ? b.shape[0]! : b.shape[b.ndim - 2]!;
  if (bm !== m && !hasUnknown([bm, m])) {
    const sig = vector ? 'solve1: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature (m,m),(m)->(m)' : 'solve: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature (m,m),(m,n)->(m,n)';
    throw new RangeError(`${sig} (size ${bm} is different from ${m})`);
  }
  const b2 = vector ? reshape(b, [bm, 1]) : b;
  const stack = broadcastShapes(a.shape.slice(0, -2), b2.shape.slice(0, -2));
  return [broadcast_to(a, [...stack, m, m]), broadcast_to(b2, [...stack, bm, b2.shape[b2.ndim - 1]!]), vector];
}

// ---------------------------------------------------------------------------
// Norms

/** Vector norm of `f` along one axis (NumPy's linalg.norm with a single axis). */
function vectorNorm(f: Tensor, ord: NormOrd, axis: number, keepdims: boolean): Tensor {
  const o = { axis, keepdims };
  if (ord === null || ord === 2) return sqrt(sum(multiply(f, f), o));
  if (typeof ord === 'string') throw new RangeError(`Invalid norm order '${ord}' for vectors`);
  if (ord === Infinity) return max(abs(f), o);
  if (ord === -Infinity) return min(abs(f), o);
  if (ord === 0) return sum(astype(not_equal(f, 0), f.dtype), o);
  if (ord === 1) return sum(abs(f), o);
  return power(sum(power(abs(f), ord), o), 1 / ord);
}

/** Matrix norm of `f` over axes (row, col) (NumPy's linalg.norm with an axis pair). */
function matrixNorm(f: Tensor, ord: NormOrd, row: number, col: number, keepdims: boolean): Tensor {
  if (row === col) throw new RangeError('Duplicate axes given.');
  let r: Tensor;
  if (ord === null || ord === 'fro' || ord === 'f') r = sqrt(sum(multiply(f, f), { axis: [row, col] }));
  // NumPy's maxima start from 0 (an empty matrix has norm 0); its minima have no identity
  else if (ord === 1) r = max(sum(abs(f), { axis: row }), { axis: col > row ? col - 1 : col, initial: 0 });
  else if (ord === -1) r = min(sum(abs(f), { axis: row }), { axis: col > row ? col - 1 : col });
  else if (ord === Infinity) r = max(sum(abs(f), { axis: col }), { axis: row > col ? row - 1 : row, initial: 0 });
  else if (ord === -Infinity) r = min(sum(abs(f), { axis: col }), { axis: row > col ? row - 1 : row });
  else if (ord === 2 || ord === -2 || ord === 'nuc') {
    const s = new Tensor(G.svdvals(moveaxis(f, [row, col], [-2, -1]).node));
    r = ord === 2 ? max(s, { axis: -1, initial: 0 }) : ord === -2 ? min(s, { axis: -1 }) : sum(s, { axis: -1 });
  } else throw new RangeError('Invalid norm order for matrices.');
  if (!keepdims) return r;
  const shape = [...f.shape];
  shape[row] = 1; shape[col] = 1;
  return reshape(r, shape);
}

function norm(x: Operand, ...args: Args): Tensor {
  const o = kwargs<{ ord?: NormOrd; axis?: number | readonly number[] | null; keepdims?: boolean }>('linalg.norm', args, ['ord', 'axis', 'keepdims']);
  const t = toTensor(x);
  const f = floating(t);
  const ord = o.ord ?? null;
  const keepdims = o.keepdims ?? false;
  const nd = f.ndim;
  if (o.axis === undefined || o.axis === null) {
    if (ord === null || ((ord === 'fro' || ord === 'f') && nd === 2) || (ord === 2 && nd === 1)) {
      const r = sqrt(sum(multiply(f, f)));
      return keepdims ? reshape(r, f.shape.map(() => 1)) : r;
    }
  }
  const axes = o.axis === undefined || o.axis === null
    ? Array.from({ length: nd }, (_, i) => i)
    : (typeof o.axis === 'number' ? [o.axis] : [...o.axis]).map((a) => normalizeAxis(a, nd));
  if (axes.length === 1) return vectorNorm(f, ord, axes[0]!, keepdims);
  if (axes.length === 2) return matrixNorm(f, ord, axes[0]!, axes[1]!, keepdims);
  throw new RangeError('Improper number of dimensions to norm.');
}

// ---------------------------------------------------------------------------
// The functions

function inv(a: Operand, ...args: Args): Tensor {
  kwargs('linalg.inv', args, []);
  const t = toTensor(a);
  if (luTiled(t)) return tiledInv(luFloat(t), luTileSize(t.shape[0]!, t.node.chunk));
  return host('linalg.inv', { fn: 'inv', singular: 'raise' }, toTensor(a))[0]!;
}

/** One matrix product after another, NumPy's order of operations (its rounding). */
function chainOrder(dims: readonly number[]): number[][] {
  // NumPy's _multi_dot_matrix_chain_order: cost[i][j] and the split s[i][j].
  const n = dims.length - 1;
  const cost = Array.from({ length: n }, () => new Array<number>(n).fill(0));
  const split = Array.from({ length: n }, () => new Array<number>(n).fill(0));
  for (let l = 1; l < n; l++) {
    for (let i = 0; i < n - l; i++) {
      const j = i + l;
      cost[i]![j] = Infinity;
      for (let k = i; k < j; k++) {
        const q = cost[i]![k]! + cost[k + 1]![j]! + dims[i]! * dims[k + 1]! * dims[j + 1]!;
        if (q < cost[i]![j]!) { cost[i]![j] = q; split[i]![j] = k; }
      }
    }
  }
  return split;
}

export const linalg = {
  /** numpy.linalg.LinAlgError: the class of the errors below (an Error named 'LinAlgError'). */
  LinAlgError,
  /** np.linalg.svdvals: the singular values of each matrix over the last two axes, largest first. */
  svdvals(x: Operand, ...args: Args): Tensor {
    kwargs('linalg.svdvals', args, []);
    return new Tensor(G.svdvals(toTensor(x).node));
  },
  /** np.linalg.norm: vector norms along one axis, matrix norms over two (2, -2 and 'nuc' from the singular values). */
  norm,
  /** np.linalg.det: from the LU factors (partial pivoting); 0 for a singular matrix. */
  det(a: Operand, ...args: Args): Tensor {
    kwargs('linalg.det', args, []);
    const t = toTensor(a);
    if (luTiled(t)) return tiledDet(luFloat(t), luTileSize(t.shape[0]!, t.node.chunk));
    return host('linalg.det', { fn: 'det' }, toTensor(a))[0]!;
  },
  /** np.linalg.slogdet: [sign, log|det|] (sign 0 and -inf for a singular matrix). */
  slogdet(a: Operand, ...args: Args): Tensor[] {
    kwargs('linalg.slogdet', args, []);
    const t = toTensor(a);
    if (luTiled(t)) return tiledSlogdet(luFloat(t), luTileSize(t.shape[0]!, t.node.chunk));
    return host('linalg.slogdet', { fn: 'slogdet' }, toTensor(a));
  },
  /** np.linalg.inv: LU with partial pivoting; a singular matrix fails the run with LinAlgError('Singular matrix'). */
  inv,
  /**
   * np.linalg.tensorinv(a, ind=2): inv of a read as a (prod(a.shape[ind:]), -1)
   * matrix, shaped a.shape[ind:] + a.shape[:ind], the inverse of a for
   * tensordot(_, _, ind). NumPy's errors: ind <= 0, a matrix that is not
   * square, and a 0-d a (whose inverse NumPy reshapes with no shape at all).
   */
  tensorinv(a: Operand, ...args: Args): Tensor {
    const o = kwargs<{ ind?: number }>('linalg.tensorinv', args, ['ind']);
    const ind = o.ind ?? 2;
    if (typeof ind !== 'number' || !Number.isInteger(ind)) throw new TypeError('slice indices must be integers or None or have an __index__ method');
    if (ind <= 0) throw new RangeError('Invalid ind argument.');
    const t = toTensor(a);
    if (hasUnknown(t.shape)) throw new TypeError("linalg.tensorinv(): a's shape is known only at run time (after a boolean mask): execute() it first");
    const invShape = [...t.shape.slice(ind), ...t.shape.slice(0, ind)];
    if (!invShape.length) throw new TypeError('reshape() takes exactly 1 argument (0 given)');
    return reshape(inv(reshape(t, [sizeOf(t.shape.slice(ind)), -1])), invShape);
  },
  /**
   * np.linalg.tensorsolve(a, b, axes=None): x with tensordot(a, x, x.ndim) == b,
   * by solve on a read as a (prod(b.shape), prod(x.shape)) matrix, x shaped as
   * a's trailing axes (after `axes` are moved to the end, as NumPy moves them).
   */
  tensorsolve(a: Operand, b: Operand, ...args: Args): Tensor {
    const o = kwargs<{ axes?: readonly number[] | null }>('linalg.tensorsolve', args, ['axes']);
    let ta = toTensor(a);
    const tb = toTensor(b);
    if (hasUnknown(ta.shape) || hasUnknown(tb.shape)) return deferred('linalg.tensorsolve', [ta, tb], ([u, v]) => linalg.tensorsolve(u!, v!, o));
    if (o.axes !== undefined && o.axes !== null) {
      const all = ta.shape.map((_, i) => i);
      for (const k of o.axes) {
        const at = all.indexOf(k); // NumPy's list.remove: a negative axis is not in the list
        if (at < 0) throw new RangeError('list.remove(x): x not in list');
        all.splice(at, 1);
        all.push(k);
      }
      ta = transpose(ta, all);
    }
    const xShape = ta.shape.slice(tb.ndim);
    const n = sizeOf(xShape);
    if (ta.size !== n * n) throw new LinAlgError('Input arrays must satisfy the requirement prod(a.shape[b.ndim:]) == prod(a.shape[:b.ndim])');
    return reshape(linalg.solve(reshape(ta, [n, n]), reshape(tb, [-1])), xShape);
  },
  /** np.linalg.solve(a, b): b is (..., M) when 1-d, else (..., M, K) (NumPy 2); stacks broadcast. */
  solve(a: Operand, b: Operand, ...args: Args): Tensor {
    kwargs('linalg.solve', args, []);
    const [ta, tb, vector] = solveOperands(toTensor(a), toTensor(b));
    if (luTiled(ta) && tb.ndim === 2 && !hasUnknown(tb.shape) && tb.dtype !== 'float16') {
      // a matrix over more than one chunk: the tiled LU (./linalg_lu.ts); float32 when both are
      const dtype = ta.dtype === 'float32' && tb.dtype === 'float32' ? 'float32' : 'float64';
      const n = ta.shape[0]!;
      const x = tb.shape[1] === 0 ? zeros(tb.shape, { dtype }) : tiledSolve(astype(ta, dtype), astype(tb, dtype), luTileSize(n, ta.node.chunk));
      return vector ? reshape(x, [n]) : x;
    }
    const x = host('linalg.solve', { fn: 'solve' }, ta, tb)[0]!;
    return vector ? reshape(x, x.shape.slice(0, -1)) : x;
  },
  /**
   * np.linalg.cholesky: lower L with L @ L.T == a from a's lower triangle; upper=true gives U from the upper one.
   * A 2-d matrix of more than one chunk is factored over tiles, in tasks on the pool or the mesh (./linalg_tiled.ts); one chunk, or a stack, on the host.
   */
  cholesky(a: Operand, ...args: Args): Tensor {
    const o = kwargs<{ upper?: boolean }>('linalg.cholesky', args, [], ['upper']);
    const t = toTensor(a);
    const upper = o.upper ?? false;
    if (spansChunks(t) && !hasUnknown(t.shape) && t.shape[0] === t.shape[1] && t.dtype !== 'float16') {
      const f = floating(t);
      const T = tileSize(f.shape[0]!, f.node.chunk);
      return upper ? tiledCholeskyUpper(f, T) : tiledCholesky(f, T);
    }
    return host('linalg.cholesky', { fn: 'cholesky', upper }, t)[0]!;
  },
  /**
   * scipy.linalg.solve_triangular(a, b, trans=0, lower=False, unit_diagonal=False): x with a x = b (trans 0 or 'N'),
   * aᵀ x = b (1, 'T', or 2, 'C': real), reading only a's lower or upper triangle (and not its diagonal with
   * unit_diagonal), over tiles of a's chunks (./linalg_tiled.ts) in any case. b is (M,) or (M, K); float32 stays
   * float32 when both are, else float64. An exact zero on the diagonal fails the run with SciPy's LinAlgError
   * (the first zero the solve reaches: the last one of an upper triangle). check_finite is not checked.
   */
  solve_triangular(a: Operand, b: Operand, ...args: Args): Tensor {
    const o = kwargs<{ trans?: number | string; lower?: boolean; unit_diagonal?: boolean; overwrite_b?: boolean; debug?: unknown; check_finite?: boolean }>(
      'linalg.solve_triangular', args, ['trans', 'lower', 'unit_diagonal', 'overwrite_b', 'debug', 'check_finite']);
    return solveTriangular(toTensor(a), toTensor(b), o.trans ?? 0, o.lower ?? false, o.unit_diagonal ?? false);
  },
  /**
   * scipy.linalg.cho_solve((c, lower), b): x with A x = b from A's Cholesky factor c (lower L, or upper U), by
   * two triangular solves (L y = b, Lᵀ x = y; or Uᵀ y = b, U x = y), each tiled as solve_triangular is.
   */
  cho_solve(cAndLower: readonly [Operand, boolean], b: Operand, ...args: Args): Tensor {
    kwargs('linalg.cho_solve', args, ['overwrite_b', 'check_finite']);
    if (!Array.isArray(cAndLower) || cAndLower.length !== 2) throw new TypeError('cho_solve() takes (c, lower) as its first argument');
    const [cIn, lower] = cAndLower;
    const c = toTensor(cIn), tb = toTensor(b);
    if (c.ndim !== 2 || c.shape[0] !== c.shape[1]) throw new RangeError('The factored matrix c is not square.');
    if (c.shape[1] !== tb.shape[0]) throw new RangeError(`incompatible dimensions (${pyShape(c.shape)} and ${pyShape(tb.shape)})`);
    const y = solveTriangular(c, tb, lower ? 0 : 1, !!lower, false);
    return solveTriangular(c, y, lower ? 1 : 0, !!lower, false);
  },
  /**
   * np.linalg.qr: Householder; [Q, R] for mode 'reduced' (default) or 'complete', R alone for 'r'. A tall-skinny
   * matrix chunked by rows (at most 512 columns) is factored by TSQR over its chunks, except in mode 'complete'; any
   * other matrix over several chunks by PLASMA's tile QR (./linalg_qr.ts); their R's rows (Q's columns) may differ
   * in sign from NumPy's, as QR allows.
   */
  qr(a: Operand, ...args: Args): Tensor[] | Tensor {
    const o = kwargs<{ mode?: string }>('linalg.qr', args, ['mode']);
    const mode = o.mode ?? 'reduced';
    if (mode === 'raw' || mode === 'full' || mode === 'economic') throw new TypeError(`linalg.qr(): mode '${mode}' is not supported (use 'reduced', 'complete' or 'r')`);
    if (mode !== 'reduced' && mode !== 'complete' && mode !== 'r') throw new RangeError(`Unrecognized mode '${mode}'`);
    const t = toTensor(a);
    // a tall-skinny matrix chunked by rows: TSQR over its chunks (./linalg_tiled.ts), never gathered
    if (mode !== 'complete' && !hasUnknown(t.shape) && tallSkinny(t) && t.dtype !== 'float16') {
      const [q, r] = tsqr(floating(t));
      return mode === 'r' ? r : [q, r];
    }
    // any other matrix of more than one chunk: PLASMA's tile QR over tiles (./linalg_qr.ts), never gathered
    if (spansChunks(t) && !hasUnknown(t.shape) && t.dtype !== 'float16' && t.size > 0) {
      const f = floating(t);
      const parts = tiledQR(f, qrTileSize(t.shape[0]!, t.shape[1]!, f.node.chunk), mode);
      return mode === 'r' ? parts[0]! : parts;
    }
    const parts = host('linalg.qr', { fn: 'qr', mode }, t);
    return mode === 'r' ? parts[0]! : parts;
  },
  /** np.linalg.eigh: [w, v], eigenvalues ascending and eigenvectors as columns, of the symmetric matrix in the UPLO triangle (Jacobi). */
  eigh(a: Operand, ...args: Args): Tensor[] {
    const o = kwargs<{ UPLO?: string }>('linalg.eigh', args, ['UPLO']);
    return host('linalg.eigh', { fn: 'eigh', uplo: uplo(o.UPLO), vectors: true }, toTensor(a));
  },
  /** np.linalg.eigvalsh: the eigenvalues of eigh, ascending. */
  eigvalsh(a: Operand, ...args: Args): Tensor {
    const o = kwargs<{ UPLO?: string }>('linalg.eigvalsh', args, ['UPLO']);
    return host('linalg.eigvalsh', { fn: 'eigh', uplo: uplo(o.UPLO), vectors: false }, toTensor(a))[0]!;
  },
  /**
   * np.linalg.eig: [w, v], the eigenvalues in the order LAPACK's dgeev finds
   * them and unit eigenvectors as columns (numerics/eig.ts ports dgeev, so its
   * order and signs are NumPy's where they do not hang on rounding noise).
   * Real spectra only: a complex eigenvalue fails the run with LinAlgError,
   * as does a NaN or infinity (NumPy's check).
   */
  eig(a: Operand, ...args: Args): Tensor[] {
    kwargs('linalg.eig', args, []);
    return host('linalg.eig', { fn: 'eig', vectors: true }, toTensor(a));
  },
  /** np.linalg.eigvals: eig's w alone (dgeev without vectors: the same values in the same order). */
  eigvals(a: Operand, ...args: Args): Tensor {
    kwargs('linalg.eigvals', args, []);
    return host('linalg.eigvals', { fn: 'eig', vectors: false }, toTensor(a))[0]!;
  },
  /**
   * np.linalg.svd: [U, S, Vh] (one-sided Jacobi), S alone with compute_uv=false; hermitian=true is computed as a
   * general matrix. A tall-skinny matrix chunked by rows, with full_matrices=false or compute_uv=false: the SVD of
   * its TSQR R on the host (n × n), U = Q·U_R over the chunks.
   */
  svd(a: Operand, ...args: Args): Tensor[] | Tensor {
    const o = kwargs<{ full_matrices?: boolean; compute_uv?: boolean; hermitian?: boolean }>('linalg.svd', args, ['full_matrices', 'compute_uv', 'hermitian']);
    const t = toTensor(a);
    // a tall-skinny matrix chunked by rows: the SVD of TSQR's R (U = Q·U_R), nothing gathered
    if (!hasUnknown(t.shape) && tallSkinny(t) && t.dtype !== 'float16' && (o.compute_uv === false || o.full_matrices === false)) {
      const [q, r] = tsqr(floating(t));
      if (o.compute_uv === false) return new Tensor(G.svdvals(r.node));
      const [ur, s, vh] = host('linalg.svd', { fn: 'svd', full: false }, r) as [Tensor, Tensor, Tensor];
      return [matmul(q, ur), s, vh];
    }
    if (o.compute_uv === false) return new Tensor(G.svdvals(t.node));
    return host('linalg.svd', { fn: 'svd', full: o.full_matrices ?? true }, t);
  },
  /**
   * np.linalg.lstsq(a, b, rcond=None): [x, residuals, rank, s] through the SVD; residuals are empty unless rank == N < M.
   * A tall-skinny a chunked by rows is factored by TSQR first (./linalg_tiled.ts), any other a over several chunks by
   * the tiled QR (./linalg_qr.ts); then R x = Qᵀb is solved on the host.
   */
  lstsq(a: Operand, b: Operand, ...args: Args): Tensor[] {
    const o = kwargs<{ rcond?: number | null }>('linalg.lstsq', args, ['rcond']);
    const ta = toTensor(a);
    let tb = toTensor(b);
    if (hasUnknown(ta.shape) || hasUnknown(tb.shape)) return deferredAll('linalg.lstsq', [ta, tb], 4, ([u, v]) => linalg.lstsq(u!, v!, o));
    const vector = tb.ndim === 1;
    if (vector) tb = reshape(tb, [tb.shape[0]!, 1]);
    for (const t of [ta, tb]) if (t.ndim !== 2) throw new LinAlgError(`${t.ndim}-dimensional array given. Array must be two-dimensional`);
    const [m, n] = ta.shape as [number, number];
    if (tb.shape[0] !== m) throw new LinAlgError('Incompatible dimensions');
    // NumPy computes in float64 whatever the inputs, and so takes float64's eps
    let rcond = o.rcond ?? EPS64 * Math.max(m, n);
    if (rcond < 0) rcond = EPS64;
    const k = tb.shape[1]!;
    const tiled = !tallSkinny(ta) && spansChunks(ta) && ta.size > 0;
    if (((m >= n && tallSkinny(ta)) || tiled) && ta.dtype !== 'float16' && tb.dtype !== 'float16') {
      // a tall-skinny a chunked by rows: a = QR by TSQR, then the small problem R x = Qᵀb on the host (R has a's singular
      // values, so rcond and the rank are a's); the residuals ‖b − a x‖² in one more chunked pass, never gathered. Any
      // other a over several chunks: the tiled QR (./linalg_qr.ts), R (k × n, k = min(m, n)) and Qᵀb alone gathered.
      const [q, r] = tiled ? tiledQR(floating(ta), qrTileSize(m, n, ta.node.chunk), 'reduced') as [Tensor, Tensor] : tsqr(floating(ta));
      const [x, , rank, s] = host('linalg.lstsq', { fn: 'lstsq', rcond }, r, matmul(transpose(q), astype(tb, q.dtype))) as [Tensor, Tensor, Tensor, Tensor];
      const e = subtract(tb, matmul(ta, x));
      const res = sum(multiply(e, e), { axis: 0 });
      const residuals = m > n ? compress(broadcast_to(equal(rank, n), [k]), res, { axis: 0 }) : zeros([0], { dtype: res.dtype });
      return [vector ? reshape(x, [n]) : x, residuals, astype(rank, 'int32'), s];
    }
    const [x, res, rank, s] = host('linalg.lstsq', { fn: 'lstsq', rcond }, ta, tb) as [Tensor, Tensor, Tensor, Tensor];
    const rankInt = astype(rank, 'int32');
    const residuals = m > n ? compress(broadcast_to(equal(rank, n), [k]), res, { axis: 0 }) : zeros([0], { dtype: res.dtype });
    return [vector ? reshape(x, [n]) : x, residuals, rankInt, s];
  },
  /** np.linalg.pinv: V diag(1/s) U^T from svd's parts, singular values at most rcond * max(s) dropped. */
  pinv(a: Operand, ...args: Args): Tensor {
    const o = kwargs<{ rcond?: number | null; hermitian?: boolean; rtol?: number | null }>('linalg.pinv', args, ['rcond', 'hermitian'], ['rtol']);
    if (o.rcond !== undefined && o.rcond !== null && 'rtol' in o) throw new RangeError("`rtol` and `rcond` can't be both set.");
    const t = floating(toTensor(a));
    if (t.ndim < 2) throw new LinAlgError(`${t.ndim}-dimensional array given. Array must be at least two-dimensional`);
    const [m, n] = t.shape.slice(-2) as [number, number];
    const rcond = o.rcond ?? (o.rtol === undefined ? 1e-15 : o.rtol === null ? Math.max(m, n) * epsOf(t) : o.rtol);
    if (m === 0 || n === 0) return zeros([...t.shape.slice(0, -2), n, m], { dtype: t.dtype });
    const [u, s, vh] = host('linalg.pinv', { fn: 'svd', full: false }, t) as [Tensor, Tensor, Tensor];
    const cutoff = multiply(max(s, { axis: -1, keepdims: true, initial: 0 }), rcond);
    const sinv = where(greater(s, cutoff), divide(1, s), 0);
    return matmul(mT(vh), multiply(reshape(sinv, [...sinv.shape, 1]), mT(u)));
  },
  /** np.linalg.matrix_rank: how many singular values exceed tol (default max(s) * max(M, N) * eps). */
  matrix_rank(A: Operand, ...args: Args): Tensor {
    const o = kwargs<{ tol?: number | null; hermitian?: boolean; rtol?: number | null }>('linalg.matrix_rank', args, ['tol', 'hermitian'], ['rtol']);
    // the default tolerance scales with the matrix's size: built once the run knows it
    if (hasUnknown(toTensor(A).shape)) return deferred('linalg.matrix_rank', [toTensor(A)], ([u]) => linalg.matrix_rank(u!, o));
    if (o.tol != null && o.rtol != null) throw new RangeError("`tol` and `rtol` can't be both set.");
    const t = toTensor(A);
    if (t.ndim < 2) return astype(any(not_equal(t, 0)), 'int64');
    const s = new Tensor(G.svdvals(t.node));
    const [m, n] = t.shape.slice(-2) as [number, number];
    const tol = o.tol ?? multiply(max(s, { axis: -1, keepdims: true, initial: 0 }), o.rtol ?? Math.max(m, n) * epsOf(s));
    return sum(greater(s, tol), { axis: -1, dtype: 'int64' });
  },
  /** np.linalg.matrix_power: repeated squaring through matmul (NumPy's order); n < 0 inverts first, n == 0 gives identities. */
  matrix_power(a: Operand, n: number): Tensor {
    let t = toTensor(a);
    stackedSquare(t);
    if (!Number.isInteger(n)) throw new TypeError('exponent must be an integer');
    if (n === 0) return broadcast_to(eye(t.shape[t.ndim - 1]!, { dtype: t.dtype }), t.shape);
    if (n < 0) { t = inv(t); n = -n; }
    if (n === 1) return t;
    if (n === 2) return matmul(t, t);
    if (n === 3) return matmul(matmul(t, t), t);
    let z: Tensor | undefined, result: Tensor | undefined;
    for (; n > 0; n = Math.floor(n / 2)) {
      z = z === undefined ? t : matmul(z, z);
      if (n % 2) result = result === undefined ? z : matmul(result, z);
    }
    return result!;
  },
  /** np.linalg.multi_dot: the product of a chain in the order of fewest multiplications; a 1-d first or last operand is a row or column. */
  multi_dot(arrays: readonly Operand[], ...args: Args): Tensor {
    kwargs('linalg.multi_dot', args, [], ['out']);
    const n = arrays.length;
    if (n < 2) throw new RangeError('Expecting at least two arrays.');
    const ts = arrays.map(toTensor);
    if (n === 2) return matmul(ts[0]!, ts[1]!);
    const first = ts[0]!.ndim === 1, last = ts[n - 1]!.ndim === 1;
    if (first) ts[0] = reshape(ts[0]!, [1, ts[0]!.shape[0]!]);
    if (last) ts[n - 1] = reshape(ts[n - 1]!, [ts[n - 1]!.shape[0]!, 1]);
    for (const t of ts) if (t.ndim !== 2) throw new LinAlgError(`${t.ndim}-dimensional array given. Array must be two-dimensional`);
    let r: Tensor;
    if (n === 3) {
      // NumPy's _multi_dot_three: (AB)C or A(BC), whichever multiplies less
      const [a0, a1b0] = ts[0]!.shape as [number, number];
      const [b1c0, c1] = ts[2]!.shape as [number, number];
      const cost1 = a0 * b1c0 * (a1b0 + c1), cost2 = a1b0 * c1 * (a0 + b1c0);
      r = cost1 < cost2 ? matmul(matmul(ts[0]!, ts[1]!), ts[2]!) : matmul(ts[0]!, matmul(ts[1]!, ts[2]!));
    } else {
      const split = chainOrder([...ts.map((t) => t.shape[0]!), ts[n - 1]!.shape[1]!]);
      const build = (i: number, j: number): Tensor => (i === j ? ts[i]! : matmul(build(i, split[i]![j]!), build(split[i]![j]! + 1, j)));
      r = build(0, n - 1);
    }
    if (first && last) return reshape(r, []);
    if (first) return reshape(r, [r.shape[1]!]);
    if (last) return reshape(r, [r.shape[0]!]);
    return r;
  },
  /**
   * scipy.linalg.lu(a, permute_l=False, overwrite_a=False, check_finite=True, p_indices=False): [P, L, U] with a = P L U
   * (L unit lower, U upper), [P L, U] with permute_l, P as int32 row indices p (a = L[p] U) with p_indices (SciPy 1.11).
   * A one-chunk matrix of any shape in one task (LAPACK's partial pivoting); a square one over more chunks by the tiled
   * LU with tournament pivoting (./linalg_lu.ts). A singular matrix factors (U gets the zero pivot); check_finite fails
   * the run with ValueError (RangeError) 'array must not contain infs or NaNs'.
   */
  lu(a: Operand, ...args: Args): Tensor[] {
    const o = kwargs<{ permute_l?: boolean; overwrite_a?: boolean; check_finite?: boolean; p_indices?: boolean }>(
      'linalg.lu', args, ['permute_l', 'overwrite_a', 'check_finite', 'p_indices']);
    const t = toTensor(a);
    if (t.ndim !== 2) throw new RangeError('expected matrix');
    if (hasUnknown(t.shape)) return deferredAll('linalg.lu', [t], o.permute_l ? 2 : 3, ([u]) => linalg.lu(u!, o));
    let f = luFloat(t);
    const [m, n] = f.shape as [number, number];
    const k = Math.min(m, n);
    if (k === 0) {
      const [L, U] = [zeros([m, k], { dtype: f.dtype }), zeros([k, n], { dtype: f.dtype })];
      return o.permute_l ? [L, U] : [o.p_indices ? zeros([0], { dtype: 'int32' }) : zeros([0, 0], { dtype: f.dtype }), L, U];
    }
    if (o.check_finite ?? true) f = finiteChecked(f);
    // one chunk, any shape: one task; a square matrix over more than one chunk: the tiled LU
    if (!spansChunks(t)) return oneChunkLu(f, o.permute_l ?? false, o.p_indices ?? false);
    if (m !== n) throw new TypeError('linalg.lu(): a matrix over more than one chunk must be square (rechunk it into one chunk)');
    return tiledLuParts(f, luTileSize(n, t.node.chunk), o.permute_l ?? false, o.p_indices ?? false);
  },
  /** np.linalg.cond: s_max / s_min for p None or 2 (-2: the reverse), else norm(x, p) * norm(inv(x), p); NaN (a singular matrix's) becomes inf unless x holds a NaN. */
  cond(x: Operand, ...args: Args): Tensor {
    const o = kwargs<{ p?: NormOrd }>('linalg.cond', args, ['p']);
    const t = toTensor(x);
    const p = o.p ?? null;
    if (t.ndim >= 2 && sizeOf(t.shape.slice(-2)) === 0) throw new LinAlgError('cond is not defined on empty arrays');
    let r: Tensor;
    if (p === null || p === 2 || p === -2) {
      const s = new Tensor(G.svdvals(t.node));
      const hi = max(s, { axis: -1 }), lo = min(s, { axis: -1 });
      r = p === -2 ? divide(lo, hi) : divide(hi, lo);
    } else {
      stackedSquare(t);
      const f = floating(t);
      const invf = host('linalg.cond', { fn: 'inv', singular: 'nan' }, f)[0]!;
      r = multiply(norm(f, p, [-2, -1]), norm(invf, p, [-2, -1]));
    }
    return where(logical_and(isnan(r), logical_not(any(isnan(t), { axis: [-2, -1] }))), Infinity, r);
  },
};

/** Whether the LU-based functions take the tiled path (./linalg_lu.ts): a 2-d square matrix of known shape over more than one chunk. */
const luTiled = (t: Tensor): boolean => spansChunks(t) && !hasUnknown(t.shape) && t.shape[0] === t.shape[1] && t.dtype !== 'float16';
/** float32 stays float32, other dtypes compute in float64 (float16 in float32, as SciPy's lu). */
const luFloat = (t: Tensor): Tensor => (t.dtype === 'float32' || t.dtype === 'float64' ? t : astype(t, t.dtype === 'float16' ? 'float32' : 'float64'));

/** A shape as Python prints its tuple: (3,) or (3, 4). */
const pyShape = (s: readonly number[]): string => (s.length === 1 ? `(${s[0]},)` : `(${s.join(', ')})`);

/** scipy.linalg.solve_triangular's checks and casts, then the tiled solve. */
function solveTriangular(a: Tensor, b: Tensor, trans: number | string, lower: boolean, unit: boolean): Tensor {
  if (hasUnknown(a.shape) || hasUnknown(b.shape)) {
    return deferred('linalg.solve_triangular', [a, b], ([u, v]) => solveTriangular(u!, v!, trans, lower, unit));
  }
  if (a.ndim !== 2 || a.shape[0] !== a.shape[1]) throw new RangeError('expected square matrix');
  if (b.ndim < 1 || b.ndim > 2 || a.shape[0] !== b.shape[0]) throw new RangeError(`shapes of a ${pyShape(a.shape)} and b ${pyShape(b.shape)} are incompatible`);
  const t = ({ N: 0, T: 1, C: 2 } as Record<string, number>)[String(trans)] ?? trans;
  if (t !== 0 && t !== 1 && t !== 2) throw new RangeError(`illegal value in 7th argument of internal trtrs`);
  for (const x of [a, b]) if (x.dtype === 'float16') throw new TypeError('array type float16 is unsupported in linalg');
  const dtype = a.dtype === 'float32' && b.dtype === 'float32' ? 'float32' : 'float64';
  const n = a.shape[0]!;
  const b2 = astype(b.ndim === 1 ? reshape(b, [n, 1]) : b, dtype);
  if (n === 0 || b2.shape[1] === 0) return zeros(b.shape, { dtype });
  // aᵀ x = b is the solve with the transposed triangle (a lower triangle's transpose is upper)
  const m = t === 0 ? astype(a, dtype) : transpose(astype(a, dtype));
  const x = tiledTriangularSolve(m, b2, t === 0 ? lower : !lower, unit, tileSize(n, a.node.chunk));
  return b.ndim === 1 ? reshape(x, [n]) : x;
}

function uplo(u: string | undefined): 'L' | 'U' {
  if (u === undefined || u === 'L' || u === 'l') return 'L';
  if (u === 'U' || u === 'u') return 'U';
  throw new RangeError("UPLO argument must be 'L' or 'U'");
}
