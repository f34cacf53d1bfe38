// ufunc.at (add, minimum, maximum, other ufuncs), bincount, histogram,
// searchsorted and digitize over inputs of several chunks (runtime/resolve.ts
// `scatterInChunks`, `routedInChunks`, `searchInChunks`;
// routines in runtime/scatter.ts) against NumPy 2 (test/fixtures/scatter.json,
// written by test/fixtures/gen_scatter.py): exact results the same bits
// whatever the chunking, with 0, 1 and 2 worker threads and on a simulated
// mesh, whose workers must be the ones running the routine tasks; float sums
// too (routed by position, each position's values added in index order).
// Also the routines' own checks, and an index outside its axis.
import { readFileSync } from 'node:fs';
import * as fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { Tensor } from '../src/api/core.js';
import * as mt from '../src/api/tensor.js';
import * as G from '../src/graph/node.js';
import type { TypedArray } from '../src/graph/dtype.js';
import { ROUTINES, runRoutine } from '../src/runtime/routines.js';
import { simMesh } from './sim-mesh.js';

interface Arr { dtype: string; data: (number | string | boolean)[] }
interface Case {
  kind: 'bincount' | 'at' | 'histogram' | 'searchsorted' | 'digitize';
  name: string;
  args: Record<string, Arr>;
  opts: Record<string, unknown>;
  out: Arr | Arr[];
}
const RAW: { inputs: Record<string, Arr>; cases: (Omit<Case, 'args'> & { args: Record<string, string> })[] } =
  JSON.parse(readFileSync(new URL('./fixtures/scatter.json', import.meta.url), 'utf8'));
/** The cases, their arguments looked up among the fixture's inputs (each stored once). */
const FIXTURE: { cases: Case[] } = {
  cases: RAW.cases.map((c) => ({ ...c, args: Object.fromEntries(Object.entries(c.args).map(([k, r]) => [k, RAW.inputs[r]!])) })),
};
afterAll(() => mt.shutdown());

const num = (v: number | string | boolean): number => (v === 'nan' ? NaN : v === 'inf' ? Infinity : v === '-inf' ? -Infinity : Number(v));
const CTOR = { float64: Float64Array, float32: Float32Array, int32: Int32Array, uint16: Uint16Array } as const;

/** A fixture array as a typed array of its dtype (int64 past 2**53 from decimal strings: exact). */
function data(a: Arr): TypedArray | boolean[] {
  if (a.dtype === 'int64') return BigInt64Array.from(a.data, (v) => BigInt(v as string | number));
  if (a.dtype === 'bool') return a.data as boolean[];
  const ctor: { from(xs: ArrayLike<number>): TypedArray } = CTOR[a.dtype as keyof typeof CTOR];
  return ctor.from(a.data.map(num));
}

/** The bits of a typed array, as unsigned bytes: what "the same bits" compares. */
const bytes = (a: TypedArray): number[] => Array.from(new Uint8Array(a.buffer, a.byteOffset, a.byteLength));

const input = (a: Arr, chunkSize: number): mt.Tensor => mt.tensor(data(a) as TypedArray, { dtype: a.dtype as 'float64', chunkSize });

/** A case's results, its inputs chunked by `chunkSize`. */
function build(c: Case, chunkSize: number): mt.Tensor[] {
  const t = (k: string) => input(c.args[k]!, chunkSize);
  const o = c.opts;
  switch (c.kind) {
    case 'bincount': return [mt.bincount(t('x'), { ...(c.args.weights ? { weights: t('weights') } : {}), ...(o.minlength ? { minlength: o.minlength } : {}) })];
    case 'at': return [t('base').at(t('index')).apply(o.op as 'add', t('values'))];
    case 'histogram': {
      const bins = c.args.bins ? t('bins') : (o.bins as number);
      return mt.histogram(t('a'), { bins, ...(o.range ? { range: o.range } : {}), ...(c.args.weights ? { weights: t('weights') } : {}) });
    }
    case 'searchsorted': return [mt.searchsorted(t('a'), t('v'), { side: o.side })];
    case 'digitize': return [mt.digitize(t('x'), t('bins'), { right: o.right })];
    default: return c.kind satisfies never;
  }
}

