// The chunked stable sort (runtime/resolve.ts `sortInChunks`, routines in
// runtime/routines.ts) against NumPy 2's np.sort / np.argsort with
// kind='stable' (test/fixtures/sort.json, written by
// test/fixtures/gen_sort.py): the same bits whatever the chunking, with 0, 1
// and 2 worker threads and on a simulated mesh, whose workers must be the ones
// running the routine tasks. Also the routines' own checks: a call that does
// not fit its routine is refused before it runs.
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import * as mt from '../src/api/tensor.js';
import type { TypedArray } from '../src/graph/dtype.js';
import { ROUTINES, runRoutine } from '../src/runtime/routines.js';
import { simMesh } from './sim-mesh.js';

interface Case { name: string; dtype: string; x: (number | string)[]; sort: (number | string)[]; argsort: number[] }
interface LinesCase extends Case { shape: number[]; axis: number }
const FIXTURE: { cases: Case[]; lines: LinesCase[] } = JSON.parse(readFileSync(new URL('./fixtures/sort.json', import.meta.url), 'utf8'));
afterAll(() => mt.shutdown());

const num = (v: number | string): number => (v === 'nan' ? NaN : v === 'inf' ? Infinity : v === '-inf' ? -Infinity : Number(v));
const CTOR = { float64: Float64Array, float32: Float32Array, int32: Int32Array } as const;

/** A case's input as a typed array of its dtype (int64 from decimal strings: exact). */
function data(c: Case, of: (number | string)[]): TypedArray {
  if (c.dtype === 'int64') return BigInt64Array.from(of, (v) => BigInt(v));
  return (CTOR[c.dtype as keyof typeof CTOR]).from(of, num);
}

/** The bits of a typed array, as unsigned bytes: what "the same bits" compares. */
const bytes = (a: TypedArray): number[] => Array.from(new Uint8Array(a.buffer, a.byteOffset, a.byteLength));

const input = (c: Case, chunkSize: number): mt.Tensor => mt.tensor(data(c, c.x), { chunkSize });

/** Routine tasks of the last execution's timeline, and the threads they ran on. */
function routineSpans(): { routine: string; tid: number }[] {
  return (mt.lastReport()?.trace.traceEvents ?? [])
    .filter((e) => e.args && 'routine' in e.args)
    .map((e) => ({ routine: String(e.args!.routine), tid: e.tid }));
}

