// sklearn.linear_model's least squares: LinearRegression and Ridge. In: X
// (n_samples, n_features), y (n_samples,) or (n_samples, n_targets), and
// sample weights. Out: coef_ and intercept_ as tensors, predictions.
//
// Row-partitioned normal equations: one pass over the row chunks makes the
// weighted means, a second the Gram matrix Xcᵀ·Xc and Xcᵀ·yc of the
// centered data (the matrix product's chunked reduction over rows: each
// chunk contributes a d × d block, combined by a tree), and the small
// system is solved on the host — least squares through the SVD of the Gram
// matrix (its pseudo-inverse gives lstsq's minimum-norm solution for a
// rank-deficient X), Ridge by Cholesky of Xcᵀ·Xc + αI as scikit-learn's
// 'cholesky' solver does. Centering first (scikit-learn's
// _preprocess_data) keeps the Gram matrix's condition that of the centered
// data. Only d × d and d × k numbers leave the chunks.

import * as mt from '../api/tensor.js';
import { r2_score } from './metrics.js';
import {
  type Input, checkFinite, checkX, checkY, fitted, fittedInput, options, sameSamples, valueError,
} from './base.js';

/** Weighted centering statistics and the centered Gram blocks of X and y. */
interface Normal { gram: mt.Tensor; xty: mt.Tensor; xMean: mt.Tensor; yMean: mt.Tensor }

/** The normal equations of (X, y) with optional sample weights, centered when fit_intercept. */
function normalEquations(X: mt.Tensor, Y: mt.Tensor, w: mt.Tensor | null, center: boolean): Normal {
  const d = X.shape[1]!, k = Y.shape[1]!;
  let xMean: mt.Tensor = mt.zeros([d]), yMean: mt.Tensor = mt.zeros([k]);
  if (center) {
    if (w) {
      const sw = mt.sum(w);
      xMean = mt.divide(mt.matmul(w, X), sw);
      yMean = mt.divide(mt.matmul(w, Y), sw);
    } else {
      xMean = mt.mean(X, { axis: 0 });
      yMean = mt.mean(Y, { axis: 0 });
    }
  }
  let xc = center ? mt.subtract(X, xMean) : X, yc = center ? mt.subtract(Y, yMean) : Y;
  if (w) {
    // weighted least squares: rows scaled by √w (scikit-learn's _rescale_data)
    const s = mt.reshape(mt.sqrt(w), [-1, 1]);
    xc = mt.multiply(xc, s); yc = mt.multiply(yc, s);
  }
  const xt = mt.transpose(xc);
  return { gram: mt.matmul(xt, xc), xty: mt.matmul(xt, yc), xMean, yMean };
}

/** Sample weights: a 1-d tensor of n non-negative numbers, or null. */
function weightsOf(sample_weight: Input | null | undefined, X: mt.Tensor): mt.Tensor | null {
  if (sample_weight === null || sample_weight === undefined) return null;
  const w = typeof sample_weight === 'number'
    ? mt.full([X.shape[0]!], sample_weight) : mt.astype(checkY(sample_weight, X, 'sample_weight', false), 'float64');
  if (w.ndim !== 1) throw valueError('Sample weights must be 1D array or scalar');
  sameSamples([X, w]);
  return w;
}

/** X and y checked and as float64 matrices (y as (n, k)), the estimator's `multi` flag for a 1-d y. */
function fitData(X: Input, y: Input, est: string): { x: mt.Tensor; Y: mt.Tensor; oneTarget: boolean } {
  const x = checkX(X, est);
  const yt = checkY(y, x, est, true);
  return { x, Y: yt.ndim === 1 ? mt.reshape(yt, [-1, 1]) : yt, oneTarget: yt.ndim === 1 };
}

/** The shared fitted state and predict of the linear regressors. */
abstract class LinearModel {
  readonly fit_intercept: boolean;
  coef_?: mt.Tensor;
  intercept_?: mt.Tensor | number;
  n_features_in_?: number;

  protected constructor(fitIntercept: boolean) { this.fit_intercept = fitIntercept; }

  protected abstract get estName(): string;
  /** The coefficients (d × k) from the normal equations. */
  protected abstract solve(n: Normal, d: number): mt.Tensor;

  async fit(X: Input, y: Input, sample_weight?: Input | null): Promise<this> {
    const est = this.estName;
    const { x, Y, oneTarget } = fitData(X, y, est);
    const w = weightsOf(sample_weight, x);
    await checkFinite([[x, 'X'], [Y, 'y']], est);
    const ne = normalEquations(x, Y, w, this.fit_intercept);
    const d = x.shape[1]!;
    const W = this.solve(ne, d); // d × k
    const coef = mt.transpose(W); // k × d, scikit-learn's layout
    const intercept = this.fit_intercept ? mt.subtract(ne.yMean, mt.matmul(ne.xMean, W)) : mt.zeros([Y.shape[1]!]);
    this.coef_ = oneTarget ? mt.reshape(coef, [-1]) : coef;
    const icpt = oneTarget ? mt.reshape(intercept, []) : intercept;
    await mt.execute(this.coef_, icpt);
    this.intercept_ = oneTarget ? (this.fit_intercept ? Number(await icpt.item()) : 0) : icpt;
    this.n_features_in_ = d;
    return this;
  }

