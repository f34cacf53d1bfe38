// sklearn.model_selection: train_test_split and KFold. In: arrays of as many
// rows (tensors, DataFrames, Series, JS arrays). Out: the rows of each part,
// as the input's kind (a DataFrame's rows stay a DataFrame).
//
// A shuffle is Tessera's own seeded permutation — the chunked stable argsort
// of Philox uniforms drawn from `random_state` — so the same seed gives the
// same split on any chunking and any number of peers, with no index gathered
// on one thread; it is not scikit-learn's split for the same seed (that one
// follows NumPy's Mersenne Twister), only its sizes and its rules.

import * as mt from '../api/tensor.js';
import { DataFrame } from '../dataframe/frame.js';
import { Series } from '../dataframe/series.js';
import { type Input, asTensor, sameSamples, valueError } from './base.js';

type Splittable = Input;

/** A seeded permutation of 0..n-1 (argsort of n Philox uniforms). */
export function permutation(n: number, seed: number | undefined): mt.Tensor {
  const rng = mt.random.default_rng(seed ?? Math.floor(Math.random() * 2 ** 32));
  return mt.argsort(rng.random([n]), { kind: 'stable' });
}

/** Rows `at` of one input, in its own kind. */
function rows(x: Splittable, at: mt.Tensor): mt.Tensor | DataFrame | Series {
  if (x instanceof DataFrame) return x.take(at);
  if (x instanceof Series) return new Series({ ...x.column, values: mt.take(x.values, at) }, x.name);
  return mt.take(asTensor(x, 'array'), at, { axis: 0 });
}

/** The number of rows of an input. */
function lengthOf(x: Splittable): number {
  if (x instanceof DataFrame) return x.shape[0];
  if (x instanceof Series) return x.size;
  return asTensor(x, 'array').shape[0]!;
}

/** _validate_shuffle_split: the test and train sizes for n rows. */
function sizes(n: number, test?: number | null, train?: number | null): [number, number] {
  const check = (v: number | null | undefined, name: string): void => {
    if (v === null || v === undefined) return;
    if (Number.isInteger(v) ? v <= 0 || v >= n : v <= 0 || v >= 1) {
      throw valueError(`${name}=${v} should be either positive and smaller than the number of samples ${n} or a float in the (0, 1) range`);
    }
  };
  const testSize = test ?? (train === null || train === undefined ? 0.25 : null);
  check(testSize, 'test_size');
  check(train, 'train_size');
  const frac = (v: number): boolean => !Number.isInteger(v) || (v > 0 && v < 1);
  let nTest = testSize === null ? null : frac(testSize) ? Math.ceil(testSize * n) : testSize;
  let nTrain = train === null || train === undefined ? null : frac(train) ? Math.floor(train * n) : train;
  nTrain ??= n - nTest!;
  nTest ??= n - nTrain;
  if (nTrain + nTest > n) {
    throw valueError(`The sum of train_size and test_size = ${nTrain + nTest}, should be smaller than the number of samples ` +
      `${n}. Reduce test_size and/or train_size.`);
  }
  if (nTrain === 0) {
    throw valueError(`With n_samples=${n}, test_size=${test} and train_size=${train}, the resulting train set will be empty. ` +
      `Adjust any of the aforementioned parameters.`);
  }
  return [nTrain, nTest];
}

export interface SplitOptions {
  test_size?: number | null;
  train_size?: number | null;
  random_state?: number;
  shuffle?: boolean;
  stratify?: null;
}

/**
 * sklearn.model_selection.train_test_split(*arrays, test_size, train_size,
 * random_state, shuffle): [a_train, a_test, b_train, b_test, ...]. The test
 * part is the permutation's first n_test rows, the train part the next
 * n_train, as ShuffleSplit takes them; without shuffle, train then test in order.
 */
export function train_test_split(...args: (Splittable | SplitOptions)[]): (mt.Tensor | DataFrame | Series)[] {
  const last = args.at(-1);
  const isOpts = last !== undefined && !(last instanceof mt.Tensor) && !(last instanceof DataFrame) && !(last instanceof Series)
    && !Array.isArray(last) && !ArrayBuffer.isView(last) && typeof last === 'object';
  const o = (isOpts ? args.pop() : {}) as SplitOptions;
  const arrays = args as Splittable[];
  if (!arrays.length) throw valueError('At least one array required as input');
  if (o.stratify !== undefined && o.stratify !== null) throw valueError('train_test_split: stratify is not supported by learn yet');
  const ns = arrays.map(lengthOf);
  if (new Set(ns).size > 1) throw valueError(`Found input variables with inconsistent numbers of samples: [${ns.join(', ')}]`);
  const n = ns[0]!;
  const [nTrain, nTest] = sizes(n, o.test_size, o.train_size);
  let train: mt.Tensor, test: mt.Tensor;
  if (o.shuffle === false) {
    train = mt.arange(nTrain); test = mt.arange(nTrain, nTrain + nTest);
  } else {
    const perm = permutation(n, o.random_state);
    test = perm.get(mt.slice(0, nTest)); train = perm.get(mt.slice(nTest, nTest + nTrain));
  }
  return arrays.flatMap((a) => [rows(a, train), rows(a, test)]);
}

export interface KFoldOptions { n_splits?: number; shuffle?: boolean; random_state?: number }

/** sklearn.model_selection.KFold: n_splits folds of consecutive (or permuted) rows, the first n % k one row longer. */
export class KFold {
  readonly n_splits: number;
  readonly shuffle: boolean;
  readonly random_state?: number;

  constructor(opts: KFoldOptions = {}) {
    const k = opts.n_splits ?? 5;
    if (!Number.isInteger(k)) throw valueError(`The number of folds must be of Integral type. ${k} of type ${typeof k} was passed.`);
    if (k <= 1) throw valueError(`k-fold cross-validation requires at least one train/test split by setting n_splits=2 or more, got n_splits=${k}.`);
    if (!opts.shuffle && opts.random_state !== undefined) {
      throw valueError('Setting a random_state has no effect since shuffle is False. You should leave random_state to its ' +
        'default (None), or set shuffle=True.');
    }
    this.n_splits = k; this.shuffle = opts.shuffle ?? false; this.random_state = opts.random_state;
  }

  get_n_splits(): number { return this.n_splits; }

  /** The folds as [train indices, test indices] (int64 tensors), in order. */
  split(X: Splittable, y?: Splittable): [mt.Tensor, mt.Tensor][] {
    const n = lengthOf(X);
    if (y !== undefined) sameSamples([mt.zeros([n]), mt.zeros([lengthOf(y)])]);
    const k = this.n_splits;
    if (k > n) throw valueError(`Cannot have number of splits n_splits=${k} greater than the number of samples: n_samples=${n}.`);
    const idx = this.shuffle ? permutation(n, this.random_state) : mt.arange(n);
    const out: [mt.Tensor, mt.Tensor][] = [];
    let start = 0;
    for (let f = 0; f < k; f++) {
      const len = Math.floor(n / k) + (f < n % k ? 1 : 0);
      const test = idx.get(mt.slice(start, start + len));
      const train = mt.concatenate([idx.get(mt.slice(0, start)), idx.get(mt.slice(start + len, null))]);
      out.push([train, test]);
      start += len;
    }
    return out;
  }
}
