// The WASM emitter: renders one Kernel into a WebAssembly module whose
// exported `run(params)` executes one task: a loop nest over the task's outer
// box, the top-level reduction inside it, nested reductions inside that, and
// one store per output element. A fused chain is one loop with no
// intermediate arrays. Transcendental functions come from the host's Math
// (the same functions the reference interpreter calls, so results agree).
// In: a Kernel and the mode (full or partial). Out: module bytes and the
// parameter layout the runtime fills for each task.

import { type DType, INFO } from '../graph/dtype.js';
import { type BinaryOp, type UnaryOp, isArgReduce } from '../graph/ops.js';
import { type Expr, type Kernel, children } from '../ir/ir.js';
import type { KernelArgs } from '../ir/args.js';
import { fdivmod } from '../ir/scalar.js';
import { PHILOX_M0, PHILOX_M1, PHILOX_ROUNDS, PHILOX_W0, PHILOX_W1 } from '../ir/philox.js';
import { Code, type Func, type FuncType, type Import, T, assemble } from './encode.js';

export const MAX_PAGES = 65536;

/** Host functions a kernel may import, by name. */
export const MATH_IMPORTS = {
  unary: ['cbrt', 'exp', 'exp2', 'expm1', 'log', 'log2', 'log10', 'log1p', 'sin', 'cos', 'tan', 'asin', 'acos', 'atan', 'sinh', 'cosh', 'tanh', 'asinh', 'acosh', 'atanh'],
  binary: ['pow', 'atan2', 'hypot', 'floordiv', 'fmod'],
} as const;

const UNARY_IMPORT: Partial<Record<UnaryOp, (typeof MATH_IMPORTS.unary)[number]>> = {
  cbrt: 'cbrt', exp: 'exp', exp2: 'exp2', expm1: 'expm1', log: 'log', log2: 'log2', log10: 'log10', log1p: 'log1p',
  sin: 'sin', cos: 'cos', tan: 'tan', arcsin: 'asin', arccos: 'acos', arctan: 'atan', sinh: 'sinh', cosh: 'cosh',
  tanh: 'tanh', arcsinh: 'asinh', arccosh: 'acosh', arctanh: 'atanh',
};

export const wasmType = (d: DType): T => (d === 'int64' ? T.i64 : d === 'float32' ? T.f32 : d === 'float64' ? T.f64 : T.i32);
const log2Bytes = (d: DType): number => Math.log2(INFO[d].bytes);
const signed = (d: DType): boolean => INFO[d].kind === 'i' || INFO[d].kind === 'f';

const LOAD: Record<DType, number> = { bool: 0x2d, uint8: 0x2d, int8: 0x2c, int16: 0x2e, uint16: 0x2f, int32: 0x28, uint32: 0x28, int64: 0x29, float32: 0x2a, float64: 0x2b };
const STORE: Record<DType, number> = { bool: 0x3a, uint8: 0x3a, int8: 0x3a, int16: 0x3b, uint16: 0x3b, int32: 0x36, uint32: 0x36, int64: 0x37, float32: 0x38, float64: 0x39 };

/** Parameter block layout: i64 slots, in this order. */
export interface Layout {
  readonly slots: number;
  readonly inputs: readonly { ptr: number; origin: number; strides: number; rank: number }[];
  readonly outputs: readonly { ptr: number; origin: number; strides: number; rank: number }[];
  readonly outer: number;
  readonly red: number;
}

export function layoutOf(k: Kernel, partial: boolean): Layout {
  let s = 0;
  const bind = (rank: number) => { const b = { ptr: s, origin: s + 1, strides: s + 1 + rank, rank }; s += 1 + 2 * rank; return b; };
  const inputs = k.inputs.map((i) => bind(i.shape.length));
  const nout = partial && k.reduce && isArgReduce(k.reduce.op) ? 2 : 1;
  const outputs = Array.from({ length: nout }, () => bind(k.shape.length));
  const outer = s; s += 2 * k.shape.length;
  const red = s; s += 2 * (k.reduce?.vars.length ?? 0);
  return { slots: s, inputs, outputs, outer, red };
}

/** Writes a task's arguments into `view` (i64 slots) at slot offset `at`. */
export function writeParams(layout: Layout, args: KernelArgs, view: BigInt64Array, at: number): void {
  const put = (slot: number, v: number) => { view[at + slot] = BigInt(v); };
  const bind = (b: Layout['inputs'][number], x: KernelArgs['inputs'][number]) => {
    put(b.ptr, x.ptr);
    for (let d = 0; d < b.rank; d++) { put(b.origin + d, x.origin[d]!); put(b.strides + d, x.strides[d]!); }
  };
  layout.inputs.forEach((b, i) => bind(b, args.inputs[i]!));
  layout.outputs.forEach((b, i) => bind(b, args.outputs[i]!));
  args.outer.forEach(([lo, hi], i) => { put(layout.outer + 2 * i, lo); put(layout.outer + 2 * i + 1, hi); });
  args.red.forEach(([lo, hi], i) => { put(layout.red + 2 * i, lo); put(layout.red + 2 * i + 1, hi); });
}

