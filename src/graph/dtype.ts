// Data types: NumPy's names, sizes and promotion rules (NumPy 2, NEP 50).
// In: dtype names and JS values. Out: dtype facts, the promoted dtype of an
// operation, and typed-array constructors. Everything above uses these tables,
// so a dtype question has one answer in the whole project.

import { isHalfArray } from './half.js';

export const DTYPES = [
  'bool', 'int8', 'int16', 'int32', 'int64', 'uint8', 'uint16', 'uint32', 'float16', 'float32', 'float64',
] as const;
export type DType = (typeof DTYPES)[number];

export type Kind = 'b' | 'i' | 'u' | 'f';

export interface DTypeInfo {
  readonly kind: Kind;
  readonly bytes: number;
}

export const INFO: { readonly [D in DType]: DTypeInfo } = {
  bool: { kind: 'b', bytes: 1 },
  int8: { kind: 'i', bytes: 1 },
  int16: { kind: 'i', bytes: 2 },
  int32: { kind: 'i', bytes: 4 },
  int64: { kind: 'i', bytes: 8 },
  uint8: { kind: 'u', bytes: 1 },
  uint16: { kind: 'u', bytes: 2 },
  uint32: { kind: 'u', bytes: 4 },
  float16: { kind: 'f', bytes: 2 },
  float32: { kind: 'f', bytes: 4 },
  float64: { kind: 'f', bytes: 8 },
};

export type TypedArray =
  | Uint8Array | Int8Array | Int16Array | Int32Array | BigInt64Array
  | Uint16Array | Uint32Array | Float32Array | Float64Array;

type TypedArrayCtor = {
  new (n: number): TypedArray;
  new (buffer: ArrayBufferLike, byteOffset: number, length: number): TypedArray;
};

/**
 * bool is stored one byte per element (0 or 1), as NumPy stores it; float16
 * as its 16 bits (graph/half.ts converts, and users see a Float16Array).
 */
export const ARRAY_CTOR: { readonly [D in DType]: TypedArrayCtor } = {
  bool: Uint8Array,
  int8: Int8Array,
  int16: Int16Array,
  int32: Int32Array,
  int64: BigInt64Array,
  uint8: Uint8Array,
  uint16: Uint16Array,
  uint32: Uint32Array,
  float16: Uint16Array,
  float32: Float32Array,
  float64: Float64Array,
};

export function isDType(x: unknown): x is DType {
  return typeof x === 'string' && (DTYPES as readonly string[]).includes(x);
}

const ALIASES: Record<string, DType> = {
  float: 'float64', double: 'float64', f8: 'float64', f4: 'float32', single: 'float32',
  int: 'int64', i8: 'int64', i4: 'int32', i2: 'int16', i1: 'int8', long: 'int64',
  u4: 'uint32', u2: 'uint16', u1: 'uint8', bool_: 'bool', b1: 'bool', '?': 'bool',
  half: 'float16', f2: 'float16', e: 'float16', f: 'float32', d: 'float64',
};

/** Parses a user's dtype argument; throws NumPy's message for an unknown name. */
export function parseDType(x: unknown): DType {
  if (isDType(x)) return x;
  if (typeof x === 'string' && ALIASES[x]) return ALIASES[x]!;
  if (x === Number) return 'float64';
  // a descriptor (api/scalars.ts `dtype()`), or anything else naming a dtype and its size
  if (typeof x === 'object' && x !== null && 'itemsize' in x && 'name' in x && isDType(x.name)) return x.name;
  if (x === Boolean) return 'bool';
  throw new TypeError(`data type ${JSON.stringify(x)} not understood (expected one of ${DTYPES.join(', ')})`);
}

export const kindOf = (d: DType): Kind => INFO[d].kind;
export const isFloat = (d: DType): boolean => INFO[d].kind === 'f';
export const isInteger = (d: DType): boolean => INFO[d].kind === 'i' || INFO[d].kind === 'u';
export const isBool = (d: DType): boolean => d === 'bool';

const SIGNED_BY_BYTES: Record<number, DType> = { 1: 'int8', 2: 'int16', 4: 'int32', 8: 'int64' };

/** NumPy's promotion of two array dtypes (np.result_type on arrays). */
export function promoteTypes(a: DType, b: DType): DType {
  if (a === b) return a;
  const ia = INFO[a], ib = INFO[b];
  if (ia.kind === 'b') return b;
  if (ib.kind === 'b') return a;
  if (ia.kind === 'f' || ib.kind === 'f') {
    if (ia.kind === 'f' && ib.kind === 'f') return ia.bytes >= ib.bytes ? a : b;
    const [f, other] = ia.kind === 'f' ? [a, INFO[b]] : [b, INFO[a]];
    if (f === 'float64') return 'float64';
    // float16 holds int8 and uint8 exactly, float32 int16 and uint16; wider integers need float64.
    if (f === 'float16' && other.bytes === 1) return 'float16';
    return other.bytes <= 2 ? 'float32' : 'float64';
  }
  if (ia.kind === ib.kind) return ia.bytes >= ib.bytes ? a : b;
  const [s, u] = ia.kind === 'i' ? [ia, ib] : [ib, ia];
  if (s.bytes > u.bytes) return SIGNED_BY_BYTES[s.bytes]!;
  return SIGNED_BY_BYTES[Math.min(8, u.bytes * 2)]!;
}

