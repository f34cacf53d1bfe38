// sklearn.neighbors: NearestNeighbors, KNeighborsClassifier and
// KNeighborsRegressor by an exact search. In: the indexed rows X (fit),
// queries, labels or targets. Out: [distances, indices] (float64, int64),
// predictions and class probabilities.
//
// A query is one `knn` routine call per block of query rows (at least four
// blocks, so that every thread works; runtime/neighbors.ts): it reads its
// block and every block of the indexed rows, each as its own region (a peer
// is sent the indexed rows once, as a small side), builds a kd-tree over
// them, and keeps each query's k nearest in float64 with the exact
// distance, ties to the lower index (the tree only skips rows that exact
// bounds exclude). Euclidean, manhattan,
// chebyshev and minkowski rank by a monotone image of the distance (the
// host's pass takes the root); cosine ranks by the euclidean distance of
// the rows scaled to unit norm (1 − cos = ‖x̂ − ŷ‖²/2). scikit-learn's
// 'auto', 'kd_tree' and 'ball_tree' give the same neighbours (ties aside);
// every algorithm runs as that one exact search here. With options.device
// 'webgpu' (or 'auto' on a hardware GPU), the metrics that rank by squared
// euclidean distance search on the GPU instead (./neighbors_gpu.ts), with
// the same answer to the bit.

import * as mt from '../api/tensor.js';
import * as G from '../graph/node.js';
import { accuracy_score, r2_score } from './metrics.js';
import { gpuKnn } from './neighbors_gpu.js';
import { type CsrGraph, graphMode, int64, radiusImage, radiusSearch } from './radius.js';
import {
  type Input, asTensor, checkFinite, checkX, fitted, labelsOf, numbers, options, sameFeatures, sameSamples, stringCategories, valueError,
} from './base.js';

export type NeighborMetric = 'euclidean' | 'l2' | 'sqeuclidean' | 'manhattan' | 'cityblock' | 'l1' | 'chebyshev' | 'minkowski' | 'cosine';

export interface NeighborsOptions {
  n_neighbors?: number;
  radius?: number;
  algorithm?: 'auto' | 'ball_tree' | 'kd_tree' | 'brute';
  leaf_size?: number;
  metric?: NeighborMetric;
  p?: number;
  metric_params?: null;
  n_jobs?: number | null;
}

/** The routine's metric, its exponent, and the map from its value to the distance. */
function metricOf(metric: NeighborMetric, p: number): { kind: string; p: number; finish: (t: mt.Tensor) => mt.Tensor; unit: boolean } {
  switch (metric) {
    case 'euclidean': case 'l2': return { kind: 'sqeuclidean', p: 2, finish: mt.sqrt, unit: false };
    case 'sqeuclidean': return { kind: 'sqeuclidean', p: 2, finish: (t) => t, unit: false };
    case 'manhattan': case 'cityblock': case 'l1': return { kind: 'manhattan', p: 1, finish: (t) => t, unit: false };
    case 'chebyshev': return { kind: 'chebyshev', p: 1, finish: (t) => t, unit: false };
    case 'cosine': return { kind: 'sqeuclidean', p: 2, finish: (t) => mt.divide(t, 2), unit: true };
    case 'minkowski':
      if (!(p >= 1)) throw valueError(`p must be greater or equal to one for minkowski metric`);
      if (p === 2) return { kind: 'sqeuclidean', p: 2, finish: mt.sqrt, unit: false };
      if (p === 1) return { kind: 'manhattan', p: 1, finish: (t) => t, unit: false };
      return { kind: 'minkowski', p, finish: (t) => mt.power(t, 1 / p), unit: false };
    default: throw valueError(`Metric '${String(metric)}' not valid. learn's neighbours know euclidean, sqeuclidean, ` +
      `manhattan, chebyshev, minkowski and cosine.`);
  }
}

/** Rows scaled to unit euclidean norm (a zero row stays zero). */
function unitRows(x: mt.Tensor): mt.Tensor {
  const nrm = mt.sqrt(mt.sum(mt.multiply(x, x), { axis: 1, keepdims: true }));
  return mt.divide(x, mt.where(mt.equal(nrm, 0), 1, nrm));
}

