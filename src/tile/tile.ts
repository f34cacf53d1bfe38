// Tiling: splits every fused kernel over chunk grids into Tasks. A task covers
// one chunk of the output and, for a reduction split across chunks, one block
// of the reduced axes; such partial results land in a partials tensor that a
// combine kernel folds in a fixed order (a two-level tree), then applies the
// epilogue. A matrix product (numpywren's blocked GEMM) also cuts each output
// chunk into row x column blocks, so that every worker has work, and its K
// into ranges its GEMM routine sums exactly. Interval analysis of each load
// gives the box of each input a task reads, and so its dependencies.
// Besides kernel tasks there are two kinds that run no generated code: scans
// (a chunk continued from the previous one along the axis) and routine tasks,
// one per call of a routine node (graph/node.ts `routine`): a named,
// hand-written routine with plain parameters reading boxes and writing one
// chunk. A routine task is the general kind: a tiled factorization (POTRF,
// TRSM, SYRK, GEMM over tiles) is a routine node whose calls read tiles that
// earlier calls of the same node wrote, and its DAG follows from those reads.
// In: Steps from fuse. Out: a Plan of tensors, kernels and tasks (plain data).

import { type DType } from '../graph/dtype.js';
import type { Node, RoutineParams } from '../graph/node.js';
import { type ScanOp, isArgReduce } from '../graph/ops.js';
import { MemoryError, numChunks, shapeStr } from '../graph/shape.js';
import type { Step } from '../fuse/fuse.js';
import { type Interval, bounds } from '../ir/interval.js';
import { type Expr, type Kernel, type RVar, SUM_BLOCK, children, intern, ivar } from '../ir/ir.js';
import { matmulOf } from '../ir/matmul.js';

export type Range = readonly [number, number];

export interface TensorSpec {
  readonly id: number;
  readonly dtype: DType;
  readonly shape: readonly number[];
  readonly chunk: readonly number[];
  /** The graph node this tensor materialises (absent for partials). */
  readonly node?: Node;
}

export interface Read {
  readonly tensor: number;
  /** [lo, hi) per axis of the tensor. */
  readonly box: readonly Range[];
}

export interface Write {
  readonly tensor: number;
  readonly chunk: number;
  /** For partials: the index along the leading (split) axis inside the chunk. */
  readonly row?: number;
}

export interface Task {
  readonly id: number;
  readonly kernel: number;
  readonly outer: readonly Range[];
  readonly red: readonly Range[];
  readonly partial: boolean;
  readonly reads: readonly Read[];
  readonly writes: readonly Write[];
  readonly deps: readonly number[];
}

export interface ScanTask {
  readonly id: number;
  readonly scan: { readonly op: ScanOp; readonly axis: number };
  readonly input: number;
  readonly output: number;
  /** Chunk index (in the output grid) this task scans; it continues from `prev`. */
  readonly chunk: number;
  readonly prev: number | undefined;
  readonly deps: readonly number[];
}

/** One routine call (runtime/routines.ts names the routines): its reads, and the one chunk it writes. */
export interface RoutineTask {
  readonly id: number;
  readonly routine: { readonly name: string; readonly params: RoutineParams };
  readonly reads: readonly Read[];
  readonly writes: readonly [Write];
  readonly deps: readonly number[];
}

export type AnyTask = Task | ScanTask | RoutineTask;

export interface Plan {
  readonly tensors: TensorSpec[];
  readonly kernels: Kernel[];
  readonly tasks: AnyTask[];
  /** Tensor id of each requested node. */
  readonly outputs: Map<Node, number>;
}

export const isScanTask = (t: AnyTask): t is ScanTask => 'scan' in t;
export const isRoutineTask = (t: AnyTask): t is RoutineTask => 'routine' in t;
export const isKernelTask = (t: AnyTask): t is Task => 'kernel' in t;

/** Origin and extent of chunk `c` (linear index) of a grid. */
export function chunkBox(shape: readonly number[], chunk: readonly number[], c: number): Range[] {
  const n = numChunks(shape, chunk);
  const box: Range[] = new Array(shape.length);
  for (let i = shape.length - 1; i >= 0; i--) {
    const k = c % n[i]!;
    c = Math.floor(c / n[i]!);
    const lo = k * chunk[i]!;
    box[i] = [lo, Math.min(shape[i]!, lo + chunk[i]!)];
  }
  return box;
}

