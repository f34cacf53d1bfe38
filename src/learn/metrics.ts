// sklearn.metrics: classification and regression scores and pairwise
// distances. In: y_true, y_pred (or scores), X and Y (learn/base.ts inputs).
// Out: a score as a number (scikit-learn returns a Python float), per-class
// or per-output values and matrices as tensors.
//
// Every score is a few fused reductions over the row chunks: a classifier's
// counts come from one chunked bincount of (true class, predicted class)
// pairs, the confusion matrix, from which precision, recall and F1 follow on
// the host (k × k numbers). roc_auc_score is the Mann–Whitney statistic with
// tied scores' average ranks: a chunked stable sort of the scores, tie
// groups by a scan, and sums — no row gathered. Distances are
// scikit-learn's formulas: euclidean through the matrix product
// (‖x‖² − 2x·y + ‖y‖², clipped at 0, the diagonal of X against itself 0).

import * as mt from '../api/tensor.js';
import { type Input, asTensor, checkX, labelsOf, numbers, sameSamples, stringCategories, valueError } from './base.js';

type Labels = Input | readonly string[];

/** y_true and y_pred as float64 class values over one sorted set of classes (strings by their rank). */
async function classPair(yTrue: Labels, yPred: Labels): Promise<{ t: mt.Tensor; p: mt.Tensor; classes: (number | string)[] }> {
  const a = labelsOf(yTrue, 'y_true'), b = labelsOf(yPred, 'y_pred');
  if (a.kind !== b.kind) {
    throw valueError('Labels in y_true and y_pred should be of the same type. Got y_true of numbers and y_pred of strings (or the reverse)');
  }
  if (a.kind === 'num' && b.kind === 'num') {
    const t = mt.astype(a.t, 'float64'), p = mt.astype(b.t, 'float64');
    sameSamples([t, p]);
    const classes = await numbers(mt.unique(mt.concatenate([mt.unique(t), mt.unique(p)])) as mt.Tensor);
    return { t, p, classes };
  }
  if (a.kind !== 'str' || b.kind !== 'str') throw new Error('unreachable');
  sameSamples([a.codes, b.codes]);
  const classes = [...new Set([...await stringCategories(a.codes, a.dict), ...await stringCategories(b.codes, b.dict)])].sort(cmp);
  const rank = new Map(classes.map((c, i) => [c, i]));
  const recode = (codes: mt.Tensor, dict: readonly string[]): mt.Tensor =>
    mt.take(mt.tensor(Float64Array.from(dict, (s) => rank.get(s) ?? -1)), codes);
  return { t: recode(a.codes, a.dict), p: recode(b.codes, b.dict), classes: classes.map((_, i) => i).map((i) => classes[i]!) as string[] };
}

const cmp = (x: string, y: string): number => (x < y ? -1 : x > y ? 1 : 0);

/** The class values a string pair was recoded to: their ranks. */
const valuesOf = (classes: (number | string)[]): number[] => classes.map((c, i) => (typeof c === 'string' ? i : c));

/** The k × k counts of (true, predicted) over `labels` (rows: true), by one chunked bincount. */
function counts(t: mt.Tensor, p: mt.Tensor, labels: readonly number[]): mt.Tensor {
  const k = labels.length;
  const sorted = [...labels].sort((x, y) => x - y);
  const order = labels.map((l) => sorted.indexOf(l));
  const lab = mt.tensor(Float64Array.from(sorted));
  const place = (v: mt.Tensor): [mt.Tensor, mt.Tensor] => {
    const at = mt.minimum(mt.searchsorted(lab, v), k - 1);
    return [at, mt.equal(mt.take(lab, at), v)];
  };
  const [it, okt] = place(t), [ip, okp] = place(p);
  const pair = mt.where(mt.logical_and(okt, okp), mt.add(mt.multiply(it, k), ip), k * k);
  const c = mt.reshape(mt.bincount(pair, { minlength: k * k + 1 }).get(mt.slice(0, k * k)), [k, k]);
  // rows and columns in the order of `labels`
  return order.every((o, i) => o === i) ? c : mt.take(mt.take(c, order, { axis: 0 }), order, { axis: 1 });
}

