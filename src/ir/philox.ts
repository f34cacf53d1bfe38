// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3"),
// the counter-based generator behind every random op. The value of element i
// of a random tensor depends only on (seed, stream, i), so it is the same for
// any chunking, worker count, placement or recompute. This is the reference;
// the WASM emitter produces the same integer stream.
// Element i of a stream uses Philox block b = floor(i / 2): counter =
// (b mod 2^32, floor(b / 2^32), stream, 0), key = (seed0, seed1). Even
// elements take words (0, 1), odd ones words (2, 3); a normal pair shares one
// Box-Muller draw (cos for even, sin for odd).

import type { RandomDist } from '../graph/ops.js';

export const PHILOX_M0 = 0xd2511f53;
export const PHILOX_M1 = 0xcd9e8d57;
export const PHILOX_W0 = 0x9e3779b9;
export const PHILOX_W1 = 0xbb67ae85;
export const PHILOX_ROUNDS = 10;

function mulhi(a: number, b: number): number {
  const a0 = a & 0xffff, a1 = a >>> 16, b0 = b & 0xffff, b1 = b >>> 16;
  const t = a1 * b0 + ((a0 * b0) >>> 16);
  const w1 = (t % 65536) + a0 * b1;
  return (a1 * b1 + Math.floor(t / 65536) + Math.floor(w1 / 65536)) >>> 0;
}

/** The four 32-bit words of Philox block `block` (0 <= block < 2^52). */
export function philox(seed: readonly [number, number], stream: number, block: number, out = new Uint32Array(4)): Uint32Array {
  let c0 = block >>> 0, c1 = Math.floor(block / 4294967296) >>> 0, c2 = stream >>> 0, c3 = 0;
  let k0 = seed[0] >>> 0, k1 = seed[1] >>> 0;
  for (let r = 0; r < PHILOX_ROUNDS; r++) {
    const hi0 = mulhi(PHILOX_M0, c0), lo0 = Math.imul(PHILOX_M0, c0) >>> 0;
    const hi1 = mulhi(PHILOX_M1, c2), lo1 = Math.imul(PHILOX_M1, c2) >>> 0;
    c0 = (hi1 ^ c1 ^ k0) >>> 0;
    c1 = lo1;
    c2 = (hi0 ^ c3 ^ k1) >>> 0;
    c3 = lo0;
    k0 = (k0 + PHILOX_W0) >>> 0;
    k1 = (k1 + PHILOX_W1) >>> 0;
  }
  out[0] = c0; out[1] = c1; out[2] = c2; out[3] = c3;
  return out;
}

/** 53 random bits from two words into [0, 1), as NumPy's random_standard_uniform does. */
export const toUniform = (a: number, b: number): number => ((a >>> 5) * 67108864 + (b >>> 6)) / 9007199254740992;

const scratch = new Uint32Array(4);

/** Reference value of one random element; float64 for uniform/normal, float32 for uniform32, uint32 for bits. */
export function randomValue(dist: RandomDist, seed: readonly [number, number], stream: number, index: number): number {
  const w = philox(seed, stream, Math.floor(index / 2), scratch);
  const odd = index % 2 === 1;
  switch (dist) {
    case 'uniform':
      return odd ? toUniform(w[2]!, w[3]!) : toUniform(w[0]!, w[1]!);
    case 'normal': {
      // Box-Muller on two independent uniforms; 1 - u lies in (0, 1] so log is finite.
      const r = Math.sqrt(-2 * Math.log(1 - toUniform(w[0]!, w[1]!)));
      const t = toUniform(w[2]!, w[3]!) * (2 * Math.PI);
      return odd ? r * Math.sin(t) : r * Math.cos(t);
    }
    case 'bits':
      return odd ? w[2]! : w[0]!;
    case 'uniform32':
      // 24 bits, exactly a float32 in [0, 1), as NumPy's Generator.random(dtype=float32) makes them
      return ((odd ? w[2]! : w[0]!) >>> 8) * 5.9604644775390625e-8;
    default:
      return dist satisfies never;
  }
}

/** Splits a user seed (any integer up to 2^53) into the 64-bit key. */
export function seedKey(seed: number): [number, number] {
  if (!Number.isInteger(seed) || seed < 0 || seed > Number.MAX_SAFE_INTEGER) {
    throw new RangeError(`Seed must be a non-negative integer below 2**53, got ${seed}`);
  }
  return [seed >>> 0, Math.floor(seed / 4294967296) >>> 0];
}
