// The worker pool's batches, on real worker threads over a real shared heap:
// every job of a batch runs exactly once whichever worker (or the calling
// thread, helping while they wake) takes it, a job that fails stops the
// batch and reports what ran, and the pool goes on.
// The jobs are cumulative sums (the executor's scan routine), whose results
// are closed forms.
import { afterAll, describe, expect, it } from 'vitest';
import { Executor, type Job } from '../src/runtime/exec.js';
import { Heap } from '../src/runtime/memory.js';
import { COUNTER_BYTES, Pool } from '../src/runtime/pool.js';

const heap = new Heap();
const N = 64; // elements per job
const params = [heap.alloc(16384).ptr, heap.alloc(16384).ptr];
const pool = new Pool(2, heap.memory, params, heap.alloc(COUNTER_BYTES).ptr);

afterAll(() => pool.close());

/** `count` cumulative-sum jobs over their own float64 regions, job i's input filled with i + 1. */
function scanJobs(count: number): { jobs: Job[]; out: (i: number) => Float64Array } {
  const jobs: Job[] = [];
  const outs: number[] = [];
  for (let i = 0; i < count; i++) {
    const src = heap.alloc(8 * N).ptr, dst = heap.alloc(8 * N).ptr;
    new Float64Array(heap.memory.buffer, src, N).fill(i + 1);
    jobs.push({ kind: 'scan', op: 'sum', axis: 0, inDtype: 'float64', outDtype: 'float64', shape: [N], src, dst });
    outs.push(dst);
  }
  return { jobs, out: (i) => new Float64Array(heap.memory.buffer, outs[i]!, N) };
}

describe('the worker pool', () => {
  it('runs every job of a batch exactly once, on whichever worker takes it', async () => {
    for (const count of [1, 2, 3, 40]) {
      const { jobs, out } = scanJobs(count);
      const seen: number[] = [];
      let reports = 0;
      await pool.batch(jobs, new Map(), (ran) => { reports++; seen.push(...ran); });
      expect(reports).toBe(2); // each worker reports once, ran or not
      expect([...seen].sort((a, b) => a - b)).toEqual(Array.from({ length: count }, (_, i) => i));
      for (let i = 0; i < count; i++) expect(out(i)[N - 1]).toBe((i + 1) * N);
    }
  });

  it('stops a batch at a failing job, reports what ran, rejects with its error, and runs the next batch', async () => {
    const { jobs, out } = scanJobs(200);
    // a kernel job naming a program no worker was sent: the worker that takes it throws
    jobs[0] = { kind: 'bound', key: 'f|no such kernel', copies: [], params: 0 };
    const seen: number[] = [];
    await expect(pool.batch(jobs, new Map(), (ran) => { seen.push(...ran); }).then(() => 'resolved'))
      .rejects.toThrow(/internal: no program for kernel f\|no such kernel/);
    expect(new Set(seen).size).toBe(seen.length); // none twice
    expect(seen).not.toContain(0);
    for (const i of seen) expect(out(i)[N - 1]).toBe((i + 1) * N);
    // the others stopped taking jobs once it failed: most of the 200 never ran
    expect(seen.length).toBeLessThan(150);
    const next = scanJobs(5);
    const ran: number[] = [];
    await pool.batch(next.jobs, new Map(), (r) => { ran.push(...r); });
    expect(ran.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4]);
    expect(next.out(4)[N - 1]).toBe(5 * N);
  });
});

describe("the calling thread's help", () => {
  const inline = new Executor(heap.memory, heap.alloc(16384).ptr);

  it('takes jobs of a batch on an idle pool until every worker has started, each job still running once', async () => {
    let helped = 0;
    // the workers take a tenth of a millisecond or more to wake, so the caller usually starts
    // first; on a loaded machine a woken worker may beat it, so batches go on until it has helped
    const counts = [1, 3, 40, 400, 400, 400];
    for (let k = 0; k < counts.length || (helped === 0 && k < 60); k++) {
      const count = counts[k] ?? 400;
      const { jobs, out } = scanJobs(count);
      const seen: number[] = [];
      const done = pool.batch(jobs, new Map(), (ran) => { seen.push(...ran); });
      const mine = pool.help((job) => inline.run(job));
      await done;
      helped += mine.length;
      expect([...seen, ...mine].sort((a, b) => a - b)).toEqual(Array.from({ length: count }, (_, i) => i));
      for (let i = 0; i < count; i++) expect(out(i)[N - 1]).toBe((i + 1) * N);
    }
    expect(helped).toBeGreaterThan(0);
  });

  it('takes nothing of a batch that went to busy workers', async () => {
    const a = scanJobs(100), b = scanJobs(3);
    const first = pool.batch(a.jobs, new Map(), () => {});
    const second = pool.batch(b.jobs, new Map(), () => {});
    expect(pool.help((job) => inline.run(job))).toEqual([]);
    await Promise.all([first, second]);
    expect(b.out(2)[N - 1]).toBe(3 * N);
  });

  it('stops the batch when a job it runs fails: the batch rejects with that error once the workers leave', async () => {
    let threw = false;
    for (let attempt = 0; attempt < 20 && !threw; attempt++) {
      const { jobs } = scanJobs(300);
      const seen: number[] = [];
      const done = pool.batch(jobs, new Map(), (ran) => { seen.push(...ran); }).then(() => 'resolved', (e: Error) => e.message);
      const mine = pool.help(() => { threw = true; throw new Error('the helper failed'); });
      expect(mine).toEqual([]);
      const outcome = await done;
      if (!threw) { expect(outcome).toBe('resolved'); continue; }
      expect(outcome).toBe('the helper failed');
      expect(seen.length).toBeLessThan(300); // the workers took no more once it failed
    }
    expect(threw).toBe(true);
    const next = scanJobs(4);
    await pool.batch(next.jobs, new Map(), () => {});
    expect(next.out(3)[N - 1]).toBe(4 * N);
  });
});

describe('a script using the pool', () => {
  // Node refs a worker again when a listener is added: an unref'd pool used to keep every script alive after its last line.
  it('ends after its last line without mt.shutdown(), and stays alive while a run is in flight', async () => {
    const { spawn } = await import('node:child_process');
    const api = new URL('../dist/api/tensor.js', import.meta.url).href;
    const script = `const mt = await import(${JSON.stringify(api)});
      const x = mt.ones([1000, 1000]);
      const s = await x.sum().fetch();
      const m = await mt.matmul(mt.ones([64, 64]), mt.ones([64, 64])).fetch();
      console.log(JSON.stringify([Number(s.item()), m.toArray()[0][0], mt.lastReport().workers]));`;
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const file = join(mkdtempSync(join(tmpdir(), 'tessera-exit-')), 'script.mjs');
    writeFileSync(file, script);
    const child = spawn(process.execPath, [file], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
    const code = await new Promise<number | null>((resolve) => {
      const timer = setTimeout(() => { child.kill(); resolve(null); }, 60_000);
      child.on('exit', (c) => { clearTimeout(timer); resolve(c); });
    });
    expect(code).toBe(0);
    const [total, entry, workers] = JSON.parse(out) as number[];
    expect([total, entry]).toEqual([1e6, 64]);
    expect(workers).toBeGreaterThan(0); // the sum ran on the pool
  }, 90_000);
});
