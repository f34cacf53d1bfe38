// Healing, in one process: the backoff a lost signaling connection is
// retried with; a real MeshNode (node.ts, over `ws`) that loses its server,
// keeps trying while none listens, and is admitted again under the same id
// by a server restarted with the same secret, but not by one with another
// secret; and a real WebRTC link between two nodes that one end closes (it
// closes at the other and is built again, whichever end closed it) or that
// its initiator starts afresh while the other end still holds it (the stale
// link is replaced). (Workers frozen past the ICE timeout: mesh.test.ts.)

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

describe('a link between two real MeshNodes (WebRTC in this process)', () => {
  const servers: SignalServer[] = [];
  const nodes: MeshNode[] = [];
  afterEach(async () => {
    for (const n of nodes.splice(0)) await n.close();
    for (const s of servers.splice(0)) await s.close();
  });

  /** Two nodes of one room, linked, with the ups and downs each saw, smaller id first. */
  async function pair(): Promise<{ lo: MeshNode; hi: MeshNode; seen: string[] }> {
    const s = await startSignalServer({ port: 0, secret: 'k', log: () => undefined });
    servers.push(s);
    const seen: string[] = [];
    const join = async () => {
      const n = await MeshNode.connect({ signal: s.url, room: 'lab', token: mintToken('k', 'lab', 60) });
      nodes.push(n);
      n.on({ peer: (id, up) => seen.push(`${n.id}:${up ? 'up' : 'down'}`) });
      return n;
    };
    const [a, b] = [await join(), await join()];
    await until(() => a.peers().length === 1 && b.peers().length === 1);
    const [lo, hi] = a.id < b.id ? [a, b] : [b, a];
    seen.length = 0;
    return { lo, hi, seen };
  }

  const until = async (f: () => boolean, ms = 20_000) => {
    const t0 = Date.now();
    while (!f()) {
      if (Date.now() - t0 > ms) throw new Error('timed out');
      await sleep(20);
    }
  };

  /** A message from one node reaches the other. */
  const carries = async (from: MeshNode, to: MeshNode) => {
    const got = new Promise<string>((r) => to.on({ message: (f, m) => { if (m.t === 'end' && f === from.id) r(m.job); } }));
    await from.send(to.id, { t: 'end', job: 'hello' });
    expect(await got).toBe('hello');
  };

  type Internals = { drop(id: string, why?: string): void; link(id: string, initiator: boolean, nonce: string): unknown };

  for (const side of ['lo', 'hi'] as const) {
    it(`closed at one end (the ${side === 'lo' ? 'initiating' : 'answering'} one), it closes at the other and is built again`, async () => {
      const p = await pair();
      const [me, other] = side === 'lo' ? [p.lo, p.hi] : [p.hi, p.lo];
      (me as unknown as Internals).drop(other.id, 'a test says it is dead');
      await until(() => p.seen.includes(`${other.id}:down`) && me.peers().length === 1 && other.peers().length === 1);
      expect(p.seen).toContain(`${me.id}:down`);
      expect(p.seen.filter((e) => e.endsWith(':up')).sort()).toEqual([`${me.id}:up`, `${other.id}:up`].sort());
      await carries(me, other);
      await carries(other, me);
    }, 30_000);
  }

  it('a new offer replaces a link the other end still holds (a stale link), and signals of the old attempt are ignored', async () => {
    const p = await pair();
    // the initiator starts afresh while the answering end still has the old link up
    (p.lo as unknown as Internals).link(p.hi.id, true, 'fresh1');
    await until(() => p.seen.includes(`${p.hi.id}:down`) && p.hi.peers().length === 1 && p.lo.peers().length === 1);
    await carries(p.lo, p.hi);
    await carries(p.hi, p.lo);
  }, 30_000);
});
