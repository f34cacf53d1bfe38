// Fusion: turns a graph into the fewest kernels. Every node that need not be
// stored is inlined into its consumers as an index expression, so elementwise
// chains, views (reshape, transpose, slicing, broadcasting, concatenation),
// random and index sources, and reductions with their epilogues become one
// loop nest. Interning makes equal subexpressions one (CSE); nodes the outputs
// do not reach are never visited (dead code is dropped). A float matrix
// product is always stored (it runs as the GEMM routine, which has no
// epilogue), and a float sum that will run over a leading axis adds in one
// lane per block (ir/order.ts).
// In: output nodes and which nodes are already materialised.
// Out: Steps in dependency order, each the Kernel that materialises one node.

import type { DType } from '../graph/dtype.js';
import { type Node, topo } from '../graph/node.js';
import { type ReduceOp, isArgReduce, widens } from '../graph/ops.js';
import { sameShape, sizeOf, stridesOf } from '../graph/shape.js';
import {
  type Expr, type Kernel, type RVar, children, iadd, ic, idiv, imod, imul, intern, isBlockedSum, ivar, konst,
} from '../ir/ir.js';
import { compareSqrt } from '../ir/compare.js';
import { lowerHalf } from '../ir/half.js';
import { MATMUL_LANES } from '../ir/matmul.js';
import { ROWS_LANES, reduceOrder, sequentialSum } from '../ir/order.js';

export interface KernelStep {
  readonly kind: 'kernel';
  readonly node: Node;
  readonly kernel: Kernel;
  /** The materialised node behind each kernel input. */
  readonly inputs: readonly Node[];
}

export interface ScanStep {
  readonly kind: 'scan';
  readonly node: Node<'scan'>;
  readonly inputs: readonly Node[];
}

/** A routine node's calls (graph/node.ts `routine`): tiled as they are, one task per call. */
export interface RoutineStep {
  readonly kind: 'routine';
  readonly node: Node<'routine'>;
  readonly inputs: readonly Node[];
}

export type Step = KernelStep | ScanStep | RoutineStep;

/** Accumulator dtype: float32 sums and products accumulate in float64, as pairwise sums would keep their accuracy. */
function accDType(op: ReduceOp, node: Node): DType {
  if (isArgReduce(op)) return 'int64';
  if (widens(op) && node.dtype === 'float32') return 'float64';
  return node.dtype;
}

