// sklearn.model_selection: train_test_split (stratified too), KFold and
// StratifiedKFold. In: arrays of as many rows (tensors, DataFrames, Series,
// JS arrays), class labels to stratify by. Out: the rows of each part, as the
// input's kind (a DataFrame's rows stay a DataFrame), or index tensors.
//
// A shuffle is Tessera's own seeded permutation — the chunked stable argsort
// of Philox uniforms drawn from `random_state` — so the same seed gives the
// same split on any chunking and any number of peers, with no index gathered
// on one thread; it is not scikit-learn's split for the same seed (that one
// follows NumPy's Mersenne Twister), only its sizes and its rules. A
// stratified split takes scikit-learn's per-class counts (StratifiedShuffleSplit's
// _approximate_mode allocation: equal to scikit-learn's wherever its
// remainders do not tie, a tie broken by Tessera's draws) and draws the rows
// of each class by one seeded sort of (class, uniform) keys.

import * as mt from '../api/tensor.js';
import { DataFrame } from '../dataframe/frame.js';
import { Series } from '../dataframe/series.js';
import { type Input, asTensor, labelsOf, numbers, sameSamples, valueError } from './base.js';

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
  /** Class labels (numbers or strings, one per row): each class split in the proportions of the whole. */
  stratify?: Input | readonly string[] | null;
}

type Parts = (mt.Tensor | DataFrame | Series)[];

/**
 * sklearn.model_selection.train_test_split(*arrays, test_size, train_size,
 * random_state, shuffle, stratify): [a_train, a_test, b_train, b_test, ...].
 * The test part is the permutation's first n_test rows, the train part the
 * next n_train, as ShuffleSplit takes them; without shuffle, train then test
 * in order. With `stratify`, a Promise of the parts: the class counts are
 * read first (they set each class's share, and scikit-learn's errors about
 * them come before any part is built).
 */
export function train_test_split(...args: [...Splittable[], SplitOptions & { stratify: Input | readonly string[] }]): Promise<Parts>;
export function train_test_split(...args: (Splittable | SplitOptions)[]): Parts;
export function train_test_split(...args: (Splittable | SplitOptions)[]): Parts | Promise<Parts> {
  const last = args.at(-1);
  const isOpts = last !== undefined && !(last instanceof mt.Tensor) && !(last instanceof DataFrame) && !(last instanceof Series)
    && !Array.isArray(last) && !ArrayBuffer.isView(last) && typeof last === 'object';
  const o = (isOpts ? args.pop() : {}) as SplitOptions;
  const arrays = args as Splittable[];
  if (!arrays.length) throw valueError('At least one array required as input');
  const ns = arrays.map(lengthOf);
  if (new Set(ns).size > 1) throw valueError(`Found input variables with inconsistent numbers of samples: [${ns.join(', ')}]`);
  const n = ns[0]!;
  const [nTrain, nTest] = sizes(n, o.test_size, o.train_size);
  let train: mt.Tensor, test: mt.Tensor;
  const stratify = o.stratify !== undefined && o.stratify !== null;
  if (stratify && o.shuffle === false) throw valueError('Stratified train/test split is not implemented for shuffle=False');
  if (stratify) return stratified(arrays, o.stratify!, n, nTrain, nTest, o.random_state);
  if (o.shuffle === false) {
    train = mt.arange(nTrain); test = mt.arange(nTrain, nTrain + nTest);
  } else {
    const perm = permutation(n, o.random_state);
    test = perm.get(mt.slice(0, nTest)); train = perm.get(mt.slice(nTest, nTest + nTrain));
  }
  return arrays.flatMap((a) => [rows(a, train), rows(a, test)]);
}

/** Class codes 0..K-1 of labels (numbers or strings), in the classes' sorted order (np.unique's), and their counts. */
async function classCodes(y: Input | readonly string[], n: number): Promise<{ codes: mt.Tensor; counts: number[] }> {
  const l = labelsOf(y, 'y');
  const raw = l.kind === 'str' ? l.codes : l.t;
  sameSamples([mt.zeros([n]), mt.zeros([raw.shape[0]!])]);
  // for strings, the dictionary's order stands in for the sorted one: the allocation does not depend on the classes' order
  const classes = mt.unique(raw) as mt.Tensor;
  const codes = mt.searchsorted(classes, raw);
  const counts = mt.bincount(codes);
  await mt.execute(codes, counts);
  return { codes, counts: await numbers(counts) };
}

