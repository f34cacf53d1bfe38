// sklearn.cluster.MiniBatchKMeans: k-means by sequential updates on small
// random batches of rows. In: X (n_samples, n_features), optional sample
// weights; or, for partial_fit, one batch at a time. Out: cluster_centers_,
// labels_, inertia_, n_iter_, n_steps_ (tensors, numbers), predictions,
// distances and scores.
//
// scikit-learn's steps are sequential: each batch's labels depend on the
// centers the previous batch left. So an execution draws a pool of batches
// at once — indices by Tessera's seeded Philox generator (uniform, with
// replacement, as scikit-learn's randint), the rows gathered by one take over
// X's chunks — and the host runs the pool's steps one after another: nearest
// centers, then scikit-learn's per-center count-based update (each center
// the weighted mean of every row it has been given), the random reassignment
// of centers whose count fell below reassignment_ratio of the largest, and
// its convergence tests (the centers' squared shift at most tol · mean
// feature variance, or max_no_improvement steps without a better
// exponentially weighted average of the batch inertia). A batch is
// batch_size × n_features, small by design, so the host's pass costs less
// than an execution would. The init (k-means++ or 'random' from
// ./cluster.ts, on an init_size sample of rows; n_init candidates, the one
// with the least inertia on a validation sample kept) and the final labels
// and inertia (the kassign and kstep routines, chunked over all rows) are
// KMeans's. The draws are Tessera's, not NumPy's, so a fit is not
// scikit-learn's for the same seed; partial_fit from a given `init` runs no
// draw unless a center is reassigned, and then gives scikit-learn's centers.

import * as mt from '../api/tensor.js';
import { kmeansAssign, kmeansDist2, kmeansStep, plusPlus, randomRows } from './cluster.js';
import {
  type Input, asTensor, checkFinite, checkX, fitted, fittedInput, numbers, options, report, sameFeatures, sameSamples, valueError,
} from './base.js';

type Init = 'k-means++' | 'random' | Input;

export interface MiniBatchKMeansOptions {
  n_clusters?: number;
  init?: Init;
  max_iter?: number;
  batch_size?: number;
  verbose?: number;
  compute_labels?: boolean;
  random_state?: number;
  tol?: number;
  max_no_improvement?: number | null;
  init_size?: number | null;
  n_init?: number | 'auto' | 'warn';
  reassignment_ratio?: number;
}

const EST = 'MiniBatchKMeans';
/** The most rows one execution draws for a pool of batches (the host keeps them while it steps). */
const POOL_ROWS = 1 << 16;

/** A float as Python prints it in scikit-learn's messages (-1 → -1.0). */
const pyFloat = (v: number): string => (Number.isInteger(v) ? `${v}.0` : String(v));

function paramError(name: string, rule: string, got: string): Error {
  return valueError(`The '${name}' parameter of ${EST} must be ${rule}. Got ${got} instead.`);
}

/** One batch on the host: rows (b × d, row-major) and their weights. */
interface Batch { x: Float64Array; w: Float64Array; b: number }

/** Each row's nearest center (ties to the lower index) and the weighted inertia: scikit-learn's _labels_inertia. */
function labelsInertia(B: Batch, C: Float64Array, k: number, d: number): { labels: Int32Array; inertia: number } {
  const labels = new Int32Array(B.b);
  let inertia = 0;
  for (let i = 0; i < B.b; i++) {
    let best = Infinity, at = 0;
    for (let j = 0; j < k; j++) {
      let s = 0;
      for (let f = 0; f < d; f++) { const t = B.x[i * d + f]! - C[j * d + f]!; s += t * t; }
      if (s < best) { best = s; at = j; }
    }
    labels[i] = at;
    inertia += best * B.w[i]!;
  }
  return { labels, inertia };
}

/** A seeded source of host draws for the reassignments (rare: a fetch each). */
type Rng = ReturnType<typeof mt.random.default_rng>;

/** The fitting state scikit-learn keeps between steps (and between partial_fit calls). */
interface State {
  centers: Float64Array;
  counts: Float64Array;
  sinceReassign: number;
  batchSize: number;
  rng: Rng;
}