/** Linear indices of the chunks a box touches. */
export function chunksOf(shape: readonly number[], chunk: readonly number[], box: readonly Range[]): number[] {
  const n = numChunks(shape, chunk);
  let out = [0];
  for (let i = 0; i < shape.length; i++) {
    const [lo, hi] = box[i]!;
    if (hi <= lo) return [];
    const a = Math.floor(lo / chunk[i]!), b = Math.floor((hi - 1) / chunk[i]!);
    const next: number[] = [];
    for (const o of out) for (let k = a; k <= b; k++) next.push(o * n[i]! + k);
    out = next;
  }
  return out;
}

function product<T>(lists: T[][]): T[][] {
  return lists.reduce<T[][]>((acc, l) => acc.flatMap((a) => l.map((x) => [...a, x])), [[]]);
}

function splits(size: number, chunk: number): Range[] {
  if (size === 0) return [[0, 0]];
  const out: Range[] = [];
  for (let lo = 0; lo < size; lo += chunk) out.push([lo, Math.min(size, lo + chunk)]);
  return out;
}

/** Every load of input i, with the reduce variables' full ranges for nested reductions. */
function readBoxes(k: Kernel, outer: readonly Range[], red: readonly Range[]): (Range[] | undefined)[] {
  const vars = new Map<number, Interval>();
  outer.forEach(([lo, hi], i) => vars.set(i, [lo, hi - 1]));
  k.reduce?.vars.forEach((v, i) => vars.set(v.id, [red[i]![0], red[i]![1] - 1]));
  const boxes: (Range[] | undefined)[] = k.inputs.map(() => undefined);
  const seen = new Set<Expr>();
  const walk = (e: Expr) => {
    if (seen.has(e)) return;
    seen.add(e);
    if (e.k === 'reduce') e.vars.forEach((v) => { if (!vars.has(v.id)) vars.set(v.id, [0, v.size - 1]); });
    if (e.k === 'load') {
      const shape = k.inputs[e.input]!.shape;
      const b = e.index.map((ix, ax) => {
        const [lo, hi] = bounds(ix, vars);
        return [Math.max(0, lo), Math.min(shape[ax]!, hi + 1)] as Range;
      });
      // a load that reaches nothing of its input here (a concat's other part, read in a branch not taken) widens no box
      if (b.some(([lo, hi]) => hi <= lo)) { children(e).forEach(walk); return; }
      const prev = boxes[e.input];
      boxes[e.input] = prev ? prev.map(([lo, hi], ax) => [Math.min(lo, b[ax]![0]), Math.max(hi, b[ax]![1])] as Range) : b;
    }
    children(e).forEach(walk);
  };
  if (k.reduce) walk(k.reduce);
  walk(k.epilogue);
  return boxes;
}

/** The most chunks one array of a plan may have (a task is some hundred bytes of host memory). */
export const MAX_TASKS = 1_000_000;

/** Splits the steps into tasks. `materialised` gives the tensor id of nodes stored before this plan. */
/**
 * Partial results one combine task folds at most, by default: more fold in
 * a tree of combines, each level's tasks folding FAN_IN rows of the one
 * below into a row (Dask's split_every), so that no task reads thousands of
 * pieces (a reduction of 1e10 elements makes ten thousand partials).
 */
export const FAN_IN = 64;

