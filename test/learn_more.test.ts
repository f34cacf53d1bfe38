// learn's MiniBatchKMeans, stratified splits and NearestNeighbors' radius and
// graph queries against scikit-learn 1.2 (test/fixtures/gen_learn.py's
// learn_more(), Debian's python3-sklearn), each over one chunk and over
// chunks of 7 rows. MiniBatchKMeans: partial_fit from a given init draws
// nothing, so its centers, labels and inertia are scikit-learn's; fit draws
// its batches from Tessera's generator, so on well-separated blobs it is
// held to scikit-learn's KMeans centers, the true partition and
// scikit-learn's MiniBatchKMeans inertia within tolerances, and to its own
// identities (n_iter_ from n_steps_, the same fit on any chunking).

import { afterAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import * as mt from '../src/api/tensor.js';
import * as learn from '../src/learn/index.js';
import { T, close, firstLine } from './learn_helpers.js';
import { ROUTINES } from '../src/runtime/routines.js';

const F = JSON.parse(readFileSync(new URL('./fixtures/learn_more.json', import.meta.url), 'utf8'));
afterAll(() => mt.shutdown());

const messageOf = (fixture: string): string => fixture.replace(/^InvalidParameterError: /, 'ValueError: ').replace(/^NotFittedError: /, '');

/** Rows sorted lexicographically (centers compared up to their order). */
const sortRows = (rows: number[][]): number[][] => [...rows].sort((a, b) => {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
});

for (const chunk of [undefined, 7]) {
  const tag = chunk ? `chunks of ${chunk}` : 'one chunk';

  describe(`learn.cluster.MiniBatchKMeans (${tag})`, () => {
    const M = F.minibatch;
    it.each(M.partial_fit.map((c: { name: string }) => [c.name, c]))(
      'partial_fit from a given init (%s): scikit-learn\'s centers, labels, inertia and n_steps_ after each batch', async (_n, c) => {
        const m = new learn.cluster.MiniBatchKMeans({ n_clusters: 4, init: T(M.init), n_init: 1, ...c.opts });
        for (const [s, want] of c.steps.entries()) {
          const rows = T(M.X, chunk).get(mt.slice(200 * s, 200 * (s + 1)));
          const sw = c.sw ? T(c.sw).get(mt.slice(200 * s, 200 * (s + 1))) : null;
          await m.partial_fit(rows, undefined, sw);
          close(await m.cluster_centers_!.tolist(), want.centers, 1e-12, `centers ${s}`);
          expect(await m.labels_!.tolist(), `labels ${s}`).toEqual(want.labels);
          close(m.inertia_, want.inertia, 1e-12, `inertia ${s}`);
          expect(m.n_steps_).toBe(want.n_steps);
        }
      });

    it("partial_fit reassigns a center no row is nearest to onto a row of the batch; the others move as scikit-learn's", async () => {
      const m = new learn.cluster.MiniBatchKMeans({ n_clusters: 4, init: T(M.reassigned.init), n_init: 1, random_state: 2 });
      const batch = T(M.X, chunk).get(mt.slice(0, 200));
      await m.partial_fit(batch);
      const centers = await m.cluster_centers_!.tolist() as number[][];
      close(centers.slice(0, 3), M.reassigned.centers, 1e-12, 'kept centers');
      const rows = await batch.tolist() as number[][];
      expect(rows.some((r) => r.every((v, f) => v === centers[3]![f]))).toBe(true);
    });

    it('predict, transform and score on partial_fit\'s centers are scikit-learn\'s', async () => {
      const m = new learn.cluster.MiniBatchKMeans({ n_clusters: 4, init: T(M.init), n_init: 1 });
      for (let a = 0; a < 600; a += 200) await m.partial_fit(T(M.X, chunk).get(mt.slice(a, a + 200)));
      expect(await (await m.predict(T(M.Xq, chunk))).tolist()).toEqual(M.predict);
      close(await (await m.transform(T(M.Xq, chunk))).tolist(), M.transform, 1e-12, 'transform');
      close(await m.score(T(M.Xq, chunk)), M.score, 1e-12, 'score');
    });

    it.each(M.fits.map((c: { opts: object }) => [JSON.stringify(c.opts), c]))(
      'fit on blobs (%s): KMeans\'s centers, the true partition, scikit-learn\'s inertia', async (_n, c) => {
        const m = await new learn.cluster.MiniBatchKMeans({ n_clusters: 4, random_state: 0, n_init: 3, ...c.opts }).fit(T(M.X, chunk));
        const got = sortRows(await m.cluster_centers_!.tolist() as number[][]);
        // a center is the mean of the rows it was given (drawn with replacement): within ~3 standard errors of its blob's mean
        for (const [i, row] of (M.kmeans_centers as number[][]).entries()) {
          for (const [f, v] of row.entries()) expect(Math.abs(got[i]![f]! - v), `center ${i}`).toBeLessThan(0.2);
        }
        const batch = Math.min(c.opts.batch_size, 600);
        expect(m.n_iter_).toBe(Math.ceil((m.n_steps_! * batch) / 600));
        expect(m.n_steps_).toBeLessThanOrEqual(Math.floor((100 * 600) / batch));
        if (c.opts.compute_labels === false) {
          expect(m.labels_).toBeUndefined();
          close(m.inertia_, c.inertia, 0.2, 'ewa inertia'); // the smoothed batch inertia times n: noisy in both
          return;
        }
        // the labels are the blobs up to names: one label per blob, and each blob's label its own
        const labels = await m.labels_!.tolist() as number[];
        const name = new Map<number, number>();
        (M.y as number[]).forEach((b, i) => { if (!name.has(b)) name.set(b, labels[i]!); expect(labels[i]).toBe(name.get(b)); });
        expect(new Set(name.values()).size).toBe(4);
        close(m.inertia_, c.inertia, 0.03, 'inertia');
        expect(m.inertia_!).toBeGreaterThanOrEqual(M.kmeans_inertia * (1 - 1e-12));
        close(-(await m.score(T(M.X))), m.inertia_, 1e-12, 'score');
      });

    it('fit: the same seed gives the same centers on any chunking; weights weigh the inertia', async () => {
      const a = await new learn.cluster.MiniBatchKMeans({ n_clusters: 4, random_state: 5, batch_size: 50, n_init: 3 }).fit(T(M.X, chunk));
      const b = await new learn.cluster.MiniBatchKMeans({ n_clusters: 4, random_state: 5, batch_size: 50, n_init: 3 }).fit(T(M.X, 13));
      expect(await a.cluster_centers_!.tolist()).toEqual(await b.cluster_centers_!.tolist());
      expect(a.n_steps_).toBe(b.n_steps_);
      const sw = T(M.partial_fit[1].sw);
      const w = await new learn.cluster.MiniBatchKMeans({ n_clusters: 4, random_state: 5, batch_size: 50 }).fit(T(M.X, chunk), undefined, sw);
      close(-(await w.score(T(M.X), undefined, sw)), w.inertia_, 1e-12, 'weighted inertia');
      expect(await (await w.fit_predict(T(M.X, chunk), undefined, sw)).tolist()).toEqual(await (await w.predict(T(M.X))).tolist());
    });

    it('fit then partial_fit continues from the fitted counts', async () => {
      const m = await new learn.cluster.MiniBatchKMeans({ n_clusters: 4, random_state: 1, batch_size: 64 }).fit(T(M.X, chunk));
      const before = m.n_steps_!;
      await m.partial_fit(T(M.X, chunk).get(mt.slice(0, 100)));
      expect(m.n_steps_).toBe(before + 1);
      expect((await m.labels_!.tolist() as number[]).length).toBe(100);
    });
  });
}

/** Each class's count among the rows `at` of labels y. */
const countsOf = (y: number[], classes: number[], at: number[]): number[] => classes.map((c) => at.filter((i) => y[i] === c).length);

/** _validate_shuffle_split's sizes for a fixture case (the default test share 0.25). */
function splitSizes(n: number, o: { test_size?: number; train_size?: number }): [number, number] {
  const test = o.test_size ?? (o.train_size === undefined ? 0.25 : undefined);
  let nTest = test === undefined ? undefined : Number.isInteger(test) ? test : Math.ceil(test * n);
  let nTrain = o.train_size === undefined ? undefined : Number.isInteger(o.train_size) ? o.train_size : Math.floor(o.train_size * n);
  nTrain ??= n - nTest!;
  nTest ??= n - nTrain;
  return [nTrain, nTest];
}

for (const chunk of [undefined, 7]) {
  const tag = chunk ? `chunks of ${chunk}` : 'one chunk';
  describe(`learn.model_selection stratified (${tag})`, () => {
    const S = F.stratify;
    it.each(S.cases.map((c: { name: string }) => [c.name, c]))('train_test_split stratify (%s): scikit-learn\'s per-class counts', async (_n, c) => {
      const y = c.y as number[], n = y.length;
      const X = T(y.map((_, i) => [2 * i, 2 * i + 1]), chunk);
      const [Xtr, Xte, ytr, yte] = await learn.model_selection.train_test_split(X, T(c.y, chunk), { ...c.opts, stratify: T(c.y, chunk), random_state: 3 });
      const rowsOf = async (t: unknown): Promise<number[]> => ((await (t as mt.Tensor).tolist()) as number[][]).map((r) => r[0]! / 2);
      const train = await rowsOf(Xtr), test = await rowsOf(Xte);
      // every row at most once, and y split with its rows
      expect(new Set([...train, ...test]).size).toBe(train.length + test.length);
      expect(await (ytr as mt.Tensor).tolist()).toEqual(train.map((i) => y[i]));
      expect(await (yte as mt.Tensor).tolist()).toEqual(test.map((i) => y[i]));
      const [nTrain, nTest] = splitSizes(n, c.opts);
      expect([train.length, test.length]).toEqual([nTrain, nTest]);
      const gotTrain = countsOf(y, c.classes, train), gotTest = countsOf(y, c.classes, test);
      if (c.fixed) {
        expect(gotTrain).toEqual(c.train);
        expect(gotTest).toEqual(c.test);
      } else {
        // a tie of remainders broken by a draw: each class gets its share's floor or ceiling (_approximate_mode)
        const all = countsOf(y, c.classes, y.map((_, i) => i));
        all.forEach((m, i) => {
          const share = (m / n) * nTrain;
          expect([Math.floor(share), Math.ceil(share)]).toContain(gotTrain[i]);
        });
      }
    });

    it('the same seed, the same split on any chunking; strings stratify as their classes', async () => {
      const c = S.cases.find((v: { name: string }) => v.name === 'shuffled');
      const parts = async (ch?: number): Promise<unknown[]> => Promise.all((await learn.model_selection.train_test_split(
        T(c.y, ch), { test_size: 0.2, stratify: T(c.y, ch), random_state: 11 })).map((t) => (t as mt.Tensor).tolist()));
      expect(await parts(chunk)).toEqual(await parts(5));
      const names = (c.y as number[]).map((v) => `class ${v}`);
      const [ytr, yte] = await learn.model_selection.train_test_split(T(c.y, chunk), { test_size: 0.2, stratify: names, random_state: 1 });
      const tally = async (t: unknown): Promise<number[]> => {
        const v = await (t as mt.Tensor).tolist() as number[];
        return countsOf(v, c.classes, v.map((_, i) => i));
      };
      expect(await tally(ytr)).toEqual(c.train);
      expect(await tally(yte)).toEqual(c.test);
    });
  });
}

describe('learn.model_selection stratified errors and StratifiedKFold', () => {
  const S = F.stratify, K = F.stratified_kfold;
  const tts = learn.model_selection.train_test_split;
  const y = (counts: number[]): number[] => counts.flatMap((m, c) => new Array<number>(m).fill(c));
  it("train_test_split stratify: scikit-learn's errors", async () => {
    const X = mt.zeros([20, 2]);
    expect(await firstLine(() => tts(X, { stratify: y([10, 1, 9]) }))).toBe(S.one_member);
    expect(await firstLine(() => tts(X, { stratify: y([8, 6, 6]), test_size: 2 }))).toBe(S.few_test);
    expect(await firstLine(() => tts(X, { stratify: y([8, 6, 6]), train_size: 2 }))).toBe(S.few_train);
    expect(await firstLine(() => tts(X, { stratify: y([10, 10]), shuffle: false }))).toBe(S.no_shuffle);
  });
  const kcases = K.cases.map((c: { n_splits: number }) => [c.n_splits, c]);
  it.each(kcases)("StratifiedKFold(%i): scikit-learn's folds, and its counts when shuffled", async (_n, c) => {
    const ys = K.y as number[];
    const folds = await new learn.model_selection.StratifiedKFold({ n_splits: c.n_splits }).split(mt.zeros([ys.length]), T(K.y));
    expect(await Promise.all(folds.map(async ([tr, te]) => [await tr.tolist(), await te.tolist()]))).toEqual(c.folds);
    const sk = new learn.model_selection.StratifiedKFold({ n_splits: c.n_splits, shuffle: true, random_state: 4 });
    const shuffled = await sk.split(mt.zeros([ys.length]), ys.map(String));
    const counts = await Promise.all(shuffled.map(async ([tr, te]) => {
      const test = await te.tolist() as number[], train = await tr.tolist() as number[];
      expect([...test, ...train].sort((a, b) => a - b)).toEqual(ys.map((_, i) => i));
      return countsOf(ys, K.classes, test);
    }));
    expect(c.shuffled_fixed).toBe(true);
    expect(counts).toEqual(c.shuffled_counts);
  });
  it("StratifiedKFold: scikit-learn's errors", async () => {
    const SK = learn.model_selection.StratifiedKFold;
    expect(await firstLine(() => new SK({ n_splits: 5 }).split(mt.zeros([8]), y([4, 4])))).toBe(K.too_many);
    expect(await firstLine(() => new SK({ n_splits: 30 }).split(mt.zeros([20]), y([10, 10])))).toBe(K.more_than_samples);
    expect(await firstLine(() => new SK({ n_splits: 2 }).split(mt.zeros([6]), [0.5, 1.5, 0.5, 1.5, 0.2, 0.1]))).toBe(K.continuous);
  });
});

describe('learn.cluster.MiniBatchKMeans errors', () => {
  const M = F.minibatch, E = learn.cluster.MiniBatchKMeans;
  const X = (): mt.Tensor => T(M.X);
  it.each([
    ['batch_size', { batch_size: 0 }], ['max_no_improvement', { max_no_improvement: -1 }], ['init_size', { init_size: 0 }],
    ['reassignment_ratio', { reassignment_ratio: -1 }], ['tol', { tol: -1 }], ['n_clusters', { n_clusters: 0 }], ['max_iter', { max_iter: 0 }],
    ['n_init', { n_init: 0 }],
  ])("scikit-learn's message for a bad %s", async (key, opts) => {
    expect(await firstLine(async () => new E(opts as object).fit(X()))).toBe(messageOf(M.errors[key as string]));
  });
  it('the init array\'s shape, too few samples, other features, unfitted', async () => {
    expect(await firstLine(() => new E({ n_clusters: 3, init: T(M.init), n_init: 1 }).fit(X()))).toBe(messageOf(M.errors.init_shape));
    expect(await firstLine(() => new E({ n_clusters: 4 }).fit(X().get(mt.slice(0, 3))))).toBe(messageOf(M.errors.too_few));
    const m = await new E({ n_clusters: 4, init: T(M.init), n_init: 1 }).fit(X());
    expect(await firstLine(() => m.partial_fit(X().get(mt.slice(0, 5), mt.slice(0, 2))))).toBe(messageOf(M.errors.features));
    expect(await firstLine(() => new E({ n_clusters: 4 }).predict(X()))).toBe(messageOf(M.errors.not_fitted));
    await expect(new E({ n_clusters: 4 }).predict(X())).rejects.toBeInstanceOf(learn.NotFittedError);
    expect(() => new E({ init: 'foo' as 'random' })).toThrow(/The 'init' parameter of MiniBatchKMeans must be a str among/);
  });
});

/** A CSR graph's rows as (column, value) pairs sorted by column (an unsorted row compared as a set). */
async function csrRows(g: { data: mt.Tensor | V[]; indices: mt.Tensor | V[]; indptr: mt.Tensor | V[] }, sorted: boolean): Promise<[number, number][][]> {
  const read = async (t: mt.Tensor | V[]): Promise<number[]> => (t instanceof mt.Tensor ? (await t.tolist()) as number[] : (t as number[]));
  const [data, indices, indptr] = [await read(g.data), await read(g.indices), await read(g.indptr)];
  return indptr.slice(1).map((end, i) => {
    const row = indices.slice(indptr[i], end).map((c, j): [number, number] => [c, data[indptr[i]! + j]!]);
    return sorted ? row : row.sort((a, b) => a[0] - b[0]);
  });
}

for (const chunk of [undefined, 7]) {
  const tag = chunk ? `chunks of ${chunk}` : 'one chunk';
  describe(`learn.neighbors radius and graphs (${tag})`, () => {
    const R = F.radius;
    it.each(R.cases.map((c: { metric: string }) => [c.metric, c]))("radius_neighbors (%s): scikit-learn's neighbours and distances", async (_n, c) => {
      const m = await new learn.neighbors.NearestNeighbors({ radius: c.radius, metric: c.metric, ...c.opts }).fit(T(R.X, chunk));
      const [dist, ind] = await m.radius_neighbors(T(R.Q, chunk), { sort_results: true }) as [mt.Tensor[], mt.Tensor[]];
      expect(ind.length).toBe(c.ind.length);
      expect(await Promise.all(ind.map((t) => t.tolist()))).toEqual(c.ind);
      close(await Promise.all(dist.map((t) => t.tolist())), c.dist, 1e-12, 'dist');
      const [sd, si] = await m.radius_neighbors(null, { sort_results: true }) as [mt.Tensor[], mt.Tensor[]];
      expect(await Promise.all(si.map((t) => t.tolist()))).toEqual(c.self_ind);
      close(await Promise.all(sd.map((t) => t.tolist())), c.self_dist, 1e-12, 'self dist');
      // unsorted: the same neighbours as sets, in ascending index; indices only when asked
      const [only] = await m.radius_neighbors(T(R.Q, chunk), { return_distance: false });
      const sets = await Promise.all(only!.map(async (t) => t.tolist() as Promise<number[]>));
      expect(sets).toEqual((c.ind as number[][]).map((v) => [...v].sort((a, b) => a - b)));
      expect(only![0]!.dtype).toBe('int64');
    });

    it.each(Object.keys(R.graphs).map((k) => [k]))("the graph %s is scikit-learn's CSR", async (name) => {
      const m = await new learn.neighbors.NearestNeighbors({ n_neighbors: 4, radius: 1.3 }).fit(T(R.X, chunk));
      const Q = T(R.Q, chunk);
      const g = {
        knn_conn: () => m.kneighbors_graph(Q), knn_dist: () => m.kneighbors_graph(Q, { n_neighbors: 3, mode: 'distance' }),
        knn_self: () => m.kneighbors_graph(null, { mode: 'distance' }), radius_conn: () => m.radius_neighbors_graph(Q),
        radius_dist: () => m.radius_neighbors_graph(Q, { radius: 1.6, mode: 'distance', sort_results: true }),
        radius_self: () => m.radius_neighbors_graph(undefined, { mode: 'distance' }),
      }[name as string]!;
      const got = await g(), want = R.graphs[name as string];
      expect(got.shape).toEqual(want.shape);
      expect(await got.indptr.tolist()).toEqual(want.indptr);
      const sorted = name.startsWith('knn') || name === 'radius_dist';
      const [a, b] = [await csrRows(got, sorted), await csrRows(want, sorted)];
      expect(a.map((r) => r.map(([col]) => col))).toEqual(b.map((r) => r.map(([col]) => col)));
      close(a.map((r) => r.map(([, v]) => v)), b.map((r) => r.map(([, v]) => v)), 1e-12, 'data');
    });
  });
}

describe('the radius routine refuses a bad call (as a peer refuses a bad task)', () => {
  const f64 = (...shape: number[]): { dtype: 'float64'; shape: number[] } => ({ dtype: 'float64', shape });
  const ok = { d: 3, m: 1, self: false, metric: 'sqeuclidean', p: 2, bound: 1, count: false, width: 4 };
  it('checks its parameters and regions', () => {
    expect(() => ROUTINES.radius.check(ok, [f64(5, 3), f64(9, 3)], f64(1, 8))).not.toThrow();
    expect(() => ROUTINES.radius.check({ ...ok, count: true }, [f64(5, 3), f64(9, 3)], f64(5))).not.toThrow();
    expect(() => ROUTINES.radius.check(ok, [f64(5, 3), f64(9, 3)], f64(1, 6))).toThrow(/writes a float64 \[1, 8\]/);
    expect(() => ROUTINES.radius.check({ ...ok, metric: 'cosine' }, [f64(5, 3), f64(9, 3)], f64(1, 8))).toThrow(/metric/);
    expect(() => ROUTINES.radius.check({ ...ok, bound: -1 }, [f64(5, 3), f64(9, 3)], f64(1, 8))).toThrow(/bound/);
    expect(() => ROUTINES.radius.check({ ...ok, m: 2 }, [f64(5, 3), f64(9, 3)], f64(1, 8))).toThrow(/2 blocks/);
    expect(() => ROUTINES.radius.check({ ...ok, extra: 1 }, [f64(5, 3), f64(9, 3)], f64(1, 8))).toThrow(/unknown routine parameter/);
    expect(() => ROUTINES.radius.check(ok, [f64(5, 2), f64(9, 3)], f64(1, 8))).toThrow(/float64 \[n, 3\]/);
  });
});

describe('learn.neighbors radius errors', () => {
  const R = F.radius;
  it("scikit-learn's messages", async () => {
    const m = await new learn.neighbors.NearestNeighbors({ n_neighbors: 4, radius: 1.3 }).fit(T(R.X));
    expect(await firstLine(() => m.kneighbors_graph(T(R.Q), { mode: 'foo' as 'distance' }))).toBe(R.bad_mode);
    expect(await firstLine(() => m.radius_neighbors_graph(T(R.Q), { mode: 'foo' as 'distance' }))).toBe(R.bad_mode_radius);
    expect(await firstLine(() => m.radius_neighbors(T(R.Q), { return_distance: false, sort_results: true }))).toBe(R.sort_without_distance);
    expect(await firstLine(() => new learn.neighbors.NearestNeighbors().radius_neighbors(T(R.Q)))).toBe(messageOf(R.not_fitted));
    expect(await firstLine(() => m.radius_neighbors(T(R.Q).get(mt.slice(null), mt.slice(0, 3))))).toBe(R.features);
  });
});
