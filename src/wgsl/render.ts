// The WGSL stage's verb: renders one Kernel into a WebGPU compute shader, the
// second emitter of the one kernel IR (wasm/ is the first). Elementwise
// kernels run one invocation per output element; a kernel with a top-level
// reduction runs one workgroup per output element, its invocations striding
// over the reduction box and combining in a workgroup tree. Nested reductions
// are loops. NumPy's scalar semantics per dtype are the reference
// interpreter's (ir/scalar.ts): integers wrap, integer division by zero
// gives 0, float-to-int casts give NumPy's x86-64 results, min/max
// propagate NaN, argmin/argmax keep the first extreme; Philox draws are the
// same integer stream as the CPU path's. Float results differ from the CPU
// within the tolerances test/webgpu.test.ts documents (WGSL's built-in
// functions have their own accuracy, and a workgroup adds its terms in
// another order).
//
// WGSL has no 64-bit types. Every element lives in a 32-bit word on the GPU
// (the host widens narrow inputs on upload and narrows outputs on readback),
// int64 appears only as index arithmetic and counts that provably fit in
// i32, and float64 kernels stay on WASM: `gpuSupport` says why a kernel
// cannot run here.
// In: a Kernel and the mode (full or partial). Out: WGSL source and the
// parameter layout the device fills per task.

import type { DType } from '../graph/dtype.js';
import { type BinaryOp, REDUCE, type ReduceOp, accStart, argRule, foldRule, isArgReduce, widens } from '../graph/ops.js';
import { type Expr, type Kernel, children, intern, randomSites, siteKey } from '../ir/ir.js';
import { type Interval, bounds } from '../ir/interval.js';
import { PHILOX_M0, PHILOX_M1, PHILOX_ROUNDS, PHILOX_W0, PHILOX_W1 } from '../ir/philox.js';
import { castScalar } from '../ir/scalar.js';

/** The WGSL type an element of `d` lives in (in registers and in GPU buffers). */
export type WType = 'f32' | 'i32' | 'u32';
export function wtype(d: DType): WType {
  switch (d) {
    // float16 values live in f32 words (the host widens them on upload and narrows on readback)
    case 'float32': case 'float16': return 'f32';
    case 'int8': case 'int16': case 'int32': case 'int64': return 'i32';
    case 'uint8': case 'uint16': case 'uint32': case 'bool': return 'u32';
    case 'float64': throw new Error('internal: float64 has no WGSL form');
    default: return d satisfies never;
  }
}

/** Invocations per workgroup. */
export const WG = 64;

/** i32 parameter slots of a shader, in this order, and what it writes. */
export interface GpuLayout {
  readonly inputs: readonly { origin: number; strides: number; rank: number }[];
  readonly outputs: readonly { origin: number; strides: number; rank: number }[];
  /** lo, extent per outer variable. */
  readonly outer: number;
  /** lo, extent per top-level reduction variable. */
  readonly red: number;
  /** Output elements of the task (one invocation, or one workgroup, each). */
  readonly countSlot: number;
  /** Width of the dispatch grid in workgroups (x); a grid over 65535 is two-dimensional. */
  readonly gridSlot: number;
  /** Terms of the top-level reduction per output. */
  readonly redCountSlot: number;
  /** Random draw sites: the first of three slots per site (seed word 0, seed word 1, stream; `siteParams` order), so one shader serves every seed. */
  readonly sites?: number;
  readonly slots: number;
  /** WGSL types of the outputs' words. */
  readonly outTypes: readonly WType[];
  readonly perOutput: 'invocation' | 'workgroup';
}

const I32_MIN = -2147483648, I32_MAX = 2147483647;
const fits = ([lo, hi]: Interval): boolean => lo >= I32_MIN && hi <= I32_MAX;

function dtypeRange(d: DType): Interval {
  switch (d) {
    case 'bool': return [0, 1];
    case 'int8': return [-128, 127];
    case 'uint8': return [0, 255];
    case 'int16': return [-32768, 32767];
    case 'uint16': return [0, 65535];
    case 'int32': return [I32_MIN, I32_MAX];
    case 'uint32': return [0, 4294967295];
    default: return [-Infinity, Infinity];
  }
}

const demoted = new WeakMap<Kernel, Kernel>();

/**
 * The kernel as the GPU computes it: float32 sums and products, which the CPU
 * accumulates in float64, accumulate in float32 here (in a workgroup tree,
 * which keeps their accuracy), and float64 arithmetic whose result is cast to
 * float32 (arange's and linspace's start + i * step) runs in float32: exact
 * while the values are integers below 2^24, within float32's rounding
 * otherwise. Everything else as it is.
 */
export function gpuKernel(k: Kernel): Kernel {
  let out = demoted.get(k);
  if (out) return out;
  const memo = new Map<Expr, Expr>();
  const f32Acc = (e: Expr): boolean => e.k === 'reduce' && widens(e.op) && e.dtype === 'float64' && e.body.dtype === 'float32';
  const top = k.reduce && f32Acc(k.reduce);
  const walk = (e: Expr): Expr => {
    let r = memo.get(e);
    if (r) return r;
    switch (e.k) {
      case 'const': case 'var': r = e; break;
      case 'acc': r = top ? intern({ k: 'acc', dtype: 'float32' }) : e; break;
      case 'load': r = intern({ ...e, index: e.index.map(walk) }); break;
      case 'unary': case 'cast': {
        const a = e.k === 'cast' && e.dtype === 'float32' && e.a.dtype === 'float64' && demotable(e.a) ? to32(e.a) : walk(e.a);
        r = e.k === 'cast' && a.dtype === e.dtype ? a : intern({ ...e, a });
        break;
      }
      case 'binary': r = intern({ ...e, a: walk(e.a), b: walk(e.b) }); break;
      case 'where': r = intern({ ...e, c: walk(e.c), a: walk(e.a), b: walk(e.b) }); break;
      case 'random': r = intern({ ...e, index: walk(e.index) }); break;
      case 'reduce': r = intern({ ...e, body: walk(e.body), ...(f32Acc(e) ? { dtype: 'float32' as const } : {}) }); break;
      default: return e satisfies never;
    }
    memo.set(e, r);
    return r;
  };
  // float64 element arithmetic (no data, draws or reductions in float64) that ends in a float32 cast
  const demotable = (e: Expr): boolean => {
    if (e.dtype !== 'float64') return true;
    switch (e.k) {
      case 'const': return true;
      case 'cast': return e.a.dtype !== 'float64' || demotable(e.a);
      case 'unary': return demotable(e.a);
      case 'binary': return demotable(e.a) && demotable(e.b);
      case 'where': return demotable(e.a) && demotable(e.b);
      default: return false;
    }
  };
  const to32 = (e: Expr): Expr => {
    if (e.dtype !== 'float64') return walk(e);
    switch (e.k) {
      case 'const': return intern({ ...e, dtype: 'float32', value: Math.fround(Number(e.value)) });
      case 'cast': return intern({ ...e, dtype: 'float32', a: to32(e.a) });
      case 'unary': return intern({ ...e, dtype: 'float32', a: to32(e.a) });
      case 'binary': {
        const a = to32(e.a), b = to32(e.b);
        return intern({ ...e, dtype: 'float32', a, b });
      }
      case 'where': return intern({ ...e, dtype: 'float32', c: walk(e.c), a: to32(e.a), b: to32(e.b) });
      default: throw new Error('internal: not demotable');
    }
  };
  out = { ...k, epilogue: walk(k.epilogue), ...(k.reduce ? { reduce: walk(k.reduce) as Extract<Expr, { k: 'reduce' }> } : {}) };
  demoted.set(k, out);
  return out;
}

/**
 * Why `k` cannot run as WGSL (float64 anywhere, an int64 value that may not
 * fit in 32 bits, a float64 random draw), or undefined when it can.
 */
