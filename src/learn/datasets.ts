// sklearn.datasets' generators: make_blobs, make_classification,
// make_regression. In: scikit-learn's parameters. Out: lazy tensors [X, y]
// (and the true centers or coefficients where asked).
//
// The data is Tessera's own, not scikit-learn's for the same seed: every
// row is drawn from Philox streams keyed by `random_state` (mt.random's
// Generator), so the same seed gives the same data on any chunking, any
// worker count and any number of peers, and the generation itself runs in
// chunks where it is used (it fuses into the first kernel that reads it).
// The small parameters — centers, the informative features' linear maps,
// the true coefficients — are drawn on the host from the same generator.
// The laws are scikit-learn's: sample counts per center or cluster, the
// hypercube's vertices, the redundant and repeated features, flip_y, shift,
// scale, and the shuffles of rows (a seeded permutation, learn's
// `permutation`) and features.

import * as mt from '../api/tensor.js';
import { numbers, options, valueError } from './base.js';
import { permutation } from './model_selection.js';

type Rng = ReturnType<typeof mt.random.default_rng>;
const rngOf = (seed: number | undefined): Rng => mt.random.default_rng(seed ?? Math.floor(Math.random() * 2 ** 32));

/** Row i's block among consecutive blocks of `counts` rows: int64 (n,). */
function blockOf(counts: readonly number[]): mt.Tensor {
  const n = counts.reduce((a, b) => a + b, 0);
  const ends = counts.map(((s) => (c: number) => (s += c))(0));
  return mt.searchsorted(mt.tensor(Float64Array.from(ends)), mt.arange(n), { side: 'right' });
}

export interface BlobsOptions {
  n_samples?: number | readonly number[];
  n_features?: number;
  centers?: number | readonly (readonly number[])[] | null;
  cluster_std?: number | readonly number[];
  center_box?: readonly [number, number];
  shuffle?: boolean;
  random_state?: number;
  return_centers?: boolean;
}

/** sklearn.datasets.make_blobs: isotropic Gaussian blobs; [X, y] (or [X, y, centers]). */
export async function make_blobs(opts: BlobsOptions = {}): Promise<mt.Tensor[]> {
  const o = options('make_blobs', opts, {
    n_samples: 100 as number | readonly number[], n_features: 2, centers: null as BlobsOptions['centers'], cluster_std: 1 as number | readonly number[],
    center_box: [-10, 10] as readonly [number, number], shuffle: true, random_state: undefined as number | undefined, return_centers: false,
  });
  const rng = rngOf(o.random_state);
  let counts: number[];
  let centers: number[][];
  const d = o.n_features;
  const given = o.centers ?? null;
  const box = async (k: number): Promise<number[][]> => {
    const v = await numbers(rng.uniform(o.center_box[0], o.center_box[1], [k, d]));
    return Array.from({ length: k }, (_, i) => v.slice(i * d, (i + 1) * d));
  };
  if (typeof o.n_samples === 'number') {
    centers = given === null ? await box(3) : typeof given === 'number' ? await box(given) : given.map((c) => [...c]);
    const k = centers.length, n = o.n_samples;
    counts = centers.map((_, i) => Math.floor(n / k) + (i < n % k ? 1 : 0));
  } else {
    counts = [...o.n_samples];
    centers = given === null ? await box(counts.length) : typeof given === 'number' ? [] : given.map((c) => [...c]);
    if (centers.length !== counts.length) {
      throw valueError(`Length of n_samples not consistent with number of centers. Got n_samples = ${JSON.stringify(counts)} and centers = ${centers.length}`);
    }
  }
  const k = centers.length;
  const dim = centers[0]?.length ?? d;
  const std = typeof o.cluster_std === 'number' ? centers.map(() => o.cluster_std as number) : [...o.cluster_std];
  if (std.length !== k) throw valueError(`Length of clusters_std not consistent with number of centers. Got centers = ${k} and cluster_std = ${std.length}`);
  const n = counts.reduce((a, b) => a + b, 0);
  let y = blockOf(counts);
  if (o.shuffle) y = mt.take(y, permutation(n, (await numbers(rng.integers(0, 2 ** 31, [1])))[0]));
  const C = mt.tensor(Float64Array.from(centers.flat())).reshape([k, dim]);
  const S = mt.tensor(Float64Array.from(std));
  const X = mt.add(mt.take(C, y, { axis: 0 }), mt.multiply(mt.reshape(mt.take(S, y), [-1, 1]), rng.standard_normal([n, dim])));
  await mt.execute(X, y);
  return o.return_centers ? [X, y, C] : [X, y];
}

