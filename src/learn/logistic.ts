// sklearn.linear_model.LogisticRegression with the L2 penalty: binary,
// one-vs-rest and multinomial. In: X, class labels, sample weights. Out:
// coef_, intercept_, classes_, n_iter_; probabilities, decisions, classes.
//
// The fit minimizes scikit-learn's objective, Σᵢ sᵢ·loss(xᵢ, yᵢ) + ‖W‖²/(2C)
// (intercepts not penalized), by Newton's method on row-partitioned data:
// each iteration is one pass of the `logit` routine (runtime/logit.ts) over
// blocks of rows, which moves per block only the loss, the gradient and the
// upper triangles of the Hessian's class-pair blocks, combined by the tree;
// the step is solved on the host, and a rejected step backtracks by one more
// pass that prices eight step sizes at once. The Hessian only shapes the
// step (the gradient fixes the optimum) and costs most of a pass, so on
// large X the solve starts from the optimum of a sample of X's batches, sums
// the Hessian from a sample of the rows, and near the optimum keeps one
// Hessian for the last steps, whose passes then compute the loss and the
// gradient alone. Newton converges to the optimum itself (its gradient
// below ~1e-10 of n) where scikit-learn's lbfgs stops at tol = 1e-4 on the
// gradient: the two agree to about 1e-3 at scikit-learn's defaults and to
// its precision at a tight tol. The multinomial Hessian is singular along
// equal shifts of every class's intercept (the softmax ignores them); the
// step is its minimum-norm solution, which keeps Σ intercepts = 0, where
// lbfgs started from zero stays.

import * as mt from '../api/tensor.js';
import * as G from '../graph/node.js';
import { linalgCompute } from '../numerics/linalg.js';
import { newtonWidth } from '../runtime/logit.js';
import { blocks } from './cluster.js';
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

/**
 * The problem one Newton solve sees: rows, each row's class index, the class
 * scored against the rest (K = 1) or K classes (multinomial), weights (null:
 * all ones), 1/C.
 */
interface Problem {
  x: mt.Tensor; yi: mt.Tensor; s: mt.Tensor | null; K: number; target: number; lam: number; intercept: boolean;
  /** The routine reads every `every`-th batch of rows only (1: all), a sample whose sums are scaled to `total`, all rows' weight. */
  every: number; total: number;
}

/** Probabilities from scores: the sigmoid (binary) or the softmax over the K columns. */
function probabilities(z: mt.Tensor, K: number): mt.Tensor {
  if (K === 1) return mt.divide(1, mt.add(1, mt.exp(mt.negative(z))));
  const e = mt.exp(mt.subtract(z, mt.max(z, { axis: 1, keepdims: true })));
  return mt.divide(e, mt.sum(e, { axis: 1, keepdims: true }));
}

/**
 * One pass of the `logit` routine over the blocks of rows, combined by the
 * tree: 'newton' gives [loss | gradient | Hessian pairs] at theta; with
 * `dir`, the losses at theta − t·dir for t = 1, 1/2, … (`steps` of them).
 */
function pass(p: Problem, theta: number[], dir?: number[], steps = 0, hstride = 1): mt.Tensor {
  const d = p.x.shape[1]!, KD = p.K * (d + 1);
  const th = mt.tensor(Float64Array.from(dir ? [...theta, ...dir] : theta)).reshape([dir ? 2 : 1, KD]);
  const width = dir ? steps + 1 : newtonWidth(p.K, d);
  const params = { K: p.K, d, target: p.target, weighted: !!p.s, every: p.every, mode: dir ? 'loss' : 'newton', ...(dir ? { steps } : { hstride }) };
  const calls = blocks(p.x).map(([a, b], j): G.RoutineCall => ({
    routine: 'logit', params, chunk: j,
    reads: [
      { input: 0, box: [[a, b], [0, d]] }, { input: 1, box: [[a, b]] }, { input: 2, box: [[0, dir ? 2 : 1], [0, KD]] },
      ...(p.s ? [{ input: 3, box: [[a, b]] as [number, number][] }] : []),
    ],
  }));
  const inputs = [p.x.node, p.yi.node, th.node, ...(p.s ? [p.s.node] : [])];
  const parts = new mt.Tensor(G.routine(`logistic.${params.mode}`, inputs, calls, 'float64', [calls.length, width], [1, width]));
  return calls.length === 1 ? mt.reshape(parts, [width]) : mt.sum(parts, { axis: 0 });
}