export function gpuSupport(kernel: Kernel): string | undefined {
  const k = gpuKernel(kernel);
  const vars = new Map<number, Interval>(k.shape.map((d, i) => [i, [0, Math.max(0, d - 1)]]));
  const seen = new Set<Expr>();
  const check = (e: Expr): string | undefined => {
    if (e.k === 'acc') return e.dtype === 'int64' && !fits(rangeOf(k.reduce!, vars)) ? 'an int64 value may not fit in 32 bits' : undefined;
    if (seen.has(e)) return undefined;
    seen.add(e);
    if (e.dtype === 'float64') return 'float64 has no WGSL form';
    if (e.k === 'random' && e.dist !== 'bits' && e.dist !== 'uniform32') return `${e.dist} draws are float64`;
    if (e.k === 'reduce') e.vars.forEach((v) => vars.set(v.id, [0, Math.max(0, v.size - 1)]));
    if (e.k === 'load' && e.dtype === 'int64') return 'int64 data has no WGSL form';
    if (e.dtype === 'int64' && !fits(rangeOf(e, vars))) return 'an int64 value may not fit in 32 bits';
    for (const c of children(e)) {
      const why = check(c);
      if (why) return why;
    }
    return undefined;
  };
  for (const i of k.inputs) if (i.dtype === 'float64' || i.dtype === 'int64') return `${i.dtype} inputs have no WGSL form`;
  if (k.dtype === 'float64') return 'float64 has no WGSL form';
  return (k.reduce && check(k.reduce)) || check(k.epilogue);
}

/** Bounds of an integer expression over the kernel's iteration space. */
function rangeOf(e: Expr, vars: ReadonlyMap<number, Interval>): Interval {
  switch (e.k) {
    case 'const': case 'var': return bounds(e, vars);
    case 'cast': return e.a.dtype === 'int64' ? rangeOf(e.a, vars) : dtypeRange(e.a.dtype);
    case 'reduce': {
      const n = e.vars.reduce((a, v) => a * v.size, 1);
      const rule = REDUCE[e.op];
      if (rule.kind === 'arg') return [-1, Math.max(0, n - 1)];
      const b = rangeOf(e.body, vars);
      if (rule.combine === 'add') return [Math.min(0, n * b[0]), Math.max(0, n * b[1])];
      if (rule.combine === 'minimum' || rule.combine === 'maximum') return b;
      return [-Infinity, Infinity];
    }
    case 'where': {
      const a = rangeOf(e.a, vars), b = rangeOf(e.b, vars);
      return [Math.min(a[0], b[0]), Math.max(a[1], b[1])];
    }
    case 'binary': {
      if (e.dtype !== 'int64') return dtypeRange(e.dtype);
      // index arithmetic: bounds() over operands that are themselves bounded
      const a = rangeOf(e.a, vars), b = rangeOf(e.b, vars);
      const sub = new Map(vars);
      const va = -1, vb = -2;
      sub.set(va, a); sub.set(vb, b);
      return bounds({ ...e, a: { k: 'var', dtype: 'int64', id: va }, b: { k: 'var', dtype: 'int64', id: vb } } as Expr, sub);
    }
    default: return e.dtype === 'int64' ? [-Infinity, Infinity] : dtypeRange(e.dtype);
  }
}

const f32bits = (v: number): number => new Uint32Array(new Float32Array([v]).buffer)[0]!;
const lit = (v: number, t: WType): string => {
  // NaN and infinities through a function: WGSL rejects them in constant expressions; -0 too,
  // which shader compilers fold into +0
  if (t === 'f32') return Number.isFinite(Math.fround(v)) && !Object.is(v, -0) ? `bitcast<f32>(${f32bits(v)}u)` : `f32_of(${f32bits(v)}u)`;
  if (t === 'u32') return `${v >>> 0}u`;
  return v === I32_MIN ? 'i32(-2147483648)' : `${v | 0}i`;
};

/** Wraps an i32/u32 value to a narrow integer dtype, as the CPU's `wrap` does. */
function narrow(x: string, d: DType): string {
  switch (d) {
    case 'int8': return `((${x} << 24u) >> 24u)`;
    case 'int16': return `((${x} << 16u) >> 16u)`;
    case 'uint8': return `(${x} & 255u)`;
    case 'uint16': return `(${x} & 65535u)`;
    case 'bool': return `select(0u, 1u, ${x} != 0u)`;
    default: return x;
  }
}

