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
}

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
  private sending: Promise<void> = Promise.resolve();
  private readonly lows: (() => void)[] = [];
  private readonly inbox = new Reassembler();
  private frame = FRAME;

  constructor(readonly id: string, readonly peer: Peer) {}

  opened(): void {
    this.up = true;
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

  /** Bytes from the channel; returns the whole messages they complete. */
  receive(data: Uint8Array): Uint8Array[] {
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

export class MeshNode implements Endpoint {
  private readonly links = new Map<string, Link>();
  private conn: Connection = 'online';
  private readonly connWatchers = new Set<(c: Connection) => void>();
  private readonly listeners = new Listeners();
  private readonly bytes = new Map<string, { sent: number; received: number }>();
  private ping: ReturnType<typeof setInterval> | undefined;
  private closed = false;

  private constructor(readonly id: string, private readonly ws: WebSocketLike, private readonly net: Net, private readonly opts: ConnectOptions) {}

  /** Joins the room; resolves once the server has admitted this node (links to peers come up after). */
  static async connect(opts: ConnectOptions): Promise<MeshNode> {
    const log = opts.log ?? (() => undefined);
    const net = opts.host ?? (await host.net());
    return new Promise<MeshNode>((resolve, reject) => {
      const ws = new net.WebSocket(opts.signal);
      let node: MeshNode | undefined;
      const timer = setTimeout(() => { ws.close(); reject(new Error(`no answer from the signaling server at ${opts.signal}`)); }, opts.timeoutMs ?? 10_000);
      ws.onopen = () => ws.send(JSON.stringify({ t: 'join', room: opts.room, token: opts.token }));
      ws.onerror = () => { if (!node) { clearTimeout(timer); reject(new Error(`cannot reach the signaling server at ${opts.signal}`)); } };
      ws.onclose = (e) => {
        if (!node) { clearTimeout(timer); reject(new Error(`the signaling server closed the connection (${e.code} ${e.reason})`)); return; }
        if (!node.closed) log(`signaling server connection closed (${e.code} ${e.reason}); links to peers stay up`);
        clearInterval(node.ping);
        if (!node.closed) node.setConnection('reconnecting');
      };
      ws.onmessage = (e) => {
        let m: { t?: string; id?: string; peers?: string[]; from?: string; data?: unknown; reason?: string };
        try { m = JSON.parse(String(e.data)) as typeof m; } catch { return; }
        if (m.t === 'welcome' && !node && typeof m.id === 'string') {
          clearTimeout(timer);
          node = new MeshNode(m.id, ws, net, opts);
          node.ping = setInterval(() => { if (ws.readyState === 1) ws.send(JSON.stringify({ t: 'ping' })); }, 15_000);
          (node.ping as { unref?: () => void }).unref?.();
          for (const p of m.peers ?? []) node.link(p, true);
          resolve(node);
        } else if (m.t === 'error') {
          log(`signaling server: ${m.reason}`);
          if (!node) { clearTimeout(timer); reject(new Error(`the signaling server refused: ${m.reason}`)); }
        } else if (node && m.t === 'signal' && typeof m.from === 'string') {
          (node.links.get(m.from) ?? node.link(m.from, false)).peer.signal(m.data as SimplePeer.SignalData);
        } else if (node && m.t === 'left' && typeof m.id === 'string') {
          node.drop(m.id);
        }
      };
    });
  }

  private link(id: string, initiator: boolean): Link {
    const peer = new SimplePeer({ initiator, trickle: true, config: { iceServers: (this.opts.iceServers ?? []) as RTCIceServer[] }, ...(this.net.wrtc ? { wrtc: this.net.wrtc as SimplePeer.Options['wrtc'] } : {}) }) as Peer;
    const l = new Link(id, peer);
    this.links.set(id, l);
    peer.on('signal', (data: unknown) => {
      if (this.ws.readyState === 1) this.ws.send(JSON.stringify({ t: 'signal', to: id, data }));
    });
    peer.on('connect', () => {
      l.opened();
      this.listeners.peer(id, true);
    });
    peer.on('data', (d: Uint8Array) => {
      let msgs: Uint8Array[];
      try {
        msgs = l.receive(d);
      } catch (e) {
        this.opts.log?.(`peer ${id}: ${(e as Error).message}; closing the link`);
        this.drop(id);
        return;
      }
      for (const bytes of msgs) {
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
    peer.on('close', () => this.drop(id));
    peer.on('error', (e: Error) => { this.opts.log?.(`peer ${id}: ${e.message}`); this.drop(id); });
    return l;
  }

  private drop(id: string): void {
    const l = this.links.get(id);
    if (!l) return;
    this.links.delete(id);
    const was = l.up;
    l.close();
    if (was) this.listeners.peer(id, false);
  }

  private count(peer: string, sent: number, received: number): void {
    const t = this.bytes.get(peer) ?? { sent: 0, received: 0 };
    t.sent += sent; t.received += received;
    this.bytes.set(peer, t);
  }

  /** Whether this node is in the room now (see Connection). */
  get connection(): Connection { return this.conn; }

  /** Calls `f` whenever the connection changes; returns a function that stops it. */
  onConnection(f: (c: Connection) => void): () => void {
    this.connWatchers.add(f);
    return () => { this.connWatchers.delete(f); };
  }

  private setConnection(c: Connection): void {
    if (this.conn === c) return;
    this.conn = c;
    for (const f of this.connWatchers) {
      try { f(c); } catch (e) { console.error(`tessera mesh: connection watcher: ${(e as Error).message}`); }
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
    for (const id of [...this.links.keys()]) this.drop(id);
    this.ws.close(1000, 'bye');
  }
}
