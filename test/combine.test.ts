// A reduction split into more partials than the combine fan-in
// (mt.options.combineFanIn, tile.ts FAN_IN) folds them in a tree of levels:
// exact identities for integer sums, extrema and boolean reductions, float
// results within rounding of a one-level combine and the same bits on the
// simulated mesh as here, arg-reductions in one level, and a reduction of
// more partials than a task message may name (4096 pieces) on the mesh.

import { afterAll, afterEach, describe, expect, it } from 'vitest';
import * as mt from '../src/api/tensor.js';
import type { TypedArray } from '../src/graph/dtype.js';
import { simMesh } from './sim-mesh.js';

afterAll(() => mt.shutdown());
afterEach(() => { mt.options.combineFanIn = 64; });

const value = async (t: mt.Tensor): Promise<number> => Number((await t.fetch()).item());

describe('a tree of combines', () => {
  it('folds 1000 partials in levels of 64 (1000 -> 16 -> 1): exact integer sums, extrema and booleans', async () => {
    const n = 8000;
    const x = () => mt.arange(0, n, 1, { dtype: 'int64', chunkSize: 8 });
    expect(await value(x().sum())).toBe((n * (n - 1)) / 2);
    // the partial tasks, 16 folds of up to 64 rows, one combine
    expect(mt.lastReport()!.tasks).toBe(1000 + 16 + 1);
    expect(await value(x().max())).toBe(n - 1);
    expect(await value(x().min())).toBe(0);
    expect(await value(mt.any(x().equal(n - 1)))).toBe(1);
    expect(await value(mt.all(x().less(n)))).toBe(1);
    expect(await value(mt.all(x().less(n - 1)))).toBe(0);
    // an arg-reduction's partials combine in one level
    expect(await value(mt.argmax(x().mod(997)))).toBe(996);
    expect(mt.lastReport()!.tasks).toBe(1000 + 1);
  });

  it('a mean along an axis and a float sum: within rounding of a one-level combine, and of the closed form', async () => {
    // 100 chunks along the reduced axis
    const m = mt.tensor(Array.from({ length: 300 }, (_, i) => Array.from({ length: 40 }, (_, j) => i * 40 + j)), { chunkSize: [3, 40] });
    const mean = Array.from((await m.mean({ axis: 0 }).fetch()).data as Float64Array);
    expect(mean).toEqual(Array.from({ length: 40 }, (_, j) => 149.5 * 40 + j));
    const f = () => mt.sin(mt.arange(0, 20_000, 1, { chunkSize: 16 })).sum();
    const tree = await value(f());
    mt.options.combineFanIn = 4096;
    const flat = await value(f());
    expect(Math.abs(tree - flat)).toBeLessThan(1e-9);
  });

  it('refuses a fan-in under 2', () => {
    expect(() => { mt.options.combineFanIn = 1; }).toThrow(/combineFanIn must be an integer of at least 2, got 1/);
    expect(() => { mt.options.combineFanIn = 2.5; }).toThrow(/at least 2/);
  });

  it('on the simulated mesh: the bits of the local run, over 5000 partials (more pieces than one task message may name)', async () => {
    const f = () => mt.cos(mt.arange(0, 40_000, 1, { chunkSize: 8 })).sum();
    const want = (await f().fetch()).data as TypedArray;
    const { session, reports, close } = simMesh(['w0', 'w1', 'w2']);
    try {
      await new Promise((r) => setTimeout(r, 100));
      const y = f();
      await mt.executeWith({ session }, y);
      expect((await y.fetch()).data).toEqual(want);
      // 5000 partials, 79 folds, 2 more, the combine
      expect(reports.at(-1)!.tasks).toBe(5000 + 79 + 2 + 1);
      // in one level, the combine would read 5000 pieces: a task message no worker accepts fails the job, saying so
      mt.options.combineFanIn = 100_000;
      await expect(mt.executeWith({ session }, f())).rejects.toThrow(/task 5000 cannot be sent to a worker: a task message that does not fit its schema: field reads.0.pieces/);
    } finally {
      close();
    }
  }, 120_000);
});
