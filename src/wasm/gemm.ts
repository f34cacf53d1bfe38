// The matrix-product routine: a hand-written GEMM, generated at run time as a
// WebAssembly module for one dtype (float32 or float64). It replaces the
// generic loop nest for a kernel `matmulOf` recognises and keeps that
// kernel's calling convention (the same Layout and parameters), so tiling,
// scheduling and the reference interpreter see an ordinary reduction task.
// Design (Goto/BLIS): the task's output box is cut into NC-wide column blocks
// and KC-deep slices of K; each B block is packed into NR-wide micro-panels,
// each MC-high A block into MR-high micro-panels, and a register-blocked
// micro-kernel (MR x NR accumulators in v128 locals, f32x4 / f64x2) runs over
// a B micro-panel (kept in L1) for every A micro-panel (streamed from L2).
// Exactness: KC is the interpreter's SUM_BLOCK and the kernel's reduction has
// MATMUL_LANES = 2 lanes, so a KC slice is one block of the blocked float sum:
// the packing puts the block's even k first, then its odd k, and each output
// sums each lane's products one at a time in k order from zero, with separate
// multiply and add (no FMA, which WASM SIMD128 lacks anyway: relaxed SIMD is
// off by default in Node 20), adds the two lanes, then adds the block sum to
// its group sum kept in C (in its own dtype). A task's K range holds at most
// one group (tile splits longer ones), so the result is bit for bit the
// reference interpreter's. Edge tiles (fewer than MR rows or NR columns) run
// on a private tile, so a task never writes outside its box.
// In: a matmul Kernel, its Layout. Out: the module's functions.

import { type Kernel, SUM_BLOCK } from '../ir/ir.js';
import { Code, type Func, T, V } from './encode.js';

/** Block sizes per dtype: MR rows x NV vectors of accumulators; KC (the sum's block), MC, NC cache blocks. */
export interface GemmBlocking { readonly mr: number; readonly nv: number; readonly kc: number; readonly mc: number; readonly nc: number }

export const GEMM_BLOCKING: Record<'float32' | 'float64', GemmBlocking> = {
  float32: { mr: 4, nv: 2, kc: SUM_BLOCK, mc: 128, nc: 2048 },
  float64: { mr: 4, nv: 2, kc: SUM_BLOCK, mc: 128, nc: 2048 },
};

/** Bytes per value in packed A: float64 values are stored twice, as a ready v128 broadcast. */
const packedAElem = (es: number): number => (es === 4 ? 4 : 16);

/** Scratch bytes one task needs: packed B block, packed A block, one edge tile, the parked even lanes. */
export function gemmScratchBytes(dtype: 'float32' | 'float64', b: GemmBlocking = GEMM_BLOCKING[dtype]): number {
  const es = dtype === 'float32' ? 4 : 8;
  const nr = b.nv * (16 / es);
  const ncPad = Math.ceil(b.nc / nr) * nr, mcPad = Math.ceil(b.mc / b.mr) * b.mr;
  return (b.kc * ncPad + b.mr * nr) * es + mcPad * b.kc * packedAElem(es) + b.mr * b.nv * 16 + 64;
}

/** Parameter slots the routine reads (a subset of the kernel's Layout). */
export interface GemmSlots {
  readonly a: { ptr: number; origin: number; strides: number };
  readonly b: { ptr: number; origin: number; strides: number };
  readonly c: { ptr: number; origin: number; strides: number };
  readonly outer: number;
  readonly red: number;
  readonly scratch: number;
}

/**
 * The micro-kernel: params (pa, pb, kc, c, ldc, first, spill). Packed A holds
 * MR values per k, packed B holds NR per k, both with the block's even k
 * first, then its odd k; C is an MR x NR tile with row stride ldc bytes. It
 * sums each output's two lanes from zero (the even lane parked in `spill`
 * while the odd one runs), adds them into the block sum, then stores that
 * (`first`) or adds it to C.
 */
