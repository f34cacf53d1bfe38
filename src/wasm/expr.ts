// Expression emission for kernel modules: turns IR expressions into WASM
// instructions over locals, with NumPy's scalar semantics per dtype (the
// reference interpreter's, op for op), loads through a binding's origin and
// strides or through a running pointer, cached subexpressions per loop
// scope, and Philox for random draws (two SIMD chains of four blocks at a
// time, kept in scratch). The loop nests that drive it
// are in loops.ts.
// In: Exprs of one Kernel and its Layout. Out: instructions in `c`, locals.

import { type DType, INFO } from '../graph/dtype.js';
import { type BinaryOp, type ReduceOp, type UnaryOp, accStart, foldRule } from '../graph/ops.js';
import { type Expr, type Kernel, children, randomSites, siteKey } from '../ir/ir.js';
import { PHILOX_M0, PHILOX_M1, PHILOX_ROUNDS, PHILOX_W0, PHILOX_W1 } from '../ir/philox.js';
import { castScalar } from '../ir/scalar.js';
import { FN, LOAD, type Layout, STORE, TY, UNARY_IMPORT, importIndex, isImportedUnary, log2Bytes, signed, wasmType } from './abi.js';
import { Code, type Func, T, V } from './encode.js';

/** Independent sets of four Philox blocks made per call (a power of two). */
export const PHILOX_SETS = 2;
/**
 * Kernels with up to this many draw sites make their Philox blocks inline at
 * each site; more call the module's Philox functions, so that the code (some
 * 80 KB a site inline) stays within what engines compile (V8: 7.6 MB a function).
 */
export const PHILOX_INLINE_SITES = 4;
/** Scratch bytes per draw site: four words of each block made at once, then the round keys and the stream as vectors. */
export const PHILOX_SCRATCH = 64 * PHILOX_SETS + 32 * PHILOX_ROUNDS + 16;

export type ReduceExpr = Extract<Expr, { k: 'reduce' }>;

export abstract class ExprEmitter {
  readonly c = new Code();
  readonly locals: T[] = [];
  protected readonly varLocal = new Map<number, number>();
  protected readonly uses = new Map<Expr, number>();
  protected readonly scopes: Map<Expr, number>[] = [new Map()];
  protected readonly inPtr: number[] = [];
  protected readonly inBase: number[] = [];
  protected readonly inStride: number[][] = [];
  protected accLocal = -1;

  constructor(protected readonly k: Kernel, protected readonly partial: boolean, protected readonly layout: Layout) {}

  local(t: T): number {
    this.locals.push(t);
    return this.locals.length; // param 0 is the params pointer
  }

  protected countUses(e: Expr): void {
    const n = (this.uses.get(e) ?? 0) + 1;
    this.uses.set(e, n);
    if (n === 1) children(e).forEach((c) => this.countUses(c));
  }

  /** Loads i64 slot `s` of the parameter block. */
  protected param(s: number): void {
    this.c.get(0).mem(0x29, 3, s * 8);
  }