/** Nodes that must be stored: outputs, routines and their inputs, and reductions read more than once. */
function mustRealize(order: readonly Node[], outputs: readonly Node[], isMaterialised: (n: Node) => boolean): Set<Node> {
  const consumers = new Map<Node, Node[]>();
  for (const n of order) for (const i of new Set(n.inputs)) consumers.set(i, [...(consumers.get(i) ?? []), n]);
  const out = new Set<Node>(outputs);
  const isCheapSource = (n: Node) => n.op === 'const' || n.op === 'iota' || n.op === 'random';
  // Whether a node's inlined expression holds a reduction, up to the stored nodes: one step per
  // node in topological order (a walk of every ancestor from each node was quadratic in a loop's steps).
  // (Both walks keep their own stack: a loop of a thousand steps is a chain deeper than JS's call stack.)
  const holds = new Map<Node, boolean>();
  const containsReduce = (root: Node): boolean => {
    const stack = [root];
    while (stack.length) {
      const n = stack[stack.length - 1]!;
      if (holds.has(n)) { stack.pop(); continue; }
      // the inputs in order, up to the first that holds one (as `some` would): one not known yet is walked first
      let r: boolean | undefined = n.op === 'reduce' || n.op === 'matmul';
      for (const i of r ? [] : n.inputs) {
        if (out.has(i)) continue;
        const h = holds.get(i);
        if (h === undefined) { stack.push(i); r = undefined; break; }
        if (h) { r = true; break; }
      }
      if (r !== undefined) { holds.set(n, r); stack.pop(); }
    }
    return holds.get(root)!;
  };
  // The longest chain of operations a node's inlined expression holds, up to the stored nodes (capped).
  const depths = new Map<Node, number>();
  const depth = (root: Node): number => {
    const stack = [root];
    while (stack.length) {
      const n = stack[stack.length - 1]!;
      if (depths.has(n)) { stack.pop(); continue; }
      const next = n.inputs.find((i) => !out.has(i) && !depths.has(i));
      if (next) { stack.push(next); continue; }
      let d = 0;
      for (const i of n.inputs) if (!out.has(i)) d = Math.max(d, depths.get(i)!);
      depths.set(n, Math.min(MAX_SHARED_DEPTH + 1, d + (n.op === 'source' || isCheapSource(n) ? 0 : 1)));
      stack.pop();
    }
    return depths.get(root)!;
  };
  for (const n of order) {
    if (isMaterialised(n)) out.add(n);
    if (n.op === 'scan') { out.add(n); out.add(n.inputs[0]!); }
    if (n.op === 'routine') { out.add(n); for (const i of n.inputs) out.add(i); }
    if (n.op === 'matmul') {
      out.add(n.inputs[0]!); out.add(n.inputs[1]!);
      // A float product runs as the GEMM routine, which has no epilogue: store it, and
      // let its consumers read it (an O(n^2) pass beside the O(n^3) product).
      if (n.dtype === 'float32' || n.dtype === 'float64') out.add(n);
    }
    if (n.op === 'gather') out.add(n.inputs[0]!);
    const cs = consumers.get(n) ?? [];
    const reduces = n.op === 'reduce' || n.op === 'matmul';
    if (reduces ? cs.length > 1 : cs.length > 1 && !isCheapSource(n) && containsReduce(n)) out.add(n);
    // A value that holds a reduction and is read at more points than it has (broadcast or
    // gathered: var's mean, through its division and keepdims reshape) is stored: inlined,
    // its reduction would run again for every point that reads it.
    const spread = cs.some((c) => {
      const elementwise = c.op === 'unary' || c.op === 'binary' || c.op === 'where' || c.op === 'cast';
      return c.op === 'expand' || c.op === 'gather' || (elementwise && !sameShape(c.shape, n.shape));
    });
    if (spread && !out.has(n) && (reduces || containsReduce(n))) out.add(n);
    // A long chain read by several consumers is stored, not built again in each: a loop's
    // running value (w = w - step(w)) read by its next step and by a stored product would
    // otherwise redo every earlier step in each kernel.
    if (cs.length > 1 && !out.has(n) && depth(n) > MAX_SHARED_DEPTH) out.add(n);
    containsReduce(n); // now, so that no later query recurses down a long chain
    depth(n);
  }
  capDepth(order, out);
  return out;
}

/** The chain length past which an expression read by more than one consumer is stored (see mustRealize). */
export const MAX_SHARED_DEPTH = 48;

/**
 * The longest chain of nodes one kernel may inline. Lowering, the emitters,
 * interval analysis and the reference interpreter all walk a kernel's
 * expression recursively, so an unbounded chain (a loop of a thousand
 * `v = v * 0.5 + 1` steps) would overflow the stack; storing a node every
 * MAX_FUSED_DEPTH steps bounds every later walk at a cost of one pass over
 * memory per that many operations.
 */
export const MAX_FUSED_DEPTH = 192;

/** Adds to `out` every node whose inlined chain would pass MAX_FUSED_DEPTH (one pass in topological order). */
function capDepth(order: readonly Node[], out: Set<Node>): void {
  const depth = new Map<Node, number>();
  for (const n of order) {
    let d = 0;
    for (const i of n.inputs) if (!out.has(i) && i.op !== 'source') d = Math.max(d, depth.get(i)! + 1);
    if (d >= MAX_FUSED_DEPTH && n.op !== 'source') { out.add(n); d = 0; }
    depth.set(n, d);
  }
}

