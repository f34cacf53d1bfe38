// The local runtime: the chunk store, program cache and scheduler of one
// machine. `run` fuses and tiles the graph behind the requested nodes, then
// dispatches ready tasks to the worker pool (or inline), allocating each
// output chunk when its first writer starts and freeing each chunk after its
// last reader finishes. It reports progress (tasks done of total) and an
// execution report. A failed run frees everything it allocated.

import { host } from '#host';
import { ARRAY_CTOR, type DType, INFO, type TypedArray } from '../graph/dtype.js';
import { decodeHalf } from '../graph/half.js';
import type { Node } from '../graph/node.js';
import { type ScanOp, isArgReduce } from '../graph/ops.js';
import { MemoryError, numChunks, shapeStr, sizeOf, sizeString, stridesOf } from '../graph/shape.js';
import { fuse } from '../fuse/fuse.js';
import { type Kernel, programKey, siteParams } from '../ir/ir.js';
import type { Binding } from '../ir/args.js';
import {
  type AnyTask, type Plan, type Range, type RoutineTask, type ScanTask, type Task, type TensorSpec,
  FAN_IN, chunkBox, chunksOf, isKernelTask, isRoutineTask, isScanTask, tile,
} from '../tile/tile.js';
import { type Layout, render, writeParams } from '../wasm/render.js';
import {
  type BoundJob, type Copy, Executor, type HeapRegion, type Job, type KernelJob, type RoutineJob, type ScanJob, copyBox,
} from './exec.js';
import type { RoutineParams } from '../graph/node.js';
import { type Block, HEAP_LIMIT, Heap } from './memory.js';
import { PlanCache } from './plans.js';
import { Execution, GPU_THREAD, MAIN_THREAD, type Trace, debugLevel, now } from './debug.js';
import { encodeKernel } from '../ir/wire.js';
import { renderWgsl } from '../wgsl/render.js';
import { topo } from '../graph/node.js';
import { COUNTER_BYTES, Pool, defaultWorkers } from './pool.js';
import { DeviceCopyLost, GpuDevice, type GpuTask, type Region } from './webgpu.js';
import { gpuTakesTile, gpuTileRoutine } from './tiles_gpu.js';
import { regionSpan } from './region.js';
import { ReadyHeap, taskRanks } from './order.js';

export interface Stored {
  readonly dtype: DType;
  readonly shape: readonly number[];
  readonly chunk: readonly number[];
  readonly blocks: (Block | undefined)[];
  /** Held where it was computed (a mesh job's workers) rather than in this heap; `scope` ends it (keepRemote). */
  readonly remote?: Remote;
  readonly scope?: object;
}

/**
 * A result kept where it was computed, not in this heap: the chunks a mesh
 * job's workers hold (mesh/coordinator.ts), which later jobs of the same
 * coordinator read peer to peer. Released, the workers drop them.
 */
export interface Remote { release(): void }

export interface Progress {
  readonly done: number;
  readonly total: number;
  /** A computation of many executions (a learn fit) says where it stands: its name and figures (iteration, loss, inertia). */
  readonly stage?: Readonly<Record<string, string | number>>;
}

export interface Report {
  tasks: number;
  kernels: number;
  kernelsCompiled: number;
  bytesAllocated: number;
  peakBytes: number;
  /**
   * The largest single allocation of the whole execution (every stage of it):
   * a chunk, a scratch block, or an array the host gathered or built whole.
   * Chunked work keeps it within a few chunks' size.
   */
  largestAllocation: number;
  bytesCopied: number;
  workers: number;
  /** Tasks that ran on WebGPU, and the adapter (or why none was used). */
  gpuTasks: number;
  gpu: string;
  /** Whether the plan (fusion and tiling) was the one kept from an earlier run of a graph of the same structure. */
  planReused: boolean;
  ms: number;
  /**
   * The execution's timeline so far (every run of it: the stages of
   * iterative tiling, the host operations between them, then this run): each
   * task on each thread, in the Chrome trace-event format (./debug.ts).
   */
  trace: Trace;
}

/**
 * Where kernels run: 'wasm' on the CPU; 'webgpu' on the WebGPU adapter for
 * every kernel it can run (float32 and 32-bit integer work), WASM for the rest
 * and wherever there is no adapter; 'auto' like 'webgpu' on a hardware GPU,
 * like 'wasm' on a software one (SwiftShader is slower than WASM).
 */
export type DeviceChoice = 'wasm' | 'webgpu' | 'auto';

/** Where a graph runs instead of this machine: a mesh session (mesh/session.ts). */
export interface Runner {
  runNodes(nodes: readonly Node[], onProgress?: (p: Progress) => void, job?: JobOptions): Promise<unknown>;
}

/** What a mesh job carries besides its graph. */
export interface JobOptions {
  /** A readable name the dashboards show (`pi 1e9 · slice 3/10`); a local run, which no dashboard sees, has no use for it. */
  readonly name?: string;
  /**
   * Aborting it cancels the job: on a mesh its promise rejects at once and its
   * workers drop what they hold of it; a local run, which cannot stop midway,
   * is refused if the signal was aborted before it started.
   */
  readonly signal?: AbortSignal;
  /** The DEBUG level of the job (runtime/debug.ts); the environment's when not given. */
  readonly debug?: number;
  /**
   * On a mesh: the outputs stay on the workers that computed them, for later
   * jobs to read peer to peer, until the runtime releases `keep` (the api
   * passes the execution: a routine's stages keep their results for the next
   * stage, and nothing of them outlives the execution). A local run ignores it.
   */
  readonly keep?: object;
}

export interface RunOptions extends JobOptions {
  onProgress?: (p: Progress) => void;
  /** Run on a mesh: `await x.execute({ session: s })`. */
  session?: Runner;
  /** Worker threads; 0 runs every task inline on the calling thread. */
  workers?: number;
  device?: DeviceChoice;
  /** The DEBUG level (./debug.ts); the environment's when not given. */
  debug?: number;
  /** The execution this run belongs to (the api starts one per execute; a run without one is its own). */
  execution?: Execution;
}

const PARAM_BYTES = 16384;
/** How long an idle WebGPU device lives. */
const GPU_IDLE_MS = 5000;
/** GPU tasks submitted together at most (they are ready at once, so none reads another's output). */
const GPU_BATCH = 8;
/** A batch of worker tasks holds at most this many tasks (the first of a run fewer, so the workers start sooner) ... */
const BATCH_TASKS = 256;
const FIRST_BATCH_TASKS = 64;
/** ... and, once it has one per worker, stops when binding them took this many more bytes of the chunk heap. */
const BATCH_BYTES = 64 * 2 ** 20;
/** Points (outer times reduced) of a task small enough to run on the main thread when it is all that is left. */
const SMALL_TASK = 2 ** 18;
/** Lines (elements across the axis) a float32 scan chunk needs to run on the GPU, one line per invocation. */
const SCAN_GPU_LINES = 256;

host.tuneEngine();

interface Program { readonly module: WebAssembly.Module; readonly layout: Layout }

export class Runtime {
  readonly heap = new Heap();
  private readonly stored = new WeakMap<Node, Stored>();
  /** Nodes held remotely (keepRemote), by the scope that ends them. */
  private readonly scoped = new Map<object, Node[]>();
  private readonly registry = new FinalizationRegistry<Stored>((s) => this.free(s));
  private readonly programs = new Map<string, Program>();
  private plans = new PlanCache();
  private fanIn = FAN_IN;
  private pool: Pool | undefined;
  private readonly paramPtrs: number[] = [];
  private counterPtr: number | undefined;
  private inline: Executor | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  compiled = 0;
  lastReport: Report | undefined;
  private gpuOpen: Promise<GpuDevice | undefined> | undefined;

  private gpuIdle: ReturnType<typeof setTimeout> | undefined;
  private gpuRefused: string | undefined;
  /** Callers of withGpu inside it now (the idle release waits for them). */
  private gpuUsers = 0;

