// A mesh worker: the peer runtime that runs chunk tasks. It takes task, scan
// and routine messages from a coordinator, fetches the pieces a task reads
// from the peers that hold them (or its own store; of a large piece only
// the part it reads, a merge's slice of a sorted run, unless the
// coordinator verifies results and asks for whole, digest-checked pieces;
// a piece of an earlier job's result kept on the workers under that job's
// name), compiles the kernel
// itself from the validated IR text or runs the named routine from its own
// table after checking the call (it never runs code text it received), runs it on
// WebGPU or the WASM worker pool, keeps the pieces it wrote in its chunk
// store (under a memory cap) and serves them to any peer that asks. While it
// runs tasks it sends heartbeats, which keep the coordinator's leases alive
// and tell it which peers this one has a live link to. A holder it has no
// link to (the link is being rebuilt) is asked through the job's coordinator
// (a relay); a holder it can reach neither way is reported unreachable, not
// as one that lost the piece, so nothing is recomputed for a broken link.
// Tabs and Node processes run this same module; only the Endpoint differs.

import type { DType, TypedArray } from '../graph/dtype.js';
import { isArgReduce } from '../graph/ops.js';
import type { Kernel } from '../ir/ir.js';
import { decodeKernel } from '../ir/wire.js';
import { type DeviceChoice, type Runtime } from '../runtime/runtime.js';
import { ROUTINES, isRoutine } from '../runtime/routines.js';
import { gpuTakesTile, gpuTileRoutine } from '../runtime/tiles_gpu.js';
import type { Range } from '../tile/tile.js';
import { decodeChunk, encodeChunk } from './arrow.js';
import { digestOf } from './digest.js';
import { alloc, copyBoxInto, count, cut, extent, intersect } from './boxes.js';
import type { Endpoint } from './endpoint.js';
import type { MessageOf } from './protocol.js';

export interface WorkerOptions {
  readonly runtime: Runtime;
  /** Bytes of pieces kept at most (written ones; fetched copies use a quarter of it more). */
  readonly memory: number;
  readonly device?: DeviceChoice;
  readonly heartbeatMs?: number;
  /** How long to wait for a piece from one holder before trying the next. */
  readonly fetchTimeoutMs?: number;
  /** Called with a line for each task (the CLI prints them with --verbose). */
  readonly log?: (line: string) => void;
  /**
   * TESTS ONLY: the fraction of results this worker corrupts (a faulty or
   * hostile volunteer), to show that verification catches it.
   */
  readonly lie?: number;
  /** TESTS ONLY: where the draws of which results to corrupt come from (seeded in tests); Math.random by default. */
  readonly lieRandom?: () => number;
}

interface Piece { readonly data: TypedArray; readonly dtype: DType; readonly shape: readonly number[] }
type Dev = 'wasm' | 'gpu';

/** A task named a job kernel this peer was never sent (or has dropped): the coordinator sends the text again. */
class NeedKernel extends Error {}

/** A piece no holder could give: the coordinator recomputes it from lineage. */
class Missing extends Error {
  constructor(readonly job: string, readonly key: string, readonly from: string) { super(`piece ${key} is not at ${from}`); }
}

/** A piece whose holders could not be reached (no link, and no relay got it): it is not lost. */
class Unreachable extends Error {
  constructor(readonly job: string, readonly key: string, readonly from: string) { super(`cannot reach ${from}, which holds piece ${key}`); }
}

/** The task's output would take this peer's pieces past its memory cap: `bytes` held with it (the fail message's `full`). */
class Full extends Error {
  constructor(readonly bytes: number, cap: number) { super(`memory cap: ${bytes} bytes of pieces over the ${cap}-byte limit`); }
}

const pieceBytes = (p: Piece): number => p.data.byteLength;

/** Bytes one task fetched from other peers (for its `done`: the coordinator counts what moved). */
interface Meter { bytes: number }

