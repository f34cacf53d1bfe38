// The real network: an Endpoint over the signaling server and WebRTC data
// channels. The node joins a room on the signaling server (one WebSocket,
// JSON), which introduces it to the room's peers; a newcomer opens a
// simple-peer connection (an RTCPeerConnection with one data channel) to
// every peer already there, and the others answer. Messages (protocol.ts)
// travel as a byte stream on the channel: a u32 length, then the message,
// cut into frames no larger than the channel's maxMessageSize or 64 KiB
// (larger ones fail with these stacks); a sender waits on
// bufferedAmountLowThreshold when the channel's buffer passes HIGH_WATER, so
// a tab never overflows it. A browser passes its own WebSocket and
// RTCPeerConnection through the host; Node uses `ws` and @roamhq/wrtc.
//
// Healing (a volunteer mesh lives for hours; tabs stall, servers restart):
// - Links. Each end sends a keepalive (an empty message) every KEEPALIVE_MS;
//   a link silent for DEAD_MS, whose ICE failed, or that did not come up
//   within CONNECT_MS is closed at this end, which closes it at the other (or
//   the other's own keepalive check does). It is built again through the
//   signaling server while its peer is in the room, with backoff: the peer
//   with the smaller id always initiates (no glare), and the other asks it to
//   with a `relink` signal. Each attempt has a nonce (`link`) carried on its
//   signals: an offer with a new nonce replaces whatever link to that peer is
//   here (a stale one the other end gave up), and answers or candidates of an
//   attempt given up are ignored. A process that was itself stalled (its
//   timers fire late) does not blame its links for the silence.
// - The room. A lost signaling socket (a server restart, an idle timeout after
//   a stall, or a server silent for SERVER_SILENT_MS) is dialled again with
//   exponential backoff and jitter, joining with the resume key of the welcome
//   so the server gives back the same id: links stay up meanwhile, and the
//   pieces this peer holds keep their holder. `connection` says where it is.

import SimplePeer from 'simple-peer';
import { host } from '#host';
import type { Net, WebSocketLike } from '../host/types.js';
import { type Endpoint, type EndpointEvents, Listeners } from './endpoint.js';
import { MAX_MESSAGE_BYTES, type Message, decodeMessage, encodeMessage } from './protocol.js';

export interface ConnectOptions {
  readonly signal: string;
  readonly room: string;
  readonly token: string;
  /** The WebSocket and WebRTC to use; the host's own by default. */
  readonly host?: Net;
  /**
   * STUN/TURN servers for peers behind NATs (`[{ urls: 'stun:stun.example.org:3478' }]`).
   * None by default: peers on one machine or one network reach each other directly.
   */
  readonly iceServers?: readonly { readonly urls: string | readonly string[]; readonly username?: string; readonly credential?: string }[];
  readonly log?: (line: string) => void;
  /** How long to wait for the server's welcome. */
  readonly timeoutMs?: number;
  /** Backoff of reconnects to the signaling server (see backoff()). */
  readonly retry?: Partial<Backoff>;
}

/** Exponential backoff with jitter: the n-th retry (from 0) waits between half and all of min(maxMs, firstMs * 2^n). */
export interface Backoff { readonly firstMs: number; readonly maxMs: number }
const ROOM_RETRY: Backoff = { firstMs: 500, maxMs: 15_000 };
const LINK_RETRY: Backoff = { firstMs: 500, maxMs: 10_000 };

/** Milliseconds before retry `attempt` (from 0), with "equal jitter": peers that lost the server at once spread out. */
export function backoff(attempt: number, b: Backoff = ROOM_RETRY, random: () => number = Math.random): number {
  const cap = Math.min(b.maxMs, b.firstMs * 2 ** Math.min(attempt, 30));
  return cap / 2 + (random() * cap) / 2;
}

/** Keepalives on every link this often; a link silent for DEAD_MS is dead, one not up after CONNECT_MS failed. */
const KEEPALIVE_MS = 1000;
const DEAD_MS = 15_000;
const CONNECT_MS = 15_000;
/** A relink request is ignored while an attempt younger than this is under way. */
const FRESH_MS = 3000;
/** Pings to the server this often; a server silent this long is taken for gone. */
const PING_MS = 15_000;
const SERVER_SILENT_MS = 50_000;

