// float16 in kernels: NumPy's half loops compute each operation in float32
// and round its result to float16 (ties to even). `lowerHalf` writes that
// into the IR once, so that every emitter sees the same kernel: an operation
// on float16 values becomes the float32 operation on their (exact) widened
// values, followed by a cast to float16, which rounds. What is left of
// float16 for an emitter is small: a float16 value lives in a float32
// register (always a float16 value, so widening it is free); a load decodes
// 16 bits, a store encodes them, a cast to float16 rounds, a cast from it
// widens; `where` selects and min/max compare as float32 values do, and
// nextafter steps in float16's own ulps.
// In: a Kernel. Out: the same Kernel with float16 arithmetic lowered (the same object when it has none).

import type { DType } from '../graph/dtype.js';
import { roundHalf } from '../graph/half.js';
import { widens } from '../graph/ops.js';
import { type Expr, type Kernel, children, intern } from './ir.js';

const F16 = 'float16', F32 = 'float32';

/** Unary ops whose float16 result is exact, so need no rounding (NumPy's results are the same). */
const EXACT_UNARY = new Set(['negative', 'abs', 'sign', 'floor', 'ceil', 'trunc', 'rint', 'frexp_mantissa']);
/** Binary ops whose float16 result is one of the operands (or a float16 step from one): no rounding, and nextafter must see float16. */
const EXACT_BINARY = new Set(['maximum', 'minimum', 'fmax', 'fmin', 'copysign', 'nextafter']);

const widen = (e: Expr): Expr => (e.dtype === F16 ? intern({ k: 'cast', dtype: F32, a: e }) : e);
const round = (e: Expr): Expr => intern({ k: 'cast', dtype: F16, a: e });

const lowered = new WeakMap<Kernel, Kernel>();

export function lowerHalf(k: Kernel): Kernel {
  const hit = lowered.get(k);
  if (hit) return hit;
  if (!mentionsHalf(k)) { lowered.set(k, k); return k; }
  const memo = new Map<Expr, Expr>();
  const walk = (e: Expr): Expr => {
    let r = memo.get(e);
    if (r) return r;
    r = lower(e, walk);
    memo.set(e, r);
    return r;
  };
  const out: Kernel = {
    ...k,
    ...(k.reduce ? { reduce: walk(k.reduce) as Extract<Expr, { k: 'reduce' }> } : {}),
    epilogue: walk(k.epilogue),
  };
  lowered.set(k, out);
  lowered.set(out, out);
  return out;
}

function lower(e: Expr, walk: (e: Expr) => Expr): Expr {
  switch (e.k) {
    case 'var': case 'acc': case 'random': return e;
    case 'const': return e.dtype === F16 && typeof e.value === 'number' ? intern({ ...e, value: roundHalf(e.value) }) : e;
    case 'load': return intern({ ...e, index: e.index.map(walk) });
    case 'cast': {
      const a = walk(e.a);
      // float16 -> float16 after lowering, or float16 -> float32 -> float16: the value is already rounded
      if (a.dtype === e.dtype) return a;
      if (e.dtype === F16 && a.k === 'cast' && a.dtype === F32 && a.a.dtype === F16) return a.a;
      return intern({ ...e, a });
    }
    case 'where': return intern({ ...e, c: walk(e.c), a: walk(e.a), b: walk(e.b) });
    case 'reduce': {
      if (e.dtype === F16 && widens(e.op)) {
        throw new Error(`internal: a float16 ${e.op} reaches a kernel (graph/node.ts accumulates it in float32)`);
      }
      return intern({ ...e, body: walk(e.body) });
    }
    case 'unary': {
      const a = walk(e.a);
      if (a.dtype !== F16) return a === e.a ? e : intern({ ...e, a });
      if (e.dtype === F16 && EXACT_UNARY.has(e.op)) return intern({ ...e, a });
      const r = intern({ ...e, dtype: resultIn32(e.dtype), a: widen(a) });
      return e.dtype === F16 ? round(r) : r;
    }
    case 'binary': {
      const a = walk(e.a), b = walk(e.b);
      if (a.dtype !== F16 && b.dtype !== F16) return a === e.a && b === e.b ? e : intern({ ...e, a, b });
      if (e.dtype === F16 && EXACT_BINARY.has(e.op)) return intern({ ...e, a, b });
      const r = intern({ ...e, dtype: resultIn32(e.dtype), a: widen(a), b: widen(b) });
      return e.dtype === F16 ? round(r) : r;
    }
    default: return e satisfies never;
  }
}

const resultIn32 = (d: DType): DType => (d === F16 ? F32 : d);

function mentionsHalf(k: Kernel): boolean {
  const seen = new Set<Expr>();
  const walk = (e: Expr): boolean => {
    if (seen.has(e)) return false;
    seen.add(e);
    return e.dtype === F16 || children(e).some(walk);
  };
  return k.dtype === F16 || k.inputs.some((i) => i.dtype === F16) || (k.reduce ? walk(k.reduce) : false) || walk(k.epilogue);
}
