// Scalar semantics of every IR operation, per dtype: the definition the
// reference interpreter uses and the WASM emitter must match. Values are JS
// numbers, except int64, which is a bigint so that it is exact.
// Integer arithmetic wraps as NumPy's arrays do; division by zero gives 0 for
// integers and IEEE results for floats; float->int casts give NumPy's results
// on x86-64 (what its SIMD cast loops compute), NaN and out of range included.

import { type DType, INFO } from '../graph/dtype.js';
import { halfBits, halfValue, roundHalf } from '../graph/half.js';
import type { BinaryOp, UnaryOp } from '../graph/ops.js';

export type Scalar = number | bigint;

export function wrap(v: number, d: DType): number {
  switch (d) {
    case 'bool': return v ? 1 : 0;
    case 'int8': return (v << 24) >> 24;
    case 'int16': return (v << 16) >> 16;
    case 'int32': return v | 0;
    case 'uint8': return v & 0xff;
    case 'uint16': return v & 0xffff;
    case 'uint32': return v >>> 0;
    case 'float16': return roundHalf(v);
    case 'float32': return Math.fround(v);
    default: return v;
  }
}

const truthy = (v: Scalar): boolean => (typeof v === 'bigint' ? v !== 0n : v !== 0);

/**
 * x86's float->int32 conversion (cvttsd2si): the truncation where it fits,
 * else the "integer indefinite" INT32_MIN, NaN included. NumPy converts to
 * every integer narrower than 64 bits this way and keeps the low bits.
 */
const truncI32 = (x: number): number => (x > -2147483649 && x < 2147483648 ? Math.trunc(x) : -2147483648);

/**
 * NumPy's float->int cast on x86-64, for a float value `x` (a float32 or float16
 * value too: each is exact as a JS number). int64 is cvttsd2si's 64-bit form
 * (INT64_MIN out of range); narrower types wrap truncI32. uint32 is NumPy's
 * vector loop: below 2^31 truncI32's bits; from 2^31 it subtracts 2^31, converts
 * and flips the top bit, so [2^31, 2^32) truncates and anything larger gives 0.
 * (NumPy itself casts the last len % 4 elements of an array, strided arrays
 * and single values through int64 instead, keeping the low 32 bits: -1e10
 * gives 2884901888 there. One rule for every element is the only consistent
 * choice; Tessera takes the vector loop's.) float16 -> uint32 is NumPy's one
 * loop that always goes through int64: a finite float16 truncates (and
 * wraps), NaN and +-inf give 0.
 */
function floatToInt(x: number, from: DType, to: DType): Scalar {
  if (to === 'int64') return x >= -9223372036854775808 && x < 9223372036854775808 ? BigInt(Math.trunc(x)) : -9223372036854775808n;
  if (to !== 'uint32') return wrap(truncI32(x), to);
  if (from === 'float16') return Number.isFinite(x) ? Math.trunc(x) >>> 0 : 0;
  if (x >= 2147483648) return x < 4294967296 ? Math.trunc(x) : 0;
  return truncI32(x) >>> 0;
}

/** Cast a value of dtype `from` to dtype `to`. */
export function castScalar(v: Scalar, from: DType, to: DType): Scalar {
  if (from === to) return v;
  if (to === 'bool') return truthy(v) ? 1 : 0;
  if (INFO[from].kind === 'f' && INFO[to].kind !== 'f') return floatToInt(v as number, from, to);
  if (to === 'int64') return typeof v === 'bigint' ? v : BigInt(v);
  const n = typeof v === 'bigint' ? Number(BigInt.asIntN(64, v)) : v;
  if (INFO[to].kind === 'f') return to === 'float32' ? Math.fround(n) : to === 'float16' ? roundHalf(n) : n;
  if (typeof v === 'bigint') return wrap(Number(BigInt.asIntN(32, v)), to);
  return wrap(n, to);
}

function ipow(a: number, b: number, d: DType): number {
  if (b < 0) return a === 1 ? 1 : a === -1 ? (b % 2 === 0 ? 1 : -1) : 0;
  let r = 1, base = a, e = b;
  while (e > 0) {
    if (e & 1) r = wrap(Math.imul(r, base), d);
    base = wrap(Math.imul(base, base), d);
    e = Math.floor(e / 2);
  }
  return wrap(r, d);
}