describe('1-d sort and stable argsort in chunks, bit for bit as NumPy', () => {
  for (const workers of [0, 1, 2]) {
    it(`with ${workers} worker threads, chunks of 7, 64 and 500 elements`, async () => {
      const old = mt.options.workers;
      mt.options.workers = workers;
      try {
        for (const c of FIXTURE.cases) {
          for (const chunkSize of [7, 64, 500]) {
            const x = input(c, chunkSize);
            const s = (await mt.sort(x).fetch()).data as TypedArray;
            expect(s.constructor.name, `${c.name} / ${chunkSize}`).toBe(data(c, c.sort).constructor.name);
            expect(bytes(s), `sort ${c.name} / ${chunkSize}`).toEqual(bytes(data(c, c.sort)));
            const a = (await mt.argsort(x, { kind: 'stable' }).fetch()).data as BigInt64Array;
            expect(Array.from(a, Number), `argsort ${c.name} / ${chunkSize}`).toEqual(c.argsort);
          }
        }
      } finally {
        mt.options.workers = old;
      }
    }, 120_000);
  }

  it('runs as routine tasks (a local sort, a sample and a rank per run, a merge per output chunk), on the worker threads', async () => {
    const c = FIXTURE.cases[0]!;
    const len = c.x.length;
    await mt.argsort(input(c, 100), { kind: 'stable' }).execute({ workers: 2 });
    const spans = routineSpans();
    const chunks = Math.ceil(len / 100);
    for (const r of ['sort', 'sample', 'rank', 'merge']) expect(spans.filter((s) => s.routine === r), r).toHaveLength(chunks);
    expect(spans.some((s) => s.tid > 0)).toBe(true); // thread 0 is the main thread
    // the host only bracketed the output chunks from the rank table: no host operation sorted the gathered array
    const host = (mt.lastReport()?.trace.traceEvents ?? []).filter((e) => e.cat === 'host').map((e) => e.name);
    expect(host).toEqual(['sort.brackets']);
  });

  it('int8, uint16, uint32 and bool: the order of a stable comparison sort, whatever the chunking', async () => {
    const draw = (i: number) => Math.floor(Math.abs(Math.sin(i * 12.9898) * 43758.5453) % 1 * 600) - 300;
    for (const dtype of ['int8', 'uint16', 'uint32', 'bool'] as const) {
      const values = Array.from({ length: 1000 }, (_, i) => (dtype === 'bool' ? draw(i) > 0 : dtype === 'int8' ? (draw(i) % 128) | 0 : Math.abs(draw(i))));
      const order = values.map((_, i) => i).sort((p, q) => Number(values[p]) - Number(values[q]) || p - q);
      for (const chunkSize of [9, 130]) {
        const x = mt.tensor(values, { dtype, chunkSize });
        const a = (await mt.argsort(x, { kind: 'stable' }).fetch()).data as BigInt64Array;
        expect(Array.from(a, Number), `${dtype} / ${chunkSize}`).toEqual(order);
        const s = (await mt.sort(x).fetch()).data as TypedArray;
        expect(Array.from(s as ArrayLike<number>, Number), `${dtype} / ${chunkSize}`).toEqual(order.map((i) => Number(values[i])));
      }
    }
  });

  it('runs longer than their samples: ties, NaNs and ±0, sorted, reversed and skewed input, int64 extremes, as a stable reference sort', async () => {
    // 30 000 elements in chunks of 1000 (30 runs, 137 samples each) and 333 (46 runs of 666, the last one of 36):
    // the fixtures' runs are shorter than their samples, these are longer, so brackets fall between samples
    const n = 30_000;
    const draw = (i: number) => Math.abs(Math.sin(i * 12.9898) * 43758.5453) % 1;
    const floats: Record<string, number[]> = {
      'all equal': new Array<number>(n).fill(2.5),
      'two values': Array.from({ length: n }, (_, i) => (draw(i) < 0.3 ? -1 : 4)),
      'NaN, -0 and 0': Array.from({ length: n }, (_, i) => [NaN, -0, 0, 1][Math.floor(draw(i) * 4)]!),
      sorted: Array.from({ length: n }, (_, i) => i / 7),
      'reversed with ties': Array.from({ length: n }, (_, i) => Math.floor((n - i) / 50)),
      'small values in one run': Array.from({ length: n }, (_, i) => (i >= 14_000 && i < 15_000 ? -draw(i) : draw(i) + 1)),
    };
    /** NumPy's order of float64s: NaNs last, -0 equal to 0; ties in input order. */
    const reference = (xs: ArrayLike<number>) => Array.from(xs, (_, i) => i).sort((p, q) => {
      const a = xs[p]!, b = xs[q]!;
      if (a !== a || b !== b) return (a !== a ? 1 : 0) - (b !== b ? 1 : 0) || p - q;
      return a < b ? -1 : a > b ? 1 : p - q;
    });
    const wide = Array.from({ length: n }, (_, i) => {
      const d = BigInt(Math.floor(draw(i) * 40));
      return d < 20n ? -(2n ** 63n) + d : 2n ** 63n - 1n - (d - 20n);
    });
    const cases: [string, TypedArray, number[]][] = [
      ...Object.entries(floats).map(([name, v]): [string, TypedArray, number[]] => [name, Float64Array.from(v), reference(v)]),
      ['int64 near the extremes', BigInt64Array.from(wide), wide.map((_, i) => i).sort((p, q) => (wide[p]! < wide[q]! ? -1 : wide[p]! > wide[q]! ? 1 : p - q))],
    ];
    for (const [name, xs, order] of cases) {
      const want = (xs instanceof BigInt64Array ? BigInt64Array : Float64Array).from(order, (i) => xs[i] as never);
      for (const chunkSize of [1000, 333]) {
        const x = mt.tensor(xs, { chunkSize });
        const s = mt.sort(x), a = mt.argsort(x, { kind: 'stable' });
        await mt.executeWith({ workers: 2 }, s, a);
        expect(bytes((await s.fetch()).data as TypedArray), `sort ${name} / ${chunkSize}`).toEqual(bytes(want));
        expect(Array.from((await a.fetch()).data as BigInt64Array, Number), `argsort ${name} / ${chunkSize}`).toEqual(order);
      }
    }
  }, 120_000);

  it('a sort of one chunk still matches NumPy (the host path)', async () => {
    const c = FIXTURE.cases[0]!;
    const one = (await mt.sort(input(c, 100_000)).fetch()).data as TypedArray;
    expect(bytes(one)).toEqual(bytes(data(c, c.sort)));
  });
});