const FRAME = 64 * 1024;
const HIGH_WATER = 4 * 1024 * 1024;
const LOW_WATER = 1024 * 1024;

interface Channel { bufferedAmount: number; bufferedAmountLowThreshold: number }
type Peer = SimplePeer.Instance & { _channel?: Channel; _pc?: { sctp?: { maxMessageSize?: number } }; _onChannelBufferedAmountLow?: () => void };

/** A message's buffer starts this large (or at its length, if less) and doubles as its bytes arrive. */
const FIRST_BUFFER = 1 << 20;

/**
 * Cuts a byte stream of length-prefixed messages (u32 little-endian length,
 * then the message) back into messages, whatever the frames it arrives in.
 * Each byte is copied into the message it belongs to; a message's buffer
 * grows as its bytes arrive, so a header that claims a gigabyte costs
 * nothing until the gigabyte comes (bytes of messages over FIRST_BUFFER are
 * copied about once more as it doubles).
 */
export class Reassembler {
  private readonly head = new Uint8Array(4);
  private headFilled = 0;
  private cur: Uint8Array | undefined;
  /** The length of the message being filled, and its bytes so far. */
  private want = 0;
  private filled = 0;

  push(data: Uint8Array): Uint8Array[] {
    const out: Uint8Array[] = [];
    let at = 0;
    while (at < data.length) {
      if (!this.cur) {
        const k = Math.min(4 - this.headFilled, data.length - at);
        this.head.set(data.subarray(at, at + k), this.headFilled);
        this.headFilled += k;
        at += k;
        if (this.headFilled < 4) break;
        const n = new DataView(this.head.buffer).getUint32(0, true);
        if (n > MAX_MESSAGE_BYTES) throw new Error(`a message of ${n} bytes is over the limit`);
        this.headFilled = 0;
        this.want = n;
        this.cur = new Uint8Array(Math.min(n, FIRST_BUFFER));
        this.filled = 0;
      }
      const k = Math.min(this.want - this.filled, data.length - at);
      if (this.filled + k > this.cur.length) {
        const grown = new Uint8Array(Math.min(this.want, Math.max(this.filled + k, 2 * this.cur.length)));
        grown.set(this.cur.subarray(0, this.filled));
        this.cur = grown;
      }
      this.cur.set(data.subarray(at, at + k), this.filled);
      this.filled += k;
      at += k;
      if (this.filled === this.want) { out.push(this.cur); this.cur = undefined; }
    }
    return out;
  }
}

class Link {
  up = false;
  /** When bytes last came from the peer, and when this attempt began. */
  heard = performance.now();
  readonly since = performance.now();
  private sending: Promise<void> = Promise.resolve();
  private readonly lows: (() => void)[] = [];
  private readonly inbox = new Reassembler();
  private frame = FRAME;

  constructor(readonly id: string, readonly peer: Peer, readonly nonce: string, readonly initiator: boolean) {}

  opened(): void {
    this.up = true;
    this.heard = performance.now();
    const ch = this.peer._channel;
    const max = this.peer._pc?.sctp?.maxMessageSize;
    if (max && max > 1024) this.frame = Math.min(FRAME, max);
    if (ch) ch.bufferedAmountLowThreshold = LOW_WATER;
    const orig = this.peer._onChannelBufferedAmountLow?.bind(this.peer);
    this.peer._onChannelBufferedAmountLow = () => { orig?.(); this.lows.splice(0).forEach((f) => f()); };
  }

  /** Queues `bytes` behind earlier messages; resolves when the last frame is handed to the channel. */
  send(bytes: Uint8Array): Promise<void> {
    const go = async () => {
      const head = new Uint8Array(4);
      new DataView(head.buffer).setUint32(0, bytes.length, true);
      const whole = new Uint8Array(4 + bytes.length);
      whole.set(head); whole.set(bytes, 4);
      for (let at = 0; at < whole.length; at += this.frame) {
        if (!this.up) throw new Error(`link to ${this.id} is down`);
        const ch = this.peer._channel;
        while (ch && ch.bufferedAmount > HIGH_WATER && this.up) {
          await new Promise<void>((r) => { this.lows.push(r); setTimeout(r, 50); });
        }
        this.peer.send(whole.subarray(at, Math.min(whole.length, at + this.frame)));
      }
    };
    const p = this.sending.then(go);
    this.sending = p.catch(() => undefined);
    return p;
  }

