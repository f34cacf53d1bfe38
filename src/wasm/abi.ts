// The calling convention and skeleton every kernel module shares: the
// parameter block (Layout, writeParams), the function types, the host Math
// imports and their index, the helper functions appended after `run`
// (NumPy's integer division, power, gcd and lcm), and memory-access opcodes
// per dtype. The emitters and the runtime agree through this file.
// In: dtypes, a Layout and a task's arguments. Out: opcodes, indices, the
// i64 parameter slots, helper function bodies.

import { type DType, INFO } from '../graph/dtype.js';
import type { UnaryOp } from '../graph/ops.js';
import type { KernelArgs } from '../ir/args.js';
import { cpow, fdivmod, frexp, ldexp, nextafter, nextafter16, nextafter32 } from '../ir/scalar.js';
import { Code, type Func, type FuncType, type Import, T } from './encode.js';

export const MAX_PAGES = 65536;

/** Host functions a kernel may import, by name. */
export const MATH_IMPORTS = {
  unary: ['cbrt', 'exp', 'exp2', 'expm1', 'log', 'log2', 'log10', 'log1p', 'sin', 'cos', 'tan', 'asin', 'acos', 'atan', 'sinh', 'cosh', 'tanh', 'asinh', 'acosh', 'atanh'],
  unaryExtra: ['frexpm', 'frexpe'],
  binary: ['pow', 'atan2', 'hypot', 'floordiv', 'fmod', 'cfmod', 'nextafter', 'nextafter32', 'nextafter16', 'ldexp'],
} as const;

/** The unary ops a WASM kernel computes by calling the host's Math (float64 in and out); expr.ts emits the others itself. */
export const UNARY_IMPORT = {
  cbrt: 'cbrt', exp: 'exp', exp2: 'exp2', expm1: 'expm1', log: 'log', log2: 'log2', log10: 'log10', log1p: 'log1p',
  sin: 'sin', cos: 'cos', tan: 'tan', arcsin: 'asin', arccos: 'acos', arctan: 'atan', sinh: 'sinh', cosh: 'cosh',
  tanh: 'tanh', arcsinh: 'asinh', arccosh: 'acosh', arctanh: 'atanh',
} as const satisfies Partial<Record<UnaryOp, (typeof MATH_IMPORTS.unary)[number]>>;
export type ImportedUnary = keyof typeof UNARY_IMPORT;
export const isImportedUnary = (op: UnaryOp): op is ImportedUnary => Object.hasOwn(UNARY_IMPORT, op);

/** The WASM type a value of `d` lives in: float16 values live in f32 (lowered kernels keep them float16 values, ir/half.ts). */
export const wasmType = (d: DType): T => (d === 'int64' ? T.i64 : d === 'float32' || d === 'float16' ? T.f32 : d === 'float64' ? T.f64 : T.i32);
export const log2Bytes = (d: DType): number => Math.log2(INFO[d].bytes);
export const signed = (d: DType): boolean => INFO[d].kind === 'i' || INFO[d].kind === 'f';

/** Memory opcodes by dtype; float16's move its 16 bits, which the emitter's `loadElem`/`storeElem` convert from and to f32. */
export const LOAD: Record<DType, number> = { bool: 0x2d, uint8: 0x2d, int8: 0x2c, int16: 0x2e, uint16: 0x2f, int32: 0x28, uint32: 0x28, int64: 0x29, float16: 0x2f, float32: 0x2a, float64: 0x2b };
export const STORE: Record<DType, number> = { bool: 0x3a, uint8: 0x3a, int8: 0x3a, int16: 0x3b, uint16: 0x3b, int32: 0x36, uint32: 0x36, int64: 0x37, float16: 0x3b, float32: 0x38, float64: 0x39 };

/** Parameter block layout: i64 slots, in this order. */
export interface Layout {
  readonly slots: number;
  readonly inputs: readonly { ptr: number; origin: number; strides: number; rank: number }[];
  readonly outputs: readonly { ptr: number; origin: number; strides: number; rank: number }[];
  readonly outer: number;
  readonly red: number;
  /** A routine that needs working memory: the slot of its pointer, the bytes one task needs, and where the draw sites' Philox blocks start in it. */
  readonly scratch?: { readonly slot: number; readonly bytes: number; readonly random?: number };
  /** Draw sites: the first of three slots per site (seed word 0, seed word 1, stream), so one program serves every seed. */
  readonly sites?: number;
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
  if (layout.scratch) put(layout.scratch.slot, args.scratch ?? 0);
  if (layout.sites === undefined) return;
  if (!args.sites) throw new Error('internal: a kernel that draws random numbers needs its sites\' seeds (siteParams)');
  args.sites.forEach((site, i) => site.forEach((v, j) => put(layout.sites! + 3 * i + j, v)));
}

