// The WebGPU device: runs kernel tasks as the WGSL programs of wgsl/render.ts
// on a GPU adapter, behind the same task interface as the CPU executor. It
// probes the adapter once (features, limits), compiles a Program per kernel
// structure and mode, reuses buffers from a pool, and answers `undefined`
// from `open` where there is no adapter, so the caller stays on WASM (as it
// does for an adapter that fails `selfTest`).
// In a tab the adapter is `navigator.gpu`; in Node it is the `webgpu`
// package (Dawn), pointed at Chromium's SwiftShader Vulkan driver when the
// machine has no GPU. A Node device keeps a core busy while it lives:
// `destroy` it when idle and before exit.
// In: a Kernel, its mode, and a task's input and output regions as typed
// arrays. Out: the task's box of each output, written in place.

import { host } from '#host';
import { ARRAY_CTOR, type DType, INFO, type TypedArray } from '../graph/dtype.js';
import { decodeHalf, halfBits } from '../graph/half.js';
import * as G from '../graph/node.js';
import { fuse } from '../fuse/fuse.js';
import { interpret } from '../ir/interpret.js';
import { type Kernel, programKey, siteParams } from '../ir/ir.js';
import { type MatmulInfo, matmulOf } from '../ir/matmul.js';
import { type GpuLayout, type WType, WG, gpuSupport, renderWgsl, wtype } from '../wgsl/render.js';

/** A region of one chunk as the device sees it: element at global index g is data[sum((g - origin) * strides)]. */
export interface Region {
  readonly data: TypedArray;
  readonly dtype: DType;
  readonly origin: readonly number[];
  readonly strides: readonly number[];
  /**
   * Identity of immutable content (a chunk's block): an input so named is
   * kept resident on the device and uploaded once; an output so named (a
   * whole chunk its task alone writes) stays on the device as that chunk's
   * copy, so the kernels that read it next upload nothing.
   */
  readonly key?: object;
  /**
   * The chunk lives on the device only (every reader of it runs there): as
   * an output it is not read back, as an input its resident copy must be
   * there (DeviceCopyLost otherwise: its host block holds nothing).
   */
  readonly deviceOnly?: boolean;
}

/** A chunk that lived on the device only is gone (the device was lost or replaced): the job must run again without it. */
export class DeviceCopyLost extends Error {
  constructor() { super('a chunk kept on the GPU only is gone with its device'); }
}

/** Inputs and outputs of each hand-written shader (after the params binding), as its header says. */
const SHADER_IO: Record<string, readonly [number, number]> = { matmul: [2, 1], scan: [2, 1], knn: [2, 2], tilegemm: [3, 1] };

/** A hand-written shader's buffer of 32-bit words; an input named by `key` stays resident on the device (uploaded once, until `forget`). */
export interface ShaderBuffer { readonly data: Float32Array | Int32Array | Uint32Array; readonly key?: object }

/** Bytes of immutable chunks kept on the device between tasks and jobs (least recently used go first). */
const RESIDENT_BYTES = 256 * 2 ** 20;

export interface GpuTask {
  readonly kernel: Kernel;
  readonly partial: boolean;
  readonly inputs: readonly Region[];
  /** One output; two in partial mode of an arg-reduction (value, then int64 index). */
  readonly outputs: readonly Region[];
  readonly outer: readonly (readonly [number, number])[];
  readonly red: readonly (readonly [number, number])[];
}

export interface GpuInfo {
  readonly adapter: string;
  readonly features: readonly string[];
  readonly maxStorageBufferBindingSize: number;
  readonly maxComputeWorkgroupsPerDimension: number;
  readonly maxBufferSize: number;
  readonly maxStorageBuffersPerShaderStage: number;
  /** Subgroup operations (the 'subgroups' feature), used to combine reductions. */
  readonly subgroups: boolean;
  /** Half-precision arithmetic in shaders ('shader-f16'); no Tessera dtype needs it yet. */
  readonly f16: boolean;
  /** GPU-side timestamps ('timestamp-query'): the device reports the time its kernels ran. */
  readonly timestamps: boolean;
}

interface Program { pipeline: GPUComputePipeline; layout: GpuLayout }

const WORD: { readonly [T in WType]: Float32ArrayConstructor | Int32ArrayConstructor | Uint32ArrayConstructor } = { f32: Float32Array, i32: Int32Array, u32: Uint32Array };