export interface ConfusionOptions { labels?: readonly (number | string)[]; normalize?: 'true' | 'pred' | 'all' | null }

/** sklearn.metrics.confusion_matrix: counts of true class i predicted as j (int64; float64 when normalized). */
export async function confusion_matrix(y_true: Labels, y_pred: Labels, opts: ConfusionOptions = {}): Promise<mt.Tensor> {
  const { t, p, classes } = await classPair(y_true, y_pred);
  const labels = opts.labels ? labelValues(opts.labels, classes) : valuesOf(classes);
  if (!labels.length) throw valueError("'labels' should contains at least one label.");
  const c = counts(t, p, labels);
  if (!opts.normalize) return c.execute();
  const f = mt.astype(c, 'float64');
  const total = opts.normalize === 'true' ? mt.sum(f, { axis: 1, keepdims: true })
    : opts.normalize === 'pred' ? mt.sum(f, { axis: 0, keepdims: true }) : mt.sum(f);
  return mt.nan_to_num(mt.divide(f, total)).execute();
}

/** Labels the user named, as the class values the pair was coded in (strings by their rank). */
function labelValues(labels: readonly (number | string)[], classes: (number | string)[]): number[] {
  if (!labels.some((l) => typeof l === 'string')) return labels as number[];
  return labels.map((l) => { const i = classes.indexOf(l); return i < 0 ? -1 - classes.length : i; });
}

export type Average = 'binary' | 'micro' | 'macro' | 'weighted' | 'samples' | null;
export interface PrfOptions { labels?: readonly (number | string)[]; pos_label?: number | string; average?: Average; zero_division?: 0 | 1 | 'warn' }

/** precision_recall_fscore_support's arithmetic on the confusion matrix: per class, or averaged. */
async function prf(y_true: Labels, y_pred: Labels, opts: PrfOptions, beta: number): Promise<{ p: number[]; r: number[]; f: number[]; support: number[] }> {
  const average = opts.average === undefined ? 'binary' : opts.average;
  if (average === 'samples') throw valueError('Samplewise metrics are not available outside of multilabel classification.');
  const { t, p, classes } = await classPair(y_true, y_pred);
  let labels = opts.labels ? labelValues(opts.labels, classes) : valuesOf(classes);
  if (average === 'binary') {
    const pos = opts.pos_label ?? 1;
    if (classes.length > 2) {
      throw valueError("Target is multiclass but average='binary'. Please choose another average setting, one of [None, 'micro', 'macro', 'weighted'].");
    }
    if (classes.length && !classes.includes(pos)) throw valueError(`pos_label=${pos} is not a valid label. It should be one of [${classes.join(', ')}]`);
    labels = labelValues([pos], classes);
  }
  const c = await numbers(counts(t, p, labels));
  const k = labels.length;
  const tp = labels.map((_, i) => c[i * k + i]!);
  // a false positive or negative of a class outside `labels` still counts against the labels in it
  const fullP = await numbers(mt.stack(labels.map((l) => mt.sum(mt.equal(p, l)))));
  const fullT = await numbers(mt.stack(labels.map((l) => mt.sum(mt.equal(t, l)))));
  const zd = opts.zero_division === 1 ? 1 : 0;
  const div = (a: number, b: number): number => (b === 0 ? zd : a / b);
  const b2 = beta * beta;
  const fb = (pr: number, rc: number): number => (pr + rc === 0 ? 0 : ((1 + b2) * pr * rc) / (b2 * pr + rc));
  if (average === 'micro') {
    const stp = tp.reduce((a, b) => a + b, 0), sp = fullP.reduce((a, b) => a + b, 0), st = fullT.reduce((a, b) => a + b, 0);
    const pr = div(stp, sp), rc = div(stp, st);
    return { p: [pr], r: [rc], f: [fb(pr, rc)], support: fullT };
  }
  const pr = tp.map((v, i) => div(v, fullP[i]!)), rc = tp.map((v, i) => div(v, fullT[i]!));
  const f = pr.map((v, i) => fb(v, rc[i]!));
  if (average === null || average === 'binary') return { p: pr, r: rc, f, support: fullT };
  const w = average === 'weighted' ? fullT : fullT.map(() => 1);
  const sw = w.reduce((a, b) => a + b, 0);
  const mean = (xs: number[]): number => (sw === 0 ? 0 : xs.reduce((s, x, i) => s + x * w[i]!, 0) / sw);
  return { p: [mean(pr)], r: [mean(rc)], f: [mean(f)], support: fullT };
}