  /** The WebGPU device, opened on first use and again after a loss (undefined where there is no adapter). */
  async gpuDevice(): Promise<GpuDevice | undefined> {
    if (this.gpuIdle) { clearTimeout(this.gpuIdle); this.gpuIdle = undefined; }
    if (this.gpuOpen && (await this.gpuOpen)?.lost) this.gpuOpen = undefined;
    this.gpuOpen ??= (async () => {
      const d = await GpuDevice.open().catch(() => undefined);
      const failed = d && (await d.selfTest().catch((e: Error) => e.message));
      if (!failed) {
        // a freed block's copy on the GPU goes with it (its memory will hold another chunk)
        if (d) this.heap.onRelease = (b) => d.forget(b);
        return d;
      }
      this.gpuRefused = `the adapter failed its self-test (${failed})`;
      d!.destroy();
      return undefined;
    })();
    return this.gpuOpen;
  }

  /**
   * Runs `f` on the WebGPU device (a routine that is no kernel, as
   * runtime/knn_gpu.ts), or answers undefined where there is none; the
   * device is released after a while without work, as after a run.
   * `hardware`: only a GPU, not a software adapter.
   */
  async withGpu<T>(f: (gpu: GpuDevice) => Promise<T>, hardware = false): Promise<T | undefined> {
    const gpu = await this.gpuDevice();
    if (!gpu || (hardware && gpu.software)) { this.idleGpu(); return undefined; }
    this.gpuUsers++;
    try {
      return await f(gpu);
    } finally {
      this.gpuUsers--;
      this.idleGpu();
    }
  }

  /** A Node WebGPU device keeps a core busy while it lives: destroy it after a while without work. */
  private idleGpu(): void {
    if (!this.gpuOpen) return;
    const open = this.gpuOpen;
    if (this.gpuIdle) clearTimeout(this.gpuIdle);
    this.gpuIdle = setTimeout(() => {
      if (this.gpuOpen !== open || this.gpuUsers > 0) return;
      this.gpuOpen = undefined;
      void open.then((d) => d?.destroy());
    }, GPU_IDLE_MS);
    this.gpuIdle.unref?.();
  }

  has(n: Node): boolean {
    return this.stored.has(n);
  }

  /** Chunk-heap bytes held now (stored tensors, plus the fixed parameter blocks) and worker threads alive. */
  usage(): { bytesInUse: number; workers: number } {
    return { bytesInUse: this.heap.inUse, workers: this.pool?.size ?? 0 };
  }

  /** Records that `n`'s chunks are held by `remote` (a mesh job's workers), not here, until `scope` is released (releaseScope). */
  keepRemote(n: Node, remote: Remote, scope: object): void {
    this.release(n);
    this.keep(n, { dtype: n.dtype, shape: n.shape, chunk: n.chunk, blocks: [], remote, scope });
    let ns = this.scoped.get(scope);
    if (!ns) this.scoped.set(scope, (ns = []));
    ns.push(n);
  }

  /** Where `n` is held when it is stored remotely (keepRemote). */
  remoteOf(n: Node): Remote | undefined {
    return this.stored.get(n)?.remote;
  }

  /** Releases every result kept remotely for `scope`: their workers drop them, and their nodes are no longer stored. */
  releaseScope(scope: object): void {
    const ns = this.scoped.get(scope);
    this.scoped.delete(scope);
    for (const n of ns ?? []) if (this.stored.get(n)?.scope === scope) this.drop(n);
  }

  /** Frees what `n` holds now, if it is stored: its record is about to be replaced. */
  private release(n: Node): void {
    const s = this.stored.get(n);
    if (s) { this.registry.unregister(n); this.free(s); }
  }

  /** Stores C-order data for a source node, split into its chunks. */
  put(n: Node, data: TypedArray): void {
    const s: Stored = { dtype: n.dtype, shape: n.shape, chunk: n.chunk, blocks: [] };
    this.heap.noteHost(data.byteLength);
    const grid = numChunks(n.shape, n.chunk);
    const total = grid.reduce((a, b) => a * b, 1);
    const item = INFO[n.dtype].bytes;
    const fullStrides = stridesOf(n.shape);
    const src = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    for (let c = 0; c < total; c++) {
      const box = chunkBox(n.shape, n.chunk, c);
      const ext = box.map(([lo, hi]) => hi - lo);
      const b = this.heap.alloc(sizeOf(ext) * item);
      s.blocks.push(b);
      const dst = new Uint8Array(this.heap.memory.buffer);
      const cs = stridesOf(ext);
      forEachRow(ext, (idx, len) => {
        let so = 0, d = b.ptr;
        idx.forEach((v, i) => { so += (v + box[i]![0]) * fullStrides[i]!; d += v * cs[i]! * item; });
        dst.set(src.subarray(so * item, (so + len) * item), d);
      });
    }
    this.keep(n, s);
  }

  private keep(n: Node, s: Stored): void {
    this.stored.set(n, s);
    this.registry.register(n, s, n);
  }

  /**
   * Hands `from`'s stored chunks to `to` (a source node of the same dtype,
   * shape and grid), so that the data lives as long as `to` and no longer
   * keeps `from`'s inputs alive: how a staged result drops its stages.
   */
  move(from: Node, to: Node): void {
    const s = this.stored.get(from);
    if (!s || to.dtype !== s.dtype || String(to.shape) !== String(s.shape) || String(to.chunk) !== String(s.chunk)) {
      throw new Error('internal: moving a tensor that was not executed, or to another layout');
    }
    this.stored.delete(from);
    this.registry.unregister(from);
    this.keep(to, s);
    // a remote result's scope ends it under its new name
    const ns = s.scope ? this.scoped.get(s.scope) ?? [] : [];
    const i = ns.indexOf(from);
    if (i >= 0) ns[i] = to;
  }

  /** Frees stored `n` now, not when the collector finds it: how selection keeps its passes' peak at a few chunks. */
  drop(n: Node): void {
    const s = this.stored.get(n);
    if (!s) return;
    this.stored.delete(n);
    this.registry.unregister(n);
    this.free(s);
  }

  /** Reads a materialised node back as one C-order typed array. */
  /** The values of an executed node in C order, as numbers (bigints for int64): `read`, with float16's bits decoded. */
  values(n: Node): TypedArray {
    const raw = this.read(n);
    return n.dtype === 'float16' ? decodeHalf(raw as Uint16Array) : raw;
  }

  /** The elements of an executed node in C order, as stored (float16 as its bits). */
  read(n: Node): TypedArray {
    const s = this.stored.get(n);
    if (!s) throw new Error('internal: reading a tensor that was not executed');
    if (s.remote) throw new Error('internal: reading a tensor held on mesh workers (a job brings it here first)');
    const item = INFO[s.dtype].bytes;
    const out = new ARRAY_CTOR[s.dtype](sizeOf(s.shape));
    this.heap.noteHost(out.byteLength);
    const dst = new Uint8Array(out.buffer);
    const src = new Uint8Array(this.heap.memory.buffer);
    const fullStrides = stridesOf(s.shape);
    s.blocks.forEach((b, c) => {
      if (!b) return;
      const box = chunkBox(s.shape, s.chunk, c);
      const ext = box.map(([lo, hi]) => hi - lo);
      const cs = stridesOf(ext);
      forEachRow(ext, (idx, len) => {
        let d = 0, so = b.ptr;
        idx.forEach((v, i) => { d += (v + box[i]![0]) * fullStrides[i]!; so += v * cs[i]! * item; });
        dst.set(src.subarray(so, so + len * item), d * item);
      });
    });
    return out;
  }

  private free(s: Stored): void {
    for (const b of s.blocks) if (b) this.heap.release(b);
    s.blocks.length = 0;
    s.remote?.release();
  }

  /** Runs the graph behind `outputs`, one run at a time. */
  run(outputs: readonly Node[], opts: RunOptions = {}): Promise<Report> {
    const next = this.queue.then(() => this.runNow(outputs, opts));
    this.queue = next.catch(() => undefined);
    return next;
  }

