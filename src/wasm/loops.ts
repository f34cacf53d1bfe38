// Loop nests of a kernel module: the outer loops over a task's box and the
// orders a top-level reduction runs in (ir/order.ts decides which): 'inner',
// the reduction innermost per output, with contiguous loads through running
// pointers, float sums in their blocks and lanes (f64x2 vectors over a
// contiguous row) and arg-reductions skipping eight terms at a time with
// vector compares; 'rows', the reduction outermost over a block of outputs
// kept in scratch rows (f64x2 pairs of outputs), so a reduction over a
// leading axis reads memory in order. Every order gives each output exactly
// the reference interpreter's sequence of operations.
// In: a Kernel, its Layout, the mode. Out: the exported `run` function.

import { type DType, INFO } from '../graph/dtype.js';
import { type BinaryOp, type ReduceOp, argRule, foldRule, isArgReduce } from '../graph/ops.js';
import { type Expr, type Kernel, SUM_BLOCK, SUM_LANES, children, isBlockedSum, laneTree, pairTree } from '../ir/ir.js';
import { isVarExpr, mentions, mentionsBesides, reduceOrder, simdLoad } from '../ir/order.js';
import { LOAD, TY, log2Bytes, wasmType } from './abi.js';
import { type Func, T, V } from './encode.js';
import { ExprEmitter, type ReduceExpr } from './expr.js';

/** Outputs per block of a reduction run in 'rows' order: long runs of each input row stream well. */
export const ROW_BLOCK = 8192;

/** Rows of 8-byte slots a 'rows' reduction keeps in scratch: lanes, group and total of a float sum, or two. */
export const rowsScratchRows = (k: Kernel): number => (isBlockedSum(k.reduce!.op, k.reduce!.dtype) ? (k.reduce!.lanes ?? SUM_LANES) + 2 : 2);

/** True when `e` can never be -0 (so 0 + e is e): squares, absolute values, exponentials, integers. */
function notNegZero(e: Expr): boolean {
  if (INFO[e.dtype].kind !== 'f') return true;
  switch (e.k) {
    case 'unary': return e.op === 'square' || e.op === 'abs' || e.op === 'exp' || e.op === 'exp2';
    case 'binary': return (e.op === 'multiply' && e.a === e.b) || (e.op === 'power' && e.b.k === 'const' && Number(e.b.value) === 2);
    case 'cast': return INFO[e.a.dtype].kind !== 'f' || notNegZero(e.a);
    default: return false;
  }
}

/** The f64x2 instruction of each combine a float64 'rows' reduction runs two outputs at a time with. */
const F64X2_COMBINE: Partial<Record<BinaryOp, number>> = { add: V.f64x2_add, multiply: V.f64x2_mul, maximum: V.f64x2_max, minimum: V.f64x2_min };

export class KernelEmitter extends ExprEmitter {
  build(): Func {
    const { k, c, layout } = this;
    this.bindScratch();
    if (k.reduce) this.countUses(k.reduce);
    this.countUses(k.epilogue);
    k.inputs.forEach((_, i) => this.bindInput(layout.inputs[i]!, this.inPtr, this.inBase, this.inStride));
    layout.outputs.forEach((b) => this.bindInput(b, this.outPtr, this.outBase, this.outStride));
    const r = k.shape.length;
    const his: number[] = [];
    for (let i = 0; i < r; i++) {
      const v = this.local(T.i64);
      const hi = this.local(T.i64);
      this.varLocal.set(i, v);
      this.param(layout.outer + 2 * i + 1); c.set(hi);
      his.push(hi);
    }
    const rows = reduceOrder(k) === 'rows';
    // Outer loops (all but the innermost when the reduction runs a whole row of outputs at once).
    const nloops = rows ? r - 1 : r;
    for (let i = 0; i < nloops; i++) {
      const v = this.varLocal.get(i)!;
      this.param(layout.outer + 2 * i); c.set(v);
      c.block().loop();
      c.get(v).get(his[i]!).op(0x59).brIf(1);
      this.scopes.push(new Map());
    }
    if (rows) this.rowsReduction(his[r - 1]!);
    else if (k.reduce) {
      const red = k.reduce;
      const ranges = red.vars.map((_, i) => [layout.red + 2 * i, layout.red + 2 * i + 1] as const);
      const [acc, best] = this.reduceLoop(red, ranges);
      this.storeResult(() => c.get(acc), best === undefined ? undefined : () => c.get(best));
    } else {
      this.store(0, k.dtype, () => this.expr(k.epilogue));
    }
    for (let i = nloops - 1; i >= 0; i--) {
      this.scopes.pop();
      const v = this.varLocal.get(i)!;
      c.get(v).i64(1).op(0x7c).set(v).br(0).end().end();
    }
    return { type: TY.run, locals: this.locals, code: c, export: 'run' };
  }

  private readonly outPtr: number[] = [];
  private readonly outBase: number[] = [];
  private readonly outStride: number[][] = [];

  /** Stores into output `o` at the current outer index. */
  private store(o: number, d: DType, value: () => void): void {
    const outIdx = this.k.shape.map((_, i) => this.varRef(i));
    this.address(this.outPtr[o]!, this.outBase[o]!, this.outStride[o]!, outIdx, d);
    value();
    this.storeElem(d);
  }