/** Whether a result is a float sum (a weighted bincount or histogram, add.at on floats): routed by position, not folded in groups. */
const isFloatSum = (c: Case): boolean => (c.kind === 'bincount' || c.kind === 'histogram'
  ? 'weights' in c.args
  : c.kind === 'at' && c.opts.op === 'add' && c.args.values!.dtype.startsWith('float'));

function expectNumpy(c: Case, got: TypedArray, want: Arr, what: string): void {
  const w = data(want) as TypedArray;
  expect(got.length, what).toBe(w.length);
  // float sums too: each position's values are added in index order, as NumPy's unbuffered loop adds them
  expect(bytes(got), what).toEqual(bytes(w));
}

/** Routine tasks of the last execution's timeline, and the threads they ran on. */
function routineSpans(): { routine: string; tid: number }[] {
  return (mt.lastReport()?.trace.traceEvents ?? [])
    .filter((e) => e.args && 'routine' in e.args)
    .map((e) => ({ routine: String(e.args!.routine), tid: e.tid }));
}

async function results(c: Case, chunkSize: number): Promise<TypedArray[]> {
  const ts = build(c, chunkSize);
  return Promise.all(ts.map(async (t) => (await t.fetch()).data as TypedArray));
}

describe('bincount, ufunc.at, histogram, searchsorted and digitize in chunks, as NumPy', () => {
  for (const workers of [0, 1, 2]) {
    it(`with ${workers} worker threads, chunks of 7, 64 and 500 elements`, async () => {
      const old = mt.options.workers;
      mt.options.workers = workers;
      try {
        for (const c of FIXTURE.cases) {
          const wants = Array.isArray(c.out) ? c.out : [c.out];
          let first: number[][] | undefined;
          for (const chunkSize of [7, 64, 500]) {
            const got = await results(c, chunkSize);
            got.forEach((g, i) => expectNumpy(c, g, wants[i]!, `${c.kind} ${c.name} / ${chunkSize} / output ${i}`));
            // the same bits whatever the chunking, float sums too
            const b = got.map(bytes);
            if (first) expect(b, `${c.kind} ${c.name} / ${chunkSize}: the bits of chunks of 7`).toEqual(first);
            first ??= b;
          }
        }
      } finally {
        mt.options.workers = old;
      }
    }, 300_000);
  }

  it('runs as routine tasks on the worker threads, with no host operation over gathered arrays', async () => {
    const host = () => (mt.lastReport()?.trace.traceEvents ?? []).filter((e) => e.cat === 'host').map((e) => e.name);
    // an integer fold: partial rows, then a combine per piece of the output (chunks of 5000: four pieces)
    const n = 60_000, size = 20_000;
    const idx = mt.tensor(BigInt64Array.from({ length: n }, (_, i) => BigInt((i * 7919) % size)), { chunkSize: 5000 });
    const base = (dtype: 'int64' | 'float64') => mt.zeros([size], { dtype, chunkSize: 5000 });
    await base('int64').at(idx).add(mt.ones([n], { dtype: 'int64', chunkSize: 5000 })).execute({ workers: 2 });
    let spans = routineSpans();
    expect(spans.filter((s) => s.routine === 'scatter.partial').length).toBeGreaterThan(1);
    expect(spans.filter((s) => s.routine === 'scatter.combine')).toHaveLength(4);
    expect(spans.some((s) => s.tid > 0)).toBe(true); // thread 0 is the main thread
    expect(host()).not.toContain('scatter');
    // a float sum: routed by position, then applied per piece; the host reads only the counts
    await base('float64').at(idx).add(mt.ones([n], { chunkSize: 5000 })).execute({ workers: 2 });
    spans = routineSpans();
    expect(spans.filter((s) => s.routine === 'scatter.route').length).toBeGreaterThan(1);
    expect(spans.filter((s) => s.routine === 'scatter.apply')).toHaveLength(4);
    expect(host()).toEqual(['scatter.counts']);
    // a search: one task per piece of keys (small chunks read several at once)
    const s = FIXTURE.cases.find((k) => k.kind === 'searchsorted')!;
    await build(s, 100)[0]!.execute({ workers: 2 });
    spans = routineSpans();
    expect(spans.filter((x) => x.routine === 'search')).toHaveLength(Math.ceil(s.args.v!.data.length / 4000));
    expect(host()).not.toContain('search');
  });

  it('every kind takes its routines: folds (float sums, other ufuncs routed) for bincount, ufunc.at, histograms; else the search', async () => {
    const want: Record<string, string> = { bincount: 'scatter.partial', at: 'scatter.partial', searchsorted: 'search', digitize: 'search' };
    for (const c of FIXTURE.cases) {
      await mt.executeWith({ workers: 1 }, ...build(c, 64));
      const ran = new Set(routineSpans().map((s) => s.routine));
      const routed = isFloatSum(c) || (c.kind === 'at' && !['add', 'minimum', 'maximum'].includes(c.opts.op as string));
      const fold = routed ? 'scatter.apply' : 'scatter.partial';
      const expected = c.kind === 'histogram' ? (c.args.bins ? 'search' : fold) : c.kind === 'bincount' || c.kind === 'at' ? fold : want[c.kind]!;
      expect([...ran], `${c.kind} ${c.name}`).toContain(expected);
    }
  });

  it('a long chunk of keys is searched in pieces, one task each, and the positions are the same', async () => {
    const a = Float64Array.from({ length: 3000 }, (_, i) => Math.floor(i / 3));
    const keys = Float64Array.from({ length: 200_000 }, (_, i) => ((i * 7919) % 1200) - 100 + (i % 2) / 2);
    const r = mt.searchsorted(mt.tensor(a, { chunkSize: 1000 }), mt.tensor(keys, { chunkSize: 200_000 }), { side: 'right' });
    await r.execute({ workers: 2 });
    expect(routineSpans().filter((x) => x.routine === 'search')).toHaveLength(4);
    const got = (await r.fetch()).data as BigInt64Array;
    const want = (k: number): number => Math.max(0, Math.min(3000, 3 * (Math.floor(k) + 1)));
    for (let i = 0; i < keys.length; i += 997) expect(Number(got[i]), `key ${keys[i]}`).toBe(want(keys[i]!));
  });

  it('keys of two dimensions are searched flat, in chunks, and come back in their shape', async () => {
    const a = mt.tensor(Float64Array.from({ length: 3000 }, (_, i) => Math.floor(i / 2) / 2), { chunkSize: 700 });
    const flat = Float64Array.from({ length: 8000 }, (_, i) => ((i * 7919) % 1700) / 2 - 10);
    const keys = mt.tensor(flat, { chunkSize: 900 }).reshape([400, 20]);
    const r = mt.searchsorted(a, keys, { side: 'right' });
    await r.execute({ workers: 1 });
    expect(routineSpans().some((x) => x.routine === 'search')).toBe(true);
    const got = await r.fetch();
    expect(got.shape).toEqual([400, 20]);
    const want = (await mt.searchsorted(a, mt.tensor(flat, { chunkSize: 8000 }), { side: 'right' }).fetch()).data as BigInt64Array;
    expect(Array.from(got.data as BigInt64Array, Number)).toEqual(Array.from(want, Number));
  });

  it('an index outside the axis is a RangeError naming it and the size, on the threads too', async () => {
    for (const workers of [0, 2]) {
      // the scatter node itself (x.at(i) gathers its positions through an index of its own first)
      const x = mt.zeros([50], { dtype: 'int64', chunkSize: 8 });
      const idx = mt.tensor(BigInt64Array.from({ length: 40 }, (_, i) => BigInt(i === 33 ? 70 : i)), { chunkSize: 8 });
      const v = mt.ones([40], { dtype: 'int64', chunkSize: 8 });
      const r = new Tensor(G.scatter('add', x.node, idx.node, v.node, 'int64'));
      await expect(r.execute({ workers })).rejects.toThrow(RangeError);
      await expect(new Tensor(G.scatter('add', x.node, idx.node, v.node, 'int64')).execute({ workers }))
        .rejects.toThrow(/index 70 is out of bounds for axis 0 with size 50/);
      // a bad index in each of 16 groups, which the threads take too: a thread's RangeError stays one (runtime/pool.ts errorOf)
      const many = mt.tensor(BigInt64Array.from({ length: 8000 }, (_, i) => BigInt(i % 500 === 333 ? -1 : i % 50)), { chunkSize: 1000 });
      const ones = mt.ones([8000], { dtype: 'int64', chunkSize: 1000 });
      await expect(new Tensor(G.scatter('add', x.node, many.node, ones.node, 'int64')).execute({ workers })).rejects.toThrow(RangeError);
      const w = mt.ones([8000], { chunkSize: 1000 });
      const routed = new Tensor(G.scatter('add', mt.zeros([50], { chunkSize: 8 }).node, many.node, w.node, 'float64'));
      await expect(routed.execute({ workers })).rejects.toThrow(/index -1 is out of bounds for axis 0 with size 50/);
    }
  });

  it('index, values and base on different chunk grids: the fold cuts its slices at both grids, the same bits as one chunk', async () => {
    const n = 3000, size = 400;
    const idx = BigInt64Array.from({ length: n }, (_, i) => BigInt((i * 7919) % size));
    const vals = Float64Array.from({ length: n }, (_, i) => Math.sin(i) * 1e3);
    const base = Float64Array.from({ length: size }, (_, i) => i / 3);
    const fold = async (ci: number, cv: number, cb: number, op: 'add' | 'maximum'): Promise<number[]> => {
      const r = mt.tensor(base, { chunkSize: cb }).at(mt.tensor(idx, { chunkSize: ci })).apply(op, mt.tensor(vals, { chunkSize: cv }));
      return bytes((await r.fetch()).data as TypedArray);
    };
    for (const op of ['add', 'maximum'] as const) {
      const one = await fold(n, n, size, op);
      // a float sum of several groups groups the same way from one chunk: every chunking gives the same bits
      expect(await fold(7, 11, 5, op), op).toEqual(one);
      expect(await fold(64, 500, 33, op), op).toEqual(await fold(7, 11, 5, op));
    }
  });

  it('long rows: sums into 200,000 places (int64 past 2**31 and int32 bucket by bucket), NumPy\'s bits whatever the chunks', async () => {
    const n = 40_000, size = 200_000;
    const idx = BigInt64Array.from({ length: n }, (_, i) => BigInt((i * 104_729) % size));
    const w = Float64Array.from({ length: n }, (_, i) => Math.cos(i) * 10 ** (i % 7));
    const big = BigInt64Array.from({ length: n }, (_, i) => BigInt(1_000_000 + i));
    const small = Int32Array.from({ length: n }, (_, i) => (i * 1_234_567) | 0);
    // NumPy's loop: each value added to its place in index order (int32 wrapping)
    const want = new BigInt64Array(size), wantF = new Float64Array(size), want32 = new Int32Array(size);
    for (let i = 0; i < n; i++) {
      const j = Number(idx[i]);
      want[j]! += big[i]!; wantF[j]! += w[i]!; want32[j]! += small[i]!;
    }
    // (as Buffers: a deep comparison of arrays of 1.6 million bytes takes seconds)
    const raw = (a: TypedArray): Buffer => Buffer.from(a.buffer, a.byteOffset, a.byteLength);
    for (const chunkSize of [n, 5000, 777]) {
      const at = async (v: TypedArray, dtype: 'int64' | 'float64' | 'int32'): Promise<Buffer> => {
        const r = mt.zeros([size], { dtype, chunkSize }).at(mt.tensor(idx, { chunkSize })).add(mt.tensor(v, { dtype, chunkSize }));
        return raw((await r.fetch()).data as TypedArray);
      };
      expect((await at(big, 'int64')).equals(raw(want)), `int64 / ${chunkSize}`).toBe(true);
      expect((await at(small, 'int32')).equals(raw(want32)), `int32 / ${chunkSize}`).toBe(true);
      expect((await at(w, 'float64')).equals(raw(wantF)), `float64 / ${chunkSize}`).toBe(true);
    }
  });

  it('property: any chunking of base, index and values gives the bits of the one-chunk host path, for every kind of update', async () => {
    const ops = [
      ['add', 'int64'], ['add', 'int32'], ['add', 'float64'], ['add', 'float32'], ['maximum', 'float64'], ['minimum', 'int64'],
      ['multiply', 'float64'], ['subtract', 'int32'], ['divide', 'float32'], ['maximum', 'int32'], ['minimum', 'float32'],
      ['subtract', 'int64'], ['multiply', 'int64'], ['maximum', 'int64'],
    ] as const;
    // (x.at(index) gathers its positions through an index of its own chunking: how many runs went to the routines is counted)
    let inChunks = 0;
    await fc.assert(fc.asyncProperty(
      fc.integer({ min: 1, max: 900 }), fc.integer({ min: 1, max: 120 }), fc.constantFrom(...ops),
      fc.tuple(fc.integer({ min: 1, max: 300 }), fc.integer({ min: 1, max: 300 }), fc.integer({ min: 1, max: 300 })),
      fc.integer({ min: 0, max: 2 ** 31 - 1 }),
      async (n, size, [op, dtype], [ci, cv, cb], seed) => {
        // a cheap generator: the same values whichever way they are chunked
        let st = seed;
        const next = (): number => { st = (Math.imul(st, 1103515245) + 12345) >>> 0; return st / 2 ** 32; };
        const idx = BigInt64Array.from({ length: n }, () => BigInt(Math.floor(next() * size)));
        const draw = (): number => (dtype.startsWith('float') ? (next() - 0.5) * 10 ** Math.floor(next() * 6) : Math.floor((next() - 0.5) * 2 ** 31));
        const factor = (): number => (dtype.startsWith('float') ? 1 + (next() - 0.5) / 8 : Math.floor(next() * 5) - 2);
        const vals = Array.from({ length: n }, () => (op === 'multiply' || op === 'divide' ? factor() : draw()));
        const base = Array.from({ length: size }, draw);
        const run = async (c: readonly [number, number, number]): Promise<number[]> => {
          const v = dtype === 'int64' ? BigInt64Array.from(vals, (x) => BigInt(x)) : vals;
          const b = dtype === 'int64' ? BigInt64Array.from(base, (x) => BigInt(x)) : base;
          const r = mt.tensor(b, { dtype, chunkSize: c[2] }).at(mt.tensor(idx, { chunkSize: c[0] })).apply(op, mt.tensor(v, { dtype, chunkSize: c[1] }));
          return bytes((await r.fetch()).data as TypedArray);
        };
        const got = await run([ci, cv, cb]);
        if (routineSpans().some((x) => x.routine.startsWith('scatter.'))) inChunks++;
        expect(got, `${op} ${dtype} n=${n} size=${size} chunks ${ci}/${cv}/${cb}`).toEqual(await run([n, n, size]));
      },
    ), { numRuns: 60, seed: 31 });
    expect(inChunks).toBeGreaterThan(40);
  }, 120_000);

  it('property: any chunking of the sorted array and the keys gives the host path\'s positions (ties, NaNs, int64 near 2**62)', async () => {
    await fc.assert(fc.asyncProperty(
      // (more than 2**22 pairs: fewer are counted by a comparison kernel, not searched)
      fc.integer({ min: 3000, max: 5000 }), fc.integer({ min: 1500, max: 2000 }), fc.constantFrom('float64', 'float32', 'int64', 'int32'),
      fc.constantFrom('left', 'right'), fc.integer({ min: 1, max: 200 }), fc.integer({ min: 1, max: 200 }), fc.integer({ min: 0, max: 2 ** 31 - 1 }),
      async (len, m, dtype, side, ca, ck, seed) => {
        let st = seed;
        const next = (): number => { st = (Math.imul(st, 1103515245) + 12345) >>> 0; return st / 2 ** 32; };
        // few distinct values (ties), NaNs last for floats, int64 spread over ±2**62 (beyond float64's integers)
        const value = (): number | bigint => {
          const u = Math.floor(next() * 40) - 20;
          if (dtype === 'int64') return BigInt(u) * 2n ** 57n + BigInt(Math.floor(next() * 3));
          return dtype.startsWith('float') && next() < 0.05 ? NaN : u / 2;
        };
        const order = (p: number | bigint, q: number | bigint): number => (p !== p ? (q !== q ? 0 : 1) : q !== q ? -1 : p < q ? -1 : p > q ? 1 : 0);
        const a = Array.from({ length: len }, value).sort(order), keys = Array.from({ length: m }, value);
        const t = (xs: (number | bigint)[], chunkSize: number) => (dtype === 'int64'
          ? mt.tensor(BigInt64Array.from(xs as bigint[]), { chunkSize })
          : mt.tensor(xs as number[], { dtype, chunkSize }));
        const run = async (c1: number, c2: number): Promise<number[]> =>
          Array.from((await mt.searchsorted(t(a, c1), t(keys, c2), { side }).fetch()).data as BigInt64Array, Number);
        const got = await run(ca, ck);
        expect(routineSpans().some((x) => x.routine === 'search')).toBe(true);
        expect(got, `${dtype} ${side} len=${len} m=${m} chunks ${ca}/${ck}`).toEqual(await run(len, m));
        expect(routineSpans().some((x) => x.routine === 'search')).toBe(false); // the one-chunk run: the host path
      },
    ), { numRuns: 30, seed: 31 });
  }, 120_000);

  it('few values into a long array are routed (no row of its length), maxima with NaNs too', async () => {
    const size = 1_000_000, n = 3000;
    const idx = BigInt64Array.from({ length: n }, (_, i) => BigInt((i * 7_919_977) % size));
    const vals = Float64Array.from({ length: n }, (_, i) => (i % 97 === 5 ? NaN : Math.sin(i) * 100));
    const r = mt.zeros([size], { chunkSize: 100_000 }).at(mt.tensor(idx, { chunkSize: 1000 })).maximum(mt.tensor(vals, { chunkSize: 1000 }));
    await r.execute({ workers: 1 });
    const ran = new Set(routineSpans().map((x) => x.routine));
    expect(ran.has('scatter.apply') && !ran.has('scatter.partial')).toBe(true);
    const want = new Float64Array(size);
    for (let i = 0; i < n; i++) { const j = Number(idx[i]); want[j] = Number.isNaN(want[j]!) || Number.isNaN(vals[i]!) ? NaN : Math.max(want[j]!, vals[i]!); }
    const got = (await r.fetch()).data as Float64Array;
    const raw = (a: Float64Array): Buffer => Buffer.from(a.buffer, a.byteOffset, a.byteLength);
    expect(raw(got).equals(raw(want))).toBe(true);
  });

  it('a fold or search of one chunk still matches NumPy (the host path)', async () => {
    for (const c of FIXTURE.cases.filter((k) => k.kind === 'bincount' || k.kind === 'searchsorted')) {
      const [got] = await results(c, 100_000);
      expectNumpy(c, got!, (Array.isArray(c.out) ? c.out[0] : c.out)!, `${c.kind} ${c.name} one chunk`);
    }
  });
});

