// The stages of a routine on a mesh keep their results on the workers that
// computed them (JobOptions.keep): the next stage reads them there, peer to
// peer, and the coordinator receives only what the host plans with (counts
// per chunk, the sort's sample ranks), never chunk data. A worker killed while a later stage reads
// what it kept: the job that kept it computes it again, and the answer is
// the local run's, bit for bit. Nothing kept outlives the execution.

import { afterAll, describe, expect, it } from 'vitest';
import * as mt from '../src/api/tensor.js';
import type { TypedArray } from '../src/graph/dtype.js';
import { simMesh } from './sim-mesh.js';

afterAll(() => mt.shutdown());

const N = 40_000, CHUNK = 2_500;
const bits = (a: TypedArray): Uint8Array => new Uint8Array(a.buffer, a.byteOffset, a.byteLength).slice();

/** A selection feeding a sum, and a sort read back through a weighted sum, its order and three of its values: outputs a few bytes long. */
function program(): mt.Tensor[] {
  mt.random.seed(21);
  const x = mt.random.uniform(0, 1, [N], { chunkSize: CHUNK });
  const selected = x.get(x.greater(0.5)).sum();
  const s = mt.sort(x);
  const weighted = s.multiply(mt.arange(N, { chunkSize: CHUNK })).sum();
  const ordered = mt.all(s.get(mt.slice(1, null)).greater_equal(s.get(mt.slice(0, -1))));
  const some = s.get(mt.tensor([0, N / 2, N - 1]));
  return [selected, weighted, ordered, some];
}

async function local(): Promise<Uint8Array[]> {
  const ts = program();
  await mt.execute(...ts);
  return Promise.all(ts.map(async (t) => bits((await t.fetch()).data as TypedArray)));
}

describe('routine stages on a mesh keep their results on the workers', () => {
  it('the coordinator receives only counts and sample ranks; the answer is the local one; the workers hold nothing after', async () => {
    const want = await local();
    const { workers, reports, session, close } = simMesh(['w0', 'w1', 'w2']);
    try {
      await new Promise((r) => setTimeout(r, 100));
      const ts = program();
      await mt.executeWith({ session }, ...ts);
      for (const [i, t] of ts.entries()) expect(bits((await t.fetch()).data as TypedArray), `output ${i}`).toEqual(want[i]);
      const ran = reports.filter((r) => r.tasks > 0);
      // the draw, the selection's counts and compaction, the sort's stages, the outputs
      expect(ran.length).toBeGreaterThanOrEqual(4);
      const data = N * 8;
      const toCoordinator = reports.reduce((a, r) => a + r.bytesToCoordinator, 0);
      const moved = reports.reduce((a, r) => a + r.bytesMoved, 0);
      // the outputs (a few scalars), a count per chunk of the selection, the sort's sample ranks: under a chunk's bytes
      expect(toCoordinator).toBeLessThan(CHUNK * 8);
      // the workers did move the data between them
      expect(moved).toBeGreaterThan(data / 2);
      expect(workers.every((w) => w.stats.tasks > 0)).toBe(true);
      // the stages' results went with the execution
      await new Promise((r) => setTimeout(r, 50));
      expect(workers.map((w) => w.bytesHeld)).toEqual([0, 0, 0]);
    } finally {
      close();
    }
  });

  it('a worker killed while a later stage reads what it kept: the earlier job computes it again, and the answer is the local one', async () => {
    const want = await local();
    for (const after of [3, 9]) {
      const { reports, session, close, net } = simMesh(['w0', 'w1', 'w2'], { killAfterTask: 'w1', killAfterTasks: after, seed: after });
      try {
        await new Promise((r) => setTimeout(r, 100));
        const ts = program();
        await mt.executeWith({ session }, ...ts);
        expect(net.alive('w1'), `killed after ${after} tasks`).toBe(false);
        for (const [i, t] of ts.entries()) expect(bits((await t.fetch()).data as TypedArray), `output ${i}, killed after ${after} tasks`).toEqual(want[i]);
        // some job computed again what the killed worker held
        expect(reports.reduce((a, r) => a + r.recomputed + r.releases, 0)).toBeGreaterThan(0);
      } finally {
        close();
      }
    }
  });
});