  /** A keepalive: an empty message, behind whatever is queued (bytes flowing say the same). */
  keepalive(): void {
    if (this.up) this.send(new Uint8Array(0)).catch(() => undefined);
  }

  /** Bytes from the channel; returns the whole messages they complete. */
  receive(data: Uint8Array): Uint8Array[] {
    this.heard = performance.now();
    return this.inbox.push(data);
  }

  close(): void {
    this.up = false;
    this.lows.splice(0).forEach((f) => f());
    this.peer.destroy();
  }
}

/**
 * The node's standing with the signaling server: 'online' while it is in the
 * room, 'reconnecting' while it is out of it and trying to get back (its
 * links to peers may stay up meanwhile), 'closed' once `close()` was called.
 */
export type Connection = 'online' | 'reconnecting' | 'closed';

interface Welcome { readonly id: string; readonly peers: readonly string[]; readonly key: string }
/** What the server sends (checked field by field where used: the server is trusted less than our own code). */
interface ServerMessage {
  t?: string; id?: string; peers?: unknown; key?: string; from?: string; data?: unknown; link?: string; reason?: string;
}

/** A timer that does not keep a Node process alive by itself. */
function later(f: () => void, ms: number): ReturnType<typeof setTimeout> {
  const t = setTimeout(f, ms);
  (t as { unref?: () => void }).unref?.();
  return t;
}

const nonce = (): string => Math.random().toString(36).slice(2, 10) || 'n';

export class MeshNode implements Endpoint {
  private readonly links = new Map<string, Link>();
  /** Peers the server says are in the room: links to them are kept up. */
  private readonly members = new Set<string>();
  /** Per peer: the pending retry of its link and how many came before it. */
  private readonly heal = new Map<string, { timer?: ReturnType<typeof setTimeout>; attempt: number }>();
  private conn: Connection = 'online';
  private readonly connWatchers = new Set<(c: Connection, why?: string) => void>();
  private readonly listeners = new Listeners();
  private readonly bytes = new Map<string, { sent: number; received: number }>();
  private ws: WebSocketLike | undefined;
  private key = '';
  private ping: ReturnType<typeof setInterval> | undefined;
  private lastServer = performance.now();
  private lastPingTick = performance.now();
  private readonly keepalive: ReturnType<typeof setInterval>;
  private lastTick = performance.now();
  private roomAttempt = 0;
  private redial: ReturnType<typeof setTimeout> | undefined;
  private closed = false;

  private constructor(readonly id: string, private readonly net: Net, private readonly opts: ConnectOptions) {
    this.keepalive = setInterval(() => this.checkLinks(), KEEPALIVE_MS);
    (this.keepalive as { unref?: () => void }).unref?.();
  }

  /** Joins the room; resolves once the server has admitted this node (links to peers come up after). */
  static async connect(opts: ConnectOptions): Promise<MeshNode> {
    const net = opts.host ?? (await host.net());
    const { ws, welcome, early } = await MeshNode.dial(net, opts);
    const node = new MeshNode(welcome.id, net, opts);
    node.attach(ws, welcome, early);
    return node;
  }