/** Finds a WebGPU entry point: the page's (or Worker's) navigator.gpu, or Dawn in Node (see ../host). */
async function gpuEntry(): Promise<GPU | undefined> {
  const nav = (globalThis as { navigator?: { gpu?: GPU } }).navigator;
  return nav?.gpu ?? host.gpu();
}

/** Dispatches recorded for one submission: the encoder, buffers to give back, staging buffers to map, and what to do once mapped. */
interface Batch { readonly enc: GPUCommandEncoder; readonly temps: GPUBuffer[]; readonly reads: GPUBuffer[]; readonly queries: GPUQuerySet[]; readonly done: (() => void)[]; readonly pinned: object[]; readonly held: [object, GPUBuffer][] }

export class GpuDevice {
  private readonly programs = new Map<string, Program>();
  private readonly shaders = new Map<string, GPUComputePipeline>();
  /** Resident copies of immutable chunks, in least-recently-used order (a Map keeps insertion order). */
  private readonly resident = new Map<object, GPUBuffer>();
  private residentBytes = 0;
  /** Resident copies that are the only copy of their chunk (never evicted; freed with the chunk). */
  private readonly held = new Set<object>();
  /** Resident copies bound in batches in flight (not evicted until they are read back), with their counts. */
  private readonly pinned = new Map<object, number>();
  private readonly pool = new Map<string, GPUBuffer[]>();
  private lostReason: string | undefined;
  /** Programs compiled and tasks run, for reports and tests. */
  readonly stats = { compiled: 0, tasks: 0, submits: 0, bytesUp: 0, bytesDown: 0, residentHits: 0, /** GPU time of the dispatches, where the adapter has timestamp queries. */ kernelNs: 0 };

  // `entry` keeps Dawn's instance alive in Node: collecting it while the device lives crashes the process.
  /** Whether reductions combine with subgroup operations (off after a self-test they failed). */
  private subgroups: boolean;

  private constructor(private entry: GPU | undefined, private readonly device: GPUDevice, readonly info: GpuInfo) {
    void device.lost.then((l) => { this.lostReason = l.message || l.reason || 'lost'; });
    this.subgroups = info.subgroups;
  }

  /** Whether reductions use subgroup operations. */
  get usesSubgroups(): boolean { return this.subgroups; }

  /**
   * A device on the first adapter, or undefined where WebGPU has none: the
   * one place that probes the adapter's features and limits.
   * `subgroups: false` keeps reductions on the workgroup tree.
   */
  static async open(opts: { subgroups?: boolean } = {}): Promise<GpuDevice | undefined> {
    const gpu = await gpuEntry();
    if (!gpu) return undefined;
    const adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
    if (!adapter) return undefined;
    const lim = adapter.limits;
    const want = (f: string, on = true): GPUFeatureName[] => (on && adapter.features.has(f) ? [f as GPUFeatureName] : []);
    const requiredFeatures = [...want('subgroups', opts.subgroups !== false), ...want('shader-f16'), ...want('timestamp-query')];
    const device = await adapter.requestDevice({
      requiredFeatures,
      requiredLimits: {
        maxStorageBufferBindingSize: lim.maxStorageBufferBindingSize,
        maxBufferSize: lim.maxBufferSize,
        maxStorageBuffersPerShaderStage: lim.maxStorageBuffersPerShaderStage,
      },
    });
    const ai = adapter.info as GPUAdapterInfo | undefined;
    const info: GpuInfo = {
      adapter: [ai?.vendor, ai?.architecture, ai?.device, ai?.description].filter(Boolean).join(' ') || 'unknown adapter',
      features: [...adapter.features].sort(),
      maxStorageBufferBindingSize: device.limits.maxStorageBufferBindingSize,
      maxComputeWorkgroupsPerDimension: device.limits.maxComputeWorkgroupsPerDimension,
      maxBufferSize: device.limits.maxBufferSize,
      maxStorageBuffersPerShaderStage: device.limits.maxStorageBuffersPerShaderStage,
      subgroups: device.features.has('subgroups'),
      f16: device.features.has('shader-f16'),
      timestamps: device.features.has('timestamp-query'),
    };
    return new GpuDevice(gpu, device, info);
  }

  get lost(): boolean { return this.lostReason !== undefined; }

  /** A software adapter (SwiftShader): correct, but slower than the WASM path. */
  get software(): boolean { return /swiftshader|llvmpipe|lavapipe|software/i.test(this.info.adapter); }