/** Blocks of whole rows: [start, end) per chunk of x. */
function rowBlocks(x: mt.Tensor): [number, number][] {
  const n = x.shape[0]!, c = Math.max(1, x.node.chunk[0]!);
  return Array.from({ length: Math.ceil(n / c) }, (_, j) => [j * c, Math.min(n, (j + 1) * c)]);
}

/** At least this many calls share the queries (so that every thread gets some), each of at least MIN_CALL_ROWS rows. */
const MIN_CALLS = 4, MIN_CALL_ROWS = 1024;

/** Blocks of query rows, one per call: the chunks of q, cut smaller where fewer than MIN_CALLS of them. */
function queryBlocks(q: mt.Tensor): [number, number][] {
  const n = q.shape[0]!, c = Math.max(1, q.node.chunk[0]!);
  const r = Math.max(1, Math.min(c, Math.max(MIN_CALL_ROWS, Math.ceil(n / MIN_CALLS))));
  return Array.from({ length: Math.ceil(n / r) }, (_, j) => [j * r, Math.min(n, (j + 1) * r)]);
}

/** The k nearest indexed rows of every query: (n_q, 2k) = distances' images, then indices. */
function knn(q: mt.Tensor, x: mt.Tensor, k: number, self: boolean, kind: string, p: number): mt.Tensor {
  const d = q.shape[1]!;
  const qb = queryBlocks(q), xb = rowBlocks(x);
  const calls = qb.map(([a, b], j): G.RoutineCall => ({
    routine: 'knn', chunk: j, params: { k, d, m: xb.length, self, metric: kind, p },
    reads: [{ input: 0, box: [[a, b], [0, d]] }, ...xb.map(([u, v]) => ({ input: 1, box: [[u, v], [0, d]] as [number, number][] }))],
  }));
  const rows = qb.length ? qb[0]![1] - qb[0]![0] : 1;
  return new mt.Tensor(G.routine('neighbors.knn', [q.node, x.node], calls, 'float64', [q.shape[0]!, 2 * k], [rows, 2 * k]));
}

/** The shared state of the k-neighbours estimators: the indexed rows and the search. */
abstract class NeighborsBase {
  readonly n_neighbors: number;
  readonly radius: number;
  readonly algorithm: string;
  readonly leaf_size: number;
  readonly metric: NeighborMetric;
  readonly p: number;
  n_samples_fit_?: number;
  n_features_in_?: number;
  effective_metric_?: string;
  protected fitX?: mt.Tensor;
  protected abstract get estName(): string;

  protected constructor(est: string, opts: object, extra: object = {}) {
    const o = options(est, opts, {
      n_neighbors: 5, radius: 1, algorithm: 'auto' as string, leaf_size: 30, metric: 'minkowski' as NeighborMetric, p: 2,
      metric_params: null as null, n_jobs: null as number | null, ...extra,
    });
    if (!Number.isInteger(o.n_neighbors) || o.n_neighbors < 1) throw valueError(`Expected n_neighbors > 0. Got ${o.n_neighbors}`);
    if (!['auto', 'ball_tree', 'kd_tree', 'brute'].includes(o.algorithm)) {
      throw valueError(`The 'algorithm' parameter of ${est} must be a str among {'auto', 'ball_tree', 'kd_tree', 'brute'}. Got '${o.algorithm}' instead.`);
    }
    metricOf(o.metric, o.p);
    this.n_neighbors = o.n_neighbors; this.radius = o.radius; this.algorithm = o.algorithm; this.leaf_size = o.leaf_size;
    this.metric = o.metric; this.p = o.p;
  }

  protected async fitRows(X: Input): Promise<mt.Tensor> {
    const x = checkX(X, this.estName);
    await checkFinite([[x, 'X']], this.estName);
    const m = metricOf(this.metric, this.p);
    this.fitX = await (m.unit ? unitRows(x) : x).execute();
    this.n_samples_fit_ = x.shape[0];
    this.n_features_in_ = x.shape[1];
    this.effective_metric_ = this.metric === 'minkowski' ? (this.p === 2 ? 'euclidean' : this.p === 1 ? 'manhattan' : 'minkowski') : this.metric;
    return x;
  }

