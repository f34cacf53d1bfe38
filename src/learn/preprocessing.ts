// sklearn.preprocessing: scalers, normalize, and the encoders of labels and
// categories. In: X or y (learn/base.ts inputs). Out: fitted statistics as
// tensors with scikit-learn's names, transformed tensors.
//
// A scaler's fit is one fused pass of per-feature reductions over the row
// chunks (NaN ignored, as scikit-learn ignores it: nanmean, nanvar, nanmin,
// nanmax); its transform is one elementwise kernel per chunk. The encoders
// find their categories with the chunked `unique` (a string column's
// categories from its dictionary's codes present); their transforms are
// comparisons with the categories, fused, and a run-time check for a value
// no category holds. OneHotEncoder returns a dense float64 tensor (scikit-
// learn's default is a sparse matrix; learn has no sparse type).

import * as mt from '../api/tensor.js';
import { DataFrame } from '../dataframe/frame.js';
import {
  type Input, type Labels, checkX, fitted, fittedInput, labelsOf, numbers, options, stringCategories, valueError,
} from './base.js';

/** _handle_zeros_in_scale: a scale below 10 ulp of its magnitude becomes 1 (a constant feature is left as it is). */
function safeScale(scale: mt.Tensor): mt.Tensor {
  return mt.where(mt.less(scale, 10 * Number.EPSILON), 1, scale);
}

/** Per-feature counts of the values that are not NaN: scikit-learn's n_samples_seen_ is a number when all are n. */
async function samplesSeen(X: mt.Tensor): Promise<number | mt.Tensor> {
  const counts = mt.sum(mt.logical_not(mt.isnan(X)), { axis: 0, dtype: 'int64' });
  const c = await numbers(counts);
  const n = X.shape[0]!;
  return c.every((v) => v === n) ? n : counts;
}

export interface StandardScalerOptions { copy?: boolean; with_mean?: boolean; with_std?: boolean }

/** sklearn.preprocessing.StandardScaler: (x - mean_) / scale_ per feature, with the population variance. */
export class StandardScaler {
  readonly copy: boolean;
  readonly with_mean: boolean;
  readonly with_std: boolean;
  mean_?: mt.Tensor | null;
  var_?: mt.Tensor | null;
  scale_?: mt.Tensor | null;
  n_samples_seen_?: number | mt.Tensor;
  n_features_in_?: number;

  constructor(opts: StandardScalerOptions = {}) {
    const o = options('StandardScaler', opts, { copy: true, with_mean: true, with_std: true });
    this.copy = o.copy; this.with_mean = o.with_mean; this.with_std = o.with_std;
  }

  async fit(X: Input): Promise<this> {
    const x = checkX(X, 'StandardScaler');
    await checkInfinite(x);
    const stats = this.with_mean || this.with_std;
    this.mean_ = stats ? mt.nanmean(x, { axis: 0 }) : null;
    this.var_ = this.with_std ? mt.nanvar(x, { axis: 0 }) : null;
    this.scale_ = this.var_ ? safeScale(mt.sqrt(this.var_)) : null;
    await mt.execute(...[this.mean_, this.var_, this.scale_].filter((t): t is mt.Tensor => !!t));
    this.n_samples_seen_ = await samplesSeen(x);
    this.n_features_in_ = x.shape[1];
    return this;
  }

  async transform(X: Input): Promise<mt.Tensor> {
    let x = fittedInput(X, this.n_features_in_, 'StandardScaler');
    if (this.with_mean) x = mt.subtract(x, this.mean_!);
    if (this.with_std) x = mt.divide(x, this.scale_!);
    return x.execute();
  }

  async inverse_transform(X: Input): Promise<mt.Tensor> {
    let x = fittedInput(X, this.n_features_in_, 'StandardScaler');
    if (this.with_std) x = mt.multiply(x, this.scale_!);
    if (this.with_mean) x = mt.add(x, this.mean_!);
    return x.execute();
  }

  async fit_transform(X: Input): Promise<mt.Tensor> { return (await this.fit(X)).transform(X); }
}

/** Infinity is refused by the scalers (NaN is a missing value to them). */
async function checkInfinite(x: mt.Tensor): Promise<void> {
  if (await mt.any(mt.isinf(x)).item()) throw valueError("Input X contains infinity or a value too large for dtype('float64').");
}

export interface MinMaxScalerOptions { feature_range?: readonly [number, number]; copy?: boolean; clip?: boolean }

