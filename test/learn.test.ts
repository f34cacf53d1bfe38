// learn's preprocessing, metrics, splits, generators, k-means and least squares
// against scikit-learn 1.2 (test/fixtures/gen_learn.py, Debian's
// python3-sklearn): fitted attributes, transforms, scores and error messages
// on seeded data, each over one chunk and over chunks of 7 rows (the
// chunked passes and the tree combines must give the same answers);
// datasets and splits by their laws and their seed-determinism across
// chunkings (their data is Tessera's own, not scikit-learn's for a seed).

import { afterAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import * as mt from '../src/api/tensor.js';
import * as md from '../src/dataframe/index.js';
import * as learn from '../src/learn/index.js';
import { T, type V, close, deep, firstLine } from './learn_helpers.js';

const F = JSON.parse(readFileSync(new URL('./fixtures/learn.json', import.meta.url), 'utf8'));
afterAll(() => mt.shutdown());

const list = async (t: mt.Tensor | number | undefined | null): Promise<unknown> => (t instanceof mt.Tensor ? t.tolist() : t);

const messageOf = (fixture: string): string => fixture.replace(/^(ValueError|NotFittedError): /, (m) => (m.startsWith('Value') ? m : ''));

for (const chunk of [undefined, 7]) {
  const tag = chunk ? `chunks of ${chunk}` : 'one chunk';

  describe(`learn.preprocessing (${tag})`, () => {
    it.each(F.standard_scaler.map((c: { name: string }) => [c.name, c]))('StandardScaler %s', async (_n, c) => {
      const s = await new learn.preprocessing.StandardScaler(c.opts).fit(T(c.X, chunk));
      for (const k of ['mean_', 'var_', 'scale_']) close(await list((s as never)[k]), c[k], 1e-12, k);
      close(await list(s.n_samples_seen_ as mt.Tensor | number), c.n_samples_seen_, 0, 'n_samples_seen_');
      close(await (await s.transform(T(c.Xt))).tolist(), c.transform, 1e-12, 'transform');
      close(await (await s.inverse_transform(T(c.Xt))).tolist(), c.inverse, 1e-12, 'inverse');
    });
    it.each(F.minmax_scaler.map((c: { name: string }) => [c.name, c]))('MinMaxScaler %s', async (_n, c) => {
      const s = await new learn.preprocessing.MinMaxScaler(c.opts).fit(T(c.X, chunk));
      for (const k of ['data_min_', 'data_max_', 'data_range_', 'scale_', 'min_']) close(await list((s as never)[k]), c[k], 1e-12, k);
      close(await (await s.transform(T(c.Xt))).tolist(), c.transform, 1e-12, 'transform');
      close(await (await s.inverse_transform(T(c.Xt))).tolist(), c.inverse, 1e-12, 'inverse');
    });
    it('normalize: l1, l2 and max over rows and columns, a zero row left as it is', async () => {
      for (const c of F.normalize) {
        const got = await learn.preprocessing.normalize(T(c.X, chunk), { norm: c.norm, axis: c.axis });
        close(await (got as mt.Tensor).tolist(), c.out, 1e-12, `${c.norm} axis ${c.axis}`);
      }
    });
    it('LabelEncoder: numbers and strings, inverse, unseen labels', async () => {
      const { num: n, str: s } = F.label_encoder;
      const e = await new learn.preprocessing.LabelEncoder().fit(T(n.y, chunk));
      close(await (e.classes_ as mt.Tensor).tolist(), n.classes_, 0, 'classes_');
      close(await (await e.transform(T(n.y, chunk))).tolist(), n.transform, 0, 'transform');
      close(await ((await e.inverse_transform([0, 3, 1])) as mt.Tensor).tolist(), n.inverse, 0, 'inverse');
      expect(await firstLine(() => e.transform([3, 5, 8]))).toBe(n.unseen);
      const es = await new learn.preprocessing.LabelEncoder().fit(s.y);
      expect(es.classes_).toEqual(s.classes_);
      close(await (await es.transform(new md.Series(s.y))).tolist(), s.transform, 0, 'transform of a Series');
      expect(await es.inverse_transform([2, 0])).toEqual(s.inverse);
      expect(await firstLine(() => es.transform(['fig', 'plum']))).toBe(s.unseen);
    });
    it('OneHotEncoder: numbers and strings, drop, handle_unknown, feature names', async () => {
      for (const c of F.one_hot.mixed) {
        const e = await new learn.preprocessing.OneHotEncoder({ sparse_output: false, ...c.opts }).fit(c.X);
        expect(e.categories_).toEqual(c.categories_);
        close(await (await e.transform(c.test)).tolist(), c.transform, 0, JSON.stringify(c.opts));
        expect(e.get_feature_names_out(['a', 'b'])).toEqual(c.names);
      }
      const e = await new learn.preprocessing.OneHotEncoder().fit(T(F.one_hot.numeric.X, chunk));
      close(e.categories_, [deep(F.one_hot.numeric.categories_)], 0, 'categories_');
      const six = T(F.one_hot.numeric.X).get(mt.slice(0, 6));
      close(await (await e.transform(six)).tolist(), F.one_hot.numeric.transform, 0, 'numeric');
      const fitted = await new learn.preprocessing.OneHotEncoder().fit(F.one_hot.mixed[0].X);
      expect(await firstLine(() => fitted.transform([[9, 'x']]))).toBe(F.one_hot.unknown);
    });
  });

  describe(`learn.metrics (${tag})`, () => {
    const c = F.classification;
    it('accuracy, confusion matrix (labels, normalize)', async () => {
      expect(await learn.metrics.accuracy_score(T(c.yt, chunk), T(c.yp, chunk))).toBeCloseTo(c.accuracy, 14);
      expect(await learn.metrics.accuracy_score(T(c.yt, chunk), T(c.yp, chunk), { normalize: false })).toBe(c.accuracy_count);
      close(await (await learn.metrics.confusion_matrix(T(c.yt, chunk), T(c.yp, chunk))).tolist(), c.confusion, 0, 'confusion');
      close(await (await learn.metrics.confusion_matrix(T(c.yt, chunk), T(c.yp, chunk), { labels: [2, 0] })).tolist(), c.confusion_labels, 0, 'labels');
      close(await (await learn.metrics.confusion_matrix(T(c.yt, chunk), T(c.yp, chunk), { normalize: 'true' })).tolist(), c.confusion_true, 1e-15, 'normalize');
    });
    it('precision, recall and F1: micro, macro, weighted, per class, binary', async () => {
      for (const s of c.scores) {
        for (const [k, f] of [['precision', learn.metrics.precision_score], ['recall', learn.metrics.recall_score], ['f1', learn.metrics.f1_score]] as const) {
          close(await list(await f(T(c.yt, chunk), T(c.yp, chunk), { average: s.average }) as mt.Tensor), s[k], 1e-14, `${k} ${s.average}`);
        }
      }
      expect(await learn.metrics.precision_score(T(c.bt, chunk), T(c.bp, chunk))).toBeCloseTo(c.binary.precision, 14);
      expect(await learn.metrics.recall_score(T(c.bt, chunk), T(c.bp, chunk))).toBeCloseTo(c.binary.recall, 14);
      expect(await learn.metrics.f1_score(T(c.bt, chunk), T(c.bp, chunk))).toBeCloseTo(c.binary.f1, 14);
      expect(await learn.metrics.f1_score(T(c.bt, chunk), T(c.bp, chunk), { pos_label: 0 })).toBeCloseTo(c.binary.pos0, 14);
      expect(await firstLine(() => learn.metrics.f1_score(T(c.yt), T(c.yp)))).toBe(c.binary_error);
    });
    it('string labels', async () => {
      close(await (await learn.metrics.confusion_matrix(c.str.yt, c.str.yp)).tolist(), c.str.confusion, 0, 'confusion');
      expect(await learn.metrics.f1_score(new md.Series(c.str.yt), c.str.yp, { average: 'macro' })).toBeCloseTo(c.str.macro_f1, 14);
    });
    it('roc_auc_score with tied scores', async () => {
      expect(await learn.metrics.roc_auc_score(T(c.auc.y, chunk), T(c.auc.score, chunk))).toBeCloseTo(c.auc.auc, 14);
      expect(await firstLine(() => learn.metrics.roc_auc_score([1, 1, 1, 1, 1], [0, 1, 2, 3, 4]))).toBe(c.auc_one_class);
    });
    it('r2, mean squared and absolute errors, multioutput', async () => {
      const r = F.regression;
      for (const mo of ['uniform_average', 'raw_values', 'variance_weighted'] as const) {
        close(await list(await learn.metrics.r2_score(T(r.yt, chunk), T(r.yp, chunk), { multioutput: mo }) as mt.Tensor), r[mo].r2, 1e-13, `r2 ${mo}`);
        if (mo === 'variance_weighted') continue;
        close(await list(await learn.metrics.mean_squared_error(T(r.yt, chunk), T(r.yp, chunk), { multioutput: mo }) as mt.Tensor), r[mo].mse, 1e-13, `mse ${mo}`);
        close(await list(await learn.metrics.mean_absolute_error(T(r.yt, chunk), T(r.yp, chunk), { multioutput: mo }) as mt.Tensor), r[mo].mae, 1e-13, `mae ${mo}`);
      }
      close(await learn.metrics.r2_score(T(r.yt1, chunk), T(r.yp1, chunk)), r.r2_1, 1e-13, 'r2 1-d');
      close(await learn.metrics.mean_squared_error(T(r.yt1, chunk), T(r.yp1, chunk), { squared: false }), r.rmse_1, 1e-13, 'rmse');
      close(await learn.metrics.r2_score([2, 2, 2], [2, 2, 1]), r.r2_const, 0, 'constant y_true');
      expect(await firstLine(() => learn.metrics.r2_score([1, 2, 3], [1, 2]))).toBe(r.inconsistent);
    });
    it('euclidean and pairwise distances', async () => {
      const d = F.distances;
      const A = T(d.A, chunk), B = T(d.B, chunk);
      close(await (await learn.metrics.euclidean_distances(A, B)).tolist(), d.euclidean_AB, 1e-12, 'AB');
      close(await (await learn.metrics.euclidean_distances(A)).tolist(), d.euclidean_AA, 1e-12, 'AA');
      close(await (await learn.metrics.euclidean_distances(A, B, { squared: true })).tolist(), d.squared_AB, 1e-12, 'squared');
      for (const m of ['manhattan', 'cosine', 'chebyshev'] as const) {
        close(await (await learn.metrics.pairwise_distances(A, B, { metric: m })).tolist(), d.metrics[m], 1e-12, m);
      }
      close(await (await learn.metrics.pairwise_distances(A, B, { metric: 'minkowski', p: 3 })).tolist(), d.minkowski3, 1e-12, 'minkowski');
      close(await (await learn.metrics.pairwise_distances(A, null, { metric: 'cosine' })).tolist(), d.cosine_AA, 1e-12, 'cosine AA');
      expect(await firstLine(() => learn.metrics.euclidean_distances(A, T(d.B).get(mt.slice(null), mt.slice(0, 2))))).toBe(d.mismatch);
    });
  });

  describe(`learn.cluster (${tag})`, () => {
    const K = F.kmeans;
    it.each(K.cases.map((c: { name: string }) => [c.name, c]))('KMeans from a given init (%s): centers, labels, inertia, n_iter_', async (_n, c) => {
      const m = await new learn.cluster.KMeans({ n_clusters: 4, n_init: 1, init: T(c.init), ...c.opts })
        .fit(T(K.X, chunk), undefined, c.sample_weight ? T(c.sample_weight, chunk) : undefined);
      close(await m.cluster_centers_!.tolist(), c.cluster_centers_, 1e-10, 'cluster_centers_');
      expect(await m.labels_!.tolist()).toEqual(c.labels_);
      close(m.inertia_, c.inertia_, 1e-10, 'inertia_');
      expect(m.n_iter_).toBe(c.n_iter_);
      expect(await (await m.predict(T(K.Xq))).tolist()).toEqual(c.predict);
      close(await (await m.transform(T(K.Xq))).tolist(), c.transform, 1e-10, 'transform');
      close(await m.score(T(K.Xq)), c.score, 1e-10, 'score');
    });
    it("KMeans with k-means++ and n_init 10 reaches scikit-learn's inertia", async () => {
      const m = await new learn.cluster.KMeans({ n_clusters: 4, n_init: 10, random_state: 0 }).fit(T(K.X, chunk));
      expect(m.inertia_!).toBeLessThanOrEqual(K.plusplus_inertia * 1.001);
      expect(await firstLine(() => new learn.cluster.KMeans({ n_clusters: 4 }).fit(T(K.X).get(mt.slice(0, 3))))).toBe(K.too_few);
      await expect(new learn.cluster.KMeans().predict(T(K.Xq))).rejects.toBeInstanceOf(learn.NotFittedError);
    });
    it('kmeans_plusplus draws distinct rows of X, the same rows on any chunking, never a row of weight 0', async () => {
      const rowsOf = async (X: mt.Tensor, idx: number[]) => Promise.all(idx.map((i) => X.get(i).tolist()));
      const [C, I] = await learn.cluster.kmeans_plusplus(T(K.X, chunk), 6, { random_state: 3 });
      const idx = (await I.tolist()) as number[];
      expect(new Set(idx).size).toBe(6);
      expect(await C.tolist()).toEqual(await rowsOf(T(K.X), idx));
      const [, I1] = await learn.cluster.kmeans_plusplus(T(K.X), 6, { random_state: 3 });
      expect(await I1.tolist()).toEqual(idx);
      // weight only on the second half of the rows: every draw lands there
      const n = (K.X as unknown[]).length;
      const w = Array.from({ length: n }, (_, i) => (i < n / 2 ? 0 : 1 + (i % 3)));
      const [, Iw] = await learn.cluster.kmeans_plusplus(T(K.X, chunk), 5, { random_state: 1, sample_weight: T(w, chunk), n_local_trials: 3 });
      for (const i of (await Iw.tolist()) as number[]) expect(i).toBeGreaterThanOrEqual(n / 2);
      expect(await firstLine(() => learn.cluster.kmeans_plusplus(T(K.X), n + 1))).toBe(`ValueError: n_samples=${n} should be >= n_clusters=${n + 1}.`);
    });
    it('KMeans with every sample weight 2 draws the same centers as with none, at twice the inertia', async () => {
      const n = (K.X as unknown[]).length;
      const a = await new learn.cluster.KMeans({ n_clusters: 4, n_init: 3, random_state: 5 }).fit(T(K.X, chunk));
      const b = await new learn.cluster.KMeans({ n_clusters: 4, n_init: 3, random_state: 5 }).fit(T(K.X, chunk), undefined, T(new Array(n).fill(2), chunk));
      expect(await b.cluster_centers_!.tolist()).toEqual(await a.cluster_centers_!.tolist());
      expect(b.inertia_).toBe(2 * a.inertia_!);
    });
  });

  describe(`learn.decomposition (${tag})`, () => {
    const Dc = F.decomposition;
    it("PCA's exact solver (TSQR) keeps a component 1e-7 the size of the largest to 1e-8", async () => {
      // Sylvester-Hadamard columns 1, 2, 3 (±1, mean 0, exactly orthogonal) scaled by 1, 1e-4 and 1e-7: the singular
      // values are exactly √64 times the scales; the Gram matrix would square the smallest to 1e-14 of the largest
      const scales = [1, 1e-4, 1e-7], n = 64;
      const had = (i: number, j: number): number => { let b = i & j, s = 1; while (b) { s = -s; b &= b - 1; } return s; };
      // turned by the reflection I − 2vvᵀ/9, v = (1, 2, 2), so that no column holds one component alone
      const v = [1, 2, 2], Q = v.map((a, r) => v.map((b, c) => (r === c ? 1 : 0) - (2 * a * b) / 9));
      const X = Array.from({ length: n }, (_, i) => {
        const row = scales.map((s, j) => s * had(i, j + 1));
        return Q.map((q) => q.reduce((acc, qc, c) => acc + qc * row[c]!, 0));
      });
      const m = await new learn.decomposition.PCA({ n_components: 3, svd_solver: 'full' }).fit(T(X, chunk));
      const sv = (await m.singular_values_!.tolist()) as number[];
      sv.forEach((v, j) => expect(Math.abs(v - 8 * scales[j]!) / (8 * scales[j]!)).toBeLessThan(1e-8));
      const ev = (await m.explained_variance_!.tolist()) as number[];
      ev.forEach((v, j) => expect(Math.abs(v - (64 * scales[j]! ** 2) / (n - 1)) / ((64 * scales[j]! ** 2) / (n - 1))).toBeLessThan(1e-8));
    });
    /** Components equal up to each row's sign (scikit-learn's svd_flip fixes it; so must we). */
    it.each(Dc.pca.map((c: { opts: object }) => [JSON.stringify(c.opts), c]))('PCA %s', async (_n, c) => {
      const m = await new learn.decomposition.PCA(c.opts).fit(T(Dc.X, chunk));
      close(await m.components_!.tolist(), c.components_, 1e-9, 'components_');
      for (const k of ['explained_variance_', 'explained_variance_ratio_', 'singular_values_', 'mean_']) close(await list((m as never)[k]), c[k], 1e-10, k);
      expect(m.n_components_).toBe(c.n_components_);
      close(m.noise_variance_, c.noise_variance_, 1e-9, 'noise_variance_');
      const t = await m.transform(T(Dc.Xt));
      close(await t.tolist(), c.transform, 1e-9, 'transform');
      close(await (await m.inverse_transform(t)).tolist(), c.inverse, 1e-9, 'inverse_transform');
    });
    it('PCA: bad n_components; TruncatedSVD', async () => {
      expect(await firstLine(() => new learn.decomposition.PCA({ n_components: 9 }).fit(T(Dc.X)))).toBe(Dc.pca_bad);
      const t = new learn.decomposition.TruncatedSVD({ n_components: 3 });
      await t.fit(T(Dc.X, chunk));
      for (const k of ['components_', 'explained_variance_', 'explained_variance_ratio_', 'singular_values_']) close(await list((t as never)[k]), Dc.tsvd[k], 1e-9, k);
      close(await (await t.transform(T(Dc.Xt))).tolist(), Dc.tsvd.transform, 1e-9, 'transform');
    });
  });

  describe(`learn.linear_model.LogisticRegression (${tag})`, () => {
    const L = F.logistic;
    it.each(L.cases.map((c: { name: string }) => [c.name, c]))('%s: the optimum (scikit-learn\'s, refined by Newton until its gradient vanishes), within 1e-3 of its defaults', async (_n, c) => {
      const m = await new learn.linear_model.LogisticRegression(c.opts).fit(T(L.X, chunk), T(c.y, chunk), c.sample_weight ? T(c.sample_weight, chunk) : undefined);
      close(await m.coef_!.tolist(), c.coef_, 1e-7, 'coef_');
      close(await m.intercept_!.tolist(), c.intercept_, 1e-7, 'intercept_');
      close(await m.coef_!.tolist(), c.default_coef_, 1e-3, 'coef_ vs the defaults');
      close(await m.intercept_!.tolist(), c.default_intercept_, 1e-3, 'intercept_ vs the defaults');
      close(await (m.classes_ as mt.Tensor).tolist(), c.classes_, 0, 'classes_');
      const X6 = T(L.X).get(mt.slice(0, 6));
      close(await (await m.predict_proba(X6)).tolist(), c.proba, 1e-7, 'predict_proba');
      close(await (await m.decision_function(X6)).tolist(), c.decision, 1e-7, 'decision_function');
      close(await ((await m.predict(X6)) as mt.Tensor).tolist(), c.predict, 0, 'predict');
      close(await m.score(T(L.X, chunk), T(c.y, chunk)), c.score, 1e-12, 'score');
    });
    it('one class is refused; string labels', async () => {
      const msg = await firstLine(() => new learn.linear_model.LogisticRegression().fit(T(L.X), mt.zeros([200])));
      expect(msg.replace(/: 0(\.0)?$/, '')).toBe(L.one_class.replace(/: 0(\.0)?$/, ''));
      const c = L.cases[0];
      const names = (c.y as number[]).map((v) => (v ? 'yes' : 'no'));
      const m = await new learn.linear_model.LogisticRegression().fit(T(L.X, chunk), names);
      expect(m.classes_).toEqual(['no', 'yes']);
      close(await m.coef_!.tolist(), c.coef_, 1e-7, 'coef_ with string labels');
      expect((await m.predict(T(L.X).get(mt.slice(0, 6)))) as string[]).toEqual((c.predict as number[]).map((v) => (v ? 'yes' : 'no')));
    });
  });

  describe(`learn.neighbors (${tag})`, () => {
    const N = F.neighbors;
    it.each(N.nn.map((c: { metric: string }) => [c.metric, c]))('NearestNeighbors %s: the same neighbours and distances', async (_n, c) => {
      const m = await new learn.neighbors.NearestNeighbors({ n_neighbors: 5, metric: c.metric, ...c.opts }).fit(T(N.X, chunk));
      const [d, i] = await m.kneighbors(T(N.Q, chunk));
      expect(await i!.tolist()).toEqual(c.ind);
      close(await d!.tolist(), c.dist, 1e-12, 'distances');
      const [ds, is] = await m.kneighbors();
      expect(await is!.tolist()).toEqual(c.self_ind);
      close(await ds!.tolist(), c.self_dist, 1e-12, 'distances without X');
    });
    it('kd_tree answers as brute force; too many neighbours', async () => {
      const m = await new learn.neighbors.NearestNeighbors({ algorithm: 'kd_tree' }).fit(T(N.X, chunk));
      const [ind] = await m.kneighbors(T(N.Q, chunk), { return_distance: false });
      expect(await ind!.tolist()).toEqual(N.kd_ind);
      const big = await new learn.neighbors.NearestNeighbors({ n_neighbors: 151 }).fit(T(N.X, chunk));
      expect(await firstLine(() => big.kneighbors(T(N.Q)))).toBe(N.too_many);
      const all = await new learn.neighbors.NearestNeighbors({ n_neighbors: 150 }).fit(T(N.X, chunk));
      expect(await firstLine(() => all.kneighbors())).toBe(N.too_many_self);
      await expect(new learn.neighbors.NearestNeighbors().kneighbors(T(N.Q))).rejects.toBeInstanceOf(learn.NotFittedError);
    });
    it.each([['uniform'], ['distance']])('KNeighborsClassifier and KNeighborsRegressor, weights %s', async (w) => {
      const c = N.classifier[w];
      const clf = await new learn.neighbors.KNeighborsClassifier({ n_neighbors: 7, weights: w as 'uniform' }).fit(T(N.X, chunk), T(N.y, chunk));
      close(await (await clf.predict_proba(T(N.Q))).tolist(), c.proba, 1e-12, 'predict_proba');
      close(await ((await clf.predict(T(N.Q))) as mt.Tensor).tolist(), c.predict, 0, 'predict');
      close(await clf.score(T(N.Q), T(N.y).get(mt.slice(0, 20))), c.score, 1e-12, 'score');
      const reg = await new learn.neighbors.KNeighborsRegressor({ n_neighbors: 7, weights: w as 'uniform' }).fit(T(N.X, chunk), T(N.t, chunk));
      close(await (await reg.predict(T(N.Q))).tolist(), c.regress, 1e-12, 'regressor');
    });
  });

  describe(`learn.linear_model (${tag})`, () => {
    const fitOf = async (Est: typeof learn.linear_model.LinearRegression | typeof learn.linear_model.Ridge, c: Record<string, never>) => {
      const est = new Est(c.opts as never);
      return est.fit(T(c.X, chunk), T(c.y, chunk), c.sample_weight ? T(c.sample_weight, chunk) : undefined);
    };
    it.each(F.linear_regression.map((c: { name: string }) => [c.name, c]))('LinearRegression %s: coefficients within 1e-8', async (_n, c) => {
      const m = await fitOf(learn.linear_model.LinearRegression, c) as learn.linear_model.LinearRegression;
      close(await m.coef_!.tolist(), c.coef_, 1e-8, 'coef_');
      close(await list(m.intercept_ as mt.Tensor), c.intercept_, 1e-8, 'intercept_');
      expect(m.rank_).toBe(c.rank_);
      close(await (await m.predict(T(c.X).get(mt.slice(0, 5)))).tolist(), c.predict, 1e-8, 'predict');
      close(await m.score(T(c.X, chunk), T(c.y, chunk)), c.score, 1e-10, 'score');
    });
    it.each(F.ridge.map((c: { name: string }) => [c.name, c]))('Ridge %s', async (_n, c) => {
      const m = await fitOf(learn.linear_model.Ridge, c);
      close(await m.coef_!.tolist(), c.coef_, 1e-8, 'coef_');
      close(await list(m.intercept_ as mt.Tensor), c.intercept_, 1e-8, 'intercept_');
      close(await (await m.predict(T(c.X).get(mt.slice(0, 5)))).tolist(), c.predict, 1e-8, 'predict');
    });
    it("bad input gives scikit-learn's errors", async () => {
      const e = F.errors;
      const X = T(e.X, chunk), y = T(e.y, chunk);
      const LR = learn.linear_model.LinearRegression;
      expect(await firstLine(() => new LR().fit(X, y.get(mt.slice(0, -1))))).toBe(e.inconsistent);
      expect(await firstLine(() => new LR().fit(T(e.Xnan, chunk), y))).toBe(e.nan);
      expect('NotFittedError: ' + await firstLine(() => new LR().predict(X))).toBe(e.not_fitted);
      await expect(new LR().predict(X)).rejects.toBeInstanceOf(learn.NotFittedError);
      expect(await firstLine(() => new LR().fit(X.get(mt.slice(null), 0), y))).toBe(e.one_d);
      const m = await new LR().fit(X, y);
      expect(await firstLine(() => m.predict(X.get(mt.slice(null), mt.slice(0, 3))))).toBe(e.features);
      expect(() => new LR({ fit_intercep: false } as never)).toThrow(/unexpected keyword argument 'fit_intercep'/);
      void messageOf;
    });
    it('a DataFrame and a Series fit as their tensors do', async () => {
      const c = F.linear_regression[0];
      const X = T(c.X, chunk);
      const cols = Object.fromEntries(Array.from({ length: X.shape[1]! }, (_, j) => [`f${j}`, X.get(mt.slice(null), j)]));
      const df = new md.DataFrame(cols);
      const m = await new learn.linear_model.LinearRegression().fit(df, new md.Series(T(c.y, chunk)));
      close(await m.coef_!.tolist(), c.coef_, 1e-8, 'coef_ from a frame');
    });
  });
}

describe('progress of long fits', () => {
  it('KMeans reports each Lloyd iteration with its inertia, LogisticRegression each Newton step with a falling loss', async () => {
    const stages: Record<string, string | number>[] = [];
    mt.options.onProgress = (p: { stage?: Record<string, string | number> }) => { if (p.stage) stages.push(p.stage); };
    try {
      const K = F.kmeans, c = K.cases[0];
      const m = await new learn.cluster.KMeans({ n_clusters: 4, n_init: 1, init: T(c.init) }).fit(T(K.X));
      const km = stages.filter((s) => s.estimator === 'KMeans');
      expect(km.map((s) => s.iteration)).toEqual(Array.from({ length: m.n_iter_! }, (_, i) => i + 1));
      expect(km.every((s) => typeof s.inertia === 'number' && s.inertia > 0)).toBe(true);
      const L = F.logistic;
      await new learn.linear_model.LogisticRegression().fit(T(L.X), T(L.cases[0].y));
      const losses = stages.filter((s) => s.estimator === 'LogisticRegression').map((s) => s.loss as number);
      expect(losses.length).toBeGreaterThan(1);
      losses.slice(1).forEach((v, i) => expect(v).toBeLessThanOrEqual(losses[i]!));
    } finally {
      mt.options.onProgress = undefined;
    }
  });
});

describe('learn.model_selection', () => {
  it('train_test_split: sizes as scikit-learn rounds them, disjoint parts covering the rows, the same split on any chunking', async () => {
    const X = mt.arange(0, 103 * 2).reshape([103, 2]);
    const y = mt.arange(103);
    const [a, b, ya, yb] = learn.model_selection.train_test_split(X, y, { test_size: 0.3, random_state: 4 }) as mt.Tensor[];
    expect([a!.shape, b!.shape, ya!.shape, yb!.shape]).toEqual([[72, 2], [31, 2], [72], [31]]);
    const rows = [...(await ya!.tolist()) as number[], ...(await yb!.tolist()) as number[]];
    expect([...rows].sort((p, q) => p - q)).toEqual(Array.from({ length: 103 }, (_, i) => i));
    expect(await a!.get(mt.slice(null), 0).tolist()).toEqual(((await ya!.tolist()) as number[]).map((v) => 2 * v));
    const [, , , yb7] = learn.model_selection.train_test_split(mt.arange(0, 206, { chunkSize: 7 }).reshape([103, 2]), mt.arange(103, { chunkSize: 7 }), { test_size: 0.3, random_state: 4 }) as mt.Tensor[];
    expect(await yb7!.tolist()).toEqual(await yb!.tolist());
    const [, t2] = learn.model_selection.train_test_split(y, { train_size: 10, shuffle: false }) as mt.Tensor[];
    expect(await t2!.tolist()).toEqual(Array.from({ length: 93 }, (_, i) => i + 10));
    expect(() => learn.model_selection.train_test_split(y, { test_size: 1.5 })).toThrow(/test_size=1.5 should be either positive/);
    expect(() => learn.model_selection.train_test_split(y, mt.arange(5))).toThrow(/inconsistent numbers of samples: \[103, 5\]/);
  });
  it('train_test_split of a DataFrame keeps its kind', async () => {
    const df = new md.DataFrame({ a: [1, 2, 3, 4, 5, 6, 7, 8], s: ['p', 'q', 'r', 's', 't', 'u', 'v', 'w'] });
    const [tr, te] = learn.model_selection.train_test_split(df, { test_size: 0.25, random_state: 1 }) as md.DataFrame[];
    expect(tr).toBeInstanceOf(md.DataFrame);
    const [ltr, lte] = [await tr!.fetch(), await te!.fetch()];
    expect(ltr.shape).toEqual([6, 2]);
    expect(lte.shape).toEqual([2, 2]);
    const letters = [...ltr.get('s') as string[], ...lte.get('s') as string[]].sort();
    expect(letters).toEqual(['p', 'q', 'r', 's', 't', 'u', 'v', 'w']);
  });
  it("KFold: scikit-learn's fold sizes, every row tested once", async () => {
    const folds = new learn.model_selection.KFold({ n_splits: 4 }).split(mt.zeros([10, 2]));
    const tests = await Promise.all(folds.map(([, te]) => te.tolist()));
    expect(tests).toEqual([[0, 1, 2], [3, 4, 5], [6, 7], [8, 9]]);
    expect(await folds[1]![0].tolist()).toEqual([0, 1, 2, 6, 7, 8, 9]);
    const shuffled = new learn.model_selection.KFold({ n_splits: 3, shuffle: true, random_state: 2 }).split(mt.zeros([11, 1]));
    const all = (await Promise.all(shuffled.map(([, te]) => te.tolist()))).flat() as number[];
    expect(all.sort((p, q) => p - q)).toEqual(Array.from({ length: 11 }, (_, i) => i));
    expect(() => new learn.model_selection.KFold({ n_splits: 1 })).toThrow(/requires at least one train\/test split/);
  });
});

describe('learn.datasets', () => {
  it('make_blobs: counts per center, points around their centers, the same data for a seed', async () => {
    const [X, y, C] = await learn.datasets.make_blobs({ n_samples: 3001, centers: 4, n_features: 3, cluster_std: 0.5, random_state: 9, return_centers: true });
    expect(X!.shape).toEqual([3001, 3]);
    const counts = (await mt.bincount(y!).tolist()) as number[];
    expect(counts).toEqual([751, 750, 750, 750]);
    // each blob's mean within 4 standard errors of its center, its spread 0.5
    for (let k = 0; k < 4; k++) {
      const rows = mt.compress(mt.equal(y!, k), X!, { axis: 0 });
      const m = (await mt.mean(rows, { axis: 0 }).tolist()) as number[];
      const c = (await C!.get(k).tolist()) as number[];
      m.forEach((v, j) => expect(Math.abs(v - c[j]!)).toBeLessThan((4 * 0.5) / Math.sqrt(750)));
      const s = (await mt.std(rows, { axis: 0 }).tolist()) as number[];
      s.forEach((v) => expect(Math.abs(v - 0.5)).toBeLessThan(0.05));
    }
    const [X2] = await learn.datasets.make_blobs({ n_samples: 3001, centers: 4, n_features: 3, cluster_std: 0.5, random_state: 9 });
    expect(await X2!.tolist()).toEqual(await X!.tolist());
  });
  it('make_regression: y is X·coef + bias exactly without noise, n_informative nonzero coefficients', async () => {
    const [X, y, coef] = await learn.datasets.make_regression({ n_samples: 200, n_features: 8, n_informative: 3, bias: 2.5, coef: true, random_state: 1 });
    const c = (await coef!.tolist()) as number[];
    expect(c.filter((v) => v !== 0).length).toBe(3);
    close(await y!.tolist(), await mt.add(mt.matmul(X!, coef!), 2.5).tolist() as V, 1e-12, 'y');
    const m = await new learn.linear_model.LinearRegression().fit(X!, y!);
    close(await m.coef_!.tolist(), c, 1e-9, 'recovered coef');
  });
  it('make_classification: shapes, classes, informative features that separate them', async () => {
    const [X, y] = await learn.datasets.make_classification({ n_samples: 500, n_features: 6, n_informative: 3, n_redundant: 1, n_repeated: 1, n_classes: 3, n_clusters_per_class: 1, flip_y: 0, class_sep: 2, random_state: 5 });
    expect(X!.shape).toEqual([500, 6]);
    const counts = (await mt.bincount(y!).tolist()) as number[];
    expect(counts).toEqual([167, 167, 166]);
    // a least-squares fit of one-vs-rest indicators classifies well above chance
    const onehot = await new learn.preprocessing.OneHotEncoder({ sparse_output: false }).fit_transform(mt.reshape(y!, [-1, 1]));
    const m = await new learn.linear_model.LinearRegression().fit(X!, onehot);
    const pred = mt.argmax(await m.predict(X!), { axis: 1 });
    expect(await learn.metrics.accuracy_score(y!, pred)).toBeGreaterThan(0.8);
    await expect(learn.datasets.make_classification({ n_informative: 1, n_classes: 3 })).rejects.toThrow(/must be smaller or equal 2\*\*n_informative/);
  });
});

// The pruned search (kd-tree bounds, the WebAssembly leaf scan) against a plain exact computation: the same
// float64 sums in the same order, sorted by (distance, index), so distances and indices must match exactly.
describe('learn.neighbors: the exact search', () => {
  type Kind = 'euclidean' | 'manhattan' | 'chebyshev' | 'minkowski';
  const dist = (a: number[], b: number[], kind: Kind, p: number): number => {
    let s = 0;
    for (let f = 0; f < a.length; f++) {
      const t = a[f]! - b[f]!;
      if (kind === 'euclidean') s += t * t;
      else if (kind === 'manhattan') s += Math.abs(t);
      else if (kind === 'chebyshev') s = Math.max(s, Math.abs(t));
      else s += Math.abs(t) ** p;
    }
    return kind === 'euclidean' ? Math.sqrt(s) : s;
  };
  /** Each query's k nearest rows of X (skipping its own row with `self`): [distances, indices]. */
  const brute = (X: number[][], Q: number[][], k: number, self: boolean, kind: Kind, p = 2): [number[][], number[][]] => {
    const out = Q.map((q, a) => X.map((x, b) => [dist(q, x, kind, p), b] as const)
      .filter(([, b]) => !self || b !== a).sort((u, v) => u[0] - v[0] || u[1] - v[1]).slice(0, k));
    return [out.map((r) => r.map(([v]) => v)), out.map((r) => r.map(([, b]) => b))];
  };
  /** A seeded stream of uniform draws (xorshift), so the cases need no fixture. */
  const uniform = (seed: number) => () => {
    seed ^= seed << 13; seed ^= seed >>> 17; seed ^= seed << 5;
    return (seed >>> 0) / 2 ** 32;
  };
  const matrix = (n: number, d: number, f: (i: number, j: number) => number): number[][] =>
    Array.from({ length: n }, (_, i) => Array.from({ length: d }, (_, j) => f(i, j)));

  async function agree(X: number[][], Q: number[][] | null, k: number, chunk: number, kind: Kind = 'euclidean', p = 2): Promise<void> {
    const m = await new learn.neighbors.NearestNeighbors({ n_neighbors: k, metric: kind, p }).fit(mt.tensor(X, { chunkSize: chunk }));
    const [d, i] = await m.kneighbors(Q ? mt.tensor(Q, { chunkSize: chunk }) : null);
    const [wd, wi] = brute(X, Q ?? X, k, !Q, kind, p);
    expect(await i!.tolist()).toEqual(wi);
    if (kind === 'minkowski') close(await d!.tolist(), wd.map((r) => r.map((v) => v ** (1 / p))), 1e-12, 'minkowski');
    else expect(await d!.tolist()).toEqual(wd);
  }

  it('random data over several chunks, with and without X, euclidean (the WebAssembly scan) and d = 10', async () => {
    const r = uniform(7);
    const X = matrix(1500, 10, () => r()), Q = matrix(300, 10, () => r() * 1.2 - 0.1);
    await agree(X, Q, 10, 400);
    await agree(X, null, 10, 333);
    await agree(X, X.slice(0, 200), 10, 64);
  });
  it('other metrics, and other widths (1, 3, 70: past the kernel\'s registers)', async () => {
    const r = uniform(11);
    const X = matrix(700, 4, () => r() * 10 - 5);
    for (const kind of ['manhattan', 'chebyshev', 'minkowski'] as const) await agree(X, null, 6, 250, kind, 3);
    for (const d of [1, 3, 70]) await agree(matrix(300, d, () => r()), null, 5, 120);
  });
  it('exact duplicates and ties go to the lower index', async () => {
    const r = uniform(3);
    const X = matrix(600, 3, () => Math.floor(r() * 3));
    await agree(X, null, 12, 128);
    await agree(X, X.slice(100, 160), 12, 128, 'manhattan');
    await agree(matrix(80, 2, () => 1), null, 10, 30);
  });
  it('points far from the origin (float32 would round them together)', async () => {
    const r = uniform(5);
    const X = matrix(800, 6, () => 1e8 + r() * 1e-3);
    await agree(X, null, 8, 300);
    await agree(matrix(400, 5, (i) => (i % 2 ? 1e9 : -1e9) + r()), null, 4, 150);
  });
  it('k near n, and huge values whose squares overflow', async () => {
    const r = uniform(9);
    const X = matrix(40, 10, () => r());
    await agree(X, null, 39, 13);
    await agree(X, X.slice(0, 5), 40, 13);
    await agree(matrix(30, 3, () => (r() - 0.5) * 1e200), null, 5, 7);
  });
});