export function tile(steps: readonly Step[], outputs: readonly Node[], existing: (n: Node) => TensorSpec | undefined, fanIn = FAN_IN): Plan {
  if (!Number.isInteger(fanIn) || fanIn < 2) throw new RangeError(`the combine fan-in must be an integer of at least 2, got ${fanIn}`);
  const tensors: TensorSpec[] = [];
  const kernels: Kernel[] = [];
  const tasks: AnyTask[] = [];
  const byNode = new Map<Node, number>();
  /** Producing tasks of each tensor's chunks. */
  const producers = new Map<number, Map<number, number[]>>();

  const tensorOf = (n: Node): number => {
    const have = byNode.get(n);
    if (have !== undefined) return have;
    const ex = existing(n);
    const spec: TensorSpec = ex ?? { id: tensors.length, dtype: n.dtype, shape: n.shape, chunk: n.chunk, node: n };
    const t: TensorSpec = { ...spec, id: tensors.length, node: n };
    tensors.push(t);
    byNode.set(n, t.id);
    return t.id;
  };
  const newTensor = (dtype: DType, shape: number[], chunk: number[]): number => {
    tensors.push({ id: tensors.length, dtype, shape, chunk });
    return tensors.length - 1;
  };
  const depsOf = (reads: readonly Read[]): number[] => {
    const deps = new Set<number>();
    for (const r of reads) {
      const t = tensors[r.tensor]!;
      const prod = producers.get(r.tensor);
      if (!prod) continue;
      for (const c of chunksOf(t.shape, t.chunk, r.box)) for (const p of prod.get(c) ?? []) deps.add(p);
    }
    return [...deps];
  };
  const addTask = (kernel: number, outer: Range[], red: Range[], partial: boolean, inputs: number[], writes: Write[]) => {
    const k = kernels[kernel]!;
    const boxes = readBoxes(k, outer, red);
    const reads: Read[] = [];
    // reads[i] belongs to kernel input i; an input no load reaches reads an empty box.
    boxes.forEach((b, i) => reads.push({ tensor: inputs[i]!, box: b ?? tensors[inputs[i]!]!.shape.map(() => [0, 0] as Range) }));
    const task: Task = { id: tasks.length, kernel, outer, red, partial, reads, writes, deps: depsOf(reads) };
    tasks.push(task);
    for (const w of writes) {
      let m = producers.get(w.tensor);
      if (!m) producers.set(w.tensor, (m = new Map()));
      const ids = m.get(w.chunk);
      if (ids) ids.push(task.id);
      else m.set(w.chunk, [task.id]);
    }
  };

  for (const step of steps) {
    const out = tensorOf(step.node);
    const spec = tensors[out]!;
    // Each chunk of a step is a task (or more): a grid past MAX_TASKS would exhaust the host's memory in plans alone.
    const count = numChunks(spec.shape, spec.chunk).reduce((a, b) => a * b, 1);
    if (count > MAX_TASKS) throw new MemoryError(`an array of shape ${shapeStr(spec.shape)} in chunks of ${shapeStr(spec.chunk)} makes ${count} tasks, past the ${MAX_TASKS} one plan may hold: use a larger chunkSize`);
    const ins = step.inputs.map(tensorOf);
    if (step.kind === 'routine') {
      // calls come in dependency order: a read of the node's own tiles depends on the calls that wrote them
      for (const call of step.node.attrs.calls) {
        const reads: Read[] = call.reads.map((r) => ({ tensor: r.input === ins.length ? out : ins[r.input]!, box: r.box }));
        const id = tasks.length;
        const routine = { name: call.routine, params: call.params };
        tasks.push({ id, routine, reads, writes: [{ tensor: out, chunk: call.chunk }], deps: depsOf(reads) });
        let m = producers.get(out);
        if (!m) producers.set(out, (m = new Map()));
        m.set(call.chunk, [id]);
      }
      continue;
    }
    if (step.kind === 'scan') {
      const { op, axis } = step.node.attrs;
      const grid = numChunks(spec.shape, spec.chunk);
      const total = grid.reduce((a, b) => a * b, 1);
      const stride = grid.slice(axis + 1).reduce((a, b) => a * b, 1);
      for (let c = 0; c < total; c++) {
        const pos = Math.floor(c / stride) % grid[axis]!;
        const prevChunk = pos > 0 ? c - stride : undefined;
        const box = chunkBox(spec.shape, spec.chunk, c);
        const deps = depsOf([{ tensor: ins[0]!, box }]);
        const prevTask = prevChunk === undefined ? undefined : producers.get(out)?.get(prevChunk)?.[0];
        const id = tasks.length;
        tasks.push({ id, scan: { op, axis }, input: ins[0]!, output: out, chunk: c, prev: prevChunk, deps: prevTask === undefined ? deps : [...deps, prevTask] });
        let m = producers.get(out);
        if (!m) producers.set(out, (m = new Map()));
        m.set(c, [id]);
      }
      continue;
    }
    const k = step.kernel;
    const outerChunks = product(spec.shape.map((d, i) => splits(d, spec.chunk[i]!)));
    const red = k.reduce;
    const mm = matmulOf(k);
    // The GEMM routine keeps one group of the blocked sum per output: longer K ranges split.
    const redChunk = (v: RVar) => Math.max(1, mm ? Math.min(v.chunk, SUM_BLOCK * SUM_BLOCK) : v.chunk);
    const redSplits = red ? product(red.vars.map((v) => splits(v.size, redChunk(v)))) : [[]];
    // A matrix product cuts each output chunk further into blocks, so that every worker has work.
    const blocks = mm ? matmulBlocks(outerChunks, redSplits) : (outer: Range[]) => [outer];
    if (redSplits.length <= 1) {
      const ki = kernels.push(k) - 1;
      const full = red ? red.vars.map((v) => [0, v.size] as Range) : [];
      outerChunks.forEach((outer, c) => blocks(outer).forEach((b) => addTask(ki, b, full, false, ins, [{ tensor: out, chunk: c }])));
      continue;
    }
    // Split reduction: partial accumulators [nsplit, ...shape], then one combine task per output chunk.
    let ns = redSplits.length;
    const pshape = [ns, ...spec.shape], pchunk = [ns, ...spec.chunk];
    const arg = isArgReduce(red!.op);
    let pval = newTensor(arg ? red!.body.dtype : red!.dtype, pshape, pchunk);
    const pidx = arg ? newTensor('int64', pshape, pchunk) : -1;
    const ki = kernels.push(k) - 1;
    outerChunks.forEach((outer, c) => {
      redSplits.forEach((r, s) => {
        const writes: Write[] = [{ tensor: pval, chunk: c, row: s }];
        if (arg) writes.push({ tensor: pidx, chunk: c, row: s });
        blocks(outer).forEach((b) => addTask(ki, b, r, true, ins, writes));
      });
    });
    // More partials than the fan-in: levels of folds, FAN_IN rows into one, in row order. (An arg-reduction's
    // partial index names an element of its input, which a fold would lose: its partials combine in one level.)
    while (!arg && ns > fanIn) {
      const rows = Math.ceil(ns / fanIn);
      const next = newTensor(red!.dtype, [rows, ...spec.shape], [rows, ...spec.chunk]);
      const fi = kernels.push(foldKernel(k, ns)) - 1;
      outerChunks.forEach((outer, c) => {
        for (let j = 0; j < rows; j++) addTask(fi, outer, [[j * fanIn, Math.min(ns, (j + 1) * fanIn)]], true, [pval], [{ tensor: next, chunk: c, row: j }]);
      });
      pval = next;
      ns = rows;
    }
    const combine = combineKernel(k, ns);
    const ci = kernels.push(combine) - 1;
    const cins = arg ? [pval, pidx, ...ins] : [pval, ...ins];
    outerChunks.forEach((outer, c) => addTask(ci, outer, [[0, ns]], false, cins, [{ tensor: out, chunk: c }]));
  }
  const outs = new Map<Node, number>();
  for (const n of outputs) outs.set(n, tensorOf(n));
  return { tensors, kernels, tasks, outputs: outs };
}