// Type indices in every module.
const TY = { run: 0, f64_f64: 1, f64f64_f64: 2, philox: 3, i32i32_i32: 4, i64i64_i64: 5 } as const;
const TYPES: FuncType[] = [
  { params: [T.i32], results: [] },
  { params: [T.f64], results: [T.f64] },
  { params: [T.f64, T.f64], results: [T.f64] },
  { params: [T.i32, T.i32, T.i32, T.i64], results: [T.i32, T.i32, T.i32, T.i32] },
  { params: [T.i32, T.i32], results: [T.i32] },
  { params: [T.i64, T.i64], results: [T.i64] },
];
const IMPORTS: Import[] = [
  ...MATH_IMPORTS.unary.map((name) => ({ module: 'math', name, type: TY.f64_f64 })),
  ...MATH_IMPORTS.binary.map((name) => ({ module: 'math', name, type: TY.f64f64_f64 })),
];
const importIndex = (name: string): number => IMPORTS.findIndex((i) => i.name === name);
const NI = IMPORTS.length;
// Internal helper functions follow `run` (function index NI).
const FN = { run: NI, philox: NI + 1, fdivI32: NI + 2, modI32: NI + 3, fdivI64: NI + 4, modI64: NI + 5, powI32: NI + 6, powI64: NI + 7 } as const;

function philoxFunc(): Func {
  // params: k0, k1, stream, index(i64); locals: c0..c3 (4..7), hi/lo temp (8: i64)
  const c = new Code();
  const [k0, k1, st, idx, c0, c1, c2, c3, p] = [0, 1, 2, 3, 4, 5, 6, 7, 8];
  c.get(idx).op(0xa7).set(c0); // c0 = low word
  c.get(idx).i64(32).op(0x88).op(0xa7).set(c1);
  c.get(st).set(c2);
  c.i32(0).set(c3);
  for (let r = 0; r < PHILOX_ROUNDS; r++) {
    // p = M0 * c0 (64-bit)
    c.i64(PHILOX_M0).get(c0).op(0xad).op(0x7e).set(p);
    // c0' = hi(M1*c2) ^ c1 ^ k0 ; c1' = lo(M1*c2) ; c2' = hi(M0*c0) ^ c3 ^ k1 ; c3' = lo(M0*c0)
    // compute c2' and c3' first into c3 temporarily needs care: use stack order.
    c.get(p).i64(32).op(0x88).op(0xa7).get(c3).op(0x73).get(k1).op(0x73); // new c2 on stack
    c.get(p).op(0xa7).set(c3); // c3' = lo0
    c.set(c0); // stash new c2 in c0 (old c0 consumed)
    c.i64(PHILOX_M1).get(c2).op(0xad).op(0x7e).set(p);
    c.get(c0).set(c2); // c2 = new c2
    c.get(p).i64(32).op(0x88).op(0xa7).get(c1).op(0x73).get(k0).op(0x73).set(c0); // c0' = hi1 ^ c1 ^ k0
    c.get(p).op(0xa7).set(c1); // c1' = lo1
    if (r < PHILOX_ROUNDS - 1) {
      c.get(k0).i32(PHILOX_W0).op(0x6a).set(k0);
      c.get(k1).i32(PHILOX_W1).op(0x6a).set(k1);
    }
  }
  c.get(c0).get(c1).get(c2).get(c3);
  return { type: TY.philox, locals: [T.i32, T.i32, T.i32, T.i32, T.i64], code: c };
}

/** Integer floor division and modulo with NumPy's semantics (x/0 = 0, no trap on MIN/-1). */
function intDivFuncs(): Func[] {
  const make = (is64: boolean, mod: boolean): Func => {
    const c = new Code();
    const [a, b, q] = [0, 1, 2];
    const t = is64 ? T.i64 : T.i32;
    const k = (v: number) => (is64 ? c.i64(v) : c.i32(v));
    const o = is64 ? { eqz: 0x50, eq: 0x51, ne: 0x52, lt: 0x53, divs: 0x7f, rems: 0x81, sub: 0x7d, add: 0x7c, xor: 0x85, mul: 0x7e } : { eqz: 0x45, eq: 0x46, ne: 0x47, lt: 0x48, divs: 0x6d, rems: 0x6f, sub: 0x6b, add: 0x6a, xor: 0x73, mul: 0x6c };
    // if b == 0 return 0
    c.get(b).op(o.eqz).if().op(...(is64 ? [0x42, 0] : [0x41, 0])).op(0x0f).end();
    // if b == -1: quotient = -a (wrapping), remainder 0
    c.get(b); k(-1); c.op(o.eq).if();
    if (mod) k(0); else { k(0); c.get(a).op(o.sub); }
    c.op(0x0f).end();
    if (mod) {
      c.get(a).get(b).op(o.rems).set(q);
      // if q != 0 && (q ^ b) < 0: q += b
      c.get(q); k(0); c.op(o.ne).get(q).get(b).op(o.xor); k(0); c.op(o.lt).op(0x71).if().get(q).get(b).op(o.add).set(q).end();
      c.get(q);
    } else {
      c.get(a).get(b).op(o.divs).set(q);
      // if a - q*b != 0 && (a ^ b) < 0: q -= 1
      c.get(a).get(q).get(b).op(o.mul).op(o.sub); k(0); c.op(o.ne).get(a).get(b).op(o.xor); k(0); c.op(o.lt).op(0x71).if().get(q); k(1); c.op(o.sub).set(q).end();
      c.get(q);
    }
    return { type: is64 ? TY.i64i64_i64 : TY.i32i32_i32, locals: [t], code: c };
  };
  return [make(false, false), make(false, true), make(true, false), make(true, true)];
}