export class MiniBatchKMeans {
  readonly n_clusters: number;
  readonly init: Init;
  readonly max_iter: number;
  readonly batch_size: number;
  readonly verbose: number;
  readonly compute_labels: boolean;
  readonly random_state?: number;
  readonly tol: number;
  readonly max_no_improvement: number | null;
  readonly init_size: number | null;
  readonly n_init: number | 'auto' | 'warn';
  readonly reassignment_ratio: number;
  cluster_centers_?: mt.Tensor;
  labels_?: mt.Tensor;
  inertia_?: number;
  n_iter_?: number;
  n_steps_?: number;
  n_features_in_?: number;
  private state?: State;

  constructor(opts: MiniBatchKMeansOptions = {}) {
    const o = options(EST, opts, {
      n_clusters: 8, init: 'k-means++' as Init, max_iter: 100, batch_size: 1024, verbose: 0, compute_labels: true,
      random_state: undefined as number | undefined, tol: 0, max_no_improvement: 10 as number | null, init_size: null as number | null,
      n_init: 'warn' as number | 'auto' | 'warn', reassignment_ratio: 0.01,
    });
    const int = (v: unknown, lo: number): boolean => typeof v === 'number' && Number.isInteger(v) && v >= lo;
    if (!int(o.n_clusters, 1)) throw paramError('n_clusters', 'an int in the range [1, inf)', String(o.n_clusters));
    if (typeof o.init === 'string' && o.init !== 'k-means++' && o.init !== 'random') {
      throw paramError('init', "a str among {'k-means++', 'random'}, a callable or an array-like", `'${o.init}'`);
    }
    if (!int(o.max_iter, 1)) throw paramError('max_iter', 'an int in the range [1, inf)', String(o.max_iter));
    if (!int(o.batch_size, 1)) throw paramError('batch_size', 'an int in the range [1, inf)', String(o.batch_size));
    if (!(o.tol >= 0)) throw paramError('tol', 'a float in the range [0, inf)', pyFloat(o.tol));
    if (o.max_no_improvement !== null && !int(o.max_no_improvement, 0)) {
      throw paramError('max_no_improvement', 'an int in the range [0, inf) or None', String(o.max_no_improvement));
    }
    if (o.init_size !== null && !int(o.init_size, 1)) throw paramError('init_size', 'an int in the range [1, inf) or None', String(o.init_size));
    if (o.n_init !== 'auto' && o.n_init !== 'warn' && !int(o.n_init, 1)) {
      throw paramError('n_init', "a str among {'auto'} or an int in the range [1, inf)", String(o.n_init));
    }
    if (!(o.reassignment_ratio >= 0)) throw paramError('reassignment_ratio', 'a float in the range [0, inf)', pyFloat(o.reassignment_ratio));
    if (typeof o.compute_labels !== 'boolean') throw paramError('compute_labels', 'an instance of \'bool\'', String(o.compute_labels));
    this.n_clusters = o.n_clusters; this.init = o.init; this.max_iter = o.max_iter; this.batch_size = o.batch_size; this.verbose = o.verbose;
    this.compute_labels = o.compute_labels; this.random_state = o.random_state; this.tol = o.tol;
    this.max_no_improvement = o.max_no_improvement; this.init_size = o.init_size; this.n_init = o.n_init;
    this.reassignment_ratio = o.reassignment_ratio;
  }

  /** _check_params_vs_input: n_init (1.2's 'warn' and 'auto' → 3 runs, 1 for k-means++ with 'auto' and for an array), batch and init sizes. */
  private sizes(n: number): { runs: number; batch: number; initSize: number } {
    const k = this.n_clusters;
    if (n < k) throw valueError(`n_samples=${n} should be >= n_clusters=${k}.`);
    const runs = typeof this.init !== 'string' ? 1 : typeof this.n_init === 'number' ? this.n_init
      : this.n_init === 'auto' && this.init === 'k-means++' ? 1 : 3;
    const batch = Math.min(this.batch_size, n);
    let initSize = this.init_size ?? 3 * batch;
    if (initSize < k) initSize = 3 * k; // scikit-learn warns when a given init_size is below n_clusters
    return { runs, batch, initSize: Math.min(initSize, n) };
  }