  /** Stores a finished top-level reduction: its raw accumulator(s) for a partial task, else the epilogue. */
  private storeResult(acc: () => void, best?: () => void): void {
    const { k, c } = this;
    const red = k.reduce!;
    if (this.partial) {
      if (isArgReduce(red.op)) {
        this.store(0, red.body.dtype, best!);
        this.store(1, 'int64', acc);
      } else this.store(0, red.dtype, acc);
      return;
    }
    const l = this.local(wasmType(red.dtype));
    acc(); c.set(l);
    this.accLocal = l;
    this.store(0, k.dtype, () => this.expr(k.epilogue));
  }

  private varRef(id: number): Expr {
    return { k: 'var', dtype: 'int64', id } as Expr;
  }

  /** Loads of `e` (outside nested reductions) whose address moves by one fixed step per step of var `v`. */
  private stepLoads(e: Expr, v: number): Extract<Expr, { k: 'load' }>[] {
    const out: Extract<Expr, { k: 'load' }>[] = [];
    const seen = new Set<Expr>();
    const walk = (x: Expr) => {
      if (seen.has(x) || x.k === 'reduce') return;
      seen.add(x);
      if (x.k === 'load' && isVarExpr(x.index[x.index.length - 1], v) && x.index.slice(0, -1).every((i) => !mentions(i, v))) out.push(x);
      children(x).forEach(walk);
    };
    walk(e);
    return out;
  }

  /** Points each load at its element for the current variable values; returns [pointer, step] locals. */
  private startPointers(loads: readonly Extract<Expr, { k: 'load' }>[]): [number, number][] {
    const c = this.c;
    // A private scope: index values computed here must not be reused inside the loop.
    this.scopes.push(new Map());
    const out = loads.map((ld): [number, number] => {
      const ptr = this.local(T.i32), step = this.local(T.i32);
      const st = this.inStride[ld.input]!;
      this.address(this.inPtr[ld.input]!, this.inBase[ld.input]!, st, ld.index, ld.dtype);
      c.set(ptr);
      c.get(st[st.length - 1]!).op(0xa7).i32(log2Bytes(ld.dtype)).op(0x74).set(step);
      return [ptr, step];
    });
    this.scopes.pop();
    loads.forEach((ld, i) => this.fast.set(ld, [out[i]![0], 0]));
    return out;
  }

  /** Emits `body` with `loads` read through running pointers set up here; afterwards they are plain loads again. */
  private withPointers(loads: readonly Extract<Expr, { k: 'load' }>[], body: (ptrs: [number, number][]) => void): void {
    const saved = loads.map((ld) => this.fast.get(ld));
    body(this.startPointers(loads));
    loads.forEach((ld, i) => { const p = saved[i]; if (p === undefined) this.fast.delete(ld); else this.fast.set(ld, p); });
  }

  private advance(ptrs: readonly [number, number][], times = 1): void {
    const c = this.c;
    for (const [p, s] of ptrs) {
      c.get(p).get(s);
      if (times !== 1) c.i32(times).op(0x6c);
      c.op(0x6a).set(p);
    }
  }

  /** Evaluates `e` in a fresh scope: nothing it computes is reused by a later step. */
  private fresh(e: Expr): void {
    this.scopes.push(new Map());
    this.expr(e);
    this.scopes.pop();
  }

  /** Pushes the C-order linear index of the reduction's current point (over the whole reduction, as int64). */
  private linear(r: ReduceExpr, vs: readonly number[]): void {
    const c = this.c;
    c.i64(0);
    let stride = 1;
    const strides: number[] = [];
    for (let i = r.vars.length - 1; i >= 0; i--) { strides[i] = stride; stride *= r.vars[i]!.size; }
    vs.forEach((v, i) => { c.get(v).i64(strides[i]!).op(0x7e).op(0x7c); });
  }

  /**
   * Loops over every variable of `r` but the innermost, in C order; for each
   * row, sets the innermost variable to its low bound, `n` (i32) to the row's
   * length, and emits `row()`. A reduction over no variables is one row of one.
   */
  private overRows(vs: readonly number[], los: readonly (() => void)[], his: readonly number[], n: number, row: () => void): void {
    const c = this.c;
    const m = vs.length;
    for (let i = 0; i < m - 1; i++) {
      los[i]!(); c.set(vs[i]!);
      c.block().loop();
      c.get(vs[i]!).get(his[i]!).op(0x59).brIf(1);
      this.scopes.push(new Map());
    }
    if (m > 0) {
      los[m - 1]!(); c.set(vs[m - 1]!);
      c.get(his[m - 1]!).get(vs[m - 1]!).op(0x7d).op(0xa7).set(n);
      // An empty row has length <= 0.
      c.get(n).i32(0).op(0x48).if().i32(0).set(n).end();
    } else c.i32(1).set(n);
    row();
    for (let i = m - 2; i >= 0; i--) {
      this.scopes.pop();
      c.get(vs[i]!).i64(1).op(0x7c).set(vs[i]!).br(0).end().end();
    }
  }

  /** Steps the innermost variable (if any) and the running pointers. */
  private stepInner(vs: readonly number[], ptrs: readonly [number, number][]): void {
    const c = this.c;
    if (vs.length) { const v = vs[vs.length - 1]!; c.get(v).i64(1).op(0x7c).set(v); }
    this.advance(ptrs);
  }

