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
  type Input, asTensor, checkFinite, checkX, fitted, fittedInput, free, numbers, options, report, sameSamples, valueError,
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
const MIN_BLOCKS = 8;

/**
 * Rows per routine call: X's row chunks themselves where there are at least
 * MIN_BLOCKS of them (a call then reads its rows in place; one across two
 * chunks would read a copy of them on every pass), else each chunk cut
 * into equal parts. The blocks depend on X's chunks only, never on the
 * number of workers, so sums over them round the same way on any machine.
 * Their length is the chunk of a per-row result.
 */
export function blockRows(X: mt.Tensor): number {
  const n = X.shape[0]!, c = Math.max(1, X.node.chunk[0]!);
  const parts = Math.ceil(MIN_BLOCKS / Math.ceil(n / c));
  return Math.max(1, Math.ceil(c / parts));
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

/** One Lloyd step of several runs in one pass over X: per run its row [k·d sums | k weights | inertia | h1 | h2]. */
async function stepRuns(X: mt.Tensor, Cs: readonly Float64Array[], w: mt.Tensor | null, k: number): Promise<number[][]> {
  const d = X.shape[1]!, R = Cs.length;
  const C = matrix(Cs.flatMap((c) => [...c]), R * k, d);
  const calls = blocks(X).map(([a, b], j): G.RoutineCall => ({
    routine: 'kstep', params: { k, d, weighted: !!w, runs: R }, chunk: j,
    reads: [{ input: 0, box: [[a, b], [0, d]] }, { input: 1, box: [[0, R * k], [0, d]] }, ...(w ? [{ input: 2, box: [[a, b]] as [number, number][] }] : [])],
  }));
  const width = k * d + k + 3;
  const parts = new mt.Tensor(G.routine('kmeans.step', [X.node, C.node, ...(w ? [w.node] : [])], calls, 'float64', [calls.length, R * width], [1, R * width]));
  const sum = calls.length === 1 ? mt.reshape(parts, [R * width]) : mt.sum(parts, { axis: 0 });
  const acc = await numbers(sum);
  free(parts, sum);
  return Cs.map((_, r) => acc.slice(r * width, (r + 1) * width));
}

interface Run { centers: Float64Array; inertia: number; n_iter: number }

/**
 * k-means runs from their initial centers (k × d each, on the centered X),
 * each scikit-learn's _kmeans_single_lloyd, stepped together: every pass over
 * X steps each run not yet converged, so n_init runs read X once a pass.
 */
async function lloyd(X: mt.Tensor, w: mt.Tensor | null, inits: readonly Float64Array[], k: number, maxIter: number, tol: number): Promise<Run[]> {
  const d = X.shape[1]!, R = inits.length;
  const state = inits.map((init) => ({ centers: init, prev: null as [number, number] | null, iter: 0, done: false }));
  while (state.some((s) => !s.done)) {
    const active = state.flatMap((s, r) => (s.done ? [] : [r]));
    const accs = await stepRuns(X, active.map((r) => state[r]!.centers), w, k);
    for (const [i, r] of active.entries()) {
      const s = state[r]!, acc = accs[i]!;
      const next = new Float64Array(k * d);
      const weight = acc.slice(k * d, k * d + k);
      const empty = weight.flatMap((v, j) => (v === 0 ? [j] : []));
      const sums = acc.slice(0, k * d);
      if (empty.length) await relocate(X, w, s.centers, k, empty, sums, weight);
      for (let j = 0; j < k; j++) for (let f = 0; f < d; f++) next[j * d + f] = weight[j]! > 0 ? sums[j * d + f]! / weight[j]! : s.centers[j * d + f]!;
      let shift = 0;
      for (let q = 0; q < k * d; q++) shift += (next[q]! - s.centers[q]!) ** 2;
      s.centers = next;
      s.iter++;
      report({ estimator: 'KMeans', run: `${r + 1}/${R}`, iteration: s.iter, inertia: acc[k * d + k]! }, s.iter, maxIter);
      const h: [number, number] = [acc[k * d + k + 1]!, acc[k * d + k + 2]!];
      // strict convergence (no label changed), the centers' shift within tol, or max_iter
      if ((s.prev && s.prev[0] === h[0] && s.prev[1] === h[1]) || shift <= tol || s.iter >= maxIter) s.done = true;
      s.prev = h;
    }
  }
  // the inertia of each run's final centers, in one more pass
  const last = await stepRuns(X, state.map((s) => s.centers), w, k);
  return state.map((s, r) => ({ centers: s.centers, inertia: last[r]![k * d + k]!, n_iter: s.iter }));
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

/** A routine node of one call per block of X's rows, each writing a [1, width] row: the block's partial results. */
function perBlock(name: string, routine: string, X: mt.Tensor, inputs: mt.Tensor[], params: G.RoutineParams, width: number,
  box: (i: number, a: number, b: number) => [number, number][]): mt.Tensor {
  const bs = blocks(X);
  const calls = bs.map(([a, b], j): G.RoutineCall => ({
    routine, params, chunk: j, reads: inputs.map((t, i) => ({ input: i, box: box(i, a, b) })),
  }));
  return new mt.Tensor(G.routine(name, inputs.map((t) => t.node), calls, 'float64', [bs.length, width], [1, width]));
}

/**
 * k-means++ for every run at once (scikit-learn's greedy _kmeans_plusplus:
 * 2 + ln k candidates a step, the one that lowers the potential most kept),
 * so that a step is two passes over X whatever the number of runs. The
 * closest distances of all runs are one (n, R) tensor; a step draws each
 * run's candidates from the per-block potentials the previous pass
 * returned (the host picks the block, `klocate` the row inside it), then
 * one `kpp` pass gives every candidate's potential per block, and the kept
 * candidates' distances fold into the next closest tensor (`kclose`), run
 * with the next draw. Draws use Tessera's Philox streams, one per run's seed.
 */
async function plusPlus(
  X: mt.Tensor, w: mt.Tensor | null, k: number, seeds: number[], localTrials?: number,
): Promise<{ centers: Float64Array[]; indices: number[][] }> {
  const [n, d] = X.shape as [number, number];
  const R = seeds.length, trials = localTrials ?? 2 + Math.floor(Math.log(k)), Tp = trials + (trials & 1);
  const bs = blocks(X), B = bs.length;
  const rows = (a: number, b: number): [number, number][] => [[a, b], [0, d]];
  const whole = (m: number): [number, number][] => [[0, m], [0, d]];
  const wBox = (a: number, b: number): [number, number][] => [[a, b]];
  const rngs = seeds.map(rngOf);
  // every uniform a run will use, drawn at once: its first row, then `trials` per step
  const firstT = w ? rngs.map((r) => r.random([1])) : rngs.map((r) => r.integers(0, n, [1]));
  const uT = rngs.map((r) => r.random([Math.max(1, (k - 1) * trials)]));
  await mt.execute(...firstT, ...uT);
  const us = await Promise.all(uT.map((t) => numbers(t)));
  const out = seeds.map(() => new Float64Array(k * d));
  const indices = seeds.map(() => new Array<number>(k).fill(0));
  // per run and block, the potential of the run's closest distances (weighted)
  let blockPot: number[][];
  let closest: mt.Tensor | null = null, stale: mt.Tensor | null = null;
  /**
   * The rows each run's draws land on (fractions of the run's potential), by
   * klocate over `source`'s blocks (column r, times the weights when `weigh`);
   * `keep` is stored in the same run (the closest distances the draw reads).
   */
  const locate = async (fractions: number[][], source: mt.Tensor, weigh: boolean, keep?: mt.Tensor): Promise<{ ids: number[][]; rows: Float64Array[][] }> => {
    const calls: G.RoutineCall[] = [];
    const slots: [number, number][][] = []; // per call: (run, draw) of each target
    fractions.forEach((fs, r) => {
      const pots = blockPot[r]!, total = pots.reduce((s, v) => s + v, 0);
      const byBlock = new Map<number, { targets: number[]; draws: number[] }>();
      fs.forEach((f, i) => {
        let u = f * total, b = 0;
        while (b < B - 1 && !(u < pots[b]!)) { u -= pots[b]!; b++; }
        if (!byBlock.has(b)) byBlock.set(b, { targets: [], draws: [] });
        byBlock.get(b)!.targets.push(Math.max(0, u)); byBlock.get(b)!.draws.push(i);
      });
      for (const [b, { targets, draws }] of byBlock) {
        const [a0, b0] = bs[b]!;
        slots.push(draws.map((i) => [r, i]));
        calls.push({
          routine: 'klocate', params: { col: r, runs: R, d, targets, weighted: weigh }, chunk: calls.length,
          reads: [{ input: 0, box: [[a0, b0], [0, R]] }, { input: 1, box: rows(a0, b0) }, ...(weigh ? [{ input: 2, box: wBox(a0, b0) }] : [])],
        });
      }
    });
    // every call writes a row of the same width: shorter target lists repeat their last target
    const most = Math.max(...slots.map((sl) => sl.length)), width = most * (d + 1);
    for (const c of calls) {
      const t = c.params.targets as number[];
      (c as { params: G.RoutineParams }).params = { ...c.params, targets: [...t, ...Array<number>(most - t.length).fill(t[t.length - 1]!)] };
    }
    const inputs = [source.node, X.node, ...(weigh ? [w!.node] : [])];
    const node = new mt.Tensor(G.routine('kmeans.locate', inputs, calls, 'float64', [calls.length, width], [1, width]));
    if (keep) await mt.execute(keep, node);
    const found = await numbers(node);
    free(node);
    const ids = fractions.map((fs) => new Array<number>(fs.length).fill(0));
    const got = fractions.map((fs) => new Array<Float64Array>(fs.length));
    slots.forEach((sl, c) => sl.forEach(([r, i], j) => {
      const at = c * width + j * (d + 1);
      ids[r]![i] = found[at]!;
      got[r]![i] = Float64Array.from(found.slice(at + 1, at + 1 + d));
    }));
    return { ids, rows: got };
  };
  // the first center of each run: a row drawn uniformly (or by weight)
  let firstRows: Float64Array[], firstIds: number[];
  if (w) {
    const sums = await numbers(mt.stack(bs.map(([a, b]) => mt.sum(w.get(mt.slice(a, b))))));
    blockPot = seeds.map(() => sums);
    const fr = await Promise.all(firstT.map((t) => numbers(t)));
    const got = await locate(fr.map((f) => [f[0]!]), mt.broadcast_to(mt.reshape(w, [n, 1]), [n, R]), false);
    firstRows = got.rows.map((r) => r[0]!); firstIds = got.ids.map((r) => r[0]!);
  } else {
    const firsts = await Promise.all(firstT.map(async (t) => (await numbers(t))[0]!));
    firstIds = firsts;
    const got = firsts.map((i) => X.get(i));
    await mt.execute(...got);
    firstRows = await Promise.all(got.map(async (t) => Float64Array.from(await numbers(t))));
  }
  const matrixOf = (rs: Float64Array[]): mt.Tensor => matrix(rs.flatMap((r) => [...r]), rs.length, d);
  let kept = matrixOf(firstRows); // R × d
  for (let c = 0; c < k; c++) {
    if (c > 0) {
      const got = await locate(us.map((u) => Array.from(u.slice((c - 1) * trials, c * trials))), closest!, !!w, closest!);
      if (stale) { free(stale); stale = null; }
      // each run's candidates, padded to an even number with copies of its last
      const candRows = got.rows.flatMap((rs) => [...rs, ...Array<Float64Array>(Tp - trials).fill(rs[trials - 1]!)]);
      const cand = matrixOf(candRows); // R·Tp × d
      const parts = perBlock('kmeans.pp', 'kpp', X, [X, closest!, cand, ...(w ? [w] : [])],
        { k: R * Tp, d, runs: R, weighted: !!w, fresh: false }, R * Tp,
        (i, a, b) => (i === 0 ? rows(a, b) : i === 1 ? [[a, b], [0, R]] : i === 2 ? whole(R * Tp) : wBox(a, b)));
      const pv = await numbers(parts);
      free(parts);
      const best: Float64Array[] = [];
      blockPot = [];
      for (let r = 0; r < R; r++) {
        let bt = 0, bestPot = Infinity;
        for (let t = 0; t < trials; t++) {
          let s = 0;
          for (let b = 0; b < B; b++) s += pv[b * R * Tp + r * Tp + t]!;
          if (s < bestPot) { bestPot = s; bt = t; }
        }
        best.push(candRows[r * Tp + bt]!);
        blockPot.push(Array.from({ length: B }, (_, b) => pv[b * R * Tp + r * Tp + bt]!));
        out[r]!.set(candRows[r * Tp + bt]!, c * d);
        indices[r]![c] = got.ids[r]![bt]!;
      }
      kept = matrixOf(best);
    } else {
      // the first centers' potentials (kpp without closest distances, each center twice: an even number per run)
      const two = mt.repeat(kept, 2, { axis: 0 });
      const parts = perBlock('kmeans.pp', 'kpp', X, [X, two, ...(w ? [w] : [])], { k: 2 * R, d, runs: R, weighted: !!w, fresh: true }, 2 * R,
        (i, a, b) => (i === 0 ? rows(a, b) : i === 1 ? whole(2 * R) : wBox(a, b)));
      const pv = await numbers(parts);
      free(parts);
      blockPot = seeds.map((_, r) => Array.from({ length: B }, (_, b) => pv[b * 2 * R + 2 * r]!));
      seeds.forEach((_, r) => { out[r]!.set(firstRows[r]!, 0); indices[r]![0] = firstIds[r]!; });
    }
    if (c === k - 1) break;
    // the next closest distances: run (lazily) with the next step's draw
    const prev = closest;
    const inputs = prev ? [X, prev, kept] : [X, kept];
    const calls = bs.map(([a, b], j): G.RoutineCall => ({
      routine: 'kclose', params: { k: R, d, fresh: !prev }, chunk: j,
      reads: inputs.map((_, i) => ({ input: i, box: i === 0 ? rows(a, b) : i === inputs.length - 1 ? whole(R) : [[a, b], [0, R]] as [number, number][] })),
    }));
    closest = new mt.Tensor(G.routine('kmeans.close', inputs.map((t) => t.node), calls, 'float64', [n, R], [blockRows(X), R]));
    stale = prev;
    report({ estimator: 'KMeans', stage: 'k-means++', center: c + 1 }, c + 1, k);
  }
  if (closest) free(closest);
  return { centers: out, indices };
}

/**
 * sklearn.cluster.kmeans_plusplus: the k-means++ centers of X and the rows
 * they are, `[centers, indices]` (Tessera's draw for a seed, not
 * scikit-learn's; the same on any chunking of X). Takes scikit-learn 1.3's
 * `sample_weight` too.
 */
export async function kmeans_plusplus(X: Input, n_clusters: number, opts: {
  random_state?: number; n_local_trials?: number | null; sample_weight?: Input | null; x_squared_norms?: Input | null;
} = {}): Promise<[mt.Tensor, mt.Tensor]> {
  const o = options('kmeans_plusplus', opts, {
    random_state: undefined as number | undefined, n_local_trials: null as number | null,
    sample_weight: null as Input | null, x_squared_norms: null as Input | null,
  });
  const x = checkX(X, 'kmeans_plusplus');
  const [n, d] = x.shape as [number, number];
  if (!Number.isInteger(n_clusters) || n_clusters < 1) throw valueError(`n_clusters should be a positive integer, got ${n_clusters}.`);
  if (n < n_clusters) throw valueError(`n_samples=${n} should be >= n_clusters=${n_clusters}.`);
  if (o.n_local_trials !== null && (!Number.isInteger(o.n_local_trials) || o.n_local_trials < 1)) {
    throw valueError(`n_local_trials is set to ${o.n_local_trials} but should be an integer value greater than zero.`);
  }
  const w = o.sample_weight === null ? null : mt.astype(mt.reshape(asTensor(o.sample_weight, 'sample_weight'), [-1]), 'float64');
  if (w) sameSamples([x, w]);
  await checkFinite([[x, 'X']], 'kmeans_plusplus');
  const xs = await mt.astype(x, 'float64').execute();
  const seed = o.random_state ?? Math.floor(Math.random() * 2 ** 31);
  const { centers, indices } = await plusPlus(xs, w, n_clusters, [seed], o.n_local_trials ?? undefined);
  return [matrix(centers[0]!, n_clusters, d), mt.tensor(Int32Array.from(indices[0]!))];
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
    const runs = this.runs();
    const seeds = Array.from({ length: runs }, (_, run) => seed0 + 7919 * run);
    // k-means++ draws every run's centers together (two passes a step); 'random' draws rows
    const inits = given ? [given]
      : this.init === 'random' ? await Promise.all(seeds.map((s) => randomRows(x, k, s)))
      : (await plusPlus(x, w, k, seeds)).centers;
    // the first run of least inertia wins, as scikit-learn keeps it
    let best: Run | null = null;
    for (const r of await lloyd(x, w, inits, k, this.max_iter, tol)) if (!best || r.inertia < best.inertia) best = r;
    const C = matrix(best!.centers, k, d);
    this.labels_ = await mt.astype(assign(x, C), 'int32').execute();
    this.cluster_centers_ = await mt.add(C, mean).execute();
    free(x);
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

// What MiniBatchKMeans (./minibatch.ts) shares with KMeans: the chunked passes over the rows and the seeded inits.
export { assign as kmeansAssign, dist2 as kmeansDist2, step as kmeansStep, plusPlus, randomRows };