/** A JS scalar operand is "weak" (NEP 50): it takes the array's dtype where its kind allows. */
export type WeakKind = 'bool' | 'int' | 'float';

/**
 * Whether a JS number stands for a Python int: integral, exact (|v| <= 2**53:
 * beyond it a JS number is a rounded float, 1e20 say) and not -0.
 */
export const isIntLike = (v: number): boolean => Number.isSafeInteger(v) && !Object.is(v, -0);

export function weakKindOf(v: number | boolean): WeakKind {
  if (typeof v === 'boolean') return 'bool';
  return isIntLike(v) ? 'int' : 'float';
}

export function defaultDTypeOfWeak(k: WeakKind): DType {
  return k === 'bool' ? 'bool' : k === 'int' ? 'int64' : 'float64';
}

/** Result dtype of an array of dtype `d` combined with a weak JS scalar. */
export function promoteWeak(d: DType, k: WeakKind): DType {
  const kind = INFO[d].kind;
  if (k === 'bool') return d;
  if (k === 'int') return kind === 'b' ? 'int64' : d;
  return kind === 'f' ? d : 'float64';
}

/** Range of an integer dtype, for NumPy 2's overflow error on out-of-range scalars. */
export function integerRange(d: DType): [number, number] | undefined {
  switch (d) {
    case 'int8': return [-128, 127];
    case 'int16': return [-32768, 32767];
    case 'int32': return [-2147483648, 2147483647];
    case 'int64': return [-9223372036854775808, 9223372036854775807];
    case 'uint8': return [0, 255];
    case 'uint16': return [0, 65535];
    case 'uint32': return [0, 4294967295];
    default: return undefined;
  }
}

/**
 * Whether integer dtype `d` cannot hold the integer `v` exactly (false for
 * other dtypes). Compared exactly: int64's maximum is not a double, and
 * 2**63 as a double must not pass as 2**63 - 1.
 */
export function outOfIntRange(v: number | bigint, d: DType): boolean {
  const r = integerRange(d);
  if (!r) return false;
  if (typeof v === 'bigint') return v < BigInt(r[0]) || v > (d === 'int64' ? 2n ** 63n - 1n : BigInt(r[1]));
  return v < r[0] || v >= r[1] + 1;
}

/** The float dtype a float-only ufunc (sqrt, exp, ...) computes in: float16 for bool/int8/uint8, as NumPy's. */
export function floatResultOf(d: DType): DType {
  const i = INFO[d];
  if (i.kind === 'f') return d;
  return i.bytes === 1 ? 'float16' : i.bytes === 2 ? 'float32' : 'float64';
}

/** dtype of sum/prod accumulation (NumPy: small ints widen to the default int). */
export function sumResultOf(d: DType): DType {
  const k = INFO[d].kind;
  if (k === 'b' || k === 'i' || k === 'u') return 'int64';
  return d;
}

/** Smallest dtype that can hold `v`, for typed-array-free JS data. */
export function dtypeOfJsScalar(v: number | boolean | bigint): DType {
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'bigint') return 'int64';
  return isIntLike(v) ? 'int64' : 'float64';
}

export function dtypeOfTypedArray(a: ArrayBufferView | ArrayLike<number>): DType | undefined {
  if (isHalfArray(a)) return 'float16';
  if (a instanceof Float64Array) return 'float64';
  if (a instanceof Float32Array) return 'float32';
  if (a instanceof Int32Array) return 'int32';
  if (a instanceof Int16Array) return 'int16';
  if (a instanceof Int8Array) return 'int8';
  if (a instanceof Uint32Array) return 'uint32';
  if (a instanceof Uint16Array) return 'uint16';
  if (a instanceof Uint8Array || a instanceof Uint8ClampedArray) return 'uint8';
  if (a instanceof BigInt64Array) return 'int64';
  return undefined;
}

export const CASTINGS = ['no', 'equiv', 'safe', 'same_kind', 'unsafe'] as const;
export type Casting = (typeof CASTINGS)[number];
const KIND_RANK: Record<Kind, number> = { b: 0, u: 1, i: 2, f: 3 };

/** np.can_cast(from, to, casting) for array dtypes. */
export function canCast(from: DType, to: DType, casting: Casting): boolean {
  switch (casting) {
    case 'unsafe': return true;
    case 'no': case 'equiv': return from === to;
    case 'safe': return promoteTypes(from, to) === to;
    case 'same_kind': return promoteTypes(from, to) === to || KIND_RANK[INFO[from].kind] <= KIND_RANK[INFO[to].kind];
  }
}