  /** Destroys the device as a GPU reset or driver crash would (tests of recovery use it). */
  lose(): void { this.device.destroy(); }

  /**
   * Runs a small kernel (Philox bits, integer and float32 arithmetic, a
   * reduction) and compares it with the reference interpreter: an adapter
   * that gets it wrong is not used. Returns what differed, or undefined.
   */
  async selfTest(): Promise<string | undefined> {
    const failed = await this.check();
    if (!failed || !this.subgroups) return failed;
    // an adapter whose subgroups are not runs of consecutive invocations: reduce in the tree
    this.subgroups = false;
    this.programs.clear();
    return this.check();
  }

  private async check(): Promise<string | undefined> {
    const n = 300;
    const i = G.iota([n], 0);
    const bits = G.binary('bitwise_xor', G.random('bits', [7, 11], 3, [n]), G.cast(i, 'uint32'), 'uint32');
    const f = G.unary('sqrt', G.binary('add', G.cast(i, 'float32'), G.constant(0.5, 'float32'), 'float32'), 'float32');
    const m = G.reduce('max', G.binary('mod', G.cast(i, 'int32'), G.constant(37, 'int32'), 'int32'), [0], false, 'int32');
    // one term per invocation is distinct, so a subgroup result left in the wrong slot shows
    const sq = G.reduce('sum', G.binary('multiply', G.cast(i, 'int32'), G.cast(i, 'int32'), 'int32'), [0], false, 'int32');
    for (const [node, shape, tol] of [[bits, [n], 0], [f, [n], 2e-7], [m, [], 0], [sq, [], 0]] as const) {
      const step = fuse([node], () => false).at(-1)!;
      if (step.kind !== 'kernel') return 'internal: no kernel';
      const k = step.kernel;
      const red = k.reduce ? k.reduce.vars.map((v) => [0, v.size] as [number, number]) : [];
      const outer = shape.map((d) => [0, d] as [number, number]);
      const size = shape.reduce((a, b) => a * b, 1);
      const got = new ARRAY_CTOR[k.dtype](size) as TypedArray;
      const strides = shape.map((_, j) => shape.slice(j + 1).reduce((a, b) => a * b, 1));
      await this.run({ kernel: k, partial: false, inputs: [], outputs: [{ data: got, dtype: k.dtype, origin: shape.map(() => 0), strides }], outer, red });
      const heap = new ArrayBuffer(size * 8 + 8);
      interpret(k, { inputs: [], outputs: [{ ptr: 0, origin: shape.map(() => 0), strides }], outer, red, partial: false }, heap);
      const want = new ARRAY_CTOR[k.dtype](heap, 0, size) as TypedArray;
      for (let j = 0; j < size; j++) {
        const g = Number(got[j]), w = Number(want[j]);
        if (Math.abs(g - w) > tol * Math.abs(w)) return `${k.dtype} element ${j}: ${g} instead of ${w}`;
      }
    }
    return undefined;
  }

  /** Whether every region of `task` fits in one storage binding (4 bytes per element on the GPU). */
  fits(task: GpuTask): boolean {
    const limit = this.info.maxStorageBufferBindingSize;
    return [...task.inputs, ...task.outputs].every((r) => r.data.length * 4 <= limit);
  }

  /** Why `k` cannot run here, or undefined when it can. */
  supports(k: Kernel): string | undefined {
    if (this.lostReason) return `the device was lost (${this.lostReason})`;
    // params, the inputs and up to two outputs, each a storage binding
    if (k.inputs.length + 3 > this.info.maxStorageBuffersPerShaderStage) return `${k.inputs.length} inputs need more storage bindings than the adapter's ${this.info.maxStorageBuffersPerShaderStage}`;
    return gpuSupport(k);
  }

  private async program(k: Kernel, partial: boolean): Promise<Program> {
    const key = `${programKey(k)}|${partial}`;
    let p = this.programs.get(key);
    if (!p) {
      const { code, layout } = renderWgsl(k, partial, { subgroups: this.subgroups });
      p = { pipeline: await this.compile(code, 'the WGSL of a kernel', k.inputs.length, layout.outTypes.length), layout };
      this.programs.set(key, p);
    }
    return p;
  }

