// Quantiles of a 1-d array of several chunks by selection (runtime/select.ts)
// against NumPy 2's median, percentile, quantile, nanmedian and nanquantile
// (test/fixtures/quantile.json, written by test/fixtures/gen_quantile.py):
// the same bits for every method, whatever the chunking, with 0, 1 and 2
// worker threads; and the whole array is never held: the median of a lazily
// drawn 2e7-element array keeps the chunk heap's peak at a few chunks, and
// the timeline shows the selection, not the whole-line path that gathers.
// On a simulated mesh the sample and the filtering pass's slices are leased
// to the workers, and the bits are the same.
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import * as mt from '../src/api/tensor.js';
import type { TypedArray } from '../src/graph/dtype.js';
import { Coordinator, type MeshReport } from '../src/mesh/coordinator.js';
import { SimNet } from '../src/mesh/sim.js';
import { MeshState } from '../src/mesh/state.js';
import { MeshWorker } from '../src/mesh/worker.js';
import { runtime } from '../src/runtime/runtime.js';

interface Result { fn: string; q?: number[]; method?: string; out: (number | string)[] }
interface Case { name: string; dtype: string; x: (number | string)[]; results: Result[] }
const FIXTURE: { cases: Case[] } = JSON.parse(
  readFileSync(new URL('./fixtures/quantile.json', import.meta.url), 'utf8'),
);
afterAll(() => mt.shutdown());

const SPECIAL: Record<string, number> = { nan: NaN, inf: Infinity, '-inf': -Infinity };
const num = (v: number | string): number => (typeof v === 'string' && v in SPECIAL ? SPECIAL[v]! : Number(v));
const CTOR = { float64: Float64Array, float32: Float32Array, int32: Int32Array, int16: Int16Array } as const;
const data = (c: Case): TypedArray => (c.dtype === 'int64'
  ? BigInt64Array.from(c.x, (v) => BigInt(v))
  : (CTOR[c.dtype as keyof typeof CTOR]).from(c.x, num));
/**
 * The bits of a typed array, as unsigned bytes: what "the same bits" compares,
 * a zero's sign apart. NumPy selects with introselect (np.partition), which
 * leaves -0 and +0, equal, in an order no stable sort reproduces: a value
 * picked among tied zeros may carry either sign (the whole-line path of one
 * chunk differs from NumPy the same way).
 */
function bytes(a: TypedArray): number[] {
  const z: TypedArray = a instanceof Float64Array || a instanceof Float32Array ? a.map((v) => (v === 0 ? 0 : v)) : a;
  return Array.from(new Uint8Array(z.buffer, z.byteOffset, z.byteLength));
}

function call(r: Result, x: mt.Tensor, axis?: number): mt.Tensor {
  const o = { method: r.method, ...(axis !== undefined ? { axis } : {}) };
  switch (r.fn) {
    case 'median': return axis === undefined ? mt.median(x) : mt.median(x, { axis });
    case 'nanmedian': return axis === undefined ? mt.nanmedian(x) : mt.nanmedian(x, { axis });
    case 'percentile': return mt.percentile(x, r.q!, o);
    case 'quantile': return mt.quantile(x, r.q!, o);
    case 'nanquantile': return mt.nanquantile(x, r.q!, o);
    default: throw new Error(r.fn);
  }
}

/** The last execution's host operations: 'quantile.select', and 'quantile' where the line was gathered. */
const hostOps = (): string[] =>
  (mt.lastReport()?.trace.traceEvents ?? []).filter((e) => e.cat === 'host').map((e) => e.name);

describe('quantiles by selection', () => {
  for (const workers of [0, 1, 2]) {
    it(`match NumPy's bits with ${workers} worker threads, chunks of 97 and 1000 elements`, async () => {
      const old = mt.options.workers;
      mt.options.workers = workers;
      try {
        for (const c of FIXTURE.cases) {
          for (const chunkSize of [97, 1000]) {
            const x = mt.tensor(data(c), { chunkSize });
            for (const r of c.results) {
              const t = call(r, x);
              const got = (await t.fetch()).data as TypedArray;
              const want = got instanceof BigInt64Array
                ? BigInt64Array.from(r.out, (v) => BigInt(v))
                : new (got.constructor as new (v: number[]) => TypedArray)(r.out.map(num));
              const what = `${r.fn} ${r.method ?? ''} ${c.name} chunk ${chunkSize}`;
              expect(bytes(got), what).toEqual(bytes(want));
              // selection ran and answered (where the strided sample misses: a widened bracket, or the whole line)
              const host = hostOps();
              expect(host, what).toContain('quantile.select');
              if (c.name !== 'f64 alternating') expect(host, what).not.toContain('quantile');
            }
          }
        }
      } finally {
        mt.options.workers = old;
      }
    }, 120_000);
  }

  it('median of a lazy 2e7 uniform draw holds a few chunks at most', async () => {
    const n = 2e7, chunkSize = 1 << 18;
    const x = mt.random.default_rng(7).uniform(0, 1, [n], { chunkSize });
    const heap = runtime.heap;
    heap.peak = heap.inUse;
    const before = heap.inUse;
    const m = (await mt.median(x).fetch()).item() as number;
    expect(Math.abs(m - 0.5)).toBeLessThan(1e-3);
    expect(hostOps()).toContain('quantile.select');
    expect(hostOps()).not.toContain('quantile');
    // the whole array would be 160 MB (76 chunks); selection holds the sample and two groups of four chunks
    expect(heap.peak - before).toBeLessThanOrEqual(10 * chunkSize * 8);
  }, 120_000);
});

