// The benchmark cases, their targets, and the reference answers every
// implementation's result is checked against (computed here, in plain
// JavaScript, from the same deterministic inputs: bench/data.js).

import { STREAMS, fill, matvec, probe } from './data.js';

export const IMPL_LABEL = { tessera: 'Tessera', 'tessera-webgpu': 'Tessera WebGPU', numpy: 'NumPy', tfjs: 'tfjs-wasm', jax: 'jax-js (wasm)' };
export const fmtN = (n) => (n >= 1e6 && Number.isInteger(Math.log10(n)) ? `1e${Math.log10(n)}` : String(n));
const REDUCTIONS = ['sum_axis0', 'sum_axis1', 'argmax_axis0', 'argmax_axis1'];

/**
 * The case list for the given flags. `reps` is the number of timed runs after
 * the warm-up (fewer for a run that is slow, see run.js). `target` is the
 * project's goal for Tessera; `only` restricts a case to some implementations.
 */
export function caseList({ quick = false, huge = false } = {}) {
  const list = [];
  const add = (bench, size, dtype, reps, extra = {}) => list.push({ id: `${bench}@${fmtN(size)}${bench === 'mc_pi' && dtype === 'float64' ? '' : `/${dtype}`}`, bench, size, dtype, reps, ...extra });
  const speedup = (min, text) => ({ kind: 'speedup', min, text });

  for (const n of quick ? [1e7] : [1e7, 1e8, 1e9]) add('mc_pi', n, 'float64', n >= 1e9 ? 3 : 5, n === 1e8 ? { target: speedup(10, '≥ 10× NumPy') } : {});
  if (huge) add('mc_pi', 1e10, 'float64', 1, { only: ['tessera'], target: { kind: 'absolute', maxSeconds: 60, maxRssBytes: 400e6, text: '< 60 s and peak RSS < 400 MB' } });
  for (const n of quick ? [1e7] : [1e7, 1e8]) add('mean_expr', n, 'float64', n >= 1e8 ? 5 : 7, { target: speedup(1.5, '≥ 1.5× NumPy') });
  const sq = quick ? 2000 : 5000;
  for (const b of REDUCTIONS) add(b, sq, 'float64', 25, { target: speedup(1, '≥ 1× NumPy') });
  for (const dtype of ['float32', 'float64']) {
    for (const n of quick ? [256, 512] : [1024, 2048]) add('matmul', n, dtype, n >= 2048 ? 5 : 9, { target: speedup(0.25, '≥ 25% of NumPy GFLOP/s'), ...(n >= 2048 ? { only: ['numpy', 'tessera', 'tfjs', 'jax'] } : {}) });
  }
  // float32 rows, where the WebGPU path runs (it has no float64): Monte Carlo, a fused chain, reductions
  add('mc_pi', quick ? 1e6 : 1e7, 'float32', 5);
  add('mean_expr', quick ? 1e6 : 1e7, 'float32', 5);
  add('sum_axis1', quick ? 1000 : 4000, 'float32', 5);
  add('argmax_axis0', quick ? 1000 : 4000, 'float32', 5);
  // float16: NumPy's half loops convert every element to float and back; Tessera fuses the chain (tfjs and jax-js have no float16 arrays)
  add('mean_expr', quick ? 1e6 : 1e7, 'float16', 5, { only: ['numpy', 'tessera', 'tessera-webgpu'] });
  return list;
}

export function caseLabel(c) {
  switch (c.bench) {
    case 'mc_pi': return `Monte Carlo pi, N=${fmtN(c.size)}${c.dtype === 'float32' ? ' float32' : ''}`;
    case 'mean_expr': return `((a*2+b)**2).mean(), n=${fmtN(c.size)} ${c.dtype}`;
    case 'matmul': return `matmul ${c.size}x${c.size} ${c.dtype}`;
    default: return `${c.bench.replace(/_axis(\d)/, ' axis=$1')} ${c.size}x${c.size} ${c.dtype}`;
  }
}

/** Work per run, for the derived rates in the results (points/s, GFLOP/s). */
export function rates(c, seconds) {
  if (c.bench === 'mc_pi') return { mpoints_per_s: c.size / seconds / 1e6 };
  if (c.bench === 'matmul') return { gflops: (2 * c.size ** 3) / seconds / 1e9 };
  const item = c.dtype === 'float16' ? 2 : c.dtype === 'float32' ? 4 : 8;
  // bytes read per run: two inputs for the chain, the matrix for a reduction
  if (c.bench === 'mean_expr') return { gbytes_per_s: (2 * c.size * item) / seconds / 1e9 };
  return { gbytes_per_s: (c.size * c.size * item) / seconds / 1e9 };
}

// ---------------------------------------------------------------------------
// Reference answers and checks.

const cache = new Map();

/** The reference for a case: {check(answer) -> {ok, detail}} (cached per input). */
export function reference(c) {
  const key = c.bench === 'mc_pi' ? `pi|${c.size}` : `${c.bench.startsWith('matmul') ? 'mm' : c.bench === 'mean_expr' ? 'mean' : 'red'}|${c.size}|${c.dtype}`;
  if (!cache.has(key)) cache.set(key, build(c));
  const ref = cache.get(key);
  return { check: (answer) => ref.check(answer, c) };
}