// Type indices in every module.
export const TY = { run: 0, f64_f64: 1, f64f64_f64: 2, i32i32_i32: 3, i64i64_i64: 4, i32x7: 5, philox: 6 } as const;
export const TYPES: FuncType[] = [
  { params: [T.i32], results: [] },
  { params: [T.f64], results: [T.f64] },
  { params: [T.f64, T.f64], results: [T.f64] },
  { params: [T.i32, T.i32], results: [T.i32] },
  { params: [T.i64, T.i64], results: [T.i64] },
  { params: [T.i32, T.i32, T.i32, T.i32, T.i32, T.i32, T.i32], results: [] },
  { params: [T.i64, T.i32], results: [] },
];
export const IMPORTS: Import[] = [
  ...[...MATH_IMPORTS.unary, ...MATH_IMPORTS.unaryExtra].map((name) => ({ module: 'math', name, type: TY.f64_f64 })),
  ...MATH_IMPORTS.binary.map((name) => ({ module: 'math', name, type: TY.f64f64_f64 })),
];
export const importIndex = (name: string): number => IMPORTS.findIndex((i) => i.name === name);
const NI = IMPORTS.length;
// Internal helper functions follow `run` (function index NI).
/** Function indices; the two Philox functions (expr.ts: philoxFunc) come last, in modules with many draw sites only. */
export const FN = { run: NI, fdivI32: NI + 1, modI32: NI + 2, fdivI64: NI + 3, modI64: NI + 4, powI32: NI + 5, powI64: NI + 6, gcdI64: NI + 7, lcmI64: NI + 8, philoxWords: NI + 9, philoxUniform: NI + 10 } as const;

/** Integer floor division and modulo with NumPy's semantics (x/0 = 0, no trap on MIN/-1). */
export function intDivFuncs(): Func[] {
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
export function intPowFuncs(): Func[] {
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

/**
 * NumPy's gcd and lcm on int64 (narrower integers arrive extended to int64):
 * Euclid on the magnitudes as unsigned values, so |int64 min| is 2**63, and
 * lcm = a / gcd * b wrapping, as NumPy's unsigned arithmetic does; lcm(0, x) = 0.
 */
export function gcdFuncs(): Func[] {
  const make = (lcm: boolean): Func => {
    const c = new Code();
    const [a, b, x, y, t] = [0, 1, 2, 3, 4];
    // magnitudes: 0 - v for negative v (wraps int64 min onto itself, 2**63 unsigned)
    for (const [v, m] of [[a, x], [b, y]] as const) { c.i64(0).get(v).op(0x7d).get(v).get(v).i64(0).op(0x53).op(0x1b).set(m); }
    c.get(x).set(a).get(y).set(b);
    c.block().loop();
    c.get(a).op(0x50).brIf(1);
    c.get(a).set(t).get(b).get(a).op(0x82).set(a).get(t).set(b);
    c.br(0).end().end();
    if (!lcm) { c.get(b); } else {
      c.get(b).op(0x50).if().i64(0).op(0x0f).end();
      c.get(x).get(b).op(0x80).get(y).op(0x7e);
    }
    return { type: TY.i64i64_i64, locals: [T.i64, T.i64, T.i64], code: c };
  };
  return [make(false), make(true)];
}

/** Host functions with the reference interpreter's exact semantics. */
export function mathImports(): Record<string, (...a: number[]) => number> {
  const m: Record<string, (...a: number[]) => number> = {};
  for (const n of MATH_IMPORTS.unary) m[n] = n === 'exp2' ? (x: number) => Math.pow(2, x) : (Math as unknown as Record<string, (x: number) => number>)[n]!;
  m.pow = cpow;
  m.atan2 = Math.atan2;
  m.hypot = Math.hypot;
  m.floordiv = (a: number, b: number) => fdivmod(a, b)[0];
  m.fmod = (a: number, b: number) => fdivmod(a, b)[1];
  m.cfmod = (a: number, b: number) => a % b;
  m.nextafter = nextafter;
  m.nextafter32 = nextafter32;
  m.nextafter16 = nextafter16;
  m.ldexp = ldexp;
  m.frexpm = (x: number) => frexp(x)[0];
  m.frexpe = (x: number) => frexp(x)[1];
  return m;
}