  /** Query rows given to a fitted estimator: checked as its fit was (features, finite), unit rows for cosine. */
  protected async queries(X: Input, unit: boolean): Promise<mt.Tensor> {
    const q = checkX(X, this.estName);
    sameFeatures(q, this.n_features_in_!, this.estName);
    await checkFinite([[q, 'X']], this.estName);
    return unit ? unitRows(q) : q;
  }

  /**
   * kneighbors(X=None, n_neighbors, return_distance): [distances, indices]
   * of each query's nearest indexed rows, nearest first; without X, each
   * indexed row's neighbours other than itself.
   */
  async kneighbors(X?: Input | null, opts: { n_neighbors?: number; return_distance?: boolean } = {}): Promise<mt.Tensor[]> {
    const fx = fitted(this.fitX, this.estName);
    const k = opts.n_neighbors ?? this.n_neighbors;
    if (!Number.isInteger(k) || k < 1) throw valueError(`Expected n_neighbors > 0. Got ${k}`);
    const self = X === undefined || X === null;
    const n = this.n_samples_fit_!;
    if (k > n - (self ? 1 : 0)) {
      throw valueError(`Expected n_neighbors <= n_samples,  but n_samples = ${n}, n_neighbors = ${k + (self ? 1 : 0)}`);
    }
    const m = metricOf(this.metric, this.p);
    const q = self ? fx : await this.queries(X, m.unit);
    const r = (await gpuKnn(q, fx, k, self, m.kind)) ?? knn(q, fx, k, self, m.kind, m.p);
    const ind = mt.astype(r.get(mt.slice(null), mt.slice(k, 2 * k)), 'int64');
    if (opts.return_distance === false) return [await ind.execute()];
    const dist = m.finish(r.get(mt.slice(null), mt.slice(0, k)));
    await mt.execute(dist, ind);
    return [dist, ind];
  }
  /**
   * kneighbors_graph(X=None, n_neighbors, mode): the k-neighbours graph as
   * CSR (./radius.ts's CsrGraph): each query's row holds its k nearest,
   * nearest first, with ones ('connectivity') or the distances ('distance').
   */
  async kneighbors_graph(X?: Input | null, opts: { n_neighbors?: number; mode?: 'connectivity' | 'distance' } = {}): Promise<CsrGraph> {
    fitted(this.fitX, this.estName);
    const mode = graphMode(opts.mode ?? 'connectivity');
    const k = opts.n_neighbors ?? this.n_neighbors;
    const res = await this.kneighbors(X, { n_neighbors: k, return_distance: mode === 'distance' });
    const ind = res.at(-1)!, nq = ind.shape[0]!;
    const data = mode === 'distance' ? mt.reshape(res[0]!, [-1]) : mt.ones([nq * k]);
    return { data, indices: mt.reshape(ind, [-1]), indptr: mt.arange(0, nq * k + 1, k, { dtype: 'int64' }), shape: [nq, this.n_samples_fit_!] };
  }
}

/** sklearn.neighbors.NearestNeighbors (unsupervised). */
export class NearestNeighbors extends NeighborsBase {
  constructor(opts: NeighborsOptions = {}) { super('NearestNeighbors', opts); }
  protected get estName(): string { return 'NearestNeighbors'; }
  async fit(X: Input, _y?: unknown): Promise<this> { await this.fitRows(X); return this; }


  /**
   * radius_neighbors(X=None, radius, return_distance, sort_results):
   * [distances, indices] (or [indices]), each a JS array with one tensor per
   * query (float64 distances, int64 indices: scikit-learn's object arrays),
   * the indexed rows within `radius` (distance <= radius); in ascending
   * index order, or nearest first with sort_results. Without X, each
   * indexed row's neighbours other than itself. Chunked over the queries
   * (./radius.ts).
   */
  async radius_neighbors(X?: Input | null, opts: { radius?: number; return_distance?: boolean; sort_results?: boolean } = {}):
    Promise<[mt.Tensor[], mt.Tensor[]] | [mt.Tensor[]]> {
    const ret = opts.return_distance ?? true, sort = opts.sort_results ?? false;
    const found = await this.within(X, opts.radius, ret, sort);
    const ind = found.map((f) => int64(f.ind));
    return ret ? [found.map((f) => mt.tensor(Float64Array.from(f.dist))), ind] : [ind];
  }

