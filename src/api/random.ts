// Random numbers: NumPy's Generator (default_rng) and its legacy functions
// (mt.random.*, drawing from the generator that mt.random.seed sets). In:
// NumPy's parameters (numbers, JS data or tensors, broadcast by NumPy's rules,
// see `Call`; keywords in a trailing options object, see `kwargs`). Out: lazy
// Tensors.
//
// Design: every draw is a pure function of (seed, stream, element index) —
// Philox4x32-10 (ir/philox.ts) — so values are the same for any chunking,
// worker count or device, and the draws fuse into the kernels that use them.
// Each distribution is a composition of elementwise ops over a fixed number of
// independent streams (one `draw` = one stream): inversion where there is a
// closed form; for discrete laws with a small mean, inversion through a table
// of cumulative probabilities made on the host (number parameters) or by a
// fixed number of element-wise steps (tensor parameters, whose per-element
// constants are lazy expressions too, see `P`); and for rejection methods K
// candidate sets from K stream sets, the first accepted taken with `where`.
// K is chosen so that all K are rejected with probability below 1e-12 per
// element at the worst parameter (rates computed by exact integration over
// the candidate's uniform, see each K); that event then keeps the K-th
// candidate, a value in the support drawn from the method's hat (proposal)
// law, which is close to the target law (never NaN or an arbitrary constant).
// Sequential algorithms (permuted's per-slice shuffles, both methods of
// multivariate_hypergeometric, whose colours are drawn one after another) and
// spawned children's keys run on the host from one stream (./random_extra.ts).

import { type DType, isFloat, integerRange } from '../graph/dtype.js';
import * as G from '../graph/node.js';
import type { Node } from '../graph/node.js';
import { broadcastShapes, checkShape, chunkGrid, isUnknown, normalizeAxis, repr } from '../graph/shape.js';
import { randomValue, seedKey } from '../ir/philox.js';
import { type JsData, dtypeArg, fromJs } from './convert.js';
import { multivariateHypergeometricCount, multivariateHypergeometricMarginals, permutedIndex, spawnKey } from './random_extra.js';
import { kwargs } from './bind.js';
import {
  type CreateOpts, type Operand, Tensor, add, all, arccos, astype, ceil, deferred, divide, equal, exp, expm1, floor, fmod, full, greater,
  greater_equal, isTensor, isnan, less, less_equal, log, log1p, logical_and, logical_not, logical_or, matmul, maximum, minimum, multiply, negative,
  _placed as placed, power, reshape, signbit, sqrt, stack, subtract, sum, take, tensor, toTensor, transpose, valuesNow, where, abs, cos,
} from './core.js';

type Args = unknown[];
type Size = number | readonly number[] | null | undefined;
const CREATE_KW = ['chunkSize', 'gpu'];
/** The keywords every draw of floats takes beside NumPy's own: dtype (float32 draws run on WebGPU), chunkSize, gpu. */
const DRAW_KW = ['dtype', ...CREATE_KW];

/** A JS number parameter (NumPy's scalar), named for messages. */
function num(v: unknown, fn: string, name: string, dflt?: number): number {
  if (v === undefined && dflt !== undefined) return dflt;
  if (v === undefined) throw new TypeError(`${fn}() missing required argument '${name}'`);
  if (typeof v !== 'number') throw new TypeError(`${fn}(): '${name}' must be a number, got ${repr(v)}`);
  return v;
}
function int(v: unknown, fn: string, name: string): number {
  const n = num(v, fn, name);
  if (!Number.isInteger(n)) throw new TypeError(`${fn}(): '${name}' must be an integer, got ${repr(n)}`);
  return n;
}
/** NumPy's ValueError for a parameter out of its domain (NaN fails every domain test here as in NumPy). */
function domain(ok: boolean, message: string): void {
  if (!ok) throw new RangeError(message);
}
/** Values of a parameter known now: a number, JS data, or a tensor computed already. */
function hostArray(fn: string, x: unknown, what: string): { shape: number[]; data: number[] } {
  if (typeof x === 'number') return { shape: [], data: [x] };
  if (isTensor(x)) return { shape: [...x.shape], data: valuesNow(fn, x, what, 'the draw is set up on the host') };
  const a = fromJs(x as JsData);
  return { shape: a.shape, data: Array.from(a.data as ArrayLike<number | bigint>, Number) };
}

/** Candidate sets for Marsaglia–Tsang gamma: rejection rate at most 0.04833 (shape 1, decreasing in shape), 0.04833^10 = 7e-14. */
const K_GAMMA = 10;
/** Candidate sets for PTRS Poisson (lam >= 10): rejection rate at most 0.2474 (lam = 10, decreasing), 0.2474^20 = 7e-13. */
const K_PTRS = 20;
/** Candidate sets for BTRS binomial (n min(p, 1-p) >= 10): rejection rate at most 0.2909 (n p = 10, p = 0.5), 0.2909^23 = 4.7e-13. */
const K_BTRS = 23;
/**
 * Candidate sets for Best–Fisher von Mises: the acceptance rate, the
 * integral over the candidate's uniform U of min(1, Y e^(1-Y)), decreases in
 * kappa from 1 to 0.65774 (kappa -> inf; this method serves kappa <= 1e6),
 * so the rejection rate is below 0.34226 and 0.34226^26 = 7.9e-13.
 */
const K_VONMISES = 26;
/**
 * Candidate sets for HRUA hypergeometric (mean >= 10): the acceptance rate
 * is 1 / (2 h f(mode)) (the hat's area over the pmf's), smallest over that
 * range at 40 balls, 20 good, 20 drawn: rejection 0.48252, 0.48252^38 = 9.4e-13.
 */
const K_HRUA = 38;
/**
 * Candidate sets for Devroye's Zipf rejection (NumPy's, its uniform on
 * (Umin, 1] so that no candidate passes 2^63): the rejection rate, summed over
 * the candidate's law, is largest near a = 1.015 at 0.29800 (0.29769 as
 * a -> 1, falling to 0.0037 at a = 8), and 0.298^23 = 8.0e-13.
 */
const K_ZIPF = 23;
/** Means below this draw discrete laws by inversion (a host table for scalar parameters, INV_STEPS steps for tensors); above, by rejection. */
const TABLE_MEAN = 10;
/**
 * Steps of the element-wise inversion for means below TABLE_MEAN: a Poisson,
 * binomial or hypergeometric law of mean mu <= 10 exceeds 63 with probability
 * at most e^-mu (e mu / 64)^64 < 1e-28 (Chernoff's bound, which Hoeffding
 * extends to the binomial and hypergeometric), so 64 steps are exact up to that.
 */
const INV_STEPS = 64;

/**
 * A distribution parameter: a JS number (NumPy's scalar; constants are folded
 * on the host, and the faster host-table paths stay available) or a float64
 * tensor (JS data or a Tensor), broadcast against the draws element-wise.
 */
type Par = number | Tensor;
const isNum = (x: Par): x is number => typeof x === 'number';
/** Arithmetic on parameters: on the host for numbers, element-wise for tensors, so each method is written once for both. */
const P = {
  add: (a: Par, b: Par): Par => (isNum(a) && isNum(b) ? a + b : add(a, b)),
  sub: (a: Par, b: Par): Par => (isNum(a) && isNum(b) ? a - b : subtract(a, b)),
  mul: (a: Par, b: Par): Par => (isNum(a) && isNum(b) ? a * b : multiply(a, b)),
  div: (a: Par, b: Par): Par => (isNum(a) && isNum(b) ? a / b : divide(a, b)),
  min: (a: Par, b: Par): Par => (isNum(a) && isNum(b) ? Math.min(a, b) : minimum(a, b)),
  max: (a: Par, b: Par): Par => (isNum(a) && isNum(b) ? Math.max(a, b) : maximum(a, b)),
  sqrt: (a: Par): Par => (isNum(a) ? Math.sqrt(a) : sqrt(a)),
  log: (a: Par): Par => (isNum(a) ? Math.log(a) : log(a)),
  log1p: (a: Par): Par => (isNum(a) ? Math.log1p(a) : log1p(a)),
  exp: (a: Par): Par => (isNum(a) ? Math.exp(a) : exp(a)),
  floor: (a: Par): Par => (isNum(a) ? Math.floor(a) : floor(a)),
  pow: (a: Par, b: Par): Par => (isNum(a) && isNum(b) ? a ** b : power(a, b)),
  expm1: (a: Par): Par => (isNum(a) ? Math.expm1(a) : expm1(a)),
  lgamma: (a: Par): Par => (isNum(a) ? lgammaHost(a) : lgamma(a)),
};

/**
 * One of NumPy's domain tests: its message, the test on a number, the same
 * test element-wise (NaN fails unless the test says otherwise), and where
 * NumPy words it differently for arrays, the message for arrays.
 */
type Rule = readonly [string, (x: number) => boolean, (t: Tensor) => Tensor, string?];
/** NumPy's CONS_NON_NEGATIVE: the sign bit clear (so -0.0 fails), NaN let through (scale of normal and exponential, nonc). */
const notNeg = (m: string): Rule => [m, (x) => Number.isNaN(x) || !(x < 0 || Object.is(x, -0)), (t) => logical_or(isnan(t), logical_not(signbit(t)))];
const atLeast0 = (m: string): Rule => [m, (x) => x >= 0, (t) => greater_equal(t, 0)];
const above0 = (m: string): Rule => [m, (x) => x > 0, (t) => greater(t, 0)];
const unit = (m: string): Rule => [m, (x) => x >= 0 && x <= 1, (t) => logical_and(greater_equal(t, 0), less_equal(t, 1))];
const unitAbove0 = (m: string): Rule => [m, (x) => x > 0 && x <= 1, (t) => logical_and(greater(t, 0), less_equal(t, 1))];
const atMost = (m: string, v: number): Rule => [m, (x) => x <= v, (t) => less_equal(t, v)];
const notNaN = (m: string): Rule => [m, (x) => !Number.isNaN(x), (t) => logical_not(isnan(t))];
/** NumPy's CONS_GT_1: "a <= 1 or a is NaN" for a number, "... contains NaNs" for an array. */
const above1 = (name: string): Rule => [`${name} <= 1 or ${name} is NaN`, (x) => x > 1, (t) => greater(t, 1), `${name} <= 1 or ${name} contains NaNs`];

