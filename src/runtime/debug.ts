// What an execution tells about itself. One execution (an `execute`/`fetch`
// of some tensors) may run several graphs: the stages of iterative tiling,
// whose host operations (sort, selection, ...) run between them, then the
// concrete graph. An `Execution` collects, for all of them, a timeline of
// every task on every thread (the Chrome trace-event format, which
// chrome://tracing and Perfetto open) and the time spent per stage, and
// prints at the DEBUG level asked for:
//   1  one summary per execution: tasks, kernels, host operations, bytes,
//      time per stage;
//   2  also each task, with its thread, start and duration;
//   3  also each plan's graph and the text of its kernels (the IR every
//      device compiles from) and WGSL where a kernel runs on WebGPU.
// The level comes from the run's options (`mt.options.debug`, which a page
// sets), else the environment (`TESSERA_DEBUG`, or `DEBUG` when it is a
// digit), through the host. Times are milliseconds on one clock shared by
// every thread (performance.timeOrigin + performance.now(), per thread).
// In: events from the runtime, the pool's threads and resolve. Out: lines on
// the console, and the report's `trace`.

import { host } from '#host';

export type DebugLevel = 0 | 1 | 2 | 3;

/** The level from an explicit setting, else the environment. */
export function debugLevel(explicit?: number): DebugLevel {
  const pick = (v: unknown): DebugLevel | undefined => {
    const n = typeof v === 'string' ? (/^[0-3]$/.test(v.trim()) ? Number(v) : undefined) : typeof v === 'number' ? v : undefined;
    return n === undefined || !Number.isFinite(n) ? undefined : (Math.max(0, Math.min(3, Math.floor(n))) as DebugLevel);
  };
  return pick(explicit) ?? pick(host.env('TESSERA_DEBUG')) ?? pick(host.env('DEBUG')) ?? 0;
}

/** Milliseconds since the epoch, with sub-millisecond precision, the same on every thread. */
export const now = (): number => performance.timeOrigin + performance.now();

/** One event of the Chrome trace-event format ('X': a complete event with a duration). */
export interface TraceEvent {
  readonly name: string;
  readonly cat: string;
  readonly ph: 'X';
  /** Microseconds since the execution started. */
  readonly ts: number;
  readonly dur: number;
  readonly pid: number;
  readonly tid: number;
  readonly args?: Readonly<Record<string, string | number>>;
}

/** A timeline as chrome://tracing opens it (save `JSON.stringify(trace)` to a file). */
export interface Trace {
  readonly traceEvents: readonly TraceEvent[];
  readonly displayTimeUnit: 'ms';
}

/** Threads of the timeline: the main thread, the pool's workers (1..n), the GPU queue. */
export const MAIN_THREAD = 0;
export const GPU_THREAD = 1000;

/** A host operation that ran between stages (resolve.ts). */
interface HostOp { readonly name: string; readonly ms: number }

const fmtMs = (ms: number): string => (ms >= 100 ? ms.toFixed(0) : ms >= 1 ? ms.toFixed(1) : ms.toFixed(2));
export const fmtBytes = (n: number): string =>
  n >= 2 ** 30 ? `${(n / 2 ** 30).toFixed(2)} GiB` : n >= 2 ** 20 ? `${(n / 2 ** 20).toFixed(1)} MiB` : n >= 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${n} B`;

export class Execution {
  readonly t0 = now();
  private readonly events: TraceEvent[] = [];
  private readonly hostOps: HostOp[] = [];
  /** Milliseconds per stage: planning (fusion and tiling), running tasks, host operations. */
  readonly stages = { plan: 0, tasks: 0, host: 0 };
  readonly totals = {
    runs: 0, tasks: 0, kernels: 0, compiled: 0, reused: 0, bytesAllocated: 0, peakBytes: 0, largest: 0, bytesCopied: 0, gpuTasks: 0, workers: 0,
  };

  constructor(readonly level: DebugLevel) {}

  log(line: string): void { console.error(`tessera: ${line}`); }

  /** A span on thread `tid` from `start` to `end` (epoch ms). */
  span(name: string, cat: string, tid: number, start: number, end: number, args?: Record<string, string | number>): void {
    const ts = Math.round((start - this.t0) * 1000);
    const dur = Math.max(0, Math.round((end - start) * 1000));
    this.events.push({ name, cat, ph: 'X', ts, dur, pid: 1, tid, ...(args ? { args } : {}) });
  }

  hostOp(name: string, start: number, end: number, args?: Record<string, string | number>): void {
    this.hostOps.push({ name, ms: end - start });
    this.stages.host += end - start;
    this.span(name, 'host', MAIN_THREAD, start, end, args);
  }

  trace(): Trace {
    return { traceEvents: [...this.events].sort((a, b) => a.ts - b.ts), displayTimeUnit: 'ms' };
  }

  /** Prints the summary (level 1) and the tasks (level 2). */
  finish(): void {
    if (this.level < 1) return;
    const t = this.totals;
    const ms = now() - this.t0;
    const host = new Map<string, { n: number; ms: number }>();
    for (const h of this.hostOps) { const e = host.get(h.name) ?? { n: 0, ms: 0 }; e.n++; e.ms += h.ms; host.set(h.name, e); }
    const hostText = host.size ? `; host operations ${[...host].map(([k, v]) => `${k}${v.n > 1 ? ` x${v.n}` : ''} ${fmtMs(v.ms)} ms`).join(', ')}` : '';
    const s = (n: number) => (n === 1 ? '' : 's');
    const gpu = t.gpuTasks ? ` and WebGPU (${t.gpuTasks} tasks)` : '';
    this.log(`execution ${fmtMs(ms)} ms: ${t.runs} run${s(t.runs)}, ${t.tasks} tasks of ${t.kernels} kernels `
      + `(${t.compiled} compiled, ${t.reused} plan${s(t.reused)} reused) on ${t.workers} worker${s(t.workers)}${gpu}${hostText}`);
    const st = this.stages;
    this.log(`  stages: plan ${fmtMs(st.plan)} ms, tasks ${fmtMs(st.tasks)} ms, host ${fmtMs(st.host)} ms; `
      + `memory: ${fmtBytes(t.bytesAllocated)} allocated, peak ${fmtBytes(t.peakBytes)}, largest allocation ${fmtBytes(t.largest)}, `
      + `${fmtBytes(t.bytesCopied)} copied between chunks`);
    if (this.level < 2) return;
    for (const e of [...this.events].sort((a, b) => a.ts - b.ts)) {
      if (e.cat !== 'task' && e.cat !== 'gpu') continue;
      const where = e.tid === MAIN_THREAD ? 'main thread' : e.tid === GPU_THREAD ? 'WebGPU' : `worker ${e.tid}`;
      const args = e.args ? Object.entries(e.args).map(([k, v]) => `${k} ${v}`).join(', ') : '';
      this.log(`  ${e.name} on ${where}: +${fmtMs(e.ts / 1000)} ms, ${fmtMs(e.dur / 1000)} ms${args ? ` (${args})` : ''}`);
    }
  }
}
