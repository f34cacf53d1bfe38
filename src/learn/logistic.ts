// sklearn.linear_model.LogisticRegression with the L2 penalty: binary,
// one-vs-rest and multinomial. In: X, class labels, sample weights. Out:
// coef_, intercept_, classes_, n_iter_; probabilities, decisions, classes.
//
// The fit minimizes scikit-learn's objective, Σᵢ sᵢ·loss(xᵢ, yᵢ) + ‖W‖²/(2C)
// (intercepts not penalized), by Newton's method on row-partitioned data:
// each iteration is a few chunked passes that move only the gradient and
// the Hessian — Xᵀ(s(p − y)) and the weighted Gram blocks Xᵀ diag(s·p(1−p)) X,
// (d + 1)² numbers per class pair from each chunk, combined by the tree —
// then a step solved on the host, halved until the objective decreases.
// Newton converges to the optimum itself in a handful of iterations where
// scikit-learn's lbfgs stops at tol = 1e-4 on the gradient: the two agree
// to about 1e-3 at scikit-learn's defaults and to its precision at a tight
// tol. The multinomial Hessian is singular along equal shifts of every
// class's intercept (the softmax ignores them); the step is its minimum-norm
// solution, which keeps Σ intercepts = 0, where lbfgs started from zero stays.

import * as mt from '../api/tensor.js';
import { accuracy_score } from './metrics.js';
import {
  type Input, asTensor, checkFinite, checkX, fitted, fittedInput, labelsOf, numbers, options, report, sameSamples, stringCategories, valueError,
} from './base.js';

export interface LogisticRegressionOptions {
  penalty?: 'l2' | 'none' | null;
  dual?: boolean;
  tol?: number;
  C?: number;
  fit_intercept?: boolean;
  intercept_scaling?: number;
  class_weight?: 'balanced' | Record<string, number> | null;
  random_state?: number;
  solver?: 'lbfgs' | 'newton-cg' | 'newton-cholesky';
  max_iter?: number;
  multi_class?: 'auto' | 'ovr' | 'multinomial';
  verbose?: number;
  warm_start?: boolean;
  n_jobs?: number | null;
  l1_ratio?: number | null;
}

/** The problem one Newton solve sees: rows, K one-hot targets (K = 1: binary), weights, 1/C. */
interface Problem { x: mt.Tensor; Y: mt.Tensor; s: mt.Tensor; K: number; lam: number; intercept: boolean }

/** Scores z (n × K) of parameters theta (K × (d + 1), the intercept last). */
function scores(p: Problem, theta: number[]): mt.Tensor {
  const d = p.x.shape[1]!, K = p.K;
  const W = mt.tensor(Float64Array.from({ length: K * d }, (_, i) => theta[Math.floor(i / d) * (d + 1) + (i % d)]!)).reshape([K, d]);
  const b = mt.tensor(Float64Array.from({ length: K }, (_, k) => theta[k * (d + 1) + d]!));
  return mt.add(mt.matmul(p.x, mt.transpose(W)), b);
}

/** Probabilities from scores: the sigmoid (binary) or the softmax over the K columns. */
function probabilities(z: mt.Tensor, K: number): mt.Tensor {
  if (K === 1) return mt.divide(1, mt.add(1, mt.exp(mt.negative(z))));
  const e = mt.exp(mt.subtract(z, mt.max(z, { axis: 1, keepdims: true })));
  return mt.divide(e, mt.sum(e, { axis: 1, keepdims: true }));
}

/** The objective at theta: weighted log loss plus the penalty. */
async function objective(p: Problem, theta: number[]): Promise<number> {
  const z = scores(p, theta);
  let loss: mt.Tensor;
  if (p.K === 1) {
    // log(1 + e^z) − y·z, stable for large |z|
    const zz = mt.reshape(z, [-1]);
    const softplus = mt.add(mt.maximum(zz, 0), mt.log1p(mt.exp(mt.negative(mt.abs(zz)))));
    loss = mt.sum(mt.multiply(p.s, mt.subtract(softplus, mt.multiply(mt.reshape(p.Y, [-1]), zz))));
  } else {
    const m = mt.max(z, { axis: 1, keepdims: true });
    const lse = mt.add(mt.reshape(m, [-1]), mt.log(mt.sum(mt.exp(mt.subtract(z, m)), { axis: 1 })));
    loss = mt.sum(mt.multiply(p.s, mt.subtract(lse, mt.sum(mt.multiply(p.Y, z), { axis: 1 }))));
  }
  const d = p.x.shape[1]!;
  const pen = theta.reduce((a, v, i) => (i % (d + 1) === d ? a : a + v * v), 0) * p.lam / 2;
  return Number(await loss.item()) + pen;
}