export class MeshWorker {
  /** Pieces this peer computed, by `${job}/${key}`. */
  private readonly store = new Map<string, Piece>();
  /** Copies of pieces fetched from others (least recently used first). */
  private readonly fetched = new Map<string, Piece>();
  private readonly inflight = new Map<string, Promise<Piece>>();
  private held = 0;
  private fetchedBytes = 0;
  private readonly kernels = new Map<string, Kernel>();
  /** `${job}/${kid}` -> the job's kernel, so later tasks of the job need not carry its text. */
  private readonly jobKernels = new Map<string, Kernel>();
  private readonly running = new Map<string, { job: string; task: number; attempt: number; coordinator: string }>();
  private readonly coordinators = new Set<string>();
  /** Job -> the coordinator whose tasks this worker runs for it. */
  private readonly jobOwner = new Map<string, string>();
  /** Jobs ended lately (the latest 256): a task of one that finishes after its `end` keeps nothing. */
  private readonly ended = new Set<string>();
  private readonly waiting = new Map<number, { peer: string; key: string; resolve: (p: Uint8Array | undefined) => void; timer: ReturnType<typeof setTimeout> }>();
  private nextReq = 1;
  private readonly timer: ReturnType<typeof setInterval>;
  /**
   * Tasks run and bytes fetched from other peers, for reports; the most bytes of pieces held at once (written and
   * fetched copies), and of written ones alone (what the memory cap bounds).
   */
  readonly stats = { tasks: 0, failed: 0, bytesIn: 0, bytesServed: 0, peakHeld: 0, peakWritten: 0 };

  constructor(private readonly ep: Endpoint, private readonly opts: WorkerOptions) {
    ep.on({
      message: (from, m, payload) => {
        switch (m.t) {
          case 'task': case 'scan': case 'routine':
            if (!this.ownedBy(m.job, from, true)) break;
            this.ended.delete(m.job); // a job run again (a resumable job keeps its id) is live again
            void this.run(from, m);
            break;
          case 'get': void this.serve(from, m); break;
          case 'piece': case 'missing': {
            // an answer counts only from the peer asked, about the piece asked for
            const w = this.waiting.get(m.req);
            if (w && w.peer === from && w.key === m.key) { this.waiting.delete(m.req); clearTimeout(w.timer); w.resolve(m.t === 'piece' ? payload : undefined); }
            break;
          }
          case 'free': if (this.ownedBy(m.job, from)) for (const k of m.keys) this.drop(`${m.job}/${k}`); break;
          case 'end': if (this.ownedBy(m.job, from)) this.endJob(m.job); break;
          default: break;
        }
      },
      peer: (id, up) => {
        if (up) return;
        this.coordinators.delete(id);
        // fetches from it will not be answered: try the next holder now
        for (const [req, w] of this.waiting) if (w.peer === id) { this.waiting.delete(req); clearTimeout(w.timer); w.resolve(undefined); }
      },
    });
    this.timer = setInterval(() => this.heartbeat(), opts.heartbeatMs ?? 1000);
    (this.timer as { unref?: () => void }).unref?.();
  }

  /**
   * Whether `from` coordinates `job`: the peer that sent its first task, for
   * as long as it is linked (a coordinator that left may be succeeded by one
   * resuming the job). Tasks, frees and ends of a job from anyone else are
   * ignored, so no peer can overwrite or drop another coordinator's pieces.
   */
  private ownedBy(job: string, from: string, claim = false): boolean {
    const owner = this.jobOwner.get(job);
    if (owner === from) return true;
    if (owner !== undefined && this.ep.peers().includes(owner)) return false;
    if (!claim) return owner === undefined;
    this.jobOwner.set(job, from);
    return true;
  }

  /** Tasks running now. */
  get busy(): number { return this.running.size; }

  /** Bytes of pieces held now (written and fetched). */
  get bytesHeld(): number { return this.held + this.fetchedBytes; }

  close(): void {
    clearInterval(this.timer);
    for (const w of this.waiting.values()) { clearTimeout(w.timer); w.resolve(undefined); }
    this.waiting.clear();
  }

  private heartbeat(): void {
    for (const c of this.coordinators) {
      const running = [...this.running.values()].filter((r) => r.coordinator === c).map(({ job, task, attempt }) => ({ job, task, attempt }));
      this.ep.send(c, { t: 'hb', running, linked: this.ep.peers().slice(0, 1024) }).catch(() => undefined);
    }
  }

