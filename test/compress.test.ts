// The chunked boolean selection (runtime/resolve.ts `compressInChunks`,
// routines 'count' and 'compact' in runtime/routines.ts) against NumPy 2's
// np.compress, x[mask], np.nonzero and np.argwhere (test/fixtures/compress.json,
// written by test/fixtures/gen_compress.py): the same bits whatever the
// chunking, with 0, 1 and 2 worker threads and on a simulated mesh, no
// whole-array gather (the report's largest allocation stays within a few
// chunks), and the routines' own checks.
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import * as mt from '../src/api/tensor.js';
import type { TypedArray } from '../src/graph/dtype.js';
import * as G from '../src/graph/node.js';
import { ROUTINES, runRoutine } from '../src/runtime/routines.js';
import { simMesh } from './sim-mesh.js';

type V = number | string | boolean;
interface Case { name: string; dtype: string; shape: number[]; x: V[]; mask: boolean[]; axis: number; out_shape: number[]; out: V[] }
interface NzCase { name: string; dtype: string; shape: number[]; x: V[]; nonzero: V[][]; argwhere: V[]; count: number }
interface UqCase { name: string; dtype: string; x: V[]; values: V[]; index: V[]; inverse: V[]; counts: V[]; values_nan_apart: V[] }
const FIXTURE: { cases: Case[]; nonzero: NzCase[]; unique: UqCase[] } = JSON.parse(readFileSync(new URL('./fixtures/compress.json', import.meta.url), 'utf8'));
afterAll(() => mt.shutdown());

const num = (v: V): number => (v === 'nan' ? NaN : v === 'inf' ? Infinity : v === '-inf' ? -Infinity : Number(v));
const CTOR = {
  float64: Float64Array, float32: Float32Array, int32: Int32Array, int8: Int8Array, uint16: Uint16Array, bool: Uint8Array,
} as const;

/** Fixture values as a typed array of `dtype` (int64 from decimal strings: exact). */
function data(dtype: string, of: V[]): TypedArray {
  if (dtype === 'int64') return BigInt64Array.from(of, (v) => BigInt(v as string));
  return CTOR[dtype as keyof typeof CTOR].from(of, num);
}

/** The bits of a typed array, as unsigned bytes: what "the same bits" compares. */
const bytes = (a: TypedArray): number[] => Array.from(new Uint8Array(a.buffer, a.byteOffset, a.byteLength));

/** A fixture array of any rank as a tensor of that chunking (built from nested lists, so that chunkSize applies to every axis). */
function input(dtype: string, shape: number[], of: V[], chunkSize: number): mt.Tensor {
  const flat = dtype === 'int64' ? of.map((v) => BigInt(v as string)) : dtype === 'bool' ? of.map(Boolean) : of.map(num);
  const nest = (at: number, d: number): unknown => {
    if (d === shape.length) return flat[at];
    const step = shape.slice(d + 1).reduce((a, b) => a * b, 1);
    return Array.from({ length: shape[d]! }, (_, i) => nest(at + i * step, d + 1));
  };
  return mt.tensor(nest(0, 0) as number[], { dtype, chunkSize });
}

/** Routine tasks of the last execution's timeline, and the threads they ran on. */
function routineSpans(): { routine: string; tid: number }[] {
  return (mt.lastReport()?.trace.traceEvents ?? [])
    .filter((e) => e.args && 'routine' in e.args)
    .map((e) => ({ routine: String(e.args!.routine), tid: e.tid }));
}

async function check(c: Case, chunkSize: number): Promise<void> {
  const x = input(c.dtype, c.shape, c.x, chunkSize);
  const m = mt.tensor(c.mask, { chunkSize });
  const y = mt.compress(m, x, { axis: c.axis });
  const got = await y.fetch();
  expect(got.shape, `${c.name} / ${chunkSize}`).toEqual(c.out_shape);
  expect(bytes(got.data as TypedArray), `${c.name} / ${chunkSize}`).toEqual(bytes(data(c.dtype, c.out)));
}

