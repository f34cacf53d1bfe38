// The signaling server: introduces the peers of a room to each other and
// relays their WebRTC offers, answers and ICE candidates; nothing else. A
// peer joins a room with a token signed by the server's secret (token.ts).
// Every message is checked against a closed schema (protocol below) and a
// size limit; each socket has a message rate limit, each room a peer limit,
// and a socket that stays silent past the idle timeout is closed. A refused
// join or message is answered with { t: 'error', reason }, logged with its
// reason, and never takes the server down. Chunk data never passes here:
// peers send it to each other over their data channels.
//
// Protocol (JSON text frames):
//   peer -> server  { t: 'join', room, token }        first message, once
//                   { t: 'join', room, token, id, key }  the same, regaining
//                                                      an id (see below)
//                   { t: 'signal', to, data, link? }   to a peer of the room
//                   { t: 'ping' }                      keeps the socket alive
//   server -> peer  { t: 'welcome', id, peers, key }   the peer's id, the
//                                                      others, its resume key
//                   { t: 'joined', id } / { t: 'left', id }
//                   { t: 'signal', from, data, link? }
//                   { t: 'pong' } / { t: 'error', reason }
// `data` is simple-peer's signal: an offer or answer ({ type, sdp }), an ICE
// candidate ({ type: 'candidate', candidate: { candidate, sdpMLineIndex,
// sdpMid } }) or a renegotiation request; or { relink: true }, a peer asking
// the other end of a link it found dead to build it again. `link` names one
// attempt at a link (its initiator picks it), so signals of an attempt given
// up are told from those of the current one.
//
// Resuming: `key` in the welcome is HMAC(secret, room + id) (token.ts). A
// peer that lost its socket (the server restarted, or closed it as idle after
// the peer's process stalled) joins again with { id, key } and a valid token,
// and is admitted under the same id, so its links and the pieces it holds stay
// good; a socket that still holds that id is closed as stale (4001), without
// a 'left' for it. A key that does not verify is refused like a forged token.

import { randomBytes } from 'node:crypto';
import { type IncomingMessage, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocket, WebSocketServer } from 'ws';
import { z } from 'zod';
import { checkResumeKey, checkToken, resumeKey, validRoom } from './token.js';

export interface Limits {
  /** Largest message accepted, in bytes. */
  readonly maxMessageBytes: number;
  readonly maxPeersPerRoom: number;
  /** Messages per second a socket may send on average, and in a burst. */
  readonly ratePerSecond: number;
  readonly burst: number;
  /** A socket silent this long is closed (peers ping every idleMs / 3). */
  readonly idleMs: number;
  /** A socket that has not joined a room this long after connecting is closed. */
  readonly joinMs: number;
  /** Refused messages a socket may send before it is closed. */
  readonly strikes: number;
}

export const DEFAULT_LIMITS: Limits = { maxMessageBytes: 4096, maxPeersPerRoom: 64, ratePerSecond: 50, burst: 200, idleMs: 60_000, joinMs: 10_000, strikes: 5 };

export interface LogEvent { readonly event: string; readonly reason?: string; readonly room?: string; readonly peer?: string; readonly addr?: string }

export interface SignalServerOptions {
  readonly port?: number;
  readonly host?: string;
  readonly secret: string;
  readonly limits?: Partial<Limits>;
  /** Where refusals and joins are logged (default: one JSON line per event on stderr). */
  readonly log?: (e: LogEvent) => void;
}

export interface SignalServer {
  readonly url: string;
  readonly port: number;
  /** Rooms and the ids of their peers. */
  rooms(): Map<string, string[]>;
  close(): Promise<void>;
}

const id = z.string().regex(/^[A-Za-z0-9_-]{1,32}$/);
const sdp = z.strictObject({ type: z.enum(['offer', 'answer']), sdp: z.string().max(3500) });
const candidate = z.strictObject({
  type: z.literal('candidate'),
  candidate: z.strictObject({
    candidate: z.string().max(512),
    sdpMLineIndex: z.number().int().min(0).max(64).nullable().optional(),
    sdpMid: z.string().max(32).nullable().optional(),
    usernameFragment: z.string().max(64).nullable().optional(),
  }),
});
const renegotiate = z.strictObject({ renegotiate: z.literal(true) });
const relink = z.strictObject({ relink: z.literal(true) });
/** Names one attempt at a link (node.ts). */
const nonce = z.string().regex(/^[\w-]{1,16}$/);
export const SignalData = z.union([sdp, candidate, renegotiate, relink]);
export type SignalData = z.infer<typeof SignalData>;

