// sklearn.decomposition: PCA and TruncatedSVD. In: X (n_samples,
// n_features) with a modest number of features. Out: components_,
// explained variances, singular values, mean_, and projections.
//
// Both read X in two chunked passes. The first factors it by one of two
// solvers, chosen as scikit-learn's 'auto' chooses between its exact SVD
// and its randomized one (exact where X is small, or most components are
// asked for, or svd_solver is 'full'):
//   exact   a tall-skinny QR (TSQR): each block of rows' R factor (the
//           `tsqr` routine, d × d numbers per block), the stack of them
//           factored again on the host, then the SVD of the d × d R,
//           whose singular values and right vectors are X's; QR never
//           squares X's condition number, so small components keep their
//           precision, as with scikit-learn's full SVD;
//   fast    the Gram matrix of the rows — the matrix product's reduction
//           over row chunks — and its symmetric eigendecomposition on the
//           host: eigenvalues are the squared singular values. Faster, and
//           more accurate than the randomized solver it stands for, but
//           components whose variance is below ~1e-8 of the largest lose
//           relative precision.
// The second pass finds each component's sign as scikit-learn's svd_flip
// does (the largest |u| entry positive), from the column maxima and minima
// of X·V.

import * as mt from '../api/tensor.js';
import * as G from '../graph/node.js';
import { stackedR } from '../numerics/tsqr.js';
import { type Input, checkFinite, checkX, fitted, fittedInput, free, numbers, options, valueError } from './base.js';
import { blockRows } from './cluster.js';

/** scikit-learn's 'auto' rule: its exact SVD for small data or most of the components, else the randomized one. */
function exactSolver(solver: string | undefined, n: number, d: number, k: number | null): boolean {
  if (solver === 'full') return true;
  if (solver === 'randomized' || solver === 'arpack') return false;
  return Math.max(n, d) <= 500 || k === null || !Number.isInteger(k) || k >= 0.8 * Math.min(n, d);
}

/** Singular values squared (largest first) and right singular vectors of X (centered on `mean`), by TSQR. */
async function tsqrEigen(x: mt.Tensor, mean: mt.Tensor | null): Promise<{ w: number[]; V: number[][] }> {
  const [n, d] = x.shape as [number, number];
  const L = blockRows(x), B = Math.ceil(n / L);
  const calls = Array.from({ length: B }, (_, j): G.RoutineCall => ({
    routine: 'tsqr', params: { d, centered: !!mean }, chunk: j,
    reads: [{ input: 0, box: [[j * L, Math.min(n, (j + 1) * L)], [0, d]] }, ...(mean ? [{ input: 1, box: [[0, d]] as [number, number][] }] : [])],
  }));
  const xs = x.dtype === 'float64' ? x : mt.astype(x, 'float64');
  const parts = new mt.Tensor(G.routine('pca.tsqr', [xs.node, ...(mean ? [mean.node] : [])], calls, 'float64', [B, d * d], [1, d * d]));
  const pv = await numbers(parts);
  free(parts);
  const R = stackedR(Array.from({ length: B }, (_, b) => pv.slice(b * d * d, (b + 1) * d * d)), d);
  const [, s, vh] = mt.linalg.svd(mt.tensor(R).reshape([d, d])) as [mt.Tensor, mt.Tensor, mt.Tensor];
  const [sv, vv] = [await numbers(s), await numbers(vh)];
  return { w: sv.map((v) => v * v), V: Array.from({ length: d }, (_, i) => vv.slice(i * d, (i + 1) * d)) };
}

/** Eigen-pairs of the Gram matrix, largest first: values (length d) and vectors (d × d, columns). */
async function gramEigen(x: mt.Tensor): Promise<{ w: number[]; V: number[][] }> {
  const d = x.shape[1]!;
  const [vals, vecs] = mt.linalg.eigh(mt.matmul(mt.transpose(x), x));
  const [w, v] = [await numbers(vals!), await numbers(vecs!)];
  const order = w.map((_, i) => i).reverse();
  return { w: order.map((i) => Math.max(0, w[i]!)), V: order.map((i) => Array.from({ length: d }, (_, r) => v[r * d + i]!)) };
}