  private drop(k: string): void {
    const p = this.store.get(k);
    if (p) { this.store.delete(k); this.held -= pieceBytes(p); }
    const f = this.fetched.get(k);
    if (f) { this.fetched.delete(k); this.fetchedBytes -= pieceBytes(f); }
  }

  private endJob(job: string): void {
    for (const k of [...this.store.keys(), ...this.fetched.keys()]) if (k.startsWith(`${job}/`)) this.drop(k);
    for (const k of [...this.jobKernels.keys()]) if (k.startsWith(`${job}/`)) this.jobKernels.delete(k);
    this.jobOwner.delete(job);
    this.ended.add(job);
    if (this.ended.size > 256) this.ended.delete(this.ended.values().next().value!);
  }

  private kernel(text: string): Kernel {
    let k = this.kernels.get(text);
    if (!k) {
      k = decodeKernel(text);
      if (this.kernels.size >= 256) this.kernels.delete(this.kernels.keys().next().value!);
      this.kernels.set(text, k);
    }
    return k;
  }

  private async serve(from: string, m: MessageOf<'get'>): Promise<void> {
    const k = `${m.job}/${m.key}`;
    const p = this.store.get(k) ?? this.fetched.get(k);
    // a part asked for must lie in the piece
    const fits = !m.sub || (m.sub.length === p?.shape.length && m.sub.every(([, hi], i) => hi <= p.shape[i]!));
    if (!p || !fits) return void this.ep.send(from, { t: 'missing', req: m.req, key: m.key }).catch(() => undefined);
    const bytes = m.sub ? encodeChunk(cut(p.data, p.dtype, p.shape, m.sub), p.dtype, extent(m.sub)) : encodeChunk(p.data, p.dtype, p.shape);
    this.stats.bytesServed += bytes.length;
    await this.ep.send(from, { t: 'piece', req: m.req, key: m.key }, bytes).catch(() => undefined);
  }

  /**
   * A piece of `job`: from this peer's store, or fetched from the first
   * holder that has it (`task`: the job of the task that reads it, whose
   * coordinator relays when `job`'s, an earlier job kept on the workers, is not known here).
   */
  private async piece(
    job: string, key: string, from: readonly string[], dtype: DType, shape: readonly number[], digest?: string, task = job, meter?: Meter,
  ): Promise<Piece> {
    const k = `${job}/${key}`;
    const own = this.store.get(k);
    if (own) return own;
    const copy = this.fetched.get(k);
    if (copy) { this.fetched.delete(k); this.fetched.set(k, copy); return copy; }
    let p = this.inflight.get(k);
    if (!p) {
      p = this.fetch(job, key, from.filter((f) => f !== this.ep.id), dtype, shape, digest, task, undefined, meter).finally(() => this.inflight.delete(k));
      this.inflight.set(k, p);
    }
    return p;
  }

  /**
   * Part `sub` (in the piece's own coordinates) of a piece of `job`: cut
   * from a copy here, or fetched alone (and not kept: another task reads
   * another part). A digest covers a whole piece, so a part fetched alone
   * is not checked against one: the coordinator asks for whole pieces
   * (source.whole) when it verifies results.
   */
  private async part(job: string, key: string, from: readonly string[], dtype: DType, sub: Range[], task: string, meter: Meter): Promise<TypedArray> {
    const k = `${job}/${key}`;
    const have = this.store.get(k) ?? this.fetched.get(k);
    if (have) return cut(have.data, have.dtype, have.shape, sub);
    return (await this.fetch(job, key, from.filter((f) => f !== this.ep.id), dtype, extent(sub), undefined, task, sub, meter)).data;
  }

