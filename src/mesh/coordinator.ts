// The mesh coordinator: runs a job's chunk plan (tile/tile.ts) on the workers
// of a mesh. Every task output is a piece (a chunk, or one row of a partials
// chunk) with a set of holders. A task is ready when every piece it reads has
// a holder; it is leased to a worker with a deadline that the worker's
// heartbeats extend. Which worker is a Placement policy's choice (placement.ts);
// by default tasks that read only the job's sources go to the least
// loaded worker, where the consistent-hash ring (virtual nodes weighted by
// throughput) puts their first output among equally loaded ones; later ones
// where most of their input bytes already are, always within each worker's
// slots. When a worker leaves or lets a lease
// lapse, its tasks are leased again; pieces that only it held and that are
// still needed are recomputed from lineage (their producing tasks run again,
// and theirs in turn). A straggler is re-executed speculatively on an idle
// worker; the first result is committed and later ones dropped, so every
// piece is committed once. Pieces no task needs any more are freed on their
// holders; the outputs come back to the coordinator, which materialises them
// as local tensors. Tasks are deterministic, so the result is the same bit
// for bit on 1 or N workers, with or without failures.
//
// Links between workers can break while both stay linked to the coordinator
// (a stall, an ICE failure; node.ts rebuilds them). Workers say in their
// heartbeats which peers they reach; a task whose inputs are held by peers
// its worker cannot reach goes elsewhere when it can, its holders are listed
// reachable first, and a worker that must still fetch across a broken link
// gets the piece relayed through this coordinator (a `get` with `via`). A
// fetch that fails for want of a link is no lost piece: nothing is recomputed.

import { type DType, INFO, type TypedArray } from '../graph/dtype.js';
import { LinAlgError } from '../graph/linalg.js';
import type { Node } from '../graph/node.js';
import { numChunks } from '../graph/shape.js';
import { encodeKernel } from '../ir/wire.js';
import type { JobOptions, Progress, Remote, Runtime } from '../runtime/runtime.js';
import { Execution, type Trace, debugLevel, fmtBytes, now as epochNow } from '../runtime/debug.js';
import { type Plan, type Range, chunkBox, isKernelTask, isScanTask } from '../tile/tile.js';
import { decodeChunk, encodeChunk } from './arrow.js';
import { count, extent, intersect } from './boxes.js';
import type { Endpoint } from './endpoint.js';
import type { Message, MessageOf } from './protocol.js';
import { Locality, type Placement, type TaskView, type WorkerView } from './placement.js';
import type { JobEvent, JobProgress, MeshState } from './state.js';
import { Trust, type TrustStore, type Verify } from './trust.js';
import { planId } from './journal.js';
import type { Journal, JournalRecord } from '../host/types.js';
import { digestOf } from './digest.js';
import { matmulOf } from '../ir/matmul.js';
import { alloc, copyBoxInto, cut } from './boxes.js';
import type { Task } from '../tile/tile.js';

export interface CoordinatorOptions {
  readonly runtime: Runtime;
  /** A lease lapses this long after the last heartbeat that named its task. */
  readonly leaseMs?: number;
  /** How often leases, stragglers and the queue are looked at. */
  readonly tickMs?: number;
  /** Re-execute stragglers on idle workers (default true). */
  readonly speculate?: boolean;
  /** A task counts as a straggler after 4 median task times, and at least this long (default 2000 ms). */
  readonly stragglerMs?: number;
  readonly fetchTimeoutMs?: number;
  /** How long a job waits for its first worker. */
  readonly waitForWorkersMs?: number;
  /** A task that fails this many times for a reason other than a lost piece fails the job. */
  readonly maxFailures?: number;
  /** How often a running job's progress goes to the shared state (dashboards read it). */
  readonly publishMs?: number;
  /** Re-run a sample of results (or all, 'strict') on other peers and quarantine peers caught lying (trust.ts). */
  readonly verify?: Verify;
  /** A result check that cannot find a peer to run on (every live one already voted) gives up after this long. */
  readonly checkWaitMs?: number;
  /** Where the draws of which results to verify come from (seeded in tests); Math.random by default. */
  readonly random?: () => number;
  /** Where the peers' records (verified runs, quarantines) outlive this coordinator; memory only by default. */
  readonly trustStore?: TrustStore;
  /** Makes jobs resumable (journal.ts): their commits are written here, and a job run again picks up what is left. */
  readonly journal?: Journal;
  /** Where a job's tasks go: a fresh policy per job (placement.ts); the locality rule by default. */
  readonly placement?: () => Placement;
}

/** Which workers reach which peers, as far as their heartbeats tell. */
interface Reach {
  /** Whether worker `a` can fetch from `b` over a link of its own (unknown: yes). */
  reaches(a: string, b: string): boolean;
  /** `a` found it cannot reach `b`. */
  cut(a: string, b: string): void;
}

/** A worker's list of the peers it reaches is trusted for this long after its heartbeat. */
const REACH_MS = 10_000;
/** Attempts of a task that may fail for want of a link before the piece is taken for lost. */
const UNREACHED = 3;
/** Pieces relayed at once, at most. */
const MAX_RELAYS = 256;

/** Lapsed leases, failed tasks or unserved pieces in a row after which a worker gets no more of a job's tasks. */
const STRIKES = 3;
/** Times a task may be refused by full workers (their memory cap) before the job fails for want of memory. */
const MAX_FULL = 50;

/** Finished jobs a coordinator leaves in the shared state for dashboards. */
const KEEP_FINISHED = 3;
/** Latest commits and events a job publishes. */
const KEEP_PLACED = 256;
const KEEP_EVENTS = 40;

export interface PeerReport { readonly id: string; tasks: number; bytesIn: number }

export interface MeshReport {
  readonly job: string;
  /** The job's tasks, less those whose pieces nothing reads (not run: see Job.skipUnread). */
  tasks: number;
  /** Leases granted: one per task, plus re-leases and speculative copies. */
  leases: number;
  releases: number;
  recomputed: number;
  speculative: number;
  duplicates: number;
  /** Task results committed: one per task, plus one per recomputation of a lost piece. */
  commits: number;
  /** Bytes of pieces moved between peers (fetched by workers, sources served and outputs fetched by the coordinator). */
  bytesMoved: number;
  /** Of them, bytes of pieces the coordinator received (outputs brought here, results a check compares, relays). */
  bytesToCoordinator: number;
  /** Results verified (re-run on another peer, or by Freivalds' test), and the re-runs that ran. */
  checks: number;
  checkRuns: number;
  /** Matrix-product blocks verified by Freivalds' test here, against random vectors drawn after the commit. */
  freivalds: number;
  /** Peers caught returning wrong results in this job (their results were recomputed). */
  quarantined: string[];
  /** Results adopted from the journal of an earlier coordinator of this job (not computed again). */
  resumed: number;
  peers: PeerReport[];
  ms: number;
  /**
   * The job's timeline as the coordinator saw it, in the Chrome trace-event
   * format (runtime/debug.ts): each worker a thread (1.. in the order they
   * got their first lease), each lease a span from its grant to its result
   * (tasks, and the re-runs that verify them as 'check').
   */
  trace: Trace;
}

interface Piece {
  readonly key: string;
  readonly tensor: number;
  readonly box: Range[];
  readonly dtype: DType;
  readonly bytes: number;
  readonly producer: number | undefined;
  readonly holders: Set<string>;
  readonly readers: number[];
  /** Readers not done. */
  left: number;
  /** Times its result was found wrong and recomputed: peers name it `key~version` (see wire). */
  version: number;
  /** The digest its writer reported: every fetched copy must match it. */
  digest?: string;
  readonly output: boolean;
  /** An output's data, once the coordinator has it; a source's (node, chunk). */
  data?: TypedArray;
  readonly source?: { readonly node: Node; readonly chunk: number };
  /**
   * A piece of an earlier job's result kept on the workers (Resident), which
   * this job reads as a source: its holders are that piece's own (the same set).
   */
  readonly ext?: { readonly job: Job; readonly piece: Piece };
}

/** Where peers find piece p: its job (another one for a kept result's piece) and its name there. */
const address = (p: Piece, job: string): { job: string; key: string } => (p.ext ? { job: p.ext.job.id, key: wire(p.ext.piece) } : { job, key: wire(p) });

/**
 * A job's output kept on the workers that computed it (JobOptions.keep):
 * later jobs of this coordinator read its pieces peer to peer; the job that
 * made it stays to recompute a piece whose holders leave, until released.
 */
class Resident implements Remote {
  constructor(readonly job: Job, readonly tensor: number) {}
  release(): void { this.job.releaseKept(this.tensor); }
}

/** A piece's name on the wire: its key, and its version once a wrong result of it was thrown away. */
const wire = (p: Piece): string => (p.version ? `${p.key}~${p.version}` : p.key);

interface Attempt { readonly peer: string; deadline: number; readonly started: number; readonly check?: true }

/** A committed result being verified: re-runs on other peers vote with their digests until two agree. */
interface Check {
  readonly orig: string;
  /** Peer -> its result's digests, joined; the original's included. */
  readonly votes: Map<string, string>;
  /** Peers that ran or are running it. */
  readonly tried: Set<string>;
  queued: boolean;
  since: number;
  /** Freivalds' test reads the committed block itself: it stays on its holder until the check ends. */
  holdsOutput?: true;
  /**
   * The result ran on a GPU, whose float results differ from the CPU's in the
   * last bits: the CPU re-runs' data is compared with it within a tolerance
   * (see closeAcrossDevices); the CPU re-runs compare with each other exactly.
   */
  gpu?: { orig?: TypedArray[]; readonly data: Map<string, TypedArray[]> };
}

type TaskState = 'wait' | 'ready' | 'run' | 'done';

class JobFailed extends Error {}

export class Coordinator {
  private readonly jobs = new Map<string, Job>();
  private readonly finished: string[] = [];
  private readonly timer: ReturnType<typeof setInterval>;
  private closed = false;
  /** Every peer's record, across this coordinator's jobs (and, through opts.trustStore, its sessions). */
  readonly trust: Trust;
  /** Per worker: the peers it last said it has a live link to, and when. */
  private readonly linkedOf = new Map<string, { peers: Set<string>; at: number }>();
  private readonly relays = new Map<number, { peer: string; key: string; resolve: (p?: Uint8Array) => void }>();
  private nextRelay = 2 ** 30 + Math.floor(Math.random() * 2 ** 29);
  private readonly reach: Reach = {
    reaches: (a, b) => {
      if (a === b || b === this.ep.id) return true;
      const l = this.linkedOf.get(a);
      return !l || performance.now() - l.at > REACH_MS || l.peers.has(b);
    },
    cut: (a, b) => { this.linkedOf.get(a)?.peers.delete(b); },
  };