/** Maps an index over `to` to the index over `from` that a C-order reshape reads. */
function reshapeIndex(idx: readonly Expr[], from: readonly number[], to: readonly number[]): Expr[] {
  // A 0-size result is never indexed; its strides would divide by zero.
  if (to.includes(0) || from.includes(0)) return from.map(() => ic(0));
  let p = 0;
  while (p < from.length && p < to.length && from[p] === to[p]) p++;
  let s = 0;
  while (s < from.length - p && s < to.length - p && from[from.length - 1 - s] === to[to.length - 1 - s]) s++;
  const midTo = to.slice(p, to.length - s), midFrom = from.slice(p, from.length - s);
  const ts = stridesOf(midTo);
  let lin: Expr = ic(0);
  midTo.forEach((d, i) => { if (d !== 1) lin = iadd(lin, imul(idx[p + i]!, ic(ts[i]!))); });
  const fs = stridesOf(midFrom);
  const mid = midFrom.map((d, i) => (d === 1 ? ic(0) : imod(idiv(lin, fs[i]!), d)));
  // The leading axis of the middle needs no modulo: the linear index is in range.
  if (midFrom.length > 0 && midFrom[0] !== 1) mid[0] = idiv(lin, fs[0]!);
  return [...idx.slice(0, p), ...mid, ...idx.slice(to.length - s)];
}

/**
 * The most index expressions one node may be inlined at in one kernel. A
 * node read at several points (a roll's two halves, a stencil's shifted
 * slices) is built once per point, and in a loop of such steps every step
 * multiplies the copies of the ones before (a diffusion loop over roll
 * grows five-fold a step); past this many the node is stored instead, so a
 * kernel's expression stays linear in the graph. Leaves (loads, constants,
 * indices, random draws) and views of them are repeated freely.
 */
export const MAX_READ_POINTS = 8;

/** Thrown by Lowering when `node` is read at more than MAX_READ_POINTS points: fuse stores it, then lowers the reader again. */
class ReadTooOften {
  constructor(readonly node: Node) {}
}

class Lowering {
  readonly inputs: Node[] = [];
  private readonly memo = new Map<string, Expr>();
  /** Distinct index expressions each inlined node has been built at. */
  private readonly points = new Map<Node, number>();
  private readonly cheap = new Map<Node, boolean>();
  readonly reduceNodes = new Map<Expr, Node>();
  private nextVar: number;

  constructor(private readonly root: Node, private readonly realized: Set<Node>) {
    this.nextVar = root.shape.length;
  }

  private inputIndex(n: Node): number {
    let i = this.inputs.indexOf(n);
    if (i < 0) { i = this.inputs.length; this.inputs.push(n); }
    return i;
  }

  expr(n: Node, idx: readonly Expr[]): Expr {
    const key = `${n.id}|${idx.map((e) => exprKey(e)).join(',')}`;
    const hit = this.memo.get(key);
    if (hit) return hit;
    if (n !== this.root && !this.realized.has(n) && !this.isCheap(n)) {
      const p = (this.points.get(n) ?? 0) + 1;
      if (p > MAX_READ_POINTS) throw new ReadTooOften(n);
      this.points.set(n, p);
    }
    const e = this.build(n, idx);
    this.memo.set(key, e);
    return e;
  }

  /** Whether repeating `n` at another point costs nothing that grows: a leaf (a load, a constant, an index, a draw) or a view of one. */
  private isCheap(n: Node): boolean {
    let c = this.cheap.get(n);
    if (c === undefined) {
      const view = n.op === 'expand' || n.op === 'reshape' || n.op === 'permute' || n.op === 'slice';
      c = n.op === 'source' || n.op === 'const' || n.op === 'iota' || n.op === 'random'
        || (view && (this.realized.has(n.inputs[0]!) || this.isCheap(n.inputs[0]!)));
      this.cheap.set(n, c);
    }
    return c;
  }