  /** The given init array, checked against k and d. */
  private async givenInit(d: number): Promise<Float64Array> {
    const c = checkX(this.init as Input, EST);
    if (c.shape[0] !== this.n_clusters || c.shape[1] !== d) {
      throw valueError(`The shape of the initial centers (${c.shape.join(', ')}) does not match the number of clusters ${this.n_clusters}.`);
    }
    return Float64Array.from(await numbers(c));
  }

  /** _init_centroids on a sample of initSize rows (drawn with replacement, as scikit-learn's randint), or on X when that is all of it. */
  private async drawInit(X: mt.Tensor, rng: Rng, initSize: number): Promise<Float64Array> {
    const n = X.shape[0]!;
    const sample = initSize < n ? await mt.take(X, rng.integers(0, n, [initSize]), { axis: 0 }).execute() : X;
    const seed = Number(await rng.integers(0, 2 ** 31, [1]).get(0).item());
    return this.init === 'random' ? randomRows(sample, this.n_clusters, seed) : (await plusPlus(sample, null, this.n_clusters, [seed])).centers[0]!;
  }

  /**
   * fit(X, y, sample_weight): n_init candidate inits on samples (the one of
   * least inertia on a validation sample kept), then up to
   * max_iter · n_samples / batch_size steps on batches drawn with
   * replacement, stopped early by scikit-learn's tests.
   */
  async fit(X: Input, _y?: unknown, sample_weight?: Input | null): Promise<this> {
    const x = checkX(X, EST);
    const [n, d] = x.shape as [number, number];
    const k = this.n_clusters;
    const w = sample_weight === null || sample_weight === undefined ? null : mt.astype(mt.reshape(asTensor(sample_weight, 'sample_weight'), [-1]), 'float64');
    if (w) sameSamples([x, w]);
    const { runs, batch, initSize } = this.sizes(n);
    const given = typeof this.init !== 'string' ? await this.givenInit(d) : null;
    await checkFinite([[x, 'X']], EST);
    const tol = this.tol > 0 ? Number(await mt.mean(mt.var(x, { axis: 0 })).item()) * this.tol : 0;
    const rng = mt.random.default_rng(this.random_state ?? Math.floor(Math.random() * 2 ** 31));
    const draw = async (rows: number): Promise<Batch> => {
      const at = rng.integers(0, n, [rows]);
      const xs = mt.take(x, at, { axis: 0 }), ws = w ? mt.take(w, at) : null;
      await mt.execute(xs, ...(ws ? [ws] : []));
      return { x: Float64Array.from(await numbers(xs)), w: ws ? Float64Array.from(await numbers(ws)) : new Float64Array(rows).fill(1), b: rows };
    };

    let centers: Float64Array;
    if (given) centers = given;
    else {
      const valid = runs > 1 ? await draw(initSize) : null;
      let best = Infinity;
      centers = new Float64Array(0);
      for (let r = 0; r < runs; r++) {
        const c = await this.drawInit(x, rng, initSize);
        const inertia = valid ? labelsInertia(valid, c, k, d).inertia : 0;
        if (r === 0 || inertia < best) { best = inertia; centers = c; }
      }
    }

    const st: State = { centers, counts: new Float64Array(k), sinceReassign: 0, batchSize: batch, rng };
    const nSteps = Math.floor((this.max_iter * n) / batch);
    const conv = { ewa: null as number | null, ewaMin: null as number | null, noImprovement: 0 };
    const perPool = Math.max(1, Math.floor(POOL_ROWS / batch));
    let i = 0;
    run: while (i < nSteps) {
      const m = Math.min(perPool, nSteps - i);
      const pool = await draw(m * batch);
      for (let s = 0; s < m; s++, i++) {
        const B: Batch = { x: pool.x.subarray(s * batch * d, (s + 1) * batch * d), w: pool.w.subarray(s * batch, (s + 1) * batch), b: batch };
        const old = st.centers;
        const inertia = await this.step(st, B, d);
        let shift = 0;
        if (tol > 0) for (let t = 0; t < k * d; t++) shift += (st.centers[t]! - old[t]!) ** 2;
        report({ estimator: EST, step: i + 1, inertia: inertia / batch }, i + 1, nSteps);
        if (this.converged(i, n, batch, shift, tol, inertia, conv)) break run;
      }
    }
    const steps = Math.min(i + 1, nSteps);
    const C = mt.tensor(st.centers).reshape([k, d]);
    this.cluster_centers_ = await C.execute();
    this.state = st;
    this.n_features_in_ = d;
    this.n_steps_ = steps;
    this.n_iter_ = Math.ceil((steps * batch) / n);
    if (this.compute_labels) {
      const labels = kmeansAssign(x, C), acc = kmeansStep(x, C, w);
      await mt.execute(labels, acc);
      this.labels_ = labels;
      this.inertia_ = (await numbers(acc))[k * d + k]!;
    } else {
      this.labels_ = undefined;
      this.inertia_ = (conv.ewa ?? 0) * n;
    }
    return this;
  }