/** One score, or one per label as a tensor (average null). */
function scoreOf(xs: number[], average: Average | undefined): number | mt.Tensor {
  return average === null ? mt.tensor(Float64Array.from(xs)) : xs[0]!;
}

/** sklearn.metrics.precision_score: tp / (tp + fp). */
export async function precision_score(y_true: Labels, y_pred: Labels, opts: PrfOptions = {}): Promise<number | mt.Tensor> {
  return scoreOf((await prf(y_true, y_pred, opts, 1)).p, opts.average);
}
/** sklearn.metrics.recall_score: tp / (tp + fn). */
export async function recall_score(y_true: Labels, y_pred: Labels, opts: PrfOptions = {}): Promise<number | mt.Tensor> {
  return scoreOf((await prf(y_true, y_pred, opts, 1)).r, opts.average);
}
/** sklearn.metrics.f1_score: the harmonic mean of precision and recall. */
export async function f1_score(y_true: Labels, y_pred: Labels, opts: PrfOptions = {}): Promise<number | mt.Tensor> {
  return scoreOf((await prf(y_true, y_pred, opts, 1)).f, opts.average);
}

/** sklearn.metrics.accuracy_score: the fraction (or with normalize false, the number) of exact matches. */
export async function accuracy_score(y_true: Labels, y_pred: Labels, opts: { normalize?: boolean } = {}): Promise<number> {
  const { t, p } = await classPair(y_true, y_pred);
  const eq = mt.equal(t, p);
  return Number(await (opts.normalize === false ? mt.sum(eq) : mt.mean(eq)).item());
}

/** sklearn.metrics.roc_auc_score for a binary target: the Mann–Whitney U over n₊·n₋, ties counted half. */
export async function roc_auc_score(y_true: Labels, y_score: Input): Promise<number> {
  const { t, classes } = await classPair(y_true, y_true);
  if (classes.length !== 2) {
    if (classes.length > 2) throw valueError('multi_class must be in (\'ovo\', \'ovr\'): learn computes the binary ROC AUC only');
    throw valueError('Only one class present in y_true. ROC AUC score is not defined in that case.');
  }
  const s = mt.astype(asTensor(y_score, 'y_score'), 'float64');
  if (s.ndim !== 1) throw valueError(`y_score should be a 1d array of scores for a binary target, got shape (${s.shape.join(', ')})`);
  sameSamples([t, s]);
  const pos = mt.astype(mt.equal(t, valuesOf(classes)[1]!), 'float64');
  const order = mt.argsort(s, { kind: 'stable' });
  const ss = mt.take(s, order), ps = mt.take(pos, order);
  const n = s.shape[0]!;
  // tie groups of equal scores: a group's ranks (1-based) average to (first + last) / 2
  const starts = mt.concatenate([mt.tensor([true]), mt.not_equal(ss.get(mt.slice(1, null)), ss.get(mt.slice(0, -1)))]);
  const gid = mt.subtract(mt.cumsum(mt.astype(starts, 'int64')), 1);
  const size = mt.bincount(gid);
  const posIn = mt.bincount(gid, { weights: ps });
  const first = mt.subtract(mt.cumsum(size), size);
  const avgRank = mt.add(mt.astype(first, 'float64'), mt.divide(mt.add(mt.astype(size, 'float64'), 1), 2));
  const rankSum = mt.sum(mt.multiply(posIn, avgRank));
  const nPos = mt.sum(pos);
  const [rs, np_] = (await numbers(mt.stack([rankSum, nPos]))) as [number, number];
  const nNeg = n - np_;
  return (rs - (np_ * (np_ + 1)) / 2) / (np_ * nNeg);
}

