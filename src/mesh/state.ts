// The shared mesh state (the control plane, never chunk data) as a Yjs
// document every peer holds a replica of: `peers` maps a peer id to the
// capabilities it announced, `jobs` maps a job to its progress. A peer sends
// its local changes to every linked peer and its whole state to a peer that
// links up; replicas converge whatever the order updates arrive in.

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
  readonly done: number;
  readonly total: number;
  readonly peers: number;
  readonly state?: 'running' | 'finished' | 'failed';
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

export class MeshState {
  readonly doc = new Y.Doc();
  readonly peers: Y.Map<Caps>;
  readonly jobs: Y.Map<JobProgress>;

  private readonly timer: ReturnType<typeof setInterval>;

  /** `syncMs`: how often the whole state goes to every peer again (a lost update heals then). */
  constructor(private readonly ep: Endpoint, syncMs = 2000) {
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
          Y.applyUpdate(this.doc, payload!, REMOTE);
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

  announce(caps: Caps): void { this.peers.set(this.ep.id, caps); }

  /** Workers with a live link, and what they announced. */
  workers(): Map<string, Caps> {
    const live = new Set(this.ep.peers());
    const out = new Map<string, Caps>();
    for (const [id, c] of this.peers) if (live.has(id) && c.role === 'worker' && !c.paused) out.set(id, c);
    return out;
  }
}