  private program(k: Kernel, partial: boolean): [string, Program] {
    const key = `${partial ? 'p' : 'f'}|${programKey(k)}`;
    let p = this.programs.get(key);
    if (!p) {
      const { bytes, layout } = render(k, partial);
      p = { module: new WebAssembly.Module(bytes as Uint8Array<ArrayBuffer>), layout };
      this.programs.set(key, p);
      this.compiled++;
    }
    return [key, p];
  }

  private ensurePool(n: number): Pool | undefined {
    if (n === 0) return undefined;
    if (this.pool && this.pool.size !== n) { void this.pool.close(); this.pool = undefined; }
    if (!this.pool) {
      while (this.paramPtrs.length < n + 1) this.paramPtrs.push(this.heap.alloc(PARAM_BYTES).ptr);
      this.counterPtr ??= this.heap.alloc(COUNTER_BYTES).ptr;
      this.pool = new Pool(n, this.heap.memory, this.paramPtrs.slice(1), this.counterPtr);
    }
    return this.pool;
  }

  private inlineExecutor(): Executor {
    if (!this.inline) {
      if (!this.paramPtrs.length) this.paramPtrs.push(this.heap.alloc(PARAM_BYTES).ptr);
      this.inline = new Executor(this.heap.memory, this.paramPtrs[0]!);
    }
    return this.inline;
  }

  async close(): Promise<void> {
    await this.pool?.close();
    this.pool = undefined;
    const gpu = this.gpuOpen && (await this.gpuOpen);
    this.gpuOpen = undefined;
    gpu?.destroy();
  }