/** Gradient (K(d+1)) and Hessian (K(d+1))² at theta, from chunked passes. */
async function derivatives(p: Problem, theta: number[]): Promise<{ g: number[]; H: number[]; n: number }> {
  const d = p.x.shape[1]!, K = p.K, D = d + 1;
  const P = probabilities(scores(p, theta), K);
  const R = mt.multiply(mt.subtract(P, p.Y), mt.expand_dims(p.s, 1)); // n × K, weighted residuals
  const xt = mt.transpose(p.x);
  const parts: mt.Tensor[] = [mt.matmul(xt, R), mt.sum(R, { axis: 0 })];
  // Hessian blocks (k, l): Xaᵀ diag(s·p_k(δ_kl − p_l)) Xa, the upper triangle of class pairs
  const pairs: [number, number][] = [];
  for (let k = 0; k < K; k++) for (let l = k; l < K; l++) pairs.push([k, l]);
  for (const [k, l] of pairs) {
    const pk = P.get(mt.slice(null), k), pl = P.get(mt.slice(null), l);
    const w = mt.multiply(p.s, k === l ? mt.multiply(pk, mt.subtract(1, pk)) : mt.negative(mt.multiply(pk, pl)));
    const xw = mt.multiply(p.x, mt.expand_dims(w, 1));
    parts.push(mt.matmul(xt, xw), mt.sum(xw, { axis: 0 }), mt.sum(w));
  }
  await mt.execute(...parts);
  const [XR, sR] = [await numbers(parts[0]!), await numbers(parts[1]!)];
  const g = new Array<number>(K * D).fill(0);
  for (let k = 0; k < K; k++) {
    for (let f = 0; f < d; f++) g[k * D + f] = XR[f * K + k]! + p.lam * theta[k * D + f]!;
    g[k * D + d] = p.intercept ? sR[k]! : 0;
  }
  const H = new Array<number>(K * D * K * D).fill(0);
  const at = (r: number, c: number, v: number): void => { H[r * K * D + c] = v; H[c * K * D + r] = v; };
  for (const [i, [k, l]] of pairs.entries()) {
    const [G, sx, sw] = [await numbers(parts[2 + 3 * i]!), await numbers(parts[3 + 3 * i]!), await numbers(parts[4 + 3 * i]!)];
    for (let a = 0; a < d; a++) {
      for (let b = 0; b < d; b++) at(k * D + a, l * D + b, G[a * d + b]! + (k === l && a === b ? p.lam : 0));
      if (p.intercept) { at(k * D + a, l * D + d, sx[a]!); at(l * D + a, k * D + d, sx[a]!); }
    }
    at(k * D + d, l * D + d, p.intercept ? sw[0]! : k === l ? 1 : 0);
  }
  return { g, H, n: K * D };
}

/** Newton's method with step halving; the number of iterations. */
async function newton(p: Problem, maxIter: number, tol: number): Promise<{ theta: number[]; iters: number }> {
  const D = p.x.shape[1]! + 1;
  let theta = new Array<number>(p.K * D).fill(0);
  let f = await objective(p, theta);
  let it = 0;
  for (; it < maxIter; it++) {
    const { g, H, n } = await derivatives(p, theta);
    if (Math.max(...g.map(Math.abs)) <= tol) break;
    const step = await numbers(mt.linalg.lstsq(mt.tensor(Float64Array.from(H)).reshape([n, n]), mt.tensor(Float64Array.from(g)), { rcond: null })[0]!);
    let t = 1, next = theta, fn = Infinity;
    for (let h = 0; h < 40; h++, t /= 2) {
      next = theta.map((v, i) => v - t * step[i]!);
      fn = await objective(p, next);
      if (fn <= f) break;
    }
    const moved = Math.max(...next.map((v, i) => Math.abs(v - theta[i]!)));
    theta = next;
    const done = f - fn <= 1e-15 * Math.max(1, Math.abs(f)) && moved <= 1e-12 * Math.max(1, ...theta.map(Math.abs));
    f = fn;
    report({ estimator: 'LogisticRegression', iteration: it + 1, loss: f }, it + 1, maxIter);
    if (done) { it++; break; }
  }
  return { theta, iters: it };
}

