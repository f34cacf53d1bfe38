// Comparisons of a square root with a constant, without the square root:
// `sqrt(x) < c` is `x >= 0 and x < t`, where t is the least float whose
// (correctly rounded) square root is at least c. sqrt is monotonic and
// correctly rounded in IEEE arithmetic (WASM's f64.sqrt and f32.sqrt, NumPy's
// sqrt), so {x >= 0 : sqrt(x) < c} is exactly [0, t) and the rewrite gives
// the same booleans for every x, NaN, -0 and infinities included: sqrt(NaN)
// and sqrt(x < 0) are NaN, which compares false, as NaN and x < 0 fail the
// bound. A square root costs a few times a compare (the Monte Carlo pi
// program's `sqrt(sum(d**2)) < 1` spends a tenth of its time in it), and a
// GPU's sqrt need not be correctly rounded, so there the rewrite also makes the
// answer match the CPU's.

import type { DType } from '../graph/dtype.js';
import type { BinaryOp } from '../graph/ops.js';
import { type Expr, intern, konst } from './ir.js';

const COMPARE: Partial<Record<BinaryOp, { flip: BinaryOp }>> = {
  less: { flip: 'greater' }, less_equal: { flip: 'greater_equal' },
  greater: { flip: 'less' }, greater_equal: { flip: 'less_equal' },
};

/** `a op b` without a square root, where one side is sqrt(x) and the other a positive finite constant; else undefined. */
export function compareSqrt(op: BinaryOp, a: Expr, b: Expr): Expr | undefined {
  if (!COMPARE[op]) return undefined;
  // c op sqrt(x) is sqrt(x) flip(op) c
  if (a.k === 'const' && b.k === 'unary') return compareSqrt(COMPARE[op]!.flip, b, a);
  if (a.k !== 'unary' || a.op !== 'sqrt' || b.k !== 'const' || a.dtype !== b.dtype) return undefined;
  const d = a.dtype;
  if (d !== 'float64' && d !== 'float32') return undefined;
  const x = a.a;
  if (x.dtype !== d) return undefined;
  // sqrt(x) < c  <=>  0 <= x < T(c, >=);   sqrt(x) <= c  <=>  0 <= x < T(c, >)
  // sqrt(x) > c  <=>  x >= T(c, >);        sqrt(x) >= c  <=>  x >= T(c, >=)
  const strictAbove = op === 'less_equal' || op === 'greater';
  const t = threshold(Number(b.value), d, strictAbove);
  if (t === undefined) return undefined;
  const bound = konst(t, d);
  if (op === 'greater' || op === 'greater_equal') return intern({ k: 'binary', dtype: 'bool', op: 'greater_equal', a: x, b: bound });
  const nonNeg = intern({ k: 'binary', dtype: 'bool', op: 'greater_equal', a: x, b: konst(0, d) });
  const below = intern({ k: 'binary', dtype: 'bool', op: 'less', a: x, b: bound });
  return intern({ k: 'binary', dtype: 'bool', op: 'logical_and', a: nonNeg, b: below });
}

/**
 * The least positive float t of dtype `d` with sqrt(t) >= c (or > c when
 * `strict`), for a positive finite c whose square is a finite normal number;
 * undefined otherwise.
 */
export function threshold(value: number, d: 'float64' | 'float32', strict: boolean): number | undefined {
  const f32 = d === 'float32';
  const round = f32 ? Math.fround : (v: number) => v;
  const sqrt = (y: number) => round(Math.sqrt(y)); // float32: the double sqrt of a float32, rounded once, is correctly rounded
  const c = round(value);
  const min = f32 ? 2 ** -126 : 2 ** -1022;
  if (!(c > 0) || !Number.isFinite(c)) return undefined;
  const above = (y: number) => (strict ? sqrt(y) > c : sqrt(y) >= c);
  let t = round(c * c);
  if (!(t >= min) || !Number.isFinite(t)) return undefined;
  // c*c is within an ulp or two of the boundary: step down below it, then up to its first float.
  for (let i = 0; i < 8 && above(t); i++) t = step(t, f32, -1);
  for (let i = 0; i < 8 && !above(t); i++) t = step(t, f32, 1);
  const prev = step(t, f32, -1);
  return Number.isFinite(t) && above(t) && !above(prev) && prev >= min ? t : undefined;
}

const f64 = new Float64Array(1), u64 = new BigUint64Array(f64.buffer);
const f32 = new Float32Array(1), u32 = new Uint32Array(f32.buffer);

/** The next (dir 1) or previous (dir -1) float of a positive finite v. */
function step(v: number, single: boolean, dir: 1 | -1): number {
  if (single) {
    f32[0] = v;
    u32[0] += dir;
    return f32[0];
  }
  f64[0] = v;
  u64[0] += BigInt(dir);
  return f64[0];
}