describe('n-d sort and stable argsort along an axis, line by line in routine tasks', () => {
  /** A fixture array of any rank as a tensor of that chunking (nested lists, so that chunkSize applies to every axis). */
  function nd(c: LinesCase, chunkSize: number): mt.Tensor {
    const flat = c.dtype === 'int64' ? c.x.map((v) => BigInt(v)) : c.x.map(num);
    const nest = (at: number, d: number): unknown => {
      if (d === c.shape.length) return flat[at];
      const step = c.shape.slice(d + 1).reduce((a, b) => a * b, 1);
      return Array.from({ length: c.shape[d]! }, (_, i) => nest(at + i * step, d + 1));
    };
    return mt.tensor(nest(0, 0) as number[], { dtype: c.dtype, chunkSize });
  }
  for (const workers of [0, 2]) {
    it(`every axis with ${workers} worker threads, chunks of 3, 16 and 400 elements a side: NumPy's bits`, async () => {
      for (const c of FIXTURE.lines) {
        for (const chunkSize of [3, 16, 400]) {
          const x = nd(c, chunkSize);
          const s = mt.sort(x, c.axis), a = mt.argsort(x, { axis: c.axis, kind: 'stable' });
          await mt.executeWith({ workers }, s, a);
          expect(bytes((await s.fetch()).data as TypedArray), `sort ${c.name} / ${chunkSize}`).toEqual(bytes(data(c, c.sort)));
          expect(Array.from((await a.fetch()).data as BigInt64Array, Number), `argsort ${c.name} / ${chunkSize}`).toEqual(c.argsort);
        }
      }
    }, 120_000);
  }

  it('runs as routine tasks, no host sort, within a few chunks of memory', async () => {
    const x = mt.random.default_rng(3).random([64, 4096], { chunkSize: [8, 512] });
    await x.execute();
    for (const axis of [0, 1]) {
      await mt.sort(x, axis).execute({ workers: 2 });
      const r = mt.lastReport()!;
      expect(routineSpans().filter((s) => s.routine === 'lines').length).toBeGreaterThan(1);
      expect(r.trace.traceEvents.filter((e) => e.cat === 'host')).toEqual([]);
      expect(r.largestAllocation).toBeLessThanOrEqual(4 * 8 * 512 * 8);
    }
  });
});

