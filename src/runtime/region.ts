// Regions and the contract of a routine (DESIGN.md, "Kernels and routines"):
// what every routine table (./routines.ts, ./scatter.ts) is written against,
// and the small helpers their checks and loops share. Its own file so that
// the routine families import it and ./routines.ts imports them, with no cycle.
// In: routine parameters and heap views. Out: checked parameters, plain views.

import { ARRAY_CTOR, type DType, type TypedArray } from '../graph/dtype.js';
import type { RoutineParams } from '../graph/node.js';

/** A region of memory a routine reads or writes: a strided box whose first element `data` starts at. */
export interface Region {
  readonly dtype: DType;
  readonly shape: readonly number[];
  readonly strides: readonly number[];
  /** Where the box lies in its tensor (a position's global index is origin + offset). */
  readonly origin: readonly number[];
  readonly data: TypedArray;
}

/** What a routine is told of a region before it runs: its dtype and extent. */
export type RegionSpec = Pick<Region, 'dtype' | 'shape'>;

export interface Routine {
  /** Throws (TypeError, RangeError) unless the parameters and regions fit the routine: how a peer refuses a bad task. */
  check(params: RoutineParams, inputs: readonly RegionSpec[], output: RegionSpec): void;
  run(params: RoutineParams, inputs: readonly Region[], output: Region): void;
}

export function flag(params: RoutineParams, name: string): boolean {
  const v = params[name];
  if (typeof v !== 'boolean') throw new TypeError(`routine parameter ${name} must be a boolean`);
  return v;
}

export function onlyParams(params: RoutineParams, names: readonly string[]): void {
  const extra = Object.keys(params).filter((k) => !names.includes(k));
  if (extra.length) throw new TypeError(`unknown routine parameter ${extra[0]}`);
}

export const len = (r: RegionSpec): number => r.shape.reduce((a, b) => a * b, 1);

/** A 1-d region's elements as one contiguous array (a view where it is one already). */
export function contiguous(r: Region): TypedArray {
  const n = r.shape[0]!;
  if (r.strides[0] === 1 || n <= 1) return r.data.subarray(0, n) as TypedArray;
  const out = new ARRAY_CTOR[r.dtype](n) as TypedArray;
  for (let i = 0; i < n; i++) out[i] = r.data[i * r.strides[0]!]!;
  return out;
}

/** The 32-bit words of an array of 8-byte elements. */
export function words(t: TypedArray): Int32Array {
  return new Int32Array(t.buffer, t.byteOffset, t.byteLength >>> 2);
}

/** Elements of a region's box, for views over the heap: one past the farthest element it reaches. */
export function regionSpan(shape: readonly number[], strides: readonly number[]): number {
  if (shape.some((d) => d === 0)) return 0;
  return 1 + shape.reduce((a, d, i) => a + (d - 1) * strides[i]!, 0);
}
