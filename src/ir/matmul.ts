// Recognises a kernel that is a plain matrix product: out[..., i, j] =
// sum over k of A[..., i, k] * B[..., k, j] in one float dtype, with nothing
// else fused in. Such a kernel keeps its meaning (the reference interpreter
// runs it as the reduction it is), but later stages may run it with a
// hand-written routine: tile cuts it into output blocks, and the WASM stage
// emits a blocked GEMM instead of the generic loop nest.
// In: a Kernel. Out: which inputs are A and B, or undefined.

import type { Expr, Kernel } from './ir.js';

/** Lanes of a matrix product's blocked sum: the two its GEMM micro-kernel can keep (even and odd k). */
export const MATMUL_LANES = 2;

export interface MatmulInfo {
  /** Kernel input index of the left operand, [..., n, k]. */
  readonly a: number;
  /** Kernel input index of the right operand, [..., k, m] (may equal `a`). */
  readonly b: number;
}

const isVar = (e: Expr | undefined, id: number): boolean => e !== undefined && e.k === 'var' && e.id === id;

export function matmulOf(k: Kernel): MatmulInfo | undefined {
  const red = k.reduce;
  const r = k.shape.length;
  if (!red || r < 2 || red.op !== 'sum' || red.vars.length !== 1) return undefined;
  if (k.dtype !== 'float32' && k.dtype !== 'float64') return undefined;
  if (red.dtype !== k.dtype || k.epilogue.k !== 'acc' || red.lanes !== MATMUL_LANES) return undefined;
  const body = red.body;
  if (body.k !== 'binary' || body.op !== 'multiply' || body.dtype !== k.dtype) return undefined;
  const { a, b } = body;
  if (a.k !== 'load' || b.k !== 'load' || a.dtype !== k.dtype || b.dtype !== k.dtype) return undefined;
  const kv = red.vars[0]!.id;
  if (a.index.length !== r || b.index.length !== r) return undefined;
  for (let d = 0; d < r - 2; d++) if (!isVar(a.index[d], d) || !isVar(b.index[d], d)) return undefined;
  if (!isVar(a.index[r - 2], r - 2) || !isVar(a.index[r - 1], kv)) return undefined;
  if (!isVar(b.index[r - 2], kv) || !isVar(b.index[r - 1], r - 1)) return undefined;
  return { a: a.input, b: b.input };
}