/**
 * One call's parameters, read as NumPy reads them: numbers stay numbers;
 * JS data become float64 tensors checked now, element by element; tensors
 * are checked when the run reaches them (a `check` node on all() of the
 * test, kept alive by a `where` on the result). `size` then gives the draws'
 * shape by NumPy's rules.
 */
class Call {
  private readonly shapes: number[][] = [];
  private readonly pending: [Tensor, string][] = [];
  constructor(private readonly fn: string) {}
  par(v: unknown, name: string, rules: readonly Rule[], dflt?: number, integer = false): Par {
    if (v === undefined || typeof v === 'number') {
      const x = integer ? int(v, this.fn, name) : num(v, this.fn, name, dflt);
      for (const [m, ok] of rules) domain(ok(x), m);
      return x;
    }
    if (isTensor(v)) {
      if (integer && isFloat(v.dtype)) throw new TypeError(`${this.fn}(): '${name}' must hold integers, got ${v.dtype}`);
      const t = astype(v, 'float64');
      for (const [m, , ok, am] of rules) this.pending.push([ok(t), am ?? m]);
      this.shapes.push([...t.shape]);
      return t;
    }
    if (v === null || typeof v !== 'object') throw new TypeError(`${this.fn}(): '${name}' must be a number or an array, got ${repr(v)}`);
    const a = fromJs(v as JsData);
    const data = Array.from(a.data as ArrayLike<number | bigint>, Number);
    if (integer && !data.every(Number.isInteger)) throw new TypeError(`${this.fn}(): '${name}' must hold integers`);
    for (const [m, ok, , am] of rules) domain(data.every(ok), am ?? m);
    this.shapes.push(a.shape);
    return tensor(v as JsData, 'float64');
  }
  /** The draws' shape: `size`, to which every parameter must broadcast; without it the parameters' broadcast shape. */
  size(size: Size): Size {
    if (this.shapes.length === 0) return size;
    const mismatch = (): RangeError => new RangeError('shape mismatch: objects cannot be broadcast to a single shape');
    let b: number[];
    try { b = broadcastShapes(...this.shapes); } catch { throw mismatch(); }
    if (size === undefined || size === null) return b;
    const s = checkShape(size, 'size');
    let bs: number[];
    try { bs = broadcastShapes(b, s); } catch { throw mismatch(); }
    if (bs.length !== s.length || bs.some((d, i) => d !== s[i])) throw mismatch();
    return s;
  }
  /** A check across parameters, left to the run. */
  require(ok: Tensor, message: string): void { this.pending.push([ok, message]); }
  /** `r` behind the element-wise checks left to the run. */
  done(r: Tensor): Tensor {
    for (const [ok, m] of this.pending) r = where(new Tensor(G.check(all(ok).node, 'nonzero', 'RangeError', m)), r, r);
    return r;
  }
}

const LOG_SQRT_2PI = 0.5 * Math.log(2 * Math.PI);
/** log Γ(x) for x > 0 on tensors: Stirling's series to x^-7 (error < 1e-12 at x >= 10), shifted by ten for smaller x. */
function lgamma(x: Tensor): Tensor {
  const small = less(x, 10);
  const y = where(small, add(x, 10), x);
  const yi = divide(1, y), yi2 = multiply(yi, yi);
  const series = multiply(yi, add(1 / 12, multiply(yi2, add(-1 / 360, multiply(yi2, add(1 / 1260, multiply(yi2, -1 / 1680)))))));
  const st = add(subtract(multiply(subtract(y, 0.5), log(y)), y), add(series, LOG_SQRT_2PI));
  const xs = minimum(x, 10);
  let prod: Tensor = xs;
  for (let i = 1; i < 10; i++) prod = multiply(prod, add(xs, i));
  return where(small, subtract(st, log(prod)), st);
}
/** Host log Γ (Lanczos, g = 7), for the constants of BTRS. */
function lgammaHost(x: number): number {
  const c = [0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7];
  if (x < 0.5) return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * x))) - lgammaHost(1 - x);
  x -= 1;
  let a = c[0]!;
  const t = x + 7.5;
  for (let i = 1; i < 9; i++) a += c[i]! / (x + i);
  return LOG_SQRT_2PI + (x + 0.5) * Math.log(t) - t + Math.log(a);
}

/** The first accepted of K candidates (`accept[i]`, `value[i]`), else the last candidate (see the header). */
function firstAccepted(accept: Tensor[], value: Tensor[], fallback: Tensor): Tensor {
  let r = fallback;
  for (let i = accept.length - 1; i >= 0; i--) r = where(accept[i]!, value[i]!, r);
  return r;
}

/**
 * Inversion through host cumulative probabilities: #{j : cdf[j] <= u}, for
 * u uniform on [0, 1) and cdf increasing (the last entry left out, so the
 * result stays below cdf.length: the tail beyond it, below 2^-56 by
 * construction of the tables, joins the last value).
 */
function invertTable(u: Tensor, cdf: readonly number[]): Tensor {
  if (cdf.length <= 1) return astype(multiply(u, 0), 'int64');
  const thr = tensor(cdf.slice(0, -1));
  return sum(less_equal(thr, reshape(u, [...u.shape, 1])), { axis: -1, dtype: 'int64' });
}
/** Inversion by INV_STEPS steps of a pmf given by its first term and term ratio, element-wise: #{j < INV_STEPS : F_j <= u} (see INV_STEPS). */
function invertSteps(u: Tensor, first: Operand, ratio: (j: number) => Operand): Tensor {
  let p = toTensor(first), c = p;
  let k = astype(less_equal(c, u), 'float64');
  for (let j = 1; j < INV_STEPS; j++) {
    p = multiply(p, ratio(j - 1));
    c = add(c, p);
    k = add(k, astype(less_equal(c, u), 'float64'));
  }
  return k;
}
/** Cumulative sums of a pmf given by its first term and term ratio, until the tail is negligible (or `last`). */
function cdfTable(first: number, ratio: (j: number) => number, mean: number, last = Infinity): number[] {
  const cdf: number[] = [];
  let p = first, c = 0;
  for (let j = 0; j <= last; j++) {
    c += p;
    cdf.push(c);
    if (j > mean && p < 1e-18) break;
    p *= ratio(j);
  }
  return cdf;
}

export class Generator {
  private stream = 0;
  private key: [number, number];
  /** Children spawned so far (NumPy's SeedSequence.n_children_spawned). */
  private spawned = 0;
  constructor(seed: number) { this.key = seedKey(seed); }

  /**
   * spawn(n_children): independent child generators, each keyed by Philox
   * under this generator's key and the child's index in all spawns so far
   * (./random_extra.ts), so they depend on the seed and on earlier spawns
   * only, never on the draws made (as NumPy's, through its SeedSequence).
   */
  spawn(n_children: number): Generator[] {
    const n = int(n_children, 'spawn', 'n_children');
    if (n < 0) throw new RangeError(`spawn(): n_children must be non-negative, got ${n}`);
    const children = Array.from({ length: n }, (_, i) => {
      const g = new Generator(0);
      g.key = spawnKey(this.key, this.spawned + i);
      return g;
    });
    this.spawned += n;
    return children;
  }