type Multioutput = 'uniform_average' | 'raw_values' | 'variance_weighted';
interface RegressionOptions { multioutput?: Multioutput }

/** y_true and y_pred as float64 (n,) or (n, k), alike in shape. */
function regressionPair(y_true: Input, y_pred: Input): [mt.Tensor, mt.Tensor] {
  const t = mt.astype(asTensor(y_true, 'y_true'), 'float64'), p = mt.astype(asTensor(y_pred, 'y_pred'), 'float64');
  sameSamples([t, p]);
  const k = (x: mt.Tensor): number => (x.ndim === 1 ? 1 : x.shape[1]!);
  if (t.ndim > 2 || p.ndim > 2 || k(t) !== k(p)) throw valueError(`y_true and y_pred have different number of output (${k(t)}!=${k(p)})`);
  return t.ndim === p.ndim ? [t, p] : [mt.reshape(t, [-1, k(t)]), mt.reshape(p, [-1, k(p)])];
}

/** Per-output values combined as multioutput says. */
async function outputs(per: mt.Tensor, o: RegressionOptions, weights?: mt.Tensor): Promise<number | mt.Tensor> {
  const m = o.multioutput ?? 'uniform_average';
  if (m === 'raw_values') return (per.ndim === 0 ? mt.reshape(per, [1]) : per).execute();
  if (m === 'variance_weighted' && weights) return Number(await mt.divide(mt.sum(mt.multiply(per, weights)), mt.sum(weights)).item());
  return Number(await mt.mean(per).item());
}

/** sklearn.metrics.mean_squared_error (its root with squared false). */
export async function mean_squared_error(y_true: Input, y_pred: Input, opts: RegressionOptions & { squared?: boolean } = {}): Promise<number | mt.Tensor> {
  const [t, p] = regressionPair(y_true, y_pred);
  const d = mt.subtract(t, p);
  let per = mt.mean(mt.multiply(d, d), { axis: 0 });
  if (opts.squared === false) per = mt.sqrt(per);
  return outputs(per, opts);
}

/** sklearn.metrics.mean_absolute_error. */
export async function mean_absolute_error(y_true: Input, y_pred: Input, opts: RegressionOptions = {}): Promise<number | mt.Tensor> {
  const [t, p] = regressionPair(y_true, y_pred);
  return outputs(mt.mean(mt.abs(mt.subtract(t, p)), { axis: 0 }), opts);
}

/** sklearn.metrics.r2_score: 1 − SS_res / SS_tot per output (a constant y_true: 1 if predicted exactly, else 0). */
export async function r2_score(y_true: Input, y_pred: Input, opts: RegressionOptions = {}): Promise<number | mt.Tensor> {
  const [t, p] = regressionPair(y_true, y_pred);
  if (t.shape[0]! < 2) throw valueError('R^2 score is not well-defined with less than two samples.');
  const d = mt.subtract(t, p);
  const res = mt.sum(mt.multiply(d, d), { axis: 0 });
  const c = mt.subtract(t, mt.mean(t, { axis: 0 }));
  const tot = mt.sum(mt.multiply(c, c), { axis: 0 });
  const per = mt.where(mt.not_equal(tot, 0), mt.subtract(1, mt.divide(res, mt.where(mt.equal(tot, 0), 1, tot))),
    mt.where(mt.equal(res, 0), 1, 0));
  return outputs(per, opts, tot);
}