describe('boolean selection in chunks, bit for bit as NumPy', () => {
  for (const workers of [0, 1, 2]) {
    it(`np.compress along every axis with ${workers} worker threads, chunks of 3, 7, 64 and 500`, async () => {
      const old = mt.options.workers;
      mt.options.workers = workers;
      try {
        for (const c of FIXTURE.cases) for (const chunkSize of [3, 7, 64, 500]) await check(c, chunkSize);
      } finally {
        mt.options.workers = old;
      }
    }, 120_000);
  }

  it('x[mask] and x[x > 0] of a 1-d array, the mask a fused expression computed once', async () => {
    const c = FIXTURE.cases[0]!;
    for (const chunkSize of [7, 100]) {
      const x = input(c.dtype, c.shape, c.x, chunkSize);
      const y = await x.get(x.greater(0)).fetch();
      expect(bytes(y.data as TypedArray)).toEqual(bytes(data(c.dtype, c.out)));
      const z = await mt.extract(x.greater(0), x).fetch();
      expect(bytes(z.data as TypedArray)).toEqual(bytes(data(c.dtype, c.out)));
    }
  });

  it('np.nonzero, np.flatnonzero, np.argwhere and np.count_nonzero', async () => {
    for (const c of FIXTURE.nonzero) {
      for (const chunkSize of [4, 50]) {
        const x = input(c.dtype, c.shape, c.x, chunkSize);
        const nz = mt.nonzero(x);
        for (let ax = 0; ax < c.shape.length; ax++) {
          expect(Array.from((await nz[ax]!.fetch()).data as BigInt64Array, String), `${c.name} axis ${ax}`).toEqual(c.nonzero[ax]);
        }
        const aw = await mt.argwhere(x).fetch();
        expect(aw.shape).toEqual([c.count, c.shape.length]);
        expect(Array.from(aw.data as BigInt64Array, String), c.name).toEqual(c.argwhere);
        const flat = await mt.flatnonzero(x).fetch();
        expect(flat.shape).toEqual([c.count]);
      }
    }
  });

  it('np.unique with index, inverse and counts, and equal_nan=False: a chunked sort, then selections', async () => {
    for (const workers of [0, 2]) {
      for (const c of FIXTURE.unique) {
        for (const chunkSize of [5, 64, 400]) {
          const x = input(c.dtype, [c.x.length], c.x, chunkSize);
          const [v, idx, inv, cnt] = mt.unique(x, { return_index: true, return_inverse: true, return_counts: true }) as mt.Tensor[];
          await mt.executeWith({ workers }, v!, idx!, inv!, cnt!);
          const at = `${c.name} / ${chunkSize} / ${workers}`;
          expect(bytes((await v!.fetch()).data as TypedArray), at).toEqual(bytes(data(c.dtype, c.values)));
          for (const [t, want] of [[idx!, c.index], [inv!, c.inverse], [cnt!, c.counts]] as const) {
            expect(Array.from((await t.fetch()).data as BigInt64Array, String), at).toEqual(want);
          }
          const apart = await mt.unique(x, { equal_nan: false }).fetch();
          expect(bytes(apart.data as TypedArray), at).toEqual(bytes(data(c.dtype, c.values_nan_apart)));
        }
      }
    }
  }, 120_000);

  it('runs as routine tasks on the worker threads: a count per segment, a compaction per output chunk, no host selection', async () => {
    const c = FIXTURE.cases[0]!;
    const x = input(c.dtype, c.shape, c.x, 100);
    await mt.compress(mt.tensor(c.mask, { chunkSize: 100 }), x).execute({ workers: 2 });
    const spans = routineSpans();
    expect(spans.filter((s) => s.routine === 'count')).toHaveLength(Math.ceil(c.x.length / 100));
    expect(spans.filter((s) => s.routine === 'compact')).toHaveLength(Math.ceil(c.out.length / 100));
    const host = (mt.lastReport()?.trace.traceEvents ?? []).filter((e) => e.cat === 'host').map((e) => e.name);
    expect(host).toEqual([]);
  });

  it('gathers nothing: over 64 chunks the largest allocation stays within a few chunks', async () => {
    const n = 64 * 4096, chunk = 4096 * 8;
    const x = mt.random.default_rng(7).random([n], { chunkSize: 4096 });
    for (const [name, y] of [
      ['x[x > 0.3]', () => x.get(x.greater(0.3))],
      ['nonzero', () => mt.nonzero(x.greater(0.9))[0]!],
      ['argwhere', () => mt.argwhere(x.greater(0.5))],
      ['unique', () => mt.unique(mt.floor(x.multiply(1000)))],
      ['unique counts', () => (mt.unique(mt.floor(x.multiply(1000)), { return_counts: true }) as mt.Tensor[])[1]!],
    ] as const) {
      await y().execute({ workers: 2 });
      const r = mt.lastReport()!;
      expect(r.largestAllocation, name).toBeGreaterThan(0);
      expect(r.largestAllocation, name).toBeLessThanOrEqual(4 * chunk);
    }
    // a run-time check of every element (a zero fails it) is a fused reduction, not a host scan
    const checked = (t: mt.Tensor) => new mt.Tensor(G.check(t.node, 'nonzero', 'ZeroDivisionError', 'a zero'));
    await checked(x.add(1)).execute({ workers: 2 });
    expect(mt.lastReport()!.largestAllocation).toBeLessThanOrEqual(4 * chunk);
    await expect(checked(x.greater(0.001)).execute()).rejects.toThrow(/a zero/);
    await expect(checked(x.greater(0.001)).execute()).rejects.toHaveProperty('name', 'ZeroDivisionError');
    // the measure sees a gather: the singular values, still computed on the host, read their 64-chunk matrix whole
    await mt.linalg.svdvals(mt.random.default_rng(8).random([512, 512], { chunkSize: 64 })).execute();
    expect(mt.lastReport()!.largestAllocation).toBeGreaterThanOrEqual(512 * 512 * 8);
  });

  it('a selection of one chunk still matches NumPy (the host path)', async () => {
    for (const c of FIXTURE.cases) await check(c, 100_000);
  });
});