/** sklearn.linear_model.LogisticRegression (L2): binary, one-vs-rest or multinomial. */
export class LogisticRegression {
  readonly penalty: 'l2' | 'none' | null;
  readonly tol: number;
  readonly C: number;
  readonly fit_intercept: boolean;
  readonly class_weight: LogisticRegressionOptions['class_weight'];
  readonly solver: string;
  readonly max_iter: number;
  readonly multi_class: 'auto' | 'ovr' | 'multinomial';
  classes_?: mt.Tensor | string[];
  coef_?: mt.Tensor;
  intercept_?: mt.Tensor;
  n_iter_?: mt.Tensor;
  n_features_in_?: number;

  constructor(opts: LogisticRegressionOptions = {}) {
    const o = options('LogisticRegression', opts, {
      penalty: 'l2' as LogisticRegressionOptions['penalty'], dual: false, tol: 1e-4, C: 1, fit_intercept: true, intercept_scaling: 1,
      class_weight: null as LogisticRegressionOptions['class_weight'], random_state: undefined as number | undefined,
      solver: 'lbfgs' as string, max_iter: 100, multi_class: 'auto' as 'auto' | 'ovr' | 'multinomial', verbose: 0, warm_start: false,
      n_jobs: null as number | null, l1_ratio: null as number | null,
    });
    if (o.penalty !== 'l2' && o.penalty !== 'none' && o.penalty !== null) {
      throw valueError(`LogisticRegression: penalty='${o.penalty}' is not supported by learn (it fits the L2 penalty, or none)`);
    }
    if (!['lbfgs', 'newton-cg', 'newton-cholesky'].includes(o.solver)) {
      throw valueError(`LogisticRegression: solver '${o.solver}' is not supported by learn ('lbfgs', 'newton-cg' and ` +
        `'newton-cholesky' reach the same optimum by Newton's method)`);
    }
    if (!(o.C > 0)) throw valueError(`The 'C' parameter of LogisticRegression must be a float in the range (0, inf). Got ${o.C} instead.`);
    if (o.dual) throw valueError(`Solver ${o.solver} supports only dual=False, got dual=True`);
    this.penalty = o.penalty; this.tol = o.tol; this.C = o.C; this.fit_intercept = o.fit_intercept; this.class_weight = o.class_weight;
    this.solver = o.solver; this.max_iter = o.max_iter; this.multi_class = o.multi_class;
  }

  async fit(X: Input, y: Input | readonly string[], sample_weight?: Input | null): Promise<this> {
    const x = checkX(X, 'LogisticRegression');
    const [n, d] = x.shape as [number, number];
    const l = labelsOf(y, 'y');
    const codes = l.kind === 'str' ? l.codes : l.t;
    sameSamples([x, codes]);
    await checkFinite([[x, 'X']], 'LogisticRegression');
    // the classes, sorted, and each row's class index
    let yi: mt.Tensor, K: number;
    if (l.kind === 'str') {
      const classes = await stringCategories(l.codes, l.dict);
      const rank = new Map(classes.map((c, i) => [c, i]));
      yi = mt.take(mt.tensor(Float64Array.from(l.dict, (s) => rank.get(s) ?? -1)), l.codes);
      this.classes_ = classes; K = classes.length;
    } else {
      const classes = await (mt.unique(l.t) as mt.Tensor).execute();
      yi = mt.astype(mt.searchsorted(classes, l.t), 'float64');
      this.classes_ = classes; K = classes.shape[0]!;
    }
    if (K < 2) {
      throw valueError(`This solver needs samples of at least 2 classes in the data, but the data contains only one class: ${(await this.classList())[0]}`);
    }
    let s = sample_weight === null || sample_weight === undefined
      ? mt.ones([n]) : mt.astype(mt.reshape(asTensor(sample_weight, 'sample_weight'), [-1]), 'float64');
    sameSamples([x, s]);
    if (this.class_weight) s = mt.multiply(s, await this.classWeights(yi, K, n));
    s = await s.execute();
    const lam = this.penalty === 'l2' ? 1 / this.C : 0;
    const multinomial = this.multi_class === 'multinomial' || (this.multi_class === 'auto' && K > 2);
    if (multinomial && K === 2) {
      throw valueError("LogisticRegression: multi_class='multinomial' with two classes is not supported by learn yet (use 'auto' or 'ovr')");
    }
    const fits: { theta: number[]; iters: number }[] = [];
    if (multinomial) {
      const Y = mt.astype(mt.equal(mt.expand_dims(yi, 1), mt.arange(K)), 'float64');
      fits.push(await newton({ x, Y, s, K, lam, intercept: this.fit_intercept }, this.max_iter, this.gradTol(n)));
    } else {
      for (const k of K === 2 ? [1] : Array.from({ length: K }, (_, i) => i)) {
        const Y = mt.reshape(mt.astype(mt.equal(yi, k), 'float64'), [-1, 1]);
        fits.push(await newton({ x, Y, s, K: 1, lam, intercept: this.fit_intercept }, this.max_iter, this.gradTol(n)));
      }
    }
    const theta = fits.flatMap((f) => f.theta);
    const rows = theta.length / (d + 1);
    this.coef_ = mt.tensor(Float64Array.from({ length: rows * d }, (_, i) => theta[Math.floor(i / d) * (d + 1) + (i % d)]!)).reshape([rows, d]);
    this.intercept_ = mt.tensor(Float64Array.from({ length: rows }, (_, r) => (this.fit_intercept ? theta[r * (d + 1) + d]! : 0)));
    this.n_iter_ = mt.tensor(Int32Array.from(fits.map((f) => f.iters)));
    this.n_features_in_ = d;
    return this;
  }

