// NumPy's elementwise functions that are exact compositions of the kernel
// ops, in NumPy's own formulas (npy_logaddexp, np.sinc, np.isposinf, ...),
// and its multi-output ufuncs (divmod, modf, frexp) as JS arrays of tensors.
// The ops with no exact composition (fmod, copysign, nextafter, ldexp, gcd,
// lcm, the shifts, signbit, frexp's halves) are kernel ops in graph/ops.ts.
// In: operands and NumPy's arguments. Out: lazy Tensors that fuse like the
// ops they are made of.

import { floatResultOf, isFloat } from '../graph/dtype.js';
import { kwargs } from './bind.js';
import {
  type Operand, type Tensor, _frexpParts, abs, add, astype, copysign, divide, equal, exp, exp2, floatOperandType, floor_divide, full_like, greater,
  isTensor, isinf, isnan, less, log1p, logical_and, logical_not, maximum, mod, multiply, negative, power, signbit, sin, sqrt, subtract, tensor,
  trunc, where, less_equal,
} from './core.js';

import { withMethods } from './ufunc_methods.js';

type JsArg = Parameters<typeof tensor>[0];
const toTensor = (x: Operand): Tensor => (isTensor(x) ? x : tensor(x as JsArg));
/** A JS scalar stays a (0-d) value of its default dtype, as NumPy's asarray gives. */
const asArray = (x: Operand): Tensor => (typeof x === 'number' || typeof x === 'boolean' ? tensor(x) : toTensor(x));

/** NumPy's checks on a ufunc call: operand count, and only `out=None` after them. */
function operands(fn: string, nin: number, nout: number, given: readonly unknown[], rest: readonly unknown[]): void {
  const n = given.filter((v) => v !== undefined).length;
  if (n < nin) throw new TypeError(`${fn}() takes from ${nin} to ${nin + nout} positional arguments but ${n} were given`);
  kwargs(fn, rest, ['out']);
}

/** Both operands cast to the float NumPy's float-only loop runs in. */
function floats(x: Operand, y: Operand): [Tensor, Tensor] {
  const d = floatOperandType(x, y);
  return [astype(x, d), astype(y, d)];
}

/** heaviside(x1, x2): 0 below zero, x2 at zero (either sign), 1 above, NaN for NaN (npy_heaviside). */
function heavisideOf(x1: Operand, x2: Operand, ...rest: unknown[]): Tensor {
  operands('heaviside', 2, 1, [x1, x2], rest);
  const [x, h] = floats(x1, x2);
  return where(isnan(x), x, where(less(x, 0), 0, where(greater(x, 0), 1, h)));
}

/** log(exp(x1) + exp(x2)) as npy_logaddexp: x + log 2 where equal (infinities too), else max + log1p(exp(-|x1 - x2|)). */
function logaddexpOf(x1: Operand, x2: Operand, ...rest: unknown[]): Tensor {
  operands('logaddexp', 2, 1, [x1, x2], rest);
  return inFloat32(floats(x1, x2), (a, b) => where(equal(a, b), add(a, Math.LN2), add(maximum(a, b), log1p(exp(negative(abs(subtract(a, b))))))));
}

/**
 * `f` of float operands, computed in float32 and rounded once where they are
 * float16: NumPy's half loop of a ufunc is its float loop, where Tessera's
 * composite would round each step.
 */
function inFloat32([a, b]: [Tensor, Tensor], f: (a: Tensor, b: Tensor) => Tensor): Tensor {
  if (a.dtype !== 'float16') return f(a, b);
  return astype(f(astype(a, 'float32'), astype(b, 'float32')), 'float16');
}

/** log2(2**x1 + 2**x2) as npy_logaddexp2: x + 1 where equal, else max + log2(e) * log1p(2**-|x1 - x2|). */
function logaddexp2Of(x1: Operand, x2: Operand, ...rest: unknown[]): Tensor {
  operands('logaddexp2', 2, 1, [x1, x2], rest);
  return inFloat32(floats(x1, x2), (a, b) => where(equal(a, b), add(a, 1), add(maximum(a, b), multiply(log1p(exp2(negative(abs(subtract(a, b))))), Math.LOG2E))));
}

/** x1 ** x2 in float64 whatever the inputs (NumPy's only real loop is float64's). */
function float_powerOf(x1: Operand, x2: Operand, ...rest: unknown[]): Tensor {
  operands('float_power', 2, 1, [x1, x2], rest);
  return power(astype(x1, 'float64'), astype(x2, 'float64'));
}

/** |x| in the float of x's dtype (integers and bool become floats, unlike abs). */
export function fabs(x: Operand, ...rest: unknown[]): Tensor {
  operands('fabs', 1, 1, [x], rest);
  const t = toTensor(x);
  return abs(astype(t, floatResultOf(t.dtype)));
}

/** sin(pi x) / (pi x), NumPy 2's formula: pi * x, where 0 is replaced by the dtype's eps (so sinc(0) is 1; 1e-20 would underflow float16). */
export function sinc(x: Operand): Tensor {
  const px = multiply(asArray(x), Math.PI);
  const y = where(equal(px, 0), EPS[px.dtype] ?? 1e-20, px);
  return divide(sin(y), y);
}
const EPS: Partial<Record<string, number>> = { float16: 2 ** -10, float32: 2 ** -23, float64: 2 ** -52 };

