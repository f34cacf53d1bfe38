// learn's common ground: what every estimator does with its inputs before it
// computes, as scikit-learn's `check_array`/`check_X_y` and `check_is_fitted`
// do it, and the small host reads an estimator makes.
//
// In: the inputs users pass — tensors, DataFrames (their number and bool
// columns), Series, JS arrays and typed arrays. Out: lazy float64 Tensors
// of scikit-learn's shapes (X is (n_samples, n_features), y is (n_samples,)
// or (n_samples, n_targets)), or scikit-learn's error, thrown at once where
// the shapes tell, and before any fit runs where only the values tell (NaN,
// infinity: one fused pass, `checkFinite`). A DataFrame's columns become X's
// columns by one stack over the frame's row chunks: nothing is gathered.
// Errors carry scikit-learn's class in front of its message ("ValueError:
// ..."), as `md` does with pandas'.

import * as mt from '../api/tensor.js';
import { DataFrame } from '../dataframe/frame.js';
import { Series } from '../dataframe/series.js';
import { runtime } from '../runtime/runtime.js';

/** What an estimator takes as X or y. */
export type Input = mt.Tensor | DataFrame | Series | ArrayLike<number> | readonly (readonly number[])[] | readonly number[];

/** sklearn.exceptions.NotFittedError: an estimator asked for a result before `fit`. */
export class NotFittedError extends Error {
  override name = 'NotFittedError';
}

/** scikit-learn's ValueError message, as an Error whose message starts "ValueError: ". */
export function valueError(message: string): Error {
  return new Error(`ValueError: ${message}`);
}

/** X or y as a tensor of numbers: a DataFrame's columns stacked as X's columns; a string column refused. */
export function asTensor(x: Input, what: string): mt.Tensor {
  if (x instanceof mt.Tensor) return x;
  if (x instanceof Series) {
    if (x.column.dict) throw valueError(`${what}: the Series ${JSON.stringify(x.name)} holds strings; learn takes numbers (encode it first)`);
    return x.values;
  }
  if (x instanceof DataFrame) {
    const cols = x.columns.map((name) => {
      const c = x.column(name);
      if (c.dict) throw valueError(`${what}: column ${JSON.stringify(name)} holds strings; learn takes number and bool columns (encode it first)`);
      return mt.astype(c.values, 'float64');
    });
    if (!cols.length) throw valueError(`${what}: the DataFrame has no columns`);
    return cols.length === 1 ? mt.reshape(cols[0]!, [-1, 1]) : mt.stack(cols, { axis: 1 });
  }
  if (x === null || x === undefined) throw new TypeError(`${what} is required`);
  return mt.tensor(x as Parameters<typeof mt.tensor>[0]);
}

/** As float64 unless already a float dtype (scikit-learn's dtype='numeric' keeps float32, converts the rest). */
function asFloat(t: mt.Tensor, keep32: boolean): mt.Tensor {
  if (t.dtype === 'float64' || (keep32 && t.dtype === 'float32')) return t;
  return mt.astype(t, 'float64');
}

export interface CheckOptions {
  /** Keep float32 data in float32 (the estimators that compute in either). */
  float32?: boolean;
  /** The least number of samples the estimator needs (scikit-learn's ensure_min_samples). */
  minSamples?: number;
}

/** check_array for X: a 2-d float array with at least one sample and one feature. */
export function checkX(X: Input, est: string, o: CheckOptions = {}): mt.Tensor {
  const t = asFloat(asTensor(X, 'X'), o.float32 ?? false);
  if (t.ndim === 1 || t.ndim === 0) {
    throw valueError(`Expected 2D array, got ${t.ndim === 0 ? 'scalar array' : '1D array'} instead:\n` +
      'Reshape your data either using array.reshape(-1, 1) if your data has a single feature or array.reshape(1, -1) if it contains a single sample.');
  }
  if (t.ndim > 2) throw valueError(`Found array with dim ${t.ndim}. ${est} expected <= 2.`);
  const [n, d] = t.shape as [number, number];
  const min = o.minSamples ?? 1;
  if (n < min) throw valueError(`Found array with ${n} sample(s) (shape=(${n}, ${d})) while a minimum of ${min} is required by ${est}.`);
  if (d < 1) throw valueError(`Found array with 0 feature(s) (shape=(${n}, 0)) while a minimum of 1 is required by ${est}.`);
  return t;
}

/** check_X_y's y: 1-d (or a column vector, flattened), or 2-d with `multi`; as many samples as X. */
export function checkY(y: Input, X: mt.Tensor, est: string, multi: boolean, numeric = true): mt.Tensor {
  let t = asTensor(y, 'y');
  if (numeric) t = asFloat(t, false);
  if (t.ndim === 2 && t.shape[1] === 1 && !multi) t = mt.reshape(t, [-1]);
  if (t.ndim !== 1 && !(multi && t.ndim === 2)) {
    throw valueError(`y should be a 1d array, got an array of shape (${t.shape.join(', ')}) instead.`);
  }
  sameSamples([X, t]);
  return t;
}

