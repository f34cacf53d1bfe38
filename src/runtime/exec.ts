// Task execution on one thread: resolves nothing, decides nothing; given a
// task already bound to memory (copies to make, kernel arguments), it runs the
// compiled Program or, for scans, the scan routine, or a named routine of
// ./routines.ts over views of the heap. The same code runs in a
// worker_thread, a Web Worker, or inline on the main thread.

import { ARRAY_CTOR, type DType, type TypedArray } from '../graph/dtype.js';
import { halfBits, halfValue } from '../graph/half.js';
import { type BinaryOp, type ScanOp } from '../graph/ops.js';
import { type Scalar, binaryScalar, castScalar, logaddexp, logaddexp2 } from '../ir/scalar.js';
import type { KernelArgs } from '../ir/args.js';
import { type Layout, mathImports, writeParams } from '../wasm/render.js';
import type { RoutineParams } from '../graph/node.js';
import { regionSpan, runRoutine } from './routines.js';

/** Copy the box `shape` from one strided region to another (element strides, byte pointers). */
export interface Copy {
  readonly itemBytes: number;
  readonly shape: readonly number[];
  readonly src: number;
  readonly srcStrides: readonly number[];
  readonly dst: number;
  readonly dstStrides: readonly number[];
}

export interface KernelJob {
  readonly kind: 'kernel';
  readonly key: string;
  /** The program; a pool sends it with a worker's first job of this key only (the worker keeps an instance per key). */
  readonly module?: WebAssembly.Module;
  readonly layout: Layout;
  readonly copies: readonly Copy[];
  readonly args: KernelArgs;
}

export interface ScanJob {
  readonly kind: 'scan';
  readonly op: ScanOp;
  readonly axis: number;
  readonly inDtype: DType;
  readonly outDtype: DType;
  /** Chunk extent. */
  readonly shape: readonly number[];
  readonly src: number;
  readonly dst: number;
  /** The previous chunk along the axis (same extent except along the axis), if any. */
  readonly prev?: { readonly ptr: number; readonly len: number };
}

/**
 * A region of the heap a routine job reads or writes: its first element's
 * byte address, extent, element strides, and where it lies in its tensor.
 */
export interface HeapRegion {
  readonly dtype: DType;
  readonly ptr: number;
  readonly shape: readonly number[];
  readonly strides: readonly number[];
  readonly origin: readonly number[];
}

/** A named routine (./routines.ts) over regions of the heap, after `copies` gathered the inputs that span chunks. */
export interface RoutineJob {
  readonly kind: 'routine';
  readonly name: string;
  readonly params: RoutineParams;
  readonly copies: readonly Copy[];
  readonly inputs: readonly HeapRegion[];
  readonly output: HeapRegion;
}

/**
 * A kernel job whose parameters are already written in the shared heap at
 * `params` (how a batch travels: a few numbers per job, not its bindings).
 */
export interface BoundJob {
  readonly kind: 'bound';
  readonly key: string;
  readonly copies: readonly Copy[];
  readonly params: number;
}

export type Job = KernelJob | ScanJob | BoundJob | RoutineJob;

export class Executor {
  private readonly instances = new Map<string, WebAssembly.Instance>();
  private readonly imports: WebAssembly.Imports;

  constructor(private readonly memory: WebAssembly.Memory, private readonly paramPtr: number) {
    this.imports = { env: { memory }, math: mathImports() };
  }

  /** Instantiates the program of kernel `key` (once: later jobs name it by key alone). */
  learn(key: string, module: WebAssembly.Module): void {
    if (!this.instances.has(key)) this.instances.set(key, new WebAssembly.Instance(module, this.imports));
  }

  run(job: Job): void {
    if (job.kind === 'scan') return this.scan(job);
    for (const c of job.copies) this.copy(c);
    if (job.kind === 'routine') return this.routine(job);
    if (job.kind === 'kernel' && job.module) this.learn(job.key, job.module);
    const inst = this.instances.get(job.key);
    if (!inst) throw new Error(`internal: no program for kernel ${job.key}`);
    if (job.kind === 'bound') return (inst.exports.run as (p: number) => void)(job.params);
    const view = new BigInt64Array(this.memory.buffer, this.paramPtr, job.layout.slots);
    writeParams(job.layout, job.args, view, 0);
    (inst.exports.run as (p: number) => void)(this.paramPtr);
  }

  private copy(c: Copy): void {
    copyBox(this.memory, c);
  }

  private view(d: DType, ptr: number, n: number): TypedArray {
    return new ARRAY_CTOR[d](this.memory.buffer, ptr, n);
  }

  private routine(j: RoutineJob): void {
    const region = (r: HeapRegion) => ({ ...r, data: this.view(r.dtype, r.ptr, regionSpan(r.shape, r.strides)) });
    runRoutine(j.name, j.params, j.inputs.map(region), region(j.output));
  }

