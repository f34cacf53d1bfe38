// The WASM stage's verb: renders one Kernel into a WebAssembly module whose
// exported `run(params)` executes one task. A plain matrix product (ir/
// matmul.ts) becomes the hand-written GEMM routine (gemm.ts); every other
// kernel becomes a generated loop nest (loops.ts over expr.ts): the outer
// loops over the task's box, the top-level reduction in the order ir/order.ts
// picks, nested reductions inside, one store per output, a fused chain as one
// loop with no intermediate arrays. Both keep the calling convention of
// abi.ts, and the layout says how much scratch memory a task needs.
// In: a Kernel and the mode (full or partial). Out: module bytes and the
// parameter layout the runtime fills for each task.

import { isArgReduce } from '../graph/ops.js';
import { type Kernel, randomSites } from '../ir/ir.js';
import { matmulOf } from '../ir/matmul.js';
import { reduceOrder } from '../ir/order.js';
import { IMPORTS, type Layout, MAX_PAGES, TY, TYPES, gcdFuncs, intDivFuncs, intPowFuncs } from './abi.js';
import { type Func, assemble } from './encode.js';
import { gemmFuncs, gemmScratchBytes } from './gemm.js';
import { PHILOX_INLINE_SITES, PHILOX_SCRATCH, philoxFunc } from './expr.js';
import { KernelEmitter, ROW_BLOCK, rowsScratchRows } from './loops.js';

export { MATH_IMPORTS, MAX_PAGES, type Layout, mathImports, wasmType, writeParams } from './abi.js';

/** The parameter layout of `k`'s module, with the scratch memory a task of it needs (if any). */
export function layoutOf(k: Kernel, partial: boolean): Layout {
  let s = 0;
  const bind = (rank: number) => { const b = { ptr: s, origin: s + 1, strides: s + 1 + rank, rank }; s += 1 + 2 * rank; return b; };
  const inputs = k.inputs.map((i) => bind(i.shape.length));
  const nout = partial && k.reduce && isArgReduce(k.reduce.op) ? 2 : 1;
  const outputs = Array.from({ length: nout }, () => bind(k.shape.length));
  const outer = s; s += 2 * k.shape.length;
  const red = s; s += 2 * (k.reduce?.vars.length ?? 0);
  if (matmulOf(k)) return { slots: s + 1, inputs, outputs, outer, red, scratch: { slot: s, bytes: gemmScratchBytes(k.dtype as 'float32' | 'float64') } };
  // 'rows' reductions keep their rows first; then 64 bytes (four blocks of Philox words) per draw site
  const rows = reduceOrder(k) === 'rows' ? rowsScratchRows(k) * 8 * ROW_BLOCK : 0;
  const sites = randomSites(k).length;
  if (rows || sites) {
    return { slots: s + 1 + 3 * sites, inputs, outputs, outer, red, scratch: { slot: s, bytes: rows + PHILOX_SCRATCH * sites, ...(sites ? { random: rows } : {}) }, ...(sites ? { sites: s + 1 } : {}) };
  }
  return { slots: s, inputs, outputs, outer, red };
}

/** Renders the module for `kernel` in full or partial mode. */
export function render(kernel: Kernel, partial: boolean): { bytes: Uint8Array; layout: Layout } {
  const layout = layoutOf(kernel, partial);
  const mm = matmulOf(kernel);
  if (mm) {
    // The hand-written GEMM routine, in the kernel's own calling convention.
    const slots = { a: layout.inputs[mm.a]!, b: layout.inputs[mm.b]!, c: layout.outputs[0]!, outer: layout.outer, red: layout.red, scratch: layout.scratch!.slot };
    return { bytes: assemble(TYPES, [], gemmFuncs(kernel, slots, 0, { run: TY.run, micro: TY.i32x7 }), MAX_PAGES), layout };
  }
  const em = new KernelEmitter(kernel, partial, layout);
  const run = em.build();
  const funcs: Func[] = [run, ...intDivFuncs(), ...intPowFuncs(), ...gcdFuncs(), ...(randomSites(kernel).length > PHILOX_INLINE_SITES ? [philoxFunc(false), philoxFunc(true)] : [])];
  return { bytes: assemble(TYPES, IMPORTS, funcs, MAX_PAGES), layout };
}
