// Conformance against real NumPy: test/fixtures/numpy.json is produced by
// test/fixtures/generate.py (NumPy 2.x). Each case calls the same function on
// `mt` (NumPy keyword arguments become a trailing options object), fetches and
// compares shape, dtype and values. A subset is rerun inline ({workers: 0})
// with tiny chunks (chunkSize: 2) to check results do not depend on chunking.
import { readFileSync, readdirSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import * as mt from '../src/api/tensor.js';

type Enc = number | boolean | string | null | Enc[] | { tensor: unknown; shape: number[]; dtype: string };
interface Case {
  name: string;
  fn: string;
  args: Enc[];
  kwargs: Record<string, unknown>;
  expected: { shape: number[]; dtype: string; data: (number | boolean | string)[] };
  /** The tolerance class of a function the sets below do not name (gen_*.py sets it through fixture_lib.TOL). */
  tol?: 'transcendental' | 'accumulating';
  /** For functions returning several arrays (split, meshgrid): which one, of how many. */
  pick?: number;
  count?: number;
}

// numpy.json (generate.py), then numpy_<area>.json (gen_<area>.py), whose case names carry the area.
const FIXTURES = new URL('./fixtures/', import.meta.url);
const cases: Case[] = readdirSync(FIXTURES).filter((f) => /^numpy.*\.json$/.test(f)).sort().flatMap((f) => {
  const area = /^numpy_(.+)\.json$/.exec(f)?.[1];
  const list: Case[] = JSON.parse(readFileSync(new URL(f, FIXTURES), 'utf8'));
  return area ? list.map((c) => ({ ...c, name: `${area}: ${c.name}` })) : list;
});

afterAll(() => mt.shutdown());

const num = (v: unknown): number => {
  if (v === 'nan') return NaN;
  if (v === 'inf') return Infinity;
  if (v === '-inf') return -Infinity;
  if (typeof v === 'boolean') return v ? 1 : 0;
  return v as number;
};
const decodeNested = (v: unknown): unknown => (Array.isArray(v) ? v.map(decodeNested) : typeof v === 'string' ? num(v) : v);

function decodeArg(a: Enc, chunkSize?: number): unknown {
  if (Array.isArray(a)) return a.map((x) => decodeArg(x, chunkSize));
  if (a !== null && typeof a === 'object') {
    const size = a.shape.reduce((p, d) => p * d, 1);
    const o = { dtype: a.dtype, ...(chunkSize ? { chunkSize } : {}) };
    // Nested lists lose the shape of 0-size arrays: build flat and reshape.
    if (size === 0) return mt.tensor([], o).reshape(a.shape);
    return mt.tensor(decodeNested(a.tensor) as number[], o);
  }
  if (typeof a === 'string') return ['nan', 'inf', '-inf'].includes(a) ? num(a) : a;
  return a;
}

function call(c: Case, chunkSize?: number): mt.Tensor {
  const r = callRaw(c, chunkSize);
  if (c.pick === undefined) return r as mt.Tensor;
  const list = r as mt.Tensor[];
  expect(list.length).toBe(c.count);
  return list[c.pick]!;
}

/** Expressions the generator composes of several NumPy calls (LOCAL['composed.*'] there). */
const composed = {
  sqrt_compare: (x: mt.Tensor, op: 'less' | 'less_equal' | 'greater' | 'greater_equal', c: number, side: 'left' | 'right') =>
    (side === 'left' ? mt[op](mt.sqrt(x), c) : mt[op](c, mt.sqrt(x))),
};

function callRaw(c: Case, chunkSize?: number): mt.Tensor | mt.Tensor[] {
  const f = c.fn.split('.').reduce<any>((o, k) => o[k], { ...mt, composed });
  const args = c.args.map((a) => decodeArg(a, chunkSize));
  if (Object.keys(c.kwargs).length) {
    const kw: Record<string, unknown> = {};
    // Keyword values decode as arguments do (arrays given by keyword, weights= say, become tensors).
    for (const [k, v] of Object.entries(c.kwargs)) kw[k] = decodeArg(v as Enc, chunkSize);
    args.push(kw);
  }
  return f(...args);
}

// Documented difference (README "dtypes"): Tessera has no uint64, so sums,
// products and cumulative sums/products of unsigned ints give int64.
const expectedDType = (d: string): string => (d === 'uint64' ? 'int64' : d);

const TRANSCENDENTAL = new Set(['exp', 'log', 'log1p', 'expm1', 'sin', 'cos', 'tan', 'arcsin', 'arctanh', 'power', 'hypot', 'arctan2', 'std', 'linalg.norm', 'nanstd', 'corrcoef', 'logspace']);
const ACCUMULATING = new Set(['sum', 'prod', 'mean', 'var', 'std', 'nansum', 'nanmean', 'cumsum', 'cumprod', 'dot', 'matmul', 'tensordot', 'inner', 'vdot', 'trace', 'linalg.norm', 'linalg.svdvals', 'linspace', 'arange', 'einsum',
  'average', 'nanvar', 'nanstd', 'nanprod', 'cov', 'corrcoef', 'logspace']);

/** Cumulative float16 sums and products: every step rounded once, as NumPy's half loops do. */
const HALF_STEPS = new Set(['cumsum', 'cumprod', 'nancumsum', 'nancumprod']);

/** Sum of |finite input values|: the scale of rounding error in accumulations. */
function inputScale(c: Case): number {
  let s = 0;
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object' && 'tensor' in v) walk((v as { tensor: unknown }).tensor);
    else if (typeof v === 'number' && Number.isFinite(v)) s += Math.abs(v);
  };
  walk(c.args);
  return s;
}