/** Integer power by squaring (wrapping); negative exponents give 0 except for bases 1 and -1. */
function intPowFuncs(): Func[] {
  const make = (is64: boolean): Func => {
    const c = new Code();
    const [a, b, r] = [0, 1, 2];
    const k = (v: number) => (is64 ? c.i64(v) : c.i32(v));
    const o = is64 ? { lt: 0x53, eq: 0x51, and: 0x83, mul: 0x7e, shr: 0x87, eqz: 0x50, wrapEqz: 0x50 } : { lt: 0x48, eq: 0x46, and: 0x71, mul: 0x6c, shr: 0x75, eqz: 0x45, wrapEqz: 0x45 };
    // negative exponent
    c.get(b); k(0); c.op(o.lt).if();
    c.get(a); k(1); c.op(o.eq).if(); k(1); c.op(0x0f).end();
    c.get(a); k(-1); c.op(o.eq).if(); k(1); k(-1); c.get(b); k(1); c.op(o.and, o.eqz, 0x1b, 0x0f).end();
    k(0); c.op(0x0f).end();
    k(1); c.set(r);
    c.block().loop();
    c.get(b).op(o.eqz).brIf(1);
    c.get(b); k(1); c.op(o.and); if (is64) c.op(0x50, 0x45); c.if().get(r).get(a).op(o.mul).set(r).end();
    c.get(a).get(a).op(o.mul).set(a);
    c.get(b); k(1); c.op(o.shr).set(b);
    c.br(0).end().end();
    c.get(r);
    return { type: is64 ? TY.i64i64_i64 : TY.i32i32_i32, locals: [is64 ? T.i64 : T.i32], code: c };
  };
  return [make(false), make(true)];
}

type ReduceExpr = Extract<Expr, { k: 'reduce' }>;

class Emitter {
  readonly c = new Code();
  readonly locals: T[] = [];
  private readonly varLocal = new Map<number, number>();
  private readonly uses = new Map<Expr, number>();
  private readonly scopes: Map<Expr, number>[] = [new Map()];
  private readonly inPtr: number[] = [];
  private readonly inBase: number[] = [];
  private readonly inStride: number[][] = [];
  private accLocal = -1;

  constructor(private readonly k: Kernel, private readonly partial: boolean, private readonly layout: Layout) {}

  local(t: T): number {
    this.locals.push(t);
    return this.locals.length; // param 0 is the params pointer
  }

  private countUses(e: Expr): void {
    const n = (this.uses.get(e) ?? 0) + 1;
    this.uses.set(e, n);
    if (n === 1) children(e).forEach((c) => this.countUses(c));
  }

  /** Loads i64 slot `s` of the parameter block. */
  private param(s: number): void {
    this.c.get(0).mem(0x29, 3, s * 8);
  }

  private bindInput(b: Layout['inputs'][number], ptrs: number[], bases: number[], strides: number[][]): void {
    const c = this.c;
    const ptr = this.local(T.i32);
    this.param(b.ptr); c.op(0xa7).set(ptr);
    // base = -sum(origin * stride), so an element's offset is base + sum(index * stride).
    const base = this.local(T.i64);
    c.i64(0).set(base);
    const st: number[] = [];
    for (let d = 0; d < b.rank; d++) {
      const s = this.local(T.i64);
      this.param(b.strides + d); c.set(s);
      c.get(base); this.param(b.origin + d); c.get(s).op(0x7e).op(0x7d).set(base);
      st.push(s);
    }
    ptrs.push(ptr); bases.push(base); strides.push(st);
  }

  /** Pushes the byte address of element `idx` of binding (ptr, base, strides). */
  private address(ptr: number, base: number, strides: readonly number[], idx: readonly Expr[], d: DType): void {
    const c = this.c;
    c.get(base);
    idx.forEach((e, i) => { this.expr(e); c.get(strides[i]!).op(0x7e).op(0x7c); });
    c.op(0xa7);
    const sh = log2Bytes(d);
    if (sh) c.i32(sh).op(0x74);
    c.get(ptr).op(0x6a);
  }

  build(): Func {
    const { k, c, layout } = this;
    if (k.reduce) this.countUses(k.reduce);
    this.countUses(k.epilogue);
    k.inputs.forEach((_, i) => this.bindInput(layout.inputs[i]!, this.inPtr, this.inBase, this.inStride));
    const outPtr: number[] = [], outBase: number[] = [], outStride: number[][] = [];
    layout.outputs.forEach((b) => this.bindInput(b, outPtr, outBase, outStride));
    const r = k.shape.length;
    const his: number[] = [];
    for (let i = 0; i < r; i++) {
      const v = this.local(T.i64);
      const hi = this.local(T.i64);
      this.varLocal.set(i, v);
      this.param(layout.outer + 2 * i + 1); c.set(hi);
      his.push(hi);
    }
    // Outer loops.
    for (let i = 0; i < r; i++) {
      const v = this.varLocal.get(i)!;
      this.param(layout.outer + 2 * i); c.set(v);
      c.block().loop();
      c.get(v).get(his[i]!).op(0x59).brIf(1);
      this.scopes.push(new Map());
    }
    const outIdx = k.shape.map((_, i) => this.varRef(i));
    const store = (o: number, d: DType, value: () => void) => {
      this.address(outPtr[o]!, outBase[o]!, outStride[o]!, outIdx, d);
      value();
      c.mem(STORE[d], log2Bytes(d));
    };
    if (k.reduce) {
      const red = k.reduce;
      const ranges = red.vars.map((_, i) => [layout.red + 2 * i, layout.red + 2 * i + 1] as const);
      const [acc, best] = this.reduceLoop(red, ranges);
      if (this.partial) {
        if (isArgReduce(red.op)) {
          store(0, red.body.dtype, () => c.get(best!));
          store(1, 'int64', () => c.get(acc));
        } else store(0, red.dtype, () => c.get(acc));
      } else {
        this.accLocal = acc;
        store(0, k.dtype, () => this.expr(k.epilogue));
      }
    } else {
      store(0, k.dtype, () => this.expr(k.epilogue));
    }
    for (let i = r - 1; i >= 0; i--) {
      this.scopes.pop();
      const v = this.varLocal.get(i)!;
      c.get(v).i64(1).op(0x7c).set(v).br(0).end().end();
    }
    return { type: TY.run, locals: this.locals, code: c, export: 'run' };
  }