  /** The neighbours within the radius of each query, on the host: distances and indices per query. */
  private async within(X: Input | null | undefined, r: number | undefined, withDistance: boolean, sort: boolean): Promise<{ dist: number[]; ind: number[] }[]> {
    const fx = fitted(this.fitX, this.estName);
    if (sort && !withDistance) throw valueError('return_distance must be True if sort_results is True.');
    const radius = r ?? this.radius;
    const self = X === undefined || X === null;
    const m = metricOf(this.metric, this.p);
    const q = self ? fx : await (await this.queries(X, m.unit)).execute();
    const image = radiusImage(this.metric, this.p, radius);
    const hit = await radiusSearch(q, fx, queryBlocks(q), rowBlocks(fx), { kind: m.kind, p: m.p, bound: image * (1 + 1e-9), self });
    const dist = hit.images.length ? await numbers(m.finish(mt.tensor(Float64Array.from(hit.images)))) : [];
    const out: { dist: number[]; ind: number[] }[] = [];
    let at = 0;
    for (const c of hit.counts) {
      const keep: number[] = [];
      for (let i = at; i < at + c; i++) if (dist[i]! <= radius) keep.push(i);
      // nearest first, ties in index order (scikit-learn's stable sort of the brute search's index-ordered rows)
      if (sort) keep.sort((a, b) => dist[a]! - dist[b]! || a - b);
      out.push({ dist: keep.map((i) => dist[i]!), ind: keep.map((i) => hit.indices[i]!) });
      at += c;
    }
    return out;
  }

  /**
   * radius_neighbors_graph(X=None, radius, mode, sort_results): the graph
   * of the neighbours within the radius as CSR (./radius.ts's CsrGraph):
   * ones ('connectivity') or the distances ('distance').
   */
  async radius_neighbors_graph(X?: Input | null, opts: { radius?: number; mode?: 'connectivity' | 'distance'; sort_results?: boolean } = {}):
    Promise<CsrGraph> {
    fitted(this.fitX, this.estName);
    const mode = graphMode(opts.mode ?? 'connectivity');
    const found = await this.within(X, opts.radius, mode === 'distance', mode === 'distance' && (opts.sort_results ?? false));
    const indptr = [0];
    for (const f of found) indptr.push(indptr.at(-1)! + f.ind.length);
    const nnz = indptr.at(-1)!;
    return {
      data: mode === 'distance' ? mt.tensor(Float64Array.from(found.flatMap((f) => f.dist))) : mt.ones([nnz]),
      indices: int64(found.flatMap((f) => f.ind)), indptr: int64(indptr), shape: [found.length, this.n_samples_fit_!],
    };
  }
}

export interface KNeighborsOptions extends NeighborsOptions { weights?: 'uniform' | 'distance' }

/** The weights option of the k-neighbours estimators, checked. */
function weightsOption(opts: KNeighborsOptions): 'uniform' | 'distance' {
  const w = opts.weights ?? 'uniform';
  if (w !== 'uniform' && w !== 'distance') throw valueError(`weights not recognized: should be 'uniform', 'distance'`);
  return w;
}

/** Neighbour weights per query: uniform ones, or 1/d (a zero distance takes all the weight, as scikit-learn gives it). */
function neighborWeights(dist: mt.Tensor, weights: 'uniform' | 'distance'): mt.Tensor {
  if (weights === 'uniform') return mt.ones_like(dist);
  const zero = mt.equal(dist, 0);
  const anyZero = mt.any(zero, { axis: 1, keepdims: true });
  return mt.where(anyZero, mt.astype(zero, 'float64'), mt.divide(1, mt.where(zero, 1, dist)));
}