  /**
   * Opens a socket to the server and joins the room (as `resume.id`, when
   * given); resolves with the welcome and any messages that came right after
   * it, rejects when the server cannot be reached, refuses, or does not answer.
   */
  private static dial(
    net: Net, opts: ConnectOptions, resume?: { id: string; key: string },
  ): Promise<{ ws: WebSocketLike; welcome: Welcome; early: ServerMessage[] }> {
    const log = opts.log ?? (() => undefined);
    return new Promise((resolve, reject) => {
      let ws: WebSocketLike;
      try { ws = new net.WebSocket(opts.signal); } catch (e) { reject(e as Error); return; }
      let welcome: Welcome | undefined;
      const early: ServerMessage[] = [];
      const fail = (e: Error) => {
        clearTimeout(timer);
        ws.onopen = ws.onmessage = ws.onerror = ws.onclose = null;
        ws.close();
        reject(e);
      };
      const timer = setTimeout(() => fail(new Error(`no answer from the signaling server at ${opts.signal}`)),
        opts.timeoutMs ?? 10_000);
      ws.onopen = () => ws.send(JSON.stringify({ t: 'join', room: opts.room, token: opts.token, ...(resume ?? {}) }));
      ws.onerror = () => { if (!welcome) fail(new Error(`cannot reach the signaling server at ${opts.signal}`)); };
      ws.onclose = (e) => {
        if (!welcome) fail(new Error(`the signaling server closed the connection (${e.code} ${e.reason})`));
      };
      ws.onmessage = (e) => {
        let m: ServerMessage;
        try { m = JSON.parse(String(e.data)) as ServerMessage; } catch { return; }
        if (welcome) { early.push(m); return; } // the node takes over the socket in a moment: keep what comes meanwhile
        if (m.t === 'welcome' && typeof m.id === 'string' && Array.isArray(m.peers)) {
          if (resume && m.id !== resume.id) {
            fail(new Error(`the signaling server gave another id (${m.id}) than ${resume.id}`));
            return;
          }
          clearTimeout(timer);
          const peers = m.peers.filter((p): p is string => typeof p === 'string');
          welcome = { id: m.id, peers, key: typeof m.key === 'string' ? m.key : '' };
          resolve({ ws, welcome, early });
        } else if (m.t === 'error') {
          log(`signaling server: ${m.reason}`);
          fail(new Error(`the signaling server refused: ${m.reason}`));
        }
      };
    });
  }

  /** Takes over a socket the server admitted this node on: this node is in the room. */
  private attach(ws: WebSocketLike, welcome: Welcome, early: readonly ServerMessage[]): void {
    this.ws = ws;
    if (welcome.key) this.key = welcome.key;
    this.lastServer = this.lastPingTick = performance.now();
    ws.onmessage = (e) => {
      if (this.ws !== ws) return;
      this.lastServer = performance.now();
      let m: ServerMessage;
      try { m = JSON.parse(String(e.data)) as ServerMessage; } catch { return; }
      this.fromServer(m);
    };
    ws.onclose = (e) => this.lost(ws, `the server closed the connection (${e.code}${e.reason ? ` ${e.reason}` : ''})`);
    ws.onerror = () => undefined; // a close follows
    clearInterval(this.ping);
    this.ping = setInterval(() => {
      const now = performance.now();
      // timers that fire late mean this process stalled, not the server: it gets a fresh window
      if (now - this.lastPingTick > 2 * PING_MS) this.lastServer = now;
      this.lastPingTick = now;
      if (now - this.lastServer > SERVER_SILENT_MS) {
        this.lost(ws, `no word from the server for ${Math.round((now - this.lastServer) / 1000)} s`);
        return;
      }
      if (ws.readyState === 1) ws.send(JSON.stringify({ t: 'ping' }));
    }, PING_MS);
    (this.ping as { unref?: () => void }).unref?.();
    this.members.clear();
    for (const p of welcome.peers) { this.members.add(p); this.ensure(p); }
    this.roomAttempt = 0;
    this.setConnection('online');
    for (const m of early) this.fromServer(m);
    // closed between its welcome and now: no close event is coming for it
    if (ws.readyState > 1) this.lost(ws, 'the connection closed as it opened');
  }

  private fromServer(m: ServerMessage): void {
    if (m.t === 'error') this.opts.log?.(`signaling server: ${m.reason}`);
    else if (m.t === 'signal' && typeof m.from === 'string') {
      this.signal(m.from, m.data, typeof m.link === 'string' ? m.link : '');
    } else if (m.t === 'joined' && typeof m.id === 'string' && m.id !== this.id) {
      this.members.add(m.id);
      this.ensure(m.id);
    }
    else if (m.t === 'left' && typeof m.id === 'string') { this.members.delete(m.id); this.drop(m.id); }
  }

  /** The socket `ws` is gone: out of the room until a redial gets back in. */
  private lost(ws: WebSocketLike, why: string): void {
    if (this.ws !== ws || this.closed) return;
    this.ws = undefined;
    ws.onmessage = ws.onclose = ws.onerror = null;
    try { ws.close(); } catch { /* already closing */ }
    clearInterval(this.ping);
    this.opts.log?.(`signaling server: ${why}; links to peers stay up; reconnecting`);
    this.setConnection('reconnecting', why);
    this.scheduleRedial();
  }