function check(c: Case, r: mt.NDArray): void {
  const e = c.expected;
  expect(r.shape).toEqual(e.shape);
  expect(r.dtype).toBe(expectedDType(e.dtype));
  const got = Array.from(r.data as ArrayLike<number | bigint>, (v) => Number(v));
  const want = e.data.map(num);
  expect(got.length).toBe(want.length);
  const isF = r.dtype === 'float64' || r.dtype === 'float32' || r.dtype === 'float16';
  const bad: string[] = [];
  const f32 = r.dtype === 'float32';
  const acc = ACCUMULATING.has(c.fn) || c.tol === 'accumulating';
  const inexact = TRANSCENDENTAL.has(c.fn) || c.tol === 'transcendental' || acc;
  const scale = acc ? inputScale(c) : 0;
  let rtol = f32 ? 1e-5 : inexact ? 1e-13 : 4e-15;
  let atol = f32 ? (acc ? 1e-6 * scale : 1e-30) : acc ? 1e-15 * scale : 1e-300;
  // float16: NumPy's value exactly where both round one float32 result (arithmetic, sqrt, and the
  // steps of a cumulative sum or product); one float16 ulp (2^-10 relative) where the float32
  // results may differ (libm, summation order)
  if (r.dtype === 'float16') [rtol, atol] = inexact && !HALF_STEPS.has(c.fn) ? [2 ** -10, acc ? 2 ** -10 * scale : 2 ** -24] : [0, 0];
  for (let i = 0; i < want.length; i++) {
    const g = got[i]!, w = want[i]!;
    let ok: boolean;
    if (!isF) ok = g === w;
    else if (Number.isNaN(w) || Number.isNaN(g)) ok = Number.isNaN(w) && Number.isNaN(g);
    else if (!Number.isFinite(w) || !Number.isFinite(g)) ok = g === w;
    else ok = Math.abs(g - w) <= rtol * Math.abs(w) + atol;
    if (!ok && bad.length < 5) bad.push(`[${i}] got ${g} want ${w}`);
  }
  expect(bad, `${bad.length} mismatches`).toEqual([]);
}

describe('NumPy conformance', () => {
  it.each(cases.map((c) => [c.name, c] as const))('%s', async (_, c) => {
    check(c, await call(c).fetch());
  });
});

describe('NumPy conformance, inline with chunkSize 2', () => {
  const subset = cases.filter((_, i) => i % 7 === 0);
  it.each(subset.map((c) => [c.name, c] as const))('%s', async (_, c) => {
    check(c, await call(c, 2).fetch({ workers: 0 }));
  });
});