function build(c) {
  switch (c.bench) {
    case 'mc_pi': {
      // Standard error of 4*inside/N is 4*sqrt(p(1-p)/N), p = pi/4; allow 6 of
      // them (never more than 0.01), so a biased generator is caught.
      const p = Math.PI / 4;
      const tol = Math.min(0.01, 6 * 4 * Math.sqrt((p * (1 - p)) / c.size));
      return {
        check: (pi) => (typeof pi === 'number' && Math.abs(pi - Math.PI) <= tol
          ? { ok: true }
          : { ok: false, detail: `pi=${pi}, off by ${Math.abs(pi - Math.PI).toExponential(2)} > ${tol.toExponential(2)}` }),
      };
    }
    case 'mean_expr': {
      const n = c.size;
      const a = fill(STREAMS.a, n, c.dtype), b = fill(STREAMS.b, n, c.dtype);
      let s = 0, comp = 0; // Kahan
      for (let i = 0; i < n; i++) {
        const v = (a[i] * 2 + b[i]) ** 2 - comp;
        const t = s + v;
        comp = (t - s) - v;
        s = t;
      }
      const want = s / n;
      return { check: (v) => near(v, want, c.dtype) };
    }
    case 'sum_axis0': case 'sum_axis1': case 'argmax_axis0': case 'argmax_axis1': {
      const n = c.size;
      const x = fill(STREAMS.x, n * n, c.dtype);
      const s0 = new Float64Array(n), s1 = new Float64Array(n);
      const m0 = new Float64Array(n).fill(-Infinity), m1 = new Float64Array(n).fill(-Infinity);
      const a0 = new Array(n).fill(0), a1 = new Array(n).fill(0);
      for (let i = 0; i < n; i++) {
        for (let j = 0; j < n; j++) {
          const v = x[i * n + j];
          s0[j] += v; s1[i] += v;
          if (v > m0[j]) { m0[j] = v; a0[j] = i; }
          if (v > m1[i]) { m1[i] = v; a1[i] = j; }
        }
      }
      return {
        check: (ans, cc) => {
          const axis = Number(cc.bench.at(-1));
          if (cc.bench.startsWith('sum')) return nearVec(ans, axis ? s1 : s0, c.dtype);
          const want = axis ? a1 : a0;
          if (!Array.isArray(ans) || ans.length !== n) return { ok: false, detail: `expected ${n} indices, got ${Array.isArray(ans) ? ans.length : typeof ans}` };
          const bad = ans.findIndex((v, i) => v !== want[i]);
          return bad < 0 ? { ok: true } : { ok: false, detail: `index ${bad}: got ${ans[bad]}, expected ${want[bad]}` };
        },
      };
    }
    case 'matmul': {
      // Freivalds-style: y = C @ w for a ±1 vector w must equal A @ (B @ w).
      const n = c.size;
      const A = fill(STREAMS.x, n * n, c.dtype), B = fill(STREAMS.y, n * n, c.dtype);
      const w = probe(n);
      const want = matvec(A, n, matvec(B, n, w));
      // Every entry of A, B is positive: A @ (B @ 1) bounds |C| @ |w| per row.
      const scale = matvec(A, n, matvec(B, n, new Float64Array(n).fill(1)));
      return { check: (y) => verdict(y, want, c.dtype, scale, (i) => `(C@w)[${i}]`, TOL_MATMUL) };
    }
  }
  throw new Error(`unknown bench ${c.bench}`);
}

// Tolerances: within `strict` is right; within `loose` is right but
// imprecise (reported with the time, e.g. a float64 mean computed with a
// float32 constant); beyond `loose` is wrong (no time is reported).
// float16's mean rounds each element's chain (a few float16 ulps, 2^-11 relative each): a bias, not noise.
const TOL = { float64: { strict: 1e-9, loose: 1e-6 }, float32: { strict: 1e-4, loose: 1e-3 }, float16: { strict: 3e-3, loose: 1e-2 } };
// For C@w, relative to |C|@|w| (a single entry off by 1% moves that by ~5e-6 at n=2048).
const TOL_MATMUL = { float64: { strict: 1e-12, loose: 1e-9 }, float32: { strict: 1e-6, loose: 1e-5 } };

/** Worst relative error of `got` against `want` (relative to `scale`, default |want|); Infinity for NaN. */
function relErr(got, want, scale = want) {
  let worst = 0, at = 0;
  for (let i = 0; i < want.length; i++) {
    const e = Math.abs(got[i] - want[i]) / Math.abs(scale[i]);
    if (!(e <= worst)) { worst = Number.isNaN(e) ? Infinity : e; at = i; }
  }
  return { worst, at };
}

function verdict(got, want, dtype, scale, what = (i) => `[${i}]`, tol = TOL) {
  if (!Array.isArray(got) || got.length !== want.length) return { ok: false, detail: `expected ${want.length} value(s), got ${Array.isArray(got) ? got.length : typeof got}` };
  const { worst, at } = relErr(got, want, scale);
  const { strict, loose } = tol[dtype];
  const detail = `${what(at)} = ${got[at]}, expected ${want[at]} (relative error ${worst.toExponential(1)})`;
  if (worst <= strict) return { ok: true };
  if (worst <= loose) return { ok: true, warn: `imprecise: ${detail}` };
  return { ok: false, detail };
}

const near = (v, want, dtype) => verdict([v], [want], dtype, undefined, () => 'value');
const nearVec = (ans, want, dtype) => verdict(ans, Array.from(want), dtype);
