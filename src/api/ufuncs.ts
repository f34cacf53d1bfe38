// NumPy's elementwise functions that are exact compositions of the kernel
// ops, in NumPy's own formulas (npy_logaddexp, np.sinc, np.isposinf, ...),
// and its multi-output ufuncs (divmod, modf, frexp) as JS arrays of tensors.
// The ops with no exact composition (fmod, copysign, nextafter, ldexp, gcd,
// lcm, the shifts, signbit, frexp's halves) are kernel ops in graph/ops.ts.
// In: operands and NumPy's arguments. Out: lazy Tensors that fuse like the
// ops they are made of.

import { floatResultOf } from '../graph/dtype.js';
import {
  type Operand, type Tensor, _frexpParts, abs, add, astype, copysign, divide, equal, exp, exp2, floatOperandType, floor_divide,
  full_like, greater, isTensor, isinf, isnan, kwargs, less, log1p, logical_and, logical_not, maximum, mod, multiply, negative, power,
  signbit, sin, subtract, tensor, trunc, where,
} from './tensor.js';

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
export function heaviside(x1: Operand, x2: Operand, ...rest: unknown[]): Tensor {
  operands('heaviside', 2, 1, [x1, x2], rest);
  const [x, h] = floats(x1, x2);
  return where(isnan(x), x, where(less(x, 0), 0, where(greater(x, 0), 1, h)));
}

/** log(exp(x1) + exp(x2)) as npy_logaddexp: x + log 2 where equal (infinities too), else max + log1p(exp(-|x1 - x2|)). */
export function logaddexp(x1: Operand, x2: Operand, ...rest: unknown[]): Tensor {
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
export function logaddexp2(x1: Operand, x2: Operand, ...rest: unknown[]): Tensor {
  operands('logaddexp2', 2, 1, [x1, x2], rest);
  return inFloat32(floats(x1, x2), (a, b) => where(equal(a, b), add(a, 1), add(maximum(a, b), multiply(log1p(exp2(negative(abs(subtract(a, b))))), Math.LOG2E))));
}

/** x1 ** x2 in float64 whatever the inputs (NumPy's only real loop is float64's). */
export function float_power(x1: Operand, x2: Operand, ...rest: unknown[]): Tensor {
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
