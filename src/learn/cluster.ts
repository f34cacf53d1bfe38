// sklearn.cluster.KMeans: Lloyd's algorithm over row chunks. In: X
// (n_samples, n_features), optional sample weights. Out: cluster_centers_,
// labels_, inertia_, n_iter_ (tensors, numbers), predictions and distances.
//
// An iteration is one pass of the `kstep` routine (runtime/cluster.ts) over
// each block of rows: the nearest centers, and per block only k·(d + 1) + 3
// numbers — per-center sums and weights, the inertia, and two label sums
// that tell the host whether any label changed. The combine is the tensor
// layer's tree of sums; the host divides, moves an emptied center onto the
// row farthest from its own center (scikit-learn's relocation), and tests
// convergence as scikit-learn does: labels unchanged (strict), or the
// centers' total squared shift at most tol · mean feature variance. X is
// centered on its mean first, as scikit-learn centers dense data, so the
// centers and the inertia follow its arithmetic closely. k-means++ (its
// greedy variant: 2 + ln k candidates a step, the best kept) draws from the
// potential's chunked cumulative sum with Tessera's Philox generator, so a
// seed gives the same centers on any chunking; it is not scikit-learn's draw
// for the same seed. From a given `init`, the centers, labels, inertia and
// n_iter_ are scikit-learn's.

import * as mt from '../api/tensor.js';
import * as G from '../graph/node.js';
import {
  type Input, asTensor, checkFinite, checkX, fitted, fittedInput, numbers, options, report, sameSamples, valueError,
} from './base.js';

type Init = 'k-means++' | 'random' | Input;

export interface KMeansOptions {
  n_clusters?: number;
  init?: Init;
  n_init?: number | 'auto' | 'warn';
  max_iter?: number;
  tol?: number;
  verbose?: number;
  random_state?: number;
  copy_x?: boolean;
  algorithm?: 'lloyd' | 'elkan' | 'auto' | 'full';
}

/** Routine calls a pass over the rows is cut into at least: enough for every core to take a share. */
const MIN_BLOCKS = 16;

/**
 * Rows per routine call: equal blocks, at least MIN_BLOCKS of them, and no
 * longer than X's row chunks (a block across two chunks reads a copy of its
 * rows; the rest read views). Their length is the chunk of a per-row result.
 */
export function blockRows(X: mt.Tensor): number {
  const n = X.shape[0]!, c = Math.max(1, X.node.chunk[0]!);
  return Math.max(1, Math.min(c, Math.ceil(n / MIN_BLOCKS)));
}

/** The row ranges of the routine calls of a pass over X (shared with learn/logistic.ts). */
export function blocks(X: mt.Tensor): [number, number][] {
  const n = X.shape[0]!, L = blockRows(X);
  return Array.from({ length: Math.ceil(n / L) }, (_, j) => [j * L, Math.min(n, (j + 1) * L)]);
}

/** One Lloyd step's combined row: [k·d sums | k weights | inertia | h1 | h2]. */
function step(X: mt.Tensor, C: mt.Tensor, w: mt.Tensor | null): mt.Tensor {
  const [k, d] = C.shape as [number, number];
  const calls = blocks(X).map(([a, b], j): G.RoutineCall => ({
    routine: 'kstep', params: { k, d, weighted: !!w }, chunk: j,
    reads: [{ input: 0, box: [[a, b], [0, d]] }, { input: 1, box: [[0, k], [0, d]] }, ...(w ? [{ input: 2, box: [[a, b]] as [number, number][] }] : [])],
  }));
  const width = k * d + k + 3;
  const parts = new mt.Tensor(G.routine('kmeans.step', [X.node, C.node, ...(w ? [w.node] : [])], calls, 'float64', [calls.length, width], [1, width]));
  return calls.length === 1 ? mt.reshape(parts, [width]) : mt.sum(parts, { axis: 0 });
}

/** Each row's nearest center: int32 labels. */
function assign(X: mt.Tensor, C: mt.Tensor): mt.Tensor {
  const [k, d] = C.shape as [number, number];
  const bs = blocks(X);
  const calls = bs.map(([a, b], j): G.RoutineCall => ({
    routine: 'kassign', params: { k, d }, chunk: j, reads: [{ input: 0, box: [[a, b], [0, d]] }, { input: 1, box: [[0, k], [0, d]] }],
  }));
  return new mt.Tensor(G.routine('kmeans.assign', [X.node, C.node], calls, 'int32', [X.shape[0]!], [blockRows(X)]));
}

