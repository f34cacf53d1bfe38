// A mesh session: this process joins a room as a coordinator, and the graphs
// it runs are placed on the room's workers. `await x.execute({ session: s })`
// or `await s.execute(x)` materialise x here, as a local run would. A closed
// session refuses every call at once (a job placed on it would wait forever:
// its coordinator no longer ticks).

import { type Tensor, executeWith } from '../api/core.js';
import type { Node } from '../graph/node.js';
import { type JobOptions, type Progress, runtime } from '../runtime/runtime.js';
import { Coordinator, type CoordinatorOptions, type MeshReport } from './coordinator.js';
import { type TrustStore, type Verify, textTrustStore } from './trust.js';
import { host } from '#host';
import { Journals, StateJournal } from './journal.js';
import type { Journal } from '../host/types.js';
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
   * Where what this session learns of the room's peers is kept (each peer
   * id's run of verified results, and quarantines; see trust.ts), so that
   * later sessions of the room start from it: `{ dir }` a file per room
   * under `dir` (Node), a TrustStore of your own, or `false` for memory only.
   * By default, the page's localStorage per room in a browser; in Node, with
   * verification on, a file per room under the host's cache directory
   * (TESSERA_CACHE, else ~/.cache/tessera), else memory.
   */
  readonly trust?: { readonly dir: string } | TrustStore | false;
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
  /**
   * Totals over every job this session ran (an execution whose routines run
   * in stages runs several): bytes moved between peers, and of them the
   * bytes the coordinator received (outputs, and what the host plans with).
   */
  readonly totals = { jobs: 0, bytesMoved: 0, bytesToCoordinator: 0 };
  private closing: Promise<void> | undefined;

  private constructor(readonly node: MeshNode, readonly state: MeshState, private readonly coordinator: Coordinator) {}

  static async open(opts: SessionOptions): Promise<Session> {
    const trustStore = trustStoreOf(opts); // (a bad option fails before the room is joined)
    const node = await MeshNode.connect({ signal: opts.signal, room: opts.room, token: opts.token, ...(opts.host ? { host: opts.host } : {}), ...(opts.iceServers ? { iceServers: opts.iceServers } : {}), ...(opts.log ? { log: opts.log } : {}) });
    const state = new MeshState(node);
    let journal: Journal | undefined;
    if (opts.resumable) {
      const file = typeof opts.resumable === 'object' ? await host.fileJournal(opts.resumable.dir) : undefined;
      if (typeof opts.resumable === 'object' && !file) throw new Error('resumable: { dir } needs files (Node); in a browser use resumable: true (the journal lives in the mesh state)');
      journal = new Journals([...(file ? [file] : []), new StateJournal(state)]);
    }
    return new Session(node, state, new Coordinator(node, state, {
      runtime, ...(opts.verify ? { verify: opts.verify } : {}), ...(journal ? { journal } : {}),
      ...(trustStore ? { trustStore } : {}), ...opts.coordinator,
    }));
  }

  /** Whether close() was called: every call but this, workers() and close() then rejects. */
  get closed(): boolean { return this.closing !== undefined; }

  private refuse(what: string): Error {
    return new Error(`${what} on a closed session: open a new one with Session.open`);
  }

  /** Workers with a live link to this session, and their capabilities (none once it is closed). */
  workers(): Map<string, Caps> { return this.closed ? new Map() : this.state.workers(); }

  /** Resolves once `n` workers are linked (a job placed before then starts on fewer); rejects if it closes first. */
  async waitForWorkers(n: number, timeoutMs = 60_000): Promise<void> {
    if (this.closed) throw this.refuse('waitForWorkers');
    const t0 = Date.now();
    while (this.workers().size < n) {
      if (this.closed) throw new Error(`the session closed while waiting for ${n} workers`);
      if (Date.now() - t0 > timeoutMs) throw new Error(`only ${this.workers().size} of ${n} workers joined within ${timeoutMs / 1000} s`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async runNodes(nodes: readonly Node[], onProgress?: (p: Progress) => void, job?: JobOptions): Promise<MeshReport> {
    if (this.closed) throw this.refuse('runNodes');
    const r = await this.coordinator.run(nodes, onProgress, job);
    this.lastReport = r;
    this.totals.jobs++;
    this.totals.bytesMoved += r.bytesMoved;
    this.totals.bytesToCoordinator += r.bytesToCoordinator;
    return r;
  }

  /** Runs the graph behind `tensors` on the mesh, as one job; resolves to the tensors, materialised here. */
  execute(...tensors: Tensor[]): Promise<Tensor[]> {
    if (this.closed) return Promise.reject(this.refuse('execute'));
    return executeWith({ session: this }, ...tensors);
  }

  /** Leaves the room; jobs still running reject. Calling it again waits for the same close. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.coordinator.close();
      this.state.close();
      await this.node.close();
    })();
    return this.closing;
  }
}

/** The store a session's trust records go to (SessionOptions.trust), or none (memory only). */
function trustStoreOf(opts: SessionOptions): TrustStore | undefined {
  const t = opts.trust;
  if (t === false) return undefined;
  if (t && 'load' in t) return t;
  const dir = t?.dir ?? (opts.verify && opts.verify !== 'off' ? host.cacheDir() : undefined);
  const text = host.textStore(`trust-${opts.room}`, dir);
  if (t && !text) throw new Error('trust: { dir } needs files (Node); in a browser the records live in localStorage');
  return text ? textTrustStore(text) : undefined;
}