export interface RegressionOptions {
  n_samples?: number; n_features?: number; n_informative?: number; n_targets?: number; bias?: number;
  effective_rank?: null; noise?: number; shuffle?: boolean; coef?: boolean; random_state?: number;
}

/** sklearn.datasets.make_regression: y = X·w + bias + noise with w nonzero on n_informative features; [X, y] (or [X, y, coef]). */
export async function make_regression(opts: RegressionOptions = {}): Promise<mt.Tensor[]> {
  const o = options('make_regression', opts, {
    n_samples: 100, n_features: 100, n_informative: 10, n_targets: 1, bias: 0, effective_rank: null as null,
    noise: 0, shuffle: true, coef: false, random_state: undefined as number | undefined,
  });
  if (o.effective_rank !== null) throw valueError('make_regression: effective_rank (low-rank X) is not supported by learn yet');
  const { n_samples: n, n_features: d, n_targets: t } = o;
  const inf = Math.min(d, o.n_informative);
  const rng = rngOf(o.random_state);
  const X0 = rng.standard_normal([n, d]);
  const w = await numbers(rng.uniform(0, 100, [inf, t]));
  let W = Float64Array.from({ length: d * t }, (_, i) => (Math.floor(i / t) < inf ? w[i]! : 0));
  let X = X0;
  if (o.shuffle) {
    // the features in a seeded order, the coefficients with them
    const order = await numbers(mt.argsort(rng.random([d]), { kind: 'stable' }));
    X = mt.take(X0, order, { axis: 1 });
    const Wp = new Float64Array(d * t);
    order.forEach((src, j) => { for (let c = 0; c < t; c++) Wp[j * t + c] = W[src * t + c]!; });
    W = Wp;
  }
  const coef = mt.tensor(W).reshape([d, t]);
  let y = mt.add(mt.matmul(X, coef), o.bias);
  if (o.noise > 0) y = mt.add(y, mt.multiply(o.noise, rng.standard_normal([n, t])));
  if (t === 1) y = mt.reshape(y, [-1]);
  const c = t === 1 ? mt.reshape(coef, [-1]) : coef;
  await mt.execute(X, y, c);
  return o.coef ? [X, y, c] : [X, y];
}

export interface ClassificationOptions {
  n_samples?: number; n_features?: number; n_informative?: number; n_redundant?: number; n_repeated?: number;
  n_classes?: number; n_clusters_per_class?: number; weights?: readonly number[] | null; flip_y?: number;
  class_sep?: number; hypercube?: boolean; shift?: number; scale?: number; shuffle?: boolean; random_state?: number;
}

/** The first k vertices of a d-dimensional hypercube in a seeded order (scikit-learn's _generate_hypercube draws them). */
function hypercube(k: number, d: number, order: readonly number[]): number[][] {
  return order.slice(0, k).map((v) => Array.from({ length: d }, (_, j) => (v >> j) & 1));
}

/**
 * sklearn.datasets.make_classification: clusters of normal points at a
 * hypercube's vertices, each with a random linear map, assigned to classes
 * in turn; redundant features as random combinations of the informative,
 * repeated ones copied, the rest noise; labels flipped with flip_y.
 */