  private broadcastIdx(n: Node, idx: readonly Expr[], shape: readonly number[]): Expr[] {
    const off = shape.length - n.shape.length;
    return n.shape.map((d, i) => (d === 1 && shape[off + i] !== 1 ? ic(0) : idx[off + i]!));
  }

  private build(n: Node, idx: readonly Expr[]): Expr {
    if (n !== this.root && this.realized.has(n)) {
      return intern({ k: 'load', dtype: n.dtype, input: this.inputIndex(n), index: [...idx] });
    }
    const a = n.attrs as never as Record<string, unknown>;
    switch (n.op) {
      case 'source':
        return intern({ k: 'load', dtype: n.dtype, input: this.inputIndex(n), index: [...idx] });
      case 'const':
        return konst(a.value as number, n.dtype);
      case 'iota':
        return idx[a.axis as number]!;
      case 'random': {
        const st = stridesOf(n.shape);
        let lin: Expr = ic(0);
        idx.forEach((e, i) => { if (n.shape[i] !== 1) lin = iadd(lin, imul(e, ic(st[i]!))); });
        const r = a as { dist: 'uniform'; seed: [number, number]; stream: number };
        return intern({ k: 'random', dtype: n.dtype, dist: r.dist, seed: r.seed, stream: r.stream, index: lin });
      }
      case 'unary':
        return intern({ k: 'unary', dtype: n.dtype, op: a.op as never, a: this.expr(n.inputs[0]!, idx) });
      case 'cast':
        return intern({ k: 'cast', dtype: n.dtype, a: this.expr(n.inputs[0]!, idx) });
      case 'binary': {
        const [x, y] = n.inputs as [Node, Node];
        const ea = this.expr(x, this.broadcastIdx(x, idx, n.shape)), eb = this.expr(y, this.broadcastIdx(y, idx, n.shape));
        return compareSqrt(a.op as never, ea, eb) ?? intern({ k: 'binary', dtype: n.dtype, op: a.op as never, a: ea, b: eb });
      }
      case 'where': {
        const [c, x, y] = n.inputs as [Node, Node, Node];
        return intern({
          k: 'where', dtype: n.dtype,
          c: this.expr(c, this.broadcastIdx(c, idx, n.shape)),
          a: this.expr(x, this.broadcastIdx(x, idx, n.shape)),
          b: this.expr(y, this.broadcastIdx(y, idx, n.shape)),
        });
      }
      case 'reduce': {
        const { op, axes, keepdims } = a as { op: ReduceOp; axes: number[]; keepdims: boolean };
        const x = n.inputs[0]!;
        const vars: RVar[] = axes.map((ax) => ({ id: this.nextVar++, size: x.shape[ax]!, chunk: x.chunk[ax]! }));
        const full: Expr[] = [];
        let o = 0;
        x.shape.forEach((_, i) => {
          const r = axes.indexOf(i);
          if (r >= 0) { full.push(ivar(vars[r]!.id)); if (keepdims) o++; } else full.push(idx[o++]!);
        });
        const body = this.expr(x, full), dtype = accDType(op, n);
        const red = intern({ k: 'reduce', dtype, op, vars, body, ...(isBlockedSum(op, dtype) && sequentialSum(vars, body, (i) => this.inputs[i]!.shape) ? { lanes: 1 } : {}) });
        this.reduceNodes.set(red, n);
        return red.dtype === n.dtype ? red : intern({ k: 'cast', dtype: n.dtype, a: red });
      }
      case 'matmul': {
        const [x, y] = n.inputs as [Node, Node];
        const r = n.shape.length;
        const k = x.shape[r - 1]!;
        const v: RVar = { id: this.nextVar++, size: k, chunk: x.chunk[r - 1]! };
        const kv = ivar(v.id);
        const body = intern({
          k: 'binary', dtype: n.dtype, op: 'multiply',
          a: this.expr(x, [...idx.slice(0, r - 1), kv]),
          b: this.expr(y, [...idx.slice(0, r - 2), kv, idx[r - 1]!]),
        });
        const red = intern({ k: 'reduce', dtype: n.dtype, op: 'sum', vars: [v], body, lanes: MATMUL_LANES });
        this.reduceNodes.set(red, n);
        return red;
      }
      case 'reshape':
        return this.expr(n.inputs[0]!, reshapeIndex(idx, n.inputs[0]!.shape, n.shape));
      case 'permute': {
        const axes = a.axes as number[];
        const inner = new Array<Expr>(axes.length);
        axes.forEach((ax, i) => { inner[ax] = idx[i]!; });
        return this.expr(n.inputs[0]!, inner);
      }
      case 'expand':
        return this.expr(n.inputs[0]!, this.broadcastIdx(n.inputs[0]!, idx, n.shape));
      case 'slice': {
        const { starts, steps } = a as { starts: number[]; steps: number[] };
        return this.expr(n.inputs[0]!, idx.map((e, i) => iadd(ic(starts[i]!), imul(e, ic(steps[i]!)))));
      }
      case 'concat': {
        const axis = a.axis as number;
        const parts: { lo: number; n: Node }[] = [];
        let off = 0;
        for (const x of n.inputs) { parts.push({ lo: off, n: x }); off += x.shape[axis]!; }
        let e: Expr | undefined;
        for (let i = parts.length - 1; i >= 0; i--) {
          const p = parts[i]!;
          if (p.n.shape[axis] === 0) continue;
          const sub = [...idx];
          sub[axis] = iadd(idx[axis]!, ic(-p.lo));
          const v = this.expr(p.n, sub);
          if (e === undefined) e = v;
          else {
            const c = intern({ k: 'binary', dtype: 'bool', op: 'less', a: idx[axis]!, b: ic(p.lo + p.n.shape[axis]!) });
            e = intern({ k: 'where', dtype: n.dtype, c, a: v, b: e });
          }
        }
        return e ?? konst(0, n.dtype);
      }
      case 'gather': {
        const axis = a.axis as number;
        const [x, ind] = n.inputs as [Node, Node];
        const ri = ind.shape.length;
        let j = this.expr(ind, idx.slice(axis, axis + ri));
        if (j.dtype !== 'int64') j = intern({ k: 'cast', dtype: 'int64', a: j });
        const len = x.shape[axis]!;
        const neg = intern({ k: 'binary', dtype: 'bool', op: 'less', a: j, b: ic(0) });
        const wrapped = intern({ k: 'where', dtype: 'int64', c: neg, a: iadd(j, ic(len)), b: j });
        // Index tensors are data, unchecked when the graph is built: clamp so a bad index never reads outside the array.
        const lo = intern({ k: 'binary', dtype: 'int64', op: 'maximum', a: wrapped, b: ic(0) });
        const norm = intern({ k: 'binary', dtype: 'int64', op: 'minimum', a: lo, b: ic(Math.max(0, len - 1)) });
        return this.expr(x, [...idx.slice(0, axis), norm, ...idx.slice(axis + ri)]);
      }
      case 'scan': case 'routine':
        throw new Error(`internal: ${n.op} is always materialised`);
      case 'compress':
      case 'invert':
      case 'scatter':
      case 'search':
      case 'sort':
      case 'quantile':
      case 'svdvals':
      case 'linalg':
      case 'check':
      case 'defer':
        throw new Error(`internal: ${n.op} nodes are resolved (computed and replaced) before fusion`);
      default:
        return n.op satisfies never;
    }
  }
}

