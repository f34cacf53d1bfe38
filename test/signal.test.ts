// The signaling server (signaling-server/): tokens, rooms, relaying, and the
// refusals it must log and survive: a token for another room, an expired or
// forged token, malformed, oversized and binary messages, a full room, a
// flood, an idle socket. After each, a well-behaved peer still gets through.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { type LogEvent, type SignalServer, startSignalServer } from '../signaling-server/server.js';
import { checkToken, mintToken, parseDuration } from '../signaling-server/token.js';

const SECRET = 'test-secret';
let server: SignalServer;
const logs: LogEvent[] = [];

beforeAll(async () => {
  server = await startSignalServer({ port: 0, secret: SECRET, log: (e) => logs.push(e), limits: { maxPeersPerRoom: 3, idleMs: 600, joinMs: 400, ratePerSecond: 20, burst: 30 } });
});
afterAll(() => server?.close());

/** A socket that records what the server sends it. */
async function connect(): Promise<{ ws: WebSocket; inbox: Record<string, unknown>[]; next: (t?: string) => Promise<Record<string, unknown>>; closed: Promise<number> }> {
  const ws = new WebSocket(server.url);
  const inbox: Record<string, unknown>[] = [];
  const waiters: (() => void)[] = [];
  ws.on('message', (d) => { inbox.push(JSON.parse(String(d))); waiters.splice(0).forEach((f) => f()); });
  const closed = new Promise<number>((r) => ws.on('close', (code) => r(code)));
  await new Promise((r, j) => { ws.once('open', r); ws.once('error', j); });
  let read = 0;
  const next = async (t?: string) => {
    for (;;) {
      while (read < inbox.length) { const m = inbox[read++]!; if (!t || m.t === t) return m; }
      await new Promise<void>((r, j) => { waiters.push(r); setTimeout(() => j(new Error(`no ${t ?? 'message'} within 2 s; got ${JSON.stringify(inbox)}`)), 2000); });
    }
  };
  return { ws, inbox, next, closed };
}

const join = async (room: string, token = mintToken(SECRET, room, 60)) => {
  const c = await connect();
  c.ws.send(JSON.stringify({ t: 'join', room, token }));
  return { ...c, welcome: await c.next() };
};

/** The server still admits and relays for a fresh pair of peers. */
async function stillServes(): Promise<void> {
  const room = `ok-${Math.random().toString(36).slice(2, 8)}`;
  const a = await join(room), b = await join(room);
  expect(a.welcome.t).toBe('welcome');
  expect(b.welcome.peers).toEqual([a.welcome.id]);
  b.ws.send(JSON.stringify({ t: 'signal', to: a.welcome.id, data: { type: 'offer', sdp: 'v=0' } }));
  expect(await a.next('signal')).toEqual({ t: 'signal', from: b.welcome.id, data: { type: 'offer', sdp: 'v=0' } });
  a.ws.close(); b.ws.close();
}

describe('tokens', () => {
  it('admit their room until they expire, and nothing else', () => {
    const t = mintToken('s', 'lab', 3600, 1_000_000);
    expect(checkToken('s', t, 'lab', 1_000_000)).toBeUndefined();
    expect(checkToken('s', t, 'lab', 1_000_000 + 3599_000)).toBeUndefined();
    expect(checkToken('s', t, 'lab', 1_000_000 + 3601_000)).toMatch(/expired/);
    expect(checkToken('s', t, 'other', 1_000_000)).toMatch(/another room/);
    expect(checkToken('not-s', t, 'lab', 1_000_000)).toMatch(/signature/);
    // a payload edited to another room no longer matches its signature
    const [v, p, m] = t.split('.');
    const forged = `${v}.${Buffer.from(JSON.stringify({ r: 'other', e: 9e9 })).toString('base64url')}.${m}`;
    expect(checkToken('s', forged, 'other')).toMatch(/signature/);
    expect(checkToken('s', `${v}.${p}`, 'lab')).toMatch(/malformed/);
    expect(() => mintToken('s', 'bad room!', 60)).toThrow(/room/);
    expect(parseDuration('1h')).toBe(3600);
    expect(parseDuration('15m')).toBe(900);
    expect(parseDuration('90')).toBe(90);
    expect(() => parseDuration('soon')).toThrow(/duration/);
  });
});