  private varRef(id: number): Expr {
    return { k: 'var', dtype: 'int64', id } as Expr;
  }

  /**
   * Emits the loop nest of reduction `r`; returns its accumulator local (and,
   * for arg-reductions, the local holding the best value). `ranges` gives
   * parameter slots [lo, hi) per variable, or undefined for the full range.
   */
  private reduceLoop(r: ReduceExpr, ranges?: readonly (readonly [number, number])[]): [number, number | undefined] {
    const c = this.c;
    const arg = isArgReduce(r.op);
    const accT = wasmType(r.dtype);
    const acc = this.local(accT);
    const bodyT = r.body.dtype;
    let best: number | undefined;
    let started: number | undefined;
    if (arg) {
      best = this.local(wasmType(bodyT));
      started = this.local(T.i32);
      c.i32(0).set(started);
      c.i64(0).set(acc);
    } else {
      this.constant(identityOf(r.op, r.dtype), r.dtype);
      c.set(acc);
    }
    const vs = r.vars.map((v) => { const l = this.local(T.i64); this.varLocal.set(v.id, l); return l; });
    const his = r.vars.map((v, i) => {
      const hi = this.local(T.i64);
      if (ranges) this.param(ranges[i]![1]); else c.i64(v.size);
      c.set(hi);
      return hi;
    });
    r.vars.forEach((_, i) => {
      if (ranges) this.param(ranges[i]![0]); else c.i64(0);
      c.set(vs[i]!);
      c.block().loop();
      c.get(vs[i]!).get(his[i]!).op(0x59).brIf(1);
      this.scopes.push(new Map());
    });
    if (arg) {
      const v = this.local(wasmType(bodyT));
      this.expr(r.body);
      c.set(v);
      // better = !started || (!isnan(best) && (isnan(v) || v > best))  (v < best for argmin)
      c.get(started!).op(0x45);
      if (INFO[bodyT].kind === 'f') {
        const [ne, gt, lt] = bodyT === 'float64' ? [0x62, 0x64, 0x63] : [0x5c, 0x5e, 0x5d];
        c.get(best!).get(best!).op(ne).op(0x45); // !isnan(best)
        c.get(v).get(v).op(ne); // isnan(v)
        c.get(v).get(best!).op(r.op === 'argmax' ? gt : lt).op(0x72).op(0x71);
      } else {
        c.get(v).get(best!);
        this.compare(r.op === 'argmax' ? 'greater' : 'less', bodyT);
      }
      c.op(0x72).if();
      c.get(v).set(best!).i32(1).set(started!);
      // linear index over the reduction's variables
      c.i64(0);
      let stride = 1;
      const strides: number[] = [];
      for (let i = r.vars.length - 1; i >= 0; i--) { strides[i] = stride; stride *= r.vars[i]!.size; }
      r.vars.forEach((_, i) => { c.get(vs[i]!).i64(strides[i]!).op(0x7e).op(0x7c); });
      c.set(acc);
      c.end();
    } else {
      c.get(acc);
      this.expr(r.body);
      this.castTo(bodyT, r.dtype);
      this.accumulate(r.op, r.dtype);
      c.set(acc);
    }
    for (let i = r.vars.length - 1; i >= 0; i--) {
      this.scopes.pop();
      c.get(vs[i]!).i64(1).op(0x7c).set(vs[i]!).br(0).end().end();
    }
    return [acc, best];
  }

  private accumulate(op: string, d: DType): void {
    const c = this.c;
    switch (op) {
      case 'sum': this.binary('add', d); return;
      case 'prod': this.binary('multiply', d); return;
      case 'min': this.binary('minimum', d); return;
      case 'max': this.binary('maximum', d); return;
      case 'any': this.truthy(d); c.op(0x72); return;
      case 'all': this.truthy(d); c.op(0x71); return;
      default: throw new Error(`internal: accumulate ${op}`);
    }
  }

  private constant(v: number | bigint | boolean, d: DType): void {
    const c = this.c;
    const t = wasmType(d);
    if (t === T.i64) c.i64(typeof v === 'bigint' ? v : BigInt(Math.trunc(Number(v))));
    else if (t === T.f64) c.f64(Number(v));
    else if (t === T.f32) c.f32(Number(v));
    else c.i32(Number(v) | 0);
  }