// Helpers every shader gets (unused ones cost nothing after compilation).
const PRELUDE = `
fn isnan_(x: f32) -> bool { return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u; }
fn isinf_(x: f32) -> bool { return (bitcast<u32>(x) & 0x7fffffffu) == 0x7f800000u; }
fn f32_of(bits: u32) -> f32 { return bitcast<f32>(bits); }
fn nan_() -> f32 { return f32_of(0x7fc00000u); }
fn truthy_f(x: f32) -> bool { return (bitcast<u32>(x) & 0x7fffffffu) != 0u; }
fn max_f(a: f32, b: f32) -> f32 {
  if (isnan_(a) || isnan_(b)) { return nan_(); }
  if (a == b) { return bitcast<f32>(bitcast<u32>(a) & bitcast<u32>(b)); }
  return select(b, a, a > b);
}
fn min_f(a: f32, b: f32) -> f32 {
  if (isnan_(a) || isnan_(b)) { return nan_(); }
  if (a == b) { return bitcast<f32>(bitcast<u32>(a) | bitcast<u32>(b)); }
  return select(b, a, a < b);
}
fn fmax_f(a: f32, b: f32) -> f32 { if (isnan_(a)) { return b; } if (isnan_(b)) { return a; } return max_f(a, b); }
fn fmin_f(a: f32, b: f32) -> f32 { if (isnan_(a)) { return b; } if (isnan_(b)) { return a; } return min_f(a, b); }
fn sign_f(x: f32) -> f32 { if (isnan_(x)) { return x; } if (x > 0.0) { return 1.0; } if (x < 0.0) { return -1.0; } return 0.0; }
fn sincos_f(x: f32) -> vec2<f32> {
  // (sin x, cos x): Cody-Waite reduction by pi/2 in three parts, Cephes' polynomials on [-pi/4, pi/4]
  // (WGSL's own sin and cos need only be within 2^-11 absolutely); theirs past 1e5
  if (abs(x) > 1.0e5) { return vec2<f32>(sin(x), cos(x)); }
  let k = round(x * 0.63661977236758134);
  let r = ((x - k * 1.5703125) - k * 4.837512969970703125e-4) - k * 7.54978995489188216e-8;
  let z = r * r;
  let sr = r + r * z * (-1.6666654611e-1 + z * (8.3321608736e-3 + z * -1.9515295891e-4));
  let cr = 1.0 - 0.5 * z + z * z * (4.166664568298827e-2 + z * (-1.388731625493765e-3 + z * 2.443315711809948e-5));
  let q = u32(i32(k - 4.0 * floor(k * 0.25)));
  if (q == 0u) { return vec2<f32>(sr, cr); }
  if (q == 1u) { return vec2<f32>(cr, -sr); }
  if (q == 2u) { return vec2<f32>(-sr, -cr); }
  return vec2<f32>(-cr, sr);
}
fn atan_f(x: f32) -> f32 {
  // Cephes' atanf (WGSL's atan inherits atan2's loose accuracy)
  let a = abs(x);
  var y = 0.0; var t = a;
  if (a > 2.414213562373095) { y = 1.5707963267948966; t = -1.0 / a; }
  else if (a > 0.41421356237309503) { y = 0.7853981633974483; t = (a - 1.0) / (a + 1.0); }
  let z = t * t;
  let r = y + ((((8.05374449538e-2 * z - 1.38776856032e-1) * z + 1.99777106478e-1) * z - 3.33329491539e-1) * z * t + t);
  return select(r, -r, (bitcast<u32>(x) >> 31u) == 1u);
}
fn atan2_f(y: f32, x: f32) -> f32 {
  // C99's atan2, special cases included
  let pi = 3.14159265358979; let neg = (bitcast<u32>(y) >> 31u) == 1u; let xneg = (bitcast<u32>(x) >> 31u) == 1u;
  if (isnan_(x) || isnan_(y)) { return nan_(); }
  var r: f32;
  if (y == 0.0) { r = select(0.0, pi, xneg); }
  else if (isinf_(x)) { if (isinf_(y)) { r = select(0.7853981633974483, 2.356194490192345, xneg); } else { r = select(0.0, pi, xneg); } }
  else if (isinf_(y) || x == 0.0) { r = 1.5707963267948966; }
  else { r = atan_f(abs(y / x)); if (xneg) { r = pi - r; } }
  if (neg) { return -r; }
  return select(r, f32_of(0u), r == 0.0);
}
fn sinh_f(x: f32) -> f32 {
  let a = abs(x);
  var r: f32;
  if (a < 1.0) { let e = expm1_f(a); r = 0.5 * (e + e / (e + 1.0)); }
  else if (a < 88.0) { let e = exp(a); r = 0.5 * (e - 1.0 / e); }
  else { let e = exp2_f((a - 0.6931471805599453) * 1.4426950408889634); r = e; }
  return select(r, -r, (bitcast<u32>(x) >> 31u) == 1u);
}
fn cosh_f(x: f32) -> f32 {
  let a = abs(x);
  if (a < 88.0) { let e = exp(a); return 0.5 * (e + 1.0 / e); }
  return exp2_f((a - 0.6931471805599453) * 1.4426950408889634);
}
fn tanh_f(x: f32) -> f32 {
  let a = abs(x);
  var r: f32;
  if (a > 9.0) { r = 1.0; } else { let e = expm1_f(2.0 * a); r = e / (e + 2.0); }
  return select(r, -r, (bitcast<u32>(x) >> 31u) == 1u);
}
fn asinh_f(x: f32) -> f32 {
  let a = abs(x);
  var r: f32;
  if (a > 1.0e18) { r = log(a) + 0.6931471805599453; } else { r = log1p_f(a + a * a / (1.0 + sqrt(1.0 + a * a))); }
  return select(r, -r, (bitcast<u32>(x) >> 31u) == 1u);
}
fn acosh_f(x: f32) -> f32 {
  if (x > 1.0e18) { return log(x) + 0.6931471805599453; }
  let t = x - 1.0;
  return log1p_f(t + sqrt(t * (x + 1.0)));
}
fn atanh_f(x: f32) -> f32 {
  let a = abs(x);
  let r = 0.5 * log1p_f(2.0 * a / (1.0 - a));
  return select(r, -r, (bitcast<u32>(x) >> 31u) == 1u);
}
fn expm1_f(x: f32) -> f32 {
  if (abs(x) < 0.01) { return x * (1.0 + x * (0.5 + x * (0.16666667 + x * (0.041666668 + x * 0.008333334)))); }
  let u = exp(x);
  if (u == 1.0) { return x; }
  let um1 = u - 1.0;
  if (um1 == -1.0 || isinf_(u)) { return um1; }
  // x / log(u) first: um1 * x overflows for x near the top of f32's range (expm1(88) = 1.65e38).
  return um1 * (x / log(u));
}
fn log1p_f(x: f32) -> f32 {
  if (abs(x) < 0.01) { return x * (1.0 + x * (-0.5 + x * (0.33333334 + x * (-0.25 + x * 0.2)))); }
  let u = 1.0 + x;
  if (u == 1.0) { return x; }
  if (isinf_(u)) { return log(u); }
  return log(u) * x / (u - 1.0);
}
fn cbrt_f(x: f32) -> f32 {
  if (x == 0.0 || isnan_(x) || isinf_(x)) { return x; }
  let r = exp2(log2(abs(x)) / 3.0);
  let y = r - (r * r * r - abs(x)) / (3.0 * r * r);
  return select(y, -y, x < 0.0);
}
fn hypot_f(x: f32, y: f32) -> f32 {
  let a = abs(x); let b = abs(y);
  if (isinf_(a) || isinf_(b)) { return f32_of(0x7f800000u); }
  if (isnan_(a) || isnan_(b)) { return nan_(); }
  let m = max(a, b);
  if (m == 0.0) { return 0.0; }
  let p = a / m; let q = b / m;
  return m * sqrt(p * p + q * q);
}
fn pow_f(x: f32, y: f32) -> f32 {
  if (y == 0.0 || x == 1.0 || (x == -1.0 && isinf_(y))) { return 1.0; }
  if (isnan_(x) || isnan_(y)) { return nan_(); }
  let ay = abs(y);
  if (ay == floor(ay)) {
    if (ay <= 64.0) {
      var r = 1.0; var b = abs(x); var e = u32(ay);
      loop { if (e == 0u) { break; } if ((e & 1u) == 1u) { r = r * b; } b = b * b; e = e >> 1u; }
      if (y < 0.0) { r = 1.0 / r; }
      let odd = (u32(ay) & 1u) == 1u;
      return select(r, -r, (bitcast<u32>(x) >> 31u) == 1u && odd);
    }
    let r = exp2_f(y * log2_f(abs(x)));
    let odd = ay < 16777216.0 && fract(ay * 0.5) != 0.0;
    return select(r, -r, (bitcast<u32>(x) >> 31u) == 1u && odd);
  }
  if (isinf_(x)) { return select(0.0, f32_of(0x7f800000u), y > 0.0); }
  if (x < 0.0) { return nan_(); }
  return exp2_f(y * log2_f(x));
}
fn log2_f(x: f32) -> f32 {
  if (x == 0.0) { return f32_of(0xff800000u); }
  if (isinf_(x)) { return x; }
  return log2(x);
}
fn exp2_f(e: f32) -> f32 {
  if (e >= 128.0) { return f32_of(0x7f800000u); }
  if (e < -150.0) { return 0.0; }
  return exp2(e);
}
fn fmod_f(x: f32, y: f32) -> f32 {
  // C's fmodf, exactly (musl's bit-level algorithm)
  var ux = bitcast<u32>(x); var uy = bitcast<u32>(y);
  var ex = i32((ux >> 23u) & 0xffu); var ey = i32((uy >> 23u) & 0xffu);
  let sx = ux & 0x80000000u;
  if ((uy << 1u) == 0u || isnan_(y) || ex == 0xff) { return nan_(); }
  if ((ux << 1u) <= (uy << 1u)) { if ((ux << 1u) == (uy << 1u)) { return f32_of(sx); } return x; }
  if (ex == 0) { var i = ux << 9u; loop { if ((i >> 31u) != 0u) { break; } ex = ex - 1; i = i << 1u; } ux = ux << u32(1 - ex); } else { ux = (ux & 0x7fffffu) | 0x800000u; }
  if (ey == 0) { var i = uy << 9u; loop { if ((i >> 31u) != 0u) { break; } ey = ey - 1; i = i << 1u; } uy = uy << u32(1 - ey); } else { uy = (uy & 0x7fffffu) | 0x800000u; }
  loop {
    if (ex <= ey) { break; }
    let i = ux - uy;
    if ((i >> 31u) == 0u) { if (i == 0u) { return f32_of(sx); } ux = i; }
    ux = ux << 1u; ex = ex - 1;
  }
  let i = ux - uy;
  if ((i >> 31u) == 0u) { if (i == 0u) { return f32_of(sx); } ux = i; }
  loop { if ((ux >> 23u) != 0u) { break; } ux = ux << 1u; ex = ex - 1; }
  if (ex > 0) { ux = (ux - 0x800000u) | (u32(ex) << 23u); } else { ux = ux >> u32(1 - ex); }
  return bitcast<f32>(ux | sx);
}
fn fdivmod_f(a: f32, b: f32) -> vec2<f32> {
  // NumPy's npy_divmod: (floor quotient, remainder with the divisor's sign)
  let negz = f32_of(0x80000000u);
  if (isnan_(a) || isnan_(b)) { return vec2<f32>(nan_(), nan_()); }
  var m = fmod_f(a, b);
  if (b == 0.0) { return vec2<f32>(a / b, m); }
  var d = (a - m) / b;
  if (isnan_(d)) { return vec2<f32>(d, m); }
  if (m != 0.0) {
    if ((b < 0.0) != (m < 0.0)) { m = m + b; d = d - 1.0; }
  } else {
    m = select(0.0, negz, b < 0.0);
  }
  var fl: f32;
  if (d != 0.0) {
    fl = floor(d);
    if (d - fl > 0.5) { fl = fl + 1.0; }
  } else {
    let q = a / b;
    fl = select(0.0, negz, q < 0.0 || bitcast<u32>(q) == 0x80000000u);
  }
  return vec2<f32>(fl, m);
}
fn frexp_e(x: f32) -> i32 {
  // frexp's exponent from the bits: subnormals too, which a GPU may flush in arithmetic
  let u = bitcast<u32>(x); let ex = (u >> 23u) & 0xffu; let m = u & 0x7fffffu;
  if (ex == 0xffu || (ex == 0u && m == 0u)) { return 0i; }
  if (ex == 0u) { return -117i - i32(countLeadingZeros(m)); }
  return i32(ex) - 126i;
}
fn frexp_m(x: f32) -> f32 {
  let u = bitcast<u32>(x); let ex = (u >> 23u) & 0xffu; var m = u & 0x7fffffu;
  if (ex == 0xffu || (ex == 0u && m == 0u)) { return bitcast<f32>(u); }
  if (ex == 0u) { m = (m << (countLeadingZeros(m) - 8u)) & 0x7fffffu; }
  return bitcast<f32>((u & 0x80000000u) | 0x3f000000u | m);
}
fn nextafter_f(x: f32, y: f32) -> f32 {
  // C's nextafterf on the bits (ordered as integers, -0 == +0): exact with subnormals
  if (isnan_(x) || isnan_(y)) { return nan_(); }
  let ux = bitcast<u32>(x); let uy = bitcast<u32>(y);
  let ax = ux & 0x7fffffffu; let ay = uy & 0x7fffffffu;
  let ix = select(i32(ax), -i32(ax), (ux >> 31u) == 1u);
  let iy = select(i32(ay), -i32(ay), (uy >> 31u) == 1u);
  if (ix == iy) { return bitcast<f32>(uy); }
  if (ax == 0u) { return bitcast<f32>((uy & 0x80000000u) | 1u); }
  if ((ix < iy) == ((ux >> 31u) == 0u)) { return bitcast<f32>(ux + 1u); }
  return bitcast<f32>(ux - 1u);
}
fn f16_bits(x: f32) -> u32 {
  // the float16 nearest x, ties to even, in integer arithmetic only (a GPU may flush subnormal f32s)
  let u = bitcast<u32>(x); let a = u & 0x7fffffffu; let s = (u >> 16u) & 0x8000u;
  if (a >= 0x47800000u) { return s | select(0x7c00u, 0x7e00u, a > 0x7f800000u); }
  if (a >= 0x38800000u) { return s | ((a + 0xc8000fffu + ((a >> 13u) & 1u)) >> 13u); }
  let e = a >> 23u;
  if (e < 102u) { return s; }
  let m = (a & 0x7fffffu) | 0x800000u; let sh = 126u - e;
  var q = m >> sh; let rem = m & ((1u << sh) - 1u); let half = 1u << (sh - 1u);
  if (rem > half || (rem == half && (q & 1u) == 1u)) { q = q + 1u; }
  return s | q;
}
fn f16_value(h: u32) -> f32 {
  let e = (h >> 10u) & 31u; let m = h & 1023u; let s = (h & 0x8000u) << 16u;
  if (e == 0u) { return bitcast<f32>(s | bitcast<u32>(f32(m) * f32_of(0x33800000u))); }
  if (e == 31u) { return bitcast<f32>(s | 0x7f800000u | (m << 13u)); }
  return bitcast<f32>(s | ((e + 112u) << 23u) | (m << 13u));
}
fn round_f16(x: f32) -> f32 { return f16_value(f16_bits(x)); }
fn nextafter_h(x: f32, y: f32) -> f32 {
  // NumPy's npy_half_nextafter on float16 values: one float16 ulp towards y
  if (isnan_(x) || isnan_(y)) { return nan_(); }
  if (x == y) { return y; }
  if (x == 0.0) { return select(f32_of(0xb3800000u), f32_of(0x33800000u), y > 0.0); }
  let h = f16_bits(x);
  return f16_value(select(h - 1u, h + 1u, (x < y) == (x > 0.0)));
}
fn ldexp_f(x: f32, e: f32) -> f32 {
  // x * 2**trunc(e) built from the bits, rounded half to even into the subnormals (no multiply
  // a GPU could flush); the CPU's value: ldexp in float64, then rounded to float32
  if (isnan_(e)) { return nan_(); }
  let u = bitcast<u32>(x); let sx = u & 0x80000000u; let ex = (u >> 23u) & 0xffu; var m = u & 0x7fffffu;
  if (ex == 0xffu || (ex == 0u && m == 0u)) { return bitcast<f32>(u); }
  var r = i32(clamp(trunc(e), -400.0, 400.0));
  if (ex == 0u) { let p = 31u - countLeadingZeros(m); m = m << (23u - p); r = r + i32(p) - 149i; }
  else { m = m | 0x800000u; r = r + i32(ex) - 127i; }
  if (r > 127i) { return bitcast<f32>(sx | 0x7f800000u); }
  if (r >= -126i) { return bitcast<f32>(sx | (u32(r + 127i) << 23u) | (m & 0x7fffffu)); }
  let k = u32(-126i - r);
  if (k > 24u) { return bitcast<f32>(sx); }
  var q = m >> k; let rest = m & ((1u << k) - 1u); let half = 1u << (k - 1u);
  if (rest > half || (rest == half && (q & 1u) == 1u)) { q = q + 1u; }
  return bitcast<f32>(sx | q);
}
fn fmod_i(a: i32, b: i32) -> i32 { if (b == 0i || b == -1i) { return 0i; } return a % b; }
fn fmod_u(a: u32, b: u32) -> u32 { if (b == 0u) { return 0u; } return a % b; }
fn gcd_u(x: u32, y: u32) -> u32 {
  var a = x; var b = y;
  loop { if (a == 0u) { break; } let c = a; a = b % a; b = c; }
  return b;
}
fn lcm_u(a: u32, b: u32) -> u32 { let g = gcd_u(a, b); if (g == 0u) { return 0u; } return (a / g) * b; }
fn f2i(x: f32) -> i32 {
  // x86's conversion, which NumPy's casts to int32 and narrower wrap (ir/scalar.ts truncI32): the
  // truncation where it fits, else INT32_MIN, NaN included (WGSL's i32() clamps, and NaN is indeterminate)
  if (isnan_(x) || x < -2147483648.0 || x >= 2147483648.0) { return i32(-2147483648); }
  return i32(x);
}
fn f2u(x: f32) -> u32 {
  // NumPy's float -> uint32 loop: from 2^31 up it converts x - 2^31 and flips the top bit
  if (x >= 2147483648.0) { return bitcast<u32>(f2i(x - 2147483648.0)) ^ 0x80000000u; }
  return bitcast<u32>(f2i(x));
}
fn h2u(x: f32) -> u32 {
  // NumPy's float16 -> uint32 loop goes through int64: NaN and +-inf give 0 (a finite float16 fits i32)
  if (isnan_(x) || isinf_(x)) { return 0u; }
  return bitcast<u32>(i32(x));
}
fn fdiv_i(a: i32, b: i32) -> i32 {
  if (b == 0i) { return 0i; }
  if (b == -1i) { return 0i - a; }
  let q = a / b;
  if ((a % b != 0i) && ((a < 0i) != (b < 0i))) { return q - 1i; }
  return q;
}
fn mod_i(a: i32, b: i32) -> i32 {
  if (b == 0i || b == -1i) { return 0i; }
  let r = a % b;
  if (r != 0i && ((r < 0i) != (b < 0i))) { return r + b; }
  return r;
}
fn fdiv_u(a: u32, b: u32) -> u32 { if (b == 0u) { return 0u; } return a / b; }
fn mod_u(a: u32, b: u32) -> u32 { if (b == 0u) { return 0u; } return a % b; }
fn pow_i(a: i32, b: i32) -> i32 {
  if (b < 0i) { if (a == 1i) { return 1i; } if (a == -1i) { return select(-1i, 1i, (b & 1i) == 0i); } return 0i; }
  var r = 1i; var base = a; var e = u32(b);
  loop { if (e == 0u) { break; } if ((e & 1u) == 1u) { r = r * base; } base = base * base; e = e >> 1u; }
  return r;
}
fn pow_u(a: u32, b: u32) -> u32 {
  var r = 1u; var base = a; var e = b;
  loop { if (e == 0u) { break; } if ((e & 1u) == 1u) { r = r * base; } base = base * base; e = e >> 1u; }
  return r;
}
fn mulhilo(a: u32, b: u32) -> vec2<u32> {
  let a0 = a & 0xffffu; let a1 = a >> 16u; let b0 = b & 0xffffu; let b1 = b >> 16u;
  let p01 = a0 * b1; let p10 = a1 * b0;
  let mid = ((a0 * b0) >> 16u) + (p01 & 0xffffu) + (p10 & 0xffffu);
  return vec2<u32>(a1 * b1 + (p01 >> 16u) + (p10 >> 16u) + (mid >> 16u), a * b);
}
fn philox(block: u32, stream: u32, key: vec2<u32>) -> vec4<u32> {
  var c = vec4<u32>(block, 0u, stream, 0u);
  var k = key;
  for (var r = 0u; r < ${PHILOX_ROUNDS}u; r = r + 1u) {
    let p0 = mulhilo(${PHILOX_M0}u, c.x);
    let p1 = mulhilo(${PHILOX_M1}u, c.z);
    c = vec4<u32>(p1.x ^ c.y ^ k.x, p1.y, p0.x ^ c.w ^ k.y, p0.y);
    k = k + vec2<u32>(${PHILOX_W0}u, ${PHILOX_W1}u);
  }
  return c;
}
`;