/** sklearn.preprocessing.MinMaxScaler: each feature mapped linearly onto feature_range. */
export class MinMaxScaler {
  readonly feature_range: readonly [number, number];
  readonly copy: boolean;
  readonly clip: boolean;
  data_min_?: mt.Tensor;
  data_max_?: mt.Tensor;
  data_range_?: mt.Tensor;
  scale_?: mt.Tensor;
  min_?: mt.Tensor;
  n_samples_seen_?: number;
  n_features_in_?: number;

  constructor(opts: MinMaxScalerOptions = {}) {
    const o = options('MinMaxScaler', opts, { feature_range: [0, 1] as readonly [number, number], copy: true, clip: false });
    if (!(o.feature_range[0] < o.feature_range[1])) {
      throw valueError(`Minimum of desired feature range must be smaller than maximum. Got (${o.feature_range.join(', ')}).`);
    }
    this.feature_range = o.feature_range; this.copy = o.copy; this.clip = o.clip;
  }

  async fit(X: Input): Promise<this> {
    const x = checkX(X, 'MinMaxScaler');
    await checkInfinite(x);
    const [lo, hi] = this.feature_range;
    this.data_min_ = mt.nanmin(x, { axis: 0 });
    this.data_max_ = mt.nanmax(x, { axis: 0 });
    this.data_range_ = mt.subtract(this.data_max_, this.data_min_);
    this.scale_ = mt.divide(hi - lo, safeScale(this.data_range_));
    this.min_ = mt.subtract(lo, mt.multiply(this.data_min_, this.scale_));
    await mt.execute(this.data_min_, this.data_max_, this.data_range_, this.scale_, this.min_);
    this.n_samples_seen_ = x.shape[0];
    this.n_features_in_ = x.shape[1];
    return this;
  }

  async transform(X: Input): Promise<mt.Tensor> {
    const x = fittedInput(X, this.n_features_in_, 'MinMaxScaler');
    const y = mt.add(mt.multiply(x, this.scale_!), this.min_!);
    return (this.clip ? mt.clip(y, this.feature_range[0], this.feature_range[1]) : y).execute();
  }

  async inverse_transform(X: Input): Promise<mt.Tensor> {
    const x = fittedInput(X, this.n_features_in_, 'MinMaxScaler');
    return mt.divide(mt.subtract(x, this.min_!), this.scale_!).execute();
  }

  async fit_transform(X: Input): Promise<mt.Tensor> { return (await this.fit(X)).transform(X); }
}

export interface NormalizeOptions { norm?: 'l1' | 'l2' | 'max'; axis?: 0 | 1; return_norm?: boolean }

/** sklearn.preprocessing.normalize: each row (axis 1) or column (axis 0) divided by its norm (a zero norm left as 1). */
export async function normalize(X: Input, opts: NormalizeOptions = {}): Promise<mt.Tensor | [mt.Tensor, mt.Tensor]> {
  const o = options('normalize', opts, { norm: 'l2' as 'l1' | 'l2' | 'max', axis: 1 as 0 | 1, return_norm: false });
  if (!['l1', 'l2', 'max'].includes(o.norm)) throw valueError(`'${String(o.norm)}' is not a supported norm`);
  if (o.axis !== 0 && o.axis !== 1) throw valueError(`'${String(o.axis)}' is not a supported axis`);
  const x = checkX(X, 'the normalize function');
  const a = mt.abs(x);
  const raw = o.norm === 'l1' ? mt.sum(a, { axis: o.axis, keepdims: true })
    : o.norm === 'max' ? mt.max(a, { axis: o.axis, keepdims: true })
      : mt.sqrt(mt.sum(mt.multiply(x, x), { axis: o.axis, keepdims: true }));
  const out = mt.divide(x, mt.where(mt.equal(raw, 0), 1, raw));
  if (!o.return_norm) return out.execute();
  const norms = mt.reshape(raw, [-1]);
  await mt.execute(out, norms);
  return [out, norms];
}

/** Each label's place among the sorted categories, or the error naming the labels no category holds. */
async function placeLabels(l: Labels, classes: mt.Tensor | readonly string[]): Promise<mt.Tensor> {
  if (l.kind === 'str') {
    if (!Array.isArray(classes)) throw valueError('y contains strings, but the encoder was fitted on numbers');
    const at = new Map((classes as string[]).map((s, i) => [s, i]));
    const unseen = l.dict.filter((s) => !at.has(s));
    const map = mt.tensor(BigInt64Array.from(l.dict, (s) => BigInt(at.get(s) ?? -1)));
    const out = mt.take(map, l.codes);
    if (unseen.length && (await mt.any(mt.less(out, 0)).item())) {
      // scikit-learn names the first string its dictionary lookup misses
      const used = new Set(await stringCategories(l.codes, l.dict));
      throw valueError(`y contains previously unseen labels: '${unseen.find((s) => used.has(s))}'`);
    }
    return out.execute();
  }
  if (Array.isArray(classes)) throw valueError('y contains numbers, but the encoder was fitted on strings');
  const c = classes as mt.Tensor;
  const at = mt.searchsorted(c, l.t);
  const hit = mt.equal(mt.take(c, mt.minimum(at, c.shape[0]! - 1)), l.t);
  if (!(await mt.all(hit).item())) {
    const bad = await numbers(mt.unique(mt.compress(mt.logical_not(hit), l.t)) as mt.Tensor);
    throw valueError(`y contains previously unseen labels: [${bad.join(', ')}]`);
  }
  return at.execute();
}