  private scheduleRedial(): void {
    if (this.closed) return;
    const wait = backoff(this.roomAttempt++, { ...ROOM_RETRY, ...this.opts.retry });
    this.redial = later(() => {
      const resume = this.key ? { id: this.id, key: this.key } : undefined;
      MeshNode.dial(this.net, this.opts, resume).then(({ ws, welcome, early }) => {
        if (this.closed) { ws.close(1000, 'bye'); return; }
        this.opts.log?.(`signaling server: back in room ${this.opts.room} as ${this.id}`);
        this.attach(ws, welcome, early);
      }, (e: Error) => {
        this.opts.log?.(`signaling server: ${e.message}; trying again`);
        this.scheduleRedial();
      });
    }, wait);
  }

  /** The smaller id of a pair initiates its link, so the two never offer at once. */
  private initiates(peer: string): boolean { return this.id < peer; }

  /** Makes sure a link to room member `peer` is up or under way: starts one, or asks the peer to. */
  private ensure(peer: string): void {
    if (this.closed || !this.members.has(peer)) return;
    const l = this.links.get(peer);
    if (l?.up) return;
    if (this.initiates(peer)) {
      if (!l || performance.now() - l.since > FRESH_MS) this.link(peer, true, nonce());
    } else if (!l) {
      this.sendSignal(peer, { relink: true }, '');
    }
    this.retryLater(peer);
  }

  /** Looks at `peer`'s link again after a backoff, until it is up or the peer leaves the room. */
  private retryLater(peer: string): void {
    const h = this.heal.get(peer) ?? { attempt: 0 };
    this.heal.set(peer, h);
    if (h.timer) return;
    const look = () => {
      h.timer = undefined;
      const l = this.links.get(peer);
      if (this.closed || !this.members.has(peer) || l?.up) return;
      // an attempt still inside its connect window is left to finish; the next one waits longer
      const age = l ? performance.now() - l.since : Infinity;
      if (age < CONNECT_MS) { h.timer = later(look, CONNECT_MS - age + 10); return; }
      h.attempt++;
      if (l) this.drop(peer, 'the link did not come up in time', false);
      this.ensure(peer);
    };
    h.timer = later(look, backoff(h.attempt, LINK_RETRY));
  }

  private sendSignal(to: string, data: unknown, link: string): void {
    if (this.ws?.readyState === 1) this.ws.send(JSON.stringify({ t: 'signal', to, data, ...(link ? { link } : {}) }));
  }

  /** A signal from `from` for its link attempt `link`. */
  private signal(from: string, data: unknown, link: string): void {
    if (!data || typeof data !== 'object') return;
    const cur = this.links.get(from);
    if ((data as { relink?: unknown }).relink === true) {
      // the other end found the link dead (or never had it): build it again, unless an attempt just began
      if (!this.initiates(from)) return;
      if (cur && !cur.up && performance.now() - cur.since < FRESH_MS) return;
      this.opts.log?.(`peer ${from} asks for a new link`);
      if (cur) this.drop(from, undefined, false);
      this.members.add(from);
      this.link(from, true, nonce());
      this.retryLater(from);
      return;
    }
    if (cur && cur.nonce === link) { cur.peer.signal(data as SimplePeer.SignalData); return; }
    if ((data as { type?: unknown }).type !== 'offer') return; // an answer or candidate of an attempt given up
    // a new attempt from the other end replaces what is here, except our own offer when we should lead (glare)
    if (cur && cur.initiator && !cur.up && this.initiates(from)) return;
    if (cur) this.drop(from, undefined, false);
    this.link(from, false, link).peer.signal(data as SimplePeer.SignalData);
  }