/** The squared distances of each row to each of a few centers: (n, k), by the kdist routine. */
function dist2(X: mt.Tensor, C: mt.Tensor): mt.Tensor {
  const [k, d] = C.shape as [number, number];
  const bs = blocks(X);
  const calls = bs.map(([a, b], j): G.RoutineCall => ({
    routine: 'kdist', params: { k, d }, chunk: j, reads: [{ input: 0, box: [[a, b], [0, d]] }, { input: 1, box: [[0, k], [0, d]] }],
  }));
  return new mt.Tensor(G.routine('kmeans.dist', [X.node, C.node], calls, 'float64', [X.shape[0]!, k], [blockRows(X), k]));
}

const matrix = (v: ArrayLike<number>, k: number, d: number): mt.Tensor => mt.tensor(Float64Array.from(v)).reshape([k, d]);

/** One k-means run from `centers` (k × d, on the centered X): scikit-learn's _kmeans_single_lloyd. */
async function lloyd(X: mt.Tensor, w: mt.Tensor | null, init: Float64Array, k: number, maxIter: number, tol: number, run = '1/1') {
  const d = X.shape[1]!;
  let centers = init;
  let prev: [number, number] | null = null;
  let iter = 0;
  for (iter = 0; iter < maxIter; iter++) {
    const acc = await numbers(step(X, matrix(centers, k, d), w));
    const next = new Float64Array(k * d);
    const weight = acc.slice(k * d, k * d + k);
    const empty = weight.flatMap((v, j) => (v === 0 ? [j] : []));
    const sums = acc.slice(0, k * d);
    if (empty.length) await relocate(X, w, centers, k, empty, sums, weight);
    for (let j = 0; j < k; j++) for (let f = 0; f < d; f++) next[j * d + f] = weight[j]! > 0 ? sums[j * d + f]! / weight[j]! : centers[j * d + f]!;
    let shift = 0;
    for (let i = 0; i < k * d; i++) shift += (next[i]! - centers[i]!) ** 2;
    centers = next;
    report({ estimator: 'KMeans', run, iteration: iter + 1, inertia: acc[k * d + k]! }, iter + 1, maxIter);
    const h: [number, number] = [acc[k * d + k + 1]!, acc[k * d + k + 2]!];
    if (prev && prev[0] === h[0] && prev[1] === h[1]) break; // strict convergence: no label changed
    if (shift <= tol) break;
    prev = h;
  }
  const C = matrix(centers, k, d);
  const inertia = (await numbers(step(X, C, w)))[k * d + k]!;
  return { centers, inertia, n_iter: Math.min(iter + 1, maxIter) };
}

/**
 * _relocate_empty_clusters_dense: each empty center takes the row farthest
 * from its own center (farthest first), moved out of its old cluster's sums.
 */
async function relocate(X: mt.Tensor, w: mt.Tensor | null, centers: Float64Array, k: number, empty: number[], sums: number[], weight: number[]): Promise<void> {
  const d = X.shape[1]!;
  const C = matrix(centers, k, d);
  const labels = assign(X, C);
  const own = mt.take(C, labels, { axis: 0 });
  const dist = mt.sum(mt.square(mt.subtract(X, own)), { axis: 1 });
  const order = mt.argsort(dist, { kind: 'stable' });
  const far = await numbers(order.get(mt.slice(-empty.length, null)));
  far.reverse();
  for (const [i, j] of empty.entries()) {
    const r = far[i]!;
    const row = await numbers(X.get(r));
    const old = Number(await labels.get(r).item());
    const wt = w ? Number(await w.get(r).item()) : 1;
    for (let f = 0; f < d; f++) { sums[old * d + f]! -= row[f]! * wt; sums[j * d + f] = row[f]! * wt; }
    weight[j] = wt; weight[old]! -= wt;
  }
}

/** A seeded generator for one init (Tessera's Philox streams). */
const rngOf = (seed: number): ReturnType<typeof mt.random.default_rng> => mt.random.default_rng(seed);