  /** A hand-written shader from shaders/, compiled once per set of values of its overridable constants. */
  private async shader(name: string, constants: Readonly<Record<string, number>> = {}): Promise<GPUComputePipeline> {
    const key = `${name}${JSON.stringify(constants)}`;
    let p = this.shaders.get(key);
    if (!p) {
      const io = SHADER_IO[name];
      if (!io) throw new Error(`internal: no binding layout for shaders/${name}.wgsl`);
      p = await this.compile(await loadShader(name), `shaders/${name}.wgsl`, io[0], io[1], constants);
      this.shaders.set(key, p);
    }
    return p;
  }

  /**
   * Runs the hand-written shader shaders/<name>.wgsl once on whole buffers
   * (for routines that are no kernel, as runtime/knn_gpu.ts): `params` at
   * binding 0, then `inputs`, then `outputs` (all of one length), which are
   * read back whole; `constants` set its overridable constants; `grid`
   * workgroups are dispatched.
   */
  async runShader(name: string, params: Int32Array, inputs: readonly ShaderBuffer[], outputs: readonly ShaderBuffer['data'][],
    grid: readonly [number, number], constants: Readonly<Record<string, number>> = {}): Promise<void> {
    if (this.lostReason) throw new Error(`WebGPU device lost: ${this.lostReason}`);
    const n = outputs[0]?.length ?? 0;
    if (outputs.some((o) => o.length !== n)) throw new Error('internal: the outputs of one shader run differ in length');
    const dtype = (a: ShaderBuffer['data']): DType => (a instanceof Float32Array ? 'float32' : a instanceof Int32Array ? 'int32' : 'uint32');
    const region = (b: ShaderBuffer): Region => ({ data: b.data, dtype: dtype(b.data), origin: [0], strides: [1], ...(b.key ? { key: b.key } : {}) });
    const pipeline = await this.shader(name, constants);
    const batch = this.batch();
    try {
      this.dispatch(batch, pipeline, params, inputs.map(region), outputs.map((o) => [region({ data: o }), wtype(dtype(o))] as const), grid, [[0, n]]);
    } catch (e) {
      await this.device.popErrorScope().catch(() => undefined);
      this.settle(batch);
      throw e;
    }
    await this.submit(batch);
  }

  /**
   * Compiles a shader whose bindings are params (0), `inputs` read-only
   * buffers, then `outputs` writable ones, with that layout spelled out: an
   * 'auto' layout drops bindings the code never reads (a kernel input that
   * only decides the task's shape), and binding them would be invalid.
   * `constants` give the shader's `override` declarations their values.
   */
  private async compile(code: string, what: string, inputs: number, outputs: number,
    constants: Readonly<Record<string, number>> = {}): Promise<GPUComputePipeline> {
    const dev = this.device;
    dev.pushErrorScope('validation');
    const module = dev.createShaderModule({ code });
    const entries: GPUBindGroupLayoutEntry[] = Array.from({ length: 1 + inputs + outputs }, (_, i) => ({
      binding: i, visibility: GPUShaderStage.COMPUTE, buffer: { type: i <= inputs ? 'read-only-storage' : 'storage' },
    }));
    const layout = dev.createPipelineLayout({ bindGroupLayouts: [dev.createBindGroupLayout({ entries })] });
    const pipeline = dev.createComputePipeline({ layout, compute: { module, entryPoint: 'main', constants: { ...constants } } });
    const error = await this.device.popErrorScope();
    if (error) throw new Error(`internal: ${what} does not compile: ${error.message}`);
    this.stats.compiled++;
    return pipeline;
  }

  private buffer(bytes: number, usage: number): GPUBuffer {
    const size = Math.max(16, 2 ** Math.ceil(Math.log2(Math.max(4, bytes))));
    const free = this.pool.get(`${usage}:${size}`);
    return free?.pop() ?? this.device.createBuffer({ size, usage });
  }

  private release(b: GPUBuffer): void {
    const key = `${b.usage}:${b.size}`;
    let free = this.pool.get(key);
    if (!free) this.pool.set(key, (free = []));
    if (free.length < 8) free.push(b);
    else b.destroy();
  }

  /** Runs one task: uploads its inputs, dispatches, and writes its box of each output back. */
  async run(task: GpuTask): Promise<void> {
    await this.runAll([task]);
  }