/** Writes WGSL statements for expressions, one `let` per value, cached per scope. */
class Emitter {
  readonly lines: string[] = [];
  private n = 0;
  private readonly scopes: Map<Expr, string>[] = [new Map()];
  readonly varName = new Map<number, string>();
  accName = '';
  indent = '  ';

  constructor(private readonly k: Kernel, private readonly layout: { inputs: GpuLayout['inputs']; sites?: number; siteKeys: readonly string[] }) {}

  fresh(prefix = 't'): string { return `${prefix}${this.n++}`; }
  line(s: string): void { this.lines.push(this.indent + s); }

  /** A WGSL expression (usually a name) for `e`. */
  value(e: Expr): string {
    for (let i = this.scopes.length - 1; i >= 0; i--) {
      const hit = this.scopes[i]!.get(e);
      if (hit) return hit;
    }
    const s = this.emit(e);
    if (e.k === 'const' || e.k === 'var' || e.k === 'acc') return s;
    const name = this.fresh();
    this.line(`let ${name}: ${wtype(e.dtype)} = ${s};`);
    this.scopes[this.scopes.length - 1]!.set(e, name);
    return name;
  }

  scoped<T>(f: () => T): T {
    this.scopes.push(new Map());
    const outer = this.indent;
    this.indent += '  ';
    try { return f(); } finally { this.indent = outer; this.scopes.pop(); }
  }