function microKernel(es: number, b: GemmBlocking, type: number): Func {
  const c = new Code();
  const { mr, nv } = b;
  const lanes = 16 / es;
  const nr = nv * lanes;
  const [pa, pb, kc, cp, ldc, first, spill] = [0, 1, 2, 3, 4, 5, 6];
  let n = 7;
  const locals: T[] = [];
  const local = (t: T) => { locals.push(t); return n++; };
  const acc: number[][] = Array.from({ length: mr }, () => Array.from({ length: nv }, () => local(T.v128)));
  const bv = Array.from({ length: nv }, () => local(T.v128));
  const av = local(T.v128);
  const cnt = local(T.i32);
  const rowPtr = Array.from({ length: mr }, () => local(T.i32));
  const [add, mul] = es === 4 ? [V.f32x4_add, V.f32x4_mul] : [V.f64x2_add, V.f64x2_mul];
  // float64 A values are packed already duplicated into a v128: a plain load, no broadcast
  // (a memory-operand movddup costs a shuffle-port uop on Zen, vbroadcastss does not).
  const ae = packedAElem(es);
  const loadA = (off: number) => (es === 4 ? c.get(pa).vmem(V.load32_splat, 2, off) : c.get(pa).vmem(V.load, 4, off));
  for (let r = 0; r < mr; r++) {
    if (r === 0) c.get(cp).set(rowPtr[0]!);
    else c.get(rowPtr[r - 1]!).get(ldc).op(0x6a).set(rowPtr[r]!);
  }
  const all = (f: (a: number, r: number, v: number) => void) => acc.forEach((row, r) => row.forEach((a, v) => f(a, r, v)));
  // One k step per iteration: NV loads of B, MR broadcasts of A, MR x NV multiply-adds.
  const lane = () => {
    all((a) => c.vzero().set(a));
    c.block().loop();
    c.get(cnt).op(0x45).brIf(1);
    for (let v = 0; v < nv; v++) c.get(pb).vmem(V.load, 4, v * 16).set(bv[v]!);
    for (let r = 0; r < mr; r++) {
      loadA(r * ae); c.set(av);
      for (let v = 0; v < nv; v++) c.get(acc[r]![v]!).get(av).get(bv[v]!).v(mul).v(add).set(acc[r]![v]!);
    }
    c.get(pa).i32(mr * ae).op(0x6a).set(pa);
    c.get(pb).i32(nr * es).op(0x6a).set(pb);
    c.get(cnt).i32(1).op(0x6b).set(cnt);
    c.br(0).end().end();
  };
  c.get(kc).i32(1).op(0x6a).i32(1).op(0x76).set(cnt);
  lane();
  all((a, r, v) => c.get(spill).get(a).vmem(V.store, 4, (r * nv + v) * 16));
  c.get(kc).i32(1).op(0x76).set(cnt);
  lane();
  all((a, r, v) => c.get(a).get(spill).vmem(V.load, 4, (r * nv + v) * 16).v(add).set(a));
  // The block sum starts the output's group sum, or adds to it.
  c.get(first).if();
  all((a, r, v) => c.get(rowPtr[r]!).get(a).vmem(V.store, 4, v * 16));
  c.else();
  all((a, r, v) => c.get(rowPtr[r]!).get(rowPtr[r]!).vmem(V.load, 4, v * 16).get(a).v(add).vmem(V.store, 4, v * 16));
  c.end();
  return { type, locals, code: c };
}

/**
 * The task driver `run(params)`: loops over batch indices, then over the
 * cache blocks, packing and calling the micro-kernel (index `microIndex`).
 */