/** Tasks a matrix product aims for (a few per core of a small machine) and the least work worth a task. */
const MATMUL_TASKS = 8;
const MATMUL_MIN_TASK_FLOPS = 2 ** 26;

/**
 * Splits each output chunk of a matrix product ([..., rows, cols]) into a grid
 * of row x column blocks: enough blocks that the whole product has about
 * MATMUL_TASKS tasks, none smaller than MATMUL_MIN_TASK_FLOPS. Halving the
 * longer side keeps blocks square-ish, which keeps the packing work (each task
 * packs its rows of A and its columns of B) low.
 */
function matmulBlocks(outerChunks: readonly Range[][], redSplits: readonly Range[][]): (outer: Range[]) => Range[][] {
  const tasks = outerChunks.length * redSplits.length;
  const k = redSplits[0]?.[0] ? redSplits[0][0][1] - redSplits[0][0][0] : 0;
  return (outer) => {
    const r = outer.length;
    const [[i0, i1], [j0, j1]] = [outer[r - 2]!, outer[r - 1]!];
    const batch = outer.slice(0, r - 2).reduce((a, [lo, hi]) => a * (hi - lo), 1);
    const flops = 2 * batch * (i1 - i0) * (j1 - j0) * k;
    const want = Math.max(1, Math.min(Math.ceil(MATMUL_TASKS / tasks), Math.floor(flops / MATMUL_MIN_TASK_FLOPS)));
    let gr = 1, gc = 1;
    while (gr * gc < want) {
      const bm = (i1 - i0) / gr, bn = (j1 - j0) / gc;
      if (bn >= bm && bn >= 32) gc *= 2;
      else if (bm >= 32) gr *= 2;
      else break;
    }
    const cuts = (lo: number, hi: number, g: number, unit: number): Range[] => {
      const step = Math.ceil((hi - lo) / g / unit) * unit;
      const out: Range[] = [];
      for (let a = lo; a < hi; a += step) out.push([a, Math.min(hi, a + step)]);
      return out.length ? out : [[lo, hi]];
    };
    const out: Range[][] = [];
    for (const rows of cuts(i0, i1, gr, 4)) for (const cols of cuts(j0, j1, gc, 8)) out.push([...outer.slice(0, r - 2), rows, cols]);
    return out;
  };
}