/** svd_flip (u-based): each component's sign making the largest |x·v| over the rows positive. */
async function flipSigns(x: mt.Tensor, comps: number[][]): Promise<number[][]> {
  const k = comps.length, d = x.shape[1]!;
  const Vt = mt.tensor(Float64Array.from(comps.flat())).reshape([k, d]);
  const P = mt.matmul(x, mt.transpose(Vt));
  const [hi, lo] = [await numbers(mt.max(P, { axis: 0 })), await numbers(mt.min(P, { axis: 0 }))];
  return comps.map((c, j) => (hi[j]! >= -lo[j]! ? c : c.map((v) => -v)));
}

export interface PCAOptions {
  n_components?: number | null | 'mle';
  copy?: boolean;
  whiten?: boolean;
  svd_solver?: 'auto' | 'full' | 'arpack' | 'randomized';
  tol?: number;
  iterated_power?: number | 'auto';
  n_oversamples?: number;
  power_iteration_normalizer?: string;
  random_state?: number;
}

/** sklearn.decomposition.PCA: the principal axes of the centered data. */
export class PCA {
  readonly n_components: number | null;
  readonly whiten: boolean;
  readonly svd_solver: string;
  components_?: mt.Tensor;
  explained_variance_?: mt.Tensor;
  explained_variance_ratio_?: mt.Tensor;
  singular_values_?: mt.Tensor;
  mean_?: mt.Tensor;
  n_components_?: number;
  noise_variance_?: number;
  n_samples_?: number;
  n_features_in_?: number;

  constructor(opts: PCAOptions = {}) {
    const o = options('PCA', opts, {
      n_components: null as number | null | 'mle', copy: true, whiten: false, svd_solver: 'auto' as PCAOptions['svd_solver'], tol: 0,
      iterated_power: 'auto' as number | 'auto', n_oversamples: 10, power_iteration_normalizer: 'auto', random_state: undefined as number | undefined,
    });
    if (o.n_components === 'mle') throw valueError("PCA: n_components='mle' (Minka's choice) is not supported by learn yet");
    if (!['auto', 'full', 'arpack', 'randomized'].includes(o.svd_solver!)) throw valueError(`Unrecognized svd_solver='${o.svd_solver}'`);
    this.n_components = o.n_components; this.whiten = o.whiten; this.svd_solver = o.svd_solver!;
  }

  async fit(X: Input): Promise<this> {
    const x = checkX(X, 'PCA', { minSamples: 1 });
    const [n, d] = x.shape as [number, number];
    await checkFinite([[x, 'X']], 'PCA');
    const m = Math.min(n, d);
    let k = this.n_components ?? m;
    if (typeof k === 'number' && Number.isInteger(k) && (k < 0 || k > m)) {
      throw valueError(`n_components=${k} must be between 0 and min(n_samples, n_features)=${m} with svd_solver='full'`);
    }
    const mean = await mt.mean(x, { axis: 0 }).execute();
    const xc = mt.subtract(x, mean);
    const { w, V } = exactSolver(this.svd_solver, n, d, this.n_components) ? await tsqrEigen(x, mean) : await gramEigen(xc);
    const ev = w.slice(0, m).map((v) => v / (n - 1));
    const total = ev.reduce((a, b) => a + b, 0);
    const ratio = ev.map((v) => v / total);
    if (!Number.isInteger(k)) {
      if (!(k > 0 && k < 1)) throw valueError(`n_components=${k} must be a number of components or a fraction of variance in (0, 1)`);
      let acc = 0, i = 0;
      while (i < m - 1 && acc + ratio[i]! <= k) acc += ratio[i++]!;
      k = i + 1;
    }
    const comps = await flipSigns(xc, V.slice(0, k));
    this.components_ = mt.tensor(Float64Array.from(comps.flat())).reshape([k, d]);
    this.explained_variance_ = mt.tensor(Float64Array.from(ev.slice(0, k)));
    this.explained_variance_ratio_ = mt.tensor(Float64Array.from(ratio.slice(0, k)));
    this.singular_values_ = mt.tensor(Float64Array.from(w.slice(0, k), Math.sqrt));
    this.mean_ = mean;
    this.n_components_ = k;
    this.noise_variance_ = k < m ? ev.slice(k).reduce((a, b) => a + b, 0) / (m - k) : 0;
    this.n_samples_ = n;
    this.n_features_in_ = d;
    return this;
  }