  /**
   * _mini_batch_convergence after step i (0-based): the first step only
   * starts the average; then the centers' shift against tol, and the
   * average's lack of improvement against max_no_improvement.
   */
  private converged(i: number, n: number, batch: number, shift: number, tol: number, inertia: number,
    c: { ewa: number | null; ewaMin: number | null; noImprovement: number }): boolean {
    const mean = inertia / batch;
    if (i === 0) return false;
    if (c.ewa === null) c.ewa = mean;
    else {
      const alpha = Math.min(1, (batch * 2) / (n + 1));
      c.ewa = c.ewa * (1 - alpha) + mean * alpha;
    }
    if (tol > 0 && shift <= tol) return true;
    if (c.ewaMin === null || c.ewa < c.ewaMin) { c.noImprovement = 0; c.ewaMin = c.ewa; } else c.noImprovement++;
    return this.max_no_improvement !== null && c.noImprovement >= this.max_no_improvement;
  }

  /**
   * _mini_batch_step on one batch: the labels and inertia on the centers
   * before, each center moved to the weighted mean of all the rows it has
   * had (its count undone, the batch's rows added, divided by the new
   * count), then the reassignment of light centers to random rows of the
   * batch (every 10 · n_clusters rows seen, or while a count is zero).
   * Updates `st` and returns the batch's inertia.
   */
  private async step(st: State, B: Batch, d: number): Promise<number> {
    const k = this.n_clusters;
    const { labels, inertia } = labelsInertia(B, st.centers, k, d);
    st.sinceReassign += st.batchSize;
    let reassign = false;
    if (st.counts.some((v) => v === 0) || st.sinceReassign >= 10 * k) { st.sinceReassign = 0; reassign = true; }
    const next = new Float64Array(k * d), wsum = new Float64Array(k);
    for (let i = 0; i < B.b; i++) wsum[labels[i]!]! += B.w[i]!;
    for (let j = 0; j < k; j++) {
      if (wsum[j]! > 0) for (let f = 0; f < d; f++) next[j * d + f] = st.centers[j * d + f]! * st.counts[j]!;
      else for (let f = 0; f < d; f++) next[j * d + f] = st.centers[j * d + f]!;
    }
    for (let i = 0; i < B.b; i++) {
      const j = labels[i]!, wi = B.w[i]!;
      for (let f = 0; f < d; f++) next[j * d + f]! += wi * B.x[i * d + f]!;
    }
    for (let j = 0; j < k; j++) {
      if (!(wsum[j]! > 0)) continue;
      st.counts[j]! += wsum[j]!;
      const alpha = 1 / st.counts[j]!;
      for (let f = 0; f < d; f++) next[j * d + f]! *= alpha;
    }
    if (reassign && this.reassignment_ratio > 0) await this.reassign(st, B, next, d);
    st.centers = next;
    return inertia;
  }