  private draw(dist: 'uniform' | 'uniform32' | 'normal' | 'bits', size: Size, o: CreateOpts): Node {
    const shape = size === undefined || size === null ? [] : checkShape(size, 'size');
    return placed(G.random(dist, this.key, this.stream++, shape, chunkGrid(shape, 8, o.chunkSize)), o);
  }
  /** Uniform draws: 53 random bits in float64; with { dtype: 'float32' }, 24 bits drawn as float32 (as NumPy's random(dtype=float32)), so float32 programs run where float64 cannot (WebGPU). */
  private unit(size: Size, o: CreateOpts): Tensor {
    floatDraws(dtypeArg(o.dtype));
    return new Tensor(this.draw(dtypeArg(o.dtype) === 'float32' ? 'uniform32' : 'uniform', size, o));
  }
  /** Standard normals: Philox Box–Muller in float64; for float32, Box–Muller in float32 over two uniform32 streams (runs on WebGPU). */
  private normals(size: Size, o: CreateOpts): Tensor {
    floatDraws(dtypeArg(o.dtype));
    if (dtypeArg(o.dtype) !== 'float32') return new Tensor(this.draw('normal', size, o));
    const r = sqrt(multiply(log1p(negative(this.unit(size, o))), -2));
    return multiply(r, cos(multiply(this.unit(size, o), 2 * Math.PI)));
  }
  /** Standard exponentials by inversion at the midpoints of the 2^53 uniform cells: never 0 nor infinite, so logs and powers of them stay finite. */
  private expMid(size: Size, o: CreateOpts): Tensor {
    const u = new Tensor(this.draw('uniform', size, o));
    return where(less(u, 0.5), negative(log1p(negative(add(u, 2 ** -54)))), negative(log(subtract(subtract(1, u), 2 ** -54))));
  }
  /** Marsaglia–Tsang standard gamma (shape >= 1; below 1, gamma(shape + 1) * U^(1/shape)), K_GAMMA candidate sets; a tensor shape takes both branches element-wise. */
  private gammaStd(shape: Par, size: Size, o: CreateOpts): Tensor {
    if (shape === 0) return this.filled(size, 0, dtypeArg(o.dtype) === 'float32' ? 'float32' : 'float64', o);
    if (!isNum(shape) && dtypeArg(o.dtype) === 'float32') shape = astype(shape, 'float32');
    const low = isNum(shape) ? shape < 1 : less(shape, 1);
    const a = isNum(shape) ? (shape < 1 ? shape + 1 : shape) : where(low, add(shape, 1), shape);
    const d = P.sub(a, 1 / 3), c = P.div(1, P.sqrt(P.mul(d, 9)));
    const accept: Tensor[] = [], value: Tensor[] = [];
    let last!: Tensor, lastOk!: Tensor;
    for (let i = 0; i < K_GAMMA; i++) {
      const x = this.normals(size, o);
      const lu = log1p(negative(this.unit(size, o)));
      const t = add(multiply(x, c), 1);
      const v = multiply(multiply(t, t), t);
      const bound = add(subtract(add(multiply(multiply(x, x), 0.5), d), multiply(v, d)), multiply(log(v), d));
      lastOk = greater(t, 0);
      accept.push(logical_and(lastOk, less(lu, bound)));
      value.push(last = multiply(v, d));
    }
    const g = firstAccepted(accept, value, where(lastOk, last, d));
    if (isNum(shape)) return shape < 1 ? multiply(g, exp(divide(log1p(negative(this.unit(size, o))), shape))) : g;
    const boosted = multiply(g, exp(divide(log1p(negative(this.unit(size, o))), shape)));
    return where(equal(shape, 0), 0, where(low as Tensor, boosted, g));
  }
  /** Poisson (lam >= 0 finite), int64: for a number, a host cdf table below 10, else PTRS; for a tensor, INV_STEPS-step inversion below 10 and PTRS above, element-wise. */
  private poissonDraw(lam: Par, size: Size, o: CreateOpts): Tensor {
    if (lam === 0) return this.filled(size, 0, 'int64', o);
    if (isNum(lam)) {
      if (lam < TABLE_MEAN) return invertTable(this.unit(size, o), cdfTable(Math.exp(-lam), (j) => lam / (j + 1), lam));
      return astype(this.ptrs(lam, size, o), 'int64');
    }
    const ls = minimum(lam, TABLE_MEAN);
    const inv = invertSteps(this.unit(size, o), exp(negative(ls)), (j) => divide(ls, j + 1));
    return astype(where(less(lam, TABLE_MEAN), inv, this.ptrs(maximum(lam, TABLE_MEAN), size, o)), 'int64');
  }
  /** Hörmann's PTRS (lam >= 10) with K_PTRS candidate sets; float64 counts. */
  private ptrs(lam: Par, size: Size, o: CreateOpts): Tensor {
    const slam = P.sqrt(lam), loglam = P.log(lam);
    const b = P.add(0.931, P.mul(2.53, slam)), a = P.add(-0.059, P.mul(0.02483, b)), a2 = P.mul(2, a);
    const logInvalpha = P.log(P.add(1.1239, P.div(1.1328, P.sub(b, 3.4)))), vr = P.sub(0.9277, P.div(3.6224, P.sub(b, 2)));
    const lamc = P.add(lam, 0.43), nlam = P.mul(-1, lam);
    const accept: Tensor[] = [], value: Tensor[] = [];
    let k!: Tensor;
    for (let i = 0; i < K_PTRS; i++) {
      const U = subtract(new Tensor(this.draw('uniform', size, o)), 0.5), V = new Tensor(this.draw('uniform', size, o));
      const us = subtract(0.5, abs(U));
      k = floor(add(multiply(add(divide(a2, us), b), U), lamc));
      const quick = logical_and(greater_equal(us, 0.07), less_equal(V, vr));
      const lhs = subtract(add(log(V), logInvalpha), log(add(divide(a, multiply(us, us)), b)));
      const rhs = subtract(add(nlam, multiply(k, loglam)), lgamma(add(maximum(k, 0), 1)));
      const ok = logical_and(logical_and(greater_equal(k, 0), logical_not(logical_and(less(us, 0.013), greater(V, us)))), less_equal(lhs, rhs));
      accept.push(logical_or(quick, ok));
      value.push(k);
    }
    return firstAccepted(accept, value, where(greater_equal(k, 0), k, P.floor(lam)));
  }
  /** Binomial for p <= 0.5, float64 counts: for numbers a host cdf table when n p < 10, else BTRS; for tensors INV_STEPS-step inversion when n p < 10, else BTRS, element-wise. */
  private binomialLow(n: Par, p: Par, size: Size, o: CreateOpts): Tensor {
    const q = P.sub(1, p);
    if (isNum(n) && isNum(p)) {
      const qn = q as number;
      if (n * p < TABLE_MEAN) return invertTable(this.unit(size, o), cdfTable(Math.exp(n * Math.log1p(-p)), (j) => ((n - j) / (j + 1)) * (p / qn), n * p, n));
      return this.btrs(n, p, size, o);
    }
    const ratio = P.div(p, q);
    const inv = invertSteps(this.unit(size, o), exp(multiply(n, log1p(negative(p)))), (j) => multiply(divide(subtract(n, j), j + 1), ratio));
    return where(less(multiply(n, p), TABLE_MEAN), inv, this.btrs(n, p, size, o));
  }
  /** Hörmann's BTRS (n p >= 10, p <= 0.5) with K_BTRS candidate sets; float64 counts. */
  private btrs(n: Par, p: Par, size: Size, o: CreateOpts): Tensor {
    const q = P.sub(1, p), spq = P.sqrt(P.mul(P.mul(n, p), q)), b = P.add(1.15, P.mul(2.53, spq));
    const a = P.add(P.add(-0.0873, P.mul(0.0248, b)), P.mul(0.01, p)), c = P.add(P.mul(n, p), 0.5), vr = P.sub(0.92, P.div(4.2, b));
    const alpha = P.mul(P.add(2.83, P.div(5.1, b)), spq), lpq = P.log(P.div(p, q)), m = P.floor(P.mul(P.add(n, 1), p));
    const h = P.add(P.lgamma(P.add(m, 1)), P.lgamma(P.add(P.sub(n, m), 1))), a2 = P.mul(2, a), n1 = P.add(n, 1);
    const accept: Tensor[] = [], value: Tensor[] = [];
    let k!: Tensor, inRange!: Tensor;
    for (let i = 0; i < K_BTRS; i++) {
      const U = subtract(new Tensor(this.draw('uniform', size, o)), 0.5), V = new Tensor(this.draw('uniform', size, o));
      const us = subtract(0.5, abs(U));
      k = floor(add(multiply(add(divide(a2, us), b), U), c));
      inRange = logical_and(greater_equal(k, 0), less_equal(k, n));
      const quick = logical_and(greater_equal(us, 0.07), less_equal(V, vr));
      const kc = minimum(maximum(k, 0), n);
      const lhs = log(divide(multiply(V, alpha), add(divide(a, multiply(us, us)), b)));
      const rhs = add(subtract(subtract(h, lgamma(add(kc, 1))), lgamma(subtract(n1, kc))), multiply(subtract(k, m), lpq));
      accept.push(logical_and(inRange, logical_or(quick, less_equal(lhs, rhs))));
      value.push(k);
    }
    return firstAccepted(accept, value, where(inRange, k, m));
  }
  /** Binomial(n, p) for any p in [0, 1] as float64 counts (p > 0.5 drawn as n - Binomial(n, 1 - p)). */
  private binomialAny(n: Par, p: Par, size: Size, o: CreateOpts): Tensor {
    if (isNum(p) && (p === 0 || p === 1)) return add(this.filled(size, 0, 'float64', o), p === 1 ? n : 0);
    if (isNum(n) && n === 0) return this.filled(size, 0, 'float64', o);
    const x = this.binomialLow(n, P.min(p, P.sub(1, p)), size, o);
    if (isNum(p)) return p > 0.5 ? subtract(n, x) : x;
    return where(greater(p, 0.5), subtract(n, x), x);
  }
  /** A constant draw (a degenerate law: lam = 0, p = 1, ...), chunked as the draws are. */
  private filled(size: Size, value: number, dtype: 'int64' | 'float64' | 'float32', o: CreateOpts): Tensor {
    return placed(full(this.shapeOf(size), value, { dtype, ...(o.chunkSize !== undefined ? { chunkSize: o.chunkSize } : {}) }), o);
  }
  private shapeOf(size: Size): number[] {
    return size === undefined || size === null ? [] : checkShape(size, 'size');
  }