  async transform(X: Input): Promise<mt.Tensor> {
    const C = fitted(this.components_, 'PCA');
    const x = fittedInput(X, this.n_features_in_, 'PCA');
    const y = mt.matmul(mt.subtract(x, this.mean_!), mt.transpose(C));
    return (this.whiten ? mt.divide(y, mt.sqrt(this.explained_variance_!)) : y).execute();
  }

  async fit_transform(X: Input): Promise<mt.Tensor> { return (await this.fit(X)).transform(X); }

  async inverse_transform(Y: Input): Promise<mt.Tensor> {
    const C = fitted(this.components_, 'PCA');
    let y = checkX(Y, 'PCA');
    if (this.whiten) y = mt.multiply(y, mt.sqrt(this.explained_variance_!));
    return mt.add(mt.matmul(y, C), this.mean_!).execute();
  }
}

export interface TruncatedSVDOptions {
  n_components?: number; algorithm?: 'randomized' | 'arpack'; n_iter?: number; n_oversamples?: number;
  power_iteration_normalizer?: string; random_state?: number; tol?: number;
}

/** sklearn.decomposition.TruncatedSVD: the leading singular vectors of X itself (not centered). */
export class TruncatedSVD {
  readonly n_components: number;
  readonly algorithm: 'randomized' | 'arpack';
  components_?: mt.Tensor;
  explained_variance_?: mt.Tensor;
  explained_variance_ratio_?: mt.Tensor;
  singular_values_?: mt.Tensor;
  n_features_in_?: number;

  constructor(opts: TruncatedSVDOptions = {}) {
    const o = options('TruncatedSVD', opts, {
      n_components: 2, algorithm: 'randomized' as 'randomized' | 'arpack', n_iter: 5, n_oversamples: 10, power_iteration_normalizer: 'auto',
      random_state: undefined as number | undefined, tol: 0,
    });
    this.n_components = o.n_components; this.algorithm = o.algorithm;
  }

  async fit(X: Input): Promise<this> { await this.fit_transform(X); return this; }

  async fit_transform(X: Input): Promise<mt.Tensor> {
    const x = checkX(X, 'TruncatedSVD');
    const d = x.shape[1]!, k = this.n_components;
    if (!Number.isInteger(k) || k < 1 || k > d) throw valueError(`n_components(${k}) must be <= n_features(${d}).`);
    await checkFinite([[x, 'X']], 'TruncatedSVD');
    const n = x.shape[0]!;
    const { w, V } = exactSolver(this.algorithm === 'arpack' ? 'arpack' : 'auto', n, d, k) ? await tsqrEigen(x, null) : await gramEigen(x);
    const comps = await flipSigns(x, V.slice(0, k));
    this.components_ = mt.tensor(Float64Array.from(comps.flat())).reshape([k, d]);
    const Xt = await mt.matmul(x, mt.transpose(this.components_)).execute();
    this.explained_variance_ = await mt.var(Xt, { axis: 0 }).execute();
    this.explained_variance_ratio_ = await mt.divide(this.explained_variance_, mt.sum(mt.var(x, { axis: 0 }))).execute();
    this.singular_values_ = mt.tensor(Float64Array.from(w.slice(0, k), Math.sqrt));
    this.n_features_in_ = d;
    return Xt;
  }

  async transform(X: Input): Promise<mt.Tensor> {
    const C = fitted(this.components_, 'TruncatedSVD');
    const x = fittedInput(X, this.n_features_in_, 'TruncatedSVD');
    return mt.matmul(x, mt.transpose(C)).execute();
  }

  async inverse_transform(Y: Input): Promise<mt.Tensor> {
    const C = fitted(this.components_, 'TruncatedSVD');
    return mt.matmul(checkX(Y, 'TruncatedSVD'), C).execute();
  }
}