  private emit(e: Expr): string {
    switch (e.k) {
      case 'const': {
        const v = typeof e.value === 'string' ? BigInt(e.value) : typeof e.value === 'boolean' ? (e.value ? 1 : 0) : e.value;
        if (e.dtype === 'bool') return Number(v) !== 0 ? '1u' : '0u';
        const t = wtype(e.dtype);
        // the interpreter's value: a float into an integer dtype (full(3, NaN, dtype='int32')) casts as a float does
        return lit(t === 'f32' ? Number(v) : Number(castScalar(v, typeof v === 'bigint' ? 'int64' : 'float64', e.dtype)), t);
      }
      case 'var': return this.varName.get(e.id)!;
      case 'acc': return this.accName;
      case 'load': {
        const b = this.layout.inputs[e.input]!;
        const terms = e.index.map((ix, i) => `(${this.value(ix)} - p[${b.origin + i}]) * p[${b.strides + i}]`);
        return `in${e.input}[${terms.length ? terms.join(' + ') : '0i'}]`;
      }
      case 'cast': return this.cast(this.value(e.a), e.a.dtype, e.dtype);
      case 'unary': return this.unary(e.op, e.a);
      case 'binary': return this.binary(e.op, e.a, e.b);
      case 'where': {
        const c = this.truthy(this.value(e.c), e.c.dtype);
        const name = this.fresh('w');
        this.line(`var ${name}: ${wtype(e.dtype)};`);
        this.line(`if (${c}) {`);
        this.scoped(() => this.line(`${name} = ${this.value(e.a)};`));
        this.line('} else {');
        this.scoped(() => this.line(`${name} = ${this.value(e.b)};`));
        this.line('}');
        return name;
      }
      case 'random': {
        // element i: Philox block i >> 1, word 0 (even i) or 2 (odd i)
        const i = this.value(e.index);
        const j = this.layout.sites! + 3 * this.layout.siteKeys.indexOf(siteKey(e)); // (seed, stream) from the params
        const w = `philox(u32(${i}) >> 1u, bitcast<u32>(p[${j + 2}]), vec2<u32>(bitcast<u32>(p[${j}]), bitcast<u32>(p[${j + 1}])))`;
        const name = this.fresh('r');
        this.line(`let ${name} = ${w};`);
        const word = `select(${name}.x, ${name}.z, (u32(${i}) & 1u) == 1u)`;
        return e.dist === 'uniform32' ? `(f32(${word} >> 8u) * 5.9604644775390625e-8)` : word;
      }
      case 'reduce': return this.nestedReduce(e);
      default: return e satisfies never;
    }
  }

  truthy(x: string, d: DType): string {
    const t = wtype(d);
    return t === 'f32' ? `truthy_f(${x})` : t === 'u32' ? `(${x} != 0u)` : `(${x} != 0i)`;
  }

  cast(x: string, from: DType, to: DType): string {
    if (from === to) return x;
    const ft = wtype(from), tt = wtype(to);
    if (to === 'bool') return `select(0u, 1u, ${this.truthy(x, from)})`;
    // to float16: through f32 (exact for float16's range: larger integers round to infinity either way), then rounded
    if (to === 'float16') return `round_f16(${this.cast(x, from, 'float32')})`;
    if (tt === 'f32') return ft === 'f32' ? x : `f32(${x})`;
    if (ft === 'f32') {
      if (to === 'uint32') return from === 'float16' ? `h2u(${x})` : `f2u(${x})`;
      const i = `f2i(${x})`;
      return tt === 'u32' ? narrow(`bitcast<u32>(${i})`, to) : narrow(i, to);
    }
    // integer to integer: same low bits, then wrap to the narrower type
    const same = ft === tt ? x : `bitcast<${tt}>(${x})`;
    return narrow(same, to);
  }

