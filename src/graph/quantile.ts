// What a graph needs of quantiles as NumPy 2 computes them (the line
// computation is numerics/quantile.ts): the methods, what a `quantile` node
// asks for (`QuantileSpec`), and the result's dtype (`quantileDType`), which
// the graph infers when a call is built. Weighted quantiles (NumPy's one
// weighted method) are composed of core ops in api/statistics.ts instead.
import { type DType, isFloat, promoteTypes } from './dtype.js';

/** NumPy's methods (H&F 1996's nine, then its own four), in NumPy's order. */
export const QUANTILE_METHODS = [
  'inverted_cdf', 'averaged_inverted_cdf', 'closest_observation', 'interpolated_inverted_cdf', 'hazen', 'weibull',
  'linear', 'median_unbiased', 'normal_unbiased', 'lower', 'higher', 'midpoint', 'nearest',
] as const;
export type QuantileMethod = (typeof QUANTILE_METHODS)[number];

/** Methods whose result is one of the values itself (NumPy's fix_gamma None): the input's dtype is kept. */
const DISCRETE = new Set<string>(['inverted_cdf', 'closest_observation', 'lower', 'higher', 'nearest']);

/** (alpha, beta) of the continuous methods computed by _compute_virtual_index. */
export const ALPHA_BETA: Partial<Record<QuantileMethod, readonly [number, number]>> = {
  interpolated_inverted_cdf: [0, 1], hazen: [0.5, 0.5], weibull: [0, 0],
  median_unbiased: [1 / 3, 1 / 3], normal_unbiased: [3 / 8, 3 / 8],
};

/** How q came: NumPy's weak Python float or int, or an array of a dtype (its arithmetic is that dtype's). */
export type QKind = 'weak-int' | 'weak-float' | DType;

export interface QuantileSpec {
  /** A method of QUANTILE_METHODS, or 'median' (NumPy's median: the mean of the middle values). */
  readonly method: QuantileMethod | 'median';
  readonly qs: readonly number[];
  /** The shape q came in ([] for one q: no leading axis). */
  readonly qShape: readonly number[];
  readonly qKind: QKind;
  /** NumPy's nanquantile/nanmedian: each line's NaNs are dropped first; a line of NaNs only (or none) gives NaN. */
  readonly omitNaN?: boolean;
}

export const isQuantileMethod = (m: unknown): m is QuantileMethod => typeof m === 'string' && (QUANTILE_METHODS as readonly string[]).includes(m);

/** Whether the result is taken from the values, not interpolated: a discrete method, or 'linear' at integer q. */
export function takesValues(spec: QuantileSpec): boolean {
  if (spec.method === 'median') return false;
  const intQ = spec.qKind === 'weak-int' || (spec.qKind !== 'weak-float' && !isFloat(spec.qKind));
  return DISCRETE.has(spec.method) || (spec.method === 'linear' && intQ);
}

/** The result's dtype for values of dtype `x` (the caller refuses bool where NumPy's lerp would subtract booleans). */
export function quantileDType(x: DType, spec: QuantileSpec): DType {
  if (spec.method === 'median') return isFloat(x) ? x : 'float64';
  if (takesValues(spec)) return x;
  if (spec.qKind === 'weak-int' || spec.qKind === 'weak-float') return isFloat(x) ? x : 'float64';
  return promoteTypes(x, spec.qKind === 'float32' ? 'float32' : 'float64');
}
