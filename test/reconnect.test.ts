// Coming back to the room: the backoff a lost signaling connection is
// retried with, and a real MeshNode (node.ts, over `ws`) that loses its
// server, keeps trying while none listens, and is admitted again under the
// same id by a server restarted with the same secret, but not by one with
// another secret. (Links healing between real workers: mesh.test.ts.)

import { afterEach, describe, expect, it } from 'vitest';
import { type Connection, MeshNode, backoff } from '../src/mesh/node.js';
import { rng } from '../src/mesh/sim.js';
import { type SignalServer, startSignalServer } from '../signaling-server/server.js';
import { mintToken } from '../signaling-server/token.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('reconnect backoff', () => {
  it('grows exponentially to its cap, with jitter between half and all of each step', () => {
    const b = { firstMs: 500, maxMs: 15_000 };
    const r = rng(7);
    for (let n = 0; n < 40; n++) {
      const cap = Math.min(15_000, 500 * 2 ** n);
      for (let k = 0; k < 20; k++) {
        const w = backoff(n, b, r);
        expect(w).toBeGreaterThanOrEqual(cap / 2);
        expect(w).toBeLessThanOrEqual(cap);
      }
    }
    expect(backoff(0, b, () => 0)).toBe(250);
    expect(backoff(3, b, () => 1)).toBe(4000);
    expect(backoff(1000, b, () => 1)).toBe(15_000);
    // peers that lost the server at once spread out: their first retries are not all at one instant
    const first = Array.from({ length: 50 }, () => backoff(2, b, r));
    expect(new Set(first.map((w) => Math.round(w / 50))).size).toBeGreaterThan(10);
  });
});

describe('a MeshNode that loses its signaling server', () => {
  const servers: SignalServer[] = [];
  const nodes: MeshNode[] = [];
  afterEach(async () => {
    for (const n of nodes.splice(0)) await n.close();
    for (const s of servers.splice(0)) await s.close();
  });

  it('retries with backoff while none listens and regains its id from a server restarted with the same secret', async () => {
    const s1 = await startSignalServer({ port: 0, secret: 'k', log: () => undefined });
    servers.push(s1);
    const port = s1.port;
    const lines: string[] = [];
    const node = await MeshNode.connect({ signal: s1.url, room: 'lab', token: mintToken('k', 'lab', 60), retry: { firstMs: 100, maxMs: 400 }, log: (l) => lines.push(`${Date.now()} ${l}`) });
    nodes.push(node);
    const states: [Connection, string | undefined][] = [];
    node.onConnection((c, why) => states.push([c, why]));
    expect(node.connection).toBe('online');
    await s1.close();
    servers.length = 0;
    await sleep(2000);
    expect(node.connection).toBe('reconnecting');
    expect(states[0]![1]).toMatch(/closed the connection/);
    // while nothing listens: attempts about every 200-400 ms (capped), not a tight loop and not given up
    const tries = lines.filter((l) => /cannot reach|closed the connection|trying again/.test(l)).length;
    expect(tries).toBeGreaterThanOrEqual(4);
    expect(tries).toBeLessThanOrEqual(14);
    const s2 = await startSignalServer({ port, secret: 'k', log: () => undefined });
    servers.push(s2);
    const t0 = Date.now();
    while (node.connection !== 'online' && Date.now() - t0 < 3000) await sleep(20);
    expect(node.connection).toBe('online');
    expect(s2.rooms().get('lab')).toEqual([node.id]);
    expect(states.map(([c]) => c)).toEqual(['reconnecting', 'online']);
  });

  it('stays out, and keeps its id, when a server with another secret refuses it (its token, and its key)', async () => {
    const s1 = await startSignalServer({ port: 0, secret: 'k', log: () => undefined });
    const port = s1.port;
    const lines: string[] = [];
    const node = await MeshNode.connect({ signal: s1.url, room: 'lab', token: mintToken('k', 'lab', 60), retry: { firstMs: 100, maxMs: 200 }, log: (l) => lines.push(l) });
    nodes.push(node);
    const id = node.id;
    await s1.close();
    const s2 = await startSignalServer({ port, secret: 'other', log: () => undefined });
    servers.push(s2);
    await sleep(1500);
    expect(node.connection).toBe('reconnecting');
    expect(node.id).toBe(id);
    expect(s2.rooms().size).toBe(0);
    // (its token is refused before its key: it is signed with the old secret too; signal.test.ts refuses keys alone)
    expect(lines.some((l) => /refused/.test(l))).toBe(true);
  });
});