  /** A piece from the first holder that gives it whole and, where its writer's digest is known, matching it. */
  private async fetch(
    job: string, key: string, from: readonly string[], dtype: DType, shape: readonly number[], digest?: string, task = job, sub?: Range[], meter?: Meter,
  ): Promise<Piece> {
    let last = from[0] ?? this.ep.id;
    let bad: string | undefined;
    let unreachable: string | undefined;
    let failed: string | undefined;
    const ask = (to: string, via?: string) => {
      const req = this.nextReq++;
      return new Promise<Uint8Array | undefined>((resolve) => {
        const timer = setTimeout(() => { this.waiting.delete(req); resolve(undefined); }, this.opts.fetchTimeoutMs ?? 30_000);
        this.waiting.set(req, { peer: to, key, resolve, timer });
        this.ep.send(to, { t: 'get', req, job, key, ...(via ? { via } : {}), ...(sub ? { sub: sub as [number, number][] } : {}) }).catch(() => {
          clearTimeout(timer);
          this.waiting.delete(req);
          resolve(undefined);
        });
      });
    };
    for (const holder of from) {
      last = holder;
      let payload = this.ep.peers().includes(holder) ? await ask(holder) : undefined;
      // reached, and it did not give it: to blame
      if (!payload && this.ep.peers().includes(holder)) { failed = holder; continue; }
      if (!payload) {
        // no link to it (down, or being rebuilt): the job's coordinator, linked to both, passes the piece on
        const relay = this.jobOwner.get(job) ?? this.jobOwner.get(task);
        if (relay && relay !== holder && this.ep.peers().includes(relay)) payload = await ask(relay, holder);
        if (!payload) { unreachable ??= holder; continue; }
      }
      let data: TypedArray;
      try {
        data = decodeChunk(payload, { dtype, shape }).data;
        if (digest !== undefined && (await digestOf(data)) !== digest) throw new Error('digest');
      } catch {
        bad = holder; // it served something else than what was committed: the coordinator hears of it
        continue;
      }
      this.stats.bytesIn += payload.length;
      if (meter) meter.bytes += payload.length;
      this.opts.log?.(`fetched ${job}/${key}${sub ? ` [${sub.map(([lo, hi]) => `${lo}:${hi}`)}]` : ''} from ${holder}: ${payload.length} bytes`);
      const piece: Piece = { data, dtype, shape };
      if (sub) return piece; // a part: not kept
      const k = `${job}/${key}`;
      this.fetched.set(k, piece);
      this.fetchedBytes += pieceBytes(piece);
      this.stats.peakHeld = Math.max(this.stats.peakHeld, this.bytesHeld);
      for (const [old, q] of this.fetched) {
        if (this.fetchedBytes <= this.opts.memory / 4 || old === k) break;
        this.fetched.delete(old);
        this.fetchedBytes -= pieceBytes(q);
      }
      return piece;
    }
    // a holder that was reached and failed is to blame; one that could not be reached is not
    if (!bad && !failed && unreachable) throw new Unreachable(job, key, unreachable);
    throw new Missing(job, key, bad ?? failed ?? last);
  }