  /** The reassignment: centers of count below ratio · max (at most half a batch of them, the lightest) take distinct random rows of the batch. */
  private async reassign(st: State, B: Batch, next: Float64Array, d: number): Promise<void> {
    const k = this.n_clusters, counts = st.counts;
    const top = Math.max(...counts);
    const to = Array.from(counts, (v) => v < this.reassignment_ratio * top);
    if (to.filter(Boolean).length > 0.5 * B.b) {
      const order = Array.from({ length: k }, (_, j) => j).sort((a, b) => counts[a]! - counts[b]! || a - b);
      for (const j of order.slice(Math.floor(0.5 * B.b))) to[j] = false;
    }
    const moved = to.flatMap((v, j) => (v ? [j] : []));
    if (!moved.length) return;
    // distinct rows in random order: the first of an argsort of uniforms
    const u = await numbers(st.rng.random([B.b]));
    const rows = Array.from({ length: B.b }, (_, i) => i).sort((a, b) => u[a]! - u[b]! || a - b).slice(0, moved.length);
    moved.forEach((j, t) => next.set(B.x.subarray(rows[t]! * d, (rows[t]! + 1) * d), j * d));
    const rest = Array.from(counts).filter((_, j) => !to[j]);
    if (rest.length) { const least = Math.min(...rest); for (const j of moved) counts[j] = least; }
  }

  /**
   * partial_fit(X, y, sample_weight): one step on the batch X (all its
   * rows). The first call initializes the centers from X (or takes `init`);
   * later calls continue from the counts kept.
   */
  async partial_fit(X: Input, _y?: unknown, sample_weight?: Input | null): Promise<this> {
    const x = checkX(X, EST);
    const [b, d] = x.shape as [number, number];
    const k = this.n_clusters;
    if (this.state) sameFeatures(x, this.n_features_in_!, EST);
    const w = sample_weight === null || sample_weight === undefined ? null : mt.astype(mt.reshape(asTensor(sample_weight, 'sample_weight'), [-1]), 'float64');
    if (w) sameSamples([x, w]);
    await checkFinite([[x, 'X']], EST);
    if (!this.state) {
      const { batch, initSize } = this.sizes(b);
      const rng = mt.random.default_rng(this.random_state ?? Math.floor(Math.random() * 2 ** 31));
      const centers = typeof this.init !== 'string' ? await this.givenInit(d) : await this.drawInit(x, rng, initSize);
      this.state = { centers, counts: new Float64Array(k), sinceReassign: 0, batchSize: batch, rng };
      this.n_features_in_ = d;
      this.n_steps_ = 0;
    }
    const B: Batch = { x: Float64Array.from(await numbers(x)), w: w ? Float64Array.from(await numbers(w)) : new Float64Array(b).fill(1), b };
    await this.step(this.state, B, d);
    this.cluster_centers_ = await mt.tensor(this.state.centers).reshape([k, d]).execute();
    if (this.compute_labels) {
      const { labels, inertia } = labelsInertia(B, this.state.centers, k, d);
      this.labels_ = mt.tensor(labels);
      this.inertia_ = inertia;
    }
    this.n_steps_! += 1;
    return this;
  }

  /** The nearest center of each row (int32). */
  async predict(X: Input, _sample_weight?: Input | null): Promise<mt.Tensor> {
    const C = fitted(this.cluster_centers_, EST);
    return kmeansAssign(fittedInput(X, this.n_features_in_, EST), C).execute();
  }

  async fit_predict(X: Input, y?: unknown, sample_weight?: Input | null): Promise<mt.Tensor> {
    await this.fit(X, y, sample_weight);
    return this.labels_ ?? this.predict(X);
  }

  /** The euclidean distance of each row to each center: (n, k). */
  async transform(X: Input): Promise<mt.Tensor> {
    const C = fitted(this.cluster_centers_, EST);
    return mt.sqrt(kmeansDist2(fittedInput(X, this.n_features_in_, EST), C)).execute();
  }

  async fit_transform(X: Input, y?: unknown, sample_weight?: Input | null): Promise<mt.Tensor> {
    return (await this.fit(X, y, sample_weight)).transform(X);
  }

  /** The opposite of the (weighted) inertia of X on the fitted centers. */
  async score(X: Input, _y?: unknown, sample_weight?: Input | null): Promise<number> {
    const C = fitted(this.cluster_centers_, EST);
    const x = fittedInput(X, this.n_features_in_, EST);
    const w = sample_weight === null || sample_weight === undefined ? null : mt.astype(mt.reshape(asTensor(sample_weight, 'sample_weight'), [-1]), 'float64');
    if (w) sameSamples([x, w]);
    const k = this.n_clusters, d = this.n_features_in_!;
    return -(await numbers(kmeansStep(x, C, w)))[k * d + k]!;
  }
}
