// The shared mesh state (the control plane, never chunk data) as a Yjs
// document every peer holds a replica of: `peers` maps a peer id to the
// capabilities it announced, `jobs` maps a job to its progress. A peer sends
// its local changes to every linked peer and its whole state to a peer that
// links up; replicas converge whatever the order updates arrive in.
//
// Who wrote what: a peer's Yjs client id is a hash of its peer id (which the
// signaling server assigns), so every entry names its writer. A replica takes
// a live peer's writes only from that peer's own link (copies relayed by
// others are dropped; the relay of peers that left is how their journals
// outlive them), takes a peer's capabilities only from the peer itself, and
// takes deletions of a live peer's entries only from that peer. So no peer can
// pause, hide or reshape another live peer, and readers of the journal check
// that its writer is the coordinator it names (journal.ts).

import * as encoding from 'lib0/encoding';
import * as Y from 'yjs';
import type { Endpoint } from './endpoint.js';

export interface Caps {
  /** An observer (a dashboard) only reads the state. */
  readonly role: 'worker' | 'coordinator' | 'observer';
  /** 'wasm', or the WebGPU adapter a worker runs float32 kernels on. */
  readonly device: string;
  /** Measured kernel throughput, million elements per second (placement weight). */
  readonly throughput: number;
  /** Bytes of chunks the peer keeps at most. */
  readonly memory: number;
  /** Tasks the peer runs at once (its worker threads). */
  readonly slots: number;
  /** 'node' or 'browser'. */
  readonly host?: string;
  /** A paused worker takes no new tasks (its volunteer asked it to rest). */
  readonly paused?: boolean;
}

/** Something a dashboard shows as it happens. */
export interface JobEvent {
  /** Milliseconds since the job started. */
  readonly ms: number;
  readonly kind: 'release' | 'recompute' | 'speculate' | 'peer-left' | 'quarantine' | 'resume' | 'bench' | 'failed' | 'finished';
  readonly peer?: string;
  readonly task?: number;
  readonly detail?: string;
}

/** A job's progress as its coordinator publishes it (a few times a second, and when it ends). */
export interface JobProgress {
  /** What the user called the job (`pi 1e9 · slice 3/10`), if they named it. */
  readonly name?: string;
  readonly done: number;
  readonly total: number;
  readonly peers: number;
  readonly state?: 'running' | 'finished' | 'failed' | 'cancelled';
  readonly started?: number;
  readonly ms?: number;
  readonly releases?: number;
  readonly recomputed?: number;
  readonly speculative?: number;
  readonly bytesMoved?: number;
  /** Per worker: tasks committed and bytes it fetched from other peers. */
  readonly perPeer?: Readonly<Record<string, { readonly tasks: number; readonly bytesIn: number }>>;
  /** The latest pieces committed, with the worker that wrote them (for the ring view). */
  readonly placed?: readonly (readonly [string, string])[];
  readonly events?: readonly JobEvent[];
}

const REMOTE = Symbol('remote');