describe('the scatter and search routines refuse calls that do not fit them', () => {
  const region = (dtype: 'float64' | 'int64', shape: number[]) => {
    const n = shape.reduce((a, b) => a * b, 1);
    const strides = shape.map((_, i) => shape.slice(i + 1).reduce((a, b) => a * b, 1));
    return { dtype, shape, strides, origin: shape.map(() => 0), data: dtype === 'int64' ? new BigInt64Array(n) : new Float64Array(n) };
  };
  it('unknown operations and parameters, unpaired slices, regions of the wrong dtype or extent', () => {
    const idx = region('int64', [4]), vals = region('float64', [4]), row = region('float64', [1, 10]);
    expect(() => runRoutine('scatter.partial', { op: 'power' }, [idx, vals], row)).toThrow(TypeError);
    expect(() => runRoutine('scatter.partial', { op: 'add', extra: 1 }, [idx, vals], row)).toThrow(/unknown routine parameter/);
    expect(() => runRoutine('scatter.partial', { op: 'add' }, [idx], row)).toThrow(/in pairs/);
    expect(() => runRoutine('scatter.partial', { op: 'add' }, [idx, region('float64', [3])], row)).toThrow(/slice pair 0/);
    expect(() => runRoutine('scatter.partial', { op: 'add' }, [vals, vals], row)).toThrow(TypeError);
    expect(() => runRoutine('scatter.partial', { op: 'add' }, [idx, vals], region('float64', [10]))).toThrow(/\[1, n\] row/);
    expect(() => runRoutine('scatter.partial', { op: 'add', unit: true }, [idx], row)).toThrow(/counts \(unit\) into int64 rows/);
    expect(() => runRoutine('scatter.partial', { op: 'maximum', unit: true }, [idx], region('int64', [1, 10]))).toThrow(/unit/);
    expect(() => runRoutine('scatter.partial', { op: 'add', unit: 1 }, [idx], region('int64', [1, 10]))).toThrow(/must be a boolean/);
    expect(() => runRoutine('scatter.route', { size: 10, piece: 5 }, [idx, vals], region('float64', [1, 9]))).toThrow(/count per piece/);
    expect(() => runRoutine('scatter.route', { size: 10, piece: -1 }, [idx, vals], region('float64', [1, 10]))).toThrow(/must be a count/);
    expect(() => runRoutine('scatter.route', { size: 10, piece: 5 }, [idx, idx], region('float64', [1, 10]))).toThrow(/writes one int64 \[1, w\] row/);
    expect(() => runRoutine('scatter.apply', { op: 'bitwise_or' }, [vals], vals)).toThrow(/op must be a ufunc computing in/);
    expect(() => runRoutine('scatter.apply', { op: 'rm -rf' }, [vals], vals)).toThrow(/op must be a ufunc computing in/);
    expect(() => runRoutine('scatter.apply', { op: 'add' }, [vals, region('float64', [1, 2])], vals)).toThrow(/in pairs/);
    const f64 = (...shape: number[]) => ({ dtype: 'float64' as const, shape }), i64 = (...shape: number[]) => ({ dtype: 'int64' as const, shape });
    expect(() => ROUTINES['scatter.combine'].check({ op: 'add' }, [f64(5), f64(1, 4)], f64(5))).toThrow(TypeError);
    expect(() => ROUTINES['scatter.combine'].check({ op: 'add' }, [f64(5), f64(1, 5)], f64(5))).not.toThrow();
    expect(() => ROUTINES.search.check({ side: 'middle' }, [f64(5)], i64(5))).toThrow(/side/);
    expect(() => ROUTINES.search.check({ side: 'left' }, [f64(5), { dtype: 'float32', shape: [3] }], i64(5))).toThrow(TypeError);
    expect(() => ROUTINES.search.check({ side: 'left' }, [f64(5), f64(3)], f64(5))).toThrow(TypeError);
    expect(() => ROUTINES.search.check({ side: 'right' }, [f64(5), f64(3)], i64(5))).not.toThrow();
  });

  it('a route sorts pairs stably by piece; an apply adds each piece\'s pairs in order', () => {
    const idx = region('int64', [5]), vals = region('float64', [5]), row = region('float64', [1, 2 + 10]);
    (idx.data as BigInt64Array).set([3n, 0n, 2n, 3n, 1n]);
    (vals.data as Float64Array).set([1, 2, 3, 4, 5]);
    runRoutine('scatter.route', { size: 4, piece: 2 }, [idx, vals], row);
    expect(Array.from(row.data as Float64Array)).toEqual([2, 3, 0, 1, 3, 2, 3, 2, 5, 1, 3, 4]);
    const base = { ...region('float64', [2]), origin: [2] }, out = { ...region('float64', [2]), origin: [2] };
    (base.data as Float64Array).set([0.5, 0.25]);
    const slice = (from: number, n: number) => ({ ...region('float64', [1, n]), data: (row.data as Float64Array).subarray(from, from + n) });
    runRoutine('scatter.apply', { op: 'add' }, [base, slice(4, 3), slice(9, 3)], out);
    expect(Array.from(out.data as Float64Array)).toEqual([3.5, 5.25]);
  });

  it('a partial folds in index order from the identity; an index outside the row is a RangeError', () => {
    const idx = region('int64', [4]), vals = region('float64', [4]), row = region('float64', [1, 3]);
    (idx.data as BigInt64Array).set([2n, 0n, 2n, 1n]);
    (vals.data as Float64Array).set([1.5, -2, 4, 8]);
    runRoutine('scatter.partial', { op: 'add' }, [idx, vals], row);
    expect(Array.from(row.data as Float64Array)).toEqual([-2, 8, 5.5]);
    runRoutine('scatter.partial', { op: 'maximum' }, [idx, vals], row);
    expect(Array.from(row.data as Float64Array)).toEqual([-2, 8, 4]);
    (idx.data as BigInt64Array)[1] = 3n;
    expect(() => runRoutine('scatter.partial', { op: 'add' }, [idx, vals], row)).toThrow(/index 3 is out of bounds for axis 0 with size 3/);
  });
});