  constructor(private readonly ep: Endpoint, private readonly state: MeshState, private readonly opts: CoordinatorOptions) {
    this.trust = new Trust(opts.verify ?? 'off', opts.random, opts.trustStore);
    state.doc.transact(() => state.announce({ role: 'coordinator', device: 'none', throughput: 0, memory: 0, slots: 0 }));
    ep.on({
      message: (from, m, payload) => {
        if (m.t === 'get') return m.via === undefined ? this.serve(from, m) : this.relay(from, m);
        if ('job' in m) this.jobs.get(m.job)?.message(from, m, payload);
        else if (m.t === 'hb') {
          if (m.linked) this.linkedOf.set(from, { peers: new Set(m.linked), at: performance.now() });
          for (const r of m.running) this.jobs.get(r.job)?.heartbeat(from, r);
        } else if (m.t === 'piece' || m.t === 'missing') {
          const w = this.relays.get(m.req);
          if (w && w.peer === from && w.key === m.key) {
            this.relays.delete(m.req);
            w.resolve(m.t === 'piece' ? payload : undefined);
            return;
          }
          for (const j of this.jobs.values()) j.reply(from, m, payload);
        }
      },
      peer: (id, up) => {
        if (!up) {
          this.linkedOf.delete(id);
          for (const [req, w] of this.relays) if (w.peer === id) { this.relays.delete(req); w.resolve(undefined); }
        }
        for (const j of this.jobs.values()) { if (up) j.dispatch(); else j.peerDown(id); }
      },
    });
    this.timer = setInterval(() => { for (const j of this.jobs.values()) j.tick(); }, opts.tickMs ?? 200);
    (this.timer as { unref?: () => void }).unref?.();
  }

  /** Fails the jobs running and refuses new ones: nothing would tick them on, so they would never settle. */
  close(): void {
    this.closed = true;
    clearInterval(this.timer);
    for (const j of [...this.jobs.values()]) {
      j.fail(new Error('the coordinator closed'));
      this.retire(j); // (results kept on the workers too: they drop them)
    }
    this.trust.flush();
  }

  /** The digest of a source tensor's data (the whole of it), for a resumable job's id; undefined for computed tensors. */
  private async sourceDigest(plan: Plan, tid: number): Promise<string | undefined> {
    const spec = plan.tensors[tid]!;
    const rt = this.opts.runtime;
    if (!spec.node || !rt.has(spec.node) || plan.tasks.some((t) => (isScanTask(t) ? t.output === tid : t.writes.some((w) => w.tensor === tid)))) return undefined;
    const grid = numChunks(spec.shape, spec.chunk).reduce((a, b) => a * b, 1);
    const parts: string[] = [];
    // a result kept on the workers: the digests its writers reported
    const r = rt.remoteOf(spec.node);
    for (let c = 0; c < grid; c++) parts.push(r instanceof Resident ? r.job.keptPiece(r.tensor, c).digest ?? '' : await digestOf(rt.chunkOf(spec.node, c)));
    return parts.join(',');
  }

  /** What each running job waits on (for diagnosing a job that does not finish). */
  describe(): string[] {
    return [...this.jobs.values()].map((j) => j.describe());
  }

  private serve(from: string, m: MessageOf<'get'>): void {
    const payload = this.jobs.get(m.job)?.pieceBytes(m.key, m.sub);
    if (payload) void this.ep.send(from, { t: 'piece', req: m.req, key: m.key }, payload).catch(() => undefined);
    else void this.ep.send(from, { t: 'missing', req: m.req, key: m.key }).catch(() => undefined);
  }

  /**
   * Passes piece `m.key` from `m.via` to `from`, whose own link to `m.via` is
   * down: only pieces of this coordinator's running jobs, a bounded number at
   * once; whatever goes wrong is answered 'missing' (the worker tries its next holder).
   */
  private relay(from: string, m: MessageOf<'get'>): void {
    const via = m.via!;
    const answer = (payload?: Uint8Array): void => {
      if (payload) this.jobs.get(m.job)?.relayed(payload.length);
      const reply = payload
        ? this.ep.send(from, { t: 'piece', req: m.req, key: m.key }, payload)
        : this.ep.send(from, { t: 'missing', req: m.req, key: m.key });
      void reply.catch(() => undefined);
    };
    if (via === this.ep.id) return this.serve(from, m);
    if (!this.jobs.has(m.job) || via === from || !this.ep.peers().includes(via)) return answer();
    if (this.relays.size >= MAX_RELAYS) return answer();
    const req = this.nextRelay;
    this.nextRelay = this.nextRelay >= 2 ** 31 - 2 ? 2 ** 30 : this.nextRelay + 1;
    const timer = setTimeout(() => { this.relays.delete(req); answer(); }, this.opts.fetchTimeoutMs ?? 30_000);
    this.relays.set(req, { peer: via, key: m.key, resolve: (p) => { clearTimeout(timer); answer(p); } });
    this.ep.send(via, { t: 'get', req, job: m.job, key: m.key, ...(m.sub ? { sub: m.sub } : {}) }).catch(() => {
      this.relays.delete(req);
      clearTimeout(timer);
      answer();
    });
  }