  private async run(from: string, m: MessageOf<'task'> | MessageOf<'scan'> | MessageOf<'routine'>): Promise<void> {
    const lk = `${m.job}/${m.task}/${m.attempt}`;
    this.coordinators.add(from);
    this.running.set(lk, { job: m.job, task: m.task, attempt: m.attempt, coordinator: from });
    const t0 = performance.now();
    // the bytes this task fetched (tasks run side by side: the worker's total would count the others')
    const meter: Meter = { bytes: 0 };
    try {
      const { outs, dev } = m.t === 'task' ? await this.kernelTask(m, meter)
        : m.t === 'scan' ? await this.scanTask(m, meter)
        : await this.routineTask(m, meter);
      if (this.opts.lie && !m.check && (this.opts.lieRandom ?? Math.random)() < this.opts.lie) {
        for (const [, p] of outs) corrupt(p.data);
      }
      const digests = await Promise.all(outs.map(([, p]) => digestOf(p.data)));
      const bytes = outs.reduce((a, [, p]) => a + pieceBytes(p), 0);
      if (this.held + bytes > this.opts.memory) throw new Full(this.held + bytes, this.opts.memory);
      if (this.ended.has(m.job)) return; // cancelled, or done without this copy, while it ran: nobody will free it
      for (const [key, p] of outs) {
        const k = `${m.job}/${key}`;
        this.drop(k);
        this.store.set(k, p);
        this.held += pieceBytes(p);
      }
      this.stats.peakHeld = Math.max(this.stats.peakHeld, this.bytesHeld);
      this.stats.peakWritten = Math.max(this.stats.peakWritten, this.held);
      this.stats.tasks++;
      this.opts.log?.(`task ${m.job}/${m.task} done in ${(performance.now() - t0).toFixed(0)} ms; pieces held: ${this.held} bytes written, `
        + `${this.fetchedBytes} fetched; at most ${this.stats.peakWritten} written, ${this.stats.peakHeld} in all`);
      const sizes = outs.map(([, p]) => pieceBytes(p));
      await this.ep.send(from, { t: 'done', job: m.job, task: m.task, attempt: m.attempt, bytes: sizes, ms: performance.now() - t0, bytesIn: meter.bytes, digests, dev });
    } catch (e) {
      this.stats.failed++;
      const missing = e instanceof Missing || e instanceof Unreachable
        ? { key: e.key, from: e.from, ...(e.job !== m.job ? { job: e.job } : {}) } : undefined;
      const needKernel = e instanceof NeedKernel ? { needKernel: true as const } : {};
      const unreachable = e instanceof Unreachable ? { unreachable: e.from } : {};
      this.opts.log?.(`task ${m.job}/${m.task} failed: ${(e as Error).message}`);
      const reason = (e as Error).message.slice(0, 2000);
      const lease = { job: m.job, task: m.task, attempt: m.attempt };
      const dataError = (e as Error).name === 'LinAlgError' ? { error: 'LinAlgError' as const } : {};
      const full = e instanceof Full ? { full: e.bytes } : {};
      const fail = { t: 'fail' as const, ...lease, reason, ...(missing ? { missing } : {}), ...dataError, ...full };
      await this.ep.send(from, { ...fail, ...needKernel, ...unreachable }).catch(() => undefined);
    } finally {
      this.running.delete(lk);
    }
  }

  private async kernelTask(m: MessageOf<'task'>, meter: Meter): Promise<{ outs: [string, Piece][]; dev: Dev }> {
    const kid = `${m.job}/${m.kid}`;
    const k = m.kernel ? this.kernel(m.kernel) : this.jobKernels.get(kid);
    if (!k) throw new NeedKernel(`kernel ${m.kid} of job ${m.job} is not here`);
    if (m.kernel) this.jobKernels.set(kid, k);
    // the message must fit the kernel it names
    const red = k.reduce;
    const nOut = m.partial && red && isArgReduce(red.op) ? 2 : 1;
    const outDtypes: DType[] = !red || !m.partial ? [k.dtype] : nOut === 2 ? [red.body.dtype, 'int64'] : [red.dtype];
    if (m.reads.length !== k.inputs.length) throw new TypeError(`task reads ${m.reads.length} inputs, its kernel has ${k.inputs.length}`);
    m.reads.forEach((r, i) => {
      const ki = k.inputs[i]!;
      if (r.dtype !== ki.dtype || r.box.length !== ki.shape.length) throw new TypeError(`task input ${i} is ${r.dtype} of rank ${r.box.length}, its kernel reads ${ki.dtype} of rank ${ki.shape.length}`);
      if (r.box.some(([, hi], d) => hi > ki.shape[d]!)) throw new RangeError(`task input ${i}: box outside the tensor's shape`);
    });
    if (m.outer.length !== k.shape.length || m.outer.some(([, hi], d) => hi > k.shape[d]!)) throw new RangeError('task outer box does not fit its kernel');
    if (m.red.length !== (red?.vars.length ?? 0) || m.red.some(([, hi], d) => hi > red!.vars[d]!.size)) throw new RangeError('task reduction box does not fit its kernel');
    if (m.writes.length !== nOut || m.writes.some((w, i) => w.dtype !== outDtypes[i] || w.box.length !== k.shape.length)) throw new TypeError('task writes do not fit its kernel');
    const elements = [...m.reads.map((r) => r.box), ...m.writes.map((w) => w.box)].reduce((a, b) => a + b.reduce((x, [lo, hi]) => x * (hi - lo), 1), 0);
    if (elements * 8 > this.opts.memory) throw new Error(`memory cap: the task needs ${elements} elements`);

    const inputs = await this.gather(m.job, m.reads, meter);
    const outputs = m.writes.map((w) => ({ dtype: w.dtype, box: w.box as Range[] }));
    const job = { kernel: k, partial: m.partial, outer: m.outer as Range[], red: m.red as Range[], inputs, outputs };
    const { datas, dev } = await this.execute(job, m.check ? 'wasm' : this.opts.device ?? 'wasm');
    return { outs: m.writes.map((w, i) => [w.key, { data: datas[i]!, dtype: w.dtype, shape: extent(w.box) }]), dev };
  }

