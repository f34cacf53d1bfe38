// Conversions between JS values and tensors: nested arrays, typed arrays and
// scalars in; NDArray (shape, dtype, C-order data, toArray, item) out.
// int64 appears in JS as a BigInt64Array in `data`; `toArray()` and `item()`
// give JS numbers, exact up to 2**53 (a bigint beyond that).

import { ARRAY_CTOR, type DType, INFO, type TypedArray, dtypeOfTypedArray, isIntLike, outOfIntRange, parseDType } from '../graph/dtype.js';
import { decodeHalf, halfBits, halfBitsOf, halfView, isHalfArray } from '../graph/half.js';
import { castScalar } from '../ir/scalar.js';
import { stridesOf } from '../graph/shape.js';
import { array_repr, array_str } from './print.js';

export type NestedArray = number | boolean | bigint | readonly NestedArray[];
export type JsData = NestedArray | TypedArray | ArrayBufferView;

/** A Float16Array: the host's own, or @petamoriken/float16's (graph/half.ts). */
export type HalfArray = ArrayLike<number> & Iterable<number>;

/** A materialised array fetched from Tessera. */
export class NDArray {
  /** The values in C order: a typed array of the dtype (BigInt64Array for int64, Uint8Array for bool, a Float16Array for float16). */
  readonly data: TypedArray | HalfArray;
  /** The elements as stored: `data`, except float16's 16-bit patterns (a Uint16Array over the same memory). */
  readonly raw: TypedArray;

  constructor(readonly shape: readonly number[], readonly dtype: DType, raw: TypedArray) {
    this.raw = raw;
    this.data = dtype === 'float16' ? halfView(raw as Uint16Array) : raw;
  }

  get size(): number { return this.data.length; }
  get ndim(): number { return this.shape.length; }

  private value(i: number): number | boolean | bigint {
    const v = this.data[i]!;
    if (this.dtype === 'bool') return v !== 0;
    if (typeof v === 'bigint') return v >= -9007199254740991n && v <= 9007199254740991n ? Number(v) : v;
    return v;
  }

  /** item(): the one value of a size-1 array; item(i): the i-th value in C order; item(i, j, ...): the value at that index. */
  item(...index: number[]): number | boolean | bigint {
    if (index.length === 0) {
      if (this.data.length !== 1) throw new RangeError('can only convert an array of size 1 to a JS scalar');
      return this.value(0);
    }
    const n = this.data.length;
    let flat: number;
    if (index.length === 1) flat = index[0]!;
    else {
      if (index.length !== this.shape.length) throw new RangeError(`incorrect number of indices for array: ${index.length} given, ${this.shape.length} dimensions`);
      flat = index.reduce((acc, v, i) => {
        const d = this.shape[i]!;
        if (!Number.isInteger(v) || v < -d || v >= d) throw new RangeError(`index ${v} is out of bounds for axis ${i} with size ${d}`);
        return acc * d + (v < 0 ? v + d : v);
      }, 0);
    }
    if (!Number.isInteger(flat) || flat < -n || flat >= n) throw new RangeError(`index ${flat} is out of bounds for size ${n}`);
    return this.value(flat < 0 ? flat + n : flat);
  }

  /** Nested JS arrays, as ndarray.tolist(). */
  toArray(): NestedArray {
    if (this.shape.length === 0) return this.value(0);
    const st = stridesOf(this.shape);
    const build = (axis: number, off: number): NestedArray[] => {
      const out: NestedArray[] = [];
      for (let i = 0; i < this.shape[axis]!; i++) {
        const o = off + i * st[axis]!;
        out.push(axis === this.shape.length - 1 ? this.value(o) : build(axis + 1, o));
      }
      return out;
    };
    return build(0, 0);
  }

  /** NumPy's str(a): "[1. 2.5]" (array_str with the current print options). */
  toString(): string { return array_str(this); }

  /** Node's util.inspect (console.log) shows NumPy's repr, "array([1. , 2.5])"; a symbol key browsers ignore. */
  [Symbol.for('nodejs.util.inspect.custom')](): string { return array_repr(this); }
}