  /** Emits `e`, caching values used more than once in a local of the current scope. */
  expr(e: Expr): void {
    const c = this.c;
    for (let i = this.scopes.length - 1; i >= 0; i--) {
      const l = this.scopes[i]!.get(e);
      if (l !== undefined) { c.get(l); return; }
    }
    this.emit(e);
    if ((this.uses.get(e) ?? 0) > 1 && e.k !== 'const' && e.k !== 'var' && e.k !== 'acc') {
      const l = this.local(wasmType(e.dtype));
      c.tee(l);
      this.scopes[this.scopes.length - 1]!.set(e, l);
    }
  }

  private emit(e: Expr): void {
    const c = this.c;
    switch (e.k) {
      case 'const': {
        const v = typeof e.value === 'string' ? BigInt(e.value) : typeof e.value === 'boolean' ? (e.value ? 1 : 0) : e.value;
        this.constant(e.dtype === 'bool' ? (Number(v) !== 0 ? 1 : 0) : v, e.dtype);
        return;
      }
      case 'var': c.get(this.varLocal.get(e.id)!); return;
      case 'acc': c.get(this.accLocal); return;
      case 'load':
        this.address(this.inPtr[e.input]!, this.inBase[e.input]!, this.inStride[e.input]!, e.index, e.dtype);
        c.mem(LOAD[e.dtype], log2Bytes(e.dtype));
        return;
      case 'cast':
        this.expr(e.a);
        this.castTo(e.a.dtype, e.dtype);
        return;
      case 'unary':
        if (e.op === 'floordiv_pos') { this.expr(e.a); return; }
        this.unary(e.op, e.a, e.dtype);
        return;
      case 'binary':
        if (e.op === 'power' && e.b.k === 'const' && Number(e.b.value) === 2 && INFO[e.a.dtype].kind === 'f') {
          this.expr(e.a); this.expr(e.a); this.binary('multiply', e.a.dtype); return;
        }
        this.expr(e.a);
        this.expr(e.b);
        this.binary(e.op, e.a.dtype);
        return;
      case 'where': {
        this.expr(e.c);
        this.truthy(e.c.dtype);
        c.if(wasmType(e.dtype));
        this.scopes.push(new Map()); this.expr(e.a); this.scopes.pop();
        c.else();
        this.scopes.push(new Map()); this.expr(e.b); this.scopes.pop();
        c.end();
        return;
      }
      case 'random': {
        // Element i uses Philox block i >> 1: words (0,1) for even i, (2,3) for odd i.
        // The block is kept per draw site, so neighbouring elements share one Philox call.
        const site = this.randomSite(e);
        const ix = this.tmpOf(T.i64);
        this.expr(e.index);
        c.tee(ix).i64(1).op(0x87).i64(1).op(0x7c).get(site.memo).op(0x52).if();
        c.get(ix).i64(1).op(0x87).tee(site.memo);
        this.philoxInline(e.seed, e.stream, site);
        c.get(site.memo).i64(1).op(0x7c).set(site.memo);
        c.end();
        const odd = site.odd;
        c.get(ix).op(0xa7).i32(1).op(0x71).set(odd);
        const word = (even: number, oddw: number) => c.get(oddw).get(even).get(odd).op(0x1b);
        const uniform = (a: () => void, b: () => void) => {
          // ((a >>> 5) * 2^26 + (b >>> 6)) * 2^-53
          a(); c.i32(5).op(0x76).op(0xb8).f64(67108864).op(0xa2);
          b(); c.i32(6).op(0x76).op(0xb8).op(0xa0).f64(1 / 9007199254740992).op(0xa2);
        };
        const [w0, w1, w2, w3] = site.words;
        if (e.dist === 'uniform') uniform(() => word(w0!, w2!), () => word(w1!, w3!));
        else if (e.dist === 'bits') word(w0!, w2!);
        else {
          // Box-Muller pair: r cos(t) for even elements, r sin(t) for odd ones.
          c.f64(1); uniform(() => c.get(w0!), () => c.get(w1!)); c.op(0xa1).call(importIndex('log')).f64(-2).op(0xa2).op(0x9f);
          uniform(() => c.get(w2!), () => c.get(w3!)); c.f64(2 * Math.PI).op(0xa2);
          const theta = this.tmpOf(T.f64);
          c.set(theta).get(odd).if(T.f64).get(theta).call(importIndex('sin')).else().get(theta).call(importIndex('cos')).end();
          c.op(0xa2);
        }
        return;
      }
      case 'reduce': {
        const [acc] = this.reduceLoop(e);
        c.get(acc);
        return;
      }
      default:
        return e satisfies never;
    }
  }

  private readonly sites = new Map<string, { memo: number; odd: number; words: number[] }>();
  private philoxTemps?: number[];

  /** Locals that keep the last Philox block of one draw site (memo holds block + 1; 0 = none). */
  private randomSite(e: Extract<Expr, { k: 'random' }>): { memo: number; odd: number; words: number[] } {
    const key = `${e.seed[0]},${e.seed[1]},${e.stream}`;
    let s = this.sites.get(key);
    if (!s) {
      s = { memo: this.local(T.i64), odd: this.local(T.i32), words: [this.local(T.i32), this.local(T.i32), this.local(T.i32), this.local(T.i32)] };
      this.sites.set(key, s);
    }
    return s;
  }