  /**
   * Emits the loop nest of reduction `r`; returns its accumulator local (and,
   * for arg-reductions, the local holding the best value). `ranges` gives
   * parameter slots [lo, hi) per variable, or undefined for the full range.
   * The innermost variable runs innermost, its contiguous loads through
   * running pointers.
   */
  protected reduceLoop(r: ReduceExpr, ranges?: readonly (readonly [number, number])[]): [number, number | undefined] {
    const c = this.c;
    const vs = r.vars.map((v) => { const l = this.local(T.i64); this.varLocal.set(v.id, l); return l; });
    const his = r.vars.map((v, i) => {
      const hi = this.local(T.i64);
      if (ranges) this.param(ranges[i]![1]); else c.i64(v.size);
      c.set(hi);
      return hi;
    });
    const los = r.vars.map((_, i) => () => { if (ranges) this.param(ranges[i]![0]); else c.i64(0); });
    const n = this.local(T.i32);
    const inner = r.vars.length ? this.stepLoads(r.body, r.vars[r.vars.length - 1]!.id) : [];
    if (isBlockedSum(r.op, r.dtype) && !ranges && r.vars.length === 1 && inner.length === 0 && r.vars[0]!.size >= 1 && (r.vars[0]!.size <= (r.lanes ?? SUM_LANES) || (r.lanes === 1 && r.vars[0]!.size < 8))) {
      return [this.shortSum(r, vs[0]!), undefined];
    }
    if (isBlockedSum(r.op, r.dtype)) return [this.blockedSum(r, vs, los, his, n, inner), undefined];
    if (isArgReduce(r.op)) return this.argReduce(r, vs, los, his, n, inner);
    const acc = this.local(wasmType(r.dtype));
    this.startValue(r.op, r.dtype);
    c.set(acc);
    this.overRows(vs, los, his, n, () => this.withPointers(inner, (ptrs) => {
      c.block().loop();
      c.get(n).op(0x45).brIf(1);
      c.get(acc);
      this.fresh(r.body);
      this.castTo(r.body.dtype, r.dtype);
      this.accumulate(r.op, r.dtype);
      c.set(acc);
      this.stepInner(vs, ptrs);
      c.get(n).i32(1).op(0x6b).set(n);
      c.br(0).end().end();
    }));
    return [acc, undefined];
  }

  /**
   * An arg-reduction: the first point starts it; a later value replaces the
   * best when it is greater (less), or NaN while the best is not, so the
   * first maximum (or first NaN) wins. The common case costs one compare.
   */
  private argReduce(r: ReduceExpr, vs: number[], los: (() => void)[], his: number[], n: number, inner: Extract<Expr, { k: 'load' }>[]): [number, number] {
    const c = this.c;
    const bodyT = r.body.dtype;
    const acc = this.local(T.i64), best = this.local(wasmType(bodyT)), v = this.local(wasmType(bodyT));
    c.i64(-1).set(acc);
    this.constant(0, bodyT); c.set(best);
    // Start from the first point, if the box is not empty.
    c.i32(1);
    vs.forEach((l, i) => { los[i]!(); c.tee(l).get(his[i]!).op(0x53).op(0x71); });
    c.if();
    this.fresh(r.body); c.set(best);
    this.linear(r, vs); c.set(acc);
    c.end();
    const step = () => {
      this.fresh(r.body); c.set(v);
      this.argStep(r.op, bodyT, () => c.get(v), () => c.get(best), () => { c.get(v).set(best); this.linear(r, vs); c.set(acc); });
      this.stepInner(vs, ptrs0);
    };
    let ptrs0: [number, number][] = [];
    const m = vs.length;
    const sl = r.body.k === 'load' && (bodyT === 'float64' || bodyT === 'float32') ? r.body : undefined;
    const vector = m > 0 && sl !== undefined && inner.length === 1 && inner[0] === sl && !mentionsBesides(r.body, r.vars[m - 1]!.id, new Set(inner));
    this.overRows(vs, los, his, n, () => this.withPointers(inner, (ptrs) => {
      ptrs0 = ptrs;
      if (vector) {
        // Eight contiguous terms at a time: when none can beat the best (all v <= best), skip
        // them with a few vector compares and one branch on the mask's bits (movmskpd on x64,
        // 7% of the time of a row of 5000 float64 less than not + any_true); otherwise step
        // through them one by one.
        const es = INFO[bodyT].bytes;
        const [le, ge, splat] = es === 8 ? [V.f64x2_le, V.f64x2_ge, V.f64x2_splat] : [V.f32x4_le, V.f32x4_ge, V.f32x4_splat];
        // A skipped group moves the pointer only; the variable and the count catch up from it
        // (`sync`) before terms are stepped one by one, and after the loop.
        const bv = this.local(T.v128), cnt = this.local(T.i32);
        const start = this.local(T.i32), end = this.local(T.i32), n0 = this.local(T.i32), v0 = this.local(T.i64), k = this.local(T.i32);
        const [p] = ptrs[0]!;
        const iv = vs[m - 1]!;
        const sync = () => {
          c.get(p).get(start).op(0x6b).i32(log2Bytes(bodyT)).op(0x76).set(k);
          c.get(v0).get(k).op(0xad).op(0x7c).set(iv);
          c.get(n0).get(k).op(0x6b).set(n);
        };
        c.get(ptrs[0]![1]).i32(es).op(0x46).if();
        c.get(best).v(splat).set(bv);
        c.get(p).set(start).get(iv).set(v0).get(n).set(n0);
        c.get(p).get(n).i32(-8).op(0x71).i32(log2Bytes(bodyT)).op(0x74).op(0x6a).set(end);
        c.block().loop();
        c.get(p).get(end).op(0x4f).brIf(1);
        for (let q = 0; q < 8 * es / 16; q++) {
          c.get(p).vmem(V.load, 0, q * 16).get(bv).v(argRule(r.op).better === 'greater' ? le : ge);
          if (q) c.v(V.and);
        }
        // some lane not <= best (>= for argmin): one of the mask's sign bits missing
        c.v(es === 8 ? V.i64x2_bitmask : V.i32x4_bitmask).i32(es === 8 ? 3 : 15).op(0x47).if();
        sync();
        c.i32(8).set(cnt);
        c.loop();
        step();
        c.get(cnt).i32(1).op(0x6b).tee(cnt).brIf(0);
        c.end();
        c.get(p).i32(-8 * es).op(0x6a).set(p);
        c.get(best).v(splat).set(bv);
        c.end();
        c.get(p).i32(8 * es).op(0x6a).set(p);
        c.br(0).end().end();
        sync();
        c.end();
      }
      c.block().loop();
      c.get(n).op(0x45).brIf(1);
      step();
      c.get(n).i32(1).op(0x6b).set(n);
      c.br(0).end().end();
    }));
    return [acc, best];
  }