const keyIds = new WeakMap<Expr, number>();
let keyCounter = 0;
function exprKey(e: Expr): number {
  let k = keyIds.get(e);
  if (k === undefined) { k = keyCounter++; keyIds.set(e, k); }
  return k;
}

/** Reductions not nested inside another reduction's body. */
function topReduces(e: Expr, out = new Set<Extract<Expr, { k: 'reduce' }>>(), seen = new Set<Expr>()): Set<Extract<Expr, { k: 'reduce' }>> {
  if (seen.has(e)) return out;
  seen.add(e);
  if (e.k === 'reduce') { out.add(e); return out; }
  for (const c of children(e)) topReduces(c, out, seen);
  return out;
}

function replace(e: Expr, from: Expr, to: Expr, memo = new Map<Expr, Expr>()): Expr {
  if (e === from) return to;
  const hit = memo.get(e);
  if (hit) return hit;
  let r: Expr;
  switch (e.k) {
    case 'const': case 'var': case 'acc': r = e; break;
    case 'load': r = intern({ ...e, index: e.index.map((i) => replace(i, from, to, memo)) }); break;
    case 'unary': case 'cast': r = intern({ ...e, a: replace(e.a, from, to, memo) } as Expr); break;
    case 'binary': r = intern({ ...e, a: replace(e.a, from, to, memo), b: replace(e.b, from, to, memo) }); break;
    case 'where': r = intern({ ...e, c: replace(e.c, from, to, memo), a: replace(e.a, from, to, memo), b: replace(e.b, from, to, memo) }); break;
    case 'random': r = intern({ ...e, index: replace(e.index, from, to, memo) }); break;
    case 'reduce': r = intern({ ...e, body: replace(e.body, from, to, memo) }); break;
    default: return e satisfies never;
  }
  memo.set(e, r);
  return r;
}