/**
 * scikit-learn's _approximate_mode: `draws` shared among classes in
 * proportion to their counts, the floors first, the rest to the largest
 * remainders (ties broken by `u`, one uniform per class).
 */
function approximateMode(counts: readonly number[], draws: number, u: () => Promise<number[]>): Promise<number[]> {
  const total = counts.reduce((a, b) => a + b, 0);
  const continuous = counts.map((c) => (c / total) * draws);
  const floored = continuous.map(Math.floor);
  let need = draws - floored.reduce((a, b) => a + b, 0);
  if (need <= 0) return Promise.resolve(floored);
  return (async () => {
    const rem = continuous.map((c, i) => c - floored[i]!);
    const values = [...new Set(rem)].sort((a, b) => b - a);
    let order: number[] | null = null;
    for (const v of values) {
      const inds = rem.flatMap((r, i) => (r === v ? [i] : []));
      const now = Math.min(inds.length, need);
      if (now < inds.length) {
        order ??= await u();
        inds.sort((a, b) => order![a]! - order![b]! || a - b);
      }
      for (const i of inds.slice(0, now)) floored[i]! += 1;
      need -= now;
      if (need === 0) break;
    }
    return floored;
  })();
}

/**
 * StratifiedShuffleSplit's one split: per class, n_i train and t_i test rows
 * (scikit-learn's counts), taken from the class's rows in a seeded random
 * order (the stable sort of class + uniform), each part then shuffled.
 */
async function stratified(arrays: Splittable[], y: Input | readonly string[], n: number, nTrain: number, nTest: number,
  seed: number | undefined): Promise<Parts> {
  const { codes, counts } = await classCodes(y, n);
  const K = counts.length;
  if (Math.min(...counts) < 2) {
    throw valueError('The least populated class in y has only 1 member, which is too few. The minimum number of groups for any class cannot be less than 2.');
  }
  if (nTrain < K) throw valueError(`The train_size = ${nTrain} should be greater or equal to the number of classes = ${K}`);
  if (nTest < K) throw valueError(`The test_size = ${nTest} should be greater or equal to the number of classes = ${K}`);
  const rng = mt.random.default_rng(seed ?? Math.floor(Math.random() * 2 ** 32));
  const ties = async (): Promise<number[]> => numbers(rng.random([K]));
  const nI = await approximateMode(counts, nTrain, ties);
  const tI = await approximateMode(counts.map((c, i) => c - nI[i]!), nTest, ties);
  // rows grouped by class (classes ascending), in random order within each
  const order = mt.argsort(mt.add(mt.astype(codes, 'float64'), rng.random([n])), { kind: 'stable' });
  const trainParts: mt.Tensor[] = [], testParts: mt.Tensor[] = [];
  let start = 0;
  for (let c = 0; c < K; c++) {
    if (nI[c]! > 0) trainParts.push(order.get(mt.slice(start, start + nI[c]!)));
    if (tI[c]! > 0) testParts.push(order.get(mt.slice(start + nI[c]!, start + nI[c]! + tI[c]!)));
    start += counts[c]!;
  }
  const shuffled = (parts: mt.Tensor[], len: number): mt.Tensor => mt.take(mt.concatenate(parts), mt.argsort(rng.random([len]), { kind: 'stable' }));
  const train = shuffled(trainParts, nTrain), test = shuffled(testParts, nTest);
  return arrays.flatMap((a) => [rows(a, train), rows(a, test)]);
}

export interface KFoldOptions { n_splits?: number; shuffle?: boolean; random_state?: number }

/** _BaseKFold's checks of n_splits, shuffle and random_state. */
function kfoldOptions(opts: KFoldOptions): [number, boolean, number | undefined] {
  const k = opts.n_splits ?? 5;
  if (!Number.isInteger(k)) throw valueError(`The number of folds must be of Integral type. ${k} of type ${typeof k} was passed.`);
  if (k <= 1) throw valueError(`k-fold cross-validation requires at least one train/test split by setting n_splits=2 or more, got n_splits=${k}.`);
  if (!opts.shuffle && opts.random_state !== undefined) {
    throw valueError('Setting a random_state has no effect since shuffle is False. You should leave random_state to its ' +
      'default (None), or set shuffle=True.');
  }
  return [k, opts.shuffle ?? false, opts.random_state];
}