  private async runNow(outputs: readonly Node[], opts: RunOptions): Promise<Report> {
    const t0 = performance.now();
    const own = opts.execution === undefined;
    const exe = opts.execution ?? new Execution(debugLevel(opts.debug));
    const compiled0 = this.compiled;
    const heap = this.heap;
    if (own) heap.largest = 0;
    const peak0 = heap.inUse;
    heap.peak = heap.inUse;
    const alloc0 = heap.allocated;
    const planStart = now();
    const { plan, reused } = this.planned(outputs);
    const planEnd = now();
    exe.stages.plan += planEnd - planStart;
    exe.span(reused ? 'plan (reused)' : 'plan', 'plan', MAIN_THREAD, planStart, planEnd, { tasks: plan.tasks.length, kernels: plan.kernels.length });
    if (exe.level >= 3 && !reused) this.describePlan(exe, outputs, plan);
    /** A task's span on the timeline (worker 0 is this thread). */
    const taskSpan = (id: number, tid: number, start: number, end: number): void => {
      const t = plan.tasks[id]!;
      const what: Record<string, string | number> = isScanTask(t) ? { scan: t.scan.op, chunk: t.chunk }
        : isKernelTask(t) ? { kernel: t.kernel }
        : { routine: t.routine.name, chunk: t.writes[0].chunk };
      exe.span(`task ${id}`, 'task', tid, start, end, what);
    };
    const tasksStart = now();
    const st = new RunState(this, plan, (n) => this.stored.get(n));
    const choice = opts.device ?? 'wasm';
    const gpu = choice === 'wasm' ? undefined : await this.gpuDevice();
    const gpuNote = choice === 'wasm' ? 'not asked for' : !gpu ? (this.gpuRefused ?? 'no WebGPU adapter') : gpu.info.adapter;
    const useGpu = gpu && (choice === 'webgpu' || !gpu.software)
      ? plan.kernels.map((k) => gpu.supports(k) === undefined)
      : plan.kernels.map(() => false);
    if (exe.level >= 3 && !reused) {
      plan.kernels.forEach((k, i) => {
        if (!useGpu[i]) return;
        const partial = plan.tasks.some((t) => isKernelTask(t) && t.kernel === i && t.partial);
        exe.log(`kernel ${i} as WGSL:\n${renderWgsl(k, partial).code}`);
      });
    }
    const onGpu = (id: number): boolean => {
      const t = plan.tasks[id]!;
      if (!gpu || gpu.lost) return false;
      return isScanTask(t) ? useGpu.length > 0 && scanOnGpu(t) : isKernelTask(t) ? useGpu[t.kernel]! : tileOnGpu(t);
    };
    // a float32 tile update of the tiled factorizations (./tiles_gpu.ts): on a GPU, or on any adapter when asked for
    // (a trsolve with no update stays on the pool)
    const tileOnGpu = (t: RoutineTask): boolean => (choice === 'webgpu' || !gpu!.software)
      && gpuTakesTile(t.routine.name, plan.tensors[t.writes[0].tensor]!.dtype) && (t.routine.name !== 'trsolve' || t.reads.length > 2);
    // A float32 scan runs one line per invocation: worth the GPU only with enough lines
    const scanOnGpu = (t: ScanTask): boolean => {
      const i = plan.tensors[t.input]!, o = plan.tensors[t.output]!;
      if ((t.scan.op !== 'sum' && t.scan.op !== 'prod') || i.dtype !== 'float32' || o.dtype !== 'float32' || !(choice === 'webgpu' || !gpu!.software)) return false;
      const box = chunkBox(o.shape, o.chunk, t.chunk);
      return box.reduce((a, [lo, hi], d) => (d === t.scan.axis ? a : a * (hi - lo)), 1) >= SCAN_GPU_LINES;
    };
    // chunks that live on the GPU only (never read back); a task that falls back to WASM takes its outputs off the list
    const deviceOnly = gpu && useGpu.some(Boolean) ? deviceOnlyChunks(plan, useGpu, st) : new Set<string>();
    let gpuTasks = 0;
    let gpuBusy = false;
    /**
     * Runs GPU-ready tasks `ids` on the GPU, the kernel tasks among them in one
     * submission; a task too large for one binding runs on WASM here, and if
     * the device is lost on the way, so do the rest. Returns each task's temporaries.
     */
    const runOnGpu = async (ids: readonly number[]): Promise<Block[][]> => {
      const temps: Block[][] = [];
      const kernels: { job: KernelJob; gt: GpuTask; task: Task }[] = [];
      const routines: { job: RoutineJob; task: RoutineTask }[] = [];
      for (const id of ids) {
        const t = plan.tasks[id]!;
        if (isScanTask(t)) {
          const [job] = st.bind(t);
          const sj = job as ScanJob;
          const n = sj.shape.reduce((a, b) => a * b, 1);
          const f32 = (ptr: number, len: number) => new Float32Array(heap.memory.buffer, ptr, len);
          try {
            await gpu!.scan(sj.op as 'sum' | 'prod', sj.axis, sj.shape, f32(sj.src, n), f32(sj.dst, n), sj.prev && f32(sj.prev.ptr, (n / sj.shape[sj.axis]!) * sj.prev.len));
            gpuTasks++;
          } catch (e) {
            if (!gpu!.lost && !(e instanceof RangeError)) throw e;
            this.inlineExecutor().run(sj);
          }
          temps.push([]);
          continue;
        }
        if (isRoutineTask(t)) {
          const [job, tt, copied] = st.bind(t);
          bytesCopied += copied;
          temps.push(tt);
          routines.push({ job: job as RoutineJob, task: t });
          continue;
        }
        if (!isKernelTask(t)) throw new Error('internal: a task of no kind queued for the GPU');
        const [job, tt, copied] = st.bind(t);
        bytesCopied += copied;
        temps.push(tt);
        const kj = job as KernelJob;
        for (const c of kj.copies) copyBox(heap.memory, c);
        const only = (tensor: number, box: readonly Range[]) => {
          const spec = plan.tensors[tensor]!;
          const cs = chunksOf(spec.shape, spec.chunk, box);
          return cs.length === 1 && deviceOnly.has(`${tensor}/${cs[0]}`);
        };
        const gt = gpuTaskOf(plan.kernels[t.kernel]!, kj, t, heap.memory, (i) => st.stableInput(t, i), (i) => st.wholeOutput(t, i),
          (i) => only(t.reads[i]!.tensor, t.reads[i]!.box), (i) => deviceOnly.has(`${t.writes[i]!.tensor}/${t.writes[i]!.chunk}`));
        if (gpu!.fits(gt)) { kernels.push({ job: kj, gt, task: t }); continue; }
        // a chunk larger than the adapter's binding limit: this task on WASM, where its inputs must be
        if (gt.inputs.some((r) => r.deviceOnly)) throw new DeviceCopyLost();
        this.inlineExecutor().run({ ...kj, copies: [] });
        for (const w of t.writes) deviceOnly.delete(`${w.tensor}/${w.chunk}`); // its outputs are on the host now
      }
      // the tile routines, each its own submission, all in flight together; one the GPU does not take, or that a lost device
      // failed, runs here; all settle before a failure is thrown (none writes into the heap after the run is abandoned)
      const settled = await Promise.allSettled(routines.map(async ({ job, task }) => {
        for (const c of job.copies) copyBox(heap.memory, c);
        const region = (r: HeapRegion) => ({ ...r, data: new ARRAY_CTOR[r.dtype](heap.memory.buffer, r.ptr, regionSpan(r.shape, r.strides)) as TypedArray });
        const g0 = now();
        try {
          const p = gpuTileRoutine(gpu!, job.name, job.params, job.inputs.map(region), region(job.output));
          if (p) {
            await p;
            exe.span(`routine ${job.name}`, 'gpu', GPU_THREAD, g0, now(), { task: task.id });
            gpuTasks++;
            return;
          }
        } catch (e) {
          if (!gpu!.lost && !(e instanceof RangeError)) throw e;
        }
        this.inlineExecutor().run({ ...job, copies: [] });
      }));
      for (const r of settled) if (r.status === 'rejected') throw r.reason;
      if (!kernels.length) return temps;
      try {
        const g0 = now();
        await gpu!.runAll(kernels.map((k) => k.gt));
        exe.span(`${kernels.length} tasks`, 'gpu', GPU_THREAD, g0, now(), { first: kernels[0]!.task.id });
        gpuTasks += kernels.length;
      } catch (e) {
        // a lost device (or a dispatch too large): these tasks on WASM, unless chunks that lived on the GPU only went with it
        if (e instanceof DeviceCopyLost || (gpu!.lost && deviceOnly.size)) throw new DeviceCopyLost();
        if (!gpu!.lost && !(e instanceof RangeError)) throw e;
        if (kernels.some((k) => k.gt.inputs.some((r) => r.deviceOnly))) throw new DeviceCopyLost();
        for (const k of kernels) {
          this.inlineExecutor().run({ ...k.job, copies: [] });
          for (const w of k.task.writes) deviceOnly.delete(`${w.tensor}/${w.chunk}`); // its outputs are on the host now
        }
      }
      return temps;
    };
    const nworkers = opts.workers ?? defaultWorkers();
    const pool = this.ensurePool(Math.min(nworkers, Math.max(0, plan.tasks.length > 1 ? nworkers : 0)));
    const total = plan.tasks.length;
    let done = 0;
    let bytesCopied = 0;
    try {
      // Ready tasks in two queues: kernels the GPU takes, and the rest (a lost device sends its queue back)
      // Ready CPU tasks are taken in the order of ./order.ts (least rank first: what one output needs, then the next)
      const ready = new ReadyHeap(taskRanks(plan.tasks));
      const gpuReady: number[] = [];
      const enqueue = (id: number) => (onGpu(id) ? gpuReady : ready).push(id);
      const gpuQueueBack = () => {
        if (!gpu?.lost) return;
        if (deviceOnly.size) throw new DeviceCopyLost(); // chunks that lived on the GPU only are gone
        for (const id of gpuReady.splice(0)) ready.push(id);
      };
      const waiting = plan.tasks.map((t) => t.deps.length);
      const dependents: number[][] = plan.tasks.map(() => []);
      plan.tasks.forEach((t) => t.deps.forEach((d) => dependents[d]!.push(t.id)));
      plan.tasks.forEach((t) => { if (t.deps.length === 0) enqueue(t.id); });
      const finish = (id: number, temps: Block[]) => {
        done++;
        for (const b of temps) heap.release(b);
        st.afterTask(plan.tasks[id]!);
        for (const d of dependents[id]!) if (--waiting[d]! === 0) enqueue(d);
        opts.onProgress?.({ done, total });
      };
      if (!pool) {
        const ex = this.inlineExecutor();
        while (ready.length || gpuReady.length) {
          gpuQueueBack();
          if (gpuReady.length) {
            const ids = gpuReady.splice(0, GPU_BATCH);
            (await runOnGpu(ids)).forEach((t, i) => finish(ids[i]!, t));
            continue;
          }
          const id = ready.pop();
          const [job, temps, copied] = st.bind(plan.tasks[id]!);
          bytesCopied += copied;
          const s0 = now();
          ex.run(job);
          taskSpan(id, MAIN_THREAD, s0, now());
          finish(id, temps);
          if (done % 64 === 0) await Promise.resolve();
        }
      } else {
        // Ready tasks go to the workers in batches (see ./pool.ts), two at most waiting to be
        // taken, so that a worker that finds one empty finds the next already in its queue.
        await new Promise<void>((resolve, reject) => {
          let failure: Error | undefined;
          let inFlight = 0; // batches and GPU submissions not yet settled
          let untaken = 0; // batches no worker has reported on yet (each may still hold jobs)
          let busy = 0; // workers yet to report on a batch
          const fail = (e: unknown): void => { failure ??= e instanceof Error ? e : new Error(String(e)); };
          const finishAll = (ids: readonly number[], temps: readonly Block[][]): void => {
            try { ids.forEach((id, i) => finish(id, temps[i]!)); } catch (e) { fail(e); }
          };
          const launch = (): void => {
            const ids: number[] = [], jobs: Job[] = [], temps: Block[][] = [];
            const before = heap.inUse;
            const most = inFlight === 0 ? FIRST_BATCH_TASKS : BATCH_TASKS;
            // the kernel jobs' parameters go into one block the batch's jobs point into
            let words = 0;
            let params: Block;
            try {
              while (ready.length && ids.length < most && (ids.length < pool.size || heap.inUse - before < BATCH_BYTES)) {
                const id = ready.pop();
                const [job, tt, copied] = st.bind(plan.tasks[id]!);
                bytesCopied += copied;
                ids.push(id); jobs.push(job); temps.push(tt);
                if (job.kind === 'kernel') words += job.layout.slots;
              }
              params = heap.alloc(8 * Math.max(1, words));
            } catch (e) {
              for (const tt of temps) for (const b of tt) heap.release(b); // the run fails: nothing of this batch runs
              throw e;
            }
            const modules = new Map<string, WebAssembly.Module>();
            const view = new BigInt64Array(heap.memory.buffer, params.ptr, Math.max(1, words));
            let at = 0;
            const wire = jobs.map((j): Job => {
              if (j.kind !== 'kernel') return j;
              if (j.module) modules.set(j.key, j.module);
              writeParams(j.layout, j.args, view, at);
              const bound: BoundJob = { kind: 'bound', key: j.key, copies: j.copies, params: params.ptr + 8 * at };
              at += j.layout.slots;
              return bound;
            });
            let reported = false;
            const ran = new Array<boolean>(ids.length).fill(false);
            inFlight++; untaken++; busy += pool.size;
            pool.batch(wire, modules, (done, times, w) => {
              busy--;
              if (!reported) { reported = true; untaken--; }
              done.forEach((i, k) => { ran[i] = true; if (times.length > 2 * k) taskSpan(ids[i]!, w, times[2 * k]!, times[2 * k + 1]!); });
              finishAll(done.map((i) => ids[i]!), done.map((i) => temps[i]!));
              pump();
            }).then(
              () => { heap.release(params); inFlight--; pump(); },
              (e: unknown) => {
                // the run fails: the temporaries of the jobs no worker ran go now (the run's chunks go in its abort)
                heap.release(params);
                temps.forEach((tt, i) => { if (!ran[i]) for (const b of tt) heap.release(b); });
                inFlight--; fail(e); pump();
              },
            );
            // this thread's share while the workers wake (./pool.ts)
            const ex = this.inlineExecutor();
            const helpTimes: number[] = [];
            const mine = pool.help((job) => {
              if (job.kind === 'bound') ex.learn(job.key, this.programs.get(job.key)!.module);
              ex.run(job);
            }, helpTimes);
            mine.forEach((i, k) => { ran[i] = true; taskSpan(ids[i]!, MAIN_THREAD, helpTimes[2 * k]!, helpTimes[2 * k + 1]!); });
            finishAll(mine.map((i) => ids[i]!), mine.map((i) => temps[i]!));
          };
          const pump = (): void => {
            try {
              gpuQueueBack();
              // The GPU takes the tasks ready for it a batch at a time, in one submission; workers take the others.
              if (!failure && !gpuBusy && gpuReady.length) {
                const ids = gpuReady.splice(0, GPU_BATCH);
                gpuBusy = true; inFlight++;
                runOnGpu(ids).then(
                  (temps) => { gpuBusy = false; inFlight--; finishAll(ids, temps); pump(); },
                  (e: unknown) => { gpuBusy = false; inFlight--; fail(e); pump(); },
                );
              }
              // The one task left, small, with every worker idle (a reduction's last combine): here, sooner than a worker would hear of it.
              while (!failure && busy === 0 && ready.length === 1 && smallTask(plan.tasks[ready.peek()!]!)) {
                const id = ready.pop();
                const [job, tt, copied] = st.bind(plan.tasks[id]!);
                bytesCopied += copied;
                const s0 = now();
                this.inlineExecutor().run(job);
                taskSpan(id, MAIN_THREAD, s0, now());
                finish(id, tt);
              }
              while (!failure && ready.length && untaken < 2 && pool.canBatch()) launch();
            } catch (e) {
              fail(e);
            }
            if (inFlight === 0) { if (failure) reject(failure); else resolve(); }
          };
          pump();
        });
      }
      if (done !== total) throw new Error(`internal: ${total - done} tasks never became ready`);
      for (const [node, tid] of plan.outputs) this.keep(node, st.storedOf(tid));
    } catch (e) {
      if (gpu) this.idleGpu();
      st.abort();
      // the device went, with chunks that lived on it only: the job again, on WASM
      if (e instanceof DeviceCopyLost) return this.runNow(outputs, { ...opts, device: 'wasm' });
      if (pool) { await pool.close(); this.pool = undefined; }
      throw e;
    }
    if (gpu) this.idleGpu();
    const report: Report = {
      tasks: total,
      kernels: plan.kernels.length,
      kernelsCompiled: this.compiled - compiled0,
      bytesAllocated: heap.allocated - alloc0,
      peakBytes: heap.peak - peak0,
      largestAllocation: heap.largest,
      bytesCopied,
      workers: pool ? pool.size : 0,
      gpuTasks,
      gpu: gpuNote,
      planReused: reused,
      ms: performance.now() - t0,
      trace: { traceEvents: [], displayTimeUnit: 'ms' },
    };
    exe.stages.tasks += now() - tasksStart;
    const tot = exe.totals;
    tot.runs++; tot.tasks += total; tot.kernels += plan.kernels.length; tot.compiled += report.kernelsCompiled; tot.reused += reused ? 1 : 0;
    tot.bytesAllocated += report.bytesAllocated; tot.peakBytes = Math.max(tot.peakBytes, report.peakBytes);
    tot.largest = Math.max(tot.largest, heap.largest); tot.bytesCopied += bytesCopied;
    tot.gpuTasks += gpuTasks; tot.workers = Math.max(tot.workers, report.workers);
    report.trace = exe.trace();
    if (own) exe.finish();
    this.lastReport = report;
    return report;
  }

