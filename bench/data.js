// Deterministic benchmark inputs, identical in every implementation.
//
// Element i of stream s is (lowbias32(i + s * 0x9E3779B9) + 0.5) / 2^32: a
// 32-bit integer hash (Chris Wellons' lowbias32, a bijection on uint32)
// mapped into (0, 1). JavaScript computes it with Math.imul and NumPy with
// wrapping uint32 arithmetic (bench/numpy_bench.py), so the float64 arrays
// are bit-identical and every implementation's answer can be checked against
// one reference computed here. Because the hash is a bijection, a float64
// array of up to 2^32 elements has no repeated values, so argmax has no ties.

import { roundHalf } from '../dist/graph/half.js';

const STREAM = 0x9e3779b9;

export function hash32(x) {
  x ^= x >>> 16;
  x = Math.imul(x, 0x7feb352d);
  x ^= x >>> 15;
  x = Math.imul(x, 0x846ca68b);
  x ^= x >>> 16;
  return x >>> 0;
}

/** Value of element `i` of stream `s` (float64). */
export const value = (s, i) => (hash32((i + Math.imul(s, STREAM)) >>> 0) + 0.5) / 4294967296;

/**
 * Stream `s` as a Float64Array or Float32Array (rounded once, as astype
 * does) of `n` elements; float16's values (rounded once from float64, as
 * NumPy's astype) in a Float32Array, which holds them exactly.
 */
export function fill(s, n, dtype = 'float64') {
  const out = dtype === 'float64' ? new Float64Array(n) : new Float32Array(n);
  const off = Math.imul(s, STREAM);
  for (let i = 0; i < n; i++) out[i] = (hash32((i + off) >>> 0) + 0.5) / 4294967296;
  if (dtype === 'float16') for (let i = 0; i < n; i++) out[i] = roundHalf((hash32((i + off) >>> 0) + 0.5) / 4294967296);
  return out;
}

/** The ±1 probe vector used to check a matmul result (C @ w). */
export function probe(n) {
  const w = new Float64Array(n);
  for (let j = 0; j < n; j++) w[j] = hash32((j + 0x51ed27) >>> 0) & 1 ? 1 : -1;
  return w;
}

/** Streams used by each case: a, b for the elementwise chain, x for reductions, x, y for matmul. */
export const STREAMS = { a: 1, b: 2, x: 3, y: 4 };

/** y = C @ w for a C-order n x n matrix C (any typed array), accumulated in float64. */
export function matvec(c, n, w) {
  const y = new Array(n);
  for (let i = 0; i < n; i++) {
    let s = 0;
    const o = i * n;
    for (let j = 0; j < n; j++) s += c[o + j] * w[j];
    y[i] = s;
  }
  return y;
}

/** Monte Carlo sizes above this are drawn in PI_CHUNK-point pieces by NumPy, tfjs and jax-js. */
export const PI_WHOLE_MAX = 1e8;
export const PI_CHUNK = 1e7;

/** Piece sizes for a Monte Carlo run of n points. */
export function piPieces(n) {
  if (n <= PI_WHOLE_MAX) return [n];
  const out = [];
  for (let left = n; left > 0; left -= PI_CHUNK) out.push(Math.min(PI_CHUNK, left));
  return out;
}