  private unary(op: Extract<Expr, { k: 'unary' }>['op'], a: Expr): string {
    const x = this.value(a);
    const t = wtype(a.dtype);
    const ad = a.dtype;
    if (t !== 'f32') {
      switch (op) {
        case 'negative': return narrow(t === 'u32' ? `(0u - ${x})` : `(0i - ${x})`, ad);
        case 'abs': return t === 'u32' ? x : narrow(`select(${x}, 0i - ${x}, ${x} < 0i)`, ad);
        case 'sign': return t === 'u32' ? `select(0u, 1u, ${x} > 0u)` : `select(select(0i, -1i, ${x} < 0i), 1i, ${x} > 0i)`;
        case 'square': return narrow(`(${x} * ${x})`, ad);
        case 'reciprocal':
          // 1/0 is NumPy's int(1.0 / 0): the most negative int32 (0 in narrower types)
          return t === 'u32' ? `select(0u, 1u, ${x} == 1u)` : `select(${ad === 'int32' ? `select(0i, i32(-2147483647 - 1), ${x} == 0i)` : '0i'}, ${x}, ${x} == 1i || ${x} == -1i)`;
        case 'floor': case 'ceil': case 'trunc': case 'rint': case 'floordiv_pos': return x;
        case 'logical_not': return `select(0u, 1u, ${x} == ${t === 'u32' ? '0u' : '0i'})`;
        case 'bitwise_not': return ad === 'bool' ? `(1u - ${x})` : narrow(`(~${x})`, ad);
        case 'isnan': case 'isinf': return '0u';
        case 'isfinite': return '1u';
        default: throw new Error(`internal: ${op} of ${ad} reaches the WGSL emitter`);
      }
    }
    // WGSL's built-in functions need not pass NaN through (SwiftShader's exp(NaN) is inf): keep it
    const nan = (f: string) => `select(${f}, ${x}, isnan_(${x}))`;
    switch (op) {
      case 'negative': return `(-${x})`;
      case 'sign': return `sign_f(${x})`;
      case 'square': return `(${x} * ${x})`;
      case 'reciprocal': return `(1.0 / ${x})`;
      case 'logical_not': return `select(1u, 0u, truthy_f(${x}))`;
      case 'bitwise_not': throw new Error('internal: bitwise_not of a float');
      case 'isnan': return `select(0u, 1u, isnan_(${x}))`;
      case 'isinf': return `select(0u, 1u, isinf_(${x}))`;
      case 'isfinite': return `select(1u, 0u, isnan_(${x}) || isinf_(${x}))`;
      case 'floordiv_pos': return x;
      case 'signbit': return `(bitcast<u32>(${x}) >> 31u)`;
      case 'frexp_mantissa': return `frexp_m(${x})`;
      case 'frexp_exponent': return `frexp_e(${x})`;
      default: return nan(this.special(op, x, this.builtin(op, x)));
    }
  }

  /**
   * C99's special values, which WGSL leaves to the implementation (SwiftShader's
   * log(0) is -88): logs of 0, of negatives and of inf, roots of negatives,
   * trigonometry at infinity, inverse functions outside their domain.
   */
  private special(op: BuiltinUnary, x: string, f: string): string {
    const inf = 'f32_of(0x7f800000u)', ninf = 'f32_of(0xff800000u)', nan = 'nan_()';
    const sel = (cases: [string, string][]) => cases.reduceRight((acc, [cond, v]) => `select(${acc}, ${v}, ${cond})`, f);
    switch (op) {
      case 'log': case 'log2': case 'log10':
        return sel([[`${x} == 0.0`, ninf], [`${x} < 0.0`, nan], [`${x} == ${inf}`, inf]]);
      case 'log1p': return sel([[`${x} == -1.0`, ninf], [`${x} < -1.0`, nan], [`${x} == ${inf}`, inf]]);
      case 'sqrt': return sel([[`${x} < 0.0`, nan], [`${x} == ${inf}`, inf], [`${x} == 0.0`, x]]);
      case 'exp': return sel([[`${x} > 88.7228394`, inf], [`${x} < -103.972084`, '0.0']]);
      case 'exp2': return sel([[`${x} >= 128.0`, inf], [`${x} < -150.0`, '0.0']]);
      case 'expm1': return sel([[`${x} == ${inf}`, inf], [`${x} == ${ninf}`, '-1.0']]);
      case 'sin': case 'cos': case 'tan': return sel([[`isinf_(${x})`, nan]]);
      case 'arcsin': case 'arccos': return sel([[`abs(${x}) > 1.0`, nan]]);
      case 'arccosh': return sel([[`${x} < 1.0`, nan], [`${x} == ${inf}`, inf]]);
      case 'arctanh': return sel([[`abs(${x}) > 1.0`, nan], [`${x} == 1.0`, inf], [`${x} == -1.0`, ninf]]);
      case 'arcsinh': case 'sinh': return sel([[`isinf_(${x})`, x]]);
      case 'cosh': return sel([[`isinf_(${x})`, inf]]);
      case 'tanh': return sel([[`${x} == ${inf}`, '1.0'], [`${x} == ${ninf}`, '-1.0']]);
      case 'arctan': return sel([[`${x} == ${inf}`, '1.5707963267948966'], [`${x} == ${ninf}`, '-1.5707963267948966']]);
      case 'floor': case 'ceil': case 'trunc': case 'rint': case 'abs': return sel([[`isinf_(${x})`, op === 'abs' ? inf : x]]);
      case 'cbrt': return f;
      default: return op satisfies never;
    }
  }

  private builtin(op: BuiltinUnary, x: string): string {
    switch (op) {
      case 'abs': return `abs(${x})`;
      case 'sqrt': return `sqrt(${x})`;
      case 'cbrt': return `cbrt_f(${x})`;
      case 'exp': return `exp(${x})`;
      case 'exp2': return `exp2(${x})`;
      case 'expm1': return `expm1_f(${x})`;
      case 'log': return `log(${x})`;
      case 'log2': return `log2(${x})`;
      case 'log10': return `(log2(${x}) * 0.30102999566398120)`;
      case 'log1p': return `log1p_f(${x})`;
      case 'sin': return `sincos_f(${x}).x`;
      case 'cos': return `sincos_f(${x}).y`;
      case 'tan': return `(sincos_f(${x}).x / sincos_f(${x}).y)`;
      case 'arcsin': return `atan2_f(${x}, sqrt((1.0 - ${x}) * (1.0 + ${x})))`;
      case 'arccos': return `(2.0 * atan2_f(sqrt(1.0 - ${x}), sqrt(1.0 + ${x})))`;
      case 'arctan': return `atan_f(${x})`;
      case 'sinh': return `sinh_f(${x})`;
      case 'cosh': return `cosh_f(${x})`;
      case 'tanh': return `tanh_f(${x})`;
      case 'arcsinh': return `asinh_f(${x})`;
      case 'arccosh': return `acosh_f(${x})`;
      case 'arctanh': return `atanh_f(${x})`;
      case 'floor': return `floor(${x})`;
      case 'ceil': return `ceil(${x})`;
      case 'trunc': return `trunc(${x})`;
      case 'rint': return `round(${x})`;
      default: return op satisfies never;
    }
  }

  private binary(op: BinaryOp, ae: Expr, be: Expr): string {
    return this.binaryOf(op, this.value(ae), this.value(be), ae.dtype);
  }