  /** DEBUG level 3: the graph a plan was made from and the text of its kernels (the IR every device compiles). */
  private describePlan(exe: Execution, outputs: readonly Node[], plan: Plan): void {
    exe.log(`plan: ${plan.tasks.length} tasks, ${plan.kernels.length} kernels, ${plan.tensors.length} tensors; the graph:`);
    for (const n of topo(outputs, (m) => this.stored.has(m))) {
      const from = n.inputs.length ? ` <- ${n.inputs.map((i) => `#${i.id}`).join(' ')}` : '';
      exe.log(`  #${n.id} ${n.op} ${shapeStr(n.shape)} ${n.dtype} chunks ${shapeStr(n.chunk)}${from}`);
    }
    plan.kernels.forEach((k, i) => exe.log(`kernel ${i}: ${encodeKernel(k)}`));
  }

  programFor(k: Kernel, partial: boolean): [string, Program] {
    return this.program(k, partial);
  }

  /**
   * The plan of chunk tasks behind `outputs`, as a mesh coordinator places
   * it: tensors already materialised here are its sources (`chunkOf` reads
   * their chunks).
   */
  planOf(outputs: readonly Node[]): Plan {
    return this.planned(outputs).plan;
  }

  /** The plan behind `outputs`, and whether it came from the cache of plans (./plans.ts). */
  private planned(outputs: readonly Node[]): { plan: Plan; reused: boolean } {
    const todo = outputs.filter((n) => !this.stored.has(n));
    return this.plans.plan(todo, (n) => this.stored.get(n), () => {
      const steps = fuse(todo, (n) => this.stored.has(n));
      // Results and the arrays fusion must store are held in the chunk heap: refuse one that
      // cannot fit before tiling it (NumPy's MemoryError), not after filling the heap.
      for (const { node: n } of steps) {
        const bytes = sizeOf(n.shape) * INFO[n.dtype].bytes;
        if (bytes > HEAP_LIMIT) {
          throw new MemoryError(`Unable to allocate ${sizeString(bytes)} for an array with shape ${shapeStr(n.shape)} and data type `
            + `${n.dtype}: it must be stored, and the chunk heap holds at most ${sizeString(HEAP_LIMIT)}`);
        }
      }
      return tile(steps, todo, (n) => {
        const s = this.stored.get(n);
        return s ? { id: -1, dtype: s.dtype, shape: s.shape, chunk: s.chunk } : undefined;
      }, this.fanIn);
    });
  }

  /** Partial results one combine task folds at most (tile.ts FAN_IN); the plans made with another go. */
  get combineFanIn(): number { return this.fanIn; }
  set combineFanIn(n: number) {
    if (!Number.isInteger(n) || n < 2) throw new RangeError(`options.combineFanIn must be an integer of at least 2, got ${n}`);
    if (n !== this.fanIn) this.plans = new PlanCache();
    this.fanIn = n;
  }

  /** Chunk `c` of a materialised tensor, as a copy in C order over the chunk's box. */
  chunkOf(n: Node, c: number): TypedArray {
    const s = this.stored.get(n);
    const b = s?.blocks[c];
    if (!s || !b) throw new Error('internal: reading a chunk of a tensor that was not executed');
    const box = chunkBox(s.shape, s.chunk, c);
    return (new ARRAY_CTOR[s.dtype](this.heap.memory.buffer, b.ptr, sizeOf(box.map(([lo, hi]) => hi - lo))) as TypedArray).slice();
  }