  /** if (v better than best) update(), with NaN and first-occurrence rules of the reference `better`. */
  private argStep(op: ReduceOp, d: DType, v: () => void, best: () => void, update: () => void): void {
    const c = this.c;
    const max = argRule(op).better === 'greater';
    if (INFO[d].kind === 'f') {
      const [ne, gt, lt, le, ge] = d === 'float64' ? [0x62, 0x64, 0x63, 0x65, 0x66] : [0x5c, 0x5e, 0x5d, 0x5f, 0x60];
      // Fast reject: v <= best (v >= best for argmin) is false for NaNs and improvements only.
      v(); best(); c.op(max ? le : ge).op(0x45).if();
      best(); best(); c.op(ne).op(0x45); // !isnan(best)
      v(); best(); c.op(max ? gt : lt);
      v(); v(); c.op(ne); // isnan(v)
      c.op(0x72).op(0x71).if();
      update();
      c.end().end();
    } else {
      v(); best(); this.compare(max ? 'greater' : 'less', d);
      c.if(); update(); c.end();
    }
  }

  /**
   * A nested float sum over one short axis (at most one block's lanes, like the
   * two coordinates of a point): straight-line code, each term in its own lane
   * as 0 + term, then the lane tree over the filled lanes. That is exactly the
   * blocked sum: 0 + term is never -0, a sum of two values that are not -0 is
   * not -0 either, and x + 0 = x for every other x (NaN included), so the empty
   * lanes' zeros and the group's and total's starting zeros change nothing.
   */
  private shortSum(r: ReduceExpr, v: number): number {
    const c = this.c;
    const d = r.dtype;
    const t = wasmType(d);
    const L = r.lanes ?? SUM_LANES;
    const size = r.vars[0]!.size;
    const add = () => this.binary('add', d);
    const lanes = Array.from({ length: size }, () => this.local(t));
    lanes.forEach((x, i) => {
      c.i64(i).set(v);
      if (notNegZero(r.body)) { this.fresh(r.body); this.castTo(r.body.dtype, d); c.set(x); return; } // 0 + t = t
      this.constant(0, d); this.fresh(r.body); this.castTo(r.body.dtype, d); add(); c.set(x);
    });
    if (L === 1) {
      // One lane: the terms one by one (the lane starts at 0 + t0, never -0).
      lanes.slice(1).forEach((x) => { c.get(lanes[0]!).get(x); add(); c.set(lanes[0]!); });
      return lanes[0]!;
    }
    type Sum = (() => void) | null;
    const tree = laneTree<Sum>(Array.from({ length: L }, (_, i) => (i < size ? () => { c.get(lanes[i]!); } : null)), (a, b) => (a && b ? () => { a(); b(); add(); } : a ?? b));
    const acc = this.local(t);
    tree!(); c.set(acc);
    return acc;
  }