  /** Philox4x32-10 of counter (block on the stack top as i64, stream, 0) with key seed, into the site's words. */
  private philoxInline(seed: readonly [number, number], stream: number, site: { words: number[] }): void {
    const c = this.c;
    if (!this.philoxTemps) this.philoxTemps = [this.local(T.i64), this.local(T.i32), this.local(T.i32)];
    const [p, k0, k1] = this.philoxTemps as [number, number, number];
    const [c0, c1, c2, c3] = site.words as [number, number, number, number];
    c.tee(p).op(0xa7).set(c0);
    c.get(p).i64(32).op(0x88).op(0xa7).set(c1);
    c.i32(stream | 0).set(c2);
    c.i32(0).set(c3);
    c.i32(seed[0] | 0).set(k0).i32(seed[1] | 0).set(k1);
    for (let r = 0; r < PHILOX_ROUNDS; r++) {
      c.i64(PHILOX_M0).get(c0).op(0xad).op(0x7e).set(p);
      c.get(p).i64(32).op(0x88).op(0xa7).get(c3).op(0x73).get(k1).op(0x73); // new c2 on the stack
      c.get(p).op(0xa7).set(c3);
      c.set(c0);
      c.i64(PHILOX_M1).get(c2).op(0xad).op(0x7e).set(p);
      c.get(c0).set(c2);
      c.get(p).i64(32).op(0x88).op(0xa7).get(c1).op(0x73).get(k0).op(0x73).set(c0);
      c.get(p).op(0xa7).set(c1);
      if (r < PHILOX_ROUNDS - 1) {
        c.get(k0).i32(PHILOX_W0).op(0x6a).set(k0);
        c.get(k1).i32(PHILOX_W1).op(0x6a).set(k1);
      }
    }
  }

  truthy(d: DType): void {
    const c = this.c;
    if (d === 'float64') c.f64(0).op(0x62);
    else if (d === 'float32') c.f32(0).op(0x5c);
    else if (d === 'int64') c.i64(0).op(0x52);
    else if (d !== 'bool') c.i32(0).op(0x47);
  }

  /** Wraps an i32 value to a narrow integer dtype. */
  private wrapNarrow(d: DType): void {
    const c = this.c;
    if (d === 'int8') c.op(0xc0);
    else if (d === 'int16') c.op(0xc1);
    else if (d === 'uint8') c.i32(0xff).op(0x71);
    else if (d === 'uint16') c.i32(0xffff).op(0x71);
    else if (d === 'bool') c.i32(0).op(0x47);
  }

  castTo(from: DType, to: DType): void {
    if (from === to) return;
    const c = this.c;
    if (to === 'bool') { this.truthy(from); return; }
    const ft = wasmType(from), tt = wasmType(to);
    if (tt === T.f64 || tt === T.f32) {
      const f64 = tt === T.f64;
      if (ft === T.i32) c.op(f64 ? (signed(from) ? 0xb7 : 0xb8) : signed(from) ? 0xb2 : 0xb3);
      else if (ft === T.i64) c.op(f64 ? 0xb9 : 0xb4);
      else if (ft === T.f32) c.op(0xbb);
      else c.op(0xb6);
      return;
    }
    if (tt === T.i64) {
      if (ft === T.i32) c.op(signed(from) ? 0xac : 0xad);
      else c.fc(ft === T.f64 ? 6 : 4);
      return;
    }
    // to a 32-bit-or-narrower integer
    if (ft === T.i64) c.op(0xa7);
    else if (ft === T.f64) c.fc(6).op(0xa7);
    else if (ft === T.f32) c.fc(4).op(0xa7);
    this.wrapNarrow(to);
  }

  private compare(op: BinaryOp, d: DType): void {
    const t = wasmType(d);
    const u = !signed(d);
    const tbl: Record<string, [number, number, number, number]> = {
      // [i32 signed, i32 unsigned / i64 signed, f32, f64] chosen below
      equal: [0x46, 0x51, 0x5b, 0x61], not_equal: [0x47, 0x52, 0x5c, 0x62],
      less: [u ? 0x49 : 0x48, 0x53, 0x5d, 0x63], less_equal: [u ? 0x4d : 0x4c, 0x57, 0x5f, 0x65],
      greater: [u ? 0x4b : 0x4a, 0x55, 0x5e, 0x64], greater_equal: [u ? 0x4f : 0x4e, 0x59, 0x60, 0x66],
    };
    const row = tbl[op]!;
    this.c.op(t === T.i32 ? row[0] : t === T.i64 ? row[1] : t === T.f32 ? row[2] : row[3]);
  }

  private callF64(name: string, t: T, arity: number): void {
    const c = this.c;
    if (t === T.f32) {
      if (arity === 2) {
        const b = this.tmpOf(T.f32);
        c.set(b).op(0xbb).get(b).op(0xbb);
      } else c.op(0xbb);
      c.call(importIndex(name)).op(0xb6);
    } else c.call(importIndex(name));
  }

  private tmps = new Map<T, number>();
  private tmpOf(t: T): number {
    let l = this.tmps.get(t);
    if (l === undefined) { l = this.local(t); this.tmps.set(t, l); }
    return l;
  }