/** Shape, inferred dtype and flat elements (as stored: float16 as its bits) of nested JS data. */
export function fromJs(data: JsData | HalfArray, dtype?: DType): { shape: number[]; dtype: DType; data: TypedArray } {
  if (isHalfArray(data)) {
    const bits = halfBitsOf(data);
    return { shape: [bits.length], dtype: dtype ?? 'float16', data: !dtype || dtype === 'float16' ? bits : convert(bits, 'float16', dtype) };
  }
  if (ArrayBuffer.isView(data) && !(data instanceof DataView)) {
    const d = dtypeOfTypedArray(data);
    if (!d) throw new TypeError(`unsupported typed array ${data.constructor.name}`);
    const src = data as TypedArray;
    const out = dtype ?? d;
    return { shape: [src.length], dtype: out, data: out === d ? (src.slice() as TypedArray) : convert(src, d, out) };
  }
  const shape: number[] = [];
  let probe: unknown = data;
  while (Array.isArray(probe)) { shape.push(probe.length); probe = probe[0]; }
  const flat: (number | boolean | bigint)[] = [];
  let kind: 'bool' | 'int' | 'float' | 'big' = 'bool';
  const walk = (x: unknown, axis: number) => {
    if (axis === shape.length) {
      if (Array.isArray(x)) throw new RangeError(`setting an array element with a sequence. The requested array has an inhomogeneous shape after ${axis} dimensions.`);
      if (typeof x === 'boolean') {}
      else if (typeof x === 'bigint') kind = kind === 'float' ? 'float' : 'big';
      // An integral JS number is a Python int only where it is exact as one: up to 2**53, and not -0.
      else if (typeof x === 'number') { if (!isIntLike(x)) kind = 'float'; else if (kind === 'bool') kind = 'int'; }
      else if (ArrayBuffer.isView(x)) throw new TypeError('typed arrays inside nested arrays are not supported; pass one typed array or nested JS arrays');
      else throw new TypeError(`cannot make a tensor from a value of type ${x === null ? 'null' : typeof x}`);
      flat.push(x as number);
      return;
    }
    if (!Array.isArray(x) || x.length !== shape[axis]) {
      throw new RangeError(`setting an array element with a sequence. The requested array has an inhomogeneous shape after ${axis} dimensions.`);
    }
    for (const v of x) walk(v, axis + 1);
  };
  walk(data, 0);
  const inferred: DType = kind === 'bool' ? (flat.length ? 'bool' : 'float64') : kind === 'float' ? 'float64' : 'int64';
  const out = dtype ?? inferred;
  const arr = new ARRAY_CTOR[out](flat.length);
  const from: DType = kind === 'bool' ? 'bool' : kind === 'float' ? 'float64' : 'int64';
  // Integral JS numbers are Python ints: NumPy 2 refuses one the chosen integer dtype cannot hold.
  if (((kind as string) === 'int' || (kind as string) === 'big') && dtype) {
    const bad = flat.find((v) => typeof v !== 'boolean' && outOfIntRange(v, dtype));
    if (bad !== undefined) throw new RangeError(`Python integer ${bad} out of bounds for ${dtype}`);
  }
  const floatOut = INFO[out].kind === 'f';
  for (let i = 0; i < flat.length; i++) {
    const v = flat[i]!;
    const s = typeof v === 'boolean' ? (v ? 1 : 0) : v;
    // Into floats every value goes as the JS number it is (no trip through int64, which would wrap 1e20 and lose -0).
    if (out === 'float16') { arr[i] = halfBits(Number(s)); continue; }
    if (floatOut) { (arr as unknown as number[])[i] = castScalar(typeof s === 'bigint' ? Number(s) : s, 'float64', out) as number; continue; }
    const src = typeof s === 'bigint' ? s : from === 'int64' ? BigInt(s) : s;
    (arr as unknown as (number | bigint)[])[i] = castScalar(src, from, out);
  }
  return { shape, dtype: out, data: arr };
}

/** Elements of `from` (as stored) cast to `to` (as stored), as astype. */
export function convert(src: TypedArray, from: DType, to: DType): TypedArray {
  // float16 as its values, still named float16: its cast to uint32 is not float32's
  const vals = from === 'float16' ? decodeHalf(src as Uint16Array) : src;
  const out = new ARRAY_CTOR[to](src.length);
  if (to === 'float16') {
    // one rounding, from the value itself (float64 to float16 directly, as NumPy casts)
    for (let i = 0; i < vals.length; i++) out[i] = halfBits(Number(castScalar(vals[i]!, from, 'float64')));
    return out;
  }
  for (let i = 0; i < vals.length; i++) (out as unknown as (number | bigint)[])[i] = castScalar(vals[i]!, from, to);
  return out;
}

export const dtypeArg = (d: unknown): DType | undefined => (d === undefined || d === null ? undefined : parseDType(d));