/** The penalty ‖W‖²λ/2 of theta (intercepts not penalized). */
function penalty(p: Problem, theta: number[]): number {
  const D = p.x.shape[1]! + 1;
  return theta.reduce((a, v, i) => (i % D === D - 1 ? a : a + v * v), 0) * p.lam / 2;
}

/** The objective f, its gradient g (K·D) and Hessian H ((K·D)², dense) at theta: one pass. */
async function derivatives(p: Problem, theta: number[], hstride: number): Promise<{ f: number; g: number[]; H: number[] | null; gb: number[] }> {
  const d = p.x.shape[1]!, K = p.K, D = d + 1, n = K * D;
  const row = await numbers(pass(p, theta, undefined, 0, hstride));
  // sums over a sample of the rows scaled by all rows' weight over the sample's (the routine's last two numbers:
  // the weights of the rows read and of those the Hessian summed)
  const c = p.every === 1 ? 1 : p.total / row.at(-2)!, scale = row.at(-1)! > 0 ? c * (row.at(-2)! / row.at(-1)!) : c;
  const f0 = c * row[0]! + penalty(p, theta);
  const g = new Array<number>(n).fill(0);
  for (let k = 0; k < K; k++) {
    for (let f = 0; f < d; f++) g[k * D + f] = c * row[1 + k * D + f]! + p.lam * theta[k * D + f]!;
    g[k * D + d] = p.intercept ? c * row[1 + k * D + d]! : 0;
  }
  // the intercepts' gradient, also without an intercept: the classes' weights at theta = 0
  const gb = Array.from({ length: K }, (_, k) => c * row[1 + k * D + d]!);
  if (hstride === 0) return { f: f0, g, H: null, gb };
  const H = new Array<number>(n * n).fill(0);
  const set = (r: number, c: number, v: number): void => { H[r * n + c] = v; H[c * n + r] = v; };
  // the pairs (k ≤ l) in order, each the upper triangle (a ≤ b) of its D × D block, which is symmetric
  let i = 1 + n;
  for (let k = 0; k < K; k++) {
    for (let l = k; l < K; l++) {
      for (let a = 0; a < D; a++) {
        for (let b = a; b < D; b++, i++) {
          const v = scale * row[i]! + (k === l && a === b && a < d ? p.lam : 0);
          set(k * D + a, l * D + b, v);
          set(k * D + b, l * D + a, v);
        }
      }
    }
  }
  if (!p.intercept) {
    // the intercepts stay at zero: their rows and columns are the identity's
    for (let k = 0; k < K; k++) {
      for (let c = 0; c < n; c++) set(k * D + d, c, 0);
      H[(k * D + d) * n + k * D + d] = 1;
    }
  }
  return { f: f0, g, H, gb };
}

/** Step sizes a line-search pass tries: t, t/2, …, t/2⁷. */
const STEPS = 8;

/**
 * Backtracking from the rejected full step: the first of t = 1/2, 1/4, …
 * (down to 2⁻⁴⁰) at which the objective does not rise above f, each pass
 * trying STEPS of them; the smallest when none does.
 */
async function backtrack(p: Problem, theta: number[], step: number[], f: number): Promise<number> {
  let t = 1 / 2;
  for (let tries = 0; tries < 5; tries++) {
    const losses = await numbers(pass(p, theta, step.map((v) => v * t), STEPS));
    const c = p.every === 1 ? 1 : p.total / losses[STEPS]!;
    for (let j = 0; j < STEPS; j++, t /= 2) {
      if (c * losses[j]! + penalty(p, theta.map((v, i) => v - t * step[i]!)) <= f) return t;
    }
  }
  return t;
}

/**
 * Rows of a sample of X (every so-many-th batch of its rows), at least:
 * SAMPLE_ROWS, and SAMPLE_ROWS_PER_COEF for each coefficient. The warm
 * start's sample holds that many (X of twice as many rows or more), and so
 * do the Hessians far from the optimum; the Hessian kept near it twice as
 * many. The Hessian only shapes a step, the gradient fixes the optimum: a
 * sample's Hessian, off by about √(coefficients / rows), slows a step's
 * convergence by that factor where it saves most of a pass; the sample's
 * optimum lies off X's by about as much, which the steps on X then remove.
 */
const SAMPLE_ROWS = 2 ** 15, SAMPLE_ROWS_PER_COEF = 2 ** 10;

/** The Newton decrement gᵀH⁻¹g (twice the predicted decrease), relative to f, below which theta is near the optimum. */
const NEAR = 1e-3;

/** The ratio of gradients above which a step with a kept Hessian counts as too slow and the next pass sums a new one. */
const SLOW = 0.05;