  /** Each box a task reads, assembled from the pieces that cover it (this peer's own, or fetched from their holders). */
  private gather(
    job: string, reads: MessageOf<'task'>['reads'] | MessageOf<'routine'>['reads'], meter: Meter,
  ): Promise<{ dtype: DType; box: Range[]; data: TypedArray }[]> {
    return Promise.all(reads.map(async (r) => {
      const data = alloc(r.dtype, r.box);
      for (const p of r.pieces) {
        // half of a piece held elsewhere, or less (a merge's slice of a sorted run): only that part comes
        const want = intersect(r.box, p.box);
        const k = `${p.job ?? job}/${p.key}`;
        if (want && !p.whole && 2 * count(want) <= count(p.box) && !this.store.has(k) && !this.fetched.has(k)) {
          const sub = want.map(([lo, hi], i) => [lo - p.box[i]![0], hi - p.box[i]![0]] as Range);
          copyBoxInto(data, r.box, await this.part(p.job ?? job, p.key, p.from, r.dtype, sub, job, meter), want, r.dtype);
          continue;
        }
        const piece = await this.piece(p.job ?? job, p.key, p.from, r.dtype, extent(p.box), p.d, job, meter);
        copyBoxInto(data, r.box, piece.data, p.box, r.dtype);
      }
      return { dtype: r.dtype, box: r.box as Range[], data };
    }));
  }

  /** On WebGPU where the peer has it, `choice` allows it and the kernel fits, else on the WASM pool. */
  private async execute(t: Parameters<Runtime['runTask']>[0], choice: DeviceChoice): Promise<{ datas: TypedArray[]; dev: Dev }> {
    // through withGpu: the device is released after a while without work (a Node WebGPU device keeps a core busy)
    const onGpu = choice === 'wasm' ? undefined : await this.opts.runtime.withGpu(async (gpu) => {
      if (!((choice === 'webgpu' || !gpu.software) && gpu.supports(t.kernel) === undefined)) return undefined;
      const region = (data: TypedArray, dtype: DType, box: readonly Range[]) => {
        const e = extent(box);
        return { data, dtype, origin: box.map(([lo]) => lo), strides: e.map((_, i) => e.slice(i + 1).reduce((a, b) => a * b, 1)) };
      };
      const outs = t.outputs.map((o) => alloc(o.dtype, o.box));
      const task = { kernel: t.kernel, partial: t.partial, outer: t.outer, red: t.red, inputs: t.inputs.map((i) => region(i.data, i.dtype, i.box)), outputs: outs.map((d, i) => region(d, t.outputs[i]!.dtype, t.outputs[i]!.box)) };
      if (!gpu.fits(task)) return undefined;
      try {
        await gpu.run(task);
        return { datas: outs, dev: 'gpu' as const };
      } catch (e) {
        if (!gpu.lost && !(e instanceof RangeError)) throw e;
        return undefined;
      }
    });
    if (onGpu) return onGpu;
    return { datas: await this.opts.runtime.runTask(t), dev: 'wasm' };
  }