  private scan(j: ScanJob): void {
    const n = j.shape.reduce((a, b) => a * b, 1);
    if (n === 0) return;
    if (j.op !== 'sum' && j.op !== 'prod') { this.accumulate(j, n); return; }
    const src = this.view(j.inDtype, j.src, n);
    const dst = this.view(j.outDtype, j.dst, n);
    const len = j.shape[j.axis]!;
    const inner = j.shape.slice(j.axis + 1).reduce((a, b) => a * b, 1);
    const outer = n / (len * inner);
    const big = j.outDtype === 'int64';
    // float16 as NumPy's half loops: each step in float32, rounded to float16 and stored as its bits
    const half = j.outDtype === 'float16';
    const conv = (v: number | bigint): number | bigint => (big ? BigInt(typeof v === 'bigint' ? v : Math.trunc(Number(v))) : Number(v));
    const read = j.inDtype === 'float16' ? (at: number): number => halfValue(src[at] as number) : (at: number) => conv(src[at]!);
    const prev = j.prev ? this.view(j.outDtype, j.prev.ptr, outer * j.prev.len * inner) : undefined;
    for (let o = 0; o < outer; o++) {
      for (let i = 0; i < inner; i++) {
        const last = prev?.[(o * j.prev!.len + j.prev!.len - 1) * inner + i];
        let acc: number | bigint = last === undefined ? (j.op === 'sum' ? conv(0) : conv(1)) : half ? halfValue(last as number) : last;
        for (let k = 0; k < len; k++) {
          const at = (o * len + k) * inner + i;
          const v = read(at);
          acc = j.op === 'sum' ? (acc as number) + (v as number) : (acc as number) * (v as number);
          if (big) acc = BigInt.asIntN(64, acc as unknown as bigint);
          else if (half) { const h = halfBits(Math.fround(acc as number)); acc = halfValue(h); dst[at] = h; continue; }
          else if (j.outDtype === 'float32') acc = Math.fround(acc as number);
          dst[at] = acc as never;
        }
      }
    }
  }

  /**
   * `ufunc.accumulate`: each line starts from its first term (or the previous
   * chunk's last value) and folds every later term in by the op's scalar
   * definition (ir/scalar.ts, the one the interpreter and WASM follow).
   */
  private accumulate(j: ScanJob, n: number): void {
    const d = j.outDtype, op = j.op as Exclude<ScanOp, 'sum' | 'prod'>;
    const src = this.view(j.inDtype, j.src, n), dst = this.view(d, j.dst, n);
    const len = j.shape[j.axis]!;
    const inner = j.shape.slice(j.axis + 1).reduce((a, b) => a * b, 1);
    const outer = n / (len * inner);
    const half = (t: DType) => t === 'float16';
    const load = (a: TypedArray, t: DType, at: number): Scalar => (half(t) ? halfValue(a[at] as number) : a[at]!);
    const read = j.inDtype === d ? (at: number) => load(src, d, at) : (at: number) => castScalar(load(src, j.inDtype, at), j.inDtype, d);
    const store = half(d) ? (at: number, v: Scalar) => { dst[at] = halfBits(v as number); } : (at: number, v: Scalar) => { dst[at] = v as never; };
    const f = scanStep(op, d);
    const prev = j.prev ? this.view(d, j.prev.ptr, outer * j.prev.len * inner) : undefined;
    for (let o = 0; o < outer; o++) {
      for (let i = 0; i < inner; i++) {
        let acc: Scalar | undefined = prev ? load(prev, d, (o * j.prev!.len + j.prev!.len - 1) * inner + i) : undefined;
        for (let k = 0; k < len; k++) {
          const at = (o * len + k) * inner + i;
          acc = acc === undefined ? read(at) : f(acc, read(at));
          store(at, acc);
        }
      }
    }
  }
}

/** One step of an accumulate in dtype `d`: the op's scalar definition, logaddexp(2) as NumPy's npy_logaddexp(2). */
function scanStep(op: Exclude<ScanOp, 'sum' | 'prod'>, d: DType): (a: Scalar, b: Scalar) => Scalar {
  if (op === 'logaddexp' || op === 'logaddexp2') {
    const g = op === 'logaddexp' ? logaddexp : logaddexp2;
    const round = d === 'float32' ? Math.fround : (v: number) => v;
    return (a, b) => round(g(a as number, b as number));
  }
  return (a, b) => binaryScalar(op as BinaryOp, a, b, d);
}

/** Copies one box between strided regions of `memory` (the gathering a task's inputs may need). */
export function copyBox(memory: WebAssembly.Memory, c: Copy): void {
  const u8 = new Uint8Array(memory.buffer);
  const n = c.shape.reduce((a, b) => a * b, 1);
  if (n === 0) return;
  // Merge trailing axes that are contiguous on both sides (whole rows of a row-major box are one copy),
  // then copy runs along the merged last axis.
  const shape = [...c.shape], ss = [...c.srcStrides], ds = [...c.dstStrides];
  while (shape.length > 1) {
    const r = shape.length;
    if (ss[r - 1] !== 1 || ds[r - 1] !== 1 || ss[r - 2] !== shape[r - 1] || ds[r - 2] !== shape[r - 1]) break;
    shape.splice(r - 2, 2, shape[r - 2]! * shape[r - 1]!);
    ss.splice(r - 2, 2, 1); ds.splice(r - 2, 2, 1);
  }
  const r = shape.length;
  const last = r ? shape[r - 1]! : 1;
  const rowContig = r === 0 || (ss[r - 1] === 1 && ds[r - 1] === 1);
  const inner = rowContig ? last : 1;
  const outerDims = rowContig ? shape.slice(0, Math.max(0, r - 1)) : shape;
  const idx = new Array<number>(outerDims.length).fill(0);
  const count = outerDims.reduce((a, b) => a * b, 1);
  const b = c.itemBytes;
  for (let k = 0; k < count; k++) {
    let s = c.src, d = c.dst;
    for (let i = 0; i < idx.length; i++) { s += idx[i]! * ss[i]! * b; d += idx[i]! * ds[i]! * b; }
    u8.copyWithin(d, s, s + inner * b);
    for (let i = idx.length - 1; i >= 0; i--) { if (++idx[i]! < outerDims[i]!) break; idx[i] = 0; }
  }
}