/** What KFold and StratifiedKFold share: their options (scikit-learn's _BaseKFold). */
abstract class BaseKFold {
  readonly n_splits: number;
  readonly shuffle: boolean;
  readonly random_state?: number;

  constructor(opts: KFoldOptions = {}) {
    [this.n_splits, this.shuffle, this.random_state] = kfoldOptions(opts);
  }

  get_n_splits(): number { return this.n_splits; }
}

/** sklearn.model_selection.KFold: n_splits folds of consecutive (or permuted) rows, the first n % k one row longer. */
export class KFold extends BaseKFold {

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

/**
 * sklearn.model_selection.StratifiedKFold: folds that each hold about a
 * k-th of every class. scikit-learn's allocation (the classes in order of
 * first appearance, the sorted labels dealt round robin to the folds) and,
 * without shuffle, its folds exactly: each class's rows, in order, fill the
 * folds in blocks. With shuffle, each class's fold numbers are permuted by
 * Tessera's seeded draws (the counts stay scikit-learn's). The labels are
 * read on the host (one number per row), so split is a Promise.
 */
export class StratifiedKFold extends BaseKFold {

  /** The folds as [train indices, test indices] (int64 tensors, ascending), in order. */
  async split(X: Splittable, y: Splittable | readonly string[]): Promise<[mt.Tensor, mt.Tensor][]> {
    if (y === undefined || y === null) throw new TypeError("StratifiedKFold.split() missing 1 required positional argument: 'y'");
    const n = lengthOf(X), k = this.n_splits;
    const l = labelsOf(y, 'y');
    const raw = await numbers(l.kind === 'str' ? l.codes : l.t);
    sameSamples([mt.zeros([n]), mt.zeros([raw.length])]);
    if (k > n) throw valueError(`Cannot have number of splits n_splits=${k} greater than the number of samples: n_samples=${n}.`);
    if (l.kind === 'num' && raw.some((v) => !Number.isInteger(v))) {
      throw valueError("Supported target types are: ('binary', 'multiclass'). Got 'continuous' instead.");
    }
    // classes numbered by first appearance
    const code = new Map<number, number>();
    const enc = Int32Array.from(raw, (v) => { if (!code.has(v)) code.set(v, code.size); return code.get(v)!; });
    const K = code.size;
    const counts = new Array<number>(K).fill(0);
    for (const c of enc) counts[c]!++;
    if (counts.every((c) => k > c)) throw valueError(`n_splits=${k} cannot be greater than the number of members in each class.`);
    // allocation[f][c]: class c's rows in fold f, dealing the sorted labels round robin
    const allocation = Array.from({ length: k }, () => new Array<number>(K).fill(0));
    let p = 0;
    for (let c = 0; c < K; c++) for (let j = 0; j < counts[c]!; j++, p++) allocation[p % k]![c]!++;
    const u = this.shuffle ? await numbers(mt.random.default_rng(this.random_state ?? Math.floor(Math.random() * 2 ** 32)).random([n])) : null;
    const foldsOf = Array.from({ length: K }, (_, c) => allocation.flatMap((row, i) => new Array<number>(row[c]!).fill(i)));
    const members = Array.from({ length: K }, () => [] as number[]);
    enc.forEach((c, i) => members[c]!.push(i));
    const testFold = new Int32Array(n);
    for (let c = 0; c < K; c++) {
      let f = foldsOf[c]!;
      if (u) {
        // a seeded shuffle of this class's fold numbers: by the uniforms drawn for its rows
        const rows = members[c]!;
        const perm = rows.map((_, j) => j).sort((a, b) => u[rows[a]!]! - u[rows[b]!]! || a - b);
        f = perm.map((j) => f[j]!);
      }
      members[c]!.forEach((row, j) => { testFold[row] = f[j]!; });
    }
    const ints = (v: number[]): mt.Tensor => mt.astype(mt.tensor(Int32Array.from(v)), 'int64');
    return Array.from({ length: k }, (_, i): [mt.Tensor, mt.Tensor] => {
      const test: number[] = [], train: number[] = [];
      testFold.forEach((f, r) => (f === i ? test : train).push(r));
      return [ints(train), ints(test)];
    });
  }
}