  /**
   * Runs tasks that do not depend on each other in one submission: their
   * dispatches are recorded into one command buffer, submitted once, and
   * their outputs read back together (each submission and read-back is a
   * round trip to the GPU, which batching pays once).
   */
  async runAll(tasks: readonly GpuTask[]): Promise<void> {
    if (this.lostReason) throw new Error(`WebGPU device lost: ${this.lostReason}`);
    const batch = this.batch();
    try {
      for (const task of tasks) await this.record(task, batch);
    } catch (e) {
      // nothing of it was submitted: give its buffers back
      await this.device.popErrorScope().catch(() => undefined);
      this.settle(batch);
      throw e;
    }
    await this.submit(batch);
  }

  /** Records one task's dispatch into `batch`. */
  private async record(task: GpuTask, batch: Batch): Promise<void> {
    const { kernel: k } = task;
    if (task.inputs.length !== k.inputs.length) throw new Error(`internal: a task of a kernel with ${k.inputs.length} inputs got ${task.inputs.length}`);
    const count = task.outer.reduce((a, [lo, hi]) => a * Math.max(0, hi - lo), 1);
    if (count === 0) return;
    const mm = matmulOf(k);
    if (mm && k.dtype === 'float32') return this.matmul(task, mm, batch);
    const { pipeline, layout } = await this.program(k, task.partial);
    const groups = layout.perOutput === 'workgroup' ? count : Math.ceil(count / WG);
    const maxDim = this.info.maxComputeWorkgroupsPerDimension;
    const gridX = Math.min(groups, maxDim);
    const gridY = Math.ceil(groups / gridX);
    if (gridY > maxDim) throw new RangeError(`task of ${count} outputs is too large for one dispatch`);

    const params = new Int32Array(layout.slots);
    const put = (b: GpuLayout['inputs'][number], r: Region) => {
      for (let d = 0; d < b.rank; d++) { params[b.origin + d] = r.origin[d]!; params[b.strides + d] = r.strides[d]!; }
    };
    layout.inputs.forEach((b, i) => put(b, task.inputs[i]!));
    layout.outputs.forEach((b, i) => put(b, task.outputs[i]!));
    task.outer.forEach(([lo, hi], i) => { params[layout.outer + 2 * i] = lo; params[layout.outer + 2 * i + 1] = hi - lo; });
    task.red.forEach(([lo, hi], i) => { params[layout.red + 2 * i] = lo; params[layout.red + 2 * i + 1] = Math.max(0, hi - lo); });
    params[layout.countSlot] = count;
    params[layout.gridSlot] = gridX;
    params[layout.redCountSlot] = task.red.reduce((a, [lo, hi]) => a * Math.max(0, hi - lo), 1);
    if (layout.sites !== undefined) siteParams(k).forEach((site, i) => site.forEach((v, j) => { params[layout.sites! + 3 * i + j] = v | 0; }));
    this.dispatch(batch, pipeline, params, task.inputs, task.outputs.map((r, i) => [r, layout.outTypes[i]!]), [gridX, gridY], task.outer);
  }

  /**
   * A float32 matrix product, batched or not, through the hand-written tiled
   * shader (shaders/matmul.wgsl): one workgroup z per matrix of the task's batch box.
   */
  private async matmul(task: GpuTask, mm: MatmulInfo, batch: Batch): Promise<void> {
    const r = task.outer.length, nb = r - 2;
    const [[i0, i1], [j0, j1]] = task.outer.slice(nb) as [[number, number], [number, number]];
    const [k0, k1] = task.red[0]!;
    const a = task.inputs[mm.a]!, b = task.inputs[mm.b]!, c = task.outputs[0]!;
    const mats = task.outer.slice(0, nb).reduce((n, [lo, hi]) => n * (hi - lo), 1);
    if (mats > this.info.maxComputeWorkgroupsPerDimension) throw new RangeError(`a batch of ${mats} matrices is too large for one dispatch`);
    // the matrix axes of each operand, then per batch axis: first index, extent, origin and stride of a, b, c
    const matrix = (x: Region) => [...x.origin.slice(-2), ...x.strides.slice(-2)];
    const axes = task.outer.slice(0, nb).flatMap(([lo, hi], d) => [lo, hi - lo, ...[a, b, c].flatMap((x) => [x.origin[d]!, x.strides[d]!])]);
    const params = Int32Array.from([i1 - i0, j1 - j0, Math.max(0, k1 - k0), i0, j0, k0, ...matrix(a), ...matrix(b), ...matrix(c), nb, ...axes]);
    this.dispatch(batch, await this.shader('matmul'), params, [a, b], [[c, 'f32']], [Math.ceil((j1 - j0) / 64), Math.ceil((i1 - i0) / 64), mats], task.outer);
  }