describe('quantiles of the lines of an n-d array, in routine tasks', () => {
  it("each line's quantiles are NumPy's bits, along either axis, with 0 and 2 worker threads", async () => {
    for (const workers of [0, 2]) {
      for (const c of FIXTURE.cases.filter((_, i) => i % 2 === workers / 2)) {
        const x = mt.tensor(data(c), { chunkSize: 97 });
        // the line and its reverse: the same quantiles
        const rows = mt.stack([x, mt.flip(x)]);
        for (const [lines, axis] of [[rows, 1], [mt.transpose(rows), 0]] as const) {
          for (const r of c.results) {
            const t = call(r, lines, axis);
            await t.execute({ workers });
            const got = (await t.fetch()).data as TypedArray;
            const one = r.out.map(num);
            // q's axis first, then the two lines
            const wantVals = one.flatMap((v) => [v, v]);
            const want = got instanceof BigInt64Array
              ? BigInt64Array.from(r.out.flatMap((v) => [v, v]), (v) => BigInt(v))
              : new (got.constructor as new (v: number[]) => TypedArray)(wantVals);
            const what = `${r.fn} ${r.method ?? ''} ${c.name} axis ${axis}`;
            expect(bytes(got), what).toEqual(bytes(want));
            expect(hostOps(), what).toEqual([]);
          }
        }
      }
    }
  }, 120_000);
});

describe('on a simulated mesh', () => {
  it("the selection's passes run on the mesh workers, with NumPy's bits", async () => {
    const net = new SimNet({ seed: 9, maxDelayMs: 2 });
    const cep = net.join('coordinator');
    const cstate = new MeshState(cep, 40);
    const coord = new Coordinator(cep, cstate, {
      runtime, tickMs: 10, leaseMs: 300, fetchTimeoutMs: 200, waitForWorkersMs: 10_000,
    });
    const parts: { close(): void }[] = [coord, cstate];
    for (const id of ['w0', 'w1']) {
      const ep = net.join(id);
      const st = new MeshState(ep, 40);
      st.announce({ role: 'worker', device: 'wasm', throughput: 1, memory: 1 << 28, slots: 2 });
      parts.push(st, new MeshWorker(ep, { runtime, memory: 1 << 28, heartbeatMs: 25, fetchTimeoutMs: 200 }));
    }
    const reports: MeshReport[] = [];
    const session = {
      runNodes: async (...a: Parameters<Coordinator['run']>) => {
        const r = await coord.run(...a);
        reports.push(r);
        return r;
      },
    };
    try {
      await new Promise((r) => setTimeout(r, 100)); // announcements arrive
      for (const c of FIXTURE.cases.filter((k) => k.dtype === 'float64').slice(0, 3)) {
        // x * 1 (the same bits): an input the mesh computes, so the sample and the slices are tasks, not chunk views
        const x = mt.tensor(data(c), { chunkSize: 64 }).multiply(1);
        for (const r of c.results.filter((q) => q.fn === 'median' || q.method === 'linear' || q.method === 'nearest')) {
          reports.length = 0;
          const t = call(r, x);
          await mt.executeWith({ session }, t);
          const got = (await t.fetch()).data as TypedArray;
          const want = new (got.constructor as new (v: number[]) => TypedArray)(r.out.map(num));
          expect(bytes(got), `${r.fn} ${r.method ?? ''} ${c.name}`).toEqual(bytes(want));
          expect(reports.reduce((a, q) => a + q.tasks, 0), `${r.fn} ${c.name}: tasks leased`).toBeGreaterThan(0);
        }
      }
    } finally {
      parts.forEach((p) => p.close());
    }
  }, 120_000);
});