function driver(k: Kernel, slots: GemmSlots, b: GemmBlocking, microIndex: number, type: number): Func {
  const es = k.dtype === 'float32' ? 4 : 8;
  const sh = es === 4 ? 2 : 3;
  const { mr, nv, kc: KC, mc: MC, nc: NC } = b;
  const nr = nv * (16 / es);
  const ae = packedAElem(es);
  const ash = Math.log2(ae);
  const r = k.shape.length;
  const nb = r - 2;
  const c = new Code();
  let n = 1;
  const locals: T[] = [];
  const local = (t: T) => { locals.push(t); return n++; };
  const i32 = () => local(T.i32);
  /** Pushes i64 param slot s wrapped to i32. */
  const p32 = (s: number) => c.get(0).mem(0x29, 3, s * 8).op(0xa7);
  const [LOAD, STORE] = es === 4 ? [0x2a, 0x38] : [0x2b, 0x39];
  const zero = () => (es === 4 ? c.f32(0) : c.f64(0));
  const add = (x: number, y: number | (() => void), to: number) => { c.get(x); typeof y === 'number' ? c.get(y) : y(); c.op(0x6a).set(to); };
  const forRange = (v: number, lo: () => void, hi: number, stepBy: number, body: () => void) => {
    lo(); c.set(v);
    c.block().loop();
    c.get(v).get(hi).op(0x4e).brIf(1); // v >= hi (signed)
    body();
    c.get(v).i32(stepBy).op(0x6a).set(v);
    c.br(0).end().end();
  };
  const min = (x: () => void, y: () => void, to: number) => {
    x(); c.set(to);
    y(); c.get(to); c.op(0x48); // y < to
    c.if(); y(); c.set(to); c.end();
  };

  // Element (i, k) of A lies at aBase + es * (i * aRow + k); B and C likewise.
  const [aBase, aRow, bBase, bRow, cBase, cRow] = [i32(), i32(), i32(), i32(), i32(), i32()];
  const [ilo, ihi, jlo, jhi, klo, khi] = [i32(), i32(), i32(), i32(), i32(), i32()];
  const [ap, bp, ct] = [i32(), i32(), i32()];
  const bvars = Array.from({ length: nb }, () => [i32(), i32()] as const);
  p32(slots.outer + 2 * (r - 2)); c.set(ilo); p32(slots.outer + 2 * (r - 2) + 1); c.set(ihi);
  p32(slots.outer + 2 * (r - 1)); c.set(jlo); p32(slots.outer + 2 * (r - 1) + 1); c.set(jhi);
  p32(slots.red); c.set(klo); p32(slots.red + 1); c.set(khi);
  p32(slots.scratch); c.i32(63).op(0x6a).i32(-64).op(0x71).set(bp);
  add(bp, () => c.i32(KC * Math.ceil(NC / nr) * nr * es), ap);
  add(ap, () => c.i32(Math.ceil(MC / mr) * mr * KC * ae), ct);
  p32(slots.a.strides + r - 2); c.set(aRow);
  p32(slots.b.strides + r - 2); c.set(bRow);
  p32(slots.c.strides + r - 2); c.set(cRow);

  // Batch loops.
  bvars.forEach(([v, hi], d) => {
    p32(slots.outer + 2 * d + 1); c.set(hi);
    p32(slots.outer + 2 * d); c.set(v);
    c.block().loop();
    c.get(v).get(hi).op(0x4e).brIf(1);
  });
  // Base pointers: ptr + es * (sum over batch (v - origin) * stride - origin_row * rowStride - origin_col).
  const base = (s: GemmSlots['a'], rowAxis: number, colAxis: number, to: number) => {
    c.i32(0);
    for (let d = 0; d < nb; d++) {
      c.get(bvars[d]![0]); p32(s.origin + d); c.op(0x6b); p32(s.strides + d); c.op(0x6c).op(0x6a);
    }
    p32(s.origin + rowAxis); p32(s.strides + rowAxis); c.op(0x6c).op(0x6b);
    p32(s.origin + colAxis); c.op(0x6b);
    c.i32(sh).op(0x74);
    p32(s.ptr); c.op(0x6a).set(to);
  };
  base(slots.a, r - 2, r - 1, aBase);
  base(slots.b, r - 2, r - 1, bBase);
  base(slots.c, r - 2, r - 1, cBase);

  const [jc, nc, pc, kc, ic, mc, q, p, rows, cols, kk, rr, src, dst, cnt, first, ctile, ldc] =
    Array.from({ length: 18 }, () => i32());
  const elem = (basel: number, row: () => void, rowStride: number, col: () => void) => {
    // basel + es * (row * rowStride + col)
    row(); c.get(rowStride).op(0x6c); col(); c.op(0x6a).i32(sh).op(0x74).get(basel).op(0x6a);
  };
  /**
   * Copies the kc values of a slice in the block's lane order, even k then odd k:
   * `start` pushes the address of k = pc, `kStep` the bytes from one k to the next,
   * `copy` moves one value from src (and advances dst).
   */
  const halves = (start: () => void, kStep: () => void, copy: () => void) => {
    for (let h = 0; h < 2; h++) {
      c.get(kc).i32(1 - h).op(0x6a).i32(1).op(0x76).set(cnt);
      start();
      if (h) { kStep(); c.op(0x6a); }
      c.set(src);
      c.block().loop();
      c.get(cnt).op(0x45).brIf(1);
      copy();
      c.get(src); kStep(); c.i32(1).op(0x74).op(0x6a).set(src);
      c.get(cnt).i32(1).op(0x6b).set(cnt);
      c.br(0).end().end();
    }
  };

  // K = 0: the product is all zeros.
  c.get(klo).get(khi).op(0x4e).if();
  forRange(rr, () => c.get(ilo), ihi, 1, () => {
    forRange(kk, () => c.get(jlo), jhi, 1, () => {
      elem(cBase, () => c.get(rr), cRow, () => c.get(kk)); zero(); c.mem(STORE, sh);
    });
  });
  c.end();

  forRange(jc, () => c.get(jlo), jhi, NC, () => {
    min(() => c.i32(NC), () => { c.get(jhi).get(jc).op(0x6b); }, nc);
    forRange(pc, () => c.get(klo), khi, KC, () => {
      min(() => c.i32(KC), () => { c.get(khi).get(pc).op(0x6b); }, kc);
      c.get(pc).get(klo).op(0x46).set(first);
      // Pack B[pc:pc+kc, jc:jc+nc] into micro-panels of NR columns (zero-padded).
      c.get(bp).set(dst);
      forRange(q, () => c.i32(0), nc, nr, () => {
        min(() => c.i32(nr), () => { c.get(nc).get(q).op(0x6b); }, cols);
        c.get(cols).i32(nr).op(0x46).if();
        halves(() => elem(bBase, () => c.get(pc), bRow, () => { c.get(jc).get(q).op(0x6a); }), () => { c.get(bRow).i32(sh).op(0x74); }, () => {
          for (let v = 0; v < nv; v++) c.get(dst).get(src).vmem(V.load, 0, v * 16).vmem(V.store, 4, v * 16);
          add(dst, () => c.i32(nr * es), dst);
        });
        c.else();
        halves(() => elem(bBase, () => c.get(pc), bRow, () => { c.get(jc).get(q).op(0x6a); }), () => { c.get(bRow).i32(sh).op(0x74); }, () => {
          for (let v = 0; v < nv; v++) c.get(dst).vzero().vmem(V.store, 4, v * 16);
          forRange(rr, () => c.i32(0), cols, 1, () => {
            c.get(rr).i32(sh).op(0x74).get(dst).op(0x6a);
            c.get(rr).i32(sh).op(0x74).get(src).op(0x6a).mem(LOAD, sh);
            c.mem(STORE, sh);
          });
          add(dst, () => c.i32(nr * es), dst);
        });
        c.end();
      });
      forRange(ic, () => c.get(ilo), ihi, MC, () => {
        min(() => c.i32(MC), () => { c.get(ihi).get(ic).op(0x6b); }, mc);
        // Pack A[ic:ic+mc, pc:pc+kc] into micro-panels of MR rows: value (k, r) at panel + (k * MR + r) * ae.
        const storeA = (value: () => void) => {
          if (es === 4) { c.get(dst); value(); c.mem(STORE, sh); } else { c.get(dst); value(); c.v(V.f64x2_splat).vmem(V.store, 4); }
        };
        forRange(p, () => c.i32(0), mc, mr, () => {
          for (let rw = 0; rw < mr; rw++) {
            // dst = ap + ae * (p * kc + rw)  (panel p starts at p/MR * kc * MR = p * kc values)
            c.get(p).get(kc).op(0x6c).i32(rw).op(0x6a).i32(ash).op(0x74).get(ap).op(0x6a).set(dst);
            c.get(kc).set(cnt);
            c.get(p).i32(rw).op(0x6a).get(mc).op(0x48).if();
            halves(() => elem(aBase, () => { c.get(ic).get(p).op(0x6a).i32(rw).op(0x6a); }, aRow, () => c.get(pc)), () => c.i32(es), () => {
              storeA(() => c.get(src).mem(LOAD, sh));
              add(dst, () => c.i32(mr * ae), dst);
            });
            c.else();
            c.block().loop();
            c.get(cnt).op(0x45).brIf(1);
            storeA(zero);
            add(dst, () => c.i32(mr * ae), dst);
            c.get(cnt).i32(1).op(0x6b).set(cnt);
            c.br(0).end().end();
            c.end();
          }
        });
        forRange(q, () => c.i32(0), nc, nr, () => {
          min(() => c.i32(nr), () => { c.get(nc).get(q).op(0x6b); }, cols);
          forRange(p, () => c.i32(0), mc, mr, () => {
            min(() => c.i32(mr), () => { c.get(mc).get(p).op(0x6b); }, rows);
            elem(cBase, () => { c.get(ic).get(p).op(0x6a); }, cRow, () => { c.get(jc).get(q).op(0x6a); }); c.set(ctile);
            const full = () => { c.get(rows).i32(mr).op(0x46).get(cols).i32(nr).op(0x46).op(0x71); };
            // An edge tile runs on a private MR x NR tile: never touch C outside the task's box.
            const copyTile = (toTile: boolean) => {
              forRange(rr, () => c.i32(0), rows, 1, () => {
                forRange(kk, () => c.i32(0), cols, 1, () => {
                  const tileAt = () => { c.get(rr).i32(nr).op(0x6c).get(kk).op(0x6a).i32(sh).op(0x74).get(ct).op(0x6a); };
                  const cAt = () => { c.get(rr).get(cRow).op(0x6c).get(kk).op(0x6a).i32(sh).op(0x74).get(ctile).op(0x6a); };
                  if (toTile) { tileAt(); cAt(); } else { cAt(); tileAt(); }
                  c.mem(LOAD, sh).mem(STORE, sh);
                });
              });
            };
            full(); c.if();
            c.get(cRow).i32(sh).op(0x74).set(ldc);
            c.else();
            c.get(first).op(0x45).if(); copyTile(true); c.end();
            c.get(ct).set(ctile);
            c.i32(nr * es).set(ldc);
            c.end();
            // micro(pa = ap + p * kc * ae, pb = bp + q * kc * es, kc, ctile, ldc, first)
            c.get(p).get(kc).op(0x6c).i32(ash).op(0x74).get(ap).op(0x6a);
            c.get(q).get(kc).op(0x6c).i32(sh).op(0x74).get(bp).op(0x6a);
            c.get(kc).get(ctile).get(ldc).get(first).get(ct).i32(mr * nr * es).op(0x6a).call(microIndex);
            full(); c.op(0x45).if();
            elem(cBase, () => { c.get(ic).get(p).op(0x6a); }, cRow, () => { c.get(jc).get(q).op(0x6a); }); c.set(ctile);
            copyTile(false);
            c.end();
          });
        });
      });
    });
  });

  for (let d = nb - 1; d >= 0; d--) {
    const [v] = bvars[d]!;
    c.get(v).i32(1).op(0x6a).set(v).br(0).end().end();
  }
  return { type, locals, code: c, export: 'run' };
}

/** The routine's two functions: the exported driver, then the micro-kernel (function index `first + 1`). */
export function gemmFuncs(k: Kernel, slots: GemmSlots, first: number, types: { run: number; micro: number }): Func[] {
  const dt = k.dtype as 'float32' | 'float64';
  const b = GEMM_BLOCKING[dt];
  return [driver(k, slots, b, first + 1, types.run), microKernel(dt === 'float32' ? 4 : 8, b, types.micro)];
}