const ClientMessage = z.discriminatedUnion('t', [
  z.strictObject({
    t: z.literal('join'), room: z.string().max(64), token: z.string().max(512),
    id: id.optional(), key: z.string().max(64).optional(),
  }).refine((m) => (m.id === undefined) === (m.key === undefined), 'id and key come together'),
  z.strictObject({ t: z.literal('signal'), to: id, data: SignalData, link: nonce.optional() }),
  z.strictObject({ t: z.literal('ping') }),
]);
type ClientMessage = z.infer<typeof ClientMessage>;

interface Client {
  readonly ws: WebSocket;
  readonly addr: string;
  id?: string;
  room?: string;
  tokens: number;
  last: number;
  strikes: number;
  idle?: ReturnType<typeof setTimeout>;
  /** Another socket took over this one's id (a resume): its close says nothing to the room. */
  replaced?: boolean;
}

/** Starts a signaling server; resolves once it listens. */
export async function startSignalServer(opts: SignalServerOptions): Promise<SignalServer> {
  if (!opts.secret) throw new Error('the signaling server needs a secret (--secret)');
  const L: Limits = { ...DEFAULT_LIMITS, ...opts.limits };
  const log = opts.log ?? ((e: LogEvent) => process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), ...e })}\n`));
  const rooms = new Map<string, Map<string, Client>>();

  const http = createServer((req, res) => {
    if (req.url === '/health') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ rooms: rooms.size, peers: [...rooms.values()].reduce((a, r) => a + r.size, 0) }));
      return;
    }
    res.writeHead(426, { 'content-type': 'text/plain' });
    res.end('Tessera signaling server: connect with a WebSocket\n');
  });
  // ws refuses frames over maxPayload by closing the socket (1009); smaller ones over the limit get an error reply
  const wss = new WebSocketServer({ server: http, maxPayload: Math.max(L.maxMessageBytes * 4, 16384) });

  const send = (c: Client, m: object): void => {
    if (c.ws.readyState === WebSocket.OPEN) c.ws.send(JSON.stringify(m));
  };
  const refuse = (c: Client, reason: string, close = false, strike = true): void => {
    log({ event: 'refused', reason, addr: c.addr, ...(c.room ? { room: c.room } : {}), ...(c.id ? { peer: c.id } : {}) });
    send(c, { t: 'error', reason });
    if (close || (strike && ++c.strikes >= L.strikes)) c.ws.close(1008, reason.slice(0, 120));
  };
  const touch = (c: Client, ms: number): void => {
    clearTimeout(c.idle);
    c.idle = setTimeout(() => {
      log({ event: 'timeout', reason: c.id ? 'idle socket' : 'no join', addr: c.addr, ...(c.id ? { peer: c.id } : {}) });
      c.ws.close(1000, 'idle');
    }, ms);
  };
  const leave = (c: Client): void => {
    clearTimeout(c.idle);
    if (!c.room || !c.id) return;
    const r = rooms.get(c.room);
    if (c.replaced || r?.get(c.id) !== c) return;
    r.delete(c.id);
    if (r.size === 0) rooms.delete(c.room);
    else for (const o of r.values()) send(o, { t: 'left', id: c.id });
    log({ event: 'left', room: c.room, peer: c.id });
  };

  const handle = (c: Client, m: ClientMessage): void => {
    if (m.t === 'ping') return send(c, { t: 'pong' });
    if (m.t === 'join') {
      if (c.id) return refuse(c, 'already joined');
      if (!validRoom(m.room)) return refuse(c, 'bad room name', true);
      const why = checkToken(opts.secret, m.token, m.room);
      if (why) return refuse(c, why, true);
      const resumed = m.id !== undefined;
      if (resumed && !checkResumeKey(opts.secret, m.room, m.id!, m.key!)) return refuse(c, 'bad resume key', true);
      const r = rooms.get(m.room) ?? new Map<string, Client>();
      const stale = m.id !== undefined ? r.get(m.id) : undefined;
      if (!stale && r.size >= L.maxPeersPerRoom) return refuse(c, `room is full (${L.maxPeersPerRoom} peers)`, true);
      rooms.set(m.room, r);
      c.id = m.id ?? randomBytes(9).toString('base64url');
      c.room = m.room;
      if (stale) {
        stale.replaced = true;
        clearTimeout(stale.idle);
        r.delete(c.id);
        stale.ws.close(4001, 'replaced by a resumed connection');
      }
      send(c, { t: 'welcome', id: c.id, peers: [...r.keys()], key: resumeKey(opts.secret, m.room, c.id) });
      for (const o of r.values()) send(o, { t: 'joined', id: c.id });
      r.set(c.id, c);
      const replaced = stale ? { reason: 'replaced a stale socket' } : {};
      log({ event: resumed ? 'resumed' : 'joined', room: c.room, peer: c.id, addr: c.addr, ...replaced });
      return;
    }
    if (!c.id) return refuse(c, 'join a room first', true);
    const to = rooms.get(c.room!)?.get(m.to);
    // no strike: a peer that just left, or has not come back after a restart, is an ordinary race
    if (!to) return refuse(c, `no peer ${m.to} in this room`, false, false);
    send(to, { t: 'signal', from: c.id, data: m.data, ...(m.link ? { link: m.link } : {}) });
  };

  wss.on('connection', (ws: WebSocket, req: IncomingMessage) => {
    const c: Client = { ws, addr: `${req.socket.remoteAddress}:${req.socket.remotePort}`, tokens: L.burst, last: Date.now(), strikes: 0 };
    touch(c, L.joinMs);
    ws.on('message', (raw: Buffer | ArrayBuffer | Buffer[], binary: boolean) => {
      // a socket being closed (refused, flooding, idle) may still have frames in flight: they are not read, nor logged one by one
      if (ws.readyState !== WebSocket.OPEN) return;
      try {
        const now = Date.now();
        c.tokens = Math.min(L.burst, c.tokens + ((now - c.last) / 1000) * L.ratePerSecond);
        c.last = now;
        if (c.tokens < 1) return refuse(c, `rate limit (${L.ratePerSecond} messages/s)`, true);
        c.tokens -= 1;
        const bytes = Array.isArray(raw) ? raw.reduce((a, b) => a + b.length, 0) : raw instanceof ArrayBuffer ? raw.byteLength : raw.length;
        if (binary) return refuse(c, 'binary message (the protocol is JSON text)');
        if (bytes > L.maxMessageBytes) return refuse(c, `message of ${bytes} bytes over the ${L.maxMessageBytes}-byte limit`);
        let json: unknown;
        try {
          json = JSON.parse(Buffer.isBuffer(raw) ? raw.toString('utf8') : Buffer.from(raw as ArrayBuffer).toString('utf8'));
        } catch {
          return refuse(c, 'message is not JSON');
        }
        const parsed = ClientMessage.safeParse(json);
        if (!parsed.success) {
          const issue = parsed.error.issues[0]!;
          return refuse(c, `bad message: ${issue.path.length ? `field ${issue.path.join('.')}: ` : ''}${issue.message}`);
        }
        if (c.id) touch(c, L.idleMs);
        handle(c, parsed.data);
        if (c.id && parsed.data.t === 'join') touch(c, L.idleMs);
      } catch (e) {
        // a bug here must not take the server down: log it and drop the socket
        log({ event: 'error', reason: (e as Error).message, addr: c.addr });
        ws.close(1011, 'internal error');
      }
    });
    ws.on('error', (e: Error) => log({ event: 'refused', reason: e.message, addr: c.addr }));
    ws.on('close', () => leave(c));
  });
  wss.on('error', (e: Error) => log({ event: 'error', reason: e.message }));

  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(opts.port ?? 8787, opts.host ?? '127.0.0.1', () => resolve());
  });
  http.on('error', (e: Error) => log({ event: 'error', reason: e.message }));
  const port = (http.address() as AddressInfo).port;
  const host = opts.host ?? '127.0.0.1';
  return {
    url: `ws://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    rooms: () => new Map([...rooms].map(([k, r]) => [k, [...r.keys()]])),
    close: () => new Promise<void>((resolve) => {
      for (const c of wss.clients) c.terminate();
      wss.close(() => http.close(() => resolve()));
    }),
  };
}