  /** The gradient's max-norm at which Newton stops: far below scikit-learn's tol, scaled to the data's size. */
  private gradTol(n: number): number { return Math.min(this.tol, 1e-4) * 1e-6 * Math.max(1, n); }

  /** class_weight as per-row factors ('balanced': n / (K · count of the row's class)). */
  private async classWeights(yi: mt.Tensor, K: number, n: number): Promise<mt.Tensor> {
    const classes = await this.classList();
    let w: number[];
    if (this.class_weight === 'balanced') {
      const counts = await numbers(mt.bincount(mt.astype(yi, 'int64'), { minlength: K }));
      w = counts.map((c) => n / (K * c));
    } else {
      const cw = this.class_weight as Record<string, number>;
      w = classes.map((c) => cw[String(c)] ?? 1);
    }
    return mt.take(mt.tensor(Float64Array.from(w)), mt.astype(yi, 'int64'));
  }

  private async classList(): Promise<(number | string)[]> {
    const c = this.classes_!;
    return Array.isArray(c) ? c : numbers(c);
  }

  /** Scores per class (binary: one column, flattened as scikit-learn returns it). */
  async decision_function(X: Input): Promise<mt.Tensor> {
    const coef = fitted(this.coef_, 'LogisticRegression');
    const x = fittedInput(X, this.n_features_in_, 'LogisticRegression');
    const z = mt.add(mt.matmul(x, mt.transpose(coef)), this.intercept_!);
    return (coef.shape[0] === 1 ? mt.reshape(z, [-1]) : z).execute();
  }

  async predict_proba(X: Input): Promise<mt.Tensor> {
    const z = await this.decision_function(X);
    if (z.ndim === 1) {
      const p = probabilities(z, 1);
      return mt.stack([mt.subtract(1, p), p], { axis: 1 }).execute();
    }
    const multinomial = this.multi_class === 'multinomial' || (this.multi_class === 'auto' && z.shape[1]! > 2);
    if (multinomial) return probabilities(z, z.shape[1]!).execute();
    const p = probabilities(z, 1);
    return mt.divide(p, mt.sum(p, { axis: 1, keepdims: true })).execute();
  }

  async predict_log_proba(X: Input): Promise<mt.Tensor> { return mt.log(await this.predict_proba(X)).execute(); }

  /** The class of largest score (numbers as a tensor, strings as an array). */
  async predict(X: Input): Promise<mt.Tensor | string[]> {
    const z = await this.decision_function(X);
    const idx = z.ndim === 1 ? mt.astype(mt.greater(z, 0), 'int64') : mt.argmax(z, { axis: 1 });
    const classes = this.classes_!;
    if (Array.isArray(classes)) return (await numbers(idx)).map((i) => classes[i]!);
    return mt.take(classes, idx).execute();
  }

  /** Mean accuracy. */
  async score(X: Input, y: Input | readonly string[]): Promise<number> {
    return accuracy_score(y, (await this.predict(X)) as Input);
  }
}