/** Steps the warm start may take to come near the sample's optimum. */
const WARM_ITER = 10;

/**
 * Newton's method with backtracking from zero; the coefficients and the
 * number of iterations. The first steps move far and need little precision:
 * on X of twice a sample's rows or more the solve starts from the optimum of a
 * sample of X's batches (their sums scaled to X's), found by passes over
 * the sample alone, and continues on X.
 */
async function newton(p: Problem, maxIter: number, tol: number): Promise<{ theta: number[]; iters: number }> {
  const rows = p.x.shape[0]!, sample = Math.max(SAMPLE_ROWS, SAMPLE_ROWS_PER_COEF * p.K * (p.x.shape[1]! + 1));
  const far = Math.max(1, Math.floor(rows / sample)), near = Math.max(1, Math.floor(rows / (2 * sample)));
  let theta = new Array<number>(p.K * (p.x.shape[1]! + 1)).fill(0), iters = 0;
  if (far > 1) {
    // the sample's Hessians from every other batch of it; a start that is not near its optimum in WARM_ITER
    // steps (a class the sample misses, its intercept running off) is dropped
    const total = p.s ? Number(await mt.sum(p.s).item()) : rows;
    const o = { first: 2 * far, far: 2 * far, near: 2 * far, warm: true, done: 0 };
    const warm = await solve({ ...p, every: far, total }, theta, Math.min(maxIter, WARM_ITER), tol, o);
    iters = warm.iters;
    if (warm.near) theta = warm.theta;
  }
  const started = theta.some((v) => v !== 0);
  const full = await solve(p, theta, maxIter - iters, tol, { first: started ? near : far, far, near, warm: false, done: iters });
  return { theta: full.theta, iters: iters + full.iters };
}

/**
 * Newton's iterations on p from theta; the coefficients and the number of
 * iterations. Each is one pass at the new point (its loss, gradient and,
 * when asked, Hessian), and a line-search pass only when the full step
 * raises the objective. The Hessian of a pass is summed from every `far`-th
 * batch far from the optimum (the first pass's: every `first`-th); near it
 * (a small Newton decrement) from every `near`-th once, then kept for the
 * following steps, which converge almost as fast as Newton's while passing
 * over X for the loss and the gradient alone, until one reduces the
 * gradient too little. `warm`: a warm start's solve, which takes its last
 * step unchecked once near (the sample's optimum only starts X's).
 */
async function solve(p: Problem, theta: number[], maxIter: number, tol: number, o: { first: number; far: number; near: number; warm: boolean; done: number }) {
  const { far, near: nearStride, warm, done: done0 } = o;
  let at = await derivatives(p, theta, o.first);
  if (warm && sparse(p, at.gb)) return { theta, iters: 0, near: false };
  // H: the Hessian steps are solved with; kept: it was summed near the optimum, to be kept for the next steps
  let H = at.H!, kept = !warm && o.first === nearStride, slow = false;
  let it = 0;
  for (; it < maxIter; it++) {
    const { f, g } = at, n = g.length;
    const gmax = Math.max(...g.map(Math.abs));
    if (gmax <= tol) return { theta, iters: it, near: true };
    // the minimum-norm least-squares step, by np.linalg.lstsq's own host routine (rcond=None), without a graph to build
    const step = Array.from(linalgCompute({ fn: 'lstsq', rcond: Number.EPSILON * n }, Float64Array.from(H), n, n, Float64Array.from(g), 1)[0]!);
    const dec = step.reduce((a, v, i) => a + v * g[i]!, 0);
    const near = dec <= NEAR * Math.max(1, Math.abs(f));
    if (warm && near) return { theta: theta.map((v, i) => v - step[i]!), iters: it + 1, near };
    // the next pass's Hessian: none (H kept), or summed from every so-many-th batch
    let hs = warm ? far : near && kept && !slow ? 0 : near ? nearStride : far;
    let next = theta.map((v, i) => v - step[i]!);
    at = await derivatives(p, next, hs);
    // a decrement within the sums' rounding of f: the step is Newton's last, a rise of f only that rounding
    if (!(at.f <= f) && dec > 1e-12 * Math.abs(f)) {
      const t = await backtrack(p, theta, step, f);
      next = theta.map((v, i) => v - t * step[i]!);
      hs = hs === 0 ? nearStride : hs;
      at = await derivatives(p, next, hs);
      // no decrease even at a tiny step (rounding between the two passes' sums): theta is the optimum to their precision
      if (!(at.f <= f)) { at = { ...at, f }; break; }
    }
    if (hs > 0) { H = at.H!; kept = !warm && hs === nearStride && near; slow = false; } else slow = Math.max(...at.g.map(Math.abs)) > SLOW * gmax;
    const moved = Math.max(...next.map((v, i) => Math.abs(v - theta[i]!)));
    theta = next;
    const fn = Math.min(f, at.f);
    const stop = f - fn <= 1e-15 * Math.max(1, Math.abs(f)) && moved <= 1e-12 * Math.max(1, ...theta.map(Math.abs));
    if (!warm) report({ estimator: 'LogisticRegression', iteration: done0 + it + 1, loss: fn }, done0 + it + 1, done0 + maxIter);
    at = { ...at, f: fn };
    if (stop) return { theta, iters: it + 1, near: true };
  }
  return { theta, iters: it, near: false };
}