function shiftInputs(e: Expr, by: number, memo = new Map<Expr, Expr>()): Expr {
  const hit = memo.get(e);
  if (hit) return hit;
  let r: Expr;
  switch (e.k) {
    case 'const': case 'var': case 'acc': r = e; break;
    case 'load': r = intern({ ...e, input: e.input + by, index: e.index.map((i) => shiftInputs(i, by, memo)) }); break;
    case 'unary': case 'cast': r = intern({ ...e, a: shiftInputs(e.a, by, memo) } as Expr); break;
    case 'binary': r = intern({ ...e, a: shiftInputs(e.a, by, memo), b: shiftInputs(e.b, by, memo) }); break;
    case 'where': r = intern({ ...e, c: shiftInputs(e.c, by, memo), a: shiftInputs(e.a, by, memo), b: shiftInputs(e.b, by, memo) }); break;
    case 'random': r = intern({ ...e, index: shiftInputs(e.index, by, memo) }); break;
    case 'reduce': r = intern({ ...e, body: shiftInputs(e.body, by, memo) }); break;
    default: return e satisfies never;
  }
  memo.set(e, r);
  return r;
}

function substituteAcc(e: Expr, to: Expr, memo = new Map<Expr, Expr>()): Expr {
  if (e.k === 'acc') return to;
  const hit = memo.get(e);
  if (hit) return hit;
  let r: Expr;
  switch (e.k) {
    case 'const': case 'var': case 'load': case 'random': case 'reduce': r = e; break;
    case 'unary': case 'cast': r = intern({ ...e, a: substituteAcc(e.a, to, memo) } as Expr); break;
    case 'binary': r = intern({ ...e, a: substituteAcc(e.a, to, memo), b: substituteAcc(e.b, to, memo) }); break;
    case 'where': r = intern({ ...e, c: substituteAcc(e.c, to, memo), a: substituteAcc(e.a, to, memo), b: substituteAcc(e.b, to, memo) }); break;
    default: return e satisfies never;
  }
  memo.set(e, r);
  return r;
}

/**
 * The kernel that folds `ns` partial accumulators of `k` in order and applies
 * its epilogue. Its inputs are the partials (values, then indices for
 * arg-reductions) followed by the original inputs, which the epilogue may read.
 */
/**
 * A level of a combine tree: `ns` partial accumulators of `k` ([ns, ...shape])
 * folded with the reduction's own combine and left as an accumulator (no
 * epilogue); a partial task of it over rows [lo, hi) writes their fold as one
 * row of the next level. Not for arg-reductions.
 */
export function foldKernel(k: Kernel, ns: number): Kernel {
  const red = k.reduce!;
  const r = k.shape.length;
  const pv: RVar = { id: r, size: ns, chunk: ns };
  const load = intern({ k: 'load', dtype: red.dtype, input: 0, index: [ivar(r), ...k.shape.map((_, i) => ivar(i))] });
  const fold = intern({ k: 'reduce', dtype: red.dtype, op: red.op, vars: [pv], body: load });
  const inputs = [{ dtype: red.dtype, shape: [ns, ...k.shape] }];
  return { inputs, shape: k.shape, chunk: k.chunk, dtype: red.dtype, reduce: fold, epilogue: intern({ k: 'acc', dtype: red.dtype }) };
}

export function combineKernel(k: Kernel, ns: number): Kernel {
  const red = k.reduce!;
  const r = k.shape.length;
  const arg = isArgReduce(red.op);
  const pv: RVar = { id: r, size: ns, chunk: ns };
  const outerIdx = k.shape.map((_, i) => ivar(i));
  const pdt = arg ? red.body.dtype : red.dtype;
  const loadP = intern({ k: 'load', dtype: pdt, input: 0, index: [ivar(r), ...outerIdx] });
  // partial accumulators fold with the reduction's own combine (an arg-reduction's keep the first best)
  const combine = intern({ k: 'reduce', dtype: arg ? 'int64' : red.dtype, op: red.op, vars: [pv], body: loadP });
  const shift = arg ? 2 : 1;
  let epilogue = shiftInputs(k.epilogue, shift);
  if (arg) {
    const idx = intern({ k: 'load', dtype: 'int64', input: 1, index: [intern({ k: 'acc', dtype: 'int64' }), ...outerIdx] });
    epilogue = substituteAcc(epilogue, idx);
  }
  const inputs = [{ dtype: pdt, shape: [ns, ...k.shape] }, ...(arg ? [{ dtype: 'int64' as DType, shape: [ns, ...k.shape] }] : []), ...k.inputs];
  return { inputs, shape: k.shape, chunk: k.chunk, dtype: k.dtype, reduce: combine, epilogue };
}
