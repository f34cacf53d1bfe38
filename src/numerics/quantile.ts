// Quantiles as NumPy 2 computes them (numpy/lib/_function_base_impl.py:
// _quantile, _get_indexes, _lerp, _QuantileMethods; and _median), line by
// line on the host where the lines are gathered, the way sort is
// (runtime/resolve.ts). In: one line's values, sorted (NaNs last), and what
// was asked for. Out: NumPy's value, with its index arithmetic and its
// interpolation in the result's dtype, so the bits match and not only the
// value. Nothing here builds nodes or reads memory. Weighted quantiles
// (NumPy's one weighted method) need a second line in the values' order and
// are composed of core ops in api/statistics.ts instead.

import { type DType, INFO, isFloat } from '../graph/dtype.js';
import { roundHalf } from '../graph/half.js';
import { ALPHA_BETA, type QuantileMethod, type QuantileSpec, takesValues } from '../graph/quantile.js';

const fround = Math.fround;
const same = (v: number): number => v;
/** A float64 result rounded as an operation in dtype `d` rounds it (float16's: its float32 result, rounded). */
const roundIn = (d: DType): ((v: number) => number) => (d === 'float32' ? fround : d === 'float16' ? (v) => roundHalf(fround(v)) : same);
/** np.around: halves to even. */
const roundHalfEven = (v: number): number => {
  const r = Math.round(v);
  return r - v === 0.5 && r % 2 !== 0 ? r - 1 : r;
};
/** Python's float modulo (the sign of the divisor). */
const pyMod = (a: number, b: number): number => ((a % b) + b) % b;

/** An integer difference b - a wrapped to dtype `d`, as NumPy's integer subtract does. */
function intDiff(b: number | bigint, a: number | bigint, d: DType): number {
  if (typeof a === 'bigint' || typeof b === 'bigint') return Number(BigInt.asIntN(64, BigInt(b) - BigInt(a)));
  const bits = INFO[d].bytes * 8;
  const v = b - a;
  if (bits >= 53) return v;
  const m = 2 ** bits;
  const w = ((v % m) + m) % m;
  return d.startsWith('u') ? w : w >= m / 2 ? w - m : w;
}

/**
 * One line's result per q (`at(k)`: the line's k-th smallest value, NaNs
 * last; `n`: its length; `x`: its dtype; `out`: the result's dtype; `nanAt`,
 * where given, says whether rank k is NaN in place of reading it). Throws
 * NumPy's IndexError message for an empty line (the median gives NaN).
 */
export function quantileLine(
  at: (k: number) => number | bigint | boolean, n: number, x: DType, out: DType, spec: QuantileSpec, nanAt?: (k: number) => boolean,
): (number | bigint | boolean)[] {
  const num = (v: number | bigint | boolean): number => Number(v);
  // whether the value of rank k is NaN: a selection (runtime/select.ts) knows from its NaN count, without reading it
  const isNaNAt = nanAt ?? ((k: number): boolean => isFloat(x) && Number.isNaN(num(at(k))));
  const rf = roundIn(out);
  if (spec.omitNaN) {
    // NaNs sort last: the line without them is a prefix (NumPy's nanmean of nothing, NaN, for an empty one)
    while (n > 0 && isNaNAt(n - 1)) n--;
    if (n === 0) return spec.method === 'median' ? [NaN] : spec.qs.map(() => NaN);
  }
  if (spec.method === 'median') {
    if (n === 0 || isNaNAt(n - 1)) return [NaN];
    if (n % 2) return [rf(num(at((n - 1) / 2)))];
    // mean of the middle two: their sum in the result's dtype, then / 2
    return [rf(rf(num(at(n / 2 - 1)) + num(at(n / 2))) / 2)];
  }
  if (n === 0) throw new RangeError('index -1 is out of bounds for axis 0 with size 0');
  const nan = isNaNAt(n - 1);
  const qf = spec.qKind === 'weak-int' || spec.qKind === 'weak-float' ? same : roundIn(spec.qKind);
  const m = spec.method;
  const take = takesValues(spec);
  return spec.qs.map((q0) => {
    const q = qf(q0);
    if (take) {
      if (nan) return at(n - 1);
      let k: number;
      switch (m) {
        case 'lower': k = Math.floor(qf((n - 1) * q)); break;
        case 'higher': k = Math.ceil(qf((n - 1) * q)); break;
        case 'nearest': k = roundHalfEven(qf((n - 1) * q)); break;
        case 'linear': k = (n - 1) * q; break;
        default: {
          // _discrete_interpolation_to_boundaries: the lower neighbour where the condition holds, else the upper; below 0 clipped
          const index = m === 'inverted_cdf' ? qf(qf(n * q) - 1) : qf(qf(qf(n * q) - 1) - 0.5);
          const prev = Math.floor(index);
          const g = index - prev;
          const low = m === 'inverted_cdf' ? g === 0 : g === 0 && pyMod(prev, 2) === 1;
          k = Math.max(0, low ? prev : prev + 1);
        }
      }
      return at(k);
    }
    // the virtual index, in q's arithmetic
    let v: number;
    const ab = ALPHA_BETA[m as QuantileMethod];
    if (ab) v = qf(qf(qf(n * q) + qf(qf(ab[0]) + qf(q * qf(1 - ab[0] - ab[1])))) - 1);
    else if (m === 'averaged_inverted_cdf') v = qf(qf(n * q) - 1);
    else if (m === 'midpoint') v = qf(0.5 * (Math.floor(qf((n - 1) * q)) + Math.ceil(qf((n - 1) * q))));
    else v = qf((n - 1) * q); // linear
    // _get_indexes: past the last value both neighbours are the last (index -1), before the first both the first
    let prev = Math.floor(v);
    if (v >= n - 1) prev = -1;
    else if (v < 0) prev = 0;
    const next = prev === -1 ? -1 : v < 0 ? 0 : prev + 1;
    let g = qf(v - prev);
    if (m === 'averaged_inverted_cdf') g = g === 0 ? 0.5 : 1;
    else if (m === 'midpoint') g = pyMod(v, 1) === 0 ? 0 : 0.5;
    if (nan) return NaN;
    const av = at(prev < 0 ? n + prev : prev), bv = at(next < 0 ? n + next : next);
    const a = num(av), b = num(bv);
    const xf = roundIn(x);
    const diff = isFloat(x) ? xf(b - a) : intDiff(typeof bv === 'boolean' ? +bv : bv, typeof av === 'boolean' ? +av : av, x);
    // _lerp: a + diff*t below t = 0.5, b - diff*(1 - t) from it, each operation in the result's dtype
    return g >= 0.5 ? rf(b - rf(diff * rf(qf(1 - g)))) : rf(a + rf(diff * rf(g)));
  });
}
