// Random numbers: NumPy's Generator (default_rng) and its legacy functions
// (mt.random.*, drawing from the generator that mt.random.seed sets). In:
// NumPy's parameters (scalars; keywords in a trailing options object, see
// `kwargs`). Out: lazy Tensors.
//
// Design: every draw is a pure function of (seed, stream, element index) —
// Philox4x32-10 (ir/philox.ts) — so values are the same for any chunking,
// worker count or device, and the draws fuse into the kernels that use them.
// Each distribution is a composition of elementwise ops over a fixed number of
// independent streams (one `draw` = one stream): inversion where there is a
// closed form; inversion through a table of cumulative probabilities made on
// the host for discrete laws with a small mean; and for rejection methods K
// candidate sets from K stream sets, the first accepted taken with `where`.
// K is chosen so that all K are rejected with probability below 1e-12 per
// element at the worst parameter (rates computed by exact integration over
// the candidate's uniform, see each K); that event then keeps the K-th
// candidate, a value in the support drawn from the method's hat (proposal)
// law, which is close to the target law (never NaN or an arbitrary constant).

import { isFloat, integerRange } from '../graph/dtype.js';
import * as G from '../graph/node.js';
import type { Node } from '../graph/node.js';
import { checkShape, chunkGrid, normalizeAxis } from '../graph/shape.js';
import { randomValue, seedKey } from '../ir/philox.js';
import { type JsData, dtypeArg, fromJs } from './convert.js';
import {
  type CreateOpts, type Operand, Tensor, add, astype, ceil, divide, exp, expm1, floor, full, greater, greater_equal, isTensor, kwargs, less,
  less_equal, log, log1p, logical_and, logical_not, logical_or, matmul, maximum, minimum, multiply, negative, _placed as placed, power, reshape, sqrt,
  stack, subtract, sum, take, tensor, toTensor, transpose, valuesNow, where, abs, cos,
} from './tensor.js';

type Args = unknown[];
type Size = number | readonly number[] | null | undefined;
const CREATE_KW = ['chunkSize', 'gpu'];
/** The keywords every draw of floats takes beside NumPy's own: dtype (float32 draws run on WebGPU), chunkSize, gpu. */
const DRAW_KW = ['dtype', ...CREATE_KW];

/** Candidate sets for Marsaglia–Tsang gamma: rejection rate at most 0.04833 (shape 1, decreasing in shape), 0.04833^10 = 7e-14. */
const K_GAMMA = 10;
/** Candidate sets for PTRS Poisson (lam >= 10): rejection rate at most 0.2474 (lam = 10, decreasing), 0.2474^20 = 7e-13. */
const K_PTRS = 20;
/** Candidate sets for BTRS binomial (n min(p, 1-p) >= 10): rejection rate at most 0.2909 (n p = 10, p = 0.5), 0.2909^23 = 4.7e-13. */
const K_BTRS = 23;
/** Means below this draw discrete laws by inversion through a host table (at most ~50 entries); above, by rejection. */
const TABLE_MEAN = 10;

