// A mesh session's life cycle (src/mesh/session.ts, src/mesh/coordinator.ts),
// against a real signaling server in this process and no workers: a job with
// no workers fails after its stated wait; closing a session fails what runs
// on it, and every call on a closed session (or a closed coordinator)
// rejects at once instead of waiting forever; `trust: { dir }` keeps the
// room's records of its peers in a file.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as mt from '../src/api/tensor.js';
import { session } from '../src/index.js';
import { Coordinator } from '../src/mesh/coordinator.js';
import { StateJournal } from '../src/mesh/journal.js';
import type { Session } from '../src/mesh/session.js';
import { SimNet } from '../src/mesh/sim.js';
import { parseRecords } from '../src/mesh/trust.js';
import { MeshState } from '../src/mesh/state.js';
import { runtime } from '../src/runtime/runtime.js';
import { type SignalServer, startSignalServer } from '../signaling-server/server.js';
import { mintToken } from '../signaling-server/token.js';

const SECRET = 'session-test';
let server: SignalServer;
const dirs: string[] = [];

beforeAll(async () => { server = await startSignalServer({ port: 0, secret: SECRET, log: () => undefined }); });
afterAll(async () => {
  await server?.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  await mt.shutdown();
});

const open = (room: string, extra: Partial<Parameters<typeof session>[0]> = {}): Promise<Session> =>
  session({ signal: server.url, room, token: mintToken(SECRET, room, 600), ...extra });

const small = () => mt.arange(0, 1000, 1, { chunkSize: 250 }).multiply(2).sum();

/** How long `p` takes to settle, and how. */
async function timed(p: Promise<unknown>): Promise<{ ms: number; error?: string }> {
  const t0 = performance.now();
  try {
    await p;
    return { ms: performance.now() - t0 };
  } catch (e) {
    return { ms: performance.now() - t0, error: (e as Error).message };
  }
}

describe('a mesh session with no workers', () => {
  it('fails a job after the stated wait for workers, with the wait in the message', async () => {
    const s = await open('lonely', { coordinator: { waitForWorkersMs: 400, tickMs: 20 } });
    try {
      const r = await timed(s.execute(small()));
      expect(r.error).toMatch(/no workers in the room for 0 s/);
      expect(r.ms).toBeGreaterThanOrEqual(380);
      expect(r.ms).toBeLessThan(5000);
    } finally {
      await s.close();
    }
  }, 30_000);

  it('closing it fails the job waiting for workers at once', async () => {
    const s = await open('closing', { coordinator: { waitForWorkersMs: 60_000 } });
    const job = timed(s.execute(small()));
    const waiting = timed(s.waitForWorkers(1, 60_000));
    await new Promise((r) => setTimeout(r, 100));
    await s.close();
    const [j, w] = await Promise.all([job, waiting]);
    expect(j.error).toMatch(/coordinator closed/);
    expect(w.error).toMatch(/session closed while waiting for 1 workers/);
    expect(Math.max(j.ms, w.ms)).toBeLessThan(2000);
  }, 30_000);

  it('once closed, refuses every call at once with a clear error', async () => {
    const s = await open('closed');
    await s.close();
    expect(s.closed).toBe(true);
    for (const [what, p] of [
      ['execute', s.execute(small())],
      ['runNodes', s.runNodes([small().node])],
      ['waitForWorkers', s.waitForWorkers(0)],
      ['Tensor.execute', small().execute({ session: s })],
    ] as const) {
      const r = await timed(p);
      expect(r.error, what).toMatch(/on a closed session: open a new one with Session.open/);
      expect(r.ms, what).toBeLessThan(500);
    }
    expect(s.workers().size).toBe(0);
    await s.close(); // a second close is the first one's
  }, 30_000);

  it('keeps its record of the room\'s peers in a file under trust: { dir }', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tessera-trust-'));
    dirs.push(dir);
    const file = join(dir, 'trust-kept.json');
    writeFileSync(file, JSON.stringify({ w9: { run: 3, verified: 3, quarantined: true, at: 1 } }));
    const s = await open('kept', { verify: 'sample', trust: { dir } });
    await s.close();
    // read at open, written back at close: the quarantine another session of the room recorded holds
    expect(parseRecords(readFileSync(file, 'utf8'))).toEqual({ w9: { run: 3, verified: 3, quarantined: true, at: 1 } });
  }, 30_000);
});

describe('a closed coordinator', () => {
  it('rejects a run at once, also one that was reading its journal when it closed', async () => {
    const net = new SimNet({ seed: 1 });
    const ep = net.join('coordinator');
    const st = new MeshState(ep, 40);
    const coord = new Coordinator(ep, st, { runtime, journal: new StateJournal(st), waitForWorkersMs: 60_000 });
    try {
      const reading = timed(coord.run([small().node])); // closes while it fingerprints the plan and reads the journal
      coord.close();
      const after = timed(coord.run([small().node]));
      for (const r of await Promise.all([reading, after])) {
        expect(r.error).toMatch(/coordinator (is )?closed/);
        expect(r.ms).toBeLessThan(500);
      }
    } finally {
      st.close();
    }
  }, 30_000);
});