/** The Yjs client id a peer writes with: FNV-1a of its peer id. */
export function clientOf(peer: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < peer.length; i++) h = Math.imul(h ^ peer.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** The Yjs client id that wrote the current value of `map[key]`, if it has one. */
export function writerOf<T>(map: Y.Map<T>, key: string): number | undefined {
  return (map as unknown as { _map: Map<string, Y.Item> })._map.get(key)?.id.client;
}

type Struct = Y.Item | Y.GC | Y.Skip;
/** Where an item of an update lands: a root map and its key, 'nested' (inside a value), or 'unknown' (its neighbours are not here yet). */
type Place = { root: string; key: string | null } | 'nested' | 'unknown';

/** Encodes structs (grouped by client, each group contiguous) and a delete set as a Yjs v1 update. */
function encodeUpdate(structs: readonly Struct[], ds: ReadonlyMap<number, readonly { clock: number; len: number }[]>): Uint8Array {
  const enc = new Y.UpdateEncoderV1();
  const groups = new Map<number, Struct[]>();
  for (const s of structs) { const g = groups.get(s.id.client); if (g) g.push(s); else groups.set(s.id.client, [s]); }
  encoding.writeVarUint(enc.restEncoder, groups.size);
  for (const [client, ss] of groups) {
    encoding.writeVarUint(enc.restEncoder, ss.length);
    enc.writeClient(client);
    encoding.writeVarUint(enc.restEncoder, ss[0]!.id.clock);
    for (const x of ss) x.write(enc, 0);
  }
  encoding.writeVarUint(enc.restEncoder, ds.size);
  for (const [client, items] of ds) {
    enc.resetDsCurVal();
    encoding.writeVarUint(enc.restEncoder, client);
    encoding.writeVarUint(enc.restEncoder, items.length);
    for (const it of items) { enc.writeDsClock(it.clock); enc.writeDsLen(it.len); }
  }
  return enc.toUint8Array();
}

export class MeshState {
  readonly doc = new Y.Doc();
  readonly peers: Y.Map<Caps>;
  readonly jobs: Y.Map<JobProgress>;

  private readonly timer: ReturnType<typeof setInterval>;

  /** `syncMs`: how often the whole state goes to every peer again (a lost update heals then). */
  constructor(private readonly ep: Endpoint, syncMs = 2000) {
    this.doc.clientID = clientOf(ep.id);
    this.peers = this.doc.getMap<Caps>('peers');
    this.jobs = this.doc.getMap<JobProgress>('jobs');
    this.doc.on('update', (u: Uint8Array, origin: unknown) => {
      if (origin === REMOTE) return;
      for (const p of ep.peers()) ep.send(p, { t: 'y' }, u).catch(() => undefined);
    });
    ep.on({
      peer: (id, up) => { if (up) ep.send(id, { t: 'y' }, Y.encodeStateAsUpdate(this.doc)).catch(() => undefined); },
      message: (from, m, payload) => {
        if (m.t !== 'y') return;
        try {
          const u = this.admit(from, payload!);
          if (u) Y.applyUpdate(this.doc, u, REMOTE);
        } catch (e) {
          console.error(`tessera mesh: a bad state update from ${from}: ${(e as Error).message}`);
        }
      },
    });
    this.timer = setInterval(() => {
      const all = Y.encodeStateAsUpdate(this.doc);
      for (const p of ep.peers()) ep.send(p, { t: 'y' }, all).catch(() => undefined);
    }, syncMs);
    (this.timer as { unref?: () => void }).unref?.();
  }

  close(): void { clearInterval(this.timer); }

  /**
   * What of an update from `from` this replica takes (see the top of the file):
   * the update itself, a copy without the parts it must not take, or nothing.
   * Throws on an update that is malformed or writes another peer's capabilities.
   */
  private admit(from: string, update: Uint8Array): Uint8Array | undefined {
    const { structs, ds } = Y.decodeUpdate(update) as { structs: Struct[]; ds: { clients: Map<number, { clock: number; len: number }[]> } };
    const sender = clientOf(from);
    // clients whose writes come from their own link only: every live peer, and this one
    const own = new Set([this.doc.clientID, ...this.ep.peers().map(clientOf)]);
    const mine = (c: number) => c === sender || !own.has(c);
    const keep = structs.filter((s) => mine(s.id.client));
    const at = this.placer(structs);
    for (const s of keep) {
      if (!(s instanceof Y.Item)) continue;
      const place = at(s);
      if (place === 'unknown') return undefined; // an update that arrived early: the next full state brings it again
      if (place !== 'nested' && place.root === 'peers' && (place.key === null || clientOf(place.key) !== s.id.client)) {
        throw new Error(`it writes the capabilities of peer ${place.key ?? '(none)'}`);
      }
    }
    const dels = new Map([...ds.clients].filter(([c]) => mine(c)));
    if (keep.length === structs.length && dels.size === ds.clients.size) return update;
    return keep.length || dels.size ? encodeUpdate(keep, dels) : undefined;
  }

  /**
   * Where the items of an update land: an item names its parent, or was
   * inserted next to a neighbour (in the update or in this replica) whose
   * place it shares. Chains of neighbours (a key written many times) are
   * walked once, with every item on the way remembered.
   */
  private placer(update: readonly Struct[]): (s: Y.Item) => Place {
    const byClient = new Map<number, Struct[]>(); // each in clock order, as an update lists them
    for (const x of update) { const l = byClient.get(x.id.client); if (l) l.push(x); else byClient.set(x.id.client, [x]); }
    const find = (id: Y.ID): Struct | undefined => {
      const l = byClient.get(id.client);
      let lo = 0, hi = (l?.length ?? 0) - 1;
      while (lo <= hi) {
        const m = (lo + hi) >> 1, x = l![m]!;
        if (id.clock < x.id.clock) hi = m - 1;
        else if (id.clock >= x.id.clock + x.length) lo = m + 1;
        else return x;
      }
      return undefined;
    };
    const memo = new Map<Struct, Place>();
    return (s) => {
      const chain: Struct[] = [];
      let cur: Struct = s;
      let place: Place;
      for (;;) {
        const known = memo.get(cur);
        if (known) { place = known; break; }
        if (!(cur instanceof Y.Item)) { place = 'nested'; break; } // collected: what lands next to it is collected too
        chain.push(cur);
        const parent = cur.parent as unknown;
        if (typeof parent === 'string') { place = { root: parent, key: cur.parentSub }; break; }
        if (parent) { place = 'nested'; break; }
        const next = cur.origin ?? cur.rightOrigin;
        if (!next || chain.length > update.length) { place = 'unknown'; break; }
        const inUpdate = find(next);
        if (inUpdate) { cur = inUpdate; continue; }
        place = this.placeInStore(next);
        break;
      }
      for (const x of chain) memo.set(x, place);
      return place;
    };
  }

  /** Where the item `id` of this replica sits, or 'unknown' if it has not arrived. */
  private placeInStore(id: Y.ID): Place {
    const list = this.doc.store.clients.get(id.client);
    const last = list?.[list.length - 1];
    if (!last || id.clock >= last.id.clock + last.length) return 'unknown';
    const item = Y.getItem(this.doc.store, id) as Y.Item | Y.GC;
    if (!(item instanceof Y.Item)) return 'nested';
    return this.placeOfType(item.parent as Y.AbstractType<unknown>, item.parentSub);
  }

  private placeOfType(type: Y.AbstractType<unknown>, key: string | null): Place {
    if (type._item) return 'nested';
    for (const [name, t] of this.doc.share) if (t === type) return { root: name, key };
    return 'nested';
  }

  announce(caps: Caps): void { this.peers.set(this.ep.id, caps); }

  /** This peer's id and the peers it has a live link to. */
  get self(): string { return this.ep.id; }
  linked(): readonly string[] { return this.ep.peers(); }

  /** Workers with a live link, and what they announced. */
  workers(): Map<string, Caps> {
    const live = new Set(this.ep.peers());
    const out = new Map<string, Caps>();
    for (const [id, c] of this.peers) if (live.has(id) && c.role === 'worker' && !c.paused) out.set(id, c);
    return out;
  }
}