describe('the signaling server', () => {
  it('introduces the peers of a room and relays signals between them only', async () => {
    const a = await join('r1'), b = await join('r1'), x = await join('r2');
    expect(a.welcome).toMatchObject({ t: 'welcome', peers: [] });
    expect(b.welcome.peers).toEqual([a.welcome.id]);
    expect(await a.next('joined')).toEqual({ t: 'joined', id: b.welcome.id });
    const cand = { type: 'candidate', candidate: { candidate: 'candidate:1 1 udp 2122260223 127.0.0.1 5000 typ host', sdpMLineIndex: 0, sdpMid: '0' } };
    a.ws.send(JSON.stringify({ t: 'signal', to: b.welcome.id, data: cand }));
    expect(await b.next('signal')).toEqual({ t: 'signal', from: a.welcome.id, data: cand });
    // a peer of another room cannot be reached
    x.ws.send(JSON.stringify({ t: 'signal', to: a.welcome.id, data: { type: 'offer', sdp: 'v=0' } }));
    expect((await x.next('error')).reason).toMatch(/no peer/);
    expect(server.rooms().get('r1')).toHaveLength(2);
    b.ws.close();
    expect(await a.next('left')).toEqual({ t: 'left', id: b.welcome.id });
    a.ws.close(); x.ws.close();
  });

  it('refuses a token for another room, an expired token and a forged one, with a logged reason', async () => {
    for (const [token, why] of [[mintToken(SECRET, 'elsewhere', 60), /another room/], [mintToken(SECRET, 'r3', 60, Date.now() - 120_000), /expired/], [mintToken('wrong', 'r3', 60), /signature/], ['nonsense', /malformed/]] as const) {
      logs.length = 0;
      const c = await join('r3', token);
      expect(c.welcome.t).toBe('error');
      expect(c.welcome.reason).toMatch(why);
      expect(await c.closed).toBe(1008);
      expect(logs.some((l) => l.event === 'refused' && why.test(l.reason ?? ''))).toBe(true);
    }
    expect(server.rooms().has('r3')).toBe(false);
    await stillServes();
  });

  it('refuses malformed, unknown, oversized and binary messages, and signals before joining', async () => {
    let a = await join('r4');
    const bad: [string | Buffer, RegExp][] = [
      ['{not json', /not JSON/],
      [JSON.stringify({ t: 'shout', text: 'hi' }), /bad message/],
      [JSON.stringify({ t: 'signal', to: 'x', data: { type: 'offer', sdp: 'v=0' }, extra: 1 }), /bad message/],
      [JSON.stringify({ t: 'signal', to: 'x', data: { type: 'offer', sdp: 42 } }), /field data/],
      [JSON.stringify({ t: 'signal', to: '../../etc', data: { renegotiate: true } }), /field to/],
      [JSON.stringify({ t: 'signal', to: 'x', data: { type: 'offer', sdp: 'v'.repeat(5000) } }), /over the 4096-byte limit/],
      [Buffer.from([1, 2, 3]), /binary/],
    ];
    for (const [i, [m, why]] of bad.entries()) {
      logs.length = 0;
      a.ws.send(m);
      expect((await a.next('error')).reason).toMatch(why);
      expect(logs[0]!.reason).toMatch(why);
      // five strikes close the socket (limits.strikes)
      if (i === 4) {
        expect(await a.closed).toBe(1008);
        a = await join('r4');
      }
    }
    a.ws.close();
    const c = await connect();
    c.ws.send(JSON.stringify({ t: 'signal', to: 'abc', data: { renegotiate: true } }));
    expect((await c.next('error')).reason).toMatch(/join a room first/);
    expect(await c.closed).toBe(1008);
    // a frame far over the limit closes the socket at the WebSocket layer
    const d = await join('r4');
    d.ws.send('x'.repeat(100_000));
    expect(await d.closed).toBe(1009);
    await stillServes();
  });

  it('caps the peers of a room, floods and idle sockets', async () => {
    const ps = [await join('r5'), await join('r5'), await join('r5')];
    const extra = await join('r5');
    expect(extra.welcome.reason).toMatch(/room is full/);
    ps.forEach((p) => p.ws.close());
    const f = await join('r6');
    for (let i = 0; i < 100; i++) f.ws.send(JSON.stringify({ t: 'ping' }));
    expect(await f.closed).toBe(1008);
    expect(f.inbox.some((m) => m.t === 'error' && /rate limit/.test(String(m.reason)))).toBe(true);
    // silent past the idle timeout (600 ms here): closed; a socket that never joins: closed sooner
    const idle = await join('r7');
    const t0 = Date.now();
    await idle.closed;
    expect(Date.now() - t0).toBeGreaterThanOrEqual(500);
    const lurker = await connect();
    await lurker.closed;
    expect(logs.some((l) => l.event === 'timeout' && l.reason === 'no join')).toBe(true);
    await stillServes();
  });
});