  /**
   * A float sum in the interpreter's blocks (see SUM_BLOCK): a row runs eight
   * blocks at once, eight independent chains of additions, while at least
   * eight whole blocks remain, then one block at a time.
   */
  private blockedSum(r: ReduceExpr, vs: number[], los: (() => void)[], his: number[], n: number, inner: Extract<Expr, { k: 'load' }>[]): number {
    const c = this.c;
    const d = r.dtype;
    const t = wasmType(d);
    const B = SUM_BLOCK, L = r.lanes ?? SUM_LANES;
    const total = this.local(t), group = this.local(t), nb = this.local(T.i32), cnt = this.local(T.i32);
    const zero = () => this.constant(0, d);
    zero(); c.set(total); zero(); c.set(group); c.i32(0).set(nb);
    const add = () => this.binary('add', d);
    /** group += the block sum `block` pushes; every SUM_BLOCK blocks the group joins the total. */
    const flush = (block: () => void) => {
      c.get(group); block(); add(); c.set(group);
      c.get(nb).i32(1).op(0x6a).tee(nb).i32(B).op(0x46).if();
      c.get(total).get(group); add(); c.set(total);
      zero(); c.set(group); c.i32(0).set(nb);
      c.end();
    };
    const m = vs.length;
    const sl = simdLoad(r.body);
    const vector = d === 'float64' && L === SUM_LANES && m > 0 && sl !== undefined && inner.length === 1 && inner[0] === sl && !mentionsBesides(r.body, r.vars[m - 1]!.id, new Set(inner)) ? sl : undefined;
    this.overRows(vs, los, his, n, () => this.withPointers(inner, (ptrs) => {
      if (vector) {
        // A contiguous float row: eight lanes as four f64x2 vectors, eight terms a step.
        const es = INFO[vector.dtype].bytes;
        const [p, st] = ptrs[0]!;
        const vl = Array.from({ length: L / 2 }, () => this.local(T.v128));
        const steps = this.local(T.i32);
        c.get(st).i32(es).op(0x46).if();
        c.block().loop();
        c.get(n).op(0x45).brIf(1);
        c.get(n).set(cnt);
        c.get(n).i32(B).op(0x4a).if().i32(B).set(cnt).end();
        c.get(n).get(cnt).op(0x6b).set(n);
        c.get(vs[m - 1]!).get(cnt).op(0xad).op(0x7c).set(vs[m - 1]!);
        vl.forEach((x) => c.vzero().set(x));
        /** One step: eight terms, `at` bytes past p, into the four lane vectors. */
        const eight = (at: number) => {
          for (let q = 0; q < L / 2; q++) {
            if (es === 8) c.get(vl[q]!).get(p).vmem(V.load, 0, at + q * 16).v(V.f64x2_add).set(vl[q]!);
            else {
              // four float32 terms per load: (t0, t1) to one vector, (t2, t3) to the next
              if (q % 2 === 0) c.get(p).vmem(V.load, 0, at + (q / 2) * 16).set(this.tmpOf(T.v128));
              const tmp = this.tmpOf(T.v128);
              c.get(vl[q]!).get(tmp);
              if (q % 2) c.get(tmp).v(V.shuffle, 8, 9, 10, 11, 12, 13, 14, 15, 8, 9, 10, 11, 12, 13, 14, 15);
              c.v(V.f64x2_promote_low_f32x4).v(V.f64x2_add).set(vl[q]!);
            }
          }
        };
        // A whole block (the common case) runs as straight-line code, a loop step for each
        // eight terms costing about a third of the loads it steps over; a shorter one loops.
        c.get(cnt).i32(B).op(0x46).if();
        for (let s = 0; s < B / L; s++) eight(s * L * es);
        c.get(p).i32(B * es).op(0x6a).set(p);
        c.i32(0).set(cnt);
        c.else();
        c.get(cnt).i32(3).op(0x76).set(steps);
        c.block().loop();
        c.get(steps).op(0x45).brIf(1);
        eight(0);
        c.get(p).i32(L * es).op(0x6a).set(p);
        c.get(steps).i32(1).op(0x6b).set(steps);
        c.br(0).end().end();
        c.end();
        // The block's last (cnt % 8) terms, one by one into their lanes.
        c.get(cnt).i32(L - 1).op(0x71).if();
        for (let u = 0; u < L - 1; u++) {
          const x = vl[u >> 1]!;
          c.get(cnt).i32(L - 1).op(0x71).i32(u).op(0x4b).if();
          c.get(x).get(x).v(V.f64x2_extract, u & 1);
          c.get(p).mem(LOAD[vector.dtype], log2Bytes(vector.dtype), u * es);
          if (es === 4) c.op(0xbb);
          c.op(0xa0).v(V.f64x2_replace, u & 1).set(x);
          c.end();
        }
        c.get(p).get(cnt).i32(L - 1).op(0x71).i32(log2Bytes(vector.dtype)).op(0x74).op(0x6a).set(p);
        c.end();
        flush(() => {
          const tree = pairTree(vl.map((x) => () => { c.get(x); }), (a, b) => () => { a(); b(); c.v(V.f64x2_add); });
          const tl = this.tmpOf(T.v128);
          tree(); c.set(tl);
          c.get(tl).v(V.f64x2_extract, 0).get(tl).v(V.f64x2_extract, 1).op(0xa0);
        });
        c.br(0).end().end();
        c.end();
      }
      // One block at a time, its lanes in locals, one step per lane.
      const lanes = Array.from({ length: L }, () => this.local(t));
      const term = (x: number) => { c.get(x); this.fresh(r.body); this.castTo(r.body.dtype, d); add(); c.set(x); this.stepInner(vs, ptrs); };
      c.block().loop();
      c.get(n).op(0x45).brIf(1);
      c.get(n).set(cnt);
      c.get(n).i32(B).op(0x4a).if().i32(B).set(cnt).end();
      c.get(n).get(cnt).op(0x6b).set(n);
      lanes.forEach((x) => { zero(); c.set(x); });
      c.block().loop();
      c.get(cnt).i32(L).op(0x48).brIf(1);
      lanes.forEach(term);
      c.get(cnt).i32(L).op(0x6b).set(cnt);
      c.br(0).end().end();
      for (let u = 0; u < L - 1; u++) { c.get(cnt).i32(u).op(0x4a).if(); term(lanes[u]!); c.end(); }
      flush(laneTree(lanes.map((x) => () => { c.get(x); }), (a, b) => () => { a(); b(); add(); }));
      c.br(0).end().end();
    }));
    const acc = this.local(t);
    c.get(total).get(group); add(); c.set(acc);
    return acc;
  }