/** X and Y for a distance: 2-d float64, with as many features. */
function pairOf(X: Input, Y: Input | null | undefined, fn: string): [mt.Tensor, mt.Tensor, boolean] {
  const x = checkX(X, fn);
  const y = Y === null || Y === undefined ? x : checkX(Y, fn);
  if (x.shape[1] !== y.shape[1]) {
    throw valueError(`Incompatible dimension for X and Y matrices: X.shape[1] == ${x.shape[1]} while Y.shape[1] == ${y.shape[1]}`);
  }
  return [x, y, y === x];
}

/** ‖x‖² − 2x·y + ‖y‖² clipped at 0, the diagonal of X against itself exactly 0. */
function squaredEuclidean(x: mt.Tensor, y: mt.Tensor, same: boolean): mt.Tensor {
  const xx = mt.sum(mt.multiply(x, x), { axis: 1, keepdims: true });
  const yy = mt.reshape(mt.sum(mt.multiply(y, y), { axis: 1 }), [1, -1]);
  let d = mt.maximum(mt.add(mt.subtract(xx, mt.multiply(2, mt.matmul(x, mt.transpose(y)))), yy), 0);
  if (same) d = mt.where(mt.eye(x.shape[0]!, { dtype: 'bool' }), 0, d);
  return d;
}

/** sklearn.metrics.euclidean_distances (squared: the squares). */
export async function euclidean_distances(X: Input, Y?: Input | null, opts: { squared?: boolean } = {}): Promise<mt.Tensor> {
  const [x, y, same] = pairOf(X, Y, 'euclidean_distances');
  const d = squaredEuclidean(x, y, same);
  return (opts.squared ? d : mt.sqrt(d)).execute();
}

export type Metric = 'euclidean' | 'sqeuclidean' | 'l2' | 'manhattan' | 'cityblock' | 'l1' | 'cosine' | 'minkowski' | 'chebyshev';

/** The distance matrix of `metric` (lazy; learn's neighbours use it too). */
export function distances(x: mt.Tensor, y: mt.Tensor, same: boolean, metric: Metric, p = 2): mt.Tensor {
  switch (metric) {
    case 'euclidean': case 'l2': return mt.sqrt(squaredEuclidean(x, y, same));
    case 'sqeuclidean': return squaredEuclidean(x, y, same);
    case 'cosine': {
      const nx = mt.sqrt(mt.sum(mt.multiply(x, x), { axis: 1, keepdims: true }));
      const ny = mt.reshape(mt.sqrt(mt.sum(mt.multiply(y, y), { axis: 1 })), [1, -1]);
      const safe = (n: mt.Tensor): mt.Tensor => mt.where(mt.equal(n, 0), 1, n);
      let d = mt.clip(mt.subtract(1, mt.divide(mt.matmul(x, mt.transpose(y)), mt.multiply(safe(nx), safe(ny)))), 0, 2);
      if (same) d = mt.where(mt.eye(x.shape[0]!, { dtype: 'bool' }), 0, d);
      return d;
    }
    default: {
      const diff = mt.abs(mt.subtract(mt.expand_dims(x, 1), mt.expand_dims(y, 0)));
      if (metric === 'manhattan' || metric === 'cityblock' || metric === 'l1') return mt.sum(diff, { axis: 2 });
      if (metric === 'chebyshev') return mt.max(diff, { axis: 2 });
      if (metric === 'minkowski') return mt.power(mt.sum(mt.power(diff, p), { axis: 2 }), 1 / p);
      throw valueError(`Unknown metric ${String(metric)}. Valid metrics are euclidean, sqeuclidean, l2, manhattan, cityblock, ` +
        `l1, cosine, minkowski, chebyshev`);
    }
  }
}

/** sklearn.metrics.pairwise_distances over the metrics learn knows. */
export async function pairwise_distances(X: Input, Y?: Input | null, opts: { metric?: Metric; p?: number } = {}): Promise<mt.Tensor> {
  const [x, y, same] = pairOf(X, Y, 'pairwise_distances');
  return distances(x, y, same, opts.metric ?? 'euclidean', opts.p ?? 2).execute();
}
