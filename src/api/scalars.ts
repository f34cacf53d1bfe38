// NumPy's module-level constants and type names, and the functions that
// answer questions about dtypes and scalars without computing anything:
// pi, e, inf, nan, euler_gamma; the dtype names (mt.float32 is the string
// 'float32', so `x.dtype === mt.float32` holds and `{ dtype: mt.int8 }`
// works) and the abstract types (floating, integer, ...); dtype(),
// promote_types, result_type, can_cast, issubdtype, common_type, isscalar,
// iterable; binary_repr, base_repr, typename. In: dtype names, tensors, NDArrays,
// JS values. Out: JS values (strings, booleans, descriptor objects).

import { type Casting, CASTINGS, type DType, type WeakKind, INFO, canCast, defaultDTypeOfWeak, dtypeOfTypedArray, parseDType, promoteTypes, promoteWeak, weakKindOf } from '../graph/dtype.js';
import { NDArray, fromJs, type JsData } from './convert.js';
import { kwargs } from './bind.js';
import { isTensor } from './core.js';
import { repr } from '../graph/shape.js';

type Args = unknown[];

export const pi = Math.PI;
export const e = Math.E;
export const inf = Infinity;
export const nan = NaN;
export const euler_gamma = 0.5772156649015329;
/** np.little_endian: the byte order of the values (WebAssembly memory, typed arrays) is little-endian everywhere. */
export const little_endian = true;
/** np.True_ and np.False_ (NumPy's bool scalars; JS booleans here). */
export const True_ = true, False_ = false;
/** np.typecodes: NumPy's type characters of each kind (Tessera has ?, b, h, i, q, B, H, I, e, f and d of them). */
export const typecodes = Object.freeze({
  Character: 'c', Integer: 'bhilqnp', UnsignedInteger: 'BHILQNP', Float: 'efdg', Complex: 'FDG', AllInteger: 'bBhHiIlLqQnNpP',
  AllFloat: 'efdgFDG', Datetime: 'Mm', All: '?bhilqnpBHILQNPefdgFDGSUVOMm',
});

// The dtypes by NumPy's names for them (the scalar types, np.float32 etc.).
export const bool = 'bool', bool_ = 'bool';
export const int8 = 'int8', int16 = 'int16', int32 = 'int32', int64 = 'int64';
export const uint8 = 'uint8', uint16 = 'uint16', uint32 = 'uint32';
export const float16 = 'float16', float32 = 'float32', float64 = 'float64';
export const byte = 'int8', short = 'int16', intc = 'int32', int_ = 'int64', intp = 'int64', long = 'int64', longlong = 'int64';
export const ubyte = 'uint8', ushort = 'uint16', uintc = 'uint32';
export const half = 'float16', single = 'float32', double = 'float64';

/** NumPy's abstract scalar types, each with its parent (generic has none). */
const ABSTRACT: Record<string, string | undefined> = {
  generic: undefined, number: 'generic', integer: 'number', signedinteger: 'integer', unsignedinteger: 'integer',
  inexact: 'number', floating: 'inexact', complexfloating: 'inexact',
};
export const generic = 'generic', number = 'number', integer = 'integer', signedinteger = 'signedinteger', unsignedinteger = 'unsignedinteger';
export const inexact = 'inexact', floating = 'floating', complexfloating = 'complexfloating';

const PARENT: Record<string, string> = { b: 'generic', i: 'signedinteger', u: 'unsignedinteger', f: 'floating' };
const CHAR: Record<DType, string> = {
  bool: '?', int8: 'b', int16: 'h', int32: 'i', int64: 'q', uint8: 'B', uint16: 'H', uint32: 'I', float16: 'e', float32: 'f', float64: 'd',
};

/** A dtype argument: a name or alias, a descriptor, anything with a `dtype` (a tensor, an NDArray). */
function dtypeOf(x: unknown, fn: string): DType {
  if (isTensor(x) || x instanceof NDArray) return x.dtype;
  if (x instanceof DTypeDescr) return x.name;
  try { return parseDType(x); } catch (err) { throw new TypeError(`${fn}(): ${(err as Error).message}`); }
}

/**
 * np.dtype's answers about a dtype: name, kind, itemsize, char, str. Equal
 * (==) to its name, and accepted wherever a dtype is.
 */
export class DTypeDescr {
  readonly kind: string;
  readonly itemsize: number;
  readonly char: string;
  constructor(readonly name: DType) {
    this.kind = INFO[name].kind;
    this.itemsize = INFO[name].bytes;
    this.char = CHAR[name];
  }
  /** The array-protocol string, '<f8' (little-endian; '|' where byte order does not apply). */
  get str(): string { return `${this.itemsize === 1 ? '|' : '<'}${this.kind}${this.itemsize}`; }
  get alignment(): number { return this.itemsize; }
  get isbuiltin(): number { return 1; }
  toString(): string { return this.name; }
  valueOf(): string { return this.name; }
  [Symbol.toPrimitive](): string { return this.name; }
  toJSON(): string { return this.name; }
}