  protected bindInput(b: Layout['inputs'][number], ptrs: number[], bases: number[], strides: number[][]): void {
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
  protected address(ptr: number, base: number, strides: readonly number[], idx: readonly Expr[], d: DType): void {
    const c = this.c;
    c.get(base);
    idx.forEach((e, i) => { this.expr(e); c.get(strides[i]!).op(0x7e).op(0x7c); });
    c.op(0xa7);
    const sh = log2Bytes(d);
    if (sh) c.i32(sh).op(0x74);
    c.get(ptr).op(0x6a);
  }

  /** acc, v (both of dtype `d`) on the stack -> the accumulator after folding v in. */
  protected accumulate(op: ReduceOp, d: DType): void {
    this.binary(foldRule(op).combine, d);
  }

  /** Pushes the accumulator's first value. */
  protected startValue(op: ReduceOp, d: DType): void {
    this.constant(accStart(op, d), d);
  }

  protected constant(v: number | bigint | boolean, d: DType): void {
    const c = this.c;
    const t = wasmType(d);
    if (t === T.f64) c.f64(Number(v));
    else if (t === T.f32) c.f32(Number(v));
    else {
      // the interpreter's value: a float into an integer dtype (full(3, NaN, dtype='int32')) casts as a float does
      const n = castScalar(typeof v === 'bigint' ? v : Number(v), typeof v === 'bigint' ? 'int64' : 'float64', d);
      if (t === T.i64) c.i64(n);
      else c.i32(Number(n));
    }
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

  protected emit(e: Expr): void {
    const c = this.c;
    switch (e.k) {
      case 'const': {
        const v = typeof e.value === 'string' ? BigInt(e.value) : typeof e.value === 'boolean' ? (e.value ? 1 : 0) : e.value;
        this.constant(e.dtype === 'bool' ? (Number(v) !== 0 ? 1 : 0) : v, e.dtype);
        return;
      }
      case 'var': c.get(this.varLocal.get(e.id)!); return;
      case 'acc': c.get(this.accLocal); return;
      case 'load': {
        const p = this.fast.get(e);
        if (p !== undefined) c.get(p[0]);
        else this.address(this.inPtr[e.input]!, this.inBase[e.input]!, this.inStride[e.input]!, e.index, e.dtype);
        this.loadElem(e.dtype, p ? p[1] : 0);
        return;
      }
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
          this.expr(e.a); const l = this.tmpOf(wasmType(e.a.dtype)); c.tee(l).get(l); this.binary('multiply', e.a.dtype); return;
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
        // Element i uses Philox block b = i >> 1: words (0,1) for even i, (2,3) for odd i.
        // PHILOX_SETS x 4 blocks (b rounded down to a multiple of that, onwards) are made
        // at once, one per SIMD lane, in independent sets that the CPU overlaps, and kept
        // in the site's scratch, so neighbouring elements share one call (see philox4).
        const site = this.randomSite(e);
        const ix = this.tmpOf(T.i64);
        const shift = 3 + Math.log2(PHILOX_SETS);
        this.expr(e.index);
        c.tee(ix).i64(shift).op(0x87).i64(1).op(0x7c).get(site.memo).op(0x52).if();
        c.get(ix).i64(shift).op(0x87).tee(site.memo).i64(shift - 1).op(0x86);
        if (randomSites(this.k).length <= PHILOX_INLINE_SITES) {
          // inline: a call per block set costs the pi program about a tenth
          if (!this.philoxTemps) this.philoxTemps = [this.local(T.i64), ...Array.from({ length: 6 * PHILOX_SETS }, () => this.local(T.v128)), ...Array.from({ length: 4 }, () => this.local(T.i32))];
          const [q, ...vs] = this.philoxTemps as [number, ...number[]];
          c.set(q);
          emitPhilox(c, e.dist === 'uniform', q, this.scratchBase(), site.offset, vs.slice(0, 6 * PHILOX_SETS), vs.slice(6 * PHILOX_SETS));
        } else c.get(this.scratchBase()).i32(site.offset).op(0x6a).call(e.dist === 'uniform' ? FN.philoxUniform : FN.philoxWords);
        c.get(site.memo).i64(1).op(0x7c).set(site.memo);
        c.end();
        const at = site.at;
        if (e.dist === 'uniform') {
          // the uniforms in element order
          c.get(ix).op(0xa7).i32(8 * PHILOX_SETS - 1).op(0x71).i32(3).op(0x74).get(this.scratchBase()).op(0x6a);
          c.mem(0x2b, 3, site.offset);
          return;
        }
        // byte offset of the element's first word: set (b >> 2) % sets, vector 0 (even) or 2 (odd), lane b & 3
        c.get(ix).op(0xa7).tee(at).i32(1).op(0x71).i32(5).op(0x74);
        c.get(at).i32(1).op(0x76).i32(3).op(0x71).i32(2).op(0x74).op(0x72);
        if (PHILOX_SETS > 1) c.get(at).i32(3).op(0x76).i32(PHILOX_SETS - 1).op(0x71).i32(6).op(0x74).op(0x72);
        c.get(this.scratchBase()).op(0x6a).set(at);
        const word = (w: number) => c.get(at).mem(0x28, 2, site.offset + 16 * w);
        if (e.dist === 'bits') { word(0); return; }
        // (w >>> 8) * 2^-24: exact in float32
        if (e.dist === 'uniform32') { word(0); c.i32(8).op(0x76).op(0xb2).f32(5.9604644775390625e-8).op(0x94); return; }
        // Box-Muller pair from the block's four words: r cos(t) for even elements, r sin(t) for odd ones.
        const uniform = (a: () => void, b: () => void) => {
          // ((a >>> 5) * 2^26 + (b >>> 6)) * 2^-53
          a(); c.i32(5).op(0x76).op(0xb7).f64(67108864).op(0xa2);
          b(); c.i32(6).op(0x76).op(0xb7).op(0xa0).f64(1 / 9007199254740992).op(0xa2);
        };
        const odd = site.odd;
        c.get(at).get(ix).op(0xa7).i32(1).op(0x71).tee(odd).i32(5).op(0x74).op(0x6b).set(at); // back to vector 0
        c.f64(1); uniform(() => word(0), () => word(1)); c.op(0xa1).call(importIndex('log')).f64(-2).op(0xa2).op(0x9f);
        uniform(() => word(2), () => word(3)); c.f64(2 * Math.PI).op(0xa2);
        const theta = this.tmpOf(T.f64);
        c.set(theta).get(odd).if(T.f64).get(theta).call(importIndex('sin')).else().get(theta).call(importIndex('cos')).end();
        c.op(0xa2);
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

  protected readonly sites = new Map<string, { memo: number; odd: number; at: number; offset: number }>();
  private rbase = -1;

  private philoxTemps?: number[];

  /** A local holding the task's scratch address, read once at the top of the function. */
  protected scratchBase(): number {
    if (this.rbase < 0) throw new Error('internal: random draw without scratch');
    return this.rbase;
  }

  /** Reads the scratch pointer (call first in the function body when the kernel draws random numbers). */
  protected bindScratch(): void {
    if (!this.layout.scratch || this.layout.scratch.random === undefined) return;
    this.rbase = this.local(T.i32);
    this.param(this.layout.scratch.slot); this.c.op(0xa7).set(this.rbase);
    // each site's round keys as vectors, after its blocks: loads, where constants would cost a shuffle each on x64;
    // then its stream. Seeds and streams are parameters, so one program serves every seed.
    const k0 = this.local(T.i32), k1 = this.local(T.i32);
    randomSites(this.k).forEach((_, i) => {
      const at = this.layout.scratch!.random! + PHILOX_SCRATCH * i + 64 * PHILOX_SETS;
      const slot = this.layout.sites! + 3 * i;
      this.param(slot); this.c.op(0xa7).set(k0);
      this.param(slot + 1); this.c.op(0xa7).set(k1);
      for (let r = 0; r < PHILOX_ROUNDS; r++) {
        this.c.get(this.rbase).get(k0).v(V.i32x4_splat).vmem(V.store, 4, at + 32 * r);
        this.c.get(this.rbase).get(k1).v(V.i32x4_splat).vmem(V.store, 4, at + 32 * r + 16);
        this.c.get(k0).i32(PHILOX_W0 | 0).op(0x6a).set(k0);
        this.c.get(k1).i32(PHILOX_W1 | 0).op(0x6a).set(k1);
      }
      this.c.get(this.rbase); this.param(slot + 2); this.c.op(0xa7).v(V.i32x4_splat).vmem(V.store, 4, at + 32 * PHILOX_ROUNDS);
    });
  }

  /** Locals and scratch bytes of one draw site (memo holds (block >> 2) + 1; 0 = none). */
  protected randomSite(e: Extract<Expr, { k: 'random' }>): { memo: number; odd: number; at: number; offset: number } {
    const key = siteKey(e);
    let s = this.sites.get(key);
    if (!s) {
      const i = randomSites(this.k).indexOf(key);
      if (i < 0 || this.layout.scratch?.random === undefined) throw new Error('internal: random site without scratch');
      s = { memo: this.local(T.i64), odd: this.local(T.i32), at: this.local(T.i32), offset: this.layout.scratch.random + PHILOX_SCRATCH * i };
      this.sites.set(key, s);
    }
    return s;
  }

  truthy(d: DType): void {
    const c = this.c;
    if (d === 'float64') c.f64(0).op(0x62);
    else if (d === 'float32' || d === 'float16') c.f32(0).op(0x5c);
    else if (d === 'int64') c.i64(0).op(0x52);
    else if (d !== 'bool') c.i32(0).op(0x47);
  }

  /** Wraps an i32 value to a narrow integer dtype. */
  protected wrapNarrow(d: DType): void {
    const c = this.c;
    if (d === 'int8') c.op(0xc0);
    else if (d === 'int16') c.op(0xc1);
    else if (d === 'uint8') c.i32(0xff).op(0x71);
    else if (d === 'uint16') c.i32(0xffff).op(0x71);
    else if (d === 'bool') c.i32(0).op(0x47);
  }

  /** Loads an element of `d` from the address on the stack (`offset` bytes on), as a value of its wasmType. */
  loadElem(d: DType, offset = 0): void {
    this.c.mem(LOAD[d], log2Bytes(d), offset);
    if (d === 'float16') this.halfToF32();
  }

  /** Stores the value on the stack (of `d`'s wasmType) as an element of `d` at the address under it. */
  storeElem(d: DType, offset = 0): void {
    if (d === 'float16') this.f32ToHalf();
    this.c.mem(STORE[d], log2Bytes(d), offset);
  }

  /** float16 bits (i32) to their f32 value: the magnitude bits placed in an f32 and scaled by 2^112 (exact, subnormals too), or inf/NaN; then the sign. */
  private halfToF32(): void {
    const c = this.c;
    const h = this.local(T.i32), m = this.local(T.i32);
    c.tee(h).i32(0x7fff).op(0x71).i32(13).op(0x74).set(m);
    c.get(m).i32(0x7f800000).op(0x72);
    c.get(m).op(0xbe).f32(5.192296858534828e33).op(0x94).op(0xbc);
    c.get(h).i32(0x7c00).op(0x71).i32(0x7c00).op(0x46).op(0x1b);
    c.get(h).i32(0x8000).op(0x71).i32(16).op(0x74).op(0x72).op(0xbe);
  }

  /**
   * An f32 to the float16 bits nearest it, ties to even (F. Giesen's
   * float_to_half_fast3_rtne): NaN and overflow by compares; a subnormal
   * result by adding 0.5, which rounds at float16's subnormal spacing; a normal
   * one by integer rounding of the rebiased bits. The three are selected.
   */
  private f32ToHalf(): void {
    const c = this.c;
    const u = this.local(T.i32), a = this.local(T.i32);
    c.op(0xbc).tee(u).i32(0x7fffffff).op(0x71).set(a);
    c.i32(0x7e00).i32(0x7c00).get(a).i32(0x7f800000).op(0x4b).op(0x1b);
    c.get(a).op(0xbe).f32(0.5).op(0x92).op(0xbc).i32(0x3f000000).op(0x6b);
    c.get(a).i32(0xc8000fff | 0).op(0x6a).get(a).i32(13).op(0x76).i32(1).op(0x71).op(0x6a).i32(13).op(0x76);
    c.get(a).i32(0x38800000).op(0x49).op(0x1b);
    c.get(a).i32(0x47800000).op(0x4f).op(0x1b);
    c.get(u).i32(16).op(0x76).i32(0x8000).op(0x71).op(0x72);
  }

  /**
   * An f32 rounded to the nearest float16 value (ties to even), staying an
   * f32 (half of f32ToHalf then halfToF32): in float16's normal range the
   * f32 bits lose their low 13 mantissa bits, rounded; below it, adding and
   * taking away 0.5 rounds at float16's subnormal spacing (2^-24); past 65504
   * (rounded) is infinity; a NaN stays itself.
   */
  private roundToHalf(): void {
    const c = this.c;
    const u = this.local(T.i32), a = this.local(T.i32);
    c.op(0xbc).tee(u).i32(0x7fffffff).op(0x71).set(a);
    c.get(a).op(0xbe).f32(0.5).op(0x92).f32(0.5).op(0x93).op(0xbc);
    c.get(a).i32(0xfff).op(0x6a).get(a).i32(13).op(0x76).i32(1).op(0x71).op(0x6a).i32(0xffffe000 | 0).op(0x71);
    c.get(a).i32(0x38800000).op(0x49).op(0x1b).set(a);
    c.i32(0x7f800000).get(a).get(a).i32(0x47800000).op(0x4f).op(0x1b).set(a);
    c.get(u).i32(0x7fffffff).op(0x71).get(a).get(u).i32(0x7fffffff).op(0x71).i32(0x7f800000).op(0x4b).op(0x1b);
    c.get(u).i32(0x80000000 | 0).op(0x71).op(0x72).op(0xbe);
  }

  /** An f64 to the nearest float16 bits: rounded to f32 to odd (exact, or inexact with its last bit set), then as f32ToHalf, one rounding in all. */
  private f64ToHalf(): void {
    const c = this.c;
    const d = this.local(T.f64), r = this.local(T.f32), inexact = this.local(T.i32);
    c.tee(d).op(0xb6).tee(r).op(0xbc);
    c.get(r).op(0xbb).get(d).op(0x62).set(inexact);
    c.get(r).op(0xbb).op(0x99).get(d).op(0x99).op(0x64).op(0x6b);
    c.get(inexact).op(0x72).op(0xbe);
    this.f32ToHalf();
  }

  castTo(from: DType, to: DType): void {
    if (from === to) return;
    const c = this.c;
    if (to === 'bool') { this.truthy(from); return; }
    if (to === 'float16') {
      // a float16 value is an f32 rounded to float16
      if (from === 'float64') { this.f64ToHalf(); this.halfToF32(); return; }
      this.castTo(from, 'float32');
      this.roundToHalf();
      return;
    }
    if (from === 'float16') {
      // NumPy's float16 -> uint32 loop goes through int64: NaN and +-inf give 0 (a finite float16 fits i32)
      if (to === 'uint32') {
        const x = this.local(T.f32);
        c.tee(x).fc(0).i32(0).get(x).op(0x8b).f32(Infinity).op(0x5d).op(0x1b);
        return;
      }
      this.castTo('float32', to);
      return;
    }
    const ft = wasmType(from), tt = wasmType(to);
    if (tt === T.f64 || tt === T.f32) {
      const f64 = tt === T.f64;
      if (ft === T.i32) c.op(f64 ? (signed(from) ? 0xb7 : 0xb8) : signed(from) ? 0xb2 : 0xb3);
      else if (ft === T.i64) c.op(f64 ? 0xb9 : 0xb4);
      else if (ft === T.f32) c.op(0xbb);
      else c.op(0xb6);
      return;
    }
    if (ft === T.f64 || ft === T.f32) { this.floatToInt(ft, to); return; }
    if (tt === T.i64) { c.op(signed(from) ? 0xac : 0xad); return; }
    // to a 32-bit-or-narrower integer
    if (ft === T.i64) c.op(0xa7);
    this.wrapNarrow(to);
  }

  /**
   * A float on the stack to the integer dtype `to` as NumPy computes it on
   * x86-64 (ir/scalar.ts floatToInt). WASM's saturating truncations agree with
   * x86's in range and at the low end, so a compare and a select patch the
   * rest (the high end and NaN) without a branch or a call.
   */
  private floatToInt(ft: T, to: DType): void {
    const c = this.c, f64 = ft === T.f64;
    const x = this.local(ft);
    const bound = (v: number) => (f64 ? c.f64(v) : c.f32(v));
    const lt = f64 ? 0x63 : 0x5d, gt = f64 ? 0x64 : 0x5e;
    c.tee(x);
    if (to === 'int64') {
      // i64.trunc_sat gives INT64_MAX from 2^63 up and 0 for NaN; x86 gives INT64_MIN for both
      c.fc(f64 ? 6 : 4).i64(-(2n ** 63n)).get(x);
      bound(2 ** 63); c.op(lt).op(0x1b);
      return;
    }
    if (to === 'uint32') {
      // int64's low 32 bits are NumPy's for -2^31-1 < x < 2^32; from 2^32 up it gives 0, below (and NaN) 2^31
      // (in f32 the low bound rounds to -2^31, whose result is 2^31 either way)
      c.fc(f64 ? 6 : 4).op(0xa7).i32(0).get(x);
      bound(4294967296); c.op(lt).op(0x1b);
      c.i32(0x80000000 | 0).get(x);
      bound(-2147483649); c.op(gt).op(0x1b);
      return;
    }
    // i32.trunc_sat already gives INT32_MIN at and below the low end; x86 also from 2^31 up and for NaN
    c.fc(f64 ? 2 : 0).i32(0x80000000 | 0).get(x);
    bound(2147483648); c.op(lt).op(0x1b);
    this.wrapNarrow(to);
  }

  protected compare(op: BinaryOp, d: DType): void {
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

  protected callF64(name: string, t: T, arity: number): void {
    const c = this.c;
    if (t === T.f32) {
      if (arity === 2) {
        const b = this.tmpOf(T.f32);
        c.set(b).op(0xbb).get(b).op(0xbb);
      } else c.op(0xbb);
      c.call(importIndex(name)).op(0xb6);
    } else c.call(importIndex(name));
  }

  protected tmps = new Map<T, number>();
  protected tmpOf(t: T): number {
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
      case 'fmod': {
        if (f) { this.callF64('cfmod', t, 2); return; }
        // C's remainder, 0 for a zero divisor (divide by 1 there); rem never traps on MIN % -1
        const b = this.tmpOf(t);
        c.set(b).get(b).get(b).op(i64 ? 0x50 : 0x45);
        if (i64) c.op(0xad);
        c.op(i64 ? 0x84 : 0x72);
        c.op(signed(d) ? (i64 ? 0x81 : 0x6f) : (i64 ? 0x82 : 0x70));
        return;
      }
      case 'copysign': pick(0, 0, 0x98, 0xa6); return;
      case 'nextafter': this.callF64(d === 'float16' ? 'nextafter16' : t === T.f32 ? 'nextafter32' : 'nextafter', t, 2); return;
      case 'ldexp': this.callF64('ldexp', t, 2); return;
      case 'gcd': case 'lcm': {
        const fn = op === 'gcd' ? FN.gcdI64 : FN.lcmI64;
        if (i64) { c.call(fn); return; }
        const b = this.tmpOf(t), ext = signed(d) ? 0xac : 0xad;
        c.set(b).op(ext).get(b).op(ext).call(fn).op(0xa7);
        this.wrapNarrow(d);
        return;
      }
      case 'left_shift': case 'right_shift': {
        // counts are unsigned here: a negative one is huge, past the width, as in NumPy's (size_t) compare
        const b = this.tmpOf(t), a = this.tmpOf2(t), w = i64 ? 64 : 32;
        const k = (v: number) => (i64 ? c.i64(v) : c.i32(v));
        const ltu = i64 ? 0x54 : 0x49;
        c.set(b).set(a);
        if (op === 'right_shift' && signed(d)) {
          // past the width an arithmetic shift by width - 1 leaves only the sign: -1 or 0
          c.get(a).get(b); k(w - 1); c.get(b); k(w); c.op(ltu).op(0x1b).op(i64 ? 0x87 : 0x75);
          return;
        }
        c.get(a).get(b).op(op === 'left_shift' ? (i64 ? 0x86 : 0x74) : (i64 ? 0x88 : 0x76)); k(0); c.get(b); k(w); c.op(ltu).op(0x1b);
        if (!i64) this.wrapNarrow(d);
        return;
      }
      default: return op satisfies never;
    }
  }

  protected tmps2 = new Map<T, number>();
  protected tmpOf2(t: T): number {
    let l = this.tmps2.get(t);
    if (l === undefined) { l = this.local(t); this.tmps2.set(t, l); }
    return l;
  }

  protected unary(op: UnaryOp, a: Expr, out: DType): void {
    const c = this.c;
    const d = a.dtype;
    const t = wasmType(d);
    const f = t === T.f32 || t === T.f64;
    const f64 = t === T.f64;
    if (isImportedUnary(op)) { this.expr(a); this.callF64(UNARY_IMPORT[op], t, 1); void out; return; }
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
          // x > 0 ? 1 : x < 0 ? -1 : x + 0  (keeps NaN; -0 + 0 is +0, as NumPy's sign(-0.0) is 0.0)
          const one = () => (f64 ? c.f64(1) : c.f32(1));
          const neg = () => (f64 ? c.f64(-1) : c.f32(-1));
          const z = () => (f64 ? c.f64(0) : c.f32(0));
          one(); neg(); c.get(l); z(); c.op(f64 ? 0xa0 : 0x92); c.get(l); z(); c.op(f64 ? 0x63 : 0x5d).op(0x1b);
          c.get(l); z(); c.op(f64 ? 0x64 : 0x5e).op(0x1b);
          return;
        }
        if (t === T.i64) { c.get(l).i64(0).op(0x55).op(0xad).get(l).i64(0).op(0x53).op(0xad).op(0x7d); return; }
        c.get(l).i32(0); this.compare('greater', d); c.get(l).i32(0); this.compare('less', d); c.op(0x6b); this.wrapNarrow(d); return;
      }
      case 'sqrt': this.expr(a); c.op(f64 ? 0x9f : 0x91); return;
      case 'square': { this.expr(a); const l = this.tmpOf(t); c.tee(l).get(l); this.binary('multiply', d); return; }
      case 'reciprocal':
        if (f) { f64 ? c.f64(1) : c.f32(1); this.expr(a); c.op(f64 ? 0xa3 : 0x95); return; }
        {
          // integer 1/x: x itself for 1 and -1, else 0; 1/0 as NumPy's int(1.0 / 0): the most negative
          // int32 or int64, which narrower types cast through int32 wrap to 0
          const l = this.tmpOf(t);
          this.expr(a); c.set(l);
          if (!signed(d)) { c.get(l); t === T.i64 ? c.i64(0) : c.i32(0); c.get(l); t === T.i64 ? c.i64(1).op(0x51) : c.i32(1).op(0x46); c.op(0x1b); return; }
          if (t === T.i64) { c.get(l).i64(-(2n ** 63n)).get(l).i64(0).op(0x52).op(0x1b).i64(0).get(l).i64(1).op(0x7c).i64(3).op(0x54).op(0x1b); return; }
          c.get(l).i32(d === 'int32' ? -(2 ** 31) : 0).get(l).i32(0).op(0x47).op(0x1b).i32(0).get(l).i32(1).op(0x6a).i32(3).op(0x49).op(0x1b); return;
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
      case 'signbit':
        this.expr(a);
        if (f64) { c.op(0xbd).i64(63).op(0x88).op(0xa7); return; }
        c.op(0xbc).i32(31).op(0x76); return;
      case 'frexp_mantissa': case 'frexp_exponent':
        // float32 values are exact in float64, and so are their frexp parts
        this.expr(a);
        if (!f64) c.op(0xbb);
        c.call(importIndex(op === 'frexp_mantissa' ? 'frexpm' : 'frexpe'));
        if (op === 'frexp_exponent') c.op(0xaa);
        else if (!f64) c.op(0xb6);
        return;
      default:
        return op satisfies never;
    }
  }

  /** Loads emitted through a running pointer: [pointer local, constant byte offset]. */
  protected readonly fast = new Map<Expr, readonly [number, number]>();

  /** Emits the loop nest of reduction `r`; returns its accumulator local (and, for arg-reductions, the best value's). */
  protected abstract reduceLoop(r: ReduceExpr, ranges?: readonly (readonly [number, number])[]): [number, number | undefined];
}

/**
 * The function philox(q: i64, site: i32): Philox4x32-10 of the counters
 * (q + j, stream, 0), j = 0 .. 4 * sets - 1, with the round keys and stream
 * that bindScratch stored at the draw site's scratch (address `site`) after its blocks, one block per i32x4 lane, each set of four blocks an independent chain. Stores
 * 64 bytes per set at `site`: for a uniform draw the set's eight
 * uniforms in element order (exact, as toUniform makes them); otherwise its
 * words as four vectors (word 0 of the four blocks, then word 1, 2, 3).
 */
export function philoxFunc(uniform: boolean): Func {
  const c = new Code();
  const locals = [...Array.from({ length: 6 * PHILOX_SETS }, () => T.v128), T.i32, T.i32, T.i32, T.i32];
  const at = (i: number) => 2 + i;
  emitPhilox(c, uniform, 0, 1, 0, Array.from({ length: 6 * PHILOX_SETS }, (_, i) => at(i)), [0, 1, 2, 3].map((i) => at(6 * PHILOX_SETS + i)));
  return { type: TY.philox, locals, code: c };
}

/**
 * Emits the Philox blocks of one call: counter q from i64 local `q`, the
 * site at i32 local `base` plus `offset` bytes, `vs` 6 * PHILOX_SETS v128
 * locals and `xs` four i32 locals to work in. The body of philoxFunc, or
 * inline at a draw site.
 */
function emitPhilox(c: Code, uniform: boolean, q: number, base: number, offset: number, vs: readonly number[], xs: readonly number[]): void {
  const S = PHILOX_SETS;
  const sets = Array.from({ length: S }, (_, s) => vs.slice(6 * s, 6 * s + 6) as [number, number, number, number, number, number]);
  const HI = [4, 5, 6, 7, 12, 13, 14, 15, 20, 21, 22, 23, 28, 29, 30, 31];
  const M0 = [PHILOX_M0, PHILOX_M0, PHILOX_M0, PHILOX_M0], M1 = [PHILOX_M1, PHILOX_M1, PHILOX_M1, PHILOX_M1];
  const keys = offset + 64 * S; // the round keys bindScratch wrote (k0 of round r at keys + 32 r, k1 16 bytes on), then the stream
  const key = (r: number, j: number) => { c.get(base).vmem(V.load, 4, keys + 32 * r + 16 * j); };
  const word = (at: number) => { c.get(base).mem(0x28, 2, at); }; // lane 0 of a stored vector
  // The full products of x and m, lanes 0-1 in p and 2-3 in h (i64x2 each); hi: their high words.
  const products = (x: number, m: number[], p: number, h: number) => {
    c.get(x).vconst32(m).v(V.i64x2_extmul_low_i32x4_u).set(p);
    c.get(x).vconst32(m).v(V.i64x2_extmul_high_i32x4_u).set(h);
  };
  const hi = (p: number, h: number) => { c.get(p).get(h).v(V.shuffle, ...HI); };
  // A round: c0' = hi(M1 c2) ^ c1 ^ k0, c1' = lo(M1 c2), c2' = hi(M0 c0) ^ c3 ^ k1, c3' = lo(M0 c0).
  // Of a call's counters (q + j, q >> 32, stream, 0) only c0 differs between its blocks, so half
  // of rounds 0 and 1 is the same for all of them: scalars, once a call. Round 0 makes
  // c0' = hi(M1 stream) ^ (q >> 32) ^ k0 (a) and c1' = lo(M1 stream); round 1 then
  // c0'' = hi(M1 c2') ^ x0 (x0 = c1' ^ k0), c2'' = x1 ^ c3' (x1 = hi(M0 a) ^ k1), c3'' = lo(M0 a) (x2).
  const [a, x0, x1, x2] = xs as [number, number, number, number];
  const m1Stream = () => { c.i64(PHILOX_M1); word(keys + 32 * PHILOX_ROUNDS); c.op(0xad).op(0x7e); };
  m1Stream(); c.i64(32).op(0x88).op(0xa7).get(q).i64(32).op(0x88).op(0xa7).op(0x73); word(keys); c.op(0x73).set(a);
  m1Stream(); c.op(0xa7); word(keys + 32); c.op(0x73).set(x0);
  c.i64(PHILOX_M0).get(a).op(0xad).op(0x7e).i64(32).op(0x88).op(0xa7); word(keys + 48); c.op(0x73).set(x1);
  c.get(a).i32(PHILOX_M0).op(0x6c).set(x2);
  sets.forEach(([c0, c1, c2, c3, p, h], s) => {
    c.get(q).op(0xa7).v(V.i32x4_splat).vconst32([4 * s, 4 * s + 1, 4 * s + 2, 4 * s + 3]).v(V.i32x4_add).set(c0);
    // round 0: c2' = hi(M0 c0) ^ k1 (c3 is 0), c3' = lo(M0 c0)
    products(c0, M0, p, h);
    hi(p, h); key(0, 1); c.v(V.xor).set(c2);
    c.get(c0).vconst32(M0).v(V.i32x4_mul).set(c3);
    // round 1
    products(c2, M1, p, h);
    hi(p, h); c.get(x0).v(V.i32x4_splat).v(V.xor).set(c0);
    c.get(c2).vconst32(M1).v(V.i32x4_mul).set(c1);
    c.get(x1).v(V.i32x4_splat).get(c3).v(V.xor).set(c2);
    c.get(x2).v(V.i32x4_splat).set(c3);
  });
  for (let r = 2; r < PHILOX_ROUNDS; r++) {
    for (const [c0, c1, c2, c3, p, h] of sets) {
      // (high words from the full products, low words from one 32-bit multiply)
      products(c2, M1, p, h);
      hi(p, h); c.get(c1).v(V.xor); key(r, 0); c.v(V.xor);
      c.get(c2).vconst32(M1).v(V.i32x4_mul).set(c1);
      products(c0, M0, p, h);
      hi(p, h); c.get(c3).v(V.xor); key(r, 1); c.v(V.xor).set(c2);
      c.get(c0).vconst32(M0).v(V.i32x4_mul).set(c3);
      c.set(c0);
    }
  }
  if (!uniform) {
    sets.forEach(([c0, c1, c2, c3], s) => {
      [c0, c1, c2, c3].forEach((x, w) => { c.get(base).get(x).vmem(V.store, 4, offset + 64 * s + 16 * w); });
    });
    return;
  }
  // ((a >>> 5) * 2^26 + (b >>> 6)) * 2^-53 in f64x2: even elements from words (0, 1), odd from (2, 3)
  const f64x2 = (x: number) => { const b = new Uint8Array(new Float64Array([x, x]).buffer); c.v(0x0c, ...b); };
  const HIGH = [8, 9, 10, 11, 12, 13, 14, 15, 8, 9, 10, 11, 12, 13, 14, 15];
  // lanes 0-1 (or 2-3) of x >>> sh as f64x2 (sh > 0, so the signed conversion, one instruction on x64, is exact)
  const convert = (x: number, sh: number, high: boolean) => {
    c.get(x);
    if (high) c.get(x).v(V.shuffle, ...HIGH);
    c.i32(sh).v(V.i32x4_shr_u).v(V.f64x2_convert_low_i32x4_s);
  };
  for (const [c0, c1, c2, c3, p, h] of sets) {
    // p, h: even uniforms of blocks (0, 1) and (2, 3); then c0, c1: odd ones
    const halves = (a: number, b: number, high: boolean) => {
      convert(a, 5, high); f64x2(67108864); c.v(V.f64x2_mul);
      convert(b, 6, high); c.v(V.f64x2_add); f64x2(1 / 9007199254740992); c.v(V.f64x2_mul);
    };
    halves(c0, c1, false); c.set(p);
    halves(c0, c1, true); c.set(h);
    halves(c2, c3, false); c.set(c0);
    halves(c2, c3, true); c.set(c1);
  }
  // interleave even and odd: element 2j is block j's even uniform, 2j + 1 its odd one
  const EVEN = [0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23];
  const ODD = [8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31];
  sets.forEach(([c0, c1, , , p, h], s) => {
    const at = offset + 64 * s;
    c.get(base).get(p).get(c0).v(V.shuffle, ...EVEN).vmem(V.store, 4, at);
    c.get(base).get(p).get(c0).v(V.shuffle, ...ODD).vmem(V.store, 4, at + 16);
    c.get(base).get(h).get(c1).v(V.shuffle, ...EVEN).vmem(V.store, 4, at + 32);
    c.get(base).get(h).get(c1).v(V.shuffle, ...ODD).vmem(V.store, 4, at + 48);
  });
}