  /** `op` of the values `a` and `b` (WGSL expressions of dtype `cd`). */
  binaryOf(op: BinaryOp, a: string, b: string, cd: DType): string {
    const t = wtype(cd);
    // IEEE comparisons with NaN spelled out: shader compilers may assume there is none
    const ordered = t === 'f32' ? `!isnan_(${a}) && !isnan_(${b}) && ` : '';
    const cmp = (o: string) => (o === '!=' && t === 'f32' ? `select(0u, 1u, isnan_(${a}) || isnan_(${b}) || ${a} != ${b})` : `select(0u, 1u, ${ordered}${a} ${o} ${b})`);
    switch (op) {
      case 'equal': return cmp('==');
      case 'not_equal': return cmp('!=');
      case 'less': return cmp('<');
      case 'less_equal': return cmp('<=');
      case 'greater': return cmp('>');
      case 'greater_equal': return cmp('>=');
      case 'logical_and': return `select(0u, 1u, ${this.truthy(a, cd)} && ${this.truthy(b, cd)})`;
      case 'logical_or': return `select(0u, 1u, ${this.truthy(a, cd)} || ${this.truthy(b, cd)})`;
      case 'logical_xor': return `select(0u, 1u, ${this.truthy(a, cd)} != ${this.truthy(b, cd)})`;
      default: break;
    }
    if (t === 'f32') {
      switch (op) {
        case 'add': return `(${a} + ${b})`;
        case 'subtract': return `(${a} - ${b})`;
        case 'multiply': return `(${a} * ${b})`;
        case 'divide': return `(${a} / ${b})`;
        case 'floor_divide': return `fdivmod_f(${a}, ${b}).x`;
        case 'mod': return `fdivmod_f(${a}, ${b}).y`;
        case 'power': return `pow_f(${a}, ${b})`;
        case 'arctan2': return `atan2_f(${a}, ${b})`;
        case 'hypot': return `hypot_f(${a}, ${b})`;
        case 'maximum': return `max_f(${a}, ${b})`;
        case 'minimum': return `min_f(${a}, ${b})`;
        case 'fmax': return `fmax_f(${a}, ${b})`;
        case 'fmin': return `fmin_f(${a}, ${b})`;
        case 'fmod': return `fmod_f(${a}, ${b})`;
        case 'copysign': return `bitcast<f32>((bitcast<u32>(${a}) & 0x7fffffffu) | (bitcast<u32>(${b}) & 0x80000000u))`;
        case 'nextafter': return cd === 'float16' ? `nextafter_h(${a}, ${b})` : `nextafter_f(${a}, ${b})`;
        case 'ldexp': return `ldexp_f(${a}, ${b})`;
        default: throw new Error(`internal: ${op} of float32 reaches the WGSL emitter`);
      }
    }
    const s = t === 'i32' ? 'i' : 'u';
    const w = (x: string) => (cd === 'int64' ? x : narrow(x, cd));
    switch (op) {
      case 'add': return cd === 'bool' ? `select(0u, 1u, (${a} | ${b}) != 0u)` : w(`(${a} + ${b})`);
      case 'subtract': return w(`(${a} - ${b})`);
      case 'multiply': return cd === 'bool' ? `(${a} & ${b})` : w(`(${a} * ${b})`);
      case 'floor_divide': return w(`fdiv_${s}(${a}, ${b})`);
      case 'mod': return w(`mod_${s}(${a}, ${b})`);
      case 'power': return w(t === 'i32' ? `pow_i(${a}, ${b})` : `pow_u(${a}, ${b})`);
      case 'maximum': case 'fmax': return `max(${a}, ${b})`;
      case 'minimum': case 'fmin': return `min(${a}, ${b})`;
      case 'bitwise_and': return `(${a} & ${b})`;
      case 'bitwise_or': return `(${a} | ${b})`;
      case 'bitwise_xor': return `(${a} ^ ${b})`;
      case 'fmod': return `fmod_${s}(${a}, ${b})`;
      case 'gcd': case 'lcm': {
        // on magnitudes as u32 (|i32 min| is 2**31), wrapping as NumPy's unsigned arithmetic does
        const mag = (v: string) => (t === 'i32' ? `bitcast<u32>(abs(${v}))` : v);
        const r = `${op}_u(${mag(a)}, ${mag(b)})`;
        return w(t === 'i32' ? `bitcast<i32>(${r})` : r);
      }
      case 'left_shift': case 'right_shift': {
        // the count as unsigned (a negative one is past the width, as in NumPy), masked so that a
        // constant count is a valid WGSL shift; past the width: 0, or the sign for a signed right shift
        const n = t === 'i32' ? `bitcast<u32>(${b})` : b;
        if (op === 'right_shift' && t === 'i32') return `(${a} >> min(${n}, 31u))`;
        const zero = t === 'i32' ? '0i' : '0u';
        return w(`select(${a} ${op === 'left_shift' ? '<<' : '>>'} (${n} & 31u), ${zero}, ${n} >= 32u)`);
      }
      case 'divide': case 'arctan2': case 'hypot': case 'copysign': case 'nextafter': case 'ldexp':
        throw new Error(`internal: ${op} of ${cd} reaches the WGSL emitter`);
      default: return op satisfies never;
    }
  }

  /** Accumulation of `v` (already in the accumulator's dtype) into `acc`, as a statement. */
  accumulate(op: ReduceOp, acc: string, v: string, d: DType): string {
    return `${acc} = ${this.binaryOf(foldRule(op).combine, acc, v, d)};`;
  }

  /** The accumulator's first value (an int64 accumulator is an i32 here: it starts at i32's bounds). */
  identity(op: ReduceOp, d: DType): string {
    const t = wtype(d);
    return lit(Number(accStart(op, d === 'int64' ? 'int32' : d)), t);
  }

  /** Whether value `v` beats `best` for argmin/argmax: NaN wins and stays; otherwise strictly better. */
  better(op: ReduceOp, v: string, best: string, d: DType): string {
    const o = argRule(op).better === 'greater' ? '>' : '<';
    if (wtype(d) !== 'f32') return `(${v} ${o} ${best})`;
    return `(!isnan_(${best}) && (isnan_(${v}) || ${v} ${o} ${best}))`;
  }

  /** A nested reduction: a loop nest over its variables, in C order. */
  private nestedReduce(r: Extract<Expr, { k: 'reduce' }>): string {
    const d = r.dtype;
    const acc = this.fresh('acc');
    const arg = isArgReduce(r.op);
    const best = arg ? this.fresh('best') : '';
    this.line(`var ${acc}: ${wtype(d)} = ${arg ? '-1i' : this.identity(r.op, d)};`);
    if (arg) this.line(`var ${best}: ${wtype(r.body.dtype)};`);
    const open = r.vars.map((v) => {
      const name = this.fresh('v');
      this.varName.set(v.id, name);
      this.line(`for (var ${name} = 0i; ${name} < ${v.size}i; ${name} = ${name} + 1i) {`);
      this.indent += '  ';
      this.scopes.push(new Map());
      return name;
    });
    const body = this.value(r.body);
    if (arg) {
      let lin = '0i';
      r.vars.forEach((v, i) => { lin = i === 0 ? open[0]! : `(${lin}) * ${v.size}i + ${open[i]}`; });
      this.line(`if (${acc} < 0i || ${this.better(r.op, body, best, r.body.dtype)}) { ${best} = ${body}; ${acc} = ${lin}; }`);
    } else {
      this.line(this.accumulate(r.op, acc, this.cast(body, r.body.dtype, d), d));
    }
    for (let i = 0; i < open.length; i++) {
      this.scopes.pop();
      this.indent = this.indent.slice(2);
      this.line('}');
    }
    return acc;
  }
}

/**
 * The subgroup builtin that combines partial results of reduction `op` in
 * dtype `d` exactly as the accumulation does (integers wrap, so narrowing
 * after the combination is the same as after each step), or undefined where
 * none does: float min and max (NaN and -0 have their own rules here) and
 * arg-reductions use the workgroup tree.
 */
function subgroupOp(op: ReduceOp, d: DType): string | undefined {
  const rule = REDUCE[op];
  if (rule.kind === 'arg') return undefined;
  const f = wtype(d) === 'f32';
  switch (rule.combine) {
    case 'add': return d === 'bool' ? 'subgroupOr' : 'subgroupAdd';
    case 'multiply': return d === 'bool' ? 'subgroupAnd' : 'subgroupMul';
    case 'minimum': return f ? undefined : 'subgroupMin';
    case 'maximum': return f ? undefined : 'subgroupMax';
    case 'logical_or': return 'subgroupOr';
    case 'logical_and': return 'subgroupAnd';
    default: return rule.combine satisfies never;
  }
}

/** The float unary ops a WGSL built-in (or a helper of the prelude) computes, C99's special values added (`special`). */
type BuiltinUnary = Exclude<Extract<Expr, { k: 'unary' }>['op'],
  'negative' | 'sign' | 'square' | 'reciprocal' | 'logical_not' | 'bitwise_not' | 'isnan' | 'isinf' | 'isfinite' | 'floordiv_pos' | 'signbit'
  | 'frexp_mantissa' | 'frexp_exponent'>;

