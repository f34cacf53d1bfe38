// A seeded in-memory network for testing the mesh roles: every pair of live
// endpoints is linked; each message is encoded and decoded as on a real data
// channel, then delivered after a random delay (so messages reorder), or
// dropped with the configured probability, or delivered twice (a replay).
// `kill` takes an endpoint off the network as a closed tab would; `join` adds
// one mid-job; `freeze` holds everything to and from an endpoint for a while
// (a stalled tab that wakes up after its leases lapsed); `cut` takes down
// the link between two endpoints only (both stay linked to everyone else, as
// when one WebRTC link failed), `mend` brings it back. `watch` sees every
// message as it is sent and as it arrives, so a chaos harness can kill a peer
// at a given step of the protocol. The same seed gives the same choices.

import { type Endpoint, type EndpointEvents, Listeners } from './endpoint.js';
import { type Message, decodeMessage, encodeMessage } from './protocol.js';

export interface SimOptions {
  readonly seed: number;
  /** Probability that a message is lost (never for the control-plane sync, which heals by itself anyway). */
  readonly drop?: number;
  readonly minDelayMs?: number;
  readonly maxDelayMs?: number;
  /** Extra delay of every message to or from these endpoints (a slow peer). */
  readonly slow?: ReadonlyMap<string, number>;
  /** Probability that a delivered message arrives a second time, later (never for the control-plane sync). */
  readonly duplicate?: number;
}

/** Called as a message leaves its sender ('send') and as it reaches its receiver ('arrive', before the receiver acts on it). */
export type Watcher = (step: 'send' | 'arrive', from: string, to: string, m: Message) => void;

/** A small, fast, seeded generator (mulberry32). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pair = (a: string, b: string): string => (a < b ? `${a}|${b}` : `${b}|${a}`);

export class SimNet {
  readonly random: () => number;
  private readonly nodes = new Map<string, SimEndpoint>();
  /** Messages dropped, delivered and delivered twice, for tests. */
  readonly counts = { sent: 0, dropped: 0, delivered: 0, duplicated: 0, held: 0 };
  private readonly frozen = new Map<string, number>();
  /** Pairs whose link is down, as `a|b` with a < b. */
  private readonly cuts = new Set<string>();
  private readonly watchers: Watcher[] = [];

  constructor(private readonly opts: SimOptions) {
    this.random = rng(opts.seed);
  }

  /** A new endpoint, linked to every live one. */
  join(id: string): SimEndpoint {
    if (this.nodes.has(id)) throw new Error(`endpoint ${id} exists`);
    const e = new SimEndpoint(id, this);
    const others = [...this.nodes.values()];
    this.nodes.set(id, e);
    for (const o of others) {
      this.later(0, () => { if (this.alive(o.id) && this.alive(id)) { o.listeners.peer(id, true); e.listeners.peer(o.id, true); } });
    }
    return e;
  }

  /** Takes an endpoint off the network: its links go down, its messages in flight are lost. */
  kill(id: string): void {
    if (!this.nodes.delete(id)) return;
    for (const o of this.nodes.values()) this.later(0, () => { if (this.alive(o.id)) o.listeners.peer(id, false); });
  }

  /** Takes down the link between `a` and `b`: both hear it went down, and messages between them fail. */
  cut(a: string, b: string): void {
    const k = pair(a, b);
    if (this.cuts.has(k) || !this.alive(a) || !this.alive(b)) return;
    this.cuts.add(k);
    for (const [x, y] of [[a, b], [b, a]] as const) {
      this.later(0, () => { if (this.alive(x)) this.nodes.get(x)!.listeners.peer(y, false); });
    }
  }

  /** Brings back a link taken down by `cut`. */
  mend(a: string, b: string): void {
    if (!this.cuts.delete(pair(a, b))) return;
    for (const [x, y] of [[a, b], [b, a]] as const) {
      this.later(0, () => { if (this.linked(x, y)) this.nodes.get(x)!.listeners.peer(y, true); });
    }
  }

  /** Whether `a` and `b` are both live and their link is not cut. */
  linked(a: string, b: string): boolean { return this.alive(a) && this.alive(b) && !this.cuts.has(pair(a, b)); }

  /** Holds every message to and from `id` for `ms` (its links stay up), then lets them through. */
  freeze(id: string, ms: number): void { this.frozen.set(id, performance.now() + ms); }

  watch(w: Watcher): void { this.watchers.push(w); }

  /** Milliseconds until neither end of a link is frozen. */
  private thaw(a: string, b: string): number {
    const now = performance.now();
    return Math.max(0, (this.frozen.get(a) ?? 0) - now, (this.frozen.get(b) ?? 0) - now);
  }

  alive(id: string): boolean { return this.nodes.has(id); }
  peersOf(id: string): string[] {
    return this.alive(id) ? [...this.nodes.keys()].filter((k) => k !== id && !this.cuts.has(pair(id, k))) : [];
  }

  private later(extra: number, f: () => void): void {
    const lo = this.opts.minDelayMs ?? 0, hi = this.opts.maxDelayMs ?? 5;
    setTimeout(f, extra + lo + this.random() * (hi - lo));
  }

  deliver(from: string, to: string, m: Message, payload?: Uint8Array): void {
    if (!this.linked(from, to)) throw new Error(`no link from ${from} to ${to}`);
    const bytes = encodeMessage(m, payload);
    this.counts.sent++;
    if (m.t !== 'y' && this.random() < (this.opts.drop ?? 0)) { this.counts.dropped++; return; }
    const sender = this.nodes.get(from)!;
    sender.count(to, bytes.length, 0);
    for (const w of this.watchers) w('send', from, to, m);
    const extra = (this.opts.slow?.get(from) ?? 0) + (this.opts.slow?.get(to) ?? 0);
    const arrive = (): void => {
      const dst = this.nodes.get(to);
      if (!dst || !this.linked(from, to)) return;
      const wait = this.thaw(from, to);
      if (wait > 0) { this.counts.held++; setTimeout(arrive, wait); return; }
      const d = decodeMessage(bytes);
      for (const w of this.watchers) w('arrive', from, to, d.m);
      if (!this.alive(to) || !this.alive(from)) return; // a watcher killed one of them
      this.counts.delivered++;
      dst.count(from, 0, bytes.length);
      dst.listeners.message(from, d.m, d.payload);
    };
    this.later(extra, arrive);
    if (m.t !== 'y' && this.random() < (this.opts.duplicate ?? 0)) { this.counts.duplicated++; this.later(extra + 20, arrive); }
  }
}

export class SimEndpoint implements Endpoint {
  readonly listeners = new Listeners();
  private readonly bytes = new Map<string, { sent: number; received: number }>();

  constructor(readonly id: string, private readonly net: SimNet) {}

  peers(): readonly string[] { return this.net.peersOf(this.id); }
  get traffic(): ReadonlyMap<string, { sent: number; received: number }> { return this.bytes; }

  count(peer: string, sent: number, received: number): void {
    const t = this.bytes.get(peer) ?? { sent: 0, received: 0 };
    t.sent += sent; t.received += received;
    this.bytes.set(peer, t);
  }

  async send(to: string, m: Message, payload?: Uint8Array): Promise<void> {
    this.net.deliver(this.id, to, m, payload);
  }

  on(e: Partial<EndpointEvents>): void { this.listeners.add(e); }

  async close(): Promise<void> { this.net.kill(this.id); }
}