/** Rows of each class a warm start's sample holds at least. */
const CLASS_ROWS = 100;

/**
 * Whether a sample (from the gradient of its intercepts at theta = 0, where
 * each is W/2 − W_target, binary, or W/K − W_k, scaled to X) holds too few
 * rows of some class for its optimum to start X's: a class it misses would
 * send its intercept off, one it holds a few of far from X's.
 */
function sparse(p: Problem, gb: number[]): boolean {
  const rows = p.x.shape[0]!, perRow = p.total / rows;
  const weights = p.K === 1 ? [p.total / 2 - gb[0]!, p.total / 2 + gb[0]!] : gb.map((v) => p.total / p.K - v);
  return weights.some((w) => !((w / perRow) / p.every >= CLASS_ROWS));
}

/** Integer labels spanning at most this many values are counted value by value rather than sorted. */
const FEW_LABELS = 64;

/**
 * The sorted distinct labels of y: np.unique's, and its dtype. Integer labels
 * of a small range, as classes mostly are, take two fused passes (the range,
 * then one count per value in it; the counts adding up to every row proves
 * that no label lies between them) instead of a sort of y.
 */
async function numericClasses(y: mt.Tensor): Promise<mt.Tensor> {
  const [lo, hi] = [mt.min(y), mt.max(y)];
  await mt.execute(lo, hi);
  const [a, b] = [Number(await lo.item()), Number(await hi.item())];
  if (Number.isInteger(a) && Number.isInteger(b) && b - a < FEW_LABELS) {
    const counts = Array.from({ length: b - a + 1 }, (_, i) => mt.sum(mt.equal(y, a + i)));
    await mt.execute(...counts);
    const c = await Promise.all(counts.map(async (t) => Number(await t.item())));
    if (c.reduce((u, v) => u + v, 0) === y.size) return mt.astype(mt.tensor(c.flatMap((v, i) => (v ? [a + i] : []))), y.dtype).execute();
  }
  return (mt.unique(y) as mt.Tensor).execute();
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
      const classes = await numericClasses(l.t);
      yi = mt.astype(mt.searchsorted(classes, l.t), 'float64');
      this.classes_ = classes; K = classes.shape[0]!;
    }
    if (K < 2) {
      throw valueError(`This solver needs samples of at least 2 classes in the data, but the data contains only one class: ${(await this.classList())[0]}`);
    }
    // the weights: null when every row weighs 1 (the routine then reads none)
    let s: mt.Tensor | null = sample_weight === null || sample_weight === undefined
      ? null : mt.astype(mt.reshape(asTensor(sample_weight, 'sample_weight'), [-1]), 'float64');
    if (s) sameSamples([x, s]);
    if (this.class_weight) { const cw = await this.classWeights(yi, K, n); s = s ? mt.multiply(s, cw) : cw; }
    if (s) s = await s.execute();
    yi = await yi.execute();
    const lam = this.penalty === 'l2' ? 1 / this.C : 0;
    const multinomial = this.multi_class === 'multinomial' || (this.multi_class === 'auto' && K > 2);
    if (multinomial && K === 2) {
      throw valueError("LogisticRegression: multi_class='multinomial' with two classes is not supported by learn yet (use 'auto' or 'ovr')");
    }
    const fits: { theta: number[]; iters: number }[] = [];
    if (multinomial) {
      fits.push(await newton({ x, yi, s, K, target: -1, lam, intercept: this.fit_intercept, every: 1, total: n }, this.max_iter, this.gradTol(n)));
    } else {
      for (const k of K === 2 ? [1] : Array.from({ length: K }, (_, i) => i)) {
        fits.push(await newton({ x, yi, s, K: 1, target: k, lam, intercept: this.fit_intercept, every: 1, total: n }, this.max_iter, this.gradTol(n)));
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
