// float16 (IEEE binary16, NumPy's float16): its bits and JS numbers.
// A float16 element is stored as its 16 bits (a Uint16Array in chunks and
// payloads) and computed in float32, as NumPy's half loops do (half to float,
// the float operation, float to half), rounding to nearest, ties to even.
// Users see a Float16Array: the host's own where it has one (Chromium,
// Node 24), else @petamoriken/float16's, a view over the same bits.
// In: numbers or bits. Out: bits, numbers, and Float16Array views.

import { Float16Array as Float16Polyfill, isFloat16Array } from '@petamoriken/float16';

/** The nearest float16 to `x` (ties to even), as its 16 bits; NaN keeps its sign. */
export function halfBits(x: number): number {
  const s = x < 0 || Object.is(x, -0) ? 0x8000 : 0;
  if (Number.isNaN(x)) return 0x7e00;
  const a = Math.abs(x);
  // 65520 lies halfway between 65504 (odd mantissa) and 65536: ties to even is infinity
  if (a >= 65520) return s | 0x7c00;
  // subnormals (and 0): whole multiples of 2^-24; 1024 of them is the smallest normal's bits
  if (a < 6.103515625e-5) return s | roundEven(a * 16777216);
  let e = Math.floor(Math.log2(a));
  if (2 ** e > a) e--;
  else if (2 ** (e + 1) <= a) e++;
  // a * 2^(10 - e) is exact and in [1024, 2048); rounding up to 2048 carries into the exponent
  return s | (((e + 15) << 10) + roundEven(a * 2 ** (10 - e)) - 1024);
}

function roundEven(v: number): number {
  const r = Math.round(v);
  return r - v === 0.5 && r % 2 === 1 ? r - 1 : r;
}

/** The value of float16 bits `h`. */
export function halfValue(h: number): number {
  const e = (h >> 10) & 0x1f, m = h & 0x3ff;
  const v = e === 0 ? m * 5.960464477539063e-8 : e === 31 ? (m ? NaN : Infinity) : (1024 + m) * 2 ** (e - 25);
  return h & 0x8000 ? -v : v;
}

/** `x` rounded to float16 (ties to even), as a number. */
export const roundHalf = (x: number): number => halfValue(halfBits(x));

let table: Float32Array | undefined;
/** All 65536 float16 values, for bulk decoding. */
function valueTable(): Float32Array {
  if (!table) {
    table = new Float32Array(65536);
    for (let h = 0; h < 65536; h++) table[h] = halfValue(h);
  }
  return table;
}

/** Decodes float16 bits to float32 values (exact). */
export function decodeHalf(bits: Uint16Array, out = new Float32Array(bits.length)): Float32Array {
  const t = valueTable();
  for (let i = 0; i < bits.length; i++) out[i] = t[bits[i]!]!;
  return out;
}

type Float16Ctor = new (buffer: ArrayBufferLike, byteOffset?: number, length?: number) => ArrayLike<number> & Iterable<number>;
/** The Float16Array constructor users get: the host's, else the polyfill's. */
export const Float16: Float16Ctor = ((globalThis as Record<string, unknown>).Float16Array as Float16Ctor | undefined) ?? (Float16Polyfill as unknown as Float16Ctor);

/** A Float16Array over the same memory as `bits` (no copy). */
export function halfView(bits: Uint16Array): ArrayLike<number> & Iterable<number> {
  return new Float16(bits.buffer, bits.byteOffset, bits.length);
}

/** Whether `x` is a Float16Array (the host's or the polyfill's). */
export function isHalfArray(x: unknown): x is ArrayLike<number> {
  const Native = (globalThis as Record<string, unknown>).Float16Array as (abstract new (...a: never[]) => unknown) | undefined;
  return (Native !== undefined && x instanceof Native) || isFloat16Array(x);
}

/** The 16 bits behind a Float16Array, copied. */
export function halfBitsOf(x: ArrayLike<number>): Uint16Array {
  const out = new Uint16Array(x.length);
  for (let i = 0; i < x.length; i++) out[i] = halfBits(x[i]!);
  return out;
}