/** sklearn.preprocessing.LabelEncoder: labels to 0..n_classes-1 in sorted order. */
export class LabelEncoder {
  /** The sorted labels: a tensor of numbers, or strings. */
  classes_?: mt.Tensor | string[];

  async fit(y: Input | readonly string[]): Promise<this> {
    const l = labelsOf(y, 'y');
    this.classes_ = l.kind === 'str' ? await stringCategories(l.codes, l.dict) : await (mt.unique(l.t) as mt.Tensor).execute();
    return this;
  }

  async transform(y: Input | readonly string[]): Promise<mt.Tensor> {
    return placeLabels(labelsOf(y, 'y'), fitted(this.classes_, 'LabelEncoder'));
  }

  async fit_transform(y: Input | readonly string[]): Promise<mt.Tensor> { return (await this.fit(y)).transform(y); }

  /** The labels of codes: a tensor, or strings for string classes. */
  async inverse_transform(y: Input): Promise<mt.Tensor | string[]> {
    const classes = fitted(this.classes_, 'LabelEncoder');
    const l = labelsOf(y, 'y');
    if (l.kind === 'str') throw valueError('inverse_transform takes codes (integers), got strings');
    const n = Array.isArray(classes) ? classes.length : (classes as mt.Tensor).shape[0]!;
    const codes = await numbers(mt.unique(l.t) as mt.Tensor);
    const bad = codes.filter((c) => !(Number.isInteger(c) && c >= 0 && c < n));
    if (bad.length) throw valueError(`y contains previously unseen labels: [${bad.join(', ')}]`);
    if (Array.isArray(classes)) return Array.from(await numbers(l.t), (c) => classes[c]!);
    return mt.take(classes as mt.Tensor, mt.astype(l.t, 'int64')).execute();
  }
}

export interface OneHotEncoderOptions {
  categories?: 'auto' | readonly (readonly (number | string)[])[];
  drop?: 'first' | 'if_binary' | null;
  sparse_output?: boolean;
  dtype?: 'float64' | 'float32';
  handle_unknown?: 'error' | 'ignore';
}

/** One input column of an encoder: its values (numbers, or codes with their dictionary). */
type EncColumn = { name: string; values: mt.Tensor; dict?: readonly string[] };

function encColumns(X: Input | readonly (readonly (number | string)[])[]): EncColumn[] {
  if (X instanceof DataFrame) return X.columns.map((name) => ({ name, values: X.column(name).values, dict: X.column(name).dict }));
  if (Array.isArray(X) && X.some((r) => Array.isArray(r) && r.some((v: unknown) => typeof v === 'string'))) {
    const rows = X as readonly (readonly (number | string)[])[];
    return rows[0]!.map((_, j) => {
      const col = rows.map((r) => r[j]!);
      const l = labelsOf(col as string[], 'X');
      return l.kind === 'str' ? { name: `x${j}`, values: l.codes, dict: l.dict } : { name: `x${j}`, values: l.t };
    });
  }
  const x = checkX(X as Input, 'OneHotEncoder');
  return Array.from({ length: x.shape[1]! }, (_, j) => ({ name: `x${j}`, values: x.get(mt.slice(null), j) }));
}

/** sklearn.preprocessing.OneHotEncoder: one 0/1 column per category of each feature (dense). */
export class OneHotEncoder {
  readonly categories: 'auto' | readonly (readonly (number | string)[])[];
  readonly drop: 'first' | 'if_binary' | null;
  readonly dtype: 'float64' | 'float32';
  readonly handle_unknown: 'error' | 'ignore';
  /** Per feature, its categories in order: numbers, or strings. */
  categories_?: (number[] | string[])[];
  /** Per feature, the index of its dropped category, or null. */
  drop_idx_?: (number | null)[] | null;
  n_features_in_?: number;
  feature_names_in_?: string[];