  /** A routine call: checked against this peer's own copy of the routine before any piece is fetched, then run on the pool. */
  private async routineTask(m: MessageOf<'routine'>, meter: Meter): Promise<{ outs: [string, Piece][]; dev: Dev }> {
    if (!isRoutine(m.name)) throw new TypeError(`no routine named ${JSON.stringify(m.name)}`);
    const ins = m.reads.map((r) => ({ dtype: r.dtype, shape: extent(r.box) }));
    ROUTINES[m.name].check(m.params, ins, { dtype: m.write.dtype, shape: extent(m.write.box) });
    const elements = [...ins, { shape: extent(m.write.box) }].reduce((a, r) => a + r.shape.reduce((x, d) => x * d, 1), 0);
    if (elements * 16 > this.opts.memory) throw new Error(`memory cap: the routine needs ${elements} elements`);
    const inputs = await this.gather(m.job, m.reads, meter);
    const write = { dtype: m.write.dtype, box: m.write.box as Range[] };
    const dev = await this.routineOnGpu(m, inputs, m.check ? 'wasm' : this.opts.device ?? 'wasm');
    if (dev) return { outs: [[m.write.key, { data: dev, dtype: m.write.dtype, shape: extent(m.write.box) }]], dev: 'gpu' };
    const out = await this.opts.runtime.runRoutine(m.name, m.params, inputs, write);
    return { outs: [[m.write.key, { data: out, dtype: m.write.dtype, shape: extent(m.write.box) }]], dev: 'wasm' };
  }

  /**
   * A float32 tile update (runtime/tiles_gpu.ts) on WebGPU where the peer has it and `choice` allows it, as `execute` does kernels
   * (through withGpu: the device is released after a while without work); else undefined.
   */
  private async routineOnGpu(
    m: MessageOf<'routine'>, inputs: { dtype: DType; box: Range[]; data: TypedArray }[], choice: DeviceChoice,
  ): Promise<TypedArray | undefined> {
    if (choice === 'wasm' || !gpuTakesTile(m.name, m.write.dtype)) return undefined;
    const region = (data: TypedArray, dtype: DType, box: readonly Range[]) => {
      const e = extent(box);
      return { data, dtype, shape: e, origin: box.map(([lo]) => lo), strides: e.map((_, i) => e.slice(i + 1).reduce((a, b) => a * b, 1)) };
    };
    return this.opts.runtime.withGpu(async (gpu) => {
      const out = alloc(m.write.dtype, m.write.box as Range[]);
      try {
        const p = gpuTileRoutine(gpu, m.name, m.params, inputs.map((i) => region(i.data, i.dtype, i.box)), region(out, m.write.dtype, m.write.box as Range[]));
        if (!p) return undefined;
        await p;
        return out;
      } catch (e) {
        if (!gpu.lost && !(e instanceof RangeError)) throw e;
        return undefined;
      }
    }, choice !== 'webgpu');
  }

  private async scanTask(m: MessageOf<'scan'>, meter: Meter): Promise<{ outs: [string, Piece][]; dev: Dev }> {
    if (m.axis >= m.shape.length) throw new RangeError(`scan axis ${m.axis} out of range for rank ${m.shape.length}`);
    if (m.shape.reduce((a, b) => a * b, 1) * 16 > this.opts.memory) throw new Error(`memory cap: the scan needs ${m.shape.reduce((a, b) => a * b, 1)} elements`);
    const src = await this.piece(m.src.job ?? m.job, m.src.key, m.src.from, m.inDtype, m.shape, m.src.d, m.job, meter);
    const prevShape = m.prev ? extent(m.prev.box) : undefined;
    if (prevShape && prevShape.some((d, i) => i !== m.axis && d !== m.shape[i])) throw new RangeError('scan: the previous chunk does not line up');
    const prev = m.prev ? await this.piece(m.prev.job ?? m.job, m.prev.key, m.prev.from, m.outDtype, prevShape!, m.prev.d, m.job, meter) : undefined;
    const out = this.opts.runtime.runScan(m.op, m.axis, m.inDtype, m.outDtype, m.shape, src.data, prev?.data);
    return { outs: [[m.out, { data: out, dtype: m.outDtype, shape: m.shape }]], dev: 'wasm' };
  }
}

/** TESTS ONLY (WorkerOptions.lie): a wrong result, as a faulty GPU or a hostile peer gives. */
function corrupt(data: TypedArray): void {
  if (!data.length) return;
  const i = Math.floor(Math.random() * data.length);
  const a = data as unknown as { [i: number]: number | bigint };
  const v = a[i]!;
  a[i] = typeof v === 'bigint' ? v + 1n : data instanceof Uint8Array && v === 1 ? 0 : (v as number) + 1;
}
