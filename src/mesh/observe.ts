// Watching a room without working in it: `await observe({ signal, room,
// token })` joins as an observer (coordinators never place work on it) and
// keeps a replica of the shared state, for dashboards: the peers with their
// capabilities and links, the jobs with their progress, placements and
// events, and the consistent-hash ring the coordinators place source chunks on.

import type { Net } from '../host/types.js';
import { type ConnectOptions, MeshNode } from './node.js';
import { Ring, hash32 } from './ring.js';
import { type Caps, type JobProgress, MeshState, clientOf, writerOf } from './state.js';

export interface ObserveOptions {
  readonly signal: string;
  readonly room: string;
  readonly token: string;
  readonly host?: Net;
  readonly iceServers?: ConnectOptions['iceServers'];
}

export interface PeerView extends Caps {
  readonly id: string;
  /** Whether this observer has a live link to it (a peer that left has none). */
  readonly linked: boolean;
}

export interface JobView extends JobProgress {
  readonly id: string;
  /** The peer that publishes the job's progress (its coordinator), where it announced itself. */
  readonly coordinator?: string;
  /** A running job whose coordinator has no link here any more: nobody will finish it or say it ended. */
  readonly coordinatorLeft: boolean;
}

export interface RingView {
  /** Virtual nodes, by position on the ring (0..1) and owner. */
  readonly nodes: readonly { readonly at: number; readonly peer: string }[];
  /** The latest committed pieces of a job, by their key's position and the worker that wrote them. */
  readonly pieces: readonly { readonly at: number; readonly key: string; readonly peer: string }[];
}

export class MeshView {
  private constructor(readonly node: MeshNode, readonly state: MeshState) {}

  static async open(opts: ObserveOptions): Promise<MeshView> {
    const node = await MeshNode.connect({ signal: opts.signal, room: opts.room, token: opts.token, ...(opts.host ? { host: opts.host } : {}), ...(opts.iceServers ? { iceServers: opts.iceServers } : {}) });
    const state = new MeshState(node);
    state.announce({ role: 'observer', device: 'none', throughput: 0, memory: 0, slots: 0 });
    return new MeshView(node, state);
  }

  get id(): string { return this.node.id; }

  /** Every peer that announced itself, linked ones first. */
  peers(): PeerView[] {
    const live = new Set(this.node.peers());
    const out: PeerView[] = [];
    for (const [id, c] of this.state.peers) if (id !== this.node.id) out.push({ ...c, id, linked: live.has(id) });
    return out.sort((a, b) => Number(b.linked) - Number(a.linked) || a.id.localeCompare(b.id));
  }

  /** Jobs in the room, newest first. */
  jobs(): JobView[] {
    const live = new Set(this.node.peers());
    const byClient = new Map([...this.state.peers.keys()].map((id) => [clientOf(id), id]));
    return [...this.state.jobs].map(([id, j]) => {
      const writer = writerOf(this.state.jobs, id);
      const coordinator = writer === undefined ? undefined : byClient.get(writer);
      const linked = coordinator !== undefined && live.has(coordinator);
      const coordinatorLeft = (j.state ?? 'running') === 'running' && !linked;
      return { ...j, id, ...(coordinator ? { coordinator } : {}), coordinatorLeft };
    }).sort((a, b) => (b.started ?? 0) - (a.started ?? 0));
  }

  /** The ring of the linked workers (the one coordinators place by), with a job's latest pieces on it. */
  ring(job?: JobProgress): RingView {
    const ws = new Map(this.peers().filter((p) => p.linked && p.role === 'worker' && !p.paused).map((p) => [p.id, p.throughput]));
    const scale = 2 ** 32;
    return {
      nodes: new Ring(ws).nodes().map((n) => ({ at: n.at / scale, peer: n.peer })),
      pieces: (job?.placed ?? []).map(([key, peer]) => ({ at: hash32(key) / scale, key, peer })),
    };
  }

  /** Calls `f` whenever the shared state or the links change. */
  onChange(f: () => void): () => void {
    const g = () => f();
    this.state.doc.on('update', g);
    this.node.on({ peer: g });
    return () => this.state.doc.off('update', g);
  }

  async close(): Promise<void> {
    this.state.close();
    await this.node.close();
  }
}

export const observe = (opts: ObserveOptions): Promise<MeshView> => MeshView.open(opts);