/** k-means++ (scikit-learn's greedy _kmeans_plusplus): centers drawn in proportion to the squared distance to the nearest. */
async function plusPlus(X: mt.Tensor, w: mt.Tensor | null, k: number, seed: number): Promise<Float64Array> {
  const [n, d] = X.shape as [number, number];
  const rng = rngOf(seed);
  const trials = 2 + Math.floor(Math.log(k));
  // `keep`: a lazy tensor to store in the same run (the kept distances, so the step before can be freed)
  const draw = async (pot: mt.Tensor, count: number, total: number, keep?: mt.Tensor): Promise<number[]> => {
    const u = mt.multiply(rng.random([count]), total);
    const at = mt.minimum(mt.searchsorted(mt.cumsum(pot), u), n - 1);
    if (keep) await mt.execute(at, keep);
    return numbers(at);
  };
  const out = new Float64Array(k * d);
  const weights = w ?? null;
  const first = weights ? (await draw(weights, 1, Number(await mt.sum(weights).item())))[0]! : Number(await rng.integers(0, n, [1]).get(0).item());
  const row0 = X.get(first);
  const weigh = (t: mt.Tensor): mt.Tensor => (weights ? mt.multiply(t, weights) : t);
  // each step is two executions: the draw of the candidates, then their potentials (with their rows);
  // the chosen column of distances stays lazy and runs inside the next step's draw
  let closest = mt.reshape(dist2(X, mt.reshape(row0, [1, d])), [n]);
  const [first0, pot0] = [row0, mt.sum(weigh(closest))];
  await mt.execute(first0, pot0, closest);
  out.set(await numbers(first0), 0);
  let pot = Number(await pot0.item());
  for (let c = 1; c < k; c++) {
    const ids = await draw(weigh(closest), trials, pot, closest);
    // rows by slices: a take along axis 0 would gather every chunk of X into one block
    const cand = mt.stack(ids.map((i) => X.get(i)));
    const D = mt.minimum(mt.expand_dims(closest, 1), dist2(X, cand)); // n × trials
    const potT = mt.sum(weights ? mt.multiply(D, mt.expand_dims(weights, 1)) : D, { axis: 0 });
    await mt.execute(D, potT, cand);
    const pots = await numbers(potT);
    let best = 0;
    for (let t = 1; t < trials; t++) if (pots[t]! < pots[best]!) best = t;
    pot = pots[best]!;
    closest = D.get(mt.slice(null), best);
    out.set((await numbers(cand)).slice(best * d, (best + 1) * d), c * d);
  }
  return out;
}

/** k rows drawn without replacement (scikit-learn's 'random' init), by Tessera's generator. */
async function randomRows(X: mt.Tensor, k: number, seed: number): Promise<Float64Array> {
  const n = X.shape[0]!, d = X.shape[1]!;
  const rng = rngOf(seed);
  const picked: number[] = [];
  const seen = new Set<number>();
  while (picked.length < k) {
    for (const v of await numbers(rng.integers(0, n, [2 * k]))) {
      if (!seen.has(v) && picked.length < k) { seen.add(v); picked.push(v); }
    }
  }
  return Float64Array.from(await numbers(mt.stack(picked.map((i) => X.get(i)))));
}

/** sklearn.cluster.KMeans (Lloyd). */
export class KMeans {
  readonly n_clusters: number;
  readonly init: Init;
  readonly n_init: number | 'auto' | 'warn';
  readonly max_iter: number;
  readonly tol: number;
  readonly random_state?: number;
  readonly algorithm: string;
  cluster_centers_?: mt.Tensor;
  labels_?: mt.Tensor;
  inertia_?: number;
  n_iter_?: number;
  n_features_in_?: number;

  constructor(opts: KMeansOptions = {}) {
    const o = options('KMeans', opts, {
      n_clusters: 8, init: 'k-means++' as Init, n_init: 'warn' as number | 'auto' | 'warn', max_iter: 300, tol: 1e-4, verbose: 0,
      random_state: undefined as number | undefined, copy_x: true, algorithm: 'lloyd' as string,
    });
    if (!Number.isInteger(o.n_clusters) || o.n_clusters < 1) {
      throw valueError(`The 'n_clusters' parameter of KMeans must be an int in the range [1, inf). Got ${o.n_clusters} instead.`);
    }
    if (!Number.isInteger(o.max_iter) || o.max_iter < 1) {
      throw valueError(`The 'max_iter' parameter of KMeans must be an int in the range [1, inf). Got ${o.max_iter} instead.`);
    }
    if (!['lloyd', 'elkan', 'auto', 'full'].includes(o.algorithm)) {
      throw valueError(`The 'algorithm' parameter of KMeans must be a str among {'lloyd', 'elkan', 'auto', 'full'}. Got '${o.algorithm}' instead.`);
    }
    this.n_clusters = o.n_clusters; this.init = o.init; this.n_init = o.n_init; this.max_iter = o.max_iter; this.tol = o.tol;
    this.random_state = o.random_state; this.algorithm = o.algorithm;
  }