describe('the selection routines refuse calls that do not fit them', () => {
  const region = (dtype: 'float64' | 'int64' | 'bool', shape: number[]) => {
    const size = shape.reduce((a, b) => a * b, 1);
    const strides = shape.map((_, i) => shape.slice(i + 1).reduce((a, b) => a * b, 1));
    const d = dtype === 'int64' ? new BigInt64Array(size) : dtype === 'bool' ? new Uint8Array(size) : new Float64Array(size);
    return { dtype, shape, strides, origin: shape.map(() => 0), data: d };
  };
  it('mistyped parameters, a mask that is no bool, regions that do not line up, too little data', () => {
    expect(() => runRoutine('count', {}, [region('float64', [4])], region('int64', [1]))).toThrow(/bool/);
    expect(() => runRoutine('count', {}, [region('bool', [4])], region('int64', [2]))).toThrow(/one int64/);
    expect(() => runRoutine('compact', { axis: 0, skip: -1 }, [region('float64', [4]), region('bool', [4])], region('float64', [2]))).toThrow(/must be a count/);
    expect(() => runRoutine('compact', { axis: 0, skip: 0 }, [region('float64', [4])], region('float64', [2]))).toThrow(/pairs/);
    expect(() => runRoutine('compact', { axis: 0, skip: 0 }, [region('float64', [4]), region('bool', [3])], region('float64', [2]))).toThrow(/mask/);
    expect(() => runRoutine('compact', { axis: 2, skip: 0 }, [region('float64', [4]), region('bool', [4])], region('float64', [2]))).toThrow(/out of bounds/);
    expect(() => runRoutine('compact', { axis: 0, skip: 3 }, [region('float64', [4]), region('bool', [4])], region('float64', [2]))).toThrow(/fewer elements/);
    expect(() => ROUTINES.compact.check({ axis: 1, skip: 0 }, [{ dtype: 'float64', shape: [3, 5] }, { dtype: 'bool', shape: [5] }], { dtype: 'float64', shape: [3, 2] })).not.toThrow();
    expect(() => ROUTINES.compact.check({ axis: 1, skip: 0 }, [{ dtype: 'float64', shape: [4, 5] }, { dtype: 'bool', shape: [5] }], { dtype: 'float64', shape: [3, 2] })).toThrow(/matches the output/);
  });
  it('a compaction keeps the bits of every dtype, skipping the kept elements an earlier chunk took', () => {
    const x = region('int64', [6]), m = region('bool', [6]), out = region('int64', [2]);
    (x.data as BigInt64Array).set([-(2n ** 62n), 1n, 2n ** 61n + 3n, -5n, 7n, 2n ** 63n - 1n]);
    (m.data as Uint8Array).set([1, 0, 1, 1, 0, 1]);
    runRoutine('compact', { axis: 0, skip: 1 }, [x, m], out);
    expect(Array.from(out.data as BigInt64Array)).toEqual([2n ** 61n + 3n, -5n]);
  });
});

describe('on a simulated mesh', () => {
  it("the selection's routine tasks are leased to the mesh workers, which give NumPy's bits", async () => {
    const { workers, reports, session, close } = simMesh(['w0', 'w1']);
    try {
      await new Promise((r) => setTimeout(r, 100));
      for (const c of [FIXTURE.cases[0]!, FIXTURE.cases[8]!]) {
        reports.length = 0;
        const x = input(c.dtype, c.shape, c.x, 16);
        const y = mt.compress(mt.tensor(c.mask, { chunkSize: 16 }), x, { axis: c.axis });
        await mt.executeWith({ session }, y);
        expect(bytes((await y.fetch()).data as TypedArray), c.name).toEqual(bytes(data(c.dtype, c.out)));
        const ran = reports.filter((r) => r.tasks > 0);
        expect(ran.length).toBeGreaterThanOrEqual(2); // the counts, then the compaction
        for (const r of ran) expect(r.commits).toBe(r.tasks + r.recomputed);
      }
      expect(workers.every((w) => w.stats.tasks > 0)).toBe(true);
    } finally {
      close();
    }
  }, 60_000);
});
