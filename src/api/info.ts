// np.finfo and np.iinfo: the machine limits of Tessera's float and integer
// dtypes, with NumPy's attribute names. In: a dtype (name, alias, or
// anything with a `dtype`, a tensor or an NDArray). Out: plain objects.
// int64's limits are bigints (2^63 - 1 is not a JS number); everything else
// is a number.

import { type DType, INFO, integerRange, isFloat, parseDType } from '../graph/dtype.js';
import { castScalar } from '../ir/scalar.js';

export interface FInfo {
  readonly dtype: DType;
  readonly bits: number;
  /** 2^-nmant: the gap between 1 and the next value. */
  readonly eps: number;
  /** 2^-(nmant + 1): the gap between 1 and the value below. */
  readonly epsneg: number;
  readonly max: number;
  readonly min: number;
  /** The smallest positive normal value (also `tiny`). */
  readonly smallest_normal: number;
  readonly tiny: number;
  readonly smallest_subnormal: number;
  /** 10^-precision, as a value of the dtype (float16's is 0.0010004...). */
  readonly resolution: number;
  /** Decimal digits the dtype holds: floor(nmant * log10(2)). */
  readonly precision: number;
  readonly nmant: number;
  readonly nexp: number;
  readonly iexp: number;
  readonly maxexp: number;
  readonly minexp: number;
  readonly machep: number;
  readonly negep: number;
}

export interface IInfo {
  readonly dtype: DType;
  readonly bits: number;
  readonly kind: 'i' | 'u';
  readonly min: number | bigint;
  readonly max: number | bigint;
}

/** IEEE binary formats: mantissa bits (without the hidden one) and exponent bits. */
const FORMAT: Partial<Record<DType, { nmant: number; nexp: number }>> = {
  float16: { nmant: 10, nexp: 5 }, float32: { nmant: 23, nexp: 8 }, float64: { nmant: 52, nexp: 11 },
};

const dtypeOf = (x: unknown): DType =>
  parseDType(x !== null && typeof x === 'object' && 'dtype' in x ? (x as { dtype: unknown }).dtype : x);

/** np.finfo(dtype): limits of a float dtype (NumPy's ValueError, a RangeError here, for others). */
export function finfo(x: unknown): FInfo {
  const dtype = dtypeOf(x);
  const f = FORMAT[dtype];
  if (!f || !isFloat(dtype)) throw new RangeError(`data type ${dtype} not inexact`);
  const { nmant, nexp } = f;
  const maxexp = 2 ** (nexp - 1), minexp = 3 - maxexp - 1;
  const max = (2 - 2 ** -nmant) * 2 ** (maxexp - 1);
  const precision = Math.floor(nmant * Math.log10(2));
  const tiny = 2 ** minexp;
  return {
    dtype, bits: INFO[dtype].bytes * 8, eps: 2 ** -nmant, epsneg: 2 ** -(nmant + 1), max, min: -max,
    smallest_normal: tiny, tiny, smallest_subnormal: 2 ** (minexp - nmant), resolution: Number(castScalar(10 ** -precision, 'float64', dtype)), precision,
    nmant, nexp, iexp: nexp, maxexp, minexp, machep: -nmant, negep: -(nmant + 1),
  };
}

/** np.iinfo(dtype): limits of an integer dtype (NumPy's ValueError, a RangeError here, for others). */
export function iinfo(x: unknown): IInfo {
  const dtype = dtypeOf(x);
  const r = integerRange(dtype);
  if (!r || dtype === 'bool') throw new RangeError(`Invalid integer data type '${dtype}'.`);
  const kind = INFO[dtype].kind as 'i' | 'u';
  if (dtype === 'int64') return { dtype, bits: 64, kind, min: -(2n ** 63n), max: 2n ** 63n - 1n };
  return { dtype, bits: INFO[dtype].bytes * 8, kind, min: r[0], max: r[1] };
}