export async function make_classification(opts: ClassificationOptions = {}): Promise<mt.Tensor[]> {
  const o = options('make_classification', opts, {
    n_samples: 100, n_features: 20, n_informative: 2, n_redundant: 2, n_repeated: 0, n_classes: 2, n_clusters_per_class: 2,
    weights: null as readonly number[] | null, flip_y: 0.01, class_sep: 1, hypercube: true, shift: 0, scale: 1, shuffle: true,
    random_state: undefined as number | undefined,
  });
  const { n_samples: n, n_features: d, n_informative: ni, n_redundant: nr, n_repeated: np_, n_classes: nc } = o;
  if (ni + nr + np_ > d) throw valueError('Number of informative, redundant and repeated features must sum to less than the number of total features');
  if (ni > 30 || nc * o.n_clusters_per_class > 2 ** ni) {
    throw valueError('n_classes(' + nc + ') * n_clusters_per_class(' + o.n_clusters_per_class + ') must be smaller or equal ' +
      '2**n_informative(' + ni + ')=' + 2 ** ni);
  }
  const weights = o.weights ? [...o.weights] : Array.from({ length: nc }, () => 1 / nc);
  if (weights.length === nc - 1) weights.push(1 - weights.reduce((a, b) => a + b, 0));
  if (weights.length !== nc) throw valueError('Weights specified but incompatible with number of classes.');
  const rng = rngOf(o.random_state);
  const k = nc * o.n_clusters_per_class;
  const counts = Array.from({ length: k }, (_, c) => Math.floor((n * weights[c % nc]!) / o.n_clusters_per_class));
  const short = n - counts.reduce((a, b) => a + b, 0);
  for (let i = 0; i < short; i++) counts[i % k]! += 1;
  // centroids: distinct hypercube vertices scaled to ±class_sep
  const vertexOrder = await numbers(mt.argsort(rng.random([2 ** ni]), { kind: 'stable' }));
  let cent = hypercube(k, ni, vertexOrder).map((v) => v.map((b) => (b * 2 - 1) * o.class_sep));
  if (!o.hypercube) {
    const [a, b] = [await numbers(rng.random([k])), await numbers(rng.random([ni]))];
    cent = cent.map((v, c) => v.map((x, j) => x * 2 * a[c]! * 2 * b[j]!));
  }
  const maps = await numbers(rng.uniform(-1, 1, [k, ni, ni]));
  const cluster = blockOf(counts);
  const Z = rng.standard_normal([n, ni]);
  let Xi: mt.Tensor = mt.zeros([n, ni]);
  for (let c = 0; c < k; c++) {
    const A = mt.tensor(Float64Array.from(maps.slice(c * ni * ni, (c + 1) * ni * ni))).reshape([ni, ni]);
    const part = mt.add(mt.matmul(Z, A), mt.tensor(Float64Array.from(cent[c]!)));
    Xi = mt.where(mt.reshape(mt.equal(cluster, c), [-1, 1]), part, Xi);
  }
  const parts = [Xi];
  if (nr > 0) parts.push(mt.matmul(Xi, mt.tensor(Float64Array.from(await numbers(rng.uniform(-1, 1, [ni * nr])))).reshape([ni, nr])));
  let X = parts.length > 1 ? mt.concatenate(parts, { axis: 1 }) : Xi;
  if (np_ > 0) {
    const u = await numbers(rng.random([np_]));
    const at = u.map((v) => Math.floor((ni + nr - 1) * v + 0.5));
    X = mt.concatenate([X, mt.take(X, at, { axis: 1 })], { axis: 1 });
  }
  if (d - ni - nr - np_ > 0) X = mt.concatenate([X, rng.standard_normal([n, d - ni - nr - np_])], { axis: 1 });
  let y = mt.remainder(cluster, nc);
  if (o.flip_y > 0) y = mt.where(mt.less(rng.random([n]), o.flip_y), rng.integers(0, nc, [n]), y);
  X = mt.multiply(mt.add(X, o.shift), o.scale);
  if (o.shuffle) {
    const perm = permutation(n, (await numbers(rng.integers(0, 2 ** 31, [1])))[0]);
    X = mt.take(X, perm, { axis: 0 });
    y = mt.take(y, perm);
    const order = await numbers(mt.argsort(rng.random([d]), { kind: 'stable' }));
    X = mt.take(X, order, { axis: 1 });
  }
  await mt.execute(X, y);
  return [X, y];
}
