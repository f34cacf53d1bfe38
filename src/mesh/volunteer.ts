// Lending this machine to a room: `await volunteer({ signal, room, token })`
// makes this process, or this tab, a worker peer until `leave()`. In a
// browser the WebRTC links stay on the page and the worker (compute and
// heartbeats) runs in a Web Worker (peer-thread.ts), so a hidden tab keeps
// its leases; in Node it runs in-process. Either way it is the same Peer.

import { spawnPeerThread } from '#peer-thread';
import type { Net, Thread } from '../host/types.js';
import type { DeviceChoice } from '../runtime/runtime.js';
import { type ConnectOptions, MeshNode } from './node.js';
import { Peer, type PeerStats } from './peer.js';
import type { Control } from './peer-thread.js';
import { bridge } from './relay.js';

export interface VolunteerOptions {
  readonly signal: string;
  readonly room: string;
  readonly token: string;
  /** 'wasm' (default), 'webgpu', or 'auto' (WebGPU on a hardware adapter). */
  readonly device?: DeviceChoice;
  /** Bytes of chunks kept at most (default 2 GiB). */
  readonly memory?: number;
  readonly log?: (line: string) => void;
  /** TESTS ONLY: the fraction of results to corrupt, to show verification at work. */
  readonly lie?: number;
  /** The WebSocket and WebRTC to use; the host's own by default. */
  readonly host?: Net;
  readonly iceServers?: ConnectOptions['iceServers'];
}

export interface VolunteerStats extends PeerStats {
  /** Bytes this peer sent and received on all its links (tasks, chunks, heartbeats, state). */
  readonly bytesSent: number;
  readonly bytesReceived: number;
  /** Peers it has a live link to. */
  readonly links: number;
}

type FromThread = { k: 'ready' | 'stats'; stats: PeerStats } | { k: 'error'; message: string } | { k: 'log'; line: string } | { k: 'left' };

export class Volunteer {
  private last: PeerStats | undefined;
  /** Whether the volunteer asked to pause, as of the last call (a tab's thread confirms it in its next stats). */
  private paused = false;
  private readonly watchers: ((s: VolunteerStats) => void)[] = [];
  private left = false;

  private constructor(readonly node: MeshNode, private readonly peer: Peer | undefined, private readonly thread: Thread | undefined) {}

  static async join(opts: VolunteerOptions): Promise<Volunteer> {
    const node = await MeshNode.connect({ signal: opts.signal, room: opts.room, token: opts.token, ...(opts.host ? { host: opts.host } : {}), ...(opts.iceServers ? { iceServers: opts.iceServers } : {}), ...(opts.log ? { log: opts.log } : {}) });
    const peerOpts = { ...(opts.device ? { device: opts.device } : {}), ...(opts.memory ? { memory: opts.memory } : {}), ...(opts.lie ? { lie: opts.lie } : {}) };
    const thread = spawnPeerThread();
    if (!thread) {
      try {
        const v = new Volunteer(node, await Peer.start(node, { ...peerOpts, ...(opts.log ? { log: opts.log } : {}) }), undefined);
        v.last = v.peer!.stats();
        return v;
      } catch (e) { await node.close(); throw e; }
    }
    return new Promise<Volunteer>((resolve, reject) => {
      let v: Volunteer | undefined;
      thread.onError((e) => { if (!v) { void node.close(); reject(e); } else opts.log?.(`peer thread: ${e.message}`); });
      thread.post({ k: 'start', opts: peerOpts } satisfies Control);
      bridge(node, thread, (raw) => {
        const m = raw as FromThread;
        if (m.k === 'ready') { v = new Volunteer(node, undefined, thread); v.update(m.stats); resolve(v); }
        else if (m.k === 'stats') v?.update(m.stats);
        else if (m.k === 'log') opts.log?.(m.line);
        else if (m.k === 'error' && !v) { void thread.terminate(); void node.close(); reject(new Error(m.message)); }
        else if (m.k === 'left') v?.onLeft?.();
      });
    });
  }

  private onLeft: (() => void) | undefined;

  get id(): string { return this.node.id; }

  private update(s: PeerStats): void {
    this.last = s;
    const full = this.stats();
    for (const f of this.watchers) f(full);
  }

  /** The latest numbers (a tab's worker sends them twice a second). */
  stats(): VolunteerStats {
    if (this.peer) this.last = this.peer.stats();
    let sent = 0, received = 0;
    for (const t of this.node.traffic.values()) { sent += t.sent; received += t.received; }
    const paused = this.peer ? this.last!.paused : this.paused;
    return { ...this.last!, paused, bytesSent: sent, bytesReceived: received, links: this.node.peers().length };
  }

  /** Calls `f` with fresh stats as they come (in Node, every half second). */
  onStats(f: (s: VolunteerStats) => void): () => void {
    this.watchers.push(f);
    const timer = this.peer ? setInterval(() => f(this.stats()), 500) : undefined;
    (timer as { unref?: () => void } | undefined)?.unref?.();
    return () => { clearInterval(timer); this.watchers.splice(this.watchers.indexOf(f), 1); };
  }

  /** Takes no new tasks until `resume` (coordinators stop placing work here); running tasks finish. */
  pause(): void {
    this.paused = true;
    if (this.peer) this.peer.pause(); else this.thread!.post({ k: 'pause' } satisfies Control);
  }

  resume(): void {
    this.paused = false;
    if (this.peer) this.peer.resume(); else this.thread!.post({ k: 'resume' } satisfies Control);
  }

  /**
   * Leaves the room gracefully: out of placement, running tasks finish (a
   * few seconds at most), then the links close, so coordinators re-lease at
   * once. A tab that closes without this is safe too: its leases lapse.
   */
  async leave(): Promise<void> {
    if (this.left) return;
    this.left = true;
    if (this.peer) await this.peer.leave();
    else {
      await new Promise<void>((r) => {
        const timer = setTimeout(r, 5000);
        this.onLeft = () => { clearTimeout(timer); r(); };
        this.thread!.post({ k: 'leave' } satisfies Control);
      });
      await this.thread!.terminate();
    }
    await this.node.close();
  }
}

/** Makes this process or tab a worker peer of the room (see Volunteer). */
export const volunteer = (opts: VolunteerOptions): Promise<Volunteer> => Volunteer.join(opts);