  async predict(X: Input): Promise<mt.Tensor> {
    const est = this.estName;
    const coef = fitted(this.coef_, est);
    const x = fittedInput(X, this.n_features_in_, est);
    const out = coef.ndim === 1 ? mt.matmul(x, coef) : mt.matmul(x, mt.transpose(coef));
    return mt.add(out, this.intercept_!).execute();
  }

  /** R² of the predictions (scikit-learn's RegressorMixin.score, uniform over targets). */
  async score(X: Input, y: Input): Promise<number> {
    return (await r2_score(y, await this.predict(X))) as number;
  }
}

export interface LinearRegressionOptions { fit_intercept?: boolean; copy_X?: boolean; n_jobs?: number | null; positive?: boolean }

/** sklearn.linear_model.LinearRegression: ordinary least squares (minimum-norm where X is rank-deficient). */
export class LinearRegression extends LinearModel {
  readonly copy_X: boolean;
  readonly n_jobs: number | null;
  readonly positive: boolean;
  /** The rank of the centered X and its singular values (scikit-learn's rank_ and singular_). */
  rank_?: number;
  singular_?: mt.Tensor;

  constructor(opts: LinearRegressionOptions = {}) {
    const o = options('LinearRegression', opts, { fit_intercept: true, copy_X: true, n_jobs: null as number | null, positive: false });
    super(o.fit_intercept);
    if (o.positive) throw valueError('LinearRegression: positive=True (non-negative least squares) is not supported by learn yet');
    this.copy_X = o.copy_X; this.n_jobs = o.n_jobs; this.positive = o.positive;
  }

  private rankOf?: mt.Tensor;

  protected get estName(): string { return 'LinearRegression'; }

  override async fit(X: Input, y: Input, sample_weight?: Input | null): Promise<this> {
    await super.fit(X, y, sample_weight);
    await this.singular_!.execute();
    this.rank_ = Number(await this.rankOf!.item());
    return this;
  }

  protected solve(n: Normal): mt.Tensor {
    // lstsq on the Gram matrix: its SVD's pseudo-inverse, cut where LAPACK's gelsd cuts (rcond = eps · max(n, d))
    const [U, s, Vt] = mt.linalg.svd(n.gram) as mt.Tensor[];
    const cut = mt.multiply(mt.max(s!), Number.EPSILON * n.gram.shape[0]! * 4);
    const keep = mt.greater(s!, cut);
    const inv = mt.where(keep, mt.divide(1, mt.where(keep, s!, 1)), 0);
    this.singular_ = mt.sqrt(s!);
    this.rankOf = mt.sum(keep);
    return mt.matmul(mt.transpose(Vt!), mt.multiply(mt.reshape(inv, [-1, 1]), mt.matmul(mt.transpose(U!), n.xty)));
  }
}

export interface RidgeOptions {
  alpha?: number | readonly number[]; fit_intercept?: boolean; copy_X?: boolean; solver?: 'auto' | 'cholesky';
  random_state?: number; tol?: number; max_iter?: number | null; positive?: boolean;
}

/** sklearn.linear_model.Ridge: least squares with an L2 penalty α‖w‖², solved by Cholesky (its 'cholesky' solver). */
export class Ridge extends LinearModel {
  readonly alpha: number | readonly number[];
  readonly solver: 'auto' | 'cholesky';
  n_iter_?: null;

  constructor(opts: RidgeOptions = {}) {
    const o = options('Ridge', opts, {
      alpha: 1 as number | readonly number[], fit_intercept: true, copy_X: true, solver: 'auto' as 'auto' | 'cholesky',
      random_state: undefined as number | undefined, tol: 1e-4, max_iter: null as number | null, positive: false,
    });
    super(o.fit_intercept);
    const alphas = typeof o.alpha === 'number' ? [o.alpha] : [...o.alpha];
    if (alphas.some((a) => !(a >= 0))) throw valueError(`alpha == ${alphas.find((a) => !(a >= 0))}, must be >= 0.0.`);
    if (o.solver !== 'auto' && o.solver !== 'cholesky') {
      throw valueError(`Ridge: solver '${String(o.solver)}' is not supported by learn (it solves by Cholesky: 'auto' or 'cholesky')`);
    }
    if (o.positive) throw valueError('Ridge: positive=True is not supported by learn yet');
    this.alpha = o.alpha; this.solver = o.solver; this.n_iter_ = null;
  }

  protected get estName(): string { return 'Ridge'; }

  protected solve(n: Normal, d: number): mt.Tensor {
    const k = n.xty.shape[1]!;
    const alphas = typeof this.alpha === 'number' ? [this.alpha] : [...this.alpha];
    if (alphas.length !== 1 && alphas.length !== k) {
      throw valueError(`Number of targets and number of penalties do not correspond: ${alphas.length} != ${k}`);
    }
    const solveOne = (a: number, rhs: mt.Tensor): mt.Tensor => mt.linalg.solve(mt.add(n.gram, mt.multiply(a, mt.eye(d))), rhs);
    if (alphas.length === 1) return solveOne(alphas[0]!, n.xty);
    return mt.concatenate(alphas.map((a, j) => solveOne(a, n.xty.get(mt.slice(null), mt.slice(j, j + 1)))), { axis: 1 });
  }
}

export { LogisticRegression, type LogisticRegressionOptions } from './logistic.js';