/** A JS number parameter (NumPy's scalar), named for messages. */
function num(v: unknown, fn: string, name: string, dflt?: number): number {
  if (v === undefined && dflt !== undefined) return dflt;
  if (v === undefined) throw new TypeError(`${fn}() missing required argument '${name}'`);
  if (typeof v !== 'number') throw new TypeError(`${fn}(): '${name}' must be a number, got ${v === null ? 'null' : typeof v}`);
  return v;
}
function int(v: unknown, fn: string, name: string): number {
  const n = num(v, fn, name);
  if (!Number.isInteger(n)) throw new TypeError(`${fn}(): '${name}' must be an integer, got ${n}`);
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
  private readonly key: [number, number];
  constructor(seed: number) { this.key = seedKey(seed); }

  private draw(dist: 'uniform' | 'uniform32' | 'normal' | 'bits', size: Size, o: CreateOpts): Node {
    const shape = size === undefined || size === null ? [] : checkShape(size, 'size');
    return placed(G.random(dist, this.key, this.stream++, shape, chunkGrid(shape, 8, o.chunkSize)), o);
  }
  /** Uniform draws: 53 random bits in float64; with { dtype: 'float32' }, 24 bits drawn as float32 (as NumPy's random(dtype=float32)), so float32 programs run where float64 cannot (WebGPU). */
  private unit(size: Size, o: CreateOpts): Tensor {
    return new Tensor(this.draw(dtypeArg(o.dtype) === 'float32' ? 'uniform32' : 'uniform', size, o));
  }
  /** Standard normals: Philox Box–Muller in float64; for float32, Box–Muller in float32 over two uniform32 streams (runs on WebGPU). */
  private normals(size: Size, o: CreateOpts): Tensor {
    if (dtypeArg(o.dtype) !== 'float32') return new Tensor(this.draw('normal', size, o));
    const r = sqrt(multiply(log1p(negative(this.unit(size, o))), -2));
    return multiply(r, cos(multiply(this.unit(size, o), 2 * Math.PI)));
  }
  /** Standard exponentials by inversion at the midpoints of the 2^53 uniform cells: never 0 nor infinite, so logs and powers of them stay finite. */
  private expMid(size: Size, o: CreateOpts): Tensor {
    const u = new Tensor(this.draw('uniform', size, o));
    return where(less(u, 0.5), negative(log1p(negative(add(u, 2 ** -54)))), negative(log(subtract(subtract(1, u), 2 ** -54))));
  }
  /** Marsaglia–Tsang standard gamma (shape >= 1; below 1, gamma(shape + 1) * U^(1/shape)), K_GAMMA candidate sets. */
  private gammaStd(shape: number, size: Size, o: CreateOpts): Tensor {
    if (shape === 0) return this.filled(size, 0, dtypeArg(o.dtype) === 'float32' ? 'float32' : 'float64', o);
    const a = shape < 1 ? shape + 1 : shape;
    const d = a - 1 / 3, c = 1 / Math.sqrt(9 * d);
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
    let g = firstAccepted(accept, value, where(lastOk, last, d));
    if (shape < 1) g = multiply(g, exp(divide(log1p(negative(this.unit(size, o))), shape)));
    return g;
  }
  /** Poisson (lam >= 0 finite): inversion through a host cdf table for lam < 10, else Hörmann's PTRS with K_PTRS candidate sets; int64. */
  private poissonDraw(lam: number, size: Size, o: CreateOpts): Tensor {
    if (lam === 0) return this.filled(size, 0, 'int64', o);
    if (lam < TABLE_MEAN) return invertTable(this.unit(size, o), cdfTable(Math.exp(-lam), (j) => lam / (j + 1), lam));
    const slam = Math.sqrt(lam), loglam = Math.log(lam);
    const b = 0.931 + 2.53 * slam, a = -0.059 + 0.02483 * b;
    const invalpha = 1.1239 + 1.1328 / (b - 3.4), vr = 0.9277 - 3.6224 / (b - 2);
    const accept: Tensor[] = [], value: Tensor[] = [];
    let k!: Tensor;
    for (let i = 0; i < K_PTRS; i++) {
      const U = subtract(new Tensor(this.draw('uniform', size, o)), 0.5), V = new Tensor(this.draw('uniform', size, o));
      const us = subtract(0.5, abs(U));
      k = floor(add(multiply(add(divide(2 * a, us), b), U), lam + 0.43));
      const quick = logical_and(greater_equal(us, 0.07), less_equal(V, vr));
      const lhs = subtract(add(log(V), Math.log(invalpha)), log(add(divide(a, multiply(us, us)), b)));
      const rhs = subtract(add(-lam, multiply(k, loglam)), lgamma(add(maximum(k, 0), 1)));
      const ok = logical_and(logical_and(greater_equal(k, 0), logical_not(logical_and(less(us, 0.013), greater(V, us)))), less_equal(lhs, rhs));
      accept.push(logical_or(quick, ok));
      value.push(k);
    }
    return astype(firstAccepted(accept, value, where(greater_equal(k, 0), k, Math.floor(lam))), 'int64');
  }
  /** Binomial for p <= 0.5: inversion through a host cdf table when n p < 10, else Hörmann's BTRS with K_BTRS candidate sets; float64 counts. */
  private binomialLow(n: number, p: number, size: Size, o: CreateOpts): Tensor {
    const q = 1 - p;
    if (n * p < TABLE_MEAN) return invertTable(this.unit(size, o), cdfTable(Math.exp(n * Math.log1p(-p)), (j) => ((n - j) / (j + 1)) * (p / q), n * p, n));
    const spq = Math.sqrt(n * p * q), b = 1.15 + 2.53 * spq, a = -0.0873 + 0.0248 * b + 0.01 * p, c = n * p + 0.5, vr = 0.92 - 4.2 / b;
    const alpha = (2.83 + 5.1 / b) * spq, lpq = Math.log(p / q), m = Math.floor((n + 1) * p), h = lgammaHost(m + 1) + lgammaHost(n - m + 1);
    const accept: Tensor[] = [], value: Tensor[] = [];
    let k!: Tensor, inRange!: Tensor;
    for (let i = 0; i < K_BTRS; i++) {
      const U = subtract(new Tensor(this.draw('uniform', size, o)), 0.5), V = new Tensor(this.draw('uniform', size, o));
      const us = subtract(0.5, abs(U));
      k = floor(add(multiply(add(divide(2 * a, us), b), U), c));
      inRange = logical_and(greater_equal(k, 0), less_equal(k, n));
      const quick = logical_and(greater_equal(us, 0.07), less_equal(V, vr));
      const kc = minimum(maximum(k, 0), n);
      const lhs = log(divide(multiply(V, alpha), add(divide(a, multiply(us, us)), b)));
      const rhs = add(subtract(subtract(h, lgamma(add(kc, 1))), lgamma(subtract(n + 1, kc))), multiply(subtract(k, m), lpq));
      accept.push(logical_and(inRange, logical_or(quick, less_equal(lhs, rhs))));
      value.push(k);
    }
    return firstAccepted(accept, value, where(inRange, k, m));
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
    const o = kwargs<CreateOpts & { low?: number; high?: number; size?: Size }>('uniform', args, ['low', 'high', 'size'], DRAW_KW);
    const low = num(o.low, 'uniform', 'low', 0), high = num(o.high, 'uniform', 'high', 1);
    return this.cast(add(multiply(this.unit(o.size, o), high - low), low), o);
  }
  /** standard_normal(size=None, dtype=float64) */
  standard_normal(...args: Args): Tensor {
    const o = kwargs<CreateOpts & { size?: Size }>('standard_normal', args, ['size', 'dtype', 'out'], CREATE_KW);
    return this.cast(new Tensor(this.draw('normal', o.size, o)), o);
  }
  /** normal(loc=0, scale=1, size=None) */
  normal(...args: Args): Tensor {
    const o = kwargs<CreateOpts & { loc?: number; scale?: number; size?: Size }>('normal', args, ['loc', 'scale', 'size'], DRAW_KW);
    const loc = num(o.loc, 'normal', 'loc', 0), scale = num(o.scale, 'normal', 'scale', 1);
    if (scale < 0) throw new RangeError('scale < 0');
    return this.cast(add(multiply(new Tensor(this.draw('normal', o.size, o)), scale), loc), o);
  }
  /** exponential(scale=1, size=None): inversion, -log(1 - U). */
  exponential(...args: Args): Tensor {
    const o = kwargs<CreateOpts & { scale?: number; size?: Size }>('exponential', args, ['scale', 'size'], DRAW_KW);
    const scale = num(o.scale, 'exponential', 'scale', 1);
    if (scale < 0) throw new RangeError('scale < 0');
    return this.cast(multiply(negative(log1p(negative(new Tensor(this.draw('uniform', o.size, o))))), scale), o);
  }
  /** standard_exponential(size=None, dtype=float64): inversion, -log(1 - U); float32 from 24-bit uniforms in float32 arithmetic. */
  standard_exponential(...args: Args): Tensor {
    const o = kwargs<CreateOpts & { size?: Size; method?: string }>('standard_exponential', args, ['size', 'dtype', 'method', 'out'], CREATE_KW);
    return this.cast(negative(log1p(negative(this.unit(o.size, o)))), o);
  }
  /** standard_gamma(shape, size=None, dtype=float64): Marsaglia–Tsang rejection (boosted by U^(1/shape) below 1); float32 in float32 arithmetic. */
  standard_gamma(...args: Args): Tensor {
    const o = kwargs<CreateOpts & { shape?: number; size?: Size }>('standard_gamma', args, ['shape', 'size', 'dtype', 'out'], CREATE_KW);
    const shape = num(o.shape, 'standard_gamma', 'shape');
    domain(shape >= 0, 'shape < 0');
    return this.cast(this.gammaStd(shape, o.size, o), o);
  }
  /** gamma(shape, scale=1.0, size=None): scale * standard_gamma(shape) (Marsaglia–Tsang). */
  gamma(...args: Args): Tensor {
    const o = kwargs<CreateOpts & { shape?: number; scale?: number; size?: Size }>('gamma', args, ['shape', 'scale', 'size'], CREATE_KW);
    const shape = num(o.shape, 'gamma', 'shape'), scale = num(o.scale, 'gamma', 'scale', 1);
    domain(shape >= 0, 'shape < 0');
    domain(scale >= 0, 'scale < 0');
    return multiply(this.gammaStd(shape, o.size, o), scale);
  }
  /** beta(a, b, size=None): X / (X + Y) for independent gammas X ~ Γ(a), Y ~ Γ(b). */
  beta(...args: Args): Tensor {
    const o = kwargs<CreateOpts & { a?: number; b?: number; size?: Size }>('beta', args, ['a', 'b', 'size'], CREATE_KW);
    const a = num(o.a, 'beta', 'a'), b = num(o.b, 'beta', 'b');
    domain(a > 0, 'a <= 0');
    domain(b > 0, 'b <= 0');
    const x = this.gammaStd(a, o.size, o), y = this.gammaStd(b, o.size, o);
    return divide(x, add(x, y));
  }
  /** chisquare(df, size=None): 2 * standard_gamma(df / 2). */
  chisquare(...args: Args): Tensor {
    const o = kwargs<CreateOpts & { df?: number; size?: Size }>('chisquare', args, ['df', 'size'], CREATE_KW);
    const df = num(o.df, 'chisquare', 'df');
    domain(df > 0, 'df <= 0');
    return multiply(this.gammaStd(df / 2, o.size, o), 2);
  }
  /** f(dfnum, dfden, size=None): the ratio of two scaled chi-squares (gammas). */
  f(...args: Args): Tensor {
    const o = kwargs<CreateOpts & { dfnum?: number; dfden?: number; size?: Size }>('f', args, ['dfnum', 'dfden', 'size'], CREATE_KW);
    const dfnum = num(o.dfnum, 'f', 'dfnum'), dfden = num(o.dfden, 'f', 'dfden');
    domain(dfnum > 0, 'dfnum <= 0');
    domain(dfden > 0, 'dfden <= 0');
    return divide(multiply(this.gammaStd(dfnum / 2, o.size, o), dfden), multiply(this.gammaStd(dfden / 2, o.size, o), dfnum));
  }
  /** standard_t(df, size=None): N * sqrt(df / 2 / G) for a normal N and a gamma G ~ Γ(df / 2), as NumPy. */
  standard_t(...args: Args): Tensor {
    const o = kwargs<CreateOpts & { df?: number; size?: Size }>('standard_t', args, ['df', 'size'], CREATE_KW);
    const df = num(o.df, 'standard_t', 'df');
    domain(df > 0, 'df <= 0');
    const n = new Tensor(this.draw('normal', o.size, o));
    return multiply(n, sqrt(divide(df / 2, this.gammaStd(df / 2, o.size, o))));
  }
  /** lognormal(mean=0, sigma=1, size=None): exp of a Box–Muller normal. */
  lognormal(...args: Args): Tensor {
    const o = kwargs<CreateOpts & { mean?: number; sigma?: number; size?: Size }>('lognormal', args, ['mean', 'sigma', 'size'], CREATE_KW);
    const mean = num(o.mean, 'lognormal', 'mean', 0), sigma = num(o.sigma, 'lognormal', 'sigma', 1);
    domain(sigma >= 0, 'sigma < 0');
    return exp(add(multiply(new Tensor(this.draw('normal', o.size, o)), sigma), mean));
  }
  /** laplace(loc=0, scale=1, size=None): inversion, loc ∓ scale * log(2 t) on the tail probability t of a midpoint uniform. */
  laplace(...args: Args): Tensor {
    const [loc, scale, size, o] = this.locScale('laplace', args);
    const u = new Tensor(this.draw('uniform', size, o));
    const lower = less(u, 0.5);
    const t = where(lower, add(u, 2 ** -54), subtract(subtract(1, u), 2 ** -54));
    const e = multiply(log(multiply(t, 2)), scale);
    return add(where(lower, e, negative(e)), loc);
  }
  /** logistic(loc=0, scale=1, size=None): inversion, loc ± scale * log(t / (1 - t)) on the tail probability t of a midpoint uniform. */
  logistic(...args: Args): Tensor {
    const [loc, scale, size, o] = this.locScale('logistic', args);
    const u = new Tensor(this.draw('uniform', size, o));
    const lower = less(u, 0.5);
    const t = where(lower, add(u, 2 ** -54), subtract(subtract(1, u), 2 ** -54));
    const e = multiply(subtract(log(t), log1p(negative(t))), scale);
    return add(where(lower, e, negative(e)), loc);
  }
  /** gumbel(loc=0, scale=1, size=None): inversion, loc - scale * log(E) for a standard exponential E. */
  gumbel(...args: Args): Tensor {
    const [loc, scale, size, o] = this.locScale('gumbel', args);
    return subtract(loc, multiply(log(this.expMid(size, o)), scale));
  }
  /** weibull(a, size=None): inversion, E^(1/a) for a standard exponential E (0 when a = 0, as NumPy). */
  weibull(...args: Args): Tensor {
    const o = kwargs<CreateOpts & { a?: number; size?: Size }>('weibull', args, ['a', 'size'], CREATE_KW);
    const a = num(o.a, 'weibull', 'a');
    domain(a >= 0, 'a < 0');
    if (a === 0) return this.filled(o.size, 0, 'float64', o);
    return power(this.expMid(o.size, o), 1 / a);
  }
  /** pareto(a, size=None): inversion (Lomax, as NumPy), expm1(E / a) for a standard exponential E. */
  pareto(...args: Args): Tensor {
    const o = kwargs<CreateOpts & { a?: number; size?: Size }>('pareto', args, ['a', 'size'], CREATE_KW);
    const a = num(o.a, 'pareto', 'a');
    domain(a > 0, 'a <= 0');
    return expm1(divide(this.expMid(o.size, o), a));
  }
  /** power(a, size=None): inversion, (1 - exp(-E))^(1/a) for a standard exponential E. */
  power(...args: Args): Tensor {
    const o = kwargs<CreateOpts & { a?: number; size?: Size }>('power', args, ['a', 'size'], CREATE_KW);
    const a = num(o.a, 'power', 'a');
    domain(a > 0, 'a <= 0');
    return power(negative(expm1(negative(this.expMid(o.size, o)))), 1 / a);
  }
  /** rayleigh(scale=1, size=None): inversion, scale * sqrt(2 E) for a standard exponential E. */
  rayleigh(...args: Args): Tensor {
    const o = kwargs<CreateOpts & { scale?: number; size?: Size }>('rayleigh', args, ['scale', 'size'], CREATE_KW);
    const scale = num(o.scale, 'rayleigh', 'scale', 1);
    domain(scale >= 0, 'scale < 0');
    return multiply(sqrt(multiply(this.expMid(o.size, o), 2)), scale);
  }
  /** triangular(left, mode, right, size=None): inversion of the piecewise-quadratic cdf, as NumPy. */
  triangular(...args: Args): Tensor {
    const o = kwargs<CreateOpts & { left?: number; mode?: number; right?: number; size?: Size }>('triangular', args, ['left', 'mode', 'right', 'size'], CREATE_KW);
    const left = num(o.left, 'triangular', 'left'), mode = num(o.mode, 'triangular', 'mode'), right = num(o.right, 'triangular', 'right');
    domain(left <= mode, 'left > mode');
    domain(mode <= right, 'mode > right');
    domain(left !== right, 'left == right');
    const base = right - left, leftbase = mode - left;
    const u = new Tensor(this.draw('uniform', o.size, o));
    return where(less_equal(u, leftbase / base),
      add(sqrt(multiply(u, leftbase * base)), left),
      subtract(right, sqrt(multiply(subtract(1, u), (right - mode) * base))));
  }
  /** poisson(lam=1.0, size=None): inversion through a cdf table for lam < 10, else PTRS rejection (Hörmann 1993); int64. */
  poisson(...args: Args): Tensor {
    const o = kwargs<CreateOpts & { lam?: number; size?: Size }>('poisson', args, ['lam', 'size'], CREATE_KW);
    const lam = num(o.lam, 'poisson', 'lam', 1);
    domain(lam >= 0, 'lam < 0 or lam is NaN');
    domain(lam <= 9.223372006484771e18, 'lam value too large');
    return this.poissonDraw(lam, o.size, o);
  }
  /** binomial(n, p, size=None): inversion through a cdf table when n min(p, 1-p) < 10, else BTRS rejection (Hörmann 1993); int64. */
  binomial(...args: Args): Tensor {
    const o = kwargs<CreateOpts & { n?: number; p?: number; size?: Size }>('binomial', args, ['n', 'p', 'size'], CREATE_KW);
    const n = int(o.n, 'binomial', 'n'), p = num(o.p, 'binomial', 'p');
    domain(n >= 0, 'n < 0');
    domain(p >= 0 && p <= 1, 'p < 0, p > 1 or p is NaN');
    if (n === 0 || p === 0 || p === 1) return this.filled(o.size, p === 1 ? n : 0, 'int64', o);
    const x = this.binomialLow(n, Math.min(p, 1 - p), o.size, o);
    return astype(p > 0.5 ? subtract(n, x) : x, 'int64');
  }
  /** geometric(p, size=None): inversion, ceil(E / -log(1-p)) for a standard exponential E; int64. */
  geometric(...args: Args): Tensor {
    const o = kwargs<CreateOpts & { p?: number; size?: Size }>('geometric', args, ['p', 'size'], CREATE_KW);
    const p = num(o.p, 'geometric', 'p');
    domain(p > 0 && p <= 1, 'p <= 0, p > 1 or p contains NaNs');
    if (p === 1) return this.filled(o.size, 1, 'int64', o);
    return astype(ceil(divide(this.expMid(o.size, o), -Math.log1p(-p))), 'int64');
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
      if (!Number.isInteger(a)) throw new TypeError(`choice(): a must be an integer or an array, got ${a}`);
      if (a < 0 || (a === 0 && count > 0)) throw new RangeError('a must be a positive integer unless no samples are taken');
      pop = a;
    } else {
      arr = toTensor(a);
      if (arr.ndim === 0) throw new RangeError('a must be a sequence or an integer, not a 0-d array');
      axis = normalizeAxis(o.axis ?? 0, arr.ndim);
      pop = arr.shape[axis]!;
      if (pop === 0 && count > 0) throw new RangeError('a cannot be empty unless no samples are taken');
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
      if (!Number.isInteger(x) || x < 0) throw new TypeError(`permutation(): n must be a non-negative integer, got ${x}`);
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
  /** Alias of permutation (NumPy's Generator.permuted/shuffle act in place; Tessera's values are immutable). */
  shuffle(x: Operand, ...args: Args): Tensor { return this.permutation(x, ...args); }

  /** (loc=0, scale=1, size=None) of laplace, logistic and gumbel, with NumPy's 'scale < 0'. */
  private locScale(fn: string, args: Args): [number, number, Size, CreateOpts] {
    const o = kwargs<CreateOpts & { loc?: number; scale?: number; size?: Size }>(fn, args, ['loc', 'scale', 'size'], CREATE_KW);
    const loc = num(o.loc, fn, 'loc', 0), scale = num(o.scale, fn, 'scale', 1);
    domain(scale >= 0, 'scale < 0');
    return [loc, scale, o.size, o];
  }
  /** Float draws come in float32 or float64 only (NumPy: "Unsupported dtype ... for random"). */
  private cast(t: Tensor, o: CreateOpts): Tensor {
    const d = dtypeArg(o.dtype);
    if (d && !isFloat(d)) throw new TypeError(`Unsupported dtype ${d} for random draws of floats (float32 or float64)`);
    return d ? astype(t, d) : t;
  }
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