function ipow64(a: bigint, b: bigint): bigint {
  if (b < 0n) return a === 1n ? 1n : a === -1n ? (b % 2n === 0n ? 1n : -1n) : 0n;
  let r = 1n, base = a, e = b;
  while (e > 0n) {
    if (e & 1n) r = BigInt.asIntN(64, r * base);
    base = BigInt.asIntN(64, base * base);
    e >>= 1n;
  }
  return r;
}

/** NumPy's npy_divmod for floats: [floor quotient, remainder with the divisor's sign]. */
export function fdivmod(a: number, b: number): [number, number] {
  // NumPy's npy_divmod. C's `if (x)` is true for NaN, JS's is not: compare with 0.
  let mod = a % b;
  if (b === 0) return [a / b, mod];
  let div = (a - mod) / b;
  if (mod !== 0) {
    if ((b < 0) !== (mod < 0)) {
      mod += b;
      div -= 1;
    }
  } else {
    mod = b < 0 ? -0 : 0;
  }
  let fl: number;
  if (div !== 0) {
    fl = Math.floor(div);
    if (div - fl > 0.5) fl += 1;
  } else {
    fl = a / b < 0 || Object.is(a / b, -0) ? -0 : 0;
  }
  return [fl, mod];
}

/** C's pow (as NumPy computes it): unlike JS's Math.pow, 1 ** y and (-1) ** +-inf are 1. */
export function cpow(x: number, y: number): number {
  if (x === 1 || (x === -1 && (y === Infinity || y === -Infinity))) return 1;
  return Math.pow(x, y);
}

export function rint(x: number): number {
  const r = Math.round(x);
  return Math.abs(x % 1) === 0.5 ? 2 * Math.round(x / 2) : r === 0 && x < 0 ? -0 : r;
}

// Bit access to floats, for the ops defined on the representation (signbit,
// copysign, nextafter, frexp): a NaN's sign and -0 are not visible to arithmetic.
const F64 = new Float64Array(1), U64 = new BigUint64Array(F64.buffer), W32 = new Uint32Array(F64.buffer);
const F32 = new Float32Array(1), U32 = new Uint32Array(F32.buffer);
const LITTLE = new Uint8Array(Uint16Array.of(1).buffer)[0] === 1;

/** The sign bit of a float64 (or float32) value: true for -0 and a NaN with its sign set. */
export function signbit(x: number): boolean {
  F64[0] = x;
  return W32[LITTLE ? 1 : 0]! >>> 31 === 1;
}

/** C's copysign: |x| with y's sign bit (NaN's sign included). */
export function copysign(x: number, y: number): number {
  const mag = Math.abs(x);
  return signbit(y) ? -mag : mag;
}

/** C's nextafter in float64: the next representable value after x towards y. */
export function nextafter(x: number, y: number): number {
  if (Number.isNaN(x) || Number.isNaN(y)) return x + y;
  if (x === y) return y;
  if (x === 0) return signbit(y) || y < 0 ? -5e-324 : 5e-324;
  F64[0] = x;
  U64[0] = (x < y) === (x > 0) ? U64[0]! + 1n : U64[0]! - 1n;
  return F64[0]!;
}

/** A float result of dtype `d` from a float64 one: float32's rounding, and float16's after it (NumPy's half loops compute in float32). */
const roundTo = (d: DType): ((v: number) => number) =>
  d === 'float32' ? Math.fround : d === 'float16' ? (v) => roundHalf(Math.fround(v)) : (v) => v;

/** NumPy's npy_half_nextafter: as nextafter, in steps of float16 ulps (x and y are float16 values). */
export function nextafter16(x: number, y: number): number {
  if (Number.isNaN(x) || Number.isNaN(y)) return NaN;
  if (x === y) return y;
  if (x === 0) return y > 0 ? 5.960464477539063e-8 : -5.960464477539063e-8;
  const h = halfBits(x);
  // away from zero is one more in the magnitude bits, towards zero one less
  return halfValue((x < y) === (x > 0) ? h + 1 : h - 1);
}

/** C's nextafterf: as nextafter, in steps of float32 ulps (x and y are float32 values). */
export function nextafter32(x: number, y: number): number {
  if (Number.isNaN(x) || Number.isNaN(y)) return x + y;
  if (x === y) return y;
  if (x === 0) return y < 0 ? -1.401298464324817e-45 : 1.401298464324817e-45;
  F32[0] = x;
  U32[0] = (x < y) === (x > 0) ? U32[0]! + 1 : U32[0]! - 1;
  return F32[0]!;
}