/** check_consistent_length: every array has as many rows as the first. */
export function sameSamples(ts: readonly mt.Tensor[]): void {
  const ns = ts.map((t) => t.shape[0]!);
  if (new Set(ns).size > 1) throw valueError(`Found input variables with inconsistent numbers of samples: [${ns.join(', ')}]`);
}

/**
 * scikit-learn's assert_all_finite, run before a fit: one fused pass that
 * counts NaN and infinities, and its message when one is there.
 */
export async function checkFinite(ts: readonly [mt.Tensor, string][], est: string): Promise<void> {
  const flags = ts.flatMap(([t]) => [mt.any(mt.isnan(t)), mt.any(mt.isinf(t))]);
  await mt.execute(...flags);
  for (let i = 0; i < ts.length; i++) {
    const [, name] = ts[i]!;
    if (await flags[2 * i]!.item()) {
      throw valueError(`Input ${name} contains NaN.` + (name === 'X' ? `\n${est} does not accept missing values encoded as NaN natively.` : ''));
    }
    if (await flags[2 * i + 1]!.item()) throw valueError(`Input ${name} contains infinity or a value too large for dtype('float64').`);
  }
}

/** check_is_fitted: the fitted attribute is there, or NotFittedError with scikit-learn's message. */
export function fitted<T>(value: T | undefined, est: string): T {
  if (value === undefined) {
    throw new NotFittedError(`This ${est} instance is not fitted yet. Call 'fit' with appropriate arguments before using this estimator.`);
  }
  return value;
}

/** A check that X has the features the estimator was fitted on. */
export function sameFeatures(X: mt.Tensor, nFeatures: number, est: string): void {
  const d = X.shape[1]!;
  if (d !== nFeatures) throw valueError(`X has ${d} features, but ${est} is expecting ${nFeatures} features as input.`);
}

/** X for a fitted estimator's predict or transform: checked, with the features it was fitted on. */
export function fittedInput(X: Input, nFeatures: number | undefined, est: string): mt.Tensor {
  const d = fitted(nFeatures, est);
  const x = checkX(X, est);
  sameFeatures(x, d, est);
  return x;
}

/** The options an estimator was given, checked against the names it knows (a misspelt option is an error, not a default). */
export function options<T extends object>(est: string, given: object | undefined, defaults: T): T {
  const o = (given ?? {}) as Record<string, unknown>;
  const unknown = Object.keys(o).filter((k) => !(k in defaults));
  if (unknown.length) {
    throw new TypeError(`${est}.__init__() got an unexpected keyword argument '${unknown[0]}' (it takes ${Object.keys(defaults).join(', ')})`);
  }
  const out = { ...defaults } as Record<string, unknown>;
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v;
  return out as T;
}

/** A tensor's values on the host, as plain numbers (small results: statistics, coefficients). */
export async function numbers(t: mt.Tensor): Promise<number[]> {
  const a = await t.fetch();
  return Array.from(a.data as ArrayLike<number | bigint>, Number);
}

/** A 1-d input of labels: numbers as a tensor, or strings (a string Series or a JS array of strings). */
export type Labels = { kind: 'num'; t: mt.Tensor } | { kind: 'str'; codes: mt.Tensor; dict: readonly string[] };

export function labelsOf(y: Input | readonly string[], what: string): Labels {
  if (y instanceof Series && y.column.dict) return { kind: 'str', codes: y.values, dict: y.column.dict };
  if (Array.isArray(y) && y.some((v) => typeof v === 'string')) {
    const dict = [...new Set(y as string[])];
    const at = new Map(dict.map((s, i) => [s, i]));
    return { kind: 'str', codes: mt.tensor(Int32Array.from(y as string[], (s) => at.get(s)!)), dict };
  }
  const t = y instanceof DataFrame ? checkX(y, what) : (y instanceof mt.Tensor ? y : y instanceof Series ? y.values : mt.tensor(y as number[]));
  if (t.ndim === 2 && t.shape[1] === 1) return { kind: 'num', t: mt.reshape(t, [-1]) };
  if (t.ndim !== 1) throw valueError(`y should be a 1d array, got an array of shape (${t.shape.join(', ')}) instead.`);
  return { kind: 'num', t };
}

/** A string column's categories: the dictionary entries its codes use, sorted as NumPy sorts strings. */
export async function stringCategories(codes: mt.Tensor, dict: readonly string[]): Promise<string[]> {
  const present = await numbers(mt.unique(codes) as mt.Tensor);
  return present.filter((c) => c >= 0).map((c) => dict[c]!).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}


/**
 * A fit's progress, through the executions' progress callback
 * (mt.options.onProgress): `done` of `total` iterations, and the stage's
 * figures (the estimator, the iteration, its loss or inertia).
 */
export function report(stage: Record<string, string | number>, done: number, total: number): void {
  mt.options.onProgress?.({ done, total, stage });
}

/**
 * Frees intermediates now rather than when the collector finalizes their
 * tensors (a fit's loop of executions would otherwise hold every dead pass's
 * chunks until a collection): only tensors the fit made and reads no more.
 */
export function free(...ts: mt.Tensor[]): void {
  for (const t of ts) runtime.drop(t.node);
}