  /** random(size=None, dtype=float64) */
  random(...args: Args): Tensor {
    const o = kwargs<CreateOpts & { size?: Size }>('random', args, ['size', 'dtype', 'out'], CREATE_KW);
    return this.cast(this.unit(o.size, o), o);
  }
  /** uniform(low=0, high=1, size=None) */
  uniform(...args: Args): Tensor {
    const o = kwargs<CreateOpts & { low?: unknown; high?: unknown; size?: Size }>('uniform', args, ['low', 'high', 'size'], DRAW_KW);
    const c = new Call('uniform');
    const low = c.par(o.low, 'low', [], 0), high = c.par(o.high, 'high', [], 1), size = c.size(o.size);
    return c.done(this.cast(add(multiply(this.unit(size, o), P.sub(high, low)), low), o));
  }
  /** standard_normal(size=None, dtype=float64) */
  standard_normal(...args: Args): Tensor {
    const o = kwargs<CreateOpts & { size?: Size }>('standard_normal', args, ['size', 'dtype', 'out'], CREATE_KW);
    return this.cast(new Tensor(this.draw('normal', o.size, o)), o);
  }
  /** normal(loc=0, scale=1, size=None) */
  normal(...args: Args): Tensor {
    const o = kwargs<CreateOpts & { loc?: unknown; scale?: unknown; size?: Size }>('normal', args, ['loc', 'scale', 'size'], DRAW_KW);
    const c = new Call('normal');
    const loc = c.par(o.loc, 'loc', [], 0), scale = c.par(o.scale, 'scale', [notNeg('scale < 0')], 1), size = c.size(o.size);
    return c.done(this.cast(add(multiply(new Tensor(this.draw('normal', size, o)), scale), loc), o));
  }
  /** exponential(scale=1, size=None): inversion, -log(1 - U). */
  exponential(...args: Args): Tensor {
    const o = kwargs<CreateOpts & { scale?: unknown; size?: Size }>('exponential', args, ['scale', 'size'], DRAW_KW);
    const c = new Call('exponential');
    const scale = c.par(o.scale, 'scale', [notNeg('scale < 0')], 1), size = c.size(o.size);
    return c.done(this.cast(multiply(negative(log1p(negative(new Tensor(this.draw('uniform', size, o))))), scale), o));
  }
  /** standard_exponential(size=None, dtype=float64): inversion, -log(1 - U); float32 from 24-bit uniforms in float32 arithmetic. */
  standard_exponential(...args: Args): Tensor {
    const o = kwargs<CreateOpts & { size?: Size; method?: string }>('standard_exponential', args, ['size', 'dtype', 'method', 'out'], CREATE_KW);
    return this.cast(negative(log1p(negative(this.unit(o.size, o)))), o);
  }
  /** standard_gamma(shape, size=None, dtype=float64): Marsaglia–Tsang rejection (boosted by U^(1/shape) below 1); float32 in float32 arithmetic. */
  standard_gamma(...args: Args): Tensor {
    const o = kwargs<CreateOpts & { shape?: unknown; size?: Size }>('standard_gamma', args, ['shape', 'size', 'dtype', 'out'], CREATE_KW);
    const c = new Call('standard_gamma');
    const shape = c.par(o.shape, 'shape', [atLeast0('shape < 0')]), size = c.size(o.size);
    return c.done(this.cast(this.gammaStd(shape, size, o), o));
  }
  /** gamma(shape, scale=1.0, size=None): scale * standard_gamma(shape) (Marsaglia–Tsang). */
  gamma(...args: Args): Tensor {
    const o = kwargs<CreateOpts & { shape?: unknown; scale?: unknown; size?: Size }>('gamma', args, ['shape', 'scale', 'size'], CREATE_KW);
    const c = new Call('gamma');
    const shape = c.par(o.shape, 'shape', [atLeast0('shape < 0')]), scale = c.par(o.scale, 'scale', [atLeast0('scale < 0')], 1), size = c.size(o.size);
    return c.done(multiply(this.gammaStd(shape, size, o), scale));
  }
  /** beta(a, b, size=None): X / (X + Y) for independent gammas X ~ Γ(a), Y ~ Γ(b). */
  beta(...args: Args): Tensor {
    const o = kwargs<CreateOpts & { a?: unknown; b?: unknown; size?: Size }>('beta', args, ['a', 'b', 'size'], CREATE_KW);
    const c = new Call('beta');
    const a = c.par(o.a, 'a', [above0('a <= 0')]), b = c.par(o.b, 'b', [above0('b <= 0')]), size = c.size(o.size);
    const x = this.gammaStd(a, size, o), y = this.gammaStd(b, size, o);
    return c.done(divide(x, add(x, y)));
  }
  /** chisquare(df, size=None): 2 * standard_gamma(df / 2). */
  chisquare(...args: Args): Tensor {
    const o = kwargs<CreateOpts & { df?: unknown; size?: Size }>('chisquare', args, ['df', 'size'], CREATE_KW);
    const c = new Call('chisquare');
    const df = c.par(o.df, 'df', [above0('df <= 0')]), size = c.size(o.size);
    return c.done(multiply(this.gammaStd(P.div(df, 2), size, o), 2));
  }
  /** f(dfnum, dfden, size=None): the ratio of two scaled chi-squares (gammas). */
  f(...args: Args): Tensor {
    const o = kwargs<CreateOpts & { dfnum?: unknown; dfden?: unknown; size?: Size }>('f', args, ['dfnum', 'dfden', 'size'], CREATE_KW);
    const c = new Call('f');
    const dfnum = c.par(o.dfnum, 'dfnum', [above0('dfnum <= 0')]), dfden = c.par(o.dfden, 'dfden', [above0('dfden <= 0')]), size = c.size(o.size);
    return c.done(divide(multiply(this.gammaStd(P.div(dfnum, 2), size, o), dfden), multiply(this.gammaStd(P.div(dfden, 2), size, o), dfnum)));
  }
  /** standard_t(df, size=None): N * sqrt(df / 2 / G) for a normal N and a gamma G ~ Γ(df / 2), as NumPy. */
  standard_t(...args: Args): Tensor {
    const o = kwargs<CreateOpts & { df?: unknown; size?: Size }>('standard_t', args, ['df', 'size'], CREATE_KW);
    const c = new Call('standard_t');
    const df = c.par(o.df, 'df', [above0('df <= 0')]), size = c.size(o.size);
    const n = new Tensor(this.draw('normal', size, o));
    return c.done(multiply(n, sqrt(divide(P.div(df, 2), this.gammaStd(P.div(df, 2), size, o)))));
  }
  /** standard_cauchy(size=None): the ratio of two standard normals, as NumPy. */
  standard_cauchy(...args: Args): Tensor {
    const o = kwargs<CreateOpts & { size?: Size }>('standard_cauchy', args, ['size'], CREATE_KW);
    return divide(new Tensor(this.draw('normal', o.size, o)), new Tensor(this.draw('normal', o.size, o)));
  }
  /**
   * wald(mean, scale, size=None): Michael, Schucany and Haas's transformation
   * with multiple roots, as NumPy: for Y = mean N^2 the smaller root X of the
   * inverse-Gaussian quadratic, kept with probability mean / (mean + X), else
   * mean^2 / X. NumPy's form of the root, mean + mean/(2 scale) (Y - sqrt(4
   * scale Y + Y^2)), cancels when Y >> scale (it can reach 0 or below); the
   * same root is taken here as 4 scale mean / (sqrt(Y) + sqrt(Y + 4 scale))^2.
   */
  wald(...args: Args): Tensor {
    const o = kwargs<CreateOpts & { mean?: unknown; scale?: unknown; size?: Size }>('wald', args, ['mean', 'scale', 'size'], CREATE_KW);
    const c = new Call('wald');
    const mean = c.par(o.mean, 'mean', [above0('mean <= 0')]), scale = c.par(o.scale, 'scale', [above0('scale <= 0')]), size = c.size(o.size);
    const n = new Tensor(this.draw('normal', size, o));
    const y = multiply(multiply(n, n), mean);
    const q = add(sqrt(y), sqrt(add(y, P.mul(4, scale))));
    const x = divide(divide(P.mul(P.mul(4, scale), mean), q), q);
    const u = new Tensor(this.draw('uniform', size, o));
    return c.done(where(less_equal(u, divide(mean, add(x, mean))), x, multiply(divide(mean, x), mean)));
  }
  /**
   * Noncentral chi-square as NumPy draws it: a central one when nonc = 0;
   * for df > 1, chisquare(df - 1) + (N + sqrt(nonc))^2; else the Poisson
   * mixture chisquare(df + 2 Poisson(nonc / 2)); NaN for a NaN nonc. Tensor
   * parameters take both branches, selected element-wise (a zero nonc there
   * goes through them: the same law as the central draw).
   */
  private noncentralChi2(df: Par, nonc: Par, size: Size, o: CreateOpts): Tensor {
    if (isNum(nonc) && Number.isNaN(nonc)) return this.filled(size, NaN, 'float64', o);
    if (nonc === 0) return multiply(this.gammaStd(P.div(df, 2), size, o), 2);
    const big = isNum(df) ? df > 1 : greater(df, 1);
    const shifted = (): Tensor => {
      const h = isNum(df) ? (df - 1) / 2 : where(big as Tensor, divide(subtract(df, 1), 2), 1);
      const chi = multiply(this.gammaStd(h, size, o), 2);
      const z = add(new Tensor(this.draw('normal', size, o)), P.sqrt(nonc));
      return add(chi, multiply(z, z));
    };
    const mixed = (): Tensor => {
      const i = astype(this.poissonDraw(P.div(nonc, 2), size, o), 'float64');
      return multiply(this.gammaStd(add(i, P.div(df, 2)), size, o), 2);
    };
    const r = big === true ? shifted() : big === false ? mixed() : where(big, shifted(), mixed());
    return isNum(nonc) ? r : where(isnan(nonc), NaN, r);
  }
  /** noncentral_chisquare(df, nonc, size=None): see noncentralChi2. */
  noncentral_chisquare(...args: Args): Tensor {
    const o = kwargs<CreateOpts & { df?: unknown; nonc?: unknown; size?: Size }>('noncentral_chisquare', args, ['df', 'nonc', 'size'], CREATE_KW);
    const c = new Call('noncentral_chisquare');
    const df = c.par(o.df, 'df', [above0('df <= 0')]), nonc = c.par(o.nonc, 'nonc', [notNeg('nonc < 0')]), size = c.size(o.size);
    return c.done(this.noncentralChi2(df, nonc, size, o));
  }
  /** noncentral_f(dfnum, dfden, nonc, size=None): (noncentral_chisquare(dfnum, nonc) dfden) / (chisquare(dfden) dfnum), as NumPy. */
  noncentral_f(...args: Args): Tensor {
    const o = kwargs<CreateOpts & { dfnum?: unknown; dfden?: unknown; nonc?: unknown; size?: Size }>('noncentral_f', args, ['dfnum', 'dfden', 'nonc', 'size'], CREATE_KW);
    const c = new Call('noncentral_f');
    const dfnum = c.par(o.dfnum, 'dfnum', [above0('dfnum <= 0')]), dfden = c.par(o.dfden, 'dfden', [above0('dfden <= 0')]);
    const nonc = c.par(o.nonc, 'nonc', [notNeg('nonc < 0')]), size = c.size(o.size);
    const t = multiply(this.noncentralChi2(dfnum, nonc, size, o), dfden);
    return c.done(divide(t, multiply(multiply(this.gammaStd(P.div(dfden, 2), size, o), 2), dfnum)));
  }
  /** lognormal(mean=0, sigma=1, size=None): exp of a Box–Muller normal. */
  lognormal(...args: Args): Tensor {
    const o = kwargs<CreateOpts & { mean?: unknown; sigma?: unknown; size?: Size }>('lognormal', args, ['mean', 'sigma', 'size'], CREATE_KW);
    const c = new Call('lognormal');
    const mean = c.par(o.mean, 'mean', [], 0), sigma = c.par(o.sigma, 'sigma', [atLeast0('sigma < 0')], 1), size = c.size(o.size);
    return c.done(exp(add(multiply(new Tensor(this.draw('normal', size, o)), sigma), mean)));
  }
  /** laplace(loc=0, scale=1, size=None): inversion, loc ∓ scale * log(2 t) on the tail probability t of a midpoint uniform. */
  laplace(...args: Args): Tensor {
    const [loc, scale, size, o, c] = this.locScale('laplace', args);
    const u = new Tensor(this.draw('uniform', size, o));
    const lower = less(u, 0.5);
    const t = where(lower, add(u, 2 ** -54), subtract(subtract(1, u), 2 ** -54));
    const e = multiply(log(multiply(t, 2)), scale);
    return c.done(add(where(lower, e, negative(e)), loc));
  }
  /** logistic(loc=0, scale=1, size=None): inversion, loc ± scale * log(t / (1 - t)) on the tail probability t of a midpoint uniform. */
  logistic(...args: Args): Tensor {
    const [loc, scale, size, o, c] = this.locScale('logistic', args);
    const u = new Tensor(this.draw('uniform', size, o));
    const lower = less(u, 0.5);
    const t = where(lower, add(u, 2 ** -54), subtract(subtract(1, u), 2 ** -54));
    const e = multiply(subtract(log(t), log1p(negative(t))), scale);
    return c.done(add(where(lower, e, negative(e)), loc));
  }
  /** gumbel(loc=0, scale=1, size=None): inversion, loc - scale * log(E) for a standard exponential E. */
  gumbel(...args: Args): Tensor {
    const [loc, scale, size, o, c] = this.locScale('gumbel', args);
    return c.done(subtract(loc, multiply(log(this.expMid(size, o)), scale)));
  }
  /** weibull(a, size=None): inversion, E^(1/a) for a standard exponential E (0 when a = 0, as NumPy). */
  weibull(...args: Args): Tensor {
    const o = kwargs<CreateOpts & { a?: unknown; size?: Size }>('weibull', args, ['a', 'size'], CREATE_KW);
    const c = new Call('weibull');
    const a = c.par(o.a, 'a', [atLeast0('a < 0')]), size = c.size(o.size);
    if (a === 0) return this.filled(size, 0, 'float64', o);
    const r = power(this.expMid(size, o), P.div(1, a));
    return c.done(isNum(a) ? r : where(equal(a, 0), 0, r));
  }
  /** pareto(a, size=None): inversion (Lomax, as NumPy), expm1(E / a) for a standard exponential E. */
  pareto(...args: Args): Tensor {
    const o = kwargs<CreateOpts & { a?: unknown; size?: Size }>('pareto', args, ['a', 'size'], CREATE_KW);
    const c = new Call('pareto');
    const a = c.par(o.a, 'a', [above0('a <= 0')]), size = c.size(o.size);
    return c.done(expm1(divide(this.expMid(size, o), a)));
  }
  /** power(a, size=None): inversion, (1 - exp(-E))^(1/a) for a standard exponential E. */
  power(...args: Args): Tensor {
    const o = kwargs<CreateOpts & { a?: unknown; size?: Size }>('power', args, ['a', 'size'], CREATE_KW);
    const c = new Call('power');
    const a = c.par(o.a, 'a', [above0('a <= 0')]), size = c.size(o.size);
    return c.done(power(negative(expm1(negative(this.expMid(size, o)))), P.div(1, a)));
  }
  /** rayleigh(scale=1, size=None): inversion, scale * sqrt(2 E) for a standard exponential E. */
  rayleigh(...args: Args): Tensor {
    const o = kwargs<CreateOpts & { scale?: unknown; size?: Size }>('rayleigh', args, ['scale', 'size'], CREATE_KW);
    const c = new Call('rayleigh');
    const scale = c.par(o.scale, 'scale', [atLeast0('scale < 0')], 1), size = c.size(o.size);
    return c.done(multiply(sqrt(multiply(this.expMid(size, o), 2)), scale));
  }
  /** poisson(lam=1.0, size=None): inversion (a host cdf table for a number, INV_STEPS steps for a tensor) for lam < 10, else PTRS rejection (Hörmann 1993); int64. */
  poisson(...args: Args): Tensor {
    const o = kwargs<CreateOpts & { lam?: unknown; size?: Size }>('poisson', args, ['lam', 'size'], CREATE_KW);
    const c = new Call('poisson');
    const lam = c.par(o.lam, 'lam', [atLeast0('lam < 0 or lam is NaN'), atMost('lam value too large', 9.223372006484771e18)], 1), size = c.size(o.size);
    return c.done(this.poissonDraw(lam, size, o));
  }
  /** binomial(n, p, size=None): inversion (host table or INV_STEPS steps) when n min(p, 1-p) < 10, else BTRS rejection (Hörmann 1993); int64. */
  binomial(...args: Args): Tensor {
    const o = kwargs<CreateOpts & { n?: unknown; p?: unknown; size?: Size }>('binomial', args, ['n', 'p', 'size'], CREATE_KW);
    const c = new Call('binomial');
    const n = c.par(o.n, 'n', [atLeast0('n < 0')], undefined, true), p = c.par(o.p, 'p', [unit('p < 0, p > 1 or p is NaN')]), size = c.size(o.size);
    if (isNum(n) && isNum(p) && (n === 0 || p === 0 || p === 1)) return this.filled(size, p === 1 ? n : 0, 'int64', o);
    return c.done(astype(this.binomialAny(n, p, size, o), 'int64'));
  }
  /** geometric(p, size=None): inversion, ceil(E / -log(1-p)) for a standard exponential E; int64. */
  geometric(...args: Args): Tensor {
    const o = kwargs<CreateOpts & { p?: unknown; size?: Size }>('geometric', args, ['p', 'size'], CREATE_KW);
    const c = new Call('geometric');
    const p = c.par(o.p, 'p', [unitAbove0('p <= 0, p > 1 or p contains NaNs')]), size = c.size(o.size);
    if (p === 1) return this.filled(size, 1, 'int64', o);
    const k = ceil(divide(this.expMid(size, o), P.mul(-1, P.log1p(P.mul(-1, p)))));
    return c.done(astype(isNum(p) ? k : where(equal(p, 1), 1, k), 'int64'));
  }
  /** negative_binomial(n, p, size=None): Poisson of a gamma, Poisson(Γ(n) (1 - p) / p), as NumPy; int64. */
  negative_binomial(...args: Args): Tensor {
    const o = kwargs<CreateOpts & { n?: unknown; p?: unknown; size?: Size }>('negative_binomial', args, ['n', 'p', 'size'], CREATE_KW);
    const c = new Call('negative_binomial');
    const n = c.par(o.n, 'n', [notNaN('n must not be NaN'), above0('n <= 0')]), p = c.par(o.p, 'p', [unitAbove0('p <= 0, p > 1 or p contains NaNs')]), size = c.size(o.size);
    if (p === 1) return this.filled(size, 0, 'int64', o);
    const lam = multiply(this.gammaStd(n, size, o), P.div(P.sub(1, p), p));
    return c.done(this.poissonDraw(lam, size, o));
  }
  /**
   * multinomial(n, pvals, size=None): sequential conditional binomials over
   * the categories, X_i ~ Binomial(n - X_0 - ... - X_{i-1}, p_i / (1 - p_0 -
   * ... - p_{i-1})), the last category taking the rest, as NumPy; the counts
   * along a last axis, int64. pvals must be known now (1-d).
   */
  multinomial(...args: Args): Tensor {
    const o = kwargs<CreateOpts & { n?: unknown; pvals?: unknown; size?: Size }>('multinomial', args, ['n', 'pvals', 'size'], CREATE_KW);
    if (o.pvals === undefined) throw new TypeError("multinomial() missing required argument 'pvals'");
    const c = new Call('multinomial');
    const n = c.par(o.n, 'n', [atLeast0('n < 0')], undefined, true);
    const pv = hostArray('multinomial', o.pvals, 'pvals');
    if (pv.shape.length !== 1) throw new RangeError('pvals must be a 1-d sequence');
    if (pv.data.length === 0) throw new RangeError('pvals must have at least 1 element');
    domain(pv.data.every((x) => x >= 0 && x <= 1), 'pvals < 0, pvals > 1 or pvals is NaN');
    if (pv.data.slice(0, -1).reduce((a, b) => a + b, 0) > 1 + 1e-12) throw new RangeError('sum(pvals[:-1]) > 1.0');
    const size = c.size(o.size);
    const counts: Tensor[] = [];
    let rest: Par = n, left = 1;
    for (const pi of pv.data.slice(0, -1)) {
      const prob = left > 0 ? Math.min(1, Math.max(0, pi / left)) : 0;
      const x = this.binomialAny(rest, prob, size, o);
      counts.push(x);
      rest = subtract(rest, x);
      left -= pi;
    }
    counts.push(add(this.filled(size, 0, 'float64', o), rest));
    return c.done(astype(stack(counts, { axis: -1 }), 'int64'));
  }
  /**
   * vonmises(mu, kappa, size=None) on [-pi, pi]: Best–Fisher rejection
   * (wrapped Cauchy hat) with K_VONMISES candidate sets, as NumPy; kappa <
   * 1e-8 uniform, kappa > 1e6 the normal approximation mu + N / sqrt(kappa),
   * as NumPy (a tensor kappa takes every branch, selected element-wise).
   */
  vonmises(...args: Args): Tensor {
    const o = kwargs<CreateOpts & { mu?: unknown; kappa?: unknown; size?: Size }>('vonmises', args, ['mu', 'kappa', 'size'], CREATE_KW);
    const c = new Call('vonmises');
    const mu = c.par(o.mu, 'mu', []), kappa = c.par(o.kappa, 'kappa', [atLeast0('kappa < 0')]), size = c.size(o.size);
    const wrap = (x: Tensor): Tensor => {
      const m = subtract(fmod(add(abs(x), Math.PI), 2 * Math.PI), Math.PI);
      return where(less(x, 0), negative(m), m);
    };
    const flat = (): Tensor => multiply(subtract(multiply(this.unit(size, o), 2), 1), Math.PI);
    const wide = (): Tensor => wrap(add(multiply(new Tensor(this.draw('normal', size, o)), P.sqrt(P.div(1, P.max(kappa, 1e6)))), mu));
    if (isNum(kappa) && kappa < 1e-8) return c.done(wrap(add(flat(), mu)));
    if (isNum(kappa) && kappa > 1e6) return c.done(wide());
    const k = P.min(P.max(kappa, 1e-8), 1e6);
    const r = P.add(1, P.sqrt(P.add(1, P.mul(4, P.mul(k, k))))), rho = P.div(P.sub(r, P.sqrt(P.mul(2, r))), P.mul(2, k));
    const sBig = P.div(P.add(1, P.mul(rho, rho)), P.mul(2, rho)), sSmall = P.add(P.div(1, k), k);
    const s = isNum(k) ? (k < 1e-5 ? sSmall : sBig) : where(less(k, 1e-5), sSmall, sBig);
    const accept: Tensor[] = [], value: Tensor[] = [];
    for (let i = 0; i < K_VONMISES; i++) {
      const z = cos(multiply(new Tensor(this.draw('uniform', size, o)), Math.PI));
      const w = divide(add(multiply(z, s), 1), add(z, s));
      const y = multiply(subtract(s, w), k);
      const v = new Tensor(this.draw('uniform', size, o));
      accept.push(logical_or(greater_equal(subtract(multiply(y, subtract(2, y)), v), 0), greater_equal(subtract(add(log(divide(y, v)), 1), y), 0)));
      value.push(w);
    }
    const w = firstAccepted(accept, value, value[K_VONMISES - 1]!);
    const angle = arccos(minimum(maximum(w, -1), 1));
    const x = wrap(add(where(less(this.unit(size, o), 0.5), negative(angle), angle), mu));
    if (isNum(kappa)) return c.done(x);
    return c.done(where(less(kappa, 1e-8), wrap(add(flat(), mu)), where(greater(kappa, 1e6), wide(), x)));
  }
  /**
   * hypergeometric(ngood, nbad, nsample, size=None), int64, reduced as NumPy
   * does to a sample s = min(nsample, N - nsample) from the smaller colour:
   * mean s min(ngood, nbad) / N below 10 by INV_STEPS-step inversion (the
   * first term from log-gammas, exact to their rounding: ~1e-9 relative at
   * N ~ 1e6, ~1e-5 at N ~ 1e9), else Stadlober's HRUA ratio-of-uniforms with
   * K_HRUA candidate sets (NumPy's method for large samples).
   */
  hypergeometric(...args: Args): Tensor {
    const o = kwargs<CreateOpts & { ngood?: unknown; nbad?: unknown; nsample?: unknown; size?: Size }>('hypergeometric', args, ['ngood', 'nbad', 'nsample', 'size'], CREATE_KW);
    const c = new Call('hypergeometric');
    const under = atMost('both ngood and nbad must be less than 1000000000', 1e9 - 1);
    const good = c.par(o.ngood, 'ngood', [atLeast0('ngood < 0'), under], undefined, true), bad = c.par(o.nbad, 'nbad', [atLeast0('nbad < 0'), under], undefined, true);
    const ns = c.par(o.nsample, 'nsample', [atLeast0('nsample < 0')], undefined, true), size = c.size(o.size);
    const all = P.add(good, bad);
    if (isNum(all) && isNum(ns)) domain(all >= ns, 'ngood + nbad < nsample');
    else c.require(greater_equal(all, ns), 'ngood + nbad < nsample');
    const s = P.min(ns, P.sub(all, ns)), mg = P.min(good, bad), Mg = P.sub(all, mg), mean = P.div(P.mul(s, mg), P.max(all, 1));
    const sel = (cond: boolean | Tensor, x: Par, y: Par): Par => (typeof cond === 'boolean' ? (cond ? x : y) : where(cond, x, y));
    const lg1 = (x: Par): Par => P.lgamma(P.add(x, 1));
    let k: Tensor | undefined;
    if (!isNum(mean) || mean < TABLE_MEAN) {
      const first = P.exp(P.add(P.sub(lg1(Mg), lg1(P.sub(Mg, s))), P.sub(lg1(P.sub(all, s)), lg1(all))));
      const ratio = (j: number): Operand => divide(P.mul(P.sub(mg, j), P.sub(s, j)), P.mul(j + 1, P.add(P.sub(Mg, s), j + 1)));
      k = invertSteps(this.unit(size, o), first, ratio);
    }
    if (!isNum(mean) || mean >= TABLE_MEAN) {
      const r = this.hrua(mg, Mg, s, all, size, o);
      k = k === undefined ? r : where(less(mean, TABLE_MEAN), k, r);
    }
    const flipped = sel(isNum(good) && isNum(bad) ? good > bad : greater(good, bad), P.sub(s, k!), k!);
    return c.done(astype(sel(isNum(s) && isNum(ns) ? s < ns : less(s, ns), P.sub(good, flipped), flipped), 'int64'));
  }
  /** Stadlober's HRUA for a sample of s from mg good among N = mg + Mg (mg <= Mg, s <= N / 2), K_HRUA candidate sets; float64 counts. */
  private hrua(mg: Par, Mg: Par, s: Par, all: Par, size: Size, o: CreateOpts): Tensor {
    const lg1 = (x: Par): Par => P.lgamma(P.add(x, 1));
    const p = P.div(mg, all), q = P.div(Mg, all), a = P.add(P.mul(s, p), 0.5);
    const c = P.sqrt(P.add(P.div(P.mul(P.mul(P.sub(all, s), s), P.mul(p, q)), P.sub(all, 1)), 0.5)), h = P.add(P.mul(1.7155277699214135, c), 0.8989161620588988);
    const m = P.floor(P.div(P.mul(P.add(s, 1), P.add(mg, 1)), P.add(all, 2))), top = P.min(s, mg);
    const logf = (x: Par): Par => P.add(P.add(lg1(x), lg1(P.sub(mg, x))), P.add(lg1(P.sub(s, x)), lg1(P.add(P.sub(Mg, s), x))));
    const g = logf(m), b = P.min(P.add(top, 1), P.floor(P.add(a, P.mul(16, c))));
    const accept: Tensor[] = [], value: Tensor[] = [];
    for (let i = 0; i < K_HRUA; i++) {
      const u = subtract(1, new Tensor(this.draw('uniform', size, o)));
      const x = add(divide(multiply(subtract(new Tensor(this.draw('uniform', size, o)), 0.5), h), u), a);
      const k = floor(x);
      const t = subtract(g, logf(minimum(maximum(k, 0), top)) as Tensor);
      accept.push(logical_and(logical_and(greater_equal(x, 0), less(x, b)), less_equal(multiply(log(u), 2), t)));
      value.push(k);
    }
    return firstAccepted(accept, value, toTensor(add(this.filled(size, 0, 'float64', o), m)));
  }
  /**
   * multivariate_hypergeometric(colors, nsample, size=None,
   * method='marginals'): counts of each colour in a sample of nsample from
   * an urn of colors[i] balls of colour i, along a last axis, int64, by
   * NumPy's two methods run on the host (./random_extra.ts): 'marginals'
   * draws colour j's count as hypergeometric(colors[j], the balls of later
   * colours, what is left to draw), 'count' shuffles part of the urn. Not
   * element-wise as hypergeometric is: each colour's draw depends on the
   * ones before it, and element-wise each would carry both the inversion and
   * the HRUA branch (thousands of graph nodes per colour, chained). colors
   * must be known now.
   */
  multivariate_hypergeometric(...args: Args): Tensor {
    const fn = 'multivariate_hypergeometric';
    const o = kwargs<CreateOpts & { colors?: unknown; nsample?: unknown; size?: Size; method?: string }>(fn, args, ['colors', 'nsample', 'size', 'method'], CREATE_KW);
    const method = o.method ?? 'marginals';
    if (method !== 'count' && method !== 'marginals') throw new RangeError('method must be "count" or "marginals".');
    if (o.colors === undefined) throw new TypeError(`${fn}() missing required argument 'colors'`);
    if (o.nsample === undefined) throw new TypeError(`${fn}() missing required argument 'nsample'`);
    const ns = o.nsample;
    if (typeof ns !== 'number' || !Number.isInteger(ns)) throw new RangeError('nsample must be an integer');
    if (ns < 0) throw new RangeError('nsample must be nonnegative.');
    if (ns > 2 ** 63 - 1) throw new RangeError('nsample must not exceed 9223372036854775807');
    const dtype = isTensor(o.colors) ? o.colors.dtype : fromJs(o.colors as JsData).dtype;
    const col = hostArray(fn, o.colors, 'colors');
    if (col.shape.length !== 1 || (col.data.length > 0 && !integerRange(dtype)) || col.data.some((x) => !(x >= 0 && x < 2 ** 63))) {
      throw new RangeError('colors must be a one-dimensional sequence of nonnegative integers not exceeding 9223372036854775807.');
    }
    const colors = col.data, k = colors.length;
    const total = colors.reduce((x, y) => x + y, 0);
    if (total >= 2 ** 63) throw new RangeError('sum(colors) must not exceed the maximum value of a 64 bit signed integer (9223372036854775807)');
    if (method === 'marginals' && total >= 1e9) throw new RangeError('When method is "marginals", sum(colors) must be less than 1000000000.');
    if (method === 'count' && total > 1152921504606846975) throw new RangeError("When method is 'count', sum(colors) must not exceed 1152921504606846975");
    if (ns > total) throw new RangeError('nsample > sum(colors)');
    const shape = this.shapeOf(o.size);
    if (k === 0 || total === 0 || ns === 0) return this.filled([...shape, k], 0, 'int64', o);
    const variates = shape.reduce((x, y) => x * y, 1);
    const counts = (method === 'count' ? multivariateHypergeometricCount : multivariateHypergeometricMarginals)(colors, ns, variates, this.key, this.stream++);
    return reshape(tensor(counts, { ...(o.chunkSize !== undefined ? { chunkSize: o.chunkSize } : {}) }), [...shape, k]);
  }
  /** logseries(p, size=None): Kemp's direct method (LK, as NumPy), two uniforms per draw, no rejection; int64. */
  logseries(...args: Args): Tensor {
    const o = kwargs<CreateOpts & { p?: unknown; size?: Size }>('logseries', args, ['p', 'size'], CREATE_KW);
    const c = new Call('logseries');
    const p = c.par(o.p, 'p', [[ 'p < 0, p >= 1 or p is NaN', (x) => x >= 0 && x < 1, (t) => logical_and(greater_equal(t, 0), less(t, 1))]]), size = c.size(o.size);
    // V at the midpoints of the 2^53 cells: never 0, so log(V) stays finite.
    const v = add(new Tensor(this.draw('uniform', size, o)), 2 ** -54);
    const q = negative(expm1(multiply(new Tensor(this.draw('uniform', size, o)), P.log1p(P.mul(-1, p)))));
    const big = maximum(floor(add(divide(log(v), log(q)), 1)), 1);
    const k = where(greater_equal(v, p), 1, where(less_equal(v, multiply(q, q)), big, where(greater_equal(v, q), 1, 2)));
    return c.done(astype(k, 'int64'));
  }
  /**
   * zipf(a, size=None), int64: Devroye's rejection from the proposal
   * floor(U^(-1/(a-1))), as NumPy, with U uniform on (Umin, 1], Umin =
   * (2^63)^(1-a), so that the law is Zipf's truncated below 2^63; K_ZIPF
   * candidate sets. The test's T - 1 and b - 1 are taken with expm1 (NumPy's
   * pow(1 + 1/X, a - 1) - 1 rounds to 0 for large X and a near 1, accepting
   * every large candidate). a >= 1025 gives 1, as NumPy (a larger draw has
   * probability below 3e-309).
   */
  zipf(...args: Args): Tensor {
    const o = kwargs<CreateOpts & { a?: unknown; size?: Size }>('zipf', args, ['a', 'size'], CREATE_KW);
    const c = new Call('zipf');
    const a = c.par(o.a, 'a', [above1('a')]), size = c.size(o.size);
    if (isNum(a) && a >= 1025) return this.filled(size, 1, 'int64', o);
    const am1 = P.sub(isNum(a) ? a : minimum(a, 1024), 1);
    const bm1 = P.expm1(P.mul(am1, Math.LN2)), b = P.add(bm1, 1), umin = P.pow(2 ** 63, P.mul(-1, am1)), e = P.div(-1, am1);
    const accept: Tensor[] = [], value: Tensor[] = [];
    let x!: Tensor, inRange!: Tensor;
    for (let i = 0; i < K_ZIPF; i++) {
      const u01 = new Tensor(this.draw('uniform', size, o)), v = new Tensor(this.draw('uniform', size, o));
      x = floor(power(add(multiply(u01, umin), subtract(1, u01)), e));
      inRange = logical_and(greater_equal(x, 1), less(x, 2 ** 63));
      const tm1 = expm1(multiply(log1p(divide(1, x)), am1));
      accept.push(logical_and(inRange, less_equal(divide(multiply(multiply(v, x), tm1), bm1), divide(add(tm1, 1), b))));
      value.push(x);
    }
    const k = firstAccepted(accept, value, where(inRange, x, 1));
    return c.done(astype(isNum(a) ? k : where(greater_equal(a, 1025), 1, k), 'int64'));
  }
  /** triangular(left, mode, right, size=None): inversion of the piecewise-quadratic cdf, as NumPy (with arrays, the order of left, mode and right is checked when the run reaches it). */
  triangular(...args: Args): Tensor {
    const o = kwargs<CreateOpts & { left?: unknown; mode?: unknown; right?: unknown; size?: Size }>('triangular', args, ['left', 'mode', 'right', 'size'], CREATE_KW);
    const c = new Call('triangular');
    const left = c.par(o.left, 'left', []), mode = c.par(o.mode, 'mode', []), right = c.par(o.right, 'right', []), size = c.size(o.size);
    if (isNum(left) && isNum(mode) && isNum(right)) {
      domain(left <= mode, 'left > mode');
      domain(mode <= right, 'mode > right');
      domain(left !== right, 'left == right');
    } else {
      c.require(less_equal(left, mode), 'left > mode');
      c.require(less_equal(mode, right), 'mode > right');
      c.require(logical_not(equal(left, right)), 'left == right');
    }
    const base = P.sub(right, left), leftbase = P.sub(mode, left);
    const u = new Tensor(this.draw('uniform', size, o));
    return c.done(where(less_equal(u, P.div(leftbase, base)),
      add(sqrt(multiply(u, P.mul(leftbase, base))), left),
      subtract(right, sqrt(multiply(subtract(1, u), P.mul(P.sub(right, mode), base))))));
  }
  /** dirichlet(alpha, size=None): independent gammas Γ(alpha_i) along a last axis, normalized by their sum. */
  dirichlet(...args: Args): Tensor {
    const o = kwargs<CreateOpts & { alpha?: unknown; size?: Size }>('dirichlet', args, ['alpha', 'size'], CREATE_KW);
    if (o.alpha === undefined) throw new TypeError("dirichlet() missing required argument 'alpha'");
    const alpha = hostArray('dirichlet', o.alpha, 'alpha');
    if (alpha.shape.length !== 1) throw new RangeError('alpha must be 1-dimensional');
    for (const a of alpha.data) domain(a >= 0, 'alpha < 0');
    if (alpha.data.length === 0) throw new RangeError('alpha must have at least one element');
    const g = stack(alpha.data.map((a) => this.gammaStd(a, o.size, o)), { axis: -1 });
    return divide(g, sum(g, { axis: -1, keepdims: true }));
  }
  /** multivariate_normal(mean, cov, size=None, check_valid='warn', tol=1e-8): mean + z Lᵀ for standard normals z and a Cholesky factor L of cov (made on the host; semidefinite cov: zero pivots give zero columns). */
  multivariate_normal(...args: Args): Tensor {
    const o = kwargs<CreateOpts & { mean?: unknown; cov?: unknown; size?: Size; check_valid?: string; tol?: number; method?: string }>(
      'multivariate_normal', args, ['mean', 'cov', 'size', 'check_valid', 'tol'], [...CREATE_KW, 'method']);
    if (o.mean === undefined || o.cov === undefined) throw new TypeError(`multivariate_normal() missing required argument '${o.mean === undefined ? 'mean' : 'cov'}'`);
    const mean = hostArray('multivariate_normal', o.mean, 'mean'), cov = hostArray('multivariate_normal', o.cov, 'cov');
    if (mean.shape.length !== 1) throw new RangeError('mean must be 1 dimensional');
    if (cov.shape.length !== 2 || cov.shape[0] !== cov.shape[1]) throw new RangeError('cov must be 2 dimensional and square');
    const d = mean.shape[0]!;
    if (cov.shape[0] !== d) throw new RangeError('mean and cov must have same length');
    const check = o.check_valid ?? 'warn', tol = o.tol ?? 1e-8;
    if (!['warn', 'raise', 'ignore'].includes(check)) throw new RangeError("check_valid must equal 'warn', 'raise', or 'ignore'");
    const C = (i: number, j: number): number => cov.data[i * d + j]!;
    const L = new Float64Array(d * d);
    let psd = true;
    for (let j = 0; j < d; j++) {
      let s = C(j, j);
      for (let k = 0; k < j; k++) s -= L[j * d + k]! ** 2;
      const scaleTol = tol * Math.max(1, Math.abs(C(j, j)));
      if (s < -scaleTol) psd = false;
      const piv = s > scaleTol ? Math.sqrt(s) : 0;
      L[j * d + j] = piv;
      for (let i = j + 1; i < d; i++) {
        let t = C(i, j);
        for (let k = 0; k < j; k++) t -= L[i * d + k]! * L[j * d + k]!;
        if (piv === 0 && Math.abs(t) > scaleTol) psd = false;
        L[i * d + j] = piv === 0 ? 0 : t / piv;
      }
    }
    for (let i = 0; i < d; i++) for (let j = 0; j < i; j++) if (Math.abs(C(i, j) - C(j, i)) > tol * Math.max(1, Math.abs(C(i, j)))) psd = false;
    if (!psd && check === 'raise') throw new RangeError('covariance is not symmetric positive-semidefinite.');
    if (!psd && check === 'warn') console.warn('RuntimeWarning: covariance is not symmetric positive-semidefinite.');
    const z = new Tensor(this.draw('normal', [...this.shapeOf(o.size), d], o));
    return add(matmul(z, transpose(reshape(tensor(L), [d, d]))), tensor(mean.data));
  }
  /**
   * choice(a, size=None, replace=True, p=None, axis=0, shuffle=True): uniform
   * indices floor(U n); with p, inversion through p's cumulative sums; without
   * replacement a prefix of a Fisher–Yates permutation, or with p of the order
   * of Efraimidis–Spirakis keys U^(1/p) (sequential weighted sampling, as
   * NumPy's), made on the host from this generator's stream.
   */
  choice(a: number | Operand, ...args: Args): Tensor {
    const o = kwargs<CreateOpts & { size?: Size; replace?: boolean; p?: unknown; axis?: number; shuffle?: boolean }>('choice', args, ['size', 'replace', 'p', 'axis', 'shuffle'], CREATE_KW);
    const shape = this.shapeOf(o.size);
    const count = shape.reduce((x, y) => x * y, 1);
    let pop: number, arr: Tensor | undefined, axis = 0;
    if (typeof a === 'number') {
      if (!Number.isInteger(a)) throw new TypeError(`choice(): a must be an integer or an array, got ${repr(a)}`);
      if (a < 0 || (a === 0 && count > 0)) throw new RangeError('a must be a positive integer unless no samples are taken');
      pop = a;
    } else {
      arr = toTensor(a);
      if (arr.ndim === 0) throw new RangeError('a must be a sequence or an integer, not a 0-d array');
      axis = normalizeAxis(o.axis ?? 0, arr.ndim);
      pop = arr.shape[axis]!;
      if (pop === 0 && count > 0) throw new RangeError('a cannot be empty unless no samples are taken');
      if (isUnknown(pop)) {
        // a population known only at run time (a selection): uniform draws now, on this call's stream,
        // scaled by its length once the run knows it; other forms need the length to build
        if (!(o.replace ?? true) || (o.p !== undefined && o.p !== null)) {
          throw new TypeError("choice(): the length of a is known only at run time (after a boolean mask): execute() it first for replace=False or p");
        }
        const u = new Tensor(this.draw('uniform', shape, o));
        return deferred('choice', [arr], ([x]) => {
          const n = x!.shape[axis]!;
          if (n === 0 && count > 0) throw new RangeError('a cannot be empty unless no samples are taken');
          return take(x!, astype(floor(multiply(u, n)), 'int64'), { axis });
        });
      }
    }
    let p: number[] | undefined;
    if (o.p !== undefined && o.p !== null) {
      const ph = hostArray('choice', o.p, 'p');
      if (ph.shape.length !== 1) throw new RangeError('p must be 1-dimensional');
      if (ph.data.length !== pop) throw new RangeError('a and p must have same size');
      if (ph.data.some(Number.isNaN)) throw new RangeError('probabilities contain NaN');
      if (ph.data.some((x) => x < 0)) throw new RangeError('probabilities are not non-negative');
      const total = ph.data.reduce((x, y) => x + y, 0);
      if (Math.abs(total - 1) > Math.sqrt(Number.EPSILON)) throw new RangeError('probabilities do not sum to 1');
      p = ph.data;
    }
    const replace = o.replace ?? true;
    let idx: Tensor;
    if (replace) {
      if (p) {
        const cdf: number[] = [];
        let c = 0;
        for (const x of p) cdf.push((c += x));
        idx = invertTable(this.unit(shape, o), cdf.map((x) => x / c));
      } else {
        idx = astype(floor(multiply(new Tensor(this.draw('uniform', shape, o)), pop)), 'int64');
      }
    } else {
      if (count > pop) throw new RangeError('Cannot take a larger sample than population when replace is False');
      if (p && p.filter((x) => x > 0).length < count) throw new RangeError('Fewer non-zero entries in p than size');
      const stream = this.stream++;
      let order: number[];
      if (p) {
        // Efraimidis–Spirakis: the keys' descending order is sequential sampling without replacement.
        const keys = p.map((w, i) => (w > 0 ? Math.log1p(-randomValue('uniform', this.key, stream, i)) / w : -Infinity));
        order = keys.map((_, i) => i).sort((x, y) => keys[y]! - keys[x]! || x - y);
      } else {
        order = Array.from({ length: pop }, (_, i) => i);
        for (let i = 0; i < count; i++) {
          const j = i + Math.floor(randomValue('uniform', this.key, stream, i) * (pop - i));
          const t = order[i]!; order[i] = order[j]!; order[j] = t;
        }
      }
      idx = reshape(tensor(BigInt64Array.from(order.slice(0, count), (x) => BigInt(x)), { ...(o.chunkSize !== undefined ? { chunkSize: o.chunkSize } : {}) }), shape);
    }
    return arr ? take(arr, idx, { axis }) : idx;
  }
  /** integers(low, high=None, size=None, dtype=int64, endpoint=False) */
  integers(...args: Args): Tensor {
    const o = kwargs<CreateOpts & { low?: number; high?: number | null; size?: Size; endpoint?: boolean }>('integers', args, ['low', 'high', 'size', 'dtype', 'endpoint'], CREATE_KW);
    if (o.low === undefined) throw new TypeError("integers() missing required argument 'low'");
    let low = int(o.low, 'integers', 'low');
    let high = o.high === undefined || o.high === null ? undefined : int(o.high, 'integers', 'high');
    if (high === undefined) { high = low; low = 0; }
    if (o.endpoint) high += 1;
    if (high <= low) throw new RangeError(o.endpoint ? 'low > high' : 'high <= low');
    const d = dtypeArg(o.dtype) ?? 'int64';
    const range: [number, number] | undefined = d === 'bool' ? [0, 1] : integerRange(d);
    if (!range) throw new TypeError(`Unsupported dtype ${d} for integers`);
    if (low < range[0]) throw new RangeError(`low is out of bounds for ${d}`);
    if (high - 1 > range[1]) throw new RangeError(`high is out of bounds for ${d}`);
    const u = new Tensor(this.draw('uniform', o.size, o));
    return astype(add(floor(multiply(u, high - low)), low), d);
  }
  /**
   * A random permutation of arange(n), or of x along `axis`. Fisher-Yates
   * on the coordinator, driven by this generator's Philox stream, so the result
   * depends only on (seed, stream); O(n) host work and one int64 source chunk set.
   */
  permutation(x: number | Operand, ...args: Args): Tensor {
    const o = kwargs<CreateOpts & { axis?: number }>('permutation', args, ['axis'], CREATE_KW);
    if (typeof x === 'number') {
      if (!Number.isInteger(x) || x < 0) throw new TypeError(`permutation(): n must be a non-negative integer, got ${repr(x)}`);
      const stream = this.stream++;
      const p = new BigInt64Array(x);
      const idx = new Float64Array(x);
      for (let i = 0; i < x; i++) idx[i] = i;
      for (let i = x - 1; i > 0; i--) {
        const j = Math.floor(randomValue('uniform', this.key, stream, i) * (i + 1));
        const t = idx[i]!; idx[i] = idx[j]!; idx[j] = t;
      }
      for (let i = 0; i < x; i++) p[i] = BigInt(idx[i]!);
      return tensor(p, { ...(o.chunkSize !== undefined ? { chunkSize: o.chunkSize } : {}), ...(o.gpu ? { gpu: o.gpu } : {}) });
    }
    const t = toTensor(x);
    if (t.ndim === 0) throw new RangeError('permutation(): x must be an integer or at least 1-dimensional');
    const axis = normalizeAxis(o.axis ?? 0, t.ndim);
    return take(t, this.permutation(t.shape[axis]!), { axis });
  }
  /** Alias of permutation (NumPy's Generator.shuffle acts in place; Tessera's values are immutable). */
  shuffle(x: Operand, ...args: Args): Tensor { return this.permutation(x, ...args); }
  /**
   * permuted(x, *, axis=None, out=None): x with each 1-d slice along `axis`
   * shuffled independently of the others (permutation moves whole slices
   * instead); with axis None, the flattened array shuffled, shape kept. A
   * gather through flat indices made on the host (./random_extra.ts); out=
   * is refused (values are immutable).
   */
  permuted(x: Operand, ...args: Args): Tensor {
    const o = kwargs<CreateOpts & { axis?: number | null }>('permuted', args, [], ['axis', 'out', ...CREATE_KW]);
    const t = toTensor(x);
    if (t.shape.some(isUnknown)) throw new TypeError('permuted(): the shape of x is known only at run time here: execute() it first');
    const axis = o.axis === undefined || o.axis === null ? null : normalizeAxis(o.axis, t.ndim);
    // NumPy shuffles a 0-d array with axis None through len(), which refuses it
    if (axis === null && t.ndim === 0) throw new TypeError('len() of unsized object');
    const idx = permutedIndex(t.shape, axis, this.key, this.stream++);
    return take(t, reshape(tensor(idx, { ...(o.chunkSize !== undefined ? { chunkSize: o.chunkSize } : {}) }), t.shape));
  }