  /** The number of runs: scikit-learn 1.2's rule ('warn' and 'auto': 10 for a drawn init, 1 for k-means++ with 'auto' and for an array). */
  private runs(): number {
    const array = typeof this.init !== 'string';
    if (array) return 1;
    if (typeof this.n_init === 'number') {
      if (!Number.isInteger(this.n_init) || this.n_init < 1) {
        throw valueError(`The 'n_init' parameter of KMeans must be an int in the range [1, inf) or a str among {'auto', 'warn'}. Got ${this.n_init} instead.`);
      }
      return this.n_init;
    }
    return this.n_init === 'auto' && this.init === 'k-means++' ? 1 : 10;
  }

  async fit(X: Input, _y?: unknown, sample_weight?: Input | null): Promise<this> {
    const x0 = checkX(X, 'KMeans');
    const [n, d] = x0.shape as [number, number];
    const k = this.n_clusters;
    if (n < k) throw valueError(`n_samples=${n} should be >= n_clusters=${k}.`);
    const w = sample_weight === null || sample_weight === undefined ? null : mt.astype(mt.reshape(asTensor(sample_weight, 'sample_weight'), [-1]), 'float64');
    if (w) sameSamples([x0, w]);
    await checkFinite([[x0, 'X']], 'KMeans');
    // scikit-learn centers dense data on its mean before iterating, and shifts the centers back after
    const mean = await mt.mean(x0, { axis: 0 }).execute();
    const x = await mt.subtract(x0, mean).execute();
    const tol = Number(await mt.mean(mt.var(x0, { axis: 0 })).item()) * this.tol;
    const meanV = await numbers(mean);
    let given: Float64Array | null = null;
    if (typeof this.init !== 'string') {
      const c = checkX(this.init, 'KMeans');
      if (c.shape[0] !== k || c.shape[1] !== d) {
        throw valueError(`The shape of the initial centers (${c.shape.join(', ')}) does not match the number of clusters ${k}.`);
      }
      given = Float64Array.from(await numbers(c), (v, i) => v - meanV[i % d]!);
    } else if (this.init !== 'k-means++' && this.init !== 'random') {
      throw valueError(`init should be either 'k-means++', 'random', or an array-like, got '${this.init}' instead.`);
    }
    const seed0 = this.random_state ?? Math.floor(Math.random() * 2 ** 31);
    let best: Awaited<ReturnType<typeof lloyd>> | null = null;
    for (let run = 0; run < this.runs(); run++) {
      const seed = seed0 + 7919 * run;
      const init = given ?? (this.init === 'random' ? await randomRows(x, k, seed) : await plusPlus(x, w, k, seed));
      const r = await lloyd(x, w, init, k, this.max_iter, tol, `${run + 1}/${this.runs()}`);
      if (!best || r.inertia < best.inertia) best = r;
    }
    const C = matrix(best!.centers, k, d);
    this.labels_ = await mt.astype(assign(x, C), 'int32').execute();
    this.cluster_centers_ = await mt.add(C, mean).execute();
    this.inertia_ = best!.inertia;
    this.n_iter_ = best!.n_iter;
    this.n_features_in_ = d;
    return this;
  }

  /** The nearest center of each row. */
  async predict(X: Input): Promise<mt.Tensor> {
    const C = fitted(this.cluster_centers_, 'KMeans');
    const x = fittedInput(X, this.n_features_in_, 'KMeans');
    return assign(x, C).execute();
  }

  async fit_predict(X: Input, y?: unknown, sample_weight?: Input | null): Promise<mt.Tensor> {
    return (await this.fit(X, y, sample_weight)).labels_!;
  }

  /** The euclidean distance of each row to each center: (n, k). */
  async transform(X: Input): Promise<mt.Tensor> {
    const C = fitted(this.cluster_centers_, 'KMeans');
    const x = fittedInput(X, this.n_features_in_, 'KMeans');
    return mt.sqrt(dist2(x, C)).execute();
  }

  async fit_transform(X: Input, y?: unknown, sample_weight?: Input | null): Promise<mt.Tensor> {
    return (await this.fit(X, y, sample_weight)).transform(X);
  }

  /** The opposite of the inertia of X on the fitted centers. */
  async score(X: Input, _y?: unknown, sample_weight?: Input | null): Promise<number> {
    const C = fitted(this.cluster_centers_, 'KMeans');
    const x = fittedInput(X, this.n_features_in_, 'KMeans');
    const w = sample_weight === null || sample_weight === undefined ? null : mt.astype(mt.reshape(asTensor(sample_weight, 'sample_weight'), [-1]), 'float64');
    const k = this.n_clusters, d = this.n_features_in_!;
    return -(await numbers(step(x, C, w)))[k * d + k]!;
  }
}