/**
 * C's ldexp (musl's scalbn): x * 2**n rounded once, also into the subnormals
 * (2**-1022 * 2**53 first keeps a second rounding out). The exponent arrives
 * as a float (the IR's binary ops take one dtype): truncated; NaN gives NaN.
 * float32 results are this value rounded to float32, which is ldexpf's.
 */
export function ldexp(x: number, e: number): number {
  if (Number.isNaN(e)) return NaN;
  if (x === 0 || !Number.isFinite(x)) return x;
  let n = Math.max(-2200, Math.min(2200, Math.trunc(e)));
  let y = x;
  if (n > 1023) {
    y *= 2 ** 1023; n -= 1023;
    if (n > 1023) { y *= 2 ** 1023; n -= 1023; if (n > 1023) n = 1023; }
  } else if (n < -1022) {
    y *= 2 ** -1022 * 2 ** 53; n += 1022 - 53;
    if (n < -1022) { y *= 2 ** -1022 * 2 ** 53; n += 1022 - 53; if (n < -1022) n = -1022; }
  }
  return y * 2 ** n;
}

/** C's frexp: [m, e] with x = m * 2**e and 0.5 <= |m| < 1; (x, 0) for 0, inf and NaN. */
export function frexp(x: number): [number, number] {
  if (x === 0 || !Number.isFinite(x)) return [x, 0];
  let bias = 0;
  if (Math.abs(x) < 2 ** -1022) { x *= 2 ** 64; bias = -64; }
  F64[0] = x;
  const hi = LITTLE ? 1 : 0;
  const e = ((W32[hi]! >>> 20) & 0x7ff) - 1022;
  W32[hi] = (W32[hi]! & 0x800fffff) | (1022 << 20);
  return [F64[0]!, e + bias];
}

const BITS: Partial<Record<DType, number>> = { int8: 8, int16: 16, int32: 32, uint8: 8, uint16: 16, uint32: 32 };

/** Euclid's gcd of two magnitudes (numbers below 2**53 or bigints). */
function gcdMag<T extends number | bigint>(a: T, b: T, zero: T): T {
  while (a !== zero) { const c = a; a = (b % a) as T; b = c; }
  return b;
}

/** Unary op on a value of dtype `d` (its operand dtype); result in the op's result dtype. */
export function unaryScalar(op: UnaryOp | 'floordiv_pos', v: Scalar, d: DType): Scalar {
  const kind = INFO[d].kind;
  if (typeof v === 'bigint') {
    switch (op) {
      case 'negative': return BigInt.asIntN(64, -v);
      case 'abs': return BigInt.asIntN(64, v < 0n ? -v : v);
      case 'sign': return v > 0n ? 1n : v < 0n ? -1n : 0n;
      case 'square': return BigInt.asIntN(64, v * v);
      case 'reciprocal': return v === 0n ? -(2n ** 63n) : 1n / v; // 1/0: NumPy's int(1.0 / 0)
      case 'floor': case 'ceil': case 'trunc': case 'rint': return v;
      case 'logical_not': return v === 0n ? 1 : 0;
      case 'bitwise_not': return BigInt.asIntN(64, ~v);
      case 'isnan': case 'isinf': return 0;
      case 'isfinite': return 1;
      case 'signbit': return v < 0n ? 1 : 0;
      default: return unaryScalar(op, Number(v), 'float64');
    }
  }
  if (kind !== 'f') {
    switch (op) {
      case 'negative': return wrap(-v, d);
      case 'abs': return wrap(Math.abs(v), d);
      case 'sign': return Math.sign(v);
      case 'square': return wrap(Math.imul(v, v), d);
      case 'reciprocal': return v === 0 ? (d === 'int32' ? -(2 ** 31) : 0) : wrap(Math.trunc(1 / v), d);
      case 'floor': case 'ceil': case 'trunc': case 'rint': return v;
      case 'logical_not': return v === 0 ? 1 : 0;
      case 'bitwise_not': return d === 'bool' ? (v ? 0 : 1) : wrap(~v, d);
      case 'isnan': case 'isinf': return 0;
      case 'isfinite': return 1;
      case 'signbit': return v < 0 ? 1 : 0;
      default: break;
    }
  }
  const f = roundTo(d);
  switch (op) {
    case 'negative': return -v;
    case 'abs': return Math.abs(v);
    case 'sign': return Number.isNaN(v) ? NaN : v > 0 ? 1 : v < 0 ? -1 : 0;
    case 'sqrt': return f(Math.sqrt(v));
    case 'square': return f(v * v);
    case 'cbrt': return f(Math.cbrt(v));
    case 'reciprocal': return f(1 / v);
    case 'exp': return f(Math.exp(v));
    case 'exp2': return f(Math.pow(2, v));
    case 'expm1': return f(Math.expm1(v));
    case 'log': return f(Math.log(v));
    case 'log2': return f(Math.log2(v));
    case 'log10': return f(Math.log10(v));
    case 'log1p': return f(Math.log1p(v));
    case 'sin': return f(Math.sin(v));
    case 'cos': return f(Math.cos(v));
    case 'tan': return f(Math.tan(v));
    case 'arcsin': return f(Math.asin(v));
    case 'arccos': return f(Math.acos(v));
    case 'arctan': return f(Math.atan(v));
    case 'sinh': return f(Math.sinh(v));
    case 'cosh': return f(Math.cosh(v));
    case 'tanh': return f(Math.tanh(v));
    case 'arcsinh': return f(Math.asinh(v));
    case 'arccosh': return f(Math.acosh(v));
    case 'arctanh': return f(Math.atanh(v));
    case 'floor': return Math.floor(v);
    case 'ceil': return Math.ceil(v);
    case 'trunc': return Math.trunc(v);
    case 'rint': return rint(v);
    case 'logical_not': return v === 0 ? 1 : 0;
    case 'bitwise_not': return v ? 0 : 1;
    case 'isnan': return Number.isNaN(v) ? 1 : 0;
    case 'isinf': return v === Infinity || v === -Infinity ? 1 : 0;
    case 'isfinite': return Number.isFinite(v) ? 1 : 0;
    case 'floordiv_pos': return v;
    case 'signbit': return signbit(v) ? 1 : 0;
    case 'frexp_mantissa': return frexp(v)[0];
    case 'frexp_exponent': return frexp(v)[1];
    default: return op satisfies never;
  }
}