/** dtype(spec): the descriptor of a dtype name, alias, descriptor, or of an array's dtype. */
export function dtype(spec: unknown): DTypeDescr {
  return new DTypeDescr(dtypeOf(spec, 'dtype'));
}

/** promote_types(type1, type2): the smallest dtype both cast to safely. */
export function promote_types(type1: unknown, type2: unknown): DType {
  return promoteTypes(dtypeOf(type1, 'promote_types'), dtypeOf(type2, 'promote_types'));
}

const WEAK_RANK: Record<WeakKind, number> = { bool: 0, int: 1, float: 2 };

/**
 * result_type(*arrays_and_dtypes): NumPy 2's promotion of operands. Arrays,
 * tensors, typed arrays, JS lists and dtypes are strong; a JS number, boolean
 * or bigint is weak (NEP 50): it takes the strong dtype where its kind allows.
 */
export function result_type(...args: unknown[]): DType {
  if (args.length === 0) throw new RangeError('at least one array or dtype is required');
  let strong: DType | undefined;
  let weak: WeakKind | undefined;
  for (const a of args) {
    let d: DType | undefined;
    if (typeof a === 'number' || typeof a === 'boolean') {
      const k = weakKindOf(a);
      if (weak === undefined || WEAK_RANK[k] > WEAK_RANK[weak]) weak = k;
      continue;
    }
    if (typeof a === 'bigint') { if (weak === undefined || weak === 'bool') weak = 'int'; continue; }
    if (Array.isArray(a)) d = fromJs(a as JsData).dtype;
    else if (ArrayBuffer.isView(a)) d = dtypeOfTypedArray(a) ?? dtypeOf(a, 'result_type');
    else d = dtypeOf(a, 'result_type');
    strong = strong === undefined ? d : promoteTypes(strong, d);
  }
  if (strong === undefined) return defaultDTypeOfWeak(weak!);
  return weak === undefined ? strong : promoteWeak(strong, weak);
}

/** can_cast(from_, to, casting='safe'): whether a cast of dtype from_ (or an array's) to `to` keeps to the casting rule. */
export function can_cast(from: unknown, to: unknown, ...args: Args): boolean {
  const o = kwargs<{ casting?: Casting }>('can_cast', args, ['casting']);
  if (typeof from === 'number' || typeof from === 'boolean' || typeof from === 'bigint') {
    throw new TypeError("can_cast() does not support Python ints, floats, and complex because the result used to depend on the value.\nThis change was part of adopting NEP 50, we may explicitly allow them again in the future.");
  }
  const casting = o.casting ?? 'safe';
  if (!(CASTINGS as readonly string[]).includes(casting)) throw new RangeError(`casting must be one of ${CASTINGS.map((c) => `'${c}'`).join(', ')}`);
  return canCast(dtypeOf(from, 'can_cast'), dtypeOf(to, 'can_cast'), casting);
}

/** A dtype or abstract type's chain up to generic: float32 -> floating -> inexact -> number -> generic. */
function lineage(x: unknown): string[] {
  let t = typeof x === 'string' && x in ABSTRACT ? x : undefined;
  const out: string[] = [];
  if (t === undefined) {
    const d = dtypeOf(x, 'issubdtype');
    out.push(d);
    t = PARENT[INFO[d].kind]!;
  }
  for (let p: string | undefined = t; p !== undefined; p = ABSTRACT[p]) out.push(p);
  return out;
}

/** issubdtype(arg1, arg2): whether arg1's type is arg2 or below it in NumPy's type hierarchy (issubdtype(mt.float32, mt.floating)). */
export function issubdtype(arg1: unknown, arg2: unknown): boolean {
  return lineage(arg1).includes(lineage(arg2)[0]!);
}

/**
 * common_type(*arrays): the float dtype of the arrays' values, at least
 * float64 for integer arrays (float16 for none); bool has none.
 */
export function common_type(...arrays: unknown[]): DType {
  const FLOATS: DType[] = ['float16', 'float32', 'float64'];
  let p = 0;
  for (const a of arrays) {
    const d = isTensor(a) || a instanceof NDArray ? a.dtype : Array.isArray(a) || ArrayBuffer.isView(a) ? result_type(a) : undefined;
    if (d === undefined || d === 'bool') throw new TypeError("can't get common type for non-numeric array");
    p = Math.max(p, INFO[d].kind === 'f' ? FLOATS.indexOf(d) : 2);
  }
  return FLOATS[p]!;
}