  /**
   * A cumulative sum or product of one float32 chunk along `axis`
   * (shaders/scan.wgsl), continuing from `prev`, the previous output chunk
   * along the axis, when there is one.
   */
  async scan(op: 'sum' | 'prod', axis: number, shape: readonly number[], src: Float32Array, dst: Float32Array, prev?: Float32Array): Promise<void> {
    if (this.lostReason) throw new Error(`WebGPU device lost: ${this.lostReason}`);
    const n = shape.reduce((a, b) => a * b, 1);
    if (n === 0) return;
    if (src.length !== n || dst.length !== n) throw new Error(`internal: a scan of shape [${shape}] got ${src.length} and ${dst.length} elements`);
    const len = shape[axis]!;
    const inner = shape.slice(axis + 1).reduce((a, b) => a * b, 1);
    const outer = n / (len * inner);
    const prevLen = prev ? prev.length / (outer * inner) : 0;
    if (!Number.isInteger(prevLen)) throw new Error(`internal: a previous scan chunk of ${prev!.length} elements does not match [${shape}] along axis ${axis}`);
    if (n * 4 > this.info.maxStorageBufferBindingSize) throw new RangeError('too large for one binding');
    const groups = Math.ceil((outer * inner) / WG);
    const gridX = Math.min(groups, this.info.maxComputeWorkgroupsPerDimension);
    const pipeline = await this.shader('scan');
    const params = Int32Array.from([outer, len, inner, prevLen, op === 'prod' ? 1 : 0, gridX]);
    const whole = shape.map((d) => [0, d] as const);
    const cstr = shape.map((_, j) => shape.slice(j + 1).reduce((a, b) => a * b, 1));
    const region = (data: Float32Array): Region => ({ data, dtype: 'float32', origin: shape.map(() => 0), strides: cstr });
    const batch = this.batch();
    this.dispatch(batch, pipeline, params, [region(src), region(prev ?? new Float32Array(1))], [[region(dst), 'f32']], [gridX, Math.ceil(groups / gridX)], whole);
    await this.submit(batch);
  }

  private batch(): Batch {
    this.device.pushErrorScope('validation');
    return { enc: this.device.createCommandEncoder(), temps: [], reads: [], queries: [], done: [], pinned: [], held: [] };
  }