describe('resuming a peer id', () => {
  it('gives a peer its id back with its key, refuses a forged key, and replaces a stale socket of that id', async () => {
    const room = 'resume';
    const a = await join(room), b = await join(room);
    const id = String(a.welcome.id), key = String(a.welcome.key);
    expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // a forged key (another id's, or made up) is refused and closes the socket; the room is unchanged
    for (const forged of [String(b.welcome.key), `${key.slice(0, -2)}AA`]) {
      logs.length = 0;
      const f = await connect();
      f.ws.send(JSON.stringify({ t: 'join', room, token: mintToken(SECRET, room, 60), id, key: forged }));
      expect((await f.next('error')).reason).toMatch(/bad resume key/);
      expect(await f.closed).toBe(1008);
      expect(logs.some((l) => l.event === 'refused' && l.reason === 'bad resume key')).toBe(true);
    }
    // a key of one room does not work in another
    const elsewhere = await connect();
    elsewhere.ws.send(JSON.stringify({ t: 'join', room: 'resume2', token: mintToken(SECRET, 'resume2', 60), id, key }));
    expect((await elsewhere.next('error')).reason).toMatch(/bad resume key/);
    // an id without its key is a bad message
    const half = await connect();
    half.ws.send(JSON.stringify({ t: 'join', room, token: mintToken(SECRET, room, 60), id }));
    expect((await half.next('error')).reason).toMatch(/id and key/);
    expect(server.rooms().get(room)).toEqual([id, b.welcome.id]);
    // while a's socket is still open (the server has not noticed it died), the resumed one takes its place
    const a2 = await connect();
    a2.ws.send(JSON.stringify({ t: 'join', room, token: mintToken(SECRET, room, 60), id, key }));
    const w = await a2.next('welcome');
    expect(w).toMatchObject({ id, key, peers: [b.welcome.id] });
    expect(await a.closed).toBe(4001);
    expect(await b.next('joined')).toEqual({ t: 'joined', id });
    // the stale socket's close says nothing to the room, which still holds the id, now on the new socket
    await new Promise((r) => setTimeout(r, 50));
    expect(b.inbox.some((m) => m.t === 'left')).toBe(false);
    expect(server.rooms().get(room)!.sort()).toEqual([id, String(b.welcome.id)].sort());
    b.ws.send(JSON.stringify({ t: 'signal', to: id, data: { relink: true }, link: 'n1' }));
    expect(await a2.next('signal')).toEqual({ t: 'signal', from: b.welcome.id, data: { relink: true }, link: 'n1' });
    a2.ws.close(); b.ws.close();
    await stillServes();
  });

  it('keys survive a restart of the server with the same secret: the peer regains its id', async () => {
    const s1 = await startSignalServer({ port: 0, secret: 'restart-secret', log: () => undefined });
    const port = s1.port;
    const welcome = async (url: string, m: object) => {
      const ws = new WebSocket(url);
      await new Promise((r, j) => { ws.once('open', r); ws.once('error', j); });
      const got = new Promise<Record<string, unknown>>((r) => ws.once('message', (d) => r(JSON.parse(String(d)))));
      ws.send(JSON.stringify(m));
      return { ws, m: await got };
    };
    const tok = mintToken('restart-secret', 'lab', 60);
    const first = await welcome(s1.url, { t: 'join', room: 'lab', token: tok });
    await s1.close();
    const s2 = await startSignalServer({ port, secret: 'restart-secret', log: () => undefined });
    try {
      const again = await welcome(s2.url, { t: 'join', room: 'lab', token: tok, id: first.m.id, key: first.m.key });
      expect(again.m).toMatchObject({ t: 'welcome', id: first.m.id, key: first.m.key, peers: [] });
      again.ws.close();
    } finally {
      await s2.close();
    }
    // another secret does not honour it
    const s3 = await startSignalServer({ port, secret: 'other-secret', log: () => undefined });
    try {
      const refused = await welcome(s3.url, { t: 'join', room: 'lab', token: mintToken('other-secret', 'lab', 60), id: first.m.id, key: first.m.key });
      expect(refused.m).toMatchObject({ t: 'error', reason: 'bad resume key' });
    } finally {
      await s3.close();
    }
  });
});