// np.i0's Chebyshev coefficients (Cephes, as NumPy's _i0A for [0, 8] and _i0B above 8)
const I0_A = [
  -4.4153416464793395e-18, 3.3307945188222384e-17, -2.431279846547955e-16, 1.715391285555133e-15, -1.1685332877993451e-14,
  7.676185498604936e-14, -4.856446783111929e-13, 2.95505266312964e-12, -1.726826291441556e-11, 9.675809035373237e-11, -5.189795601635263e-10,
  2.6598237246823866e-09, -1.300025009986248e-08, 6.046995022541919e-08, -2.670793853940612e-07, 1.1173875391201037e-06,
  -4.4167383584587505e-06, 1.6448448070728896e-05, -5.754195010082104e-05, 0.00018850288509584165, -0.0005763755745385824,
  0.0016394756169413357, -0.004324309995050576, 0.010546460394594998, -0.02373741480589947, 0.04930528423967071, -0.09490109704804764,
  0.17162090152220877, -0.3046826723431984, 0.6767952744094761,
];
const I0_B = [
  -7.233180487874754e-18, -4.830504485944182e-18, 4.46562142029676e-17, 3.461222867697461e-17, -2.8276239805165836e-16,
  -3.425485619677219e-16, 1.7725601330565263e-15, 3.8116806693526224e-15, -9.554846698828307e-15, -4.150569347287222e-14,
  1.54008621752141e-14, 3.8527783827421426e-13, 7.180124451383666e-13, -1.7941785315068062e-12, -1.3215811840447713e-11,
  -3.1499165279632416e-11, 1.1889147107846439e-11, 4.94060238822497e-10, 3.3962320257083865e-09, 2.266668990498178e-08,
  2.0489185894690638e-07, 2.8913705208347567e-06, 6.889758346916825e-05, 0.0033691164782556943, 0.8044904110141088,
];

/** NumPy's _chbevl: Clenshaw's recurrence over the coefficients, in x's dtype. */
function chbevl(x: Tensor, vals: readonly number[]): Tensor {
  let b0: Operand = vals[0]!, b1: Operand = 0, b2: Operand = 0;
  for (let i = 1; i < vals.length; i++) {
    b2 = b1;
    b1 = b0;
    b0 = add(subtract(multiply(x, b1), b2), vals[i]!);
  }
  return multiply(0.5, subtract(b0, b2));
}

/**
 * np.i0(x): the modified Bessel function of the first kind, order 0, by
 * NumPy's formula (|x| <= 8 and above, Chebyshev series), in x's float
 * dtype (float64 for integers and bool).
 */
export function i0(x: Operand): Tensor {
  let t = asArray(x);
  if (!isFloat(t.dtype)) t = astype(t, 'float64');
  t = abs(t);
  const small = multiply(exp(t), chbevl(subtract(divide(t, 2), 2), I0_A));
  const large = divide(multiply(exp(t), chbevl(subtract(divide(32, t), 2), I0_B)), sqrt(t));
  return where(less_equal(t, 8), small, large);
}

/** isinf(x) and the sign bit clear (NumPy's definition: bool and integers are never infinite). */
export function isposinf(x: Operand, ...rest: unknown[]): Tensor {
  kwargs('isposinf', rest, ['out']);
  return logical_and(isinf(x), logical_not(signbit(x)));
}

export function isneginf(x: Operand, ...rest: unknown[]): Tensor {
  kwargs('isneginf', rest, ['out']);
  return logical_and(isinf(x), signbit(x));
}

// Tessera has no complex dtypes: every value is real, with NumPy's shapes and dtypes.
/** imag(x) == 0: true everywhere, in x's shape. */
export const isreal = (x: Operand): Tensor => full_like(asArray(x), true, { dtype: 'bool' });
/** imag(x) != 0: false everywhere, in x's shape. */
export const iscomplex = (x: Operand): Tensor => full_like(asArray(x), false, { dtype: 'bool' });
/** Whether x's dtype is not complex (a JS boolean, as NumPy returns a Python bool). */
export const isrealobj = (x: Operand): boolean => { asArray(x); return true; };
export const iscomplexobj = (x: Operand): boolean => { asArray(x); return false; };

/** [floor_divide(x1, x2), mod(x1, x2)]: NumPy's divmod is the pair of npy_divmod's parts. */
export function divmod(x1: Operand, x2: Operand, ...rest: unknown[]): [Tensor, Tensor] {
  operands('divmod', 2, 2, [x1, x2], rest);
  return [floor_divide(x1, x2), mod(x1, x2)];
}

/**
 * [fractional, integral] parts, both with x's sign (C's modf): -0 parts for
 * negative integers, (±0, ±inf) for infinities, NaN for NaN. x - trunc(x)
 * is exact in floating point, so this is modf's value.
 */
export function modf(x: Operand, ...rest: unknown[]): [Tensor, Tensor] {
  operands('modf', 1, 2, [x], rest);
  const a = toTensor(x);
  const t = astype(a, floatResultOf(a.dtype));
  const i = trunc(t);
  return [copysign(where(isinf(t), 0, subtract(t, i)), t), i];
}

/** [mantissa, exponent]: x = m * 2**e, 0.5 <= |m| < 1, e int32; (x, 0) for 0, inf and NaN (C's frexp). */
export function frexp(x: Operand, ...rest: unknown[]): [Tensor, Tensor] {
  operands('frexp', 1, 2, [x], rest);
  return [_frexpParts.mantissa(x), _frexpParts.exponent(x)];
}
export const logaddexp = withMethods(logaddexpOf, 'logaddexp', 'logaddexp');
export const logaddexp2 = withMethods(logaddexp2Of, 'logaddexp2', 'logaddexp2');
export const heaviside = withMethods(heavisideOf, 'heaviside');
export const float_power = withMethods(float_powerOf, 'float_power');