/** Fuses the graph behind `outputs` into kernels, one per node that must be stored. */
export function fuse(outputs: readonly Node[], isMaterialised: (n: Node) => boolean): Step[] {
  // a stored node is a leaf: what made it is not planned again
  const order = topo(outputs, isMaterialised);
  const realized = mustRealize(order, outputs, isMaterialised);
  for (;;) {
    const steps: Step[] = [];
    let grew = false;
    for (const n of order) {
      if (!realized.has(n) || isMaterialised(n) || n.op === 'source') continue;
      if (n.op === 'scan') { steps.push({ kind: 'scan', node: n as Node<'scan'>, inputs: [n.inputs[0]!] }); continue; }
      if (n.op === 'routine') {
        steps.push({ kind: 'routine', node: n as Node<'routine'>, inputs: n.inputs });
        continue;
      }
      // A node read at too many points is stored where it is found: its kernel goes first (its
      // own inputs are done: they come before it in `order`), then the one that read it again.
      const pending = [n];
      while (pending.length && !grew) {
        const m = pending.at(-1)!;
        const low = new Lowering(m, realized);
        let body: Expr;
        try {
          body = low.expr(m, m.shape.map((_, i) => ivar(i)));
        } catch (e) {
          if (!(e instanceof ReadTooOften)) throw e;
          realized.add(e.node);
          pending.push(e.node);
          continue;
        }
        const tops = topReduces(body);
        if (tops.size > 1) {
          // Two independent reductions in one kernel cannot share a split: store all but the first.
          [...tops].slice(1).forEach((r) => realized.add(low.reduceNodes.get(r)!));
          grew = true;
          break;
        }
        pending.pop();
        const red = [...tops][0];
        let kernel: Kernel = lowerHalf({
          inputs: low.inputs.map((i) => ({ dtype: i.dtype, shape: i.shape })),
          shape: m.shape,
          chunk: m.chunk,
          dtype: m.dtype,
          ...(red ? { reduce: red } : {}),
          epilogue: red ? replace(body, red, intern({ k: 'acc', dtype: red.dtype })) : body,
        });
        // A float sum that will run in rows order adds its blocks in one lane (see ROWS_LANES).
        if (red && red.lanes === undefined && isBlockedSum(red.op, red.dtype) && reduceOrder(kernel) === 'rows') {
          kernel = { ...kernel, reduce: intern({ ...kernel.reduce!, lanes: ROWS_LANES }) };
        }
        steps.push({ kind: 'kernel', node: m, kernel, inputs: low.inputs });
      }
      if (grew) break;
    }
    if (!grew) return steps;
  }
}

export { sizeOf };