describe('on a simulated mesh', () => {
  const mesh = (ids: string[]) => simMesh(ids);

  it('an index outside the axis fails the job with a message naming it (the peers refuse the task each time it is leased)', async () => {
    const m = mesh(['w0', 'w1']);
    try {
      await new Promise((r) => setTimeout(r, 100));
      const x = mt.zeros([50], { dtype: 'int64', chunkSize: 8 });
      const idx = mt.tensor(BigInt64Array.from({ length: 40 }, (_, i) => BigInt(i === 33 ? 70 : i)), { chunkSize: 8 });
      const r = new Tensor(G.scatter('add', x.node, idx.node, mt.ones([40], { dtype: 'int64', chunkSize: 8 }).node, 'int64'));
      await expect(mt.executeWith({ session: m.session }, r)).rejects.toThrow(/index 70 is out of bounds for axis 0 with size 50/);
    } finally {
      m.close();
    }
  }, 30_000);

  it("the folds' and searches' routine tasks are leased to the mesh workers, which give NumPy's results", async () => {
    const m = mesh(['w0', 'w1']);
    try {
      await new Promise((r) => setTimeout(r, 100)); // announcements arrive
      const picks = [
        FIXTURE.cases.find((k) => k.kind === 'bincount' && k.args.weights)!,
        FIXTURE.cases.find((k) => k.kind === 'at' && k.args.values!.dtype === 'int64')!,
        FIXTURE.cases.find((k) => k.kind === 'searchsorted' && k.args.a!.dtype === 'int64')!,
      ];
      for (const c of picks) {
        m.reports.length = 0;
        const ts = build(c, 64);
        await mt.executeWith({ session: m.session }, ...ts);
        const wants = Array.isArray(c.out) ? c.out : [c.out];
        for (const [i, t] of ts.entries()) expectNumpy(c, (await t.fetch()).data as TypedArray, wants[i]!, `${c.kind} ${c.name} on the mesh`);
        const ran = m.reports.filter((r) => r.tasks > 0);
        expect(ran.length, c.name).toBeGreaterThan(0);
        for (const r of ran) expect(r.commits).toBe(r.tasks + r.recomputed);
      }
      expect(m.workers.every((w) => w.stats.tasks > 0)).toBe(true);
    } finally {
      m.close();
    }
  }, 60_000);
});