/** Renders `k` as a WGSL compute shader for one task (full or partial mode). */
export function renderWgsl(kernel: Kernel, partial: boolean, opts: { subgroups?: boolean } = {}): { code: string; layout: GpuLayout } {
  const why = gpuSupport(kernel);
  const k = gpuKernel(kernel);
  if (why) throw new Error(`internal: kernel cannot run as WGSL: ${why}`);
  let s = 0;
  const bind = (rank: number) => { const b = { origin: s, strides: s + rank, rank }; s += 2 * rank; return b; };
  const inputs = k.inputs.map((i) => bind(i.shape.length));
  const red = k.reduce;
  const argPartial = partial && !!red && isArgReduce(red.op);
  const outputs = Array.from({ length: argPartial ? 2 : 1 }, () => bind(k.shape.length));
  const outer = s; s += 2 * k.shape.length;
  const redSlot = s; s += 2 * (red?.vars.length ?? 0);
  const countSlot = s++, gridSlot = s++, redCountSlot = s++;
  const siteKeys = randomSites(kernel);
  const sites = siteKeys.length ? s : undefined;
  s += 3 * siteKeys.length;
  const outTypes: WType[] = !red || !partial ? [wtype(k.dtype)] : argPartial ? [wtype(red.body.dtype), 'i32'] : [wtype(red.dtype)];
  const perOutput: GpuLayout['perOutput'] = red ? 'workgroup' : 'invocation';

  const em = new Emitter(k, { inputs, sites, siteKeys });
  const decl: string[] = [];
  decl.push('@group(0) @binding(0) var<storage, read> p: array<i32>;');
  k.inputs.forEach((inp, i) => decl.push(`@group(0) @binding(${i + 1}) var<storage, read> in${i}: array<${wtype(inp.dtype)}>;`));
  outTypes.forEach((t, i) => decl.push(`@group(0) @binding(${k.inputs.length + 1 + i}) var<storage, read_write> out${i}: array<${t}>;`));

  // Output element o of the task's box -> the outer variables, in C order.
  const r = k.shape.length;
  em.indent = '  ';
  if (perOutput === 'invocation') em.line(`let o = i32(wid.x + wid.y * u32(p[${gridSlot}])) * ${WG}i + i32(lid);`);
  else em.line(`let o = i32(wid.x + wid.y * u32(p[${gridSlot}]));`);
  em.line(`if (o >= p[${countSlot}]) { return; }`);
  em.line('var rest = o;');
  for (let i = r - 1; i >= 0; i--) {
    const name = `o${i}`;
    em.varName.set(i, name);
    em.line(`let ${name} = p[${outer + 2 * i}] + rest % p[${outer + 2 * i + 1}];`);
    if (i > 0) em.line(`rest = rest / p[${outer + 2 * i + 1}];`);
  }
  const store = (o: number, value: string) => {
    const b = outputs[o]!;
    const terms = Array.from({ length: r }, (_, i) => `(o${i} - p[${b.origin + i}]) * p[${b.strides + i}]`);
    em.line(`out${o}[${terms.length ? terms.join(' + ') : '0i'}] = ${value};`);
  };

  const shared: string[] = [];
  let subgroups = false;
  if (!red) {
    store(0, em.value(k.epilogue));
  } else {
    const d = red.dtype;
    const arg = isArgReduce(red.op);
    const vt = arg ? wtype(red.body.dtype) : wtype(d);
    shared.push(`var<workgroup> sh_v: array<${vt}, ${WG}>;`);
    if (arg) shared.push(`var<workgroup> sh_i: array<i32, ${WG}>;`);
    em.line(`var acc: ${vt} = ${arg ? lit(0, vt) : em.identity(red.op, d)};`);
    if (arg) em.line('var besti = -1i;');
    // Each invocation takes terms lid, lid + WG, ... of the reduction box (C order).
    em.line(`for (var t = i32(lid); t < p[${redCountSlot}]; t = t + ${WG}i) {`);
    em.scoped(() => {
      em.line('var rr = t;');
      for (let j = red.vars.length - 1; j >= 0; j--) {
        const name = em.fresh('q');
        em.varName.set(red.vars[j]!.id, name);
        em.line(`let ${name} = p[${redSlot + 2 * j}] + rr % p[${redSlot + 2 * j + 1}];`);
        if (j > 0) em.line(`rr = rr / p[${redSlot + 2 * j + 1}];`);
      }
      const body = em.value(red.body);
      if (arg) {
        let lin = '0i';
        red.vars.forEach((v, i) => { lin = i === 0 ? em.varName.get(v.id)! : `(${lin}) * ${v.size}i + ${em.varName.get(v.id)}`; });
        em.line(`if (besti < 0i || ${em.better(red.op, body, 'acc', red.body.dtype)}) { acc = ${body}; besti = ${lin}; }`);
      } else {
        em.line(em.accumulate(red.op, 'acc', em.cast(body, red.body.dtype, d), d));
      }
    });
    em.line('}');
    const sg = opts.subgroups && !arg ? subgroupOp(red.op, d) : undefined;
    if (sg) {
      // Each subgroup combines in hardware; its first invocation leaves the result in the slot of
      // its subgroup (subgroups are runs of consecutive invocations: the self-test checks it),
      // and invocation 0 combines those in order.
      subgroups = true;
      em.line(`let sgv = ${narrow(`${sg}(acc)`, d)};`);
      em.line('if (sgi == 0u) { sh_v[lid / sgs] = sgv; }');
      em.line('workgroupBarrier();');
      em.line('if (lid != 0u) { return; }');
      em.line('acc = sh_v[0];');
      em.line(`for (var j = 1u; j < (${WG}u + sgs - 1u) / sgs; j = j + 1u) { ${em.accumulate(red.op, 'acc', 'sh_v[j]', d)} }`);
    } else {
      em.line('sh_v[lid] = acc;');
      if (arg) em.line('sh_i[lid] = besti;');
      em.line('workgroupBarrier();');
      em.line(`for (var s = ${WG / 2}u; s > 0u; s = s >> 1u) {`);
      em.line('  if (lid < s) {');
      if (arg) {
        // the better value, or on a tie (both NaN, or equal) the lower index; an empty side loses
        em.line('    let bi = sh_i[lid + s]; let bv = sh_v[lid + s]; let ai = sh_i[lid]; let av = sh_v[lid];');
        const tie = wtype(red.body.dtype) === 'f32' ? '((isnan_(bv) && isnan_(av)) || bv == av)' : '(bv == av)';
        em.line(`    if (bi >= 0i && (ai < 0i || ${em.better(red.op, 'bv', 'av', red.body.dtype)} || (${tie} && bi < ai))) { sh_v[lid] = bv; sh_i[lid] = bi; }`);
      } else {
        em.line(`    var a = sh_v[lid]; ${em.accumulate(red.op, 'a', 'sh_v[lid + s]', d)} sh_v[lid] = a;`);
      }
      em.line('  }');
      em.line('  workgroupBarrier();');
      em.line('}');
      em.line('if (lid != 0u) { return; }');
      em.line('acc = sh_v[0];');
      if (arg) em.line('besti = sh_i[0];');
    }
    if (partial) {
      if (arg) { store(0, 'acc'); store(1, 'besti'); } else store(0, 'acc');
    } else {
      em.accName = arg ? 'besti' : 'acc';
      store(0, em.value(k.epilogue));
    }
  }

  const code = [
    ...(subgroups ? ['enable subgroups;'] : []),
    PRELUDE,
    ...decl,
    ...shared,
    `@compute @workgroup_size(${WG})`,
    `fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32${subgroups ? ', @builtin(subgroup_invocation_id) sgi: u32, @builtin(subgroup_size) sgs: u32' : ''}) {`,
    ...em.lines,
    '}',
    '',
  ].join('\n');
  return { code, layout: { inputs, outputs, outer, red: redSlot, countSlot, gridSlot, redCountSlot, ...(sites !== undefined ? { sites } : {}), slots: s, outTypes, perOutput } };
}