  /** Runs the graph behind `outputs` on the mesh; the outputs are materialised locally. */
  async run(outputs: readonly Node[], onProgress?: (p: Progress) => void, opts: JobOptions = {}): Promise<MeshReport> {
    if (this.closed) throw new Error('the coordinator is closed: it runs no more jobs');
    opts.signal?.throwIfAborted();
    const rt = this.opts.runtime;
    // outputs held on workers (kept by an earlier stage) come here after the job
    const home = outputs.filter((n) => rt.remoteOf(n));
    const plan = rt.planOf(outputs);
    const journal = this.opts.journal;
    let id = `j${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
    let record: JournalRecord | undefined;
    if (journal) {
      id = await planId(plan, (tid) => this.sourceDigest(plan, tid));
      record = await journal.load(id);
      // it closed while the journal was read
      if (this.closed) throw new Error('the coordinator is closed: it runs no more jobs');
      // a live coordinator runs this job now: run it apart
      if (this.jobs.has(id) || (record && record.owner !== this.ep.id && this.ep.peers().includes(record.owner))) { id = `${id}-${Math.random().toString(36).slice(2, 8)}`; record = undefined; }
      journal.begin(id, this.ep.id);
    }
    const job = new Job(id, this.ep, this.state, this.opts, plan, this.trust, (peer) => { for (const j of this.jobs.values()) j.quarantine(peer); }, onProgress);
    job.reach = this.reach;
    job.kin = () => this.jobs.values();
    job.retire = () => this.retire(job);
    if (opts.keep) job.keepFor(opts.keep);
    if (record) job.adopt(record);
    if (opts.name) job.name = opts.name.slice(0, 120);
    if (opts.debug !== undefined) job.exe = new Execution(debugLevel(opts.debug));
    opts.signal?.throwIfAborted(); // (aborted while the plan was hashed: no await from here to job.run())
    this.jobs.set(job.id, job);
    // a cancelled job fails like any other: its promise rejects, and the `end` below frees its pieces on the workers
    const cancel = () => job.fail(new Error(`the job ${job.name ?? job.id} was cancelled`), 'cancelled');
    opts.signal?.addEventListener('abort', cancel, { once: true });
    try {
      const report = await job.run();
      for (const n of home) report.bytesToCoordinator += await this.home(n);
      return report;
    } finally {
      opts.signal?.removeEventListener('abort', cancel);
      // a job whose results stay on the workers lives on until they are released
      if (!job.holding) this.retire(job);
    }
  }

  /** A job is over: its workers drop what they hold of it. */
  private retire(job: Job): void {
    if (this.jobs.get(job.id) !== job) return;
    this.jobs.delete(job.id);
    this.finished.push(job.id);
    for (const id of this.finished.splice(0, Math.max(0, this.finished.length - KEEP_FINISHED))) this.state.jobs.delete(id);
    for (const p of this.ep.peers()) void this.ep.send(p, { t: 'end', job: job.id }).catch(() => undefined);
  }

  /** Brings output `n`, held on workers (a kept result), here; resolves to the bytes received. */
  private async home(n: Node): Promise<number> {
    const r = this.opts.runtime.remoteOf(n);
    if (!(r instanceof Resident)) throw new Error('internal: a result held by another coordinator\'s workers');
    const { chunks, bytes } = await r.job.fetchKept(r.tensor);
    this.opts.runtime.putChunks(n, chunks);
    return bytes;
  }
}

class Job {
  /** A readable name for dashboards (JobProgress.name). */
  name: string | undefined;
  /** What the job tells about itself at its DEBUG level (runtime/debug.ts), and its timeline. */
  exe = new Execution(debugLevel());
  /** Each worker's thread on the timeline, in the order of their first leases. */
  private readonly tids = new Map<string, number>();
  private readonly pieces = new Map<string, Piece>();
  private readonly reads: Piece[][][];
  private readonly writes: Piece[][];
  private readonly taskState: TaskState[];
  private readonly attempts: Map<number, Attempt>[];
  private readonly nextAttempt: number[];
  private readonly failures: number[];
  /** Per task, the peers that reported its data failed it (LinAlgError). */
  private readonly dataErrors = new Map<number, { peers: Set<string>; reports: number }>();
  private readonly queue: number[] = [];
  private readonly load = new Map<string, number>();
  /**
   * Bytes of this job's pieces each worker holds, as committed here (freed
   * ones taken off): with the leases running there, what placement counts
   * against the memory cap the worker announced.
   */
  private readonly heldBy = new Map<string, number>();
  /**
   * What a worker that refused a task for its memory cap said it holds (less
   * that task's output): counted as held there, less what is freed there since, until the
   * mesh would otherwise stall (its word may predate frees still on the way).
   */
  private readonly fullAt = new Map<string, number>();
  /** Per task, the times a worker refused it because its memory cap was reached. */
  private readonly full = new Map<number, number>();
  private readonly kernelText = new Map<number, string>();
  /** `${peer}/${kernel}`: kernels whose text a peer was sent in this job. */
  private readonly kernelsSent = new Set<string>();
  private readonly encoded = new Map<string, Uint8Array>();
  private readonly waiting = new Map<number, { peer: string; key: string; resolve: (p: Uint8Array | undefined) => void }>();
  private readonly doneMs: number[] = [];
  /** Request numbers start at random: several jobs wait on replies at once, each matching its own. */
  private nextReq = 1 + Math.floor(Math.random() * 2 ** 30);
  private done = 0;
  private outputsLeft = 0;
  private readonly placer: Placement;
  private settle: { resolve: (r: MeshReport) => void; reject: (e: Error) => void } | undefined;
  private finished = false;
  private readonly t0 = performance.now();
  private readonly report: MeshReport;
  private readonly peerStats = new Map<string, PeerReport>();
  private noWorkersSince = performance.now();
  private readonly started = Date.now();
  private published = 0;
  private readonly placed: [string, string][] = [];
  private readonly events: JobEvent[] = [];

  /** Per task: who committed its result, and that result's digests. */
  private readonly committedBy: (string | undefined)[];
  private readonly digests: (string | undefined)[];
  /** Per task: attempts below this are void (their inputs were wrong). */
  private readonly validFrom: number[];
  private readonly checks = new Map<number, Check>();
  private readonly strikes = new Map<string, number>();
  private readonly unserved = new Map<string, number>();
  private readonly benched = new Set<string>();
  /** `${task}/${attempt}` -> the peer it was leased to, for every lease of the job. */
  private readonly leasedTo = new Map<string, string>();
  /** Per worker: when it was last given a lease of this job. */
  private readonly leasedAt = new Map<string, number>();
  /** Per task: when it last became ready (placement may hold it back a while for the worker that holds its input). */
  private readonly readyAt: number[] = [];
  /** Per task: its attempts that failed for want of a link to a holder. */
  private readonly unreached = new Map<number, number>();
  /** Which workers reach which peers (the coordinator's view; everyone reaches everyone until told otherwise). */
  reach: Reach = { reaches: () => true, cut: () => undefined };
  /**
   * Whether results are verified: workers then fetch every piece whole and
   * check it against its writer's digest; otherwise a task that reads a part
   * of a piece (a merge's slice of a sorted run) fetches only that part.
   */
  private get verifying(): boolean { return (this.opts.verify ?? 'off') !== 'off'; }
  /** The coordinator's jobs (this one among them): those reading this one's kept results hear when a lost piece is back. */
  kin: () => Iterable<Job> = () => [];
  /** Ends the job on the coordinator (its workers drop what they hold): when its last kept result is released. */
  retire: () => void = () => undefined;
  /** The scope its outputs are kept for on the workers (JobOptions.keep), if they are. */
  private keepScope: object | undefined;
  /** Kept output pieces not released yet: the job recomputes one whose holders leave. */
  private readonly kept = new Set<Piece>();
  /** Finished, and running again to recompute a kept piece that was lost. */
  private reviving = false;
  /** Why the job failed, for the jobs that read its kept results. */
  error: Error | undefined;
  /** This job's pieces that are another job's kept pieces, by that piece. */
  private readonly extOf = new Map<Piece, Piece>();

  constructor(readonly id: string, readonly ep: Endpoint, private readonly state: MeshState, private readonly opts: CoordinatorOptions, private readonly plan: Plan,
    private readonly trust: Trust, private readonly caught: (peer: string) => void, private readonly onProgress?: (p: Progress) => void) {
    const rt = opts.runtime;
    const n = plan.tasks.length;
    this.taskState = new Array<TaskState>(n).fill('wait');
    this.attempts = plan.tasks.map(() => new Map());
    this.nextAttempt = new Array<number>(n).fill(0);
    this.failures = new Array<number>(n).fill(0);
    this.placer = (opts.placement ?? (() => new Locality()))();
    this.committedBy = new Array<string | undefined>(n).fill(undefined);
    this.digests = new Array<string | undefined>(n).fill(undefined);
    this.validFrom = new Array<number>(n).fill(0);
    this.report = {
      job: this.id, tasks: n, leases: 0, releases: 0, recomputed: 0, speculative: 0, duplicates: 0, commits: 0, bytesMoved: 0,
      bytesToCoordinator: 0, checks: 0, checkRuns: 0, freivalds: 0, quarantined: [], resumed: 0, peers: [], ms: 0, trace: { traceEvents: [], displayTimeUnit: 'ms' },
    };
    const outputs = new Set(plan.outputs.values());
    const byTensor = new Map<number, Piece[]>();
    const add = (p: Piece) => {
      this.pieces.set(p.key, p);
      let l = byTensor.get(p.tensor);
      if (!l) byTensor.set(p.tensor, (l = []));
      l.push(p);
      return p;
    };
    const make = (tensor: number, c: number, row: number | undefined, producer: number | undefined): Piece => {
      const spec = plan.tensors[tensor]!;
      const box = chunkBox(spec.shape, spec.chunk, c);
      if (row !== undefined) box[0] = [box[0]![0] + row, box[0]![0] + row + 1];
      const key = row === undefined ? `${tensor}.${c}` : `${tensor}.${c}.${row}`;
      const existing = this.pieces.get(key);
      if (existing) return existing;
      const source = producer === undefined && spec.node ? { node: spec.node, chunk: c } : undefined;
      return add({ key, tensor, box, dtype: spec.dtype, bytes: count(box) * INFO[spec.dtype].bytes, producer, holders: new Set(source ? [ep.id] : []), readers: [], left: 0, version: 0, output: outputs.has(tensor), ...(source ? { source } : {}) });
    };
    // pieces each task writes
    this.writes = plan.tasks.map((t) => (isScanTask(t) ? [make(t.output, t.chunk, undefined, t.id)] : t.writes.map((w) => make(w.tensor, w.chunk, w.row, t.id))));
    // sources: every chunk of a tensor no task writes (it is materialised here, or kept on the workers by an earlier job)
    plan.tensors.forEach((spec, tid) => {
      if (byTensor.has(tid) || !spec.node || !rt.has(spec.node)) return;
      const grid = numChunks(spec.shape, spec.chunk).reduce((a, b) => a * b, 1);
      const remote = rt.remoteOf(spec.node);
      if (remote && !(remote instanceof Resident && remote.job.ep === ep)) throw new Error('a job reads a result held by another coordinator\'s workers');
      for (let c = 0; c < grid; c++) {
        if (!remote) { make(tid, c, undefined, undefined); continue; }
        const q = remote.job.keptPiece(remote.tensor, c);
        const p = add({
          key: `${tid}.${c}`, tensor: tid, box: q.box, dtype: q.dtype, bytes: q.bytes, producer: undefined,
          holders: q.holders, readers: [], left: 0, version: 0, output: false, ext: { job: remote.job, piece: q },
        });
        this.extOf.set(q, p);
      }
    });
    // pieces each task reads, per input
    this.reads = plan.tasks.map((t) => {
      if (isScanTask(t)) return [[this.pieces.get(`${t.input}.${t.chunk}`)!], t.prev === undefined ? [] : [this.pieces.get(`${t.output}.${t.prev}`)!]];
      return t.reads.map((r) => (byTensor.get(r.tensor) ?? []).filter((p) => intersect(p.box, r.box) !== undefined || (r.box.length === 0 && p.box.length === 0)));
    });
    this.reads.forEach((ins, t) => {
      for (const p of new Set(ins.flat())) {
        if (!p) throw new Error(`internal: task ${t} reads a piece that no task writes`);
        p.readers.push(t);
        p.left++;
      }
    });
    for (const p of this.pieces.values()) if (p.output && p.producer !== undefined) this.outputsLeft++;
  }

  run(): Promise<MeshReport> {
    if (!this.plan.tasks.length) return Promise.resolve(this.finish());
    return new Promise<MeshReport>((resolve, reject) => {
      this.settle = { resolve, reject };
      this.report.tasks -= this.skipUnread();
      this.plan.tasks.forEach((_, t) => this.check(t));
      for (const p of this.pieces.values()) {
        const done = p.producer !== undefined && this.taskState[p.producer] === 'done';
        if (p.output && !p.data && !this.kept.has(p) && p.holders.size && done) void this.fetchOutput(p);
      }
      this.progress();
      this.dispatch();
    });
  }

  /** Keeps the job's outputs on the workers for `scope` (JobOptions.keep) instead of bringing them here. */
  keepFor(scope: object): void {
    this.keepScope = scope;
    for (const p of this.pieces.values()) {
      if (!p.output || p.producer === undefined) continue;
      this.kept.add(p);
      this.outputsLeft--;
    }
  }

  /** Whether the job finished with results kept on the workers: it stays until they are released. */
  get holding(): boolean { return this.finished && !this.error && this.kept.size > 0; }

  /** Chunk c of kept output tensor `tid`. */
  keptPiece(tid: number, c: number): Piece {
    const p = this.pieces.get(`${tid}.${c}`);
    if (!p || !this.kept.has(p)) throw new Error(`internal: chunk ${c} of tensor ${tid} is not kept by job ${this.id}`);
    return p;
  }

  /** Kept output tensor `tid` is no longer needed: its holders drop it; the job ends with its last one. */
  releaseKept(tid: number): void {
    for (const p of [...this.kept]) {
      if (p.tensor !== tid) continue;
      this.kept.delete(p);
      this.release(p);
    }
    if (!this.kept.size && this.finished) this.retire();
  }

  /** A piece of this job's kept results that a job reading it found gone: it is recomputed if no holder is left. */
  recover(p: Piece): void {
    if (p.holders.size === 0) this.lost(p);
    this.dispatch();
  }

  /** Another job's kept piece `q` has a holder again: the tasks of this job that read it may run. */
  extHeld(q: Piece): void {
    const p = this.extOf.get(q);
    if (!p) return;
    for (const r of p.readers) this.check(r);
    this.dispatch();
  }

  /** Every chunk of kept output tensor `tid`, fetched here from its holders (recomputed first where none is left). */
  async fetchKept(tid: number): Promise<{ chunks: TypedArray[]; bytes: number }> {
    const ps = [...this.pieces.values()].filter((p) => p.tensor === tid && p.producer !== undefined && this.kept.has(p));
    ps.sort((a, b) => Number(a.key.split('.')[1]) - Number(b.key.split('.')[1]));
    const chunks: TypedArray[] = [];
    let bytes = 0;
    for (const p of ps) {
      for (;;) {
        if (this.error) throw this.error;
        let data: TypedArray | undefined;
        for (const h of [...p.holders]) {
          const got = await this.fetchFrom(p, h, true);
          if (got && (p.digest === undefined || (await digestOf(got.data)) === p.digest)) { data = got.data; bytes += got.bytes; break; }
          // it did not give what it committed: lost there
          if (p.holders.delete(h) && p.holders.size === 0) this.recover(p);
        }
        if (data) { chunks.push(data); break; }
        this.recover(p);
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    return { chunks, bytes };
  }

  /**
   * Takes over the results an earlier coordinator of this job recorded,
   * where the worker that holds them is still here; then marks done the
   * tasks nothing needs any more (their readers were adopted). Only the rest
   * runs: what was lost with the workers that left.
   */
  adopt(record: JournalRecord): void {
    const live = this.workers();
    for (const [t, c] of [...record.commits].sort((a, b) => a[0] - b[0])) {
      if (t >= this.plan.tasks.length || !live.has(c.peer) || this.taskState[t] === 'done') continue;
      const n = this.writes[t]!.length;
      if (c.digests.split(',').length !== n) continue;
      this.taskState[t] = 'done';
      this.done++;
      this.report.resumed++;
      this.committedBy[t] = c.peer;
      this.digests[t] = c.digests;
      this.opts.journal?.commit(this.id, t, c);
      const ds = c.digests.split(',');
      this.writes[t]!.forEach((p, i) => { p.holders.add(c.peer); p.digest = ds[i]; });
      for (const q of new Set(this.reads[t]!.flat())) q.left--;
      // an adopted result is checked like a new one (the journal may be forged, or its worker may have lied)
      if (this.trust.draw(c.peer)) this.startCheck(t, c.peer, c.gpu === true);
    }
    if (!this.report.resumed) return;
    this.skipUnread();
    this.event('resume', { detail: `${this.report.resumed} results adopted from the journal` });
  }

  /**
   * Marks done the tasks whose pieces nothing reads (any more) and that are
   * no outputs, last task first so that what only they read goes too. At
   * the start of a job these are chunks a routine node never reads: the
   * upper triangle of a matrix whose Cholesky factor is taken, the zero tiles
   * above a factor's diagonal and a transposed factor's below it. Run, each
   * would be held on a worker until the job ends (a piece is freed when its
   * last reader is done, and these have none): at 12288² float64 in 1024²
   * tiles, 1.5 GB of the mesh's memory. Returns how many it marked.
   */
  private skipUnread(): number {
    let n = 0;
    for (let t = this.plan.tasks.length - 1; t >= 0; t--) {
      if (this.taskState[t] === 'done' || this.writes[t]!.some((p) => p.left > 0 || p.output)) continue;
      this.taskState[t] = 'done';
      this.done++;
      n++;
      for (const q of new Set(this.reads[t]!.flat())) q.left--;
    }
    return n;
  }

  describe(): string {
    const states = this.plan.tasks.map((_, t) => `${t}:${this.taskState[t]}${this.attempts[t]!.size ? `@${[...this.attempts[t]!.values()].map((a) => a.peer).join('+')}` : ''}`);
    const orphans = [...this.pieces.values()].filter((p) => p.holders.size === 0 && (p.left > 0 || (p.output && !p.data))).map((p) => p.key);
    const pieces = [...this.pieces.values()].filter((p) => p.producer !== undefined).map((p) => `${p.key}{${[...p.holders]}}${p.data ? 'D' : ''}l${p.left}`);
    return `job ${this.id}: ${this.done}/${this.plan.tasks.length} done, ${this.outputsLeft} outputs to fetch, queue [${this.queue}], workers [${[...this.workers().keys()]}], tasks ${states.join(' ')}, needed pieces without holders [${orphans}], pieces ${pieces.join(' ')}, events ${this.events.map((e) => `${e.ms}:${e.kind}${e.peer ? `@${e.peer}` : ''}${e.task !== undefined ? `#${e.task}` : ''}`).join(' ')}, committed by [${this.committedBy}]`;
  }

  fail(e: Error, state: 'failed' | 'cancelled' = 'failed'): void {
    if (this.finished && !this.reviving) return;
    this.finished = true;
    this.reviving = false;
    this.error = e;
    if (this.exe.level >= 1) this.exe.log(`job ${this.name ?? this.id} ${state} after ${(performance.now() - this.t0).toFixed(0)} ms: ${e.message}`);
    this.event('failed', { detail: e.message.slice(0, 200) });
    this.publish(state);
    this.settle?.reject(e);
  }

  private event(kind: JobEvent['kind'], e: Omit<JobEvent, 'kind' | 'ms'> = {}): void {
    this.events.push({ ms: Math.round(performance.now() - this.t0), kind, ...e });
    if (this.exe.level >= 2 && kind !== 'finished') {
      this.exe.log(`  ${kind}${e.task !== undefined ? ` task ${e.task}` : ''}${e.peer ? ` on ${e.peer}` : ''}${e.detail ? `: ${e.detail}` : ''}`);
    }
    if (this.events.length > KEEP_EVENTS) this.events.shift();
  }

  /** The job's progress, in the shared state: at most every publishMs while it runs, and when it ends. */
  private publish(state: JobProgress['state'] = 'running'): void {
    const now = performance.now();
    if (state === 'running' && now - this.published < (this.opts.publishMs ?? 250)) return;
    this.published = now;
    const perPeer: Record<string, { tasks: number; bytesIn: number }> = {};
    for (const s of this.peerStats.values()) perPeer[s.id] = { tasks: s.tasks, bytesIn: s.bytesIn };
    const r = this.report;
    this.state.jobs.set(this.id, {
      ...(this.name ? { name: this.name } : {}),
      done: this.done, total: this.plan.tasks.length, peers: this.peerStats.size, state, started: this.started, ms: Math.round(now - this.t0),
      releases: r.releases, recomputed: r.recomputed, speculative: r.speculative, bytesMoved: r.bytesMoved,
      perPeer, placed: [...this.placed], events: [...this.events],
    });
  }

  /** The piece a peer names (`key` or `key~version`), if that is its current version. */
  private byWire(name: string): Piece | undefined {
    const [key, v] = name.split('~');
    const p = this.pieces.get(key!);
    return p && p.version === Number(v ?? 0) ? p : undefined;
  }

  /** A piece passed from one worker to another through this coordinator: its bytes moved twice, one leg counted here. */
  relayed(bytes: number): void { this.report.bytesMoved += bytes; }

  /** The bytes of a piece this coordinator holds (a source, or an output it fetched), or of part `sub` of it (in its own coordinates). */
  pieceBytes(key: string, sub?: readonly Range[]): Uint8Array | undefined {
    const p = this.byWire(key);
    if (!p || !p.holders.has(this.ep.id)) return undefined;
    const shape = extent(p.box);
    if (sub && (sub.length !== shape.length || sub.some(([, hi], i) => hi > shape[i]!))) return undefined;
    let b = sub ? undefined : this.encoded.get(key);
    if (!b) {
      const data = p.data ?? (p.source ? this.opts.runtime.chunkOf(p.source.node, p.source.chunk) : undefined);
      if (!data) return undefined;
      if (sub) {
        b = encodeChunk(cut(data, p.dtype, shape, sub), p.dtype, extent(sub));
      } else {
        b = encodeChunk(data, p.dtype, shape);
        if (p.source) this.encoded.set(key, b);
      }
    }
    this.report.bytesMoved += b.length;
    return b;
  }

  private stats(peer: string): PeerReport {
    let s = this.peerStats.get(peer);
    if (!s) this.peerStats.set(peer, (s = { id: peer, tasks: 0, bytesIn: 0 }));
    return s;
  }

  /** Moves a waiting task to the queue when every piece it reads has a holder. */
  private check(t: number): void {
    if (this.taskState[t] !== 'wait') return;
    if (this.reads[t]!.every((ps) => ps.every((p) => p.holders.size > 0))) {
      this.taskState[t] = 'ready';
      this.readyAt[t] = performance.now();
      this.queue.push(t);
    }
  }

  private workers(): Map<string, { slots: number; throughput: number; memory: number }> {
    const ws = this.state.workers();
    const out = new Map<string, { slots: number; throughput: number; memory: number }>();
    const add = () => {
      for (const [id, c] of ws) {
        if (this.trust.quarantined.has(id) || this.benched.has(id)) continue;
        // capabilities come from the shared state, which any peer can write: take them with care
        const slots = Number.isFinite(c.slots) ? Math.max(1, Math.min(256, Math.floor(c.slots))) : 1;
        const memory = Number.isFinite(c.memory) && c.memory > 0 ? c.memory : Infinity;
        out.set(id, { slots, throughput: Number.isFinite(c.throughput) && c.throughput > 0 ? c.throughput : 1, memory });
      }
    };
    add();
    if (!out.size && this.benched.size && [...ws.keys()].some((id) => this.benched.has(id))) {
      // every worker here is benched: give them another chance rather than stall
      this.benched.clear();
      this.strikes.clear();
      this.unserved.clear();
      add();
    }
    return out;
  }

  /** Leases ready tasks to workers with free slots. */
  dispatch(): void {
    if (this.finished && !this.reviving) return;
    const ws = this.workers();
    if (ws.size) this.noWorkersSince = performance.now();
    const free = (id: string) => (this.load.get(id) ?? 0) < ws.get(id)!.slots + 1;
    if (this.checks.size) this.dispatchChecks(ws, free);
    // any ready task can go to any worker with a free slot: stop as soon as none has one
    // (not after cycling the whole queue, which made each message O(queue))
    const anyFree = () => { for (const id of ws.keys()) if (free(id)) return true; return false; };
    const held: number[] = [];
    let leased = 0, noRoom = 0;
    while (this.queue.length && anyFree()) {
      const t = this.queue.shift()!;
      if (this.taskState[t] !== 'ready') continue;
      // a worker whose pieces and running leases would pass its memory cap with this task's output is not free for it
      const bytes = this.writes[t]!.reduce((a, p) => a + p.bytes, 0);
      const fits = (id: string) => this.heldOn(id) + ((this.load.get(id) ?? 0) + 1) * bytes <= ws.get(id)!.memory;
      const peer = this.place(t, ws, (id) => free(id) && fits(id));
      // (the policy holds it back for a busy worker that holds its input, or none has room: it keeps its place in the queue)
      if (peer === undefined) {
        held.push(t);
        if (![...ws.keys()].some(fits)) noRoom++;
      } else {
        this.lease(t, peer);
        leased++;
      }
    }
    this.queue.unshift(...held);
    // nothing running, and what is ready fits on no worker: no task will free a byte, so waiting would hang
    if (noRoom && !leased && ws.size && [...ws.keys()].every((id) => !(this.load.get(id) ?? 0)) && !this.checks.size) {
      // first forget what full workers said (a refusal again says it again, and MAX_FULL bounds the retries)
      if (this.fullAt.size) { this.fullAt.clear(); this.dispatch(); return; }
      const caps = [...ws.entries()].map(([id, w]) => `${id} holds ${fmtBytes(this.heldBy.get(id) ?? 0)} of ${fmtBytes(w.memory)}`).join(', ');
      this.fail(new JobFailed(`out of memory on the mesh: ${noRoom} ready tasks fit on no worker (${caps})`));
    }
  }

  /** Bytes of pieces placement counts as held on worker `id`: this job's, or more where the worker said so refusing a task. */
  private heldOn(id: string): number { return Math.max(this.heldBy.get(id) ?? 0, this.fullAt.get(id) ?? 0); }

  /** Why task t went to `peer`, for DEBUG level 2: how much of its input the peer holds, and its load. */
  private placement(t: number, peer: string): string {
    return `${this.placer.explain(this.taskView(t, [peer]), peer)}; ${this.load.get(peer) ?? 0} leases running there`;
  }

  /** Task t as the placement policy sees it: its first output's key, and the pieces it reads that tasks computed (`ids`: the workers asked about). */
  private taskView(t: number, ids: readonly string[]): TaskView {
    const inputs = [...new Set(this.reads[t]!.flat())].filter((p) => !p.source).map((p) => ({
      bytes: p.bytes, holders: p.holders,
      // the workers with a link of their own to a holder; the others would get it relayed
      reachable: new Set(ids.filter((id) => p.holders.has(id) || [...p.holders].some((h) => this.reach.reaches(id, h)))),
    }));
    return { key: this.writes[t]![0]!.key, inputs, waitedMs: performance.now() - this.readyAt[t]! };
  }

  private place(t: number, ws: Map<string, { slots: number; throughput: number; memory: number }>, free: (id: string) => boolean): string | undefined {
    const now = performance.now();
    const workers: WorkerView[] = [...ws].map(([id, w]) => ({
      id, slots: w.slots, throughput: w.throughput, leases: this.load.get(id) ?? 0, free: free(id), sinceLeaseMs: now - (this.leasedAt.get(id) ?? this.t0),
    }));
    return this.placer.place(this.taskView(t, workers.filter((w) => w.free).map((w) => w.id)), workers);
  }

  /** Leases task t to `peer`; a `check` lease re-runs a committed result to verify it. */
  private lease(t: number, peer: string, check = false): void {
    const attempt = this.nextAttempt[t]!++;
    const now = performance.now();
    this.attempts[t]!.set(attempt, { peer, deadline: now + (this.opts.leaseMs ?? 30_000), started: now, ...(check ? { check: true as const } : {}) });
    this.leasedTo.set(`${t}/${attempt}`, peer);
    this.leasedAt.set(peer, now);
    if (!check) this.taskState[t] = 'run';
    this.load.set(peer, (this.load.get(peer) ?? 0) + 1);
    this.report.leases++;
    if (!this.tids.has(peer)) this.tids.set(peer, this.tids.size + 1);
    if (this.exe.level >= 2) this.exe.log(`  lease task ${t}#${attempt}${check ? ' (a check)' : ''} to ${peer}: ${this.placement(t, peer)}`);
    const m = this.taskMessage(t, attempt, peer);
    this.ep.send(peer, check ? { ...m, check: true } as Message : m).catch((e: Error) => {
      // a message no peer would accept (past a bound of the protocol) is sent to none: the job fails, naming it
      if (!e.message.startsWith(`internal: a ${m.t} message`)) return this.lapse(t, attempt);
      this.fail(new JobFailed(`task ${t} cannot be sent to a worker: ${e.message.replace(/^internal: /, '')}`));
    });
  }

  private taskMessage(t: number, attempt: number, peer: string): Message {
    const task = this.plan.tasks[t]!;
    // the peer itself first, then holders it has a link to
    const near = (h: string) => (h === peer ? 0 : this.reach.reaches(peer, h) ? 1 : 2);
    const src = (p: Piece) => {
      const { job, key } = address(p, this.id);
      const d = p.ext?.piece.digest ?? p.digest;
      return {
        key, box: p.box as [number, number][],
        from: [...p.holders].sort((a, b) => near(a) - near(b)).slice(0, 64),
        ...(d ? { d } : {}), ...(job !== this.id ? { job } : {}), ...(this.verifying ? { whole: true as const } : {}),
      };
    };
    if (isScanTask(task)) {
      const [[s], prev] = this.reads[t]! as [[Piece], Piece[]];
      const out = this.writes[t]![0]!;
      return { t: 'scan', job: this.id, task: t, attempt, op: task.scan.op, axis: task.scan.axis, inDtype: s.dtype, outDtype: out.dtype, shape: extent(out.box), src: src(s), ...(prev[0] ? { prev: src(prev[0]) } : {}), out: wire(out) };
    }
    if (!isKernelTask(task)) {
      // a routine is named, never shipped: the peer runs its own copy (runtime/routines.ts) after checking the call
      const out = this.writes[t]![0]!;
      return {
        t: 'routine', job: this.id, task: t, attempt, name: task.routine.name,
        params: task.routine.params as Record<string, number | boolean | string | number[]>,
        reads: task.reads.map((r, i) => ({
          dtype: this.plan.tensors[r.tensor]!.dtype, box: r.box as [number, number][], pieces: this.reads[t]![i]!.map(src),
        })),
        write: { key: wire(out), dtype: out.dtype, box: out.box as [number, number][] },
      };
    }
    let kernel = this.kernelText.get(task.kernel);
    if (kernel === undefined) this.kernelText.set(task.kernel, (kernel = encodeKernel(this.plan.kernels[task.kernel]!)));
    const sent = `${peer}/${task.kernel}`;
    if (this.kernelsSent.has(sent)) kernel = '';
    else this.kernelsSent.add(sent);
    return {
      t: 'task', job: this.id, task: t, attempt, kernel, kid: task.kernel, partial: task.partial, outer: task.outer as [number, number][], red: task.red as [number, number][],
      reads: task.reads.map((r, i) => ({ dtype: this.plan.tensors[r.tensor]!.dtype, box: r.box as [number, number][], pieces: this.reads[t]![i]!.map(src) })),
      writes: task.writes.map((w, i) => {
        const p = this.writes[t]![i]!;
        return { key: wire(p), dtype: p.dtype, box: (w.row === undefined ? p.box : p.box.slice(1)) as [number, number][] };
      }),
    };
  }

  /** An attempt that will not finish (its lease lapsed, its peer left, or sending it failed). */
  /**
   * A worker let a lease lapse or failed a task (STRIKES in a row; a commit
   * clears them), or could not serve a piece it committed (STRIKES in all,
   * `unserved`): it gets no more tasks of this job, so a worker that takes
   * leases and never delivers cannot hold the job.
   */
  private strike(peer: string, why: string, unserved = false): void {
    const counts = unserved ? this.unserved : this.strikes;
    const n = (counts.get(peer) ?? 0) + 1;
    counts.set(peer, n);
    if (n >= STRIKES && !this.benched.has(peer)) { this.benched.add(peer); this.event('bench', { peer, detail: why }); }
  }

  private lapse(t: number, attempt: number): void {
    const a = this.attempts[t]!.get(attempt);
    if (!a) return;
    this.attempts[t]!.delete(attempt);
    this.load.set(a.peer, Math.max(0, (this.load.get(a.peer) ?? 1) - 1));
    if (a.check) {
      const c = this.checks.get(t);
      if (c) { c.tried.delete(a.peer); c.queued = true; }
      return;
    }
    if (this.taskState[t] === 'run' && [...this.attempts[t]!.values()].every((x) => x.check)) {
      this.taskState[t] = 'wait';
      this.report.releases++;
      this.event('release', { peer: a.peer, task: t });
      this.check(t);
    }
  }

  heartbeat(peer: string, r: { task: number; attempt: number }): void {
    const a = this.attempts[r.task]?.get(r.attempt);
    if (a && a.peer === peer) a.deadline = performance.now() + (this.opts.leaseMs ?? 30_000);
  }

  message(from: string, m: Message, payload?: Uint8Array): void {
    if (this.finished && !this.reviving) return;
    if (m.t === 'done') this.onDone(from, m);
    else if (m.t === 'fail') this.onFail(from, m);
    void payload;
    this.dispatch();
  }

  reply(from: string, m: MessageOf<'piece'> | MessageOf<'missing'>, payload?: Uint8Array): void {
    // an answer counts only from the peer asked, about the piece asked for
    const w = this.waiting.get(m.req);
    if (w && w.peer === from && w.key === m.key) { this.waiting.delete(m.req); w.resolve(m.t === 'piece' ? payload : undefined); }
  }

  private onDone(from: string, m: MessageOf<'done'>): void {
    const t = m.task;
    if (t >= this.plan.tasks.length) return;
    // only the peer an attempt was leased to may answer for it (a late answer to a lapsed lease is welcome)
    if (this.leasedTo.get(`${t}/${m.attempt}`) !== from) return;
    const a = this.attempts[t]!.get(m.attempt);
    const expected = this.writes[t]!.map((p) => p.bytes);
    if (m.bytes.length !== expected.length || m.bytes.some((b, i) => b !== expected[i])) {
      // a result of the wrong size is a failed attempt (with its lease still on record, so it is leased again)
      this.onFail(from, { t: 'fail', job: this.id, task: t, attempt: m.attempt, reason: `wrote ${m.bytes} bytes, not ${expected}` });
      return;
    }
    if (a) { this.attempts[t]!.delete(m.attempt); this.load.set(from, Math.max(0, (this.load.get(from) ?? 1) - 1)); }
    if (a) {
      const end = epochNow();
      this.exe.span(`task ${t}`, a.check ? 'check' : 'task', this.tids.get(from) ?? 0, performance.timeOrigin + a.started, end,
        { peer: from, attempt: m.attempt, ms: Math.round(m.ms * 100) / 100, bytesIn: m.bytesIn });
      if (this.exe.level >= 2) {
        const fromLease = (end - performance.timeOrigin - a.started).toFixed(1);
        this.exe.log(`  done task ${t}#${m.attempt}${a.check ? ' (a check)' : ''} on ${from}: ${m.ms.toFixed(1)} ms there, `
          + `${fromLease} ms from the lease, ${fmtBytes(m.bytesIn)} fetched`);
      }
    }
    if (a?.check) { void this.onCheckDone(t, from, m); return; }
    if (m.attempt < this.validFrom[t]! || this.trust.quarantined.has(from) || m.digests.length !== this.writes[t]!.length) {
      // a result computed from inputs found wrong since, or from a peer caught lying: void
      const keys = this.writes[t]!.filter((p) => !p.holders.has(from)).map(wire);
      if (keys.length) void this.ep.send(from, { t: 'free', job: this.id, keys }).catch(() => undefined);
      return;
    }
    if (this.taskState[t] === 'done') {
      // a second result of a task already committed (a speculative copy, or a lease that lapsed): dropped
      this.report.duplicates++;
      const keys = this.writes[t]!.filter((p) => !p.holders.has(from)).map(wire);
      if (keys.length) void this.ep.send(from, { t: 'free', job: this.id, keys }).catch(() => undefined);
      return;
    }
    this.taskState[t] = 'done';
    this.done++;
    this.report.commits++;
    this.strikes.delete(from);
    this.committedBy[t] = from;
    this.digests[t] = m.digests.join();
    this.opts.journal?.commit(this.id, t, { peer: from, digests: this.digests[t]!, ...(m.dev === 'gpu' ? { gpu: true } : {}) });
    // whether to verify is drawn after the commit, so the peer cannot know
    if (this.trust.draw(from)) this.startCheck(t, from, m.dev === 'gpu');
    this.doneMs.push(m.ms);
    const s = this.stats(from);
    s.tasks++;
    s.bytesIn += m.bytesIn;
    this.report.bytesMoved += m.bytesIn;
    this.writes[t]!.forEach((p, i) => { p.digest = m.digests[i]; });
    for (const p of this.writes[t]!) {
      this.placed.push([p.key, from]);
      if (this.placed.length > KEEP_PLACED) this.placed.shift();
      if (!p.holders.has(from)) this.heldBy.set(from, (this.heldBy.get(from) ?? 0) + p.bytes);
      p.holders.add(from);
      for (const r of p.readers) this.check(r);
      if (this.kept.has(p)) {
        for (const j of this.kin()) if (j !== this) j.extHeld(p);
      } else if (p.output && !p.data) void this.fetchOutput(p);
    }
    for (const p of new Set(this.reads[t]!.flat())) {
      if (--p.left === 0 && !p.output && !p.source && !p.ext) this.release(p);
    }
    this.progress();
    // leases on other copies of this task end with it
    for (const [att, other] of this.attempts[t]!) { this.attempts[t]!.delete(att); this.load.set(other.peer, Math.max(0, (this.load.get(other.peer) ?? 1) - 1)); }
  }

  // -------------------------------------------------------------------------
  // Verification (trust.ts): a committed result re-run on other peers, which
  // vote with their digests until two agree; peers that disagree with the
  // majority are caught.

  /** Verifies task t's committed result: its inputs stay alive until the check ends. */
  private startCheck(t: number, orig: string, gpu: boolean): void {
    for (const q of new Set(this.reads[t]!.flat())) q.left++;
    const mm = this.matmulBlock(t);
    const c: Check = {
      // a GPU result's digest is no vote: the CPU re-runs vote, and its data is compared with theirs
      orig, votes: new Map(gpu ? [] : [[orig, this.digests[t]!]]), tried: new Set([orig]), queued: !mm, since: performance.now(),
      ...(mm ? { holdsOutput: true as const } : {}), ...(gpu ? { gpu: { data: new Map() }, holdsOutput: true as const } : {}),
    };
    if (mm || gpu) for (const p of this.writes[t]!) p.left++;
    this.checks.set(t, c);
    this.report.checks++;
    if (mm) void this.freivalds(t, c, mm);
  }

  /** The operands of task t if it is a whole block of a 2-d matrix product (Freivalds' test applies), else undefined. */
  private matmulBlock(t: number): { a: number; b: number } | undefined {
    const task = this.plan.tasks[t]!;
    if (!isKernelTask(task) || task.partial || task.writes.length !== 1) return undefined;
    const k = this.plan.kernels[task.kernel]!;
    const out = this.writes[t]![0]!;
    if (k.shape.length !== 2 || out.box.some(([lo, hi], d) => task.outer[d]![0] !== lo || task.outer[d]![1] !== hi)) return undefined;
    return matmulOf(k);
  }

  /**
   * Freivalds' test of a committed block C = A @ B: for 10 random ±1 vectors
   * r, drawn now (after the commit), C r must equal A (B r) within rounding;
   * O(n²) work here instead of the product's O(n³), and a wrong C passes
   * with probability at most 2^-10. C is fetched from the peer that committed
   * it and must match the digest it reported. Where a block cannot be
   * fetched, the check falls back to a re-run on another peer.
   */
  private async freivalds(t: number, c: Check, mm: { a: number; b: number }): Promise<void> {
    const task = this.plan.tasks[t] as Task;
    const out = this.writes[t]![0]!;
    const [a, b] = await Promise.all([this.gather(t, mm.a), this.gather(t, mm.b)]);
    const cData = await this.fetchFrom(out, c.orig);
    if (this.checks.get(t) !== c || this.finished) return; // its result was thrown away meanwhile
    if (!a || !b || !cData) { c.queued = true; c.since = performance.now(); this.dispatch(); return; }
    this.report.freivalds++;
    const [n, m] = [out.box[0]![1] - out.box[0]![0], out.box[1]![1] - out.box[1]![0]];
    const kk = task.red[0]![1] - task.red[0]![0];
    const served = (await digestOf(cData)) === this.digests[t];
    const honest = served && freivaldsPasses(a, b, cData, n, kk, m, out.dtype === 'float32' ? 2 ** -24 : 2 ** -53, this.opts.random ?? Math.random);
    if (this.checks.get(t) !== c || this.finished) return;
    if (honest === undefined) { c.queued = true; c.since = performance.now(); this.dispatch(); return; } // a re-run decides
    this.endCheck(t);
    if (honest) this.trust.passed(c.orig);
    else this.caught(c.orig);
    this.progress();
  }

  /** The box task t reads of its input i, assembled from the pieces that cover it (undefined if one cannot be had). */
  private async gather(t: number, i: number): Promise<TypedArray | undefined> {
    const r = (this.plan.tasks[t] as Task).reads[i]!;
    const dtype = this.plan.tensors[r.tensor]!.dtype;
    const data = alloc(dtype, r.box);
    for (const p of this.reads[t]![i]!) {
      const src = p.data ?? (p.source ? this.opts.runtime.chunkOf(p.source.node, p.source.chunk) : await this.fetchPiece(p));
      if (!src) return undefined;
      copyBoxInto(data, r.box, src, p.box, dtype);
    }
    return data;
  }

  private async fetchPiece(p: Piece): Promise<TypedArray | undefined> {
    for (const h of [...p.holders]) {
      if (h === this.ep.id) continue;
      const d = await this.fetchFrom(p, h);
      if (d) return d;
    }
    return undefined;
  }

  /** Piece p from `holder`, or undefined (it does not have it, it left, or it took too long). */
  private async fetchFrom(p: Piece, holder: string): Promise<TypedArray | undefined>;
  /** With `sized`: and the bytes it came in. */
  private async fetchFrom(p: Piece, holder: string, sized: true): Promise<{ data: TypedArray; bytes: number } | undefined>;
  private async fetchFrom(p: Piece, holder: string, sized?: true): Promise<TypedArray | { data: TypedArray; bytes: number } | undefined> {
    const req = this.nextReq++;
    const { job, key } = address(p, this.id);
    const payload = await new Promise<Uint8Array | undefined>((resolve) => {
      const timer = setTimeout(() => { this.waiting.delete(req); resolve(undefined); }, this.opts.fetchTimeoutMs ?? 30_000);
      this.waiting.set(req, { peer: holder, key, resolve: (b) => { clearTimeout(timer); resolve(b); } });
      this.ep.send(holder, { t: 'get', req, job, key }).catch(() => { this.waiting.delete(req); clearTimeout(timer); resolve(undefined); });
    });
    if (!payload) return undefined;
    try {
      const d = decodeChunk(payload, { dtype: p.dtype, shape: extent(p.box) }).data;
      this.report.bytesMoved += payload.length;
      this.report.bytesToCoordinator += payload.length;
      return sized ? { data: d, bytes: payload.length } : d;
    } catch {
      return undefined;
    }
  }

  /** Ends the check of t: its hold on the inputs goes. */
  private endCheck(t: number): void {
    const c = this.checks.get(t);
    if (!c || !this.checks.delete(t)) return;
    if (c.holdsOutput) for (const out of this.writes[t]!) if (--out.left === 0 && !out.output) this.release(out);
    for (const q of new Set(this.reads[t]!.flat())) if (--q.left === 0 && !q.output && !q.source && !q.ext) this.release(q);
  }

  /** Leases queued checks to live workers that have not voted on them, least loaded first. */
  private dispatchChecks(ws: Map<string, { slots: number }>, free: (id: string) => boolean): void {
    for (const [t, c] of this.checks) {
      if (!c.queued) continue;
      if (c.votes.size === 1 && ws.size > 0 && [...ws.keys()].every((id) => c.tried.has(id))) {
        // no other worker to compare with (a mesh of one): the result stands unverified
        this.endCheck(t);
        this.progress();
        continue;
      }
      if (!this.reads[t]!.every((ps) => ps.every((p) => p.holders.size > 0))) continue;
      const peer = [...ws.keys()].filter((id) => !c.tried.has(id) && free(id)).sort((a, b) => (this.load.get(a) ?? 0) / ws.get(a)!.slots - (this.load.get(b) ?? 0) / ws.get(b)!.slots)[0];
      if (!peer) continue;
      c.queued = false;
      c.tried.add(peer);
      c.since = performance.now();
      this.report.checkRuns++;
      this.lease(t, peer, true);
    }
  }

  private async onCheckDone(t: number, from: string, m: MessageOf<'done'>): Promise<void> {
    const c = this.checks.get(t);
    // a GPU result is compared with the CPU re-run's data: fetch it before the copy goes
    const data = c?.gpu && !this.trust.quarantined.has(from) ? await this.fetchAll(t, from) : undefined;
    // the checker's copy is not a holder: free it
    const keys = this.writes[t]!.filter((p) => !p.holders.has(from)).map(wire);
    if (keys.length) void this.ep.send(from, { t: 'free', job: this.id, keys }).catch(() => undefined);
    if (!c || this.checks.get(t) !== c || this.trust.quarantined.has(from)) return;
    if (c.gpu) {
      if (!data) { c.tried.delete(from); c.queued = true; return; } // its copy could not be had: another re-run
      c.gpu.data.set(from, data);
      c.gpu.orig ??= await this.fetchAll(t, c.orig);
      if (this.checks.get(t) !== c) return;
      if (!c.gpu.orig) { this.endCheck(t); this.progress(); return; } // the result itself is gone (its peer left): it is recomputed
    }
    c.votes.set(from, m.digests.join());
    const tally = new Map<string, string[]>();
    for (const [peer, d] of c.votes) tally.set(d, [...(tally.get(d) ?? []), peer]);
    const [winner, agree] = [...tally].sort((a, b) => b[1].length - a[1].length)[0]!;
    if (c.gpu) {
      // one CPU re-run close to the GPU result settles it; otherwise two CPU re-runs that agree are the reference
      const close = (peer: string) => this.writes[t]!.every((p, i) => closeAcrossDevices(c.gpu!.orig![i]!, c.gpu!.data.get(peer)![i]!, p.dtype));
      if (c.votes.size === 1 && close(from)) { this.endCheck(t); this.trust.passed(c.orig); this.progress(); return; }
      if (agree.length < 2) { c.queued = true; return; }
      this.endCheck(t);
      for (const [d, peers] of tally) if (d !== winner) for (const peer of peers) this.caught(peer);
      if (close(agree[0]!)) this.trust.passed(c.orig);
      else this.caught(c.orig);
      this.progress();
      return;
    }
    if (agree.length < 2) { c.queued = true; return; } // no two agree yet: one more vote
    this.endCheck(t);
    // only the result under check earns its peer trust: a re-run is flagged as one (it runs on the CPU), so a
    // hostile peer could answer re-runs honestly to lower the rate its own results are checked at
    if (agree.includes(c.orig)) this.trust.passed(c.orig);
    for (const [d, peers] of tally) if (d !== winner) for (const peer of peers) this.caught(peer);
    this.progress();
  }

  /** Every piece task t wrote, from `peer` (undefined if one cannot be had). */
  private async fetchAll(t: number, peer: string): Promise<TypedArray[] | undefined> {
    const out: TypedArray[] = [];
    for (const p of this.writes[t]!) {
      const d = await this.fetchFrom(p, peer);
      if (!d) return undefined;
      out.push(d);
    }
    return out;
  }

  /**
   * `peer` was caught returning a wrong result: out of placement for good,
   * and everything it committed in this job, and everything computed from
   * that, runs again elsewhere.
   */
  quarantine(peer: string): void {
    if ((this.finished && !this.kept.size) || this.report.quarantined.includes(peer)) return;
    this.trust.caught(peer);
    this.report.quarantined.push(peer);
    this.event('quarantine', { peer, detail: 'its result disagreed with two other peers' });
    const bad = new Set<number>();
    const stack = this.plan.tasks.map((_, t) => t).filter((t) => this.committedBy[t] === peer && this.taskState[t] === 'done');
    while (stack.length) {
      const t = stack.pop()!;
      if (bad.has(t)) continue;
      bad.add(t);
      for (const p of this.writes[t]!) {
        for (const r of p.readers) {
          if (this.taskState[r] === 'done' || this.taskState[r] === 'run') stack.push(r);
          else if (this.taskState[r] === 'ready') this.taskState[r] = 'wait';
        }
      }
    }
    for (const t of bad) this.uncommit(t);
    // its votes count no more; checks of its results went with them
    for (const [t, c] of this.checks) if (c.votes.delete(peer)) c.queued = true;
    this.peerDown(peer);
  }

  /** Task t's result (or its running attempts) cannot be trusted: it runs again. */
  private uncommit(t: number): void {
    const wasDone = this.taskState[t] === 'done';
    if (this.finished && this.kept.size) this.reviving = true;
    for (const [att, a] of this.attempts[t]!) {
      if (a.check) continue;
      this.attempts[t]!.delete(att);
      this.load.set(a.peer, Math.max(0, (this.load.get(a.peer) ?? 1) - 1));
    }
    this.validFrom[t] = this.nextAttempt[t]!;
    if (wasDone) { this.done--; this.report.recomputed++; }
    this.taskState[t] = 'wait';
    this.committedBy[t] = undefined;
    this.opts.journal?.uncommit(this.id, t);
    for (const p of this.writes[t]!) {
      this.release(p);
      if (p.data) { p.data = undefined; p.holders.delete(this.ep.id); this.outputsLeft++; }
      p.version++;
      p.digest = undefined;
    }
    if (wasDone) {
      for (const q of new Set(this.reads[t]!.flat())) {
        q.left++;
        if (q.holders.size === 0) this.lost(q);
      }
    }
    this.endCheck(t);
    this.check(t);
  }

  /** Frees a piece no unfinished task reads on the peers that hold it. */
  private release(p: Piece): void {
    for (const h of p.holders) {
      if (h === this.ep.id) continue;
      void this.ep.send(h, { t: 'free', job: this.id, keys: [wire(p)] }).catch(() => undefined);
      if (this.heldBy.has(h)) this.heldBy.set(h, Math.max(0, this.heldBy.get(h)! - p.bytes));
      if (this.fullAt.has(h)) this.fullAt.set(h, Math.max(0, this.fullAt.get(h)! - p.bytes));
    }
    p.holders.clear();
  }

  private onFail(from: string, m: MessageOf<'fail'>): void {
    const t = m.task;
    if (t >= this.plan.tasks.length) return;
    if (this.leasedTo.get(`${t}/${m.attempt}`) !== from) return;
    const a = this.attempts[t]!.get(m.attempt);
    if (m.needKernel) {
      const task = this.plan.tasks[t]!;
      if (isKernelTask(task)) this.kernelsSent.delete(`${from}/${task.kernel}`);
      this.lapse(t, m.attempt);
      return;
    }
    if (m.unreachable !== undefined) {
      this.reach.cut(from, m.unreachable);
      const n = (this.unreached.get(t) ?? 0) + 1;
      this.unreached.set(t, n);
      // a broken link, not a lost piece: the task goes where its inputs can be had; only when that keeps
      // failing is the piece taken for lost (below), so a link that stays broken cannot hold the job
      if (n <= UNREACHED) { this.lapse(t, m.attempt); return; }
    }
    if (a?.check) {
      if (m.missing) {
        const p = this.missingPiece(m.missing);
        if (p && !p.source && m.missing.from !== this.ep.id && p.holders.delete(m.missing.from) && p.holders.size === 0) this.lost(p);
      }
      this.lapse(t, m.attempt);
      return;
    }
    if (this.taskState[t] === 'done') return;
    if (m.full !== undefined && !m.missing) {
      // the worker was full (pieces of other jobs, copies this coordinator does not count): not its fault, nor the
      // task's; it goes elsewhere or waits for room, unless that keeps happening. What it said it holds
      // (the sum it gave, less this task's output) is counted as held there (fullAt).
      const out = this.writes[t]!.reduce((s, p) => s + p.bytes, 0);
      this.fullAt.set(from, Math.max(0, m.full - out));
      const n = (this.full.get(t) ?? 0) + 1;
      this.full.set(t, n);
      if (n >= MAX_FULL) { this.fail(new JobFailed(`task ${t} was refused ${n} times by full workers; last on peer ${from}: ${m.reason}`)); return; }
      this.lapse(t, m.attempt);
      return;
    }
    if (m.error === 'LinAlgError' && !m.missing) {
      // the data failed the task (a tile not positive definite), not the peer: no strike; a second peer's word
      // makes it the job's error (one peer's claim alone could end a job), or a third report where only one peer takes it
      const e = this.dataErrors.get(t) ?? { peers: new Set<string>(), reports: 0 };
      e.peers.add(from); e.reports++;
      this.dataErrors.set(t, e);
      if (e.peers.size >= 2 || e.reports >= 3) { this.fail(new LinAlgError(m.reason)); return; }
      this.lapse(t, m.attempt);
      return;
    }
    if (m.missing && m.missing.from !== this.ep.id) this.strike(m.missing.from, 'it did not serve pieces it committed', true);
    else if (!m.missing) this.strike(from, 'its tasks failed');
    if (m.missing) {
      // (a piece this coordinator holds is not lost because a fetch of it failed: the message was lost)
      const p = this.missingPiece(m.missing);
      if (p && !p.source && m.missing.from !== this.ep.id && p.holders.delete(m.missing.from) && p.holders.size === 0) this.lost(p);
    } else if (++this.failures[t]! >= (this.opts.maxFailures ?? 5)) {
      this.fail(new JobFailed(`task ${t} failed ${this.failures[t]} times; last on peer ${from}: ${m.reason}`));
      return;
    }
    this.lapse(t, m.attempt);
  }

  /** The piece a failed task names as missing: this job's, or another job's kept piece this one reads. */
  private missingPiece(m: { key: string; job?: string | undefined }): Piece | undefined {
    if (m.job === undefined || m.job === this.id) return this.byWire(m.key);
    for (const [q, p] of this.extOf) if (q.ext === undefined && p.ext!.job.id === m.job && wire(q) === m.key) return p;
    return undefined;
  }

  /**
   * A needed piece has no holder left: its producer runs again (and,
   * transitively, what that needs); another job's kept piece, that job
   * recomputes, and this one waits for it.
   */
  private lost(p: Piece): void {
    if (p.ext) {
      for (const r of p.readers) if (this.taskState[r] === 'ready') this.taskState[r] = 'wait';
      p.ext.job.recover(p.ext.piece);
      return;
    }
    if (p.producer === undefined || p.data) return;
    for (const r of p.readers) {
      if (this.taskState[r] === 'ready') this.taskState[r] = 'wait';
    }
    if (!(p.left > 0 || (p.output && !p.data && (!this.keepScope || this.kept.has(p))))) return;
    const t = p.producer;
    if (this.taskState[t] !== 'done') return;
    if (this.finished) this.reviving = true;
    this.taskState[t] = 'wait';
    this.done--;
    this.report.recomputed++;
    this.opts.journal?.uncommit(this.id, t);
    this.event('recompute', { task: t, detail: `piece ${p.key} was lost` });
    for (const q of new Set(this.reads[t]!.flat())) {
      q.left++;
      if (q.holders.size === 0) this.lost(q);
    }
    this.endCheck(t); // the result it was checking is gone; the new one may be checked in turn
    this.check(t);
  }

  peerDown(id: string): void {
    if (this.finished && !this.kept.size) return;
    if (this.peerStats.has(id) || this.load.has(id)) this.event('peer-left', { peer: id });
    for (const [t, as] of this.attempts.entries()) for (const [att, a] of as) if (a.peer === id) this.lapse(t, att);
    for (const p of this.pieces.values()) {
      // (another job's kept piece shares its holders with that job, which may have seen the peer go first)
      if ((p.holders.delete(id) || p.ext) && p.holders.size === 0) this.lost(p);
    }
    // fetches from it will not be answered
    for (const [req, w] of this.waiting) if (w.peer === id) { this.waiting.delete(req); w.resolve(undefined); }
    this.dispatch();
  }

  tick(): void {
    if (this.finished && !this.reviving) return;
    // a kept result this job reads was lost and could not be made again
    for (const q of this.extOf.keys()) {
      const e = this.extOf.get(q)!.ext!.job.error;
      if (e) { this.fail(new Error(`a result of an earlier stage was lost and could not be computed again: ${e.message}`)); return; }
    }
    this.publish();
    const now = performance.now();
    for (const [t, as] of this.attempts.entries()) for (const [att, a] of as) if (a.deadline < now) { this.strike(a.peer, 'its leases lapsed'); this.lapse(t, att); }
    this.dispatch();
    if (this.opts.speculate !== false && this.queue.length === 0) this.speculate(now);
    for (const [t, c] of this.checks) {
      if (c.queued && now - c.since > (this.opts.checkWaitMs ?? 30_000)) {
        // a disagreement nothing decided: neither side is proven wrong, and both are checked in full again
        for (const peer of c.votes.keys()) this.trust.disagreed(peer);
        this.fail(new JobFailed(`cannot verify task ${t}: the results of peers ${[...c.votes.keys()].join(' and ')} disagree and no other worker could decide within ${((this.opts.checkWaitMs ?? 30_000) / 1000).toFixed(0)} s`));
        return;
      }
    }
    const wait = this.opts.waitForWorkersMs ?? 60_000;
    if (this.workers().size === 0 && now - this.noWorkersSince > wait) this.fail(new Error(`no workers in the room for ${(wait / 1000).toFixed(0)} s`));
  }

  /** Leases a second copy of the slowest running task to an idle worker. */
  private speculate(now: number): void {
    const floor = this.opts.stragglerMs ?? 2000;
    const sorted = [...this.doneMs].sort((a, b) => a - b);
    // with too few results for a median, a task is a straggler after 4 floors
    const limit = sorted.length >= 3 ? Math.max(4 * sorted[sorted.length >> 1]!, floor) : 4 * floor;
    const ws = this.workers();
    const idle = [...ws.keys()].filter((id) => (this.load.get(id) ?? 0) === 0);
    if (!idle.length) return;
    for (const [t, as] of this.attempts.entries()) {
      if (this.taskState[t] !== 'run' || as.size !== 1) continue;
      const [a] = as.values();
      if (now - a!.started < limit) continue;
      const peer = idle.find((id) => id !== a!.peer);
      if (!peer) return;
      this.report.speculative++;
      this.event('speculate', { peer, task: t });
      this.lease(t, peer);
      idle.splice(idle.indexOf(peer), 1);
      if (!idle.length) return;
    }
  }

  private async fetchOutput(p: Piece): Promise<void> {
    for (const holder of [...p.holders]) {
      if (holder === this.ep.id) continue;
      let data = await this.fetchFrom(p, holder);
      if (data && p.digest !== undefined && (await digestOf(data)) !== p.digest) data = undefined; // not what was committed
      if (this.finished || p.data) return;
      if (!p.holders.has(holder)) continue; // its result was found wrong meanwhile
      // (a piece that does not come, or does not decode, is lost there: computed again)
      if (!data) {
        this.strike(holder, 'it did not serve pieces it committed', true);
        if (p.holders.delete(holder) && p.holders.size === 0) { this.lost(p); this.dispatch(); }
        continue;
      }
      p.data = data;
      p.holders.add(this.ep.id);
      this.outputsLeft--;
      this.progress();
      return;
    }
  }

  private progress(): void {
    const total = this.plan.tasks.length;
    this.onProgress?.({ done: this.done, total });
    this.publish();
    if (this.done !== total || this.outputsLeft !== 0 || this.checks.size !== 0) return;
    if (!this.finished) this.settle?.resolve(this.finish());
    else this.reviving = false; // a lost kept piece is back
  }

  private finish(): MeshReport {
    this.finished = true;
    for (const [node, tid] of this.plan.outputs) {
      if (this.keepScope) { this.opts.runtime.keepRemote(node, new Resident(this, tid), this.keepScope); continue; }
      const spec = this.plan.tensors[tid]!;
      const grid = numChunks(spec.shape, spec.chunk).reduce((a, b) => a * b, 1);
      const chunks = Array.from({ length: grid }, (_, c) => this.pieces.get(`${tid}.${c}`)?.data);
      if (chunks.some((c) => !c)) throw new Error(`internal: output tensor ${tid} is missing chunks`);
      this.opts.runtime.putChunks(node, chunks as TypedArray[]);
    }
    this.report.peers = [...this.peerStats.values()];
    this.report.ms = performance.now() - this.t0;
    this.report.trace = this.exe.trace();
    if (this.exe.level >= 1) {
      const r = this.report;
      this.exe.log(`job ${this.name ?? this.id} ${r.ms.toFixed(0)} ms: ${r.tasks} tasks on ${r.peers.length} workers; `
        + `${r.leases} leases (${r.releases} again, ${r.speculative} speculative), ${r.recomputed} recomputed, `
        + `${r.checks} checked (${r.checkRuns} re-runs), ${r.resumed} resumed; ${fmtBytes(r.bytesMoved)} moved between peers`);
      for (const p of r.peers) this.exe.log(`  worker ${p.id}: ${p.tasks} tasks, ${fmtBytes(p.bytesIn)} fetched`);
    }
    this.event('finished');
    this.publish('finished');
    this.opts.journal?.end(this.id);
    return this.report;
  }
}

/**
 * Whether C (n x m) = A (n x kk) @ B (kk x m), all C order, passes Freivalds'
 * test with 10 random ±1 vectors: |C r - A (B r)| within the rounding a sum
 * of kk products may carry, in every row. A dot product of kk terms, in any
 * order, is off by at most kk u |a|.|b| (u the unit roundoff, 2^-24 for
 * float32); one more rounding stores it: the bound is 1.5 (kk + 2) u
 * |A| (|B| |r|), half as much again for safety. (B r and A (B r) are formed in float64.)
 * Undefined where infinities or NaN leave the test nothing to compare.
 */
export function freivaldsPasses(a: TypedArray, b: TypedArray, c: TypedArray, n: number, kk: number, m: number, u: number, random: () => number): boolean | undefined {
  const K = 10;
  const r = Float64Array.from({ length: m * K }, () => (random() < 0.5 ? -1 : 1));
  const A = a as unknown as ArrayLike<number>, B = b as unknown as ArrayLike<number>, C = c as unknown as ArrayLike<number>;
  const br = new Float64Array(kk * K), bAbs = new Float64Array(kk);
  for (let k = 0; k < kk; k++) {
    for (let j = 0; j < m; j++) {
      const v = B[k * m + j]!;
      bAbs[k]! += Math.abs(v);
      for (let q = 0; q < K; q++) br[k * K + q]! += v * r[j * K + q]!;
    }
  }
  const tol = 1.5 * (kk + 2) * u;
  for (let i = 0; i < n; i++) {
    let bound = 0;
    const z = new Float64Array(K), y = new Float64Array(K);
    for (let k = 0; k < kk; k++) {
      const v = A[i * kk + k]!;
      bound += Math.abs(v) * bAbs[k]!;
      for (let q = 0; q < K; q++) z[q]! += v * br[k * K + q]!;
    }
    for (let j = 0; j < m; j++) {
      const v = C[i * m + j]!;
      for (let q = 0; q < K; q++) y[q]! += v * r[j * K + q]!;
    }
    if (!Number.isFinite(bound) || y.some((x) => !Number.isFinite(x))) return undefined; // infinities or NaN: the test cannot tell
    for (let q = 0; q < K; q++) if (!(Math.abs(y[q]! - z[q]!) <= tol * bound)) return false;
  }
  return true;
}

/**
 * Whether a GPU result equals a CPU one as far as the devices can agree:
 * integers and booleans (and arg-reduction indices) exactly; floats within
 * 1e-4 relative, or 1e-4 of the piece's largest magnitude (sums add in
 * another order on the GPU, transcendentals are a few ulp apart, subnormals
 * may flush to zero); NaN with NaN, infinities with themselves.
 */
export function closeAcrossDevices(gpu: TypedArray, cpu: TypedArray, dtype: DType): boolean {
  if (gpu.length !== cpu.length) return false;
  const g = gpu as unknown as ArrayLike<number | bigint>, c = cpu as unknown as ArrayLike<number | bigint>;
  if (dtype !== 'float32' && dtype !== 'float64') {
    for (let i = 0; i < c.length; i++) if (g[i] !== c[i]) return false;
    return true;
  }
  let scale = 0;
  for (let i = 0; i < c.length; i++) { const v = Math.abs(c[i] as number); if (Number.isFinite(v) && v > scale) scale = v; }
  for (let i = 0; i < c.length; i++) {
    const a = g[i] as number, b = c[i] as number;
    if (Number.isNaN(b) ? !Number.isNaN(a) : !Number.isFinite(b) ? a !== b : !(Math.abs(a - b) <= 1e-4 * (Math.abs(b) + scale))) return false;
  }
  return true;
}