  constructor(opts: OneHotEncoderOptions = {}) {
    const o = options('OneHotEncoder', opts, {
      categories: 'auto' as OneHotEncoderOptions['categories'], drop: null as OneHotEncoderOptions['drop'], sparse_output: true,
      dtype: 'float64' as const, handle_unknown: 'error' as 'error' | 'ignore',
    });
    if (!['error', 'ignore'].includes(o.handle_unknown)) {
      throw valueError(`handle_unknown should be one of 'error', 'ignore', got ${String(o.handle_unknown)}.`);
    }
    this.categories = o.categories!; this.drop = o.drop ?? null; this.dtype = o.dtype; this.handle_unknown = o.handle_unknown;
  }

  async fit(X: Input | readonly (readonly (number | string)[])[]): Promise<this> {
    const cols = encColumns(X);
    this.categories_ = [];
    for (const [j, c] of cols.entries()) {
      if (this.categories !== 'auto') {
        const given = this.categories[j];
        if (!given) throw valueError(`Shape mismatch: if categories is an array, it has to be of shape (n_features,).`);
        this.categories_.push([...given] as number[] | string[]);
      } else {
        this.categories_.push(c.dict ? await stringCategories(c.values, c.dict) : await numbers(mt.unique(c.values) as mt.Tensor));
      }
    }
    this.drop_idx_ = this.drop === null ? null
      : this.categories_.map((cats) => (this.drop === 'first' || cats.length === 2 ? 0 : null));
    this.n_features_in_ = cols.length;
    if (X instanceof DataFrame) this.feature_names_in_ = X.columns;
    return this;
  }

  async transform(X: Input | readonly (readonly (number | string)[])[]): Promise<mt.Tensor> {
    const cats = fitted(this.categories_, 'OneHotEncoder');
    const cols = encColumns(X);
    if (cols.length !== cats.length) throw valueError(`X has ${cols.length} features, but OneHotEncoder is expecting ${cats.length} features as input.`);
    const blocks: mt.Tensor[] = [];
    const hits: mt.Tensor[] = [];
    for (const [j, c] of cols.entries()) {
      const keep = cats[j]!.map((_, k) => k).filter((k) => this.drop_idx_?.[j] !== k);
      const codes = categoryCodes(c, cats[j]!);
      const eq = mt.equal(mt.reshape(c.values, [-1, 1]), mt.reshape(mt.tensor(codes), [1, -1]));
      hits.push(mt.any(eq, { axis: 1 }));
      const kept = keep.length === cats[j]!.length ? eq : mt.take(eq, keep, { axis: 1 });
      blocks.push(mt.astype(kept, this.dtype));
    }
    if (this.handle_unknown === 'error') {
      const ok = await numbers(mt.stack(hits.map((h) => mt.all(h))));
      const j = ok.findIndex((v) => !v);
      if (j >= 0) {
        const c = cols[j]!;
        const codes = await numbers(mt.unique(mt.compress(mt.logical_not(hits[j]!), c.values)) as mt.Tensor);
        const shown = c.dict ? codes.map((v) => `'${c.dict![v] ?? 'nan'}'`) : codes;
        throw valueError(`Found unknown categories [${shown.join(', ')}] in column ${j} during transform`);
      }
    }
    return (blocks.length === 1 ? blocks[0]! : mt.concatenate(blocks, { axis: 1 })).execute();
  }

  async fit_transform(X: Input | readonly (readonly (number | string)[])[]): Promise<mt.Tensor> { return (await this.fit(X)).transform(X); }

  /** get_feature_names_out: `<feature>_<category>` for every output column. */
  get_feature_names_out(input_features?: readonly string[]): string[] {
    const cats = fitted(this.categories_, 'OneHotEncoder');
    const names = input_features ?? this.feature_names_in_ ?? cats.map((_, j) => `x${j}`);
    return cats.flatMap((cs, j) => (cs as (number | string)[]).filter((_, k) => this.drop_idx_?.[j] !== k).map((v) => `${names[j]}_${v}`));
  }
}

/** A feature's categories as the values its column holds: numbers, or the dictionary codes of strings (-1 where absent). */
function categoryCodes(c: EncColumn, cats: readonly (number | string)[]): Float64Array {
  if (!c.dict) {
    if (cats.some((v) => typeof v === 'string')) throw valueError(`column ${JSON.stringify(c.name)} holds numbers, but its categories are strings`);
    return Float64Array.from(cats as number[]);
  }
  const at = new Map(c.dict.map((s, i) => [s, i]));
  return Float64Array.from(cats, (v) => at.get(String(v)) ?? -2);
}