  /**
   * Records into `batch`: uploads params and inputs (binding 0, then 1..n),
   * binds the outputs after them, dispatches `grid` workgroups, and copies
   * the outputs to staging buffers; once the batch is submitted and read
   * back, the box `outer` of each output is written back into its region.
   */
  private dispatch(batch: Batch, pipeline: GPUComputePipeline, params: Int32Array, inputs: readonly Region[], outputs: readonly (readonly [Region, WType])[], grid: readonly [number, number] | readonly [number, number, number], outer: GpuTask['outer']): void {
    const dev = this.device;
    const STORAGE = GPUBufferUsage.STORAGE, COPY_DST = GPUBufferUsage.COPY_DST, COPY_SRC = GPUBufferUsage.COPY_SRC;
    const { enc, temps } = batch;
    const upload = (words: ArrayBufferView & { byteLength: number }, usage: number): GPUBuffer => {
      const b = this.buffer(words.byteLength, usage);
      temps.push(b);
      if (words.byteLength) dev.queue.writeBuffer(b, 0, words.buffer, words.byteOffset, words.byteLength);
      this.stats.bytesUp += words.byteLength;
      return b;
    };
    const entries: GPUBindGroupEntry[] = [{ binding: 0, resource: { buffer: upload(params, STORAGE | COPY_DST) } }];
    inputs.forEach((r, i) => {
      if (r.key) { batch.pinned.push(r.key); this.pinned.set(r.key, (this.pinned.get(r.key) ?? 0) + 1); }
      if (r.deviceOnly && !this.resident.has(r.key!)) throw new DeviceCopyLost();
      entries.push({ binding: i + 1, resource: { buffer: r.key ? this.residentOf(r) : upload(widen(r.data, r.dtype), STORAGE | COPY_DST) } });
    });
    const outs = outputs.map(([r, type], i) => {
      const bytes = Math.max(4, r.data.length * 4);
      const b = this.buffer(bytes, STORAGE | COPY_SRC);
      temps.push(b);
      entries.push({ binding: inputs.length + 1 + i, resource: { buffer: b } });
      return { b, bytes, type };
    });
    const times = this.info.timestamps ? dev.createQuerySet({ type: 'timestamp', count: 2 }) : undefined;
    const pass = enc.beginComputePass(times ? { timestampWrites: { querySet: times, beginningOfPassWriteIndex: 0, endOfPassWriteIndex: 1 } } : {});
    pass.setPipeline(pipeline);
    pass.setBindGroup(0, dev.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries }));
    pass.dispatchWorkgroups(grid[0], grid[1], grid[2] ?? 1);
    pass.end();
    // a device-only chunk is not read back: its buffer becomes the chunk's resident copy
    const reads = outs.map((o, i) => {
      if (outputs[i]![0].deviceOnly) return undefined;
      const staging = dev.createBuffer({ size: o.b.size, usage: GPUBufferUsage.MAP_READ | COPY_DST });
      enc.copyBufferToBuffer(o.b, 0, staging, 0, o.b.size);
      batch.reads.push(staging);
      return staging;
    });
    outs.forEach((o, i) => {
      const r = outputs[i]![0];
      if (!r.deviceOnly) return;
      if (!r.key || o.type !== wtype(r.dtype) || WORD[o.type].BYTES_PER_ELEMENT !== INFO[r.dtype].bytes) throw new Error('internal: a device-only chunk that is not a whole 32-bit chunk');
      temps.splice(temps.indexOf(o.b), 1);
      batch.held.push([r.key, o.b]);
    });
    let stamps: GPUBuffer | undefined;
    if (times) {
      const resolved = this.buffer(16, GPUBufferUsage.QUERY_RESOLVE | COPY_SRC);
      temps.push(resolved);
      enc.resolveQuerySet(times, 0, 2, resolved, 0);
      stamps = dev.createBuffer({ size: 16, usage: GPUBufferUsage.MAP_READ | COPY_DST });
      enc.copyBufferToBuffer(resolved, 0, stamps, 0, 16);
      batch.reads.push(stamps);
      batch.queries.push(times);
    }
    batch.done.push(() => {
      reads.forEach((s, i) => {
        if (!s) return;
        const o = outs[i]!;
        const words = new WORD[o.type](s.getMappedRange(0, o.bytes));
        writeBox(outputs[i]![0], words, outer);
        this.stats.bytesDown += o.bytes;
        s.unmap();
        // a whole chunk in the words an upload of it would have: kept as its resident copy
        const r = outputs[i]![0];
        if (r.key && o.type === wtype(r.dtype) && WORD[o.type].BYTES_PER_ELEMENT === INFO[r.dtype].bytes && !this.resident.has(r.key)) {
          temps.splice(temps.indexOf(o.b), 1);
          this.keep(r.key, o.b);
        }
      });
      if (stamps) {
        const [t0, t1] = new BigUint64Array(stamps.getMappedRange(0, 16));
        if (t1! > t0!) this.stats.kernelNs += Number(t1! - t0!);
      }
      this.stats.tasks++;
    });
  }

  /** Submits a batch once, reads back every output of it, and writes them into their regions. */
  private async submit(batch: Batch): Promise<void> {
    const dev = this.device;
    dev.queue.submit([batch.enc.finish()]);
    this.stats.submits++;
    const invalid = await dev.popErrorScope();
    try {
      if (invalid) throw new Error(`internal: a WebGPU dispatch was invalid: ${invalid.message}`);
      try {
        await Promise.all(batch.reads.map((s) => s.mapAsync(GPUMapMode.READ)));
      } catch (e) {
        // a failed readback after the device went away: let the lost promise say so
        await Promise.race([this.device.lost, new Promise((r) => setTimeout(r, 100))]);
        throw e;
      }
      if (this.lostReason) throw new Error(`WebGPU device lost: ${this.lostReason}`);
      for (const f of batch.done) f();
      for (const [key, b] of batch.held.splice(0)) { this.held.add(key); this.keep(key, b); }
    } finally {
      this.settle(batch);
    }
  }

  /** Frees a batch's staging buffers and query sets, and gives its other buffers back to the pool. */
  private settle(batch: Batch): void {
    batch.held.forEach(([, b]) => b.destroy()); // not kept: the batch failed
    for (const k of batch.pinned) { const n = this.pinned.get(k)! - 1; if (n > 0) this.pinned.set(k, n); else this.pinned.delete(k); }
    batch.reads.forEach((s) => s.destroy());
    batch.queries.forEach((q) => q.destroy());
    batch.temps.forEach((b) => this.release(b));
  }

  /** The resident buffer of an immutable region, uploaded on first use. */
  private residentOf(r: Region): GPUBuffer {
    const key = r.key!;
    let b = this.resident.get(key);
    if (b) {
      this.resident.delete(key);
      this.resident.set(key, b);
      this.stats.residentHits++;
      return b;
    }
    const words = widen(r.data, r.dtype);
    b = this.device.createBuffer({ size: Math.max(16, Math.ceil(words.byteLength / 4) * 4), usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
    if (words.byteLength) this.device.queue.writeBuffer(b, 0, words.buffer, words.byteOffset, words.byteLength);
    this.stats.bytesUp += words.byteLength;
    this.keep(key, b);
    return b;
  }

  /** Keeps `b` as the resident copy of `key`, evicting the least recently used copies past the budget. */
  private keep(key: object, b: GPUBuffer): void {
    this.resident.set(key, b);
    this.residentBytes += b.size;
    for (const [k, old] of this.resident) {
      if (this.residentBytes <= RESIDENT_BYTES) break;
      // bound in a batch not yet read back, or the only copy of its chunk
      if (k === key || this.pinned.has(k) || this.held.has(k)) continue;
      this.resident.delete(k);
      this.residentBytes -= old.size;
      old.destroy();
    }
  }

  /** Drops the resident copy of `key` (its chunk was freed). */
  forget(key: object): void {
    this.held.delete(key);
    const b = this.resident.get(key);
    if (!b) return;
    this.resident.delete(key);
    this.residentBytes -= b.size;
    b.destroy();
  }

  /** Frees every buffer and the device (a Node device keeps a core busy until then). */
  destroy(): void {
    for (const free of this.pool.values()) free.forEach((b) => b.destroy());
    this.pool.clear();
    this.programs.clear();
    this.shaders.clear();
    for (const b of this.resident.values()) b.destroy();
    this.resident.clear();
    this.residentBytes = 0;
    this.device.destroy();
    this.entry = undefined; // lets a Node process exit
  }
}

/** The text of shaders/<name>.wgsl (read from the package in Node, fetched beside the page in a browser). */
async function loadShader(name: string): Promise<string> {
  return host.readText(new URL(`../../shaders/${name}.wgsl`, import.meta.url));
}

/** The words a chunk lives in on the GPU: 4 bytes per element, narrow integers and bools widened, float16 as its f32 values. */
function widen(data: TypedArray, d: DType): Float32Array | Int32Array | Uint32Array {
  if (d === 'float16') return decodeHalf(data as Uint16Array);
  const W = WORD[wtype(d)];
  if (data instanceof W) return data.buffer instanceof ArrayBuffer ? data : new W(data);
  const out = new W(data.length);
  for (let i = 0; i < data.length; i++) out[i] = Number(data[i]!);
  return out;
}

/** Copies the task's box of an output from the GPU's words into the region (narrowing to its dtype). */
function writeBox(r: Region, words: Float32Array | Int32Array | Uint32Array, outer: readonly (readonly [number, number])[]): void {
  const big = r.dtype === 'int64', half = r.dtype === 'float16';
  const rank = outer.length;
  if (rank === 1 && r.strides[0] === 1 && !big && !half) {
    // a run of elements: one copy (converting as the assignments below would)
    const lo = outer[0]![0] - r.origin[0]!, hi = outer[0]![1] - r.origin[0]!;
    if (hi > lo) (r.data as Exclude<TypedArray, BigInt64Array | BigUint64Array>).set(words.subarray(lo, hi), lo);
    return;
  }
  const dst = r.data as unknown as { [i: number]: number | bigint };
  const idx = outer.map(([lo]) => lo);
  const count = outer.reduce((a, [lo, hi]) => a * Math.max(0, hi - lo), 1);
  for (let c = 0; c < count; c++) {
    let at = 0;
    for (let i = 0; i < rank; i++) at += (idx[i]! - r.origin[i]!) * r.strides[i]!;
    dst[at] = big ? BigInt(words[at]!) : half ? halfBits(words[at]!) : words[at]!;
    for (let i = rank - 1; i >= 0; i--) { if (++idx[i]! < outer[i]![1]) break; idx[i] = outer[i]![0]; }
  }
}