  /** Operands on the stack (both of dtype d); leaves the result. */
  binary(op: BinaryOp, d: DType): void {
    const c = this.c;
    if (d === 'uint32' && (op === 'floor_divide' || op === 'mod' || op === 'power')) {
      // Unsigned 32-bit values do not fit i32's signed division: compute in i64.
      const b = this.tmpOf(T.i32);
      c.set(b).op(0xad).get(b).op(0xad);
      this.binary(op, 'int64');
      c.op(0xa7);
      return;
    }
    const t = wasmType(d);
    const f = t === T.f32 || t === T.f64;
    const i64 = t === T.i64;
    const pick = (i32op: number, i64op: number, f32op: number, f64op: number) => c.op(t === T.i32 ? i32op : i64 ? i64op : t === T.f32 ? f32op : f64op);
    switch (op) {
      case 'add':
        if (d === 'bool') { c.op(0x72); return; }
        pick(0x6a, 0x7c, 0x92, 0xa0); if (t === T.i32) this.wrapNarrow(d); return;
      case 'subtract': pick(0x6b, 0x7d, 0x93, 0xa1); if (t === T.i32) this.wrapNarrow(d); return;
      case 'multiply':
        if (d === 'bool') { c.op(0x71); return; }
        pick(0x6c, 0x7e, 0x94, 0xa2); if (t === T.i32) this.wrapNarrow(d); return;
      case 'divide': pick(0x6d, 0x7f, 0x95, 0xa3); return;
      case 'floor_divide':
        if (f) { this.callF64('floordiv', t, 2); return; }
        c.call(i64 ? FN.fdivI64 : FN.fdivI32); if (t === T.i32) this.wrapNarrow(d); return;
      case 'mod':
        if (f) { this.callF64('fmod', t, 2); return; }
        c.call(i64 ? FN.modI64 : FN.modI32); if (t === T.i32) this.wrapNarrow(d); return;
      case 'power':
        if (f) { this.callF64('pow', t, 2); return; }
        c.call(i64 ? FN.powI64 : FN.powI32); if (t === T.i32) this.wrapNarrow(d); return;
      case 'arctan2': this.callF64('atan2', t, 2); return;
      case 'hypot': this.callF64('hypot', t, 2); return;
      case 'maximum': case 'minimum': case 'fmax': case 'fmin': {
        const max = op === 'maximum' || op === 'fmax';
        if (f && (op === 'maximum' || op === 'minimum')) { c.op(t === T.f32 ? (max ? 0x97 : 0x96) : max ? 0xa5 : 0xa4); return; }
        const b = this.tmpOf(t), a = this.tmpOf2(t);
        c.set(b).set(a);
        if (f) {
          // fmax/fmin: a NaN operand yields the other one
          c.get(a).get(b).get(b).get(b).op(t === T.f32 ? 0x5c : 0x62).op(0x1b).set(b);
          c.get(b).get(a).get(a).get(a).op(t === T.f32 ? 0x5c : 0x62).op(0x1b).set(a);
          c.get(a).get(b).op(t === T.f32 ? (max ? 0x97 : 0x96) : max ? 0xa5 : 0xa4);
          return;
        }
        c.get(a).get(b).get(a).get(b);
        this.compare(max ? 'greater' : 'less', d);
        c.op(0x1b);
        return;
      }
      case 'equal': case 'not_equal': case 'less': case 'less_equal': case 'greater': case 'greater_equal':
        this.compare(op, d); return;
      case 'logical_and': case 'logical_or': case 'logical_xor': {
        const b = this.tmpOf(t);
        c.set(b); this.truthy(d); c.get(b); this.truthy(d);
        c.op(op === 'logical_and' ? 0x71 : op === 'logical_or' ? 0x72 : 0x73);
        return;
      }
      case 'bitwise_and': pick(0x71, 0x83, 0, 0); return;
      case 'bitwise_or': pick(0x72, 0x84, 0, 0); return;
      case 'bitwise_xor': pick(0x73, 0x85, 0, 0); return;
      default: return op satisfies never;
    }
  }

  private tmps2 = new Map<T, number>();
  private tmpOf2(t: T): number {
    let l = this.tmps2.get(t);
    if (l === undefined) { l = this.local(t); this.tmps2.set(t, l); }
    return l;
  }