  /** (loc=0, scale=1, size=None) of laplace, logistic and gumbel, with NumPy's 'scale < 0'. */
  private locScale(fn: string, args: Args): [Par, Par, Size, CreateOpts, Call] {
    const o = kwargs<CreateOpts & { loc?: unknown; scale?: unknown; size?: Size }>(fn, args, ['loc', 'scale', 'size'], CREATE_KW);
    const c = new Call(fn);
    const loc = c.par(o.loc, 'loc', [], 0), scale = c.par(o.scale, 'scale', [atLeast0('scale < 0')], 1);
    return [loc, scale, c.size(o.size), o, c];
  }
  /** Float draws come in float32 or float64 only (NumPy: "Unsupported dtype ... for random"). */
  private cast(t: Tensor, o: CreateOpts): Tensor {
    const d = dtypeArg(o.dtype);
    floatDraws(d);
    return d ? astype(t, d) : t;
  }
}

/** NumPy draws floats in float32 or float64 only ("Unsupported dtype ... for random"). */
function floatDraws(d: DType | undefined): void {
  if (d && d !== 'float32' && d !== 'float64') throw new TypeError(`Unsupported dtype ${d} for random draws of floats (float32 or float64)`);
}

let global = new Generator(0);
/** NumPy's legacy module-level functions, drawing from the generator that `seed` sets. */
export const random = {
  seed(s: number): void { global = new Generator(s); },
  default_rng(s = Math.floor(Math.random() * 2 ** 32)): Generator { return new Generator(s); },
  /** rand(d0, d1, ...) and randn(d0, d1, ...): the shape as separate integers, as NumPy's legacy functions take it. */
  rand(...shape: number[]): Tensor { return global.random(checkShape(shape)); },
  randn(...shape: number[]): Tensor { return global.standard_normal(checkShape(shape)); },
  random(...args: Args): Tensor { return global.random(...args); },
  random_sample(...args: Args): Tensor { return global.random(...args); },
  ranf(...args: Args): Tensor { return global.random(...args); },
  sample(...args: Args): Tensor { return global.random(...args); },
  /** random_integers(low, high=None, size=None): integers in [low, high], or [1, low] without high (randint's deprecated inclusive form). */
  random_integers(...args: Args): Tensor {
    const o = kwargs<{ low?: number; high?: number | null; size?: Size }>('random_integers', args, ['low', 'high', 'size']);
    if (o.low === undefined) throw new TypeError("random_integers() missing required argument 'low'");
    const [low, high] = o.high === undefined || o.high === null ? [1, o.low] : [o.low, o.high];
    return global.integers(low, high, o.size, { endpoint: true });
  },
  uniform(...args: Args): Tensor { return global.uniform(...args); },
  normal(...args: Args): Tensor { return global.normal(...args); },
  standard_normal(...args: Args): Tensor { return global.standard_normal(...args); },
  exponential(...args: Args): Tensor { return global.exponential(...args); },
  standard_exponential(...args: Args): Tensor { return global.standard_exponential(...args); },
  standard_gamma(...args: Args): Tensor { return global.standard_gamma(...args); },
  gamma(...args: Args): Tensor { return global.gamma(...args); },
  beta(...args: Args): Tensor { return global.beta(...args); },
  chisquare(...args: Args): Tensor { return global.chisquare(...args); },
  f(...args: Args): Tensor { return global.f(...args); },
  standard_t(...args: Args): Tensor { return global.standard_t(...args); },
  standard_cauchy(...args: Args): Tensor { return global.standard_cauchy(...args); },
  wald(...args: Args): Tensor { return global.wald(...args); },
  noncentral_chisquare(...args: Args): Tensor { return global.noncentral_chisquare(...args); },
  noncentral_f(...args: Args): Tensor { return global.noncentral_f(...args); },
  zipf(...args: Args): Tensor { return global.zipf(...args); },
  lognormal(...args: Args): Tensor { return global.lognormal(...args); },
  laplace(...args: Args): Tensor { return global.laplace(...args); },
  logistic(...args: Args): Tensor { return global.logistic(...args); },
  gumbel(...args: Args): Tensor { return global.gumbel(...args); },
  weibull(...args: Args): Tensor { return global.weibull(...args); },
  pareto(...args: Args): Tensor { return global.pareto(...args); },
  power(...args: Args): Tensor { return global.power(...args); },
  rayleigh(...args: Args): Tensor { return global.rayleigh(...args); },
  triangular(...args: Args): Tensor { return global.triangular(...args); },
  poisson(...args: Args): Tensor { return global.poisson(...args); },
  negative_binomial(...args: Args): Tensor { return global.negative_binomial(...args); },
  multinomial(...args: Args): Tensor { return global.multinomial(...args); },
  vonmises(...args: Args): Tensor { return global.vonmises(...args); },
  logseries(...args: Args): Tensor { return global.logseries(...args); },
  hypergeometric(...args: Args): Tensor { return global.hypergeometric(...args); },
  binomial(...args: Args): Tensor { return global.binomial(...args); },
  geometric(...args: Args): Tensor { return global.geometric(...args); },
  dirichlet(...args: Args): Tensor { return global.dirichlet(...args); },
  multivariate_normal(...args: Args): Tensor { return global.multivariate_normal(...args); },
  choice(a: number | Operand, ...args: Args): Tensor { return global.choice(a, ...args); },
  /** randint(low, high=None, size=None, dtype=int64) */
  randint(...args: Args): Tensor {
    const o = kwargs<Record<string, unknown>>('randint', args, ['low', 'high', 'size', 'dtype'], CREATE_KW);
    return global.integers(o);
  },
  permutation(x: number | Operand, ...args: Args): Tensor { return global.permutation(x, ...args); },
  shuffle(x: Operand, ...args: Args): Tensor { return global.permutation(x, ...args); },
};