/** Binary op on two values of dtype `d`. Comparisons and logical ops return 0/1. */
export function binaryScalar(op: BinaryOp, a: Scalar, b: Scalar, d: DType): Scalar {
  switch (op) {
    case 'equal': return a === b ? 1 : 0;
    case 'not_equal': return a !== b ? 1 : 0;
    case 'less': return a < b ? 1 : 0;
    case 'less_equal': return a <= b ? 1 : 0;
    case 'greater': return a > b ? 1 : 0;
    case 'greater_equal': return a >= b ? 1 : 0;
    case 'logical_and': return truthy(a) && truthy(b) ? 1 : 0;
    case 'logical_or': return truthy(a) || truthy(b) ? 1 : 0;
    case 'logical_xor': return truthy(a) !== truthy(b) ? 1 : 0;
    default: break;
  }
  if (typeof a === 'bigint' && typeof b === 'bigint') {
    const w = (x: bigint) => BigInt.asIntN(64, x);
    switch (op) {
      case 'add': return w(a + b);
      case 'subtract': return w(a - b);
      case 'multiply': return w(a * b);
      case 'divide': return Number(a) / Number(b);
      case 'floor_divide': {
        if (b === 0n) return 0n;
        const q = a / b;
        return w((a % b !== 0n) && ((a < 0n) !== (b < 0n)) ? q - 1n : q);
      }
      case 'mod': {
        if (b === 0n) return 0n;
        const r = a % b;
        return r !== 0n && (r < 0n) !== (b < 0n) ? r + b : r;
      }
      case 'power': return ipow64(a, b);
      case 'maximum': case 'fmax': return a > b ? a : b;
      case 'minimum': case 'fmin': return a < b ? a : b;
      case 'bitwise_and': return a & b;
      case 'bitwise_or': return a | b;
      case 'bitwise_xor': return a ^ b;
      case 'arctan2': return Math.atan2(Number(a), Number(b));
      case 'hypot': return Math.hypot(Number(a), Number(b));
      case 'fmod': return b === 0n ? 0n : a % b;
      // |int64 min| is 2**63: the magnitudes are exact as bigints, the result wraps as NumPy's unsigned one does
      case 'gcd': return w(gcdMag(a < 0n ? -a : a, b < 0n ? -b : b, 0n));
      case 'lcm': {
        const x = a < 0n ? -a : a, y = b < 0n ? -b : b, g = gcdMag(x, y, 0n);
        return g === 0n ? 0n : w((x / g) * y);
      }
      // counts outside [0, 64) shift everything out (NumPy's npy_lshift/npy_rshift): 0, or -1 for a negative value
      case 'left_shift': return b < 0n || b >= 64n ? 0n : w(a << b);
      case 'right_shift': return b < 0n || b >= 64n ? (a < 0n ? -1n : 0n) : a >> b;
      case 'copysign': case 'nextafter': case 'ldexp':
        return binaryScalar(op, Number(a), Number(b), 'float64');
      default: return op satisfies never;
    }
  }
  const x = a as number, y = b as number;
  if (INFO[d].kind !== 'f') {
    switch (op) {
      case 'add': return wrap(x + y, d);
      case 'subtract': return wrap(x - y, d);
      case 'multiply': return d === 'bool' ? (x && y ? 1 : 0) : wrap(Math.imul(x, y), d);
      case 'floor_divide': return y === 0 ? 0 : wrap(Math.floor(x / y), d);
      case 'mod': {
        if (y === 0) return 0;
        const r = x % y;
        return wrap(r !== 0 && (r < 0) !== (y < 0) ? r + y : r, d);
      }
      case 'power': return ipow(x, y, d);
      case 'maximum': case 'fmax': return Math.max(x, y);
      case 'minimum': case 'fmin': return Math.min(x, y);
      case 'bitwise_and': return wrap(x & y, d);
      case 'bitwise_or': return wrap(x | y, d);
      case 'bitwise_xor': return wrap(x ^ y, d);
      case 'fmod': return y === 0 ? 0 : wrap(x % y, d);
      case 'gcd': return wrap(gcdMag(Math.abs(x), Math.abs(y), 0), d);
      case 'lcm': {
        const p = Math.abs(x), q = Math.abs(y), g = gcdMag(p, q, 0);
        // the product wraps: its low 32 bits through imul, exact where p * q is not
        return g === 0 ? 0 : wrap(Math.imul(p / g, q), d);
      }
      case 'left_shift': {
        const n = BITS[d]!;
        return y < 0 || y >= n ? 0 : wrap(x << y, d);
      }
      case 'right_shift': {
        const n = BITS[d]!;
        if (y < 0 || y >= n) return x < 0 ? -1 : 0;
        return d === 'uint32' ? x >>> y : x >> y;
      }
      default: break;
    }
  }
  const f = roundTo(d);
  switch (op) {
    case 'add': return f(x + y);
    case 'subtract': return f(x - y);
    case 'multiply': return f(x * y);
    case 'divide': return f(x / y);
    case 'floor_divide': return f(fdivmod(x, y)[0]);
    case 'mod': return f(fdivmod(x, y)[1]);
    case 'power': return f(cpow(x, y));
    case 'arctan2': return f(Math.atan2(x, y));
    case 'hypot': return f(Math.hypot(x, y));
    case 'maximum': return Number.isNaN(x) || Number.isNaN(y) ? NaN : Math.max(x, y);
    case 'minimum': return Number.isNaN(x) || Number.isNaN(y) ? NaN : Math.min(x, y);
    case 'fmax': return Number.isNaN(x) ? y : Number.isNaN(y) ? x : Math.max(x, y);
    case 'fmin': return Number.isNaN(x) ? y : Number.isNaN(y) ? x : Math.min(x, y);
    case 'fmod': return x % y;
    case 'copysign': return copysign(x, y);
    case 'nextafter': return d === 'float32' ? nextafter32(x, y) : d === 'float16' ? nextafter16(x, y) : nextafter(x, y);
    case 'ldexp': return f(ldexp(x, y));
    case 'bitwise_and': case 'bitwise_or': case 'bitwise_xor': case 'gcd': case 'lcm': case 'left_shift': case 'right_shift':
      throw new TypeError(`ufunc '${op}' not supported for the input types (${d})`);
    default: return op satisfies never;
  }
}

/** npy_logaddexp on values: x + log 2 where equal (infinities too), else the larger + log1p(exp(-|x - y|)); NaN propagates. */
export function logaddexp(x: number, y: number): number {
  if (x === y) return x + Math.LN2;
  return (Number.isNaN(x) || Number.isNaN(y) ? NaN : Math.max(x, y)) + Math.log1p(Math.exp(-Math.abs(x - y)));
}

/** npy_logaddexp2 on values: x + 1 where equal, else the larger + log2(e) log1p(2^-|x - y|). */
export function logaddexp2(x: number, y: number): number {
  if (x === y) return x + 1;
  return (Number.isNaN(x) || Number.isNaN(y) ? NaN : Math.max(x, y)) + Math.log1p(2 ** -Math.abs(x - y)) * Math.LOG2E;
}