  private unary(op: UnaryOp, a: Expr, out: DType): void {
    const c = this.c;
    const d = a.dtype;
    const t = wasmType(d);
    const f = t === T.f32 || t === T.f64;
    const f64 = t === T.f64;
    const imp = UNARY_IMPORT[op];
    if (imp) { this.expr(a); this.callF64(imp, t, 1); void out; return; }
    switch (op) {
      case 'negative':
        if (f) { this.expr(a); c.op(f64 ? 0x9a : 0x8c); return; }
        if (t === T.i64) { c.i64(0); this.expr(a); c.op(0x7d); return; }
        c.i32(0); this.expr(a); c.op(0x6b); this.wrapNarrow(d); return;
      case 'abs': {
        if (f) { this.expr(a); c.op(f64 ? 0x99 : 0x8b); return; }
        if (!signed(d)) { this.expr(a); return; }
        const l = this.tmpOf(t);
        this.expr(a); c.set(l);
        if (t === T.i64) { c.i64(0).get(l).op(0x7d).get(l).get(l).i64(0).op(0x53).op(0x1b); return; }
        c.i32(0).get(l).op(0x6b).get(l).get(l).i32(0).op(0x48).op(0x1b); this.wrapNarrow(d); return;
      }
      case 'sign': {
        const l = this.tmpOf(t);
        this.expr(a); c.set(l);
        if (f) {
          // x > 0 ? 1 : x < 0 ? -1 : x  (keeps NaN and zero)
          const one = () => (f64 ? c.f64(1) : c.f32(1));
          const neg = () => (f64 ? c.f64(-1) : c.f32(-1));
          const z = () => (f64 ? c.f64(0) : c.f32(0));
          one(); neg(); c.get(l); c.get(l); z(); c.op(f64 ? 0x63 : 0x5d).op(0x1b);
          c.get(l); z(); c.op(f64 ? 0x64 : 0x5e).op(0x1b);
          return;
        }
        if (t === T.i64) { c.get(l).i64(0).op(0x55).op(0xad).get(l).i64(0).op(0x53).op(0xad).op(0x7d); return; }
        c.get(l).i32(0); this.compare('greater', d); c.get(l).i32(0); this.compare('less', d); c.op(0x6b); this.wrapNarrow(d); return;
      }
      case 'sqrt': this.expr(a); c.op(f64 ? 0x9f : 0x91); return;
      case 'square': this.expr(a); this.expr(a); this.binary('multiply', d); return;
      case 'reciprocal':
        if (f) { f64 ? c.f64(1) : c.f32(1); this.expr(a); c.op(f64 ? 0xa3 : 0x95); return; }
        {
          // integer 1/x: x itself for 1 and -1, else 0 (NumPy's C division; 0 for 1/0)
          const l = this.tmpOf(t);
          this.expr(a); c.set(l);
          if (!signed(d)) { c.get(l); t === T.i64 ? c.i64(0) : c.i32(0); c.get(l); t === T.i64 ? c.i64(1).op(0x51) : c.i32(1).op(0x46); c.op(0x1b); return; }
          if (t === T.i64) { c.get(l).i64(0).get(l).i64(1).op(0x7c).i64(3).op(0x54).get(l).i64(0).op(0x52).op(0x71).op(0x1b); return; }
          c.get(l).i32(0).get(l).i32(1).op(0x6a).i32(3).op(0x49).get(l).i32(0).op(0x47).op(0x71).op(0x1b); return;
        }
      case 'floor': this.expr(a); if (f) c.op(f64 ? 0x9c : 0x8e); return;
      case 'ceil': this.expr(a); if (f) c.op(f64 ? 0x9b : 0x8d); return;
      case 'trunc': this.expr(a); if (f) c.op(f64 ? 0x9d : 0x8f); return;
      case 'rint': this.expr(a); if (f) c.op(f64 ? 0x9e : 0x90); return;
      case 'logical_not': this.expr(a); this.truthy(d); c.op(0x45); return;
      case 'bitwise_not':
        this.expr(a);
        if (d === 'bool') { c.op(0x45); return; }
        if (t === T.i64) { c.i64(-1).op(0x85); return; }
        c.i32(-1).op(0x73); this.wrapNarrow(d); return;
      case 'isnan': {
        if (!f) { this.expr(a); c.op(t === T.i64 ? 0x1a : 0x1a).i32(0); return; }
        const l = this.tmpOf(t);
        this.expr(a); c.tee(l).get(l).op(f64 ? 0x62 : 0x5c); return;
      }
      case 'isinf':
        this.expr(a);
        if (!f) { c.op(0x1a).i32(0); return; }
        c.op(f64 ? 0x99 : 0x8b); f64 ? c.f64(Infinity) : c.f32(Infinity); c.op(f64 ? 0x61 : 0x5b); return;
      case 'isfinite':
        this.expr(a);
        if (!f) { c.op(0x1a).i32(1); return; }
        c.op(f64 ? 0x99 : 0x8b); f64 ? c.f64(Infinity) : c.f32(Infinity); c.op(f64 ? 0x63 : 0x5d); return;
      default:
        throw new Error(`internal: no WASM for unary ${op}`);
    }
  }
}

export function identityOf(op: string, d: DType): number | bigint {
  const big = d === 'int64';
  const kind = INFO[d].kind;
  switch (op) {
    case 'sum': case 'any': return big ? 0n : 0;
    case 'prod': case 'all': return big ? 1n : 1;
    case 'min': return big ? 9223372036854775807n : kind === 'f' ? Infinity : { bool: 1, int8: 127, int16: 32767, int32: 2147483647, uint8: 255, uint16: 65535, uint32: -1 }[d as 'int8']!;
    case 'max': return big ? -9223372036854775808n : kind === 'f' ? -Infinity : { bool: 0, int8: -128, int16: -32768, int32: -2147483648, uint8: 0, uint16: 0, uint32: 0 }[d as 'int8']!;
    default: return 0;
  }
}

/** Renders the module for `kernel` in full or partial mode. */
export function render(kernel: Kernel, partial: boolean): { bytes: Uint8Array; layout: Layout } {
  const layout = layoutOf(kernel, partial);
  const em = new Emitter(kernel, partial, layout);
  const run = em.build();
  const funcs: Func[] = [run, philoxFunc(), ...intDivFuncs(), ...intPowFuncs()];
  return { bytes: assemble(TYPES, IMPORTS, funcs, MAX_PAGES), layout };
}

/** Host functions with the reference interpreter's exact semantics. */
export function mathImports(): Record<string, (...a: number[]) => number> {
  const m: Record<string, (...a: number[]) => number> = {};
  for (const n of MATH_IMPORTS.unary) m[n] = n === 'exp2' ? (x: number) => Math.pow(2, x) : (Math as unknown as Record<string, (x: number) => number>)[n]!;
  m.pow = Math.pow;
  m.atan2 = Math.atan2;
  m.hypot = Math.hypot;
  m.floordiv = (a: number, b: number) => fdivmod(a, b)[0];
  m.fmod = (a: number, b: number) => fdivmod(a, b)[1];
  return m;
}