  /**
   * The top-level reduction with outputs along the innermost outer variable
   * `j`, whose loads are contiguous in j (a reduction over a leading axis):
   * for a block of up to ROW_BLOCK outputs, every reduction point runs over
   * the whole block, accumulating into rows of scratch memory, so memory is
   * read in its own order. Each output still sees its terms in the same
   * order (and float sums the same blocks) as the reference.
   */
  private rowsReduction(jhi: number): void {
    const { k, c, layout } = this;
    const r = k.shape.length;
    const red = k.reduce!;
    const d = red.dtype;
    const bodyT = red.body.dtype;
    const arg = isArgReduce(red.op);
    const sum = isBlockedSum(red.op, d);
    const L = red.lanes ?? SUM_LANES;
    const jv = this.varLocal.get(r - 1)!;
    const jb = this.local(T.i64), jn = this.local(T.i32), jj = this.local(T.i32), rp = this.local(T.i32), base = this.local(T.i32);
    const RB = ROW_BLOCK * 8;
    const m = red.vars.length;
    const vs = red.vars.map((v) => { const l = this.local(T.i64); this.varLocal.set(v.id, l); return l; });
    const his = red.vars.map((_, i) => { const hi = this.local(T.i64); this.param(layout.red + 2 * i + 1); c.set(hi); return hi; });
    const los = red.vars.map((_, i) => () => this.param(layout.red + 2 * i));
    const n = this.local(T.i32), cnt = this.local(T.i32), nb = this.local(T.i32), started = this.local(T.i32), lin = this.local(T.i64), par = this.local(T.i32);
    const loadRow = (row: number, dt: DType) => { c.get(rp); this.loadElem(dt, row * RB); };
    const storeRow = (row: number, dt: DType, value: () => void) => { c.get(rp); value(); this.storeElem(dt, row * RB); };
    // The outputs of a block run as f64x2 pairs when the body is one contiguous float load
    // and the accumulator a float64 (two 8-byte slots of a row are one v128).
    const loads = this.stepLoads(red.body, r - 1);
    const sl = simdLoad(red.body);
    const vec = sl !== undefined && loads.length === 1 && loads[0] === sl && d === (arg ? d : 'float64') && (arg ? bodyT === 'float64' : F64X2_COMBINE[foldRule(red.op).combine] !== undefined) ? sl : undefined;
    /**
     * Emits the work of one output per step over the block (rp at its slot of
     * row 0, `off` bytes into the rows), and first, if given, the work of two
     * outputs per step as v128 values (`v` the pair's terms, `p` their slots).
     */
    const overBlock = (body: () => void, withLoads = false, off?: number, vector?: (v: () => void) => void) => {
      c.get(jb).set(jv);
      c.get(base); if (off !== undefined) c.get(off).op(0x6a); c.set(rp);
      this.withPointers(withLoads ? loads : [], (ptrs) => {
        c.i32(0).set(jj);
        if (vector && vec) {
          // Four outputs a step as two pairs (rp, and the load, moving between them), then pairs.
          const es = INFO[vec.dtype].bytes;
          const [p] = ptrs[0]!;
          const pair = () => vector(() => {
            if (es === 8) c.get(p).vmem(V.load, 0);
            else c.get(p).vmem(V.load64_zero, 0).v(V.f64x2_promote_low_f32x4);
          });
          const next = () => { c.get(rp).i32(16).op(0x6a).set(rp); c.get(p).i32(2 * es).op(0x6a).set(p); };
          c.get(ptrs[0]![1]).i32(es).op(0x46).if();
          for (const width of [4, 2]) {
            c.block().loop();
            c.get(jj).i32(width).op(0x6a).get(jn).op(0x4a).brIf(1);
            for (let h = 0; h < width / 2; h++) { pair(); next(); }
            c.get(jj).i32(width).op(0x6a).set(jj);
            c.br(0).end().end();
          }
          c.get(jb).get(jj).op(0xad).op(0x7c).set(jv);
          c.end();
        }
        c.block().loop();
        c.get(jj).get(jn).op(0x4e).brIf(1);
        this.scopes.push(new Map());
        body();
        this.scopes.pop();
        c.get(jv).i64(1).op(0x7c).set(jv);
        c.get(rp).i32(8).op(0x6a).set(rp);
        this.advance(ptrs);
        c.get(jj).i32(1).op(0x6a).set(jj);
        c.br(0).end().end();
      });
    };
    const zero = () => this.constant(0, d);
    const add = () => this.binary('add', d);
    const vAdd = V.f64x2_add;
    const vrow = (row: number) => c.get(rp).vmem(V.load, 3, row * RB);
    const vstore = (row: number, value: () => void) => { c.get(rp); value(); c.vmem(V.store, 3, row * RB); };

    /**
     * Work on the rows alone (no input), for every output of the block: two
     * outputs a step as one v128 per row when `pair` is given (float64 rows:
     * f64x2 adds are the scalar adds lane by lane), then any odd one `single`.
     */
    const overRowsOnly = (single: () => void, pair?: () => void) => {
      if (!pair) { overBlock(single); return; }
      c.get(base).set(rp);
      c.i32(0).set(jj);
      c.block().loop();
      c.get(jj).i32(2).op(0x6a).get(jn).op(0x4a).brIf(1);
      pair();
      c.get(rp).i32(16).op(0x6a).set(rp);
      c.get(jj).i32(2).op(0x6a).set(jj);
      c.br(0).end().end();
      c.get(jj).get(jn).op(0x48).if();
      this.scopes.push(new Map());
      single();
      this.scopes.pop();
      c.end();
    };
    const f64Rows = d === 'float64';
    const ones = [-1, -1, -1, -1];

    this.param(layout.scratch!.slot); c.op(0xa7).set(base);
    this.param(layout.outer + 2 * (r - 1)); c.set(jb);
    c.block().loop();
    c.get(jb).get(jhi).op(0x59).brIf(1);
    c.get(jhi).get(jb).op(0x7d).op(0xa7).set(jn);
    c.get(jn).i32(ROW_BLOCK).op(0x4a).if().i32(ROW_BLOCK).set(jn).end();
    // Start every output of the block. A blocked sum keeps rows 0 .. L-1 (the block's
    // lanes), L (the group) and L+1 (the total); an arg-reduction the best value (row 0)
    // and its index (row 1); others the accumulator (row 0).
    if (sum) {
      overRowsOnly(() => { for (let row = 0; row < L + 2; row++) storeRow(row, d, zero); },
        f64Rows ? () => { for (let row = 0; row < L + 2; row++) vstore(row, () => c.vzero()); } : undefined);
    } else if (arg) {
      // (zero bits are 0 in a 4-byte slot too; an int64 -1 is all ones)
      overRowsOnly(() => { storeRow(0, bodyT, () => this.constant(0, bodyT)); storeRow(1, 'int64', () => c.i64(-1)); },
        () => { vstore(0, () => c.vzero()); vstore(1, () => c.vconst32(ones)); });
    } else {
      overRowsOnly(() => storeRow(0, d, () => this.startValue(red.op, d)),
        f64Rows || d === 'int64' ? () => vstore(0, () => { this.startValue(red.op, d); c.v(f64Rows ? V.f64x2_splat : V.i64x2_splat); }) : undefined);
    }
    c.i32(0).set(nb).i32(0).set(started);
    const vAddF = () => c.v(V.f64x2_add);
    const flush = () => {
      overRowsOnly(() => {
        storeRow(L, d, () => { loadRow(L, d); laneTree(Array.from({ length: L }, (_, l) => () => { loadRow(l, d); }), (a, b) => () => { a(); b(); add(); })(); add(); });
        for (let l = 0; l < L; l++) storeRow(l, d, zero);
      }, f64Rows ? () => {
        vstore(L, () => { vrow(L); laneTree(Array.from({ length: L }, (_, l) => () => { vrow(l); }), (a, b) => () => { a(); b(); vAddF(); })(); vAddF(); });
        for (let l = 0; l < L; l++) vstore(l, () => c.vzero());
      } : undefined);
      c.get(nb).i32(1).op(0x6a).tee(nb).i32(SUM_BLOCK).op(0x46).if();
      overRowsOnly(() => {
        storeRow(L + 1, d, () => { loadRow(L + 1, d); loadRow(L, d); add(); });
        storeRow(L, d, zero);
      }, f64Rows ? () => {
        vstore(L + 1, () => { vrow(L + 1); vrow(L); vAddF(); });
        vstore(L, () => c.vzero());
      } : undefined);
      c.i32(0).set(nb);
      c.end();
    };
    const v = this.local(wasmType(bodyT));
    const vv = this.local(T.v128), vb = this.local(T.v128), vm = this.local(T.v128), laneOff = this.local(T.i32);
    const point = () => {
      if (arg) {
        this.linear(red, vs); c.set(lin);
        const max = argRule(red.op).better === 'greater';
        c.get(started).if();
        overBlock(() => {
          this.expr(red.body); c.set(v);
          this.argStep(red.op, bodyT, () => c.get(v), () => loadRow(0, bodyT), () => {
            storeRow(0, bodyT, () => c.get(v));
            storeRow(1, 'int64', () => c.get(lin));
          });
        }, true, undefined, (val) => {
          // better = !(v <= best) & !isnan(best) & (v > best | isnan(v))   (v >= best, v < best for argmin);
          // the first factor alone is false for both outputs in the common case.
          val(); c.set(vv); vrow(0); c.set(vb);
          c.get(vv).get(vb).v(max ? V.f64x2_le : V.f64x2_ge).v(V.not).tee(vm).v(V.any_true).if();
          c.get(vm).get(vb).get(vb).v(V.f64x2_eq).v(V.and);
          c.get(vv).get(vb).v(max ? V.f64x2_gt : V.f64x2_lt).get(vv).get(vv).v(V.f64x2_ne).v(V.or).v(V.and).set(vm);
          vstore(0, () => { c.get(vv).get(vb).get(vm).v(V.bitselect); });
          vstore(1, () => { c.get(lin).v(V.i64x2_splat); vrow(1); c.get(vm).v(V.bitselect); });
          c.end();
        });
        c.else();
        overBlock(() => {
          storeRow(0, bodyT, () => this.expr(red.body));
          storeRow(1, 'int64', () => c.get(lin));
        }, true, undefined, (val) => {
          vstore(0, val);
          vstore(1, () => c.get(lin).v(V.i64x2_splat));
        });
        c.i32(1).set(started);
        c.end();
        return;
      }
      // A blocked sum adds into the lane row of this term's position in the block.
      if (sum) c.get(par).i32(L - 1).op(0x71).i32(RB).op(0x6c).set(laneOff);
      overBlock(() => {
        storeRow(0, d, () => {
          loadRow(0, d);
          this.expr(red.body); this.castTo(bodyT, d);
          this.accumulate(red.op, d);
        });
      }, true, sum ? laneOff : undefined, (val) => {
        vstore(0, () => { vrow(0); val(); c.v(F64X2_COMBINE[foldRule(red.op).combine]!); });
      });
    };
    // A one-lane sum adds PASS consecutive points per pass over the block of outputs:
    // each output's row slot is read and written once for eight terms, added in order
    // (SUM_BLOCK is a multiple). Eight input rows stream at once: on two threads a
    // 5000 x 5000 float64 sum along axis 0 runs its kernels 12% faster than with
    // sixteen (32 streams overwhelm the prefetchers), on one thread 8% slower.
    const PASS = 8;
    const pass = () => {
      const vmId = red.vars[m - 1]!.id, vm0 = vs[m - 1]!;
      const sets: [number, number][][] = [];
      c.get(jb).set(jv);
      for (let q = 0; q < PASS; q++) {
        const vq = this.local(T.i64);
        c.get(vm0).i64(q).op(0x7c).set(vq);
        this.varLocal.set(vmId, vq);
        this.withPointers(loads, (ptrs) => { sets.push(ptrs); });
      }
      this.varLocal.set(vmId, vm0);
      const es = INFO[vec!.dtype].bytes;
      c.get(base).set(rp);
      c.i32(0).set(jj);
      c.i32(1);
      sets.forEach((ptrs) => { c.get(ptrs[0]![1]).i32(es).op(0x46).op(0x71); });
      c.if();
      // Two outputs a pair: the row slot read and written once for the PASS terms, in order.
      const pair = (h: number) => {
        c.get(rp);
        c.get(rp).vmem(V.load, 3, h * 16);
        for (const ptrs of sets) {
          if (es === 8) c.get(ptrs[0]![0]).vmem(V.load, 0, h * 16);
          else c.get(ptrs[0]![0]).vmem(V.load64_zero, 0, h * 8).v(V.f64x2_promote_low_f32x4);
          c.v(vAdd);
        }
        c.vmem(V.store, 3, h * 16);
      };
      for (const width of [2, 1]) {
        c.block().loop();
        c.get(jj).i32(2 * width).op(0x6a).get(jn).op(0x4a).brIf(1);
        for (let h = 0; h < width; h++) pair(h);
        c.get(rp).i32(16 * width).op(0x6a).set(rp);
        for (const ptrs of sets) { const [p] = ptrs[0]!; c.get(p).i32(2 * es * width).op(0x6a).set(p); }
        c.get(jj).i32(2 * width).op(0x6a).set(jj);
        c.br(0).end().end();
      }
      c.get(jb).get(jj).op(0xad).op(0x7c).set(jv);
      c.end();
      c.block().loop();
      c.get(jj).get(jn).op(0x4e).brIf(1);
      storeRow(0, d, () => {
        loadRow(0, d);
        for (const ptrs of sets) {
          const saved = this.fast.get(vec!);
          this.fast.set(vec!, [ptrs[0]![0], 0]);
          this.fresh(red.body); this.castTo(bodyT, d); add();
          if (saved) this.fast.set(vec!, saved); else this.fast.delete(vec!);
        }
      });
      c.get(jv).i64(1).op(0x7c).set(jv);
      c.get(rp).i32(8).op(0x6a).set(rp);
      sets.forEach((ptrs) => this.advance(ptrs));
      c.get(jj).i32(1).op(0x6a).set(jj);
      c.br(0).end().end();
    };
    this.overRows(vs, los, his, n, () => {
      if (!sum) {
        c.block().loop();
        c.get(n).op(0x45).brIf(1);
        point();
        if (m) c.get(vs[m - 1]!).i64(1).op(0x7c).set(vs[m - 1]!);
        c.get(n).i32(1).op(0x6b).set(n);
        c.br(0).end().end();
        return;
      }
      c.block().loop();
      c.get(n).op(0x45).brIf(1);
      c.get(n).set(cnt);
      c.get(n).i32(SUM_BLOCK).op(0x4a).if().i32(SUM_BLOCK).set(cnt).end();
      c.get(n).get(cnt).op(0x6b).set(n);
      c.i32(0).set(par);
      if (L === 1 && m > 0 && vec) {
        c.block().loop();
        c.get(cnt).i32(PASS).op(0x48).brIf(1);
        pass();
        c.get(vs[m - 1]!).i64(PASS).op(0x7c).set(vs[m - 1]!);
        c.get(cnt).i32(PASS).op(0x6b).set(cnt);
        c.br(0).end().end();
      }
      c.block().loop();
      c.get(cnt).op(0x45).brIf(1);
      point();
      c.get(par).i32(1).op(0x6a).set(par);
      if (m) c.get(vs[m - 1]!).i64(1).op(0x7c).set(vs[m - 1]!);
      c.get(cnt).i32(1).op(0x6b).set(cnt);
      c.br(0).end().end();
      flush();
      c.br(0).end().end();
    });
    // Finish every output of the block.
    overBlock(() => {
      if (sum) this.storeResult(() => { loadRow(L + 1, d); loadRow(L, d); add(); });
      else if (arg) this.storeResult(() => loadRow(1, 'int64'), () => loadRow(0, bodyT));
      else this.storeResult(() => loadRow(0, d));
    });
    c.get(jb).i64(ROW_BLOCK).op(0x7c).set(jb);
    c.br(0).end().end();
  }
}