  /** Materialises `n` from its chunks (C order over each chunk's box), as a mesh job's output. */
  putChunks(n: Node, chunks: readonly TypedArray[]): void {
    const grid = numChunks(n.shape, n.chunk).reduce((a, b) => a * b, 1);
    if (chunks.length !== grid) throw new Error(`internal: ${chunks.length} chunks for a tensor of ${grid}`);
    this.release(n);
    const s: Stored = { dtype: n.dtype, shape: n.shape, chunk: n.chunk, blocks: [] };
    chunks.forEach((data, c) => {
      const b = this.heap.alloc(data.byteLength);
      new Uint8Array(this.heap.memory.buffer, b.ptr, data.byteLength).set(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
      s.blocks.push(b);
    });
    this.keep(n, s);
  }

  /**
   * Makes `blocks` the chunks of source `n`: blocks of this heap (heap.alloc), one per chunk in grid order, each
   * holding its chunk in C order (a block may be larger than its chunk). How data built in place is stored without
   * a copy: read_csv writes each range's rows into its chunks' blocks as the range is parsed, before it knows the
   * tensor's length.
   */
  adopt(n: Node, blocks: readonly Block[]): void {
    const grid = numChunks(n.shape, n.chunk).reduce((a, b) => a * b, 1);
    if (blocks.length !== grid) throw new Error(`internal: ${blocks.length} blocks for a tensor of ${grid} chunks`);
    this.release(n);
    this.keep(n, { dtype: n.dtype, shape: n.shape, chunk: n.chunk, blocks: [...blocks] });
  }

  /**
   * Runs one kernel task over data given in its boxes (what a mesh peer
   * receives): each input is C-order data over the box it covers, each output
   * comes back as C-order data over its box. Tasks run on the worker pool,
   * as many at once as it has workers.
   */
  async runTask(t: TaskIO): Promise<TypedArray[]> {
    let pool = this.ensurePool(defaultWorkers())!;
    let w: number;
    while ((w = pool.idle()) < 0) {
      await pool.settled();
      pool = this.ensurePool(defaultWorkers())!;
    }
    const [key, prog] = this.program(t.kernel, t.partial);
    const blocks: Block[] = [];
    const region = (dtype: DType, box: readonly Range[], data?: TypedArray): Binding => {
      const ext = box.map(([lo, hi]) => hi - lo);
      const n = sizeOf(ext);
      if (data && data.length !== n) throw new RangeError(`a region of shape [${ext}] got ${data.length} elements`);
      const b = this.heap.alloc(Math.max(1, n) * INFO[dtype].bytes);
      blocks.push(b);
      if (data) new Uint8Array(this.heap.memory.buffer, b.ptr, data.byteLength).set(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
      return { ptr: b.ptr, origin: box.map(([lo]) => lo), strides: stridesOf(ext) };
    };
    try {
      const inputs = t.inputs.map((i) => region(i.dtype, i.box, i.data));
      const outputs = t.outputs.map((o) => region(o.dtype, o.box));
      const scratch = prog.layout.scratch ? this.heap.alloc(prog.layout.scratch.bytes) : undefined;
      if (scratch) blocks.push(scratch);
      const job: KernelJob = { kind: 'kernel', key, module: prog.module, layout: prog.layout, copies: [], args: { inputs, outputs, outer: t.outer, red: t.red, partial: t.partial, ...(scratch ? { scratch: scratch.ptr } : {}), ...(prog.layout.sites !== undefined ? { sites: siteParams(t.kernel) } : {}) } };
      await pool.run(w, job);
      return t.outputs.map((o, i) => (new ARRAY_CTOR[o.dtype](this.heap.memory.buffer, outputs[i]!.ptr, sizeOf(o.box.map(([lo, hi]) => hi - lo))) as TypedArray).slice());
    } finally {
      blocks.forEach((b) => this.heap.release(b));
    }
  }

  /**
   * Runs one routine call over data given in its boxes (what a mesh peer
   * receives: C-order data over each box read, in the tensor's coordinates),
   * on the worker pool like runTask; the output comes back in C order.
   */
  async runRoutine(
    name: string, params: RoutineParams,
    inputs: readonly { readonly dtype: DType; readonly box: readonly Range[]; readonly data: TypedArray }[],
    output: { readonly dtype: DType; readonly box: readonly Range[] },
  ): Promise<TypedArray> {
    let pool = this.ensurePool(defaultWorkers())!;
    let w: number;
    while ((w = pool.idle()) < 0) {
      await pool.settled();
      pool = this.ensurePool(defaultWorkers())!;
    }
    const blocks: Block[] = [];
    const region = (dtype: DType, box: readonly Range[], data?: TypedArray): HeapRegion => {
      const shape = box.map(([lo, hi]) => hi - lo);
      const n = sizeOf(shape);
      if (data && data.length !== n) throw new RangeError(`a region of shape [${shape}] got ${data.length} elements`);
      const b = this.heap.alloc(Math.max(1, n) * INFO[dtype].bytes);
      blocks.push(b);
      if (data) {
        const src = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
        new Uint8Array(this.heap.memory.buffer, b.ptr, data.byteLength).set(src);
      }
      return { dtype, ptr: b.ptr, shape, strides: stridesOf(shape), origin: box.map(([lo]) => lo) };
    };
    try {
      const ins = inputs.map((i) => region(i.dtype, i.box, i.data));
      const job: RoutineJob = { kind: 'routine', name, params, copies: [], inputs: ins, output: region(output.dtype, output.box) };
      await pool.run(w, job);
      const out = new ARRAY_CTOR[output.dtype](this.heap.memory.buffer, job.output.ptr, sizeOf(job.output.shape)) as TypedArray;
      return out.slice();
    } finally {
      blocks.forEach((b) => this.heap.release(b));
    }
  }

  /**
   * A view (no copy) of chunk `c` of a materialised tensor, in C order over
   * the chunk's box: how the host reads a few elements of a stored result
   * (the sort's table of ranks) without gathering it. Valid until the heap grows.
   */
  chunkView(n: Node, c: number): TypedArray {
    const s = this.stored.get(n);
    const b = s?.blocks[c];
    if (!s || !b) throw new Error('internal: reading a chunk of a tensor that was not executed');
    const box = chunkBox(s.shape, s.chunk, c);
    const count = sizeOf(box.map(([lo, hi]) => hi - lo));
    return new ARRAY_CTOR[s.dtype](this.heap.memory.buffer, b.ptr, count) as TypedArray;
  }

  /** A scan (cumulative sum, product or `ufunc.accumulate`) of one chunk (C order over `shape`), continuing from the previous chunk along the axis. */
  runScan(op: ScanOp, axis: number, inDtype: DType, outDtype: DType, shape: readonly number[], src: TypedArray, prev?: TypedArray): TypedArray {
    const n = sizeOf(shape);
    const item = (d: DType) => INFO[d].bytes;
    const sb = this.heap.alloc(Math.max(1, n) * item(inDtype)), db = this.heap.alloc(Math.max(1, n) * item(outDtype));
    const pb = prev ? this.heap.alloc(Math.max(1, prev.byteLength)) : undefined;
    try {
      const put = (b: Block, d: TypedArray) => new Uint8Array(this.heap.memory.buffer, b.ptr, d.byteLength).set(new Uint8Array(d.buffer, d.byteOffset, d.byteLength));
      put(sb, src);
      if (pb) put(pb, prev!);
      const inner = n / (shape[axis]! || 1);
      this.inlineExecutor().run({ kind: 'scan', op, axis, inDtype, outDtype, shape, src: sb.ptr, dst: db.ptr, ...(pb ? { prev: { ptr: pb.ptr, len: prev!.length / (inner || 1) } } : {}) });
      return (new ARRAY_CTOR[outDtype](this.heap.memory.buffer, db.ptr, n) as TypedArray).slice();
    } finally {
      this.heap.release(sb); this.heap.release(db);
      if (pb) this.heap.release(pb);
    }
  }
}

/** One kernel task with its data, as a mesh peer runs it (boxes in the kernel's coordinates). */
export interface TaskIO {
  readonly kernel: Kernel;
  readonly partial: boolean;
  readonly outer: readonly Range[];
  readonly red: readonly Range[];
  readonly inputs: readonly { readonly dtype: DType; readonly box: readonly Range[]; readonly data: TypedArray }[];
  readonly outputs: readonly { readonly dtype: DType; readonly box: readonly Range[] }[];
}

/** A kernel task of at most SMALL_TASK points (outer times reduced): one the main thread runs sooner than it could hand it over. */
function smallTask(t: AnyTask): boolean {
  return isKernelTask(t) && sizeOf([...t.outer, ...t.red].map(([lo, hi]) => hi - lo)) <= SMALL_TASK;
}

/** Per-run bookkeeping: chunk allocations, reference counts, bindings. */
class RunState {
  private readonly stores: Stored[];
  private readonly kept: boolean[];
  private readonly preexisting: boolean[];
  private readonly refs: Map<number, number>[];
  private readonly wholeWriter: ReadonlyMap<string, number>;

  constructor(private readonly rt: Runtime, private readonly plan: Plan, existing: (n: Node) => Stored | undefined) {
    const outs = new Set(plan.outputs.values());
    this.stores = plan.tensors.map((t) => {
      const ex = t.node ? existing(t.node) : undefined;
      return ex ?? { dtype: t.dtype, shape: t.shape, chunk: t.chunk, blocks: new Array(chunkCount(t)).fill(undefined) };
    });
    this.preexisting = plan.tensors.map((t) => t.node !== undefined && existing(t.node) !== undefined);
    this.kept = plan.tensors.map((_, i) => outs.has(i) || this.preexisting[i]!);
    this.refs = plan.tensors.map(() => new Map());
    // chunks written whole by a single kernel task (`${tensor}/${chunk}` -> that task): immutable once it ran
    const writers = new Map<string, number>();
    for (const task of plan.tasks) {
      if (isScanTask(task)) { writers.set(`${task.output}/${task.chunk}`, -1); continue; }
      if (!isKernelTask(task)) { writers.set(`${task.writes[0].tensor}/${task.writes[0].chunk}`, -1); continue; }
      for (const w of task.writes) {
        const key = `${w.tensor}/${w.chunk}`;
        const spec = plan.tensors[w.tensor]!;
        const whole = w.row === undefined && !task.partial && chunkBox(spec.shape, spec.chunk, w.chunk).every(([lo, hi], d) => task.outer[d]?.[0] === lo && task.outer[d]?.[1] === hi);
        writers.set(key, writers.has(key) || !whole ? -1 : task.id);
      }
    }
    this.wholeWriter = writers;
    for (const task of plan.tasks) {
      if (isScanTask(task)) {
        this.ref(task.input, [task.chunk]);
        if (task.prev !== undefined) this.ref(task.output, [task.prev]);
        continue;
      }
      for (const r of task.reads) this.ref(r.tensor, chunksOf(plan.tensors[r.tensor]!.shape, plan.tensors[r.tensor]!.chunk, r.box));
    }
  }

  private ref(t: number, chunks: number[]): void {
    const m = this.refs[t]!;
    for (const c of chunks) m.set(c, (m.get(c) ?? 0) + 1);
  }

  private unref(t: number, chunks: number[]): void {
    const m = this.refs[t]!;
    for (const c of chunks) {
      const n = (m.get(c) ?? 0) - 1;
      m.set(c, n);
      if (n <= 0 && !this.kept[t]) {
        const b = this.stores[t]!.blocks[c];
        if (b) { this.rt.heap.release(b); this.stores[t]!.blocks[c] = undefined; }
      }
    }
  }

  storedOf(t: number): Stored {
    return this.stores[t]!;
  }

  private block(t: number, c: number): Block {
    const s = this.stores[t]!;
    let b = s.blocks[c];
    if (!b) {
      const box = chunkBox(s.shape, s.chunk, c);
      b = this.rt.heap.alloc(box.reduce((a, [lo, hi]) => a * (hi - lo), 1) * INFO[s.dtype].bytes);
      s.blocks[c] = b;
    }
    return b;
  }

  /** Binds a task to memory: the job for an executor, temporary blocks to free after it, bytes copied. */
  bind(task: AnyTask): [Job, Block[], number] {
    if (isScanTask(task)) {
      const out = this.stores[task.output]!;
      const box = chunkBox(out.shape, out.chunk, task.chunk);
      const shape = box.map(([lo, hi]) => hi - lo);
      const prev = task.prev === undefined ? undefined : { ptr: this.block(task.output, task.prev).ptr, len: (() => { const pb = chunkBox(out.shape, out.chunk, task.prev!); return pb[task.scan.axis]![1] - pb[task.scan.axis]![0]; })() };
      const job: Job = {
        kind: 'scan', op: task.scan.op, axis: task.scan.axis, inDtype: this.stores[task.input]!.dtype, outDtype: out.dtype, shape,
        src: this.block(task.input, task.chunk).ptr, dst: this.block(task.output, task.chunk).ptr, ...(prev ? { prev } : {}),
      };
      return [job, [], 0];
    }
    const temps: Block[] = [];
    const copies: Copy[] = [];
    let copied = 0;
    const bindRead = (r: Task['reads'][number]): Binding => {
      const spec = this.plan.tensors[r.tensor]!;
      const s = this.stores[r.tensor]!;
      const cs = chunksOf(spec.shape, spec.chunk, r.box);
      if (cs.length === 0) return { ptr: 0, origin: spec.shape.map(() => 0), strides: spec.shape.map(() => 0) };
      if (cs.length === 1) return this.chunkBinding(r.tensor, cs[0]!);
      // The box spans several chunks: gather it into one temporary block.
      const ext = r.box.map(([lo, hi]) => hi - lo);
      const item = INFO[s.dtype].bytes;
      const tb = this.rt.heap.alloc(sizeOf(ext) * item);
      temps.push(tb);
      const ts = stridesOf(ext);
      for (const c of cs) {
        const cb = chunkBox(spec.shape, spec.chunk, c);
        const inter = cb.map(([lo, hi], i) => [Math.max(lo, r.box[i]![0]), Math.min(hi, r.box[i]![1])] as Range);
        const cstr = stridesOf(cb.map(([lo, hi]) => hi - lo));
        let src = this.block(r.tensor, c).ptr, dst = tb.ptr;
        inter.forEach(([lo], i) => { src += (lo - cb[i]![0]) * cstr[i]! * item; dst += (lo - r.box[i]![0]) * ts[i]! * item; });
        const shape = inter.map(([lo, hi]) => hi - lo);
        copies.push({ itemBytes: item, shape, src, srcStrides: cstr, dst, dstStrides: ts });
        copied += sizeOf(shape) * item;
      }
      return { ptr: tb.ptr, origin: r.box.map(([lo]) => lo), strides: ts };
    };
    if (!isKernelTask(task)) return this.bindRoutine(task, bindRead, copies, temps, copied);
    const kernel = this.plan.kernels[task.kernel]!;
    const [key, prog] = this.rt.programFor(kernel, task.partial);
    const inputs: Binding[] = task.reads.map(bindRead);
    const outputs: Binding[] = task.writes.map((w) => {
      const b = this.chunkBinding(w.tensor, w.chunk);
      if (w.row === undefined) return b;
      const item = INFO[this.stores[w.tensor]!.dtype].bytes;
      return { ptr: b.ptr + w.row * b.strides[0]! * item, origin: b.origin.slice(1), strides: b.strides.slice(1) };
    });
    // A program whose layout asks for scratch (the GEMM routine, a reduction run in rows order) gets it for the task's duration.
    const scratch = prog.layout.scratch ? this.rt.heap.alloc(prog.layout.scratch.bytes) : undefined;
    if (scratch) temps.push(scratch);
    const job: Job = { kind: 'kernel', key, module: prog.module, layout: prog.layout, copies, args: { inputs, outputs, outer: task.outer, red: task.red, partial: task.partial, ...(scratch ? { scratch: scratch.ptr } : {}), ...(prog.layout.sites !== undefined ? { sites: siteParams(kernel) } : {}) } };
    return [job, temps, copied];
  }

  /** A routine task's job: each read as a region starting at its box's first element (./exec.ts HeapRegion). */
  private bindRoutine(
    task: RoutineTask, bindRead: (r: Task['reads'][number]) => Binding, copies: Copy[], temps: Block[], copied: number,
  ): [Job, Block[], number] {
    const region = (tensor: number, box: readonly Range[], b: Binding): HeapRegion => {
      const dtype = this.stores[tensor]!.dtype;
      const at = box.reduce((a, [lo], d) => a + (lo - b.origin[d]!) * b.strides[d]!, 0);
      const ptr = b.ptr + at * INFO[dtype].bytes;
      return { dtype, ptr, shape: box.map(([lo, hi]) => hi - lo), strides: b.strides, origin: box.map(([lo]) => lo) };
    };
    const inputs = task.reads.map((r) => region(r.tensor, r.box, bindRead(r)));
    const w = task.writes[0];
    const out = this.stores[w.tensor]!;
    const box = chunkBox(out.shape, out.chunk, w.chunk);
    const output = region(w.tensor, box, this.chunkBinding(w.tensor, w.chunk));
    const job: RoutineJob = { kind: 'routine', name: task.routine.name, params: task.routine.params, copies, inputs, output };
    return [job, temps, copied];
  }

  /**
   * The block input `i` of `task` reads when it is one chunk of a tensor that
   * existed before this run (immutable: a device may keep a copy of it).
   */
  stableInput(task: Task, i: number): Block | undefined {
    const r = task.reads[i]!;
    const spec = this.plan.tensors[r.tensor]!;
    const cs = chunksOf(spec.shape, spec.chunk, r.box);
    if (cs.length !== 1) return undefined;
    // a chunk that existed before this run, or one a single task wrote whole (it ran: this task depends on it)
    if (!this.preexisting[r.tensor] && !((this.wholeWriter.get(`${r.tensor}/${cs[0]}`) ?? -1) >= 0)) return undefined;
    return this.stores[r.tensor]!.blocks[cs[0]!];
  }

  /** The task that alone writes chunk `c` of tensor `t` whole, or -1. */
  wholeWriterOf(t: number, c: number): number { return this.wholeWriter.get(`${t}/${c}`) ?? -1; }

  /** The block output `i` of `task` writes when the task writes all of it and nothing else does (a device may keep its copy). */
  wholeOutput(task: Task, i: number): Block | undefined {
    const w = task.writes[i]!;
    return this.wholeWriter.get(`${w.tensor}/${w.chunk}`) === task.id ? this.stores[w.tensor]!.blocks[w.chunk] : undefined;
  }

  private chunkBinding(t: number, c: number): Binding {
    const s = this.stores[t]!;
    const box = chunkBox(s.shape, s.chunk, c);
    return { ptr: this.block(t, c).ptr, origin: box.map(([lo]) => lo), strides: stridesOf(box.map(([lo, hi]) => hi - lo)) };
  }

  afterTask(task: AnyTask): void {
    if (isScanTask(task)) {
      this.unref(task.input, [task.chunk]);
      if (task.prev !== undefined) this.unref(task.output, [task.prev]);
      return;
    }
    for (const r of task.reads) this.unref(r.tensor, chunksOf(this.plan.tensors[r.tensor]!.shape, this.plan.tensors[r.tensor]!.chunk, r.box));
  }

  /** Frees every block this run allocated for tensors it does not keep. */
  abort(): void {
    this.stores.forEach((s, t) => {
      if (this.preexisting[t]) return;
      s.blocks.forEach((b, c) => { if (b) { this.rt.heap.release(b); s.blocks[c] = undefined; } });
    });
  }
}

function chunkCount(t: TensorSpec): number {
  return numChunks(t.shape, t.chunk).reduce((a, b) => a * b, 1);
}

/** Calls fn(index of row start, row length) for each contiguous last-axis row of `ext`. */
function forEachRow(ext: readonly number[], fn: (idx: number[], len: number) => void): void {
  if (sizeOf(ext) === 0) return;
  const r = ext.length;
  if (r === 0) { fn([], 1); return; }
  const idx = new Array<number>(r).fill(0);
  const rows = sizeOf(ext.slice(0, r - 1));
  for (let k = 0; k < rows; k++) {
    fn(idx, ext[r - 1]!);
    for (let i = r - 2; i >= 0; i--) { if (++idx[i]! < ext[i]!) break; idx[i] = 0; }
  }
}

/**
 * Chunks that can live on the GPU only (`${tensor}/${chunk}`): written whole
 * by a GPU task, in 32-bit words, not a result of the run, and read only by
 * GPU tasks that each read it whole (so nothing needs it on the host).
 */
function deviceOnlyChunks(plan: Plan, useGpu: readonly boolean[], st: RunState): Set<string> {
  const host = new Set<string>(); // chunks something reads on the host
  const read = new Set<string>();
  for (const t of plan.tasks) {
    if (isScanTask(t)) {
      host.add(`${t.input}/${t.chunk}`);
      if (t.prev !== undefined) host.add(`${t.output}/${t.prev}`);
      continue;
    }
    for (const r of t.reads) {
      const spec = plan.tensors[r.tensor]!;
      const cs = chunksOf(spec.shape, spec.chunk, r.box);
      for (const c of cs) {
        read.add(`${r.tensor}/${c}`);
        if (cs.length > 1 || !isKernelTask(t) || !useGpu[t.kernel]) host.add(`${r.tensor}/${c}`);
      }
    }
  }
  const outputs = new Set(plan.outputs.values());
  const out = new Set<string>();
  for (const t of plan.tasks) {
    if (!isKernelTask(t) || !useGpu[t.kernel]) continue;
    for (const w of t.writes) {
      const key = `${w.tensor}/${w.chunk}`;
      const d = plan.tensors[w.tensor]!.dtype;
      const words = d === 'float32' || d === 'int32' || d === 'uint32';
      if (words && !outputs.has(w.tensor) && read.has(key) && !host.has(key) && st.wholeWriterOf(w.tensor, w.chunk) === t.id) out.add(key);
    }
  }
  return out;
}

/** A kernel task's regions of the heap, as the GPU device takes them. */
function gpuTaskOf(
  k: Kernel, job: KernelJob, task: Task, memory: WebAssembly.Memory, stable: (i: number) => Block | undefined, whole: (i: number) => Block | undefined,
  inputOnDevice: (i: number) => boolean, outputOnDevice: (i: number) => boolean,
): GpuTask {
  const region = (b: Binding, d: DType, box: readonly Range[], whole?: Block): Region => {
    if (whole) {
      // a whole immutable chunk: the device may keep it resident, keyed by its block
      const n = Math.floor(whole.bytes / INFO[d].bytes) - (b.ptr - whole.ptr) / INFO[d].bytes;
      return { data: new ARRAY_CTOR[d](memory.buffer, b.ptr, n) as TypedArray, dtype: d, origin: b.origin, strides: b.strides, key: whole };
    }
    // the elements the task can reach: up to the box's far corner
    const empty = box.some(([lo, hi]) => hi <= lo);
    const last = empty ? -1 : box.reduce((a, [, hi], i) => a + (hi - 1 - b.origin[i]!) * b.strides[i]!, 0);
    return { data: new ARRAY_CTOR[d](memory.buffer, b.ptr, last + 1) as TypedArray, dtype: d, origin: b.origin, strides: b.strides };
  };
  const red = k.reduce;
  const arg = task.partial && !!red && isArgReduce(red.op);
  const outTypes: DType[] = !red || !task.partial ? [k.dtype] : arg ? [red.body.dtype, 'int64'] : [red.dtype];
  return {
    kernel: k,
    partial: task.partial,
    inputs: job.args.inputs.map((b, i) => {
      const r = region(b, k.inputs[i]!.dtype, task.reads[i]!.box, stable(i));
      return r.key && inputOnDevice(i) ? { ...r, deviceOnly: true } : r;
    }),
    outputs: job.args.outputs.map((b, i) => {
      const r = region(b, outTypes[i]!, task.outer);
      // a whole chunk this task alone writes: the device may keep its output buffer as the chunk's copy
      const w = whole(i);
      return w && w.ptr === b.ptr ? { ...r, key: w, ...(outputOnDevice(i) ? { deviceOnly: true } : {}) } : r;
    }),
    outer: task.outer,
    red: task.red,
  };
}

export const runtime = new Runtime();