/** sklearn.neighbors.KNeighborsClassifier: the weighted vote of the k nearest (ties to the smallest class). */
export class KNeighborsClassifier extends NeighborsBase {
  readonly weights: 'uniform' | 'distance';
  classes_?: mt.Tensor | string[];
  private codes?: mt.Tensor;
  constructor(opts: KNeighborsOptions = {}) {
    super('KNeighborsClassifier', opts, { weights: 'uniform' });
    this.weights = weightsOption(opts);
  }
  protected get estName(): string { return 'KNeighborsClassifier'; }

  async fit(X: Input, y: Input | readonly string[]): Promise<this> {
    const x = await this.fitRows(X);
    const l = labelsOf(y, 'y');
    if (l.kind === 'str') {
      const classes = await stringCategories(l.codes, l.dict);
      const rank = new Map(classes.map((c, i) => [c, i]));
      this.codes = await mt.take(mt.tensor(Float64Array.from(l.dict, (s) => rank.get(s) ?? -1)), l.codes).execute();
      this.classes_ = classes;
    } else {
      const classes = await (mt.unique(l.t) as mt.Tensor).execute();
      this.codes = await mt.astype(mt.searchsorted(classes, l.t), 'float64').execute();
      this.classes_ = classes;
    }
    sameSamples([x, this.codes]);
    return this;
  }

  async predict_proba(X?: Input | null): Promise<mt.Tensor> {
    const codes = fitted(this.codes, 'KNeighborsClassifier');
    const [dist, ind] = await this.kneighbors(X);
    const K = Array.isArray(this.classes_) ? this.classes_.length : (this.classes_ as mt.Tensor).shape[0]!;
    const votes = mt.take(codes, ind!); // n_q × k class indices
    const w = neighborWeights(dist!, this.weights);
    const per = mt.stack(Array.from({ length: K }, (_, c) => mt.sum(mt.multiply(w, mt.equal(votes, c)), { axis: 1 })), { axis: 1 });
    return mt.divide(per, mt.sum(per, { axis: 1, keepdims: true })).execute();
  }

  async predict(X?: Input | null): Promise<mt.Tensor | string[]> {
    const idx = mt.argmax(await this.predict_proba(X), { axis: 1 });
    const classes = this.classes_!;
    if (Array.isArray(classes)) return (await numbers(idx)).map((i) => classes[i]!);
    return mt.take(classes, idx).execute();
  }

  async score(X: Input, y: Input | readonly string[]): Promise<number> {
    return accuracy_score(y, (await this.predict(X)) as Input);
  }
}

/** sklearn.neighbors.KNeighborsRegressor: the (weighted) mean target of the k nearest. */
export class KNeighborsRegressor extends NeighborsBase {
  readonly weights: 'uniform' | 'distance';
  private targets?: mt.Tensor;
  constructor(opts: KNeighborsOptions = {}) {
    super('KNeighborsRegressor', opts, { weights: 'uniform' });
    this.weights = weightsOption(opts);
  }
  protected get estName(): string { return 'KNeighborsRegressor'; }

  async fit(X: Input, y: Input): Promise<this> {
    const x = await this.fitRows(X);
    const t = mt.astype(asTensor(y, 'y'), 'float64');
    sameSamples([x, t]);
    this.targets = await t.execute();
    return this;
  }

  async predict(X?: Input | null): Promise<mt.Tensor> {
    const t = fitted(this.targets, 'KNeighborsRegressor');
    const [dist, ind] = await this.kneighbors(X);
    const w = neighborWeights(dist!, this.weights);
    const wsum = mt.sum(w, { axis: 1, keepdims: true });
    if (t.ndim === 1) return mt.divide(mt.sum(mt.multiply(w, mt.take(t, ind!)), { axis: 1 }), mt.reshape(wsum, [-1])).execute();
    const vals = mt.take(t, ind!, { axis: 0 }); // n_q × k × outputs
    return mt.divide(mt.sum(mt.multiply(mt.expand_dims(w, 2), vals), { axis: 1 }), wsum).execute();
  }

  async score(X: Input, y: Input): Promise<number> {
    return (await r2_score(y, await this.predict(X))) as number;
  }
}
