// A mesh session: this process joins a room as a coordinator, and the graphs
// it runs are placed on the room's workers. `await x.execute({ session: s })`
// or `await s.execute(x)` materialise x here, as a local run would.

import { type Tensor, executeWith } from '../api/tensor.js';
import type { Node } from '../graph/node.js';
import { type JobOptions, type Progress, runtime } from '../runtime/runtime.js';
import { Coordinator, type CoordinatorOptions, type MeshReport } from './coordinator.js';
import type { Verify } from './trust.js';
import { host } from '#host';
import { type Journal, Journals, StateJournal } from './journal.js';
import type { Net } from '../host/types.js';
import { type ConnectOptions, MeshNode } from './node.js';
import { type Caps, MeshState } from './state.js';

export interface SessionOptions {
  readonly signal: string;
  readonly room: string;
  readonly token: string;
  /** The WebSocket and WebRTC to use; the host's own (Node's or the page's) by default. */
  readonly host?: Net;
  readonly iceServers?: ConnectOptions['iceServers'];
  readonly log?: (line: string) => void;
  /**
   * Verify volunteers' results: 'sample' re-runs a fraction of each peer's
   * results on another peer (more for new peers) and recomputes everything a
   * peer caught lying gave; 'strict' re-runs every result; 'off' (default)
   * trusts every peer.
   */
  readonly verify?: Verify;
  /**
   * Make jobs resumable: commits are journaled in the mesh state (and, in
   * Node, in files under `dir`), so the same program run again after this
   * coordinator died, here or in another tab, adopts the results still in
   * the room and computes only what was lost.
   */
  readonly resumable?: boolean | { readonly dir: string };
  readonly coordinator?: Omit<CoordinatorOptions, 'runtime'>;
}

export class Session {
  /** The report of the last job this session ran. */
  lastReport: MeshReport | undefined;

  private constructor(readonly node: MeshNode, readonly state: MeshState, private readonly coordinator: Coordinator) {}

  static async open(opts: SessionOptions): Promise<Session> {
    const node = await MeshNode.connect({ signal: opts.signal, room: opts.room, token: opts.token, ...(opts.host ? { host: opts.host } : {}), ...(opts.iceServers ? { iceServers: opts.iceServers } : {}), ...(opts.log ? { log: opts.log } : {}) });
    const state = new MeshState(node);
    let journal: Journal | undefined;
    if (opts.resumable) {
      const file = typeof opts.resumable === 'object' ? await host.fileJournal(opts.resumable.dir) : undefined;
      if (typeof opts.resumable === 'object' && !file) throw new Error('resumable: { dir } needs files (Node); in a browser use resumable: true (the journal lives in the mesh state)');
      journal = new Journals([...(file ? [file] : []), new StateJournal(state)]);
    }
    return new Session(node, state, new Coordinator(node, state, { runtime, ...(opts.verify ? { verify: opts.verify } : {}), ...(journal ? { journal } : {}), ...opts.coordinator }));
  }

  /** Workers with a live link to this session, and their capabilities. */
  workers(): Map<string, Caps> { return this.state.workers(); }

  /** Resolves once `n` workers are linked (a job placed before then starts on fewer). */
  async waitForWorkers(n: number, timeoutMs = 60_000): Promise<void> {
    const t0 = Date.now();
    while (this.workers().size < n) {
      if (Date.now() - t0 > timeoutMs) throw new Error(`only ${this.workers().size} of ${n} workers joined within ${timeoutMs / 1000} s`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async runNodes(nodes: readonly Node[], onProgress?: (p: Progress) => void, job?: JobOptions): Promise<MeshReport> {
    this.lastReport = await this.coordinator.run(nodes, onProgress, job);
    return this.lastReport;
  }

  /** Runs the graph behind `tensors` on the mesh, as one job; resolves to the tensors, materialised here. */
  execute(...tensors: Tensor[]): Promise<Tensor[]> {
    return executeWith({ session: this }, ...tensors);
  }

  async close(): Promise<void> {
    this.coordinator.close();
    this.state.close();
    await this.node.close();
  }
}