/** isscalar(element): a JS number, boolean, bigint or string (a tensor, even 0-d, is not). */
export function isscalar(element: unknown): boolean {
  return typeof element === 'number' || typeof element === 'boolean' || typeof element === 'bigint' || typeof element === 'string';
}

/** iterable(y): whether y can be iterated (a 0-d tensor cannot). */
export function iterable(y: unknown): boolean {
  if (isTensor(y) || y instanceof NDArray) return y.ndim > 0;
  return y !== null && y !== undefined && typeof (Object(y) as { [Symbol.iterator]?: unknown })[Symbol.iterator] === 'function';
}

/** Python's operator.index: an integer as a bigint, or NumPy's TypeError. */
function pyIndex(v: unknown, fn: string): bigint {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'boolean') return v ? 1n : 0n;
  if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
  const t = typeof v === 'number' ? 'float' : v === null ? 'NoneType' : typeof v;
  throw new TypeError(`${fn}(): '${t}' object cannot be interpreted as an integer`);
}

/**
 * binary_repr(num, width=None): num in base 2; a negative num is '-' and its
 * magnitude without a width, its two's complement in `width` bits with one.
 */
export function binary_repr(num: number | bigint, ...args: Args): string {
  const o = kwargs<{ width?: number | null }>('binary_repr', args, ['width']);
  const n = pyIndex(num, 'binary_repr');
  const width = o.width ?? undefined;
  if (width !== undefined && !Number.isInteger(width)) throw new TypeError(`binary_repr(): width must be an integer, got ${repr(width)}`);
  const insufficient = (binwidth: number) => {
    if (width !== undefined && width < binwidth) throw new RangeError(`Insufficient bit width=${width} provided for binwidth=${binwidth}`);
  };
  if (n === 0n) return '0'.repeat(width || 1);
  if (n > 0n) {
    const b = n.toString(2);
    insufficient(b.length);
    return b.padStart(Math.max(b.length, width ?? 0), '0');
  }
  if (width === undefined) return `-${(-n).toString(2)}`;
  let poswidth = (-n).toString(2).length;
  // -2^k fits in k + 1 bits
  if (2n ** BigInt(poswidth - 1) === -n) poswidth--;
  const b = (2n ** BigInt(poswidth + 1) + n).toString(2);
  insufficient(b.length);
  return '1'.repeat(Math.max(b.length, width) - b.length) + b;
}

/** base_repr(number, base=2, padding=0): |number| (truncated to an integer) in the base, `padding` zeros before it, '-' for a negative number. */
export function base_repr(num: number | bigint, ...args: Args): string {
  const o = kwargs<{ base?: number; padding?: number }>('base_repr', args, ['base', 'padding']);
  const base = o.base ?? 2;
  if (!Number.isInteger(base)) throw new TypeError(`base_repr(): base must be an integer, got ${repr(base)}`);
  if (base > 36) throw new RangeError('Bases greater than 36 not handled in base_repr.');
  if (base < 2) throw new RangeError('Bases less than 2 not handled in base_repr.');
  if (typeof num === 'number' && !Number.isFinite(num)) throw new RangeError(`base_repr(): cannot convert float ${num} to integer`);
  const n = typeof num === 'bigint' ? num : BigInt(Math.trunc(num));
  const padding = Math.max(0, o.padding ?? 0);
  // NumPy writes no digit for 0 when it pads
  const digits = n === 0n && padding ? '' : (n < 0n ? -n : n).toString(base).toUpperCase();
  return `${n < 0n ? '-' : ''}${'0'.repeat(padding)}${digits}`;
}

const TYPENAMES: Record<string, string> = {
  S1: 'character', '?': 'bool', b: 'signed char', B: 'unsigned char', h: 'short', H: 'unsigned short', i: 'integer', I: 'unsigned integer',
  l: 'long integer', L: 'unsigned long integer', q: 'long long integer', Q: 'unsigned long long integer', f: 'single precision',
  d: 'double precision', g: 'long precision', F: 'complex single precision', D: 'complex double precision', G: 'complex long double precision',
  S: 'string', U: 'unicode', V: 'void', O: 'object',
};

/** typename(char): NumPy's description of a type character ('d' is 'double precision'). */
export function typename(char: string): string {
  const t = Object.hasOwn(TYPENAMES, char) ? TYPENAMES[char] : undefined;
  if (t === undefined) throw new RangeError(`typename(): unknown type character ${JSON.stringify(char)} (NumPy's KeyError)`);
  return t;
}
