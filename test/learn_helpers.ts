// What learn's test files share: fixture values (scikit-learn's JSON, where
// NaN and the infinities are strings) as tensors, comparison within a
// tolerance, and the first line of an error.

import { expect } from 'vitest';
import * as mt from '../src/api/tensor.js';

export type V = number | string | null | V[];
export const num = (v: V): number => (v === 'nan' ? NaN : v === 'inf' ? Infinity : v === '-inf' ? -Infinity : (v as number));
export const deep = (v: V): unknown => (Array.isArray(v) ? v.map(deep) : num(v));
/** A fixture matrix or vector as a float64 tensor over chunks of `c` rows. */
export const T = (v: V, c?: number): mt.Tensor => mt.tensor(deep(v) as number[], c ? { chunkSize: c } : {});

/** Values equal within a relative (and absolute, near 0) tolerance; NaN matches NaN. */
export function close(got: unknown, want: unknown, tol: number, at = ''): void {
  if (Array.isArray(want)) {
    expect(Array.isArray(got), `${at}: an array`).toBe(true);
    expect((got as unknown[]).length, `${at}: length`).toBe(want.length);
    want.forEach((w, i) => close((got as unknown[])[i], w, tol, `${at}[${i}]`));
    return;
  }
  const w = num(want as V), g = Number(got);
  if (Number.isNaN(w)) { expect(Number.isNaN(g), `${at}: NaN, got ${g}`).toBe(true); return; }
  expect(Math.abs(g - w), `${at}: ${g} vs ${w}`).toBeLessThanOrEqual(tol * Math.max(1, Math.abs(w)));
}

/** The first line of the error `f` rejects with. */
export async function firstLine(f: () => unknown): Promise<string> {
  try { await f(); } catch (e) { return String((e as Error).message).split('\n')[0]!; }
  throw new Error('no error');
}