describe('the routines refuse calls that do not fit them', () => {
  const region = (dtype: 'float64' | 'int64', shape: number[]) => ({ dtype, shape, strides: shape.map((_, i) => shape.slice(i + 1).reduce((a, b) => a * b, 1)), origin: shape.map(() => 0), data: dtype === 'int64' ? new BigInt64Array(shape.reduce((a, b) => a * b, 1)) : new Float64Array(shape.reduce((a, b) => a * b, 1)) });
  it('an unknown routine, an unknown or mistyped parameter, regions of the wrong dtype or extent', () => {
    expect(() => runRoutine('rm -rf', {}, [], region('float64', [1]))).toThrow(/no routine named/);
    expect(() => runRoutine('sort', { indices: 1 }, [region('float64', [4])], region('float64', [4]))).toThrow(/must be a boolean/);
    expect(() => runRoutine('sort', { indices: false, evil: true }, [region('float64', [4])], region('float64', [4]))).toThrow(/unknown routine parameter/);
    expect(() => runRoutine('sort', { indices: false }, [region('float64', [4])], region('float64', [5]))).toThrow(/extent/);
    expect(() => runRoutine('sort', { indices: true }, [region('float64', [4])], region('int64', [4]))).toThrow(/int64 \[2, n\]/);
    expect(() => ROUTINES.merge.check({ indices: false }, [{ dtype: 'float64', shape: [3] }, { dtype: 'float64', shape: [2] }], { dtype: 'float64', shape: [6] })).toThrow(/leaves 5 of its slices' 5 elements/);
    expect(() => ROUTINES.merge.check({ indices: false }, [{ dtype: 'float64', shape: [3] }, { dtype: 'float64', shape: [2] }], { dtype: 'float64', shape: [5] })).not.toThrow();
    // the sample brackets' routines: a merge told to skip past its slices, a rank of a run that is not there or not whole
    const slices = [{ dtype: 'float64' as const, shape: [3] }, { dtype: 'float64' as const, shape: [2] }];
    expect(() => ROUTINES.merge.check({ indices: false, skip: 2 }, slices, { dtype: 'float64', shape: [3] })).not.toThrow();
    expect(() => ROUTINES.merge.check({ indices: false, skip: 3 }, slices, { dtype: 'float64', shape: [3] })).toThrow(/skip 3 leaves 2/);
    expect(() => ROUTINES.merge.check({ indices: false, skip: -1 }, slices, { dtype: 'float64', shape: [3] })).toThrow(/skip must be a count/);
    const rank = { indices: false, run: 1, count: 4, runLength: 5, length: 8 };
    const rankCheck = (params: object, run: number[], samples = [8]) => () =>
      ROUTINES.rank.check(params as never, [{ dtype: 'float64', shape: run }, { dtype: 'float64', shape: samples }], { dtype: 'int32', shape: [1, 8] });
    expect(rankCheck(rank, [3])).not.toThrow();
    expect(rankCheck({ ...rank, run: 2 }, [3])).toThrow(/run of rank is 2, past the 2 runs/);
    expect(rankCheck({ ...rank, run: 0.5 }, [3])).toThrow(/run must be a count/);
    expect(rankCheck(rank, [5])).toThrow(/rank reads run 1 whole first \(3 elements/);
    expect(rankCheck(rank, [3], [6])).toThrow(/8 samples/);
    expect(rankCheck({ ...rank, count: 0 }, [3])).toThrow(/at least 1/);
    const sample = { indices: false, count: 4, run: 1, runs: 2 };
    expect(() => ROUTINES.sample.check(sample, [{ dtype: 'float64', shape: [3] }], { dtype: 'float32', shape: [4] })).toThrow(/sample writes 4 keys/);
    expect(() => ROUTINES.sample.check({ ...sample, run: 2 }, [{ dtype: 'float64', shape: [3] }], { dtype: 'float64', shape: [4] })).toThrow(/run of sample must be below runs/);
    expect(() => ROUTINES.sample.check(sample, [{ dtype: 'float64', shape: [3] }], { dtype: 'float64', shape: [4] })).not.toThrow();
    expect(() => ROUTINES.lines.check({ axis: 2, indices: false }, [{ dtype: 'float64', shape: [3, 4] }], { dtype: 'float64', shape: [3, 4] })).toThrow(/axis/);
    expect(() => ROUTINES.lines.check({ axis: 1, indices: true }, [{ dtype: 'float64', shape: [3, 4] }], { dtype: 'float64', shape: [3, 4] })).toThrow(/int64/);
    expect(() => ROUTINES.lines.check({ axis: 1, indices: false }, [{ dtype: 'float64', shape: [3, 4] }], { dtype: 'float64', shape: [3, 4] })).not.toThrow();
  });
});

describe('on a simulated mesh', () => {
  const mesh = simMesh;

  async function sortOn(m: ReturnType<typeof mesh>, c: Case, chunkSize: number): Promise<void> {
    const x = input(c, chunkSize);
    const s = mt.sort(x), a = mt.argsort(x, { kind: 'stable' });
    await mt.executeWith({ session: m.session }, s, a);
    expect(bytes((await s.fetch()).data as TypedArray), `sort ${c.name}`).toEqual(bytes(data(c, c.sort)));
    expect(Array.from((await a.fetch()).data as BigInt64Array, Number), `argsort ${c.name}`).toEqual(c.argsort);
  }

  it("the sort's routine tasks are leased to the mesh workers, which give the same bits", async () => {
    const m = mesh(['w0', 'w1']);
    try {
      await new Promise((r) => setTimeout(r, 100)); // announcements arrive
      for (const c of [FIXTURE.cases[0]!, FIXTURE.cases.find((k) => k.dtype === 'int64')!]) {
        m.reports.length = 0;
        await sortOn(m, c, 64);
        // for each of sort and argsort: the local sorts, samples and ranks, the ranks' column sums (a partial per run and
        // their combine) and the bracketing samples' columns, which the host reads, then the merges; every task leased to a worker
        const chunks = Math.ceil(c.x.length / 64);
        const sortJobs = [chunks, chunks, chunks, chunks + 1, chunks, chunks];
        expect(m.reports.map((r) => r.tasks).filter((t) => t > 0)).toEqual([...sortJobs, ...sortJobs]);
        for (const r of m.reports) {
          expect(r.leases).toBeGreaterThanOrEqual(r.tasks);
          expect(r.commits).toBe(r.tasks + r.recomputed);
        }
      }
      expect(m.workers.every((w) => w.stats.tasks > 0)).toBe(true);
    } finally {
      m.close();
    }
  }, 60_000);

  it("'strict' verification re-runs the routine tasks on other peers: a worker lying on every result is caught, the bits are NumPy's", async () => {
    const m = mesh(['liar', 'w1', 'w2'], { verify: 'strict', lie: { liar: 1 } });
    try {
      await new Promise((r) => setTimeout(r, 100));
      await sortOn(m, FIXTURE.cases[0]!, 64);
      const ran = m.reports.filter((r) => r.tasks > 0);
      expect(ran.every((r) => r.checks === r.commits)).toBe(true);
      expect(ran.some((r) => r.quarantined.includes('liar'))).toBe(true);
    } finally {
      m.close();
    }
  }, 60_000);

  it('a worker killed mid-stage: its lease lapses and the routine task runs again elsewhere; the bits are NumPy\'s', async () => {
    const m = mesh(['w0', 'w1', 'w2'], { seed: 8, killAfterTask: 'w0' });
    try {
      await new Promise((r) => setTimeout(r, 100));
      await sortOn(m, FIXTURE.cases[4]!, 64);
      const ran = m.reports.filter((r) => r.tasks > 0);
      expect(ran.reduce((a, r) => a + r.releases + r.recomputed, 0)).toBeGreaterThan(0);
      for (const r of ran) expect(r.commits).toBe(r.tasks + r.recomputed);
    } finally {
      m.close();
    }
  }, 60_000);
});