  private link(id: string, initiator: boolean, n: string): Link {
    const old = this.links.get(id);
    if (old) this.drop(id, undefined, false);
    const peer = new SimplePeer({
      initiator, trickle: true, config: { iceServers: (this.opts.iceServers ?? []) as RTCIceServer[] },
      ...(this.net.wrtc ? { wrtc: this.net.wrtc as SimplePeer.Options['wrtc'] } : {}),
    }) as Peer;
    const l = new Link(id, peer, n, initiator);
    this.links.set(id, l);
    // events of a link replaced since are its own business
    const live = () => this.links.get(id) === l;
    peer.on('signal', (data: unknown) => { if (live()) this.sendSignal(id, data, n); });
    peer.on('connect', () => {
      if (!live()) return;
      l.opened();
      const h = this.heal.get(id);
      if (h) { clearTimeout(h.timer); this.heal.delete(id); }
      this.opts.log?.(`peer ${id}: link up`);
      this.listeners.peer(id, true);
    });
    peer.on('data', (d: Uint8Array) => {
      if (!live()) return;
      let msgs: Uint8Array[];
      try {
        msgs = l.receive(d);
      } catch (e) {
        this.drop(id, (e as Error).message);
        return;
      }
      for (const bytes of msgs) {
        if (bytes.length === 0) continue; // a keepalive
        this.count(id, 0, bytes.length + 4);
        let dm: ReturnType<typeof decodeMessage>;
        try {
          dm = decodeMessage(bytes);
        } catch (e) {
          this.opts.log?.(`peer ${id}: refused a message: ${(e as Error).message}`);
          continue;
        }
        this.listeners.message(id, dm.m, dm.payload);
      }
    });
    peer.on('close', () => { if (live()) this.drop(id, 'the link closed'); });
    peer.on('error', (e: Error) => { if (live()) this.drop(id, e.message); });
    return l;
  }

  /**
   * Closes the link to `id` (`why` is logged); with `relink`, one is built
   * again later if the peer is still in the room.
   */
  private drop(id: string, why?: string, relink = true): void {
    const l = this.links.get(id);
    if (!l) return;
    this.links.delete(id);
    const was = l.up;
    l.close();
    const again = relink && this.members.has(id) && !this.closed ? ' and building it again' : '';
    if (why) this.opts.log?.(`peer ${id}: ${why}; closing the link${again}`);
    if (was) this.listeners.peer(id, false);
    if (relink) this.retryLater(id);
  }

  /** Sends keepalives, and closes links that went silent or did not come up (see the top of the file). */
  private checkLinks(): void {
    const now = performance.now();
    const stalled = now - this.lastTick > 3 * KEEPALIVE_MS;
    this.lastTick = now;
    for (const l of [...this.links.values()]) {
      // this process was stalled: the silence was ours, so every link gets a fresh window
      if (stalled) l.heard = now;
      if (l.up) {
        if (now - l.heard > DEAD_MS) this.drop(l.id, `no data for ${Math.round((now - l.heard) / 1000)} s`);
        else l.keepalive();
      } else if (now - l.since > CONNECT_MS && !stalled) {
        this.drop(l.id, 'the link did not come up in time');
      }
    }
  }

  private count(peer: string, sent: number, received: number): void {
    const t = this.bytes.get(peer) ?? { sent: 0, received: 0 };
    t.sent += sent; t.received += received;
    this.bytes.set(peer, t);
  }

  /** Whether this node is in the room now (see Connection). */
  get connection(): Connection { return this.conn; }

  /** Calls `f` whenever the connection changes (with why, when it is lost); returns a function that stops it. */
  onConnection(f: (c: Connection, why?: string) => void): () => void {
    this.connWatchers.add(f);
    return () => { this.connWatchers.delete(f); };
  }

  private setConnection(c: Connection, why?: string): void {
    if (this.conn === c) return;
    this.conn = c;
    for (const f of this.connWatchers) {
      try { f(c, why); } catch (e) { console.error(`tessera mesh: connection watcher: ${(e as Error).message}`); }
    }
  }

  peers(): readonly string[] { return [...this.links.values()].filter((l) => l.up).map((l) => l.id); }
  get traffic(): ReadonlyMap<string, { sent: number; received: number }> { return this.bytes; }
  on(e: Partial<EndpointEvents>): void { this.listeners.add(e); }

  async send(to: string, m: Message, payload?: Uint8Array): Promise<void> {
    const l = this.links.get(to);
    if (!l?.up) throw new Error(`no link to peer ${to}`);
    const bytes = encodeMessage(m, payload);
    this.count(to, bytes.length + 4, 0);
    await l.send(bytes);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.setConnection('closed');
    clearInterval(this.ping);
    clearInterval(this.keepalive);
    clearTimeout(this.redial);
    for (const h of this.heal.values()) clearTimeout(h.timer);
    this.heal.clear();
    for (const id of [...this.links.keys()]) this.drop(id, undefined, false);
    const ws = this.ws;
    this.ws = undefined;
    if (ws) { ws.onclose = null; ws.close(1000, 'bye'); }
  }
}
