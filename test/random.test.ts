// NumPy's random distributions (api/random.ts) against their closed forms,
// with fixed seeds: a Kolmogorov–Smirnov statistic against the exact cdf for
// continuous laws, chi-square goodness of fit against the pmf for discrete
// ones, moments for the multivariate ones. Thresholds: sqrt(n) D < 2 (a null
// p-value near 1e-3) and chi-square below df + 6 sqrt(2 df); with n = 2e5 a
// parameter off by one percent (a gamma of shape 2.5 drawn as 2.475, a Poisson
// of 40 as 40.4) moves sqrt(n) D or the chi-square far past them. Then the
// generator's promise: the same values for any chunkSize and worker count, and
// for the same seed; NumPy's errors for bad parameters.

import { afterAll, describe, expect, it } from 'vitest';
import * as mt from '../src/api/tensor.js';
import { fuse } from '../src/fuse/fuse.js';
import { gpuSupport } from '../src/wgsl/render.js';

afterAll(() => mt.shutdown());

const N = 200_000;
const values = async (t: mt.Tensor): Promise<number[]> => Array.from((await t.fetch()).data as ArrayLike<number | bigint>, Number);

// --- exact cdfs -------------------------------------------------------------

/** log Γ(x) for x > 0 by Stirling's series past 10 (a method of its own, not the implementation's Lanczos). */
function lgamma(x: number): number {
  let shift = 0;
  for (; x < 10; x++) shift += Math.log(x);
  const x2 = x * x;
  const series = 1 / (12 * x) - 1 / (360 * x * x2) + 1 / (1260 * x * x2 * x2) - 1 / (1680 * x * x2 * x2 * x2);
  return (x - 0.5) * Math.log(x) - x + 0.5 * Math.log(2 * Math.PI) + series - shift;
}
/** Regularized lower incomplete gamma P(a, x): series below a + 1, Lentz's continued fraction above. */
function gammaP(a: number, x: number): number {
  if (x <= 0) return 0;
  const front = Math.exp(a * Math.log(x) - x - lgamma(a));
  if (x < a + 1) {
    let sum = 1 / a, term = 1 / a;
    for (let n = 1; n < 10_000 && Math.abs(term) > 1e-17 * sum; n++) { term *= x / (a + n); sum += term; }
    return front * sum;
  }
  let b = x + 1 - a, c = 1e300, d = 1 / b, h = d;
  for (let i = 1; i < 10_000; i++) {
    const an = -i * (i - a);
    b += 2;
    d = an * d + b; if (Math.abs(d) < 1e-300) d = 1e-300;
    c = b + an / c; if (Math.abs(c) < 1e-300) c = 1e-300;
    d = 1 / d;
    const del = d * c;
    h *= del;
    if (Math.abs(del - 1) < 1e-16) break;
  }
  return 1 - front * h;
}
/** Regularized incomplete beta I_x(a, b) by its continued fraction (Numerical Recipes' betacf). */
function betaI(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  if (x > (a + 1) / (a + b + 2)) return 1 - betaI(1 - x, b, a);
  const front = Math.exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * Math.log(x) + b * Math.log1p(-x)) / a;
  let c = 1, d = 1 - ((a + b) * x) / (a + 1);
  if (Math.abs(d) < 1e-300) d = 1e-300;
  d = 1 / d;
  let h = d;
  for (let m = 1; m < 10_000; m++) {
    for (const an of [(m * (b - m) * x) / ((a + 2 * m - 1) * (a + 2 * m)), (-(a + m) * (a + b + m) * x) / ((a + 2 * m) * (a + 2 * m + 1))]) {
      d = 1 + an * d; if (Math.abs(d) < 1e-300) d = 1e-300;
      c = 1 + an / c; if (Math.abs(c) < 1e-300) c = 1e-300;
      d = 1 / d;
      h *= d * c;
    }
    if (Math.abs(d * c - 1) < 1e-16) break;
  }
  return front * h;
}
const phi = (x: number): number => (x < 0 ? 0.5 * (1 - gammaP(0.5, (x * x) / 2)) : 0.5 * (1 + gammaP(0.5, (x * x) / 2)));

/** sqrt(n) times the Kolmogorov–Smirnov distance of the sample from `cdf`. */
function ks(xs: number[], cdf: (x: number) => number): number {
  const s = Float64Array.from(xs).sort();
  let d = 0;
  s.forEach((x, i) => { const f = cdf(x); d = Math.max(d, Math.abs(f - i / s.length), Math.abs((i + 1) / s.length - f)); });
  return d * Math.sqrt(s.length);
}
/** Pearson's chi-square of integer draws against `pmf`, cells with expected count below 20 pooled into two tails; [statistic, degrees of freedom]. */
function chi2(xs: number[], pmf: (k: number) => number, lo: number, hi: number): [number, number] {
  const n = xs.length;
  const cells: { p: number; ks: number[] }[] = [];
  let tailLo = 0, k = lo;
  while (k <= hi && n * (tailLo + pmf(k)) < 20) tailLo += pmf(k++);
  let start = k;
  if (tailLo > 0) cells.push({ p: tailLo, ks: [] });
  let end = hi;
  let tailHi = 0;
  while (end >= start && n * (tailHi + pmf(end)) < 20) tailHi += pmf(end--);
  for (k = start; k <= end; k++) cells.push({ p: pmf(k), ks: [k] });
  const counts = new Map<number, number>();
  for (const x of xs) counts.set(x, (counts.get(x) ?? 0) + 1);
  const obs = (k: number): number => counts.get(k) ?? 0;
  let stat = 0;
  for (const c of cells) {
    const o = c.ks.length ? obs(c.ks[0]!) : [...counts].filter(([v]) => v < start).reduce((a, [, m]) => a + m, 0);
    stat += (o - n * c.p) ** 2 / (n * c.p);
  }
  const pTail = 1 - cells.reduce((a, c) => a + c.p, 0);
  const oTail = [...counts].filter(([v]) => v > end).reduce((a, [, m]) => a + m, 0);
  if (pTail > 0) stat += (oTail - n * pTail) ** 2 / (n * pTail);
  else expect(oTail).toBe(0);
  const df = cells.length + (pTail > 0 ? 1 : 0) - 1;
  return [stat, df];
}
const chi2Ok = ([stat, df]: [number, number]): void => { expect(stat).toBeLessThan(df + 6 * Math.sqrt(2 * df)); };

describe('continuous distributions: Kolmogorov–Smirnov against the exact cdf', () => {
  const g = () => mt.random.default_rng(20240601);
  const cases: [string, () => mt.Tensor, (x: number) => number][] = [
    ['standard_exponential', () => g().standard_exponential(N), (x) => 1 - Math.exp(-x)],
    ['standard_exponential float32', () => g().standard_exponential(N, { dtype: 'float32' }), (x) => 1 - Math.exp(-x)],
    ['standard_gamma(2.5)', () => g().standard_gamma(2.5, N), (x) => gammaP(2.5, x)],
    ['standard_gamma(1)', () => g().standard_gamma(1, N), (x) => gammaP(1, x)],
    ['standard_gamma(0.3)', () => g().standard_gamma(0.3, N), (x) => gammaP(0.3, x)],
    ['standard_gamma(40) float32', () => g().standard_gamma(40, N, { dtype: 'float32' }), (x) => gammaP(40, x)],
    ['gamma(3, 2)', () => g().gamma(3, 2, N), (x) => gammaP(3, x / 2)],
    ['beta(2, 5)', () => g().beta(2, 5, N), (x) => betaI(x, 2, 5)],
    ['beta(0.5, 0.7)', () => g().beta(0.5, 0.7, N), (x) => betaI(x, 0.5, 0.7)],
    ['chisquare(3)', () => g().chisquare(3, N), (x) => gammaP(1.5, x / 2)],
    ['f(4, 7)', () => g().f(4, 7, N), (x) => betaI((4 * x) / (4 * x + 7), 2, 3.5)],
    ['standard_t(5)', () => g().standard_t(5, N), (x) => { const b = 0.5 * betaI(5 / (5 + x * x), 2.5, 0.5); return x < 0 ? b : 1 - b; }],
    ['lognormal(1, 0.5)', () => g().lognormal(1, 0.5, N), (x) => phi((Math.log(x) - 1) / 0.5)],
    ['laplace(1, 2)', () => g().laplace(1, 2, N), (x) => (x < 1 ? 0.5 * Math.exp((x - 1) / 2) : 1 - 0.5 * Math.exp(-(x - 1) / 2))],
    ['logistic(-1, 3)', () => g().logistic(-1, 3, N), (x) => 1 / (1 + Math.exp(-(x + 1) / 3))],
    ['gumbel(2, 0.5)', () => g().gumbel(2, 0.5, N), (x) => Math.exp(-Math.exp(-(x - 2) / 0.5))],
    ['weibull(1.7)', () => g().weibull(1.7, N), (x) => 1 - Math.exp(-(x ** 1.7))],
    ['pareto(3)', () => g().pareto(3, N), (x) => 1 - (1 + x) ** -3],
    ['power(2.5)', () => g().power(2.5, N), (x) => Math.min(1, Math.max(0, x)) ** 2.5],
    ['rayleigh(2)', () => g().rayleigh(2, N), (x) => 1 - Math.exp(-(x * x) / 8)],
    ['triangular(-1, 0.5, 3)', () => g().triangular(-1, 0.5, 3, N), (x) => (x <= 0.5 ? (x + 1) ** 2 / (4 * 1.5) : 1 - (3 - x) ** 2 / (4 * 2.5))],
  ];
  for (const [name, make, cdf] of cases) {
    it(name, async () => {
      const d = await values(make());
      expect(d.length).toBe(N);
      expect(ks(d, cdf)).toBeLessThan(2);
    });
  }
  it('detects a wrong law (the test can fail): gamma(2.5) against the cdf of shape 2.45', async () => {
    expect(ks(await values(g().standard_gamma(2.5, N)), (x) => gammaP(2.45, x))).toBeGreaterThan(2);
  });
});

describe('discrete distributions: chi-square against the pmf', () => {
  const g = () => mt.random.default_rng(77);
  const poissonPmf = (lam: number) => (k: number) => Math.exp(-lam + k * Math.log(lam) - lgamma(k + 1));
  const binomPmf = (n: number, p: number) => (k: number) => Math.exp(lgamma(n + 1) - lgamma(k + 1) - lgamma(n - k + 1) + k * Math.log(p) + (n - k) * Math.log1p(-p));
  const cases: [string, () => mt.Tensor, (k: number) => number, number, number][] = [
    ['poisson(3) (table inversion)', () => g().poisson(3, N), poissonPmf(3), 0, 40],
    ['poisson(10) (PTRS, worst rejection rate)', () => g().poisson(10, N), poissonPmf(10), 0, 60],
    ['poisson(40) (PTRS)', () => g().poisson(40, N), poissonPmf(40), 0, 120],
    ['poisson(1e6) (PTRS)', () => g().poisson(1e6, N), poissonPmf(1e6), 990_000, 1_010_000],
    ['binomial(20, 0.2) (table inversion)', () => g().binomial(20, 0.2, N), binomPmf(20, 0.2), 0, 20],
    ['binomial(20, 0.5) (BTRS, worst rejection rate)', () => g().binomial(20, 0.5, N), binomPmf(20, 0.5), 0, 20],
    ['binomial(1000, 0.7) (BTRS, flipped)', () => g().binomial(1000, 0.7, N), binomPmf(1000, 0.7), 0, 1000],
    ['binomial(100000, 0.001) (BTRS)', () => g().binomial(100000, 0.001, N), binomPmf(100000, 0.001), 0, 300],
    ['geometric(0.2)', () => g().geometric(0.2, N), (k) => (k >= 1 ? 0.2 * 0.8 ** (k - 1) : 0), 0, 200],
    ['choice(5, p=...)', () => g().choice(5, N, { p: [0.1, 0.2, 0.3, 0.15, 0.25] }), (k) => [0.1, 0.2, 0.3, 0.15, 0.25][k] ?? 0, 0, 4],
    ['choice(7)', () => g().choice(7, N), (k) => (k >= 0 && k < 7 ? 1 / 7 : 0), 0, 6],
  ];
  for (const [name, make, pmf, lo, hi] of cases) {
    it(name, async () => {
      const t = make();
      expect(t.dtype).toBe('int64');
      chi2Ok(chi2(await values(t), pmf, lo, hi));
    });
  }
  it('detects a wrong law (the test can fail): poisson(40) against the pmf of 40.4', async () => {
    const [stat, df] = chi2(await values(g().poisson(40, N)), poissonPmf(40.4), 0, 120);
    expect(stat).toBeGreaterThan(df + 6 * Math.sqrt(2 * df));
  });
  it('binomial and poisson moments', async () => {
    const d = await values(g().binomial(10 ** 9, 0.3, N));
    const m = d.reduce((a, b) => a + b, 0) / N, v = d.reduce((a, b) => a + (b - m) ** 2, 0) / N;
    const sd = Math.sqrt(1e9 * 0.21);
    expect(Math.abs(m - 3e8) / (sd / Math.sqrt(N))).toBeLessThan(5);
    expect(Math.abs(v / (sd * sd) - 1)).toBeLessThan(5 * Math.sqrt(2 / N));
  });
});

describe('choice', () => {
  it('takes from an array along an axis, and without replacement a permutation prefix', async () => {
    const g = mt.random.default_rng(5);
    const a = mt.arange(12).reshape([3, 4]);
    const c = g.choice(a, [2, 5], { axis: 1 });
    expect(c.shape).toEqual([3, 2, 5]);
    const cv = await values(c);
    for (let i = 0; i < 3; i++) for (let j = 0; j < 10; j++) expect(Math.floor(cv[i * 10 + j]! / 4)).toBe(i);
    const w = await values(g.choice(1000, 600, { replace: false }));
    expect(new Set(w).size).toBe(600);
    expect(Math.min(...w)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...w)).toBeLessThan(1000);
    const z = await values(g.choice(4, 3, { replace: false, p: [0, 0.5, 0.25, 0.25] }));
    expect(new Set(z)).toEqual(new Set([1, 2, 3]));
  });
  it('weighted without replacement is sequential sampling (ordered pairs, chi-square)', async () => {
    const p = [0.5, 0.3, 0.2];
    const g = mt.random.default_rng(9);
    const counts = new Map<string, number>();
    const R = 3000;
    for (let r = 0; r < R; r++) {
      const [i, j] = await values(g.choice(3, 2, { replace: false, p }));
      counts.set(`${i},${j}`, (counts.get(`${i},${j}`) ?? 0) + 1);
    }
    let stat = 0;
    for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) {
      if (i === j) { expect(counts.get(`${i},${j}`)).toBeUndefined(); continue; }
      const e = R * p[i]! * (p[j]! / (1 - p[i]!));
      stat += ((counts.get(`${i},${j}`) ?? 0) - e) ** 2 / e;
    }
    expect(stat).toBeLessThan(5 + 6 * Math.sqrt(10));
  });
});

describe('multivariate laws: moments', () => {
  it('dirichlet: rows sum to 1, means alpha / sum(alpha)', async () => {
    const alpha = [1, 2.5, 0.5];
    const t = mt.random.default_rng(3).dirichlet(alpha, N / 4);
    expect(t.shape).toEqual([N / 4, 3]);
    const d = await values(t);
    const n = N / 4, a0 = 4;
    for (let j = 0; j < 3; j++) {
      let m = 0;
      for (let i = 0; i < n; i++) m += d[i * 3 + j]!;
      m /= n;
      const mu = alpha[j]! / a0, sd = Math.sqrt((mu * (1 - mu)) / (a0 + 1));
      expect(Math.abs(m - mu) / (sd / Math.sqrt(n))).toBeLessThan(5);
    }
    for (let i = 0; i < 100; i++) expect(d[i * 3]! + d[i * 3 + 1]! + d[i * 3 + 2]!).toBeCloseTo(1, 12);
  });
  it('multivariate_normal: mean and covariance (semidefinite cov too)', async () => {
    const mean = [1, -2, 0.5], cov = [[2, 0.6, -0.3], [0.6, 1, 0.2], [-0.3, 0.2, 0.5]];
    const n = N / 2;
    const d = await values(mt.random.default_rng(4).multivariate_normal(mean, cov, n));
    for (let a = 0; a < 3; a++) {
      let m = 0;
      for (let i = 0; i < n; i++) m += d[i * 3 + a]!;
      m /= n;
      expect(Math.abs(m - mean[a]!) / Math.sqrt(cov[a]![a]! / n)).toBeLessThan(5);
      for (let b = 0; b < 3; b++) {
        let c = 0;
        for (let i = 0; i < n; i++) c += (d[i * 3 + a]! - mean[a]!) * (d[i * 3 + b]! - mean[b]!);
        c /= n;
        const se = Math.sqrt((cov[a]![a]! * cov[b]![b]! + cov[a]![b]! ** 2) / n);
        expect(Math.abs(c - cov[a]![b]!) / se).toBeLessThan(5);
      }
    }
    const s = await values(mt.random.default_rng(4).multivariate_normal([0, 0], [[1, 1], [1, 1]], 1000));
    for (let i = 0; i < 1000; i++) expect(s[2 * i]).toBeCloseTo(s[2 * i + 1]!, 12);
  });
});

/** Each program's draws: identical for chunkSize 7 and the default, inline and on the pool, and different for another seed. */
function sameForAnyChunking(programs: readonly [string, (g: mt.Generator, chunkSize?: number) => mt.Tensor][]): void {
  for (const [name, make] of programs) {
    it(`${name}: identical for chunkSize 7 and default, workers 0 and default, and per seed`, async () => {
      const ref = await values(make(mt.random.default_rng(42)));
      expect(ref.every(Number.isFinite)).toBe(true);
      const small = Array.from((await make(mt.random.default_rng(42), 7).fetch({ workers: 0 })).data as ArrayLike<number | bigint>, Number);
      expect(small).toEqual(ref);
      const pooled = Array.from((await make(mt.random.default_rng(42), 7).fetch()).data as ArrayLike<number | bigint>, Number);
      expect(pooled).toEqual(ref);
      expect(await values(make(mt.random.default_rng(43)))).not.toEqual(ref);
    });
  }
}

describe('the generator promise', () => {
  const programs: [string, (g: mt.Generator, chunkSize?: number) => mt.Tensor][] = [
    ['standard_gamma', (g, c) => g.standard_gamma(0.7, [300, 3], c ? { chunkSize: c } : {})],
    ['poisson PTRS', (g, c) => g.poisson(25, [900], c ? { chunkSize: c } : {})],
    ['poisson table', (g, c) => g.poisson(2, [900], c ? { chunkSize: c } : {})],
    ['binomial BTRS', (g, c) => g.binomial(500, 0.4, [900], c ? { chunkSize: c } : {})],
    ['beta', (g, c) => g.beta(2, 3, [900], c ? { chunkSize: c } : {})],
    ['choice with p', (g, c) => g.choice(4, [900], { p: [0.1, 0.2, 0.3, 0.4], ...(c ? { chunkSize: c } : {}) })],
    ['laplace', (g, c) => g.laplace(0, 1, [900], c ? { chunkSize: c } : {})],
    ['multivariate_normal', (g, c) => g.multivariate_normal([0, 1], [[1, 0.5], [0.5, 2]], [450], c ? { chunkSize: c } : {})],
    ['dirichlet', (g, c) => g.dirichlet([0.5, 1, 2], [300], c ? { chunkSize: c } : {})],
  ];
  sameForAnyChunking(programs);
  it('float32 draws (standard_gamma, standard_exponential, random) fuse into kernels WebGPU can run (no float64)', () => {
    const g = mt.random.default_rng(1);
    for (const t of [g.standard_gamma(0.5, [64], { dtype: 'float32' }), g.standard_gamma(3, [64], { dtype: 'float32' }), g.standard_exponential([64], { dtype: 'float32' }), g.random([64], { dtype: 'float32' })]) {
      expect(t.dtype).toBe('float32');
      const steps = fuse([t.node], (n) => n.op === 'source');
      for (const s of steps) expect(gpuSupport(s.kernel)).toBeUndefined();
    }
    expect(gpuSupport(fuse([g.standard_gamma(3, [64]).node], (n) => n.op === 'source')[0]!.kernel)).toBeDefined();
  });
  it('legacy functions draw from the seeded global generator', async () => {
    mt.random.seed(11);
    const a = await values(mt.random.poisson(30, 50));
    const b = await values(mt.random.gamma(2, 1, 50));
    mt.random.seed(11);
    expect(await values(mt.random.poisson(30, 50))).toEqual(a);
    expect(await values(mt.random.gamma(2, 1, 50))).toEqual(b);
    expect(await values(mt.random.default_rng(11).poisson(30, 50))).toEqual(a);
  });
  it('ranf and sample are random_sample; random_integers includes high (and is 1..low alone)', async () => {
    mt.random.seed(5);
    const u = await values(mt.random.random_sample(20));
    for (const f of [mt.random.ranf, mt.random.sample]) {
      mt.random.seed(5);
      expect(await values(f(20))).toEqual(u);
    }
    const r = await values(mt.random.random_integers(3, 5, 3000));
    const counts = [3, 4, 5].map((k) => r.filter((v) => v === k).length);
    expect(r.every((v) => v >= 3 && v <= 5)).toBe(true);
    // each value about a third of 3000: the inclusive endpoint is drawn as often as the others
    for (const c of counts) expect(Math.abs(c - 1000)).toBeLessThan(120);
    const one = await values(mt.random.random_integers(4, { size: 2000 }));
    expect(new Set(one)).toEqual(new Set([1, 2, 3, 4]));
  });
});

describe('NumPy errors', () => {
  const g = mt.random.default_rng(1);
  const cases: [() => unknown, RegExp][] = [
    [() => g.poisson(-1), /^lam < 0 or lam is NaN$/],
    [() => g.poisson(NaN), /lam < 0 or lam is NaN/],
    [() => g.poisson(1e19), /lam value too large/],
    [() => g.binomial(-1, 0.5), /^n < 0$/],
    [() => g.binomial(3, 1.5), /p < 0, p > 1 or p is NaN/],
    [() => g.binomial(3, NaN), /p < 0, p > 1 or p is NaN/],
    [() => g.geometric(0), /p <= 0, p > 1 or p contains NaNs/],
    [() => g.standard_gamma(-1), /^shape < 0$/],
    [() => g.gamma(1, -1), /^scale < 0$/],
    [() => g.beta(0, 1), /^a <= 0$/],
    [() => g.beta(1, 0), /^b <= 0$/],
    [() => g.chisquare(0), /^df <= 0$/],
    [() => g.f(0, 1), /^dfnum <= 0$/],
    [() => g.f(1, 0), /^dfden <= 0$/],
    [() => g.standard_t(0), /^df <= 0$/],
    [() => g.lognormal(0, -1), /^sigma < 0$/],
    [() => g.laplace(0, -1), /^scale < 0$/],
    [() => mt.random.logistic(0, -1), /^scale < 0$/],
    [() => g.gumbel(0, -1), /^scale < 0$/],
    [() => g.weibull(-1), /^a < 0$/],
    [() => g.pareto(0), /^a <= 0$/],
    [() => g.power(0), /^a <= 0$/],
    [() => g.rayleigh(-1), /^scale < 0$/],
    [() => g.triangular(2, 1, 3), /^left > mode$/],
    [() => g.triangular(0, 4, 3), /^mode > right$/],
    [() => g.triangular(1, 1, 1), /^left == right$/],
    [() => g.dirichlet([-1, 1]), /^alpha < 0$/],
    [() => g.multivariate_normal([0, 0], [1, 2]), /cov must be 2 dimensional and square/],
    [() => g.multivariate_normal([0, 0], [[1, 0, 0], [0, 1, 0]]), /cov must be 2 dimensional and square/],
    [() => g.multivariate_normal([[0, 0]], [[1, 0], [0, 1]]), /mean must be 1 dimensional/],
    [() => g.multivariate_normal([0, 0, 0], [[1, 0], [0, 1]]), /mean and cov must have same length/],
    [() => g.multivariate_normal([0, 0], [[1, 2], [2, 1]], 3, 'raise'), /covariance is not symmetric positive-semidefinite/],
    [() => g.choice(0, 3), /a must be a positive integer unless no samples are taken/],
    [() => g.choice(3, 2, { p: [0.5, 0.5, 0.5] }), /probabilities do not sum to 1/],
    [() => mt.random.choice(3, 2, { p: [-0.5, 1, 0.5] }), /probabilities are not non-negative/],
    [() => g.choice(3, 2, { p: [0.5, 0.5] }), /a and p must have same size/],
    [() => g.choice(3, 2, { p: [[0.5, 0.5, 0]] }), /p must be 1-dimensional/],
    [() => g.choice(3, 4, { replace: false }), /Cannot take a larger sample than population when replace is False/],
    [() => g.choice(3, 3, { replace: false, p: [0.5, 0.5, 0] }), /Fewer non-zero entries in p than size/],
    [() => g.poisson(2, 3, { dtype: 'int32' }), /unexpected keyword argument 'dtype'/],
    [() => g.standard_gamma(2, 3, { dtype: 'int32' }), /Unsupported dtype int32/],
  ];
  for (const [f, re] of cases) it(`${re.source}`, () => { expect(f).toThrow(re); });
  it('a RangeError (NumPy ValueError) for domains, a TypeError for a missing parameter', () => {
    expect(() => g.poisson(-1)).toThrow(RangeError);
    expect(() => g.beta(1)).toThrow(TypeError);
  });
});

// --- array parameters and the laws added with them ---------------------------

/** Column j of an n-by-k row-major sample. */
const column = (d: number[], k: number, j: number): number[] => d.filter((_, i) => i % k === j);
const poissonPmf = (lam: number) => (k: number): number => (k < 0 ? 0 : Math.exp(-lam + k * Math.log(lam) - lgamma(k + 1)));
const binomPmf = (n: number, p: number) => (k: number): number => (k < 0 || k > n ? 0 : Math.exp(lgamma(n + 1) - lgamma(k + 1) - lgamma(n - k + 1) + k * Math.log(p) + (n - k) * Math.log1p(-p)));
/** The von Mises cdf on [-pi, pi] by the trapezoid rule on a fine grid, linearly interpolated. */
function vonmisesCdf(mu: number, kappa: number): (x: number) => number {
  const M = 200_000, h = (2 * Math.PI) / M, f = (x: number): number => Math.exp(kappa * (Math.cos(x - mu) - 1));
  const c = new Float64Array(M + 1);
  for (let i = 1; i <= M; i++) c[i] = c[i - 1]! + (h * (f(-Math.PI + (i - 1) * h) + f(-Math.PI + i * h))) / 2;
  return (x) => {
    const t = Math.min(M, Math.max(0, (x + Math.PI) / h)), i = Math.min(M - 1, Math.floor(t));
    return (c[i]! + (t - i) * (c[i + 1]! - c[i]!)) / c[M]!;
  };
}

describe('array parameters: each column follows the law of its own parameter', () => {
  const R = N / 4;
  const g = () => mt.random.default_rng(31);
  it('poisson([0.5, 3, 40], size=[R, 3]): element-wise inversion and PTRS', async () => {
    const t = g().poisson([0.5, 3, 40], [R, 3]);
    expect(t.shape).toEqual([R, 3]);
    expect(t.dtype).toBe('int64');
    const d = await values(t);
    [0.5, 3, 40].forEach((lam, j) => chi2Ok(chi2(column(d, 3, j), poissonPmf(lam), 0, 150)));
    const [stat, df] = chi2(column(d, 3, 2), poissonPmf(40.8), 0, 150);
    expect(stat).toBeGreaterThan(df + 6 * Math.sqrt(2 * df));
  });
  it('poisson of a lazy tensor lam (shape from lam), both sides of 10', async () => {
    const lam = mt.multiply(mt.tensor([1, 9.9, 10, 250]), 1);
    const d = await values(g().poisson(mt.broadcast_to(lam, [R, 4])));
    [1, 9.9, 10, 250].forEach((l, j) => chi2Ok(chi2(column(d, 4, j), poissonPmf(l), 0, 400)));
  });
  it('binomial([5, 20, 1000, 40], [0.3, 0.5, 0.9, 0.2]): inversion, BTRS, flipped BTRS, inversion', async () => {
    const n = [5, 20, 1000, 40], p = [0.3, 0.5, 0.9, 0.2];
    const d = await values(g().binomial(n, p, [R, 4]));
    n.forEach((nj, j) => chi2Ok(chi2(column(d, 4, j), binomPmf(nj, p[j]!), 0, nj)));
  });
  it('binomial of a column of n against a row of p broadcasts to [2, 3]; p = 0 and p = 1 are exact', async () => {
    const t = g().binomial([[10], [0]], [0, 0.5, 1]);
    expect(t.shape).toEqual([2, 3]);
    const d = await values(t);
    expect([d[0], d[2], d[3], d[4], d[5]]).toEqual([0, 10, 0, 0, 0]);
  });
  it('gamma([0.5, 2.5], [1, 3]) and normal([0, 10], [1, 2]): KS per column', async () => {
    const d = await values(g().gamma([0.5, 2.5], [1, 3], [R, 2]));
    expect(ks(column(d, 2, 0), (x) => gammaP(0.5, x))).toBeLessThan(2);
    expect(ks(column(d, 2, 1), (x) => gammaP(2.5, x / 3))).toBeLessThan(2);
    const z = await values(g().normal([0, 10], [1, 2], [R, 2]));
    expect(ks(column(z, 2, 0), phi)).toBeLessThan(2);
    expect(ks(column(z, 2, 1), (x) => phi((x - 10) / 2))).toBeLessThan(2);
    expect(ks(column(z, 2, 1), (x) => phi((x - 10.05) / 2))).toBeGreaterThan(2);
  });
  it('uniform(low array, high) and the other location/scale laws take arrays', async () => {
    const u = await values(g().uniform([0, -5], 1, [R, 2]));
    expect(ks(column(u, 2, 0), (x) => Math.min(1, Math.max(0, x)))).toBeLessThan(2);
    expect(ks(column(u, 2, 1), (x) => Math.min(1, Math.max(0, (x + 5) / 6)))).toBeLessThan(2);
    const b = await values(g().beta([2, 0.5], [5, 0.7], [R, 2]));
    expect(ks(column(b, 2, 0), (x) => betaI(x, 2, 5))).toBeLessThan(2);
    expect(ks(column(b, 2, 1), (x) => betaI(x, 0.5, 0.7))).toBeLessThan(2);
    const w = await values(g().weibull([0, 1.7], [R, 2]));
    expect(column(w, 2, 0).every((x) => x === 0)).toBe(true);
    expect(ks(column(w, 2, 1), (x) => 1 - Math.exp(-(x ** 1.7)))).toBeLessThan(2);
  });
});

describe('negative_binomial, multinomial, vonmises, logseries', () => {
  const g = () => mt.random.default_rng(57);
  const nbPmf = (n: number, p: number) => (k: number): number => (k < 0 ? 0 : Math.exp(lgamma(k + n) - lgamma(n) - lgamma(k + 1) + n * Math.log(p) + k * Math.log1p(-p)));
  it('negative_binomial(3, 0.4) and (0.7, 0.05): chi-square against the pmf', async () => {
    chi2Ok(chi2(await values(g().negative_binomial(3, 0.4, N)), nbPmf(3, 0.4), 0, 100));
    chi2Ok(chi2(await values(g().negative_binomial(0.7, 0.05, N)), nbPmf(0.7, 0.05), 0, 400));
    const [stat, df] = chi2(await values(g().negative_binomial(3, 0.4, N)), nbPmf(3, 0.41), 0, 100);
    expect(stat).toBeGreaterThan(df + 6 * Math.sqrt(2 * df));
  });
  it('negative_binomial with array parameters: per column', async () => {
    const d = await values(g().negative_binomial([2, 50], [0.5, 0.3], [N / 4, 2]));
    chi2Ok(chi2(column(d, 2, 0), nbPmf(2, 0.5), 0, 100));
    chi2Ok(chi2(column(d, 2, 1), nbPmf(50, 0.3), 0, 400));
  });
  it('multinomial(30, [0.2, 0.5, 0.3]): rows sum to n, each count Binomial(n, p_i)', async () => {
    const pv = [0.2, 0.5, 0.3];
    const t = g().multinomial(30, pv, N / 4);
    expect(t.shape).toEqual([N / 4, 3]);
    expect(t.dtype).toBe('int64');
    const d = await values(t);
    for (let i = 0; i < N / 4; i++) expect(d[3 * i]! + d[3 * i + 1]! + d[3 * i + 2]!).toBe(30);
    pv.forEach((p, j) => chi2Ok(chi2(column(d, 3, j), binomPmf(30, p), 0, 30)));
  });
  it('multinomial with an array n: shape n.shape + [k], rows sum to their n', async () => {
    const t = g().multinomial([[5], [400]], [0.1, 0.9]);
    expect(t.shape).toEqual([2, 1, 2]);
    const d = await values(g().multinomial([5, 400], [0.1, 0.6, 0.3], [N / 4, 2]));
    for (let i = 0; i < N / 4; i++) {
      expect(d[6 * i]! + d[6 * i + 1]! + d[6 * i + 2]!).toBe(5);
      expect(d[6 * i + 3]! + d[6 * i + 4]! + d[6 * i + 5]!).toBe(400);
    }
    chi2Ok(chi2(column(d, 6, 4), binomPmf(400, 0.6), 0, 400));
    chi2Ok(chi2(column(d, 6, 2), binomPmf(5, 0.3), 0, 5));
  });
  it('vonmises: KS against the cdf for kappa 0.3, 2 and 40, and per column of an array kappa', async () => {
    for (const [mu, kappa] of [[0.5, 0.3], [-2, 2], [3, 40]] as const) {
      expect(ks(await values(g().vonmises(mu, kappa, N)), vonmisesCdf(mu, kappa))).toBeLessThan(2);
    }
    expect(ks(await values(g().vonmises(-2, 2, N)), vonmisesCdf(-2, 2.1))).toBeGreaterThan(2);
    const d = await values(g().vonmises([0, 1], [1e-9, 5], [N / 4, 2]));
    expect(ks(column(d, 2, 0), (x) => (x + Math.PI) / (2 * Math.PI))).toBeLessThan(2);
    expect(ks(column(d, 2, 1), vonmisesCdf(1, 5))).toBeLessThan(2);
    expect(d.every((x) => x >= -Math.PI && x <= Math.PI)).toBe(true);
  });
  const hyperPmf = (G: number, B: number, n: number) => (k: number): number => (k < 0 || k > G || n - k < 0 || n - k > B ? 0
    : Math.exp(lgamma(G + 1) - lgamma(k + 1) - lgamma(G - k + 1) + lgamma(B + 1) - lgamma(n - k + 1) - lgamma(B - n + k + 1) - lgamma(G + B + 1) + lgamma(n + 1) + lgamma(G + B - n + 1)));
  it('hypergeometric: inversion, HRUA at its worst rejection rate, HRUA reduced by colour and complement', async () => {
    for (const [G, B, n] of [[5, 20, 8], [20, 20, 20], [300, 700, 400], [1000, 10, 990], [10, 1e6, 5e5]] as const) {
      chi2Ok(chi2(await values(g().hypergeometric(G, B, n, N)), hyperPmf(G, B, n), 0, Math.min(G, n)));
    }
    const [stat, df] = chi2(await values(g().hypergeometric(300, 700, 400, N)), hyperPmf(303, 697, 400), 0, 300);
    expect(stat).toBeGreaterThan(df + 6 * Math.sqrt(2 * df));
  });
  it('hypergeometric with array parameters: per column', async () => {
    const G = [5, 20, 1000, 0], B = [20, 20, 10, 7], n = [8, 20, 990, 3];
    const d = await values(g().hypergeometric(G, B, n, [N / 4, 4]));
    for (let j = 0; j < 3; j++) chi2Ok(chi2(column(d, 4, j), hyperPmf(G[j]!, B[j]!, n[j]!), 0, Math.min(G[j]!, n[j]!)));
    expect(column(d, 4, 3).every((x) => x === 0)).toBe(true);
  });
  it('logseries(0.6) and (0.99): chi-square against the pmf', async () => {
    const pmf = (p: number) => (k: number): number => (k < 1 ? 0 : -(p ** k) / (k * Math.log1p(-p)));
    chi2Ok(chi2(await values(g().logseries(0.6, N)), pmf(0.6), 0, 100));
    chi2Ok(chi2(await values(g().logseries(0.99, N)), pmf(0.99), 0, 5000));
  });
});

describe('the generator promise for array parameters and the added laws', () => {
  const col = (n: number): number[] => Array.from({ length: n }, (_, i) => [0.3, 4, 9.99, 10, 70][i % 5]!);
  const programs: [string, (g: mt.Generator, chunkSize?: number) => mt.Tensor][] = [
    ['poisson(lam array)', (g, c) => g.poisson(mt.tensor(col(900), c ? { chunkSize: c } : {}), c ? { chunkSize: c } : {})],
    ['binomial(n array, p array)', (g, c) => g.binomial([3, 30, 1000], [0.2, 0.5, 0.95], [300, 3], c ? { chunkSize: c } : {})],
    ['gamma(shape array)', (g, c) => g.gamma([0.3, 1, 7], 2, [300, 3], c ? { chunkSize: c } : {})],
    ['negative_binomial', (g, c) => g.negative_binomial([1.5, 20], 0.3, [450, 2], c ? { chunkSize: c } : {})],
    ['multinomial', (g, c) => g.multinomial([7, 300], [0.2, 0.3, 0.5], [450, 2], c ? { chunkSize: c } : {})],
    ['vonmises', (g, c) => g.vonmises(1, [0, 0.5, 30], [300, 3], c ? { chunkSize: c } : {})],
    ['logseries', (g, c) => g.logseries(0.9, [900], c ? { chunkSize: c } : {})],
    ['hypergeometric', (g, c) => g.hypergeometric([5, 300], [20, 700], [8, 400], [450, 2], c ? { chunkSize: c } : {})],
  ];
  sameForAnyChunking(programs);
});

describe('NumPy errors for array parameters and the added laws', () => {
  const g = mt.random.default_rng(1);
  const cases: [() => unknown, RegExp][] = [
    [() => g.normal([0, 1], [1, 2, 3]), /^shape mismatch: objects cannot be broadcast to a single shape/],
    [() => g.normal([0, 1], 1, [3]), /^shape mismatch/],
    [() => g.poisson([[1, 2]], [2]), /^shape mismatch/],
    [() => g.poisson([1, -1]), /^lam < 0 or lam is NaN$/],
    [() => g.poisson([1, NaN]), /^lam < 0 or lam is NaN$/],
    [() => g.poisson([1, 1e19]), /^lam value too large$/],
    [() => g.normal(0, [1, -1]), /^scale < 0$/],
    [() => g.binomial([3, -1], 0.5), /^n < 0$/],
    [() => g.binomial(3, [0.5, 1.5]), /^p < 0, p > 1 or p is NaN$/],
    [() => g.binomial([2.5], 0.5), /'n' must hold integers/],
    [() => g.gamma([1, -1]), /^shape < 0$/],
    [() => g.negative_binomial(0, 0.5), /^n <= 0$/],
    [() => g.negative_binomial(NaN, 0.5), /^n must not be NaN$/],
    [() => g.negative_binomial(3, [0.5, 0]), /^p <= 0, p > 1 or p contains NaNs$/],
    [() => g.multinomial(-1, [0.5, 0.5]), /^n < 0$/],
    [() => g.multinomial(3, [0.7, 0.7, 0]), /^sum\(pvals\[:-1\]\) > 1\.0/],
    [() => g.multinomial(3, [-0.1, 1.1]), /^pvals < 0, pvals > 1 or pvals is NaN$/],
    [() => g.multinomial(3, [[0.5, 0.5]]), /pvals must be a 1-d sequence/],
    [() => g.vonmises(0, -1), /^kappa < 0$/],
    [() => g.hypergeometric(-1, 5, 2), /^ngood < 0$/],
    [() => g.hypergeometric(3, [5, -5], 2), /^nbad < 0$/],
    [() => g.hypergeometric(3, 5, 9), /^ngood \+ nbad < nsample$/],
    [() => g.hypergeometric([3, 3], 5, [2, 9]), /^ngood \+ nbad < nsample$/],
    [() => g.hypergeometric(2e9, 5, 2), /^both ngood and nbad must be less than 1000000000$/],
    [() => g.logseries(1), /^p < 0, p >= 1 or p is NaN$/],
    [() => g.triangular(0, [1, 4], 3), /^mode > right$/],
  ];
  for (const [f, re] of cases) it(`${re.source}`, async () => {
    // JS data is checked at the call; the triangular order of arrays when the run reaches it.
    let err: unknown;
    try { const t = f(); if (t instanceof mt.Tensor) await t.fetch(); } catch (e) { err = e; }
    expect(err).toBeInstanceOf(Error);
    expect(String((err as Error).message)).toMatch(re);
  });
  it('a lazy tensor parameter is checked when the run reaches it (RangeError)', async () => {
    const lam = mt.subtract(mt.tensor([1, 2, 3]), 2);
    const t = g.poisson(lam);
    expect(t.shape).toEqual([3]);
    await expect(t.fetch()).rejects.toThrow(/^lam < 0 or lam is NaN$/);
    await expect(g.binomial(mt.tensor([3, 4]), mt.add(mt.tensor([0.5, 0.6]), 0.5)).fetch()).rejects.toThrow(RangeError);
  });
});

// --- wald, zipf, noncentral laws, standard_cauchy, permuted, multivariate_hypergeometric, spawn ---

/** Poisson(lam) weights for the mixtures below, from j = 0 until the tail is negligible. */
function poissonWeights(lam: number): number[] {
  const w: number[] = [];
  for (let j = 0; j < 1000 && (j < lam + 10 || w[j - 1]! > 1e-17); j++) w.push(Math.exp(-lam + j * Math.log(lam || 1) - lgamma(j + 1)) * (lam === 0 && j > 0 ? 0 : 1));
  return w;
}
/** The inverse Gaussian cdf of mean mu and shape lambda. */
const waldCdf = (mu: number, lam: number) => (x: number): number => (x <= 0 ? 0
  : phi(Math.sqrt(lam / x) * (x / mu - 1)) + Math.exp((2 * lam) / mu) * phi(-Math.sqrt(lam / x) * (x / mu + 1)));
/** Noncentral chi-square cdf: a Poisson(nonc / 2) mixture of central ones of df + 2j degrees. */
const ncx2Cdf = (df: number, nonc: number) => { const w = poissonWeights(nonc / 2); return (x: number): number => w.reduce((a, wj, j) => a + wj * gammaP(df / 2 + j, x / 2), 0); };
/** Noncentral F cdf: a Poisson(nonc / 2) mixture of regularized incomplete betas. */
const ncfCdf = (d1: number, d2: number, nonc: number) => {
  const w = poissonWeights(nonc / 2);
  return (x: number): number => (x <= 0 ? 0 : w.reduce((a, wj, j) => a + wj * betaI((d1 * x) / (d1 * x + d2), d1 / 2 + j, d2 / 2), 0));
};
/** Sum of k^-a over 1 <= k < 2^63 (Zipf's law as NumPy truncates it), by Euler–Maclaurin past k = 1000. */
function zetaTrunc(a: number): number {
  const M = 1000, N = 2 ** 63;
  let s = 0;
  for (let k = 1; k < M; k++) s += k ** -a;
  const integral = (M ** (1 - a) * -Math.expm1((1 - a) * Math.log(N / M))) / (a - 1);
  return s + integral + (M ** -a - N ** -a) / 2 + (a * (M ** (-a - 1) - N ** (-a - 1))) / 12;
}
const zipfPmf = (a: number) => { const z = zetaTrunc(a); return (k: number): number => (k < 1 ? 0 : k ** -a / z); };
/** Sample mean and variance. */
function moments(d: readonly number[]): [number, number] {
  const m = d.reduce((a, b) => a + b, 0) / d.length;
  return [m, d.reduce((a, b) => a + (b - m) ** 2, 0) / d.length];
}
/** Mean and variance within 5 standard errors of (mu, s2), the variance's error from the excess kurtosis. */
function momentsOk(d: readonly number[], mu: number, s2: number, excess: number): void {
  const [m, v] = moments(d), n = d.length;
  expect(Math.abs(m - mu) / Math.sqrt(s2 / n)).toBeLessThan(5);
  expect(Math.abs(v - s2) / (s2 * Math.sqrt((2 + excess) / n))).toBeLessThan(5);
}
const hypergeomPmf = (G: number, B: number, n: number) => (k: number): number => (k < 0 || k > G || n - k < 0 || n - k > B ? 0
  : Math.exp(lgamma(G + 1) - lgamma(k + 1) - lgamma(G - k + 1) + lgamma(B + 1) - lgamma(n - k + 1) - lgamma(B - n + k + 1) - lgamma(G + B + 1) + lgamma(n + 1) + lgamma(G + B - n + 1)));

describe('wald, noncentral_chisquare, noncentral_f, standard_cauchy: closed forms', () => {
  const g = () => mt.random.default_rng(8080);
  it('the reference cdfs are right (zeta(2) = pi^2/6, ncx2 with nonc 0 is chi2, IG integrates)', () => {
    expect(zetaTrunc(2)).toBeCloseTo(Math.PI ** 2 / 6, 12);
    expect(ncx2Cdf(3, 0)(2.5)).toBeCloseTo(gammaP(1.5, 1.25), 12);
    expect(waldCdf(2, 3)(1e4)).toBeCloseTo(1, 10);
  });
  it('wald(2, 3): mean mu, variance mu^3/lambda, KS against the inverse Gaussian cdf', async () => {
    const t = g().wald(2, 3, N);
    expect(t.dtype).toBe('float64');
    expect(t.shape).toEqual([N]);
    const d = await values(t);
    momentsOk(d, 2, 8 / 3, 15 * 2 / 3);
    expect(ks(d, waldCdf(2, 3))).toBeLessThan(2);
    expect(ks(d, waldCdf(2, 3.15))).toBeGreaterThan(2);
  });
  it('wald(10, 0.5) (Y >> scale, where NumPy\'s form of the root cancels): KS; wald(1e6, 1e-6) stays positive', async () => {
    expect(ks(await values(g().wald(10, 0.5, N)), waldCdf(10, 0.5))).toBeLessThan(2);
    const e = await values(g().wald(1e6, 1e-6, 10_000));
    expect(e.every((x) => x > 0 && Number.isFinite(x))).toBe(true);
  });
  it('wald with array parameters broadcasts ([2] against [2, 1]) and each column follows its law', async () => {
    expect(g().wald([1, 2], [[1], [3]]).shape).toEqual([2, 2]);
    const d = await values(g().wald([0.5, 4], [2, 1], [N / 4, 2]));
    expect(ks(column(d, 2, 0), waldCdf(0.5, 2))).toBeLessThan(2);
    expect(ks(column(d, 2, 1), waldCdf(4, 1))).toBeLessThan(2);
  });
  const ncx2Moments = (d: number[], df: number, nonc: number): void => {
    const k2 = 2 * (df + 2 * nonc), k4 = 48 * (df + 4 * nonc);
    momentsOk(d, df + nonc, k2, k4 / (k2 * k2));
  };
  it('noncentral_chisquare(3, 2) (df > 1: chi2(df - 1) + (N + sqrt(nonc))^2): mean df + nonc, variance 2(df + 2 nonc), KS', async () => {
    const d = await values(g().noncentral_chisquare(3, 2, N));
    ncx2Moments(d, 3, 2);
    expect(ks(d, ncx2Cdf(3, 2))).toBeLessThan(2);
    expect(ks(d, ncx2Cdf(3, 2.1))).toBeGreaterThan(2);
  });
  it('noncentral_chisquare(0.5, 1.5) (df <= 1: the Poisson mixture) and (4, 0) (central): moments and KS', async () => {
    const d = await values(g().noncentral_chisquare(0.5, 1.5, N));
    ncx2Moments(d, 0.5, 1.5);
    expect(ks(d, ncx2Cdf(0.5, 1.5))).toBeLessThan(2);
    const z = await values(g().noncentral_chisquare(4, 0, N));
    ncx2Moments(z, 4, 0);
    expect(ks(z, (x) => gammaP(2, x / 2))).toBeLessThan(2);
  });
  it('noncentral_chisquare with array parameters takes both branches per element; a NaN nonc gives NaN', async () => {
    const d = await values(g().noncentral_chisquare([0.5, 3, 1], [1.5, 2, 40], [N / 4, 3]));
    expect(ks(column(d, 3, 0), ncx2Cdf(0.5, 1.5))).toBeLessThan(2);
    expect(ks(column(d, 3, 1), ncx2Cdf(3, 2))).toBeLessThan(2);
    expect(ks(column(d, 3, 2), ncx2Cdf(1, 40))).toBeLessThan(2);
    expect((await values(g().noncentral_chisquare(3, NaN, 4))).every(Number.isNaN)).toBe(true);
    const n = await values(g().noncentral_chisquare(3, [1, NaN], [5, 2]));
    expect(column(n, 2, 1).every(Number.isNaN)).toBe(true);
    expect(column(n, 2, 0).every((x) => x > 0)).toBe(true);
  });
  it('noncentral_f(3, 20, 2): mean dfden (dfnum + nonc) / (dfnum (dfden - 2)), KS; array nonc per column', async () => {
    const [d1, d2, nc] = [3, 20, 2];
    const d = await values(g().noncentral_f(d1, d2, nc, N));
    const mean = (d2 * (d1 + nc)) / (d1 * (d2 - 2));
    const v = (2 * (d2 / d1) ** 2 * ((d1 + nc) ** 2 + (d1 + 2 * nc) * (d2 - 2))) / ((d2 - 2) ** 2 * (d2 - 4));
    const [m, s2] = moments(d);
    expect(Math.abs(m - mean) / Math.sqrt(v / N)).toBeLessThan(5);
    expect(Math.abs(s2 / v - 1)).toBeLessThan(0.1);
    expect(ks(d, ncfCdf(d1, d2, nc))).toBeLessThan(2);
    expect(ks(d, ncfCdf(d1, d2, nc + 0.2))).toBeGreaterThan(2);
    const a = await values(g().noncentral_f([0.7, 5], 9, [3, 0.5], [N / 4, 2]));
    expect(ks(column(a, 2, 0), ncfCdf(0.7, 9, 3))).toBeLessThan(2);
    expect(ks(column(a, 2, 1), ncfCdf(5, 9, 0.5))).toBeLessThan(2);
  });
  it('standard_cauchy: median 0 and quartiles -1 and 1 within 5 standard errors; KS against 1/2 + atan(x)/pi', async () => {
    const t = g().standard_cauchy([N / 2, 2]);
    expect(t.shape).toEqual([N / 2, 2]);
    expect(t.dtype).toBe('float64');
    const d = await values(t);
    const s = Float64Array.from(d).sort(), q = (p: number): number => s[Math.floor(p * N)]!;
    const f = (x: number): number => 1 / (Math.PI * (1 + x * x));
    expect(Math.abs(q(0.5)) / (0.5 / (f(0) * Math.sqrt(N)))).toBeLessThan(5);
    for (const [p, x] of [[0.25, -1], [0.75, 1]] as const) expect(Math.abs(q(p) - x) / (Math.sqrt(p * (1 - p)) / (f(x) * Math.sqrt(N)))).toBeLessThan(5);
    expect(ks(d, (x) => 0.5 + Math.atan(x) / Math.PI)).toBeLessThan(2);
    expect(ks(d, (x) => 0.5 + Math.atan(x / 1.05) / Math.PI)).toBeGreaterThan(2);
  });
});

describe('zipf: chi-square against k^-a / zeta(a)', () => {
  const g = () => mt.random.default_rng(4242);
  for (const a of [2, 3.5, 1.3, 1.015]) {
    it(`zipf(${a})${a === 1.015 ? ' (the worst rejection rate, truncated below 2^63)' : ''}: int64, chi-square`, async () => {
      const t = g().zipf(a, N);
      expect(t.dtype).toBe('int64');
      expect(t.shape).toEqual([N]);
      const d = await values(t);
      expect(d.every((k) => k >= 1)).toBe(true);
      chi2Ok(chi2(d, zipfPmf(a), 1, 5000));
    });
  }
  it('detects a wrong law (the test can fail): zipf(2) against the pmf of a = 2.03', async () => {
    const [stat, df] = chi2(await values(g().zipf(2, N)), zipfPmf(2.03), 1, 5000);
    expect(stat).toBeGreaterThan(df + 6 * Math.sqrt(2 * df));
  });
  it('zipf with an array a: per column; a >= 1025 gives 1, as NumPy', async () => {
    const d = await values(g().zipf([1.5, 4, 2000], [N / 4, 3]));
    chi2Ok(chi2(column(d, 3, 0), zipfPmf(1.5), 1, 5000));
    chi2Ok(chi2(column(d, 3, 1), zipfPmf(4), 1, 5000));
    expect(column(d, 3, 2).every((x) => x === 1)).toBe(true);
    expect((await values(g().zipf(1e4, 5))).every((x) => x === 1)).toBe(true);
  });
});

describe('permuted', () => {
  const g = () => mt.random.default_rng(99);
  it('axis=1: each row a permutation of its own row, rows shuffled independently (uniform over the 24 orders, and rows differ)', async () => {
    const R = 24_000;
    const x = mt.add(mt.multiply(mt.arange(R).reshape([R, 1]), 10), mt.arange(4));
    const t = g().permuted(x, { axis: 1 });
    expect(t.shape).toEqual([R, 4]);
    expect(t.dtype).toBe(x.dtype);
    const d = await values(t);
    const orders = new Map<string, number>();
    let same = 0;
    let prev = '';
    for (let r = 0; r < R; r++) {
      const row = d.slice(4 * r, 4 * r + 4);
      expect([...row].sort((p, q) => p - q)).toEqual([0, 1, 2, 3].map((j) => 10 * r + j));
      const key = row.map((v) => v - 10 * r).join('');
      orders.set(key, (orders.get(key) ?? 0) + 1);
      if (key === prev) same++;
      prev = key;
    }
    expect(orders.size).toBe(24);
    let stat = 0;
    for (const c of orders.values()) stat += (c - R / 24) ** 2 / (R / 24);
    expect(stat).toBeLessThan(23 + 6 * Math.sqrt(46));
    // consecutive rows agree with probability 1/24 when independent (1 for permutation's shared order)
    expect(Math.abs(same - (R - 1) / 24) / Math.sqrt(((R - 1) * (1 / 24) * (23 / 24)))).toBeLessThan(5);
  });
  it('axis=0 shuffles each column on its own; axis=None the flattened array (shape kept); permutation moves whole rows', async () => {
    const x = mt.arange(60).reshape([10, 6]);
    const c = await values(g().permuted(x, { axis: 0 }));
    for (let j = 0; j < 6; j++) expect(column(c, 6, j).sort((p, q) => p - q)).toEqual(Array.from({ length: 10 }, (_, i) => 6 * i + j));
    const f = g().permuted(x);
    expect(f.shape).toEqual([10, 6]);
    const fv = await values(f);
    expect([...fv].sort((p, q) => p - q)).toEqual(Array.from({ length: 60 }, (_, i) => i));
    expect(fv.some((v, i) => Math.floor(v / 6) !== Math.floor(i / 6))).toBe(true);
    const p = await values(g().permutation(x, { axis: 1 }));
    for (let r = 1; r < 10; r++) expect(p.slice(6 * r, 6 * r + 6).map((v) => v - 6 * r)).toEqual(p.slice(0, 6));
    expect(await values(g().permuted([[5, 6, 7]], { axis: -1 }))).not.toEqual([5, 6, 7].map(Number));
  });
});

describe('multivariate_hypergeometric', () => {
  const g = () => mt.random.default_rng(2718);
  for (const method of ['marginals', 'count'] as const) {
    it(`${method}: rows sum to nsample, each column hypergeometric (6 of 28, 20 of 28 drawn as its complement, 400 of 1000 by HRUA)`, async () => {
      for (const [colors, ns, n] of [[[16, 8, 4], 6, N / 4], [[16, 8, 4], 20, N / 4], [[300, 200, 500], 400, N / 20]] as const) {
        const t = g().multivariate_hypergeometric(colors, ns, n, { method });
        expect(t.shape).toEqual([n, 3]);
        expect(t.dtype).toBe('int64');
        const d = await values(t);
        for (let i = 0; i < n; i++) expect(d[3 * i]! + d[3 * i + 1]! + d[3 * i + 2]!).toBe(ns);
        const total = colors[0] + colors[1] + colors[2];
        colors.forEach((cj, j) => chi2Ok(chi2(column(d, 3, j), hypergeomPmf(cj, total - cj, ns), 0, ns)));
      }
    });
    it(`${method}: the joint law of colors [2, 1, 1], nsample 2 (chi-square over the four outcomes)`, async () => {
      const d = await values(g().multivariate_hypergeometric([2, 1, 1], 2, 30_000, { method }));
      const p: Record<string, number> = { '2,0,0': 1 / 6, '1,1,0': 2 / 6, '1,0,1': 2 / 6, '0,1,1': 1 / 6 };
      const counts = new Map<string, number>();
      for (let i = 0; i < 30_000; i++) { const k = d.slice(3 * i, 3 * i + 3).join(','); counts.set(k, (counts.get(k) ?? 0) + 1); }
      expect([...counts.keys()].every((k) => k in p)).toBe(true);
      let stat = 0;
      for (const [k, pk] of Object.entries(p)) stat += ((counts.get(k) ?? 0) - 30_000 * pk) ** 2 / (30_000 * pk);
      expect(stat).toBeLessThan(3 + 6 * Math.sqrt(6));
    });
  }
  it('shapes as NumPy: size None gives [k], an integer [size, k], a tuple size + [k]; empty colors and nsample 0 give zeros', async () => {
    const h = g();
    expect(h.multivariate_hypergeometric([16, 8, 4], 6).shape).toEqual([3]);
    expect(h.multivariate_hypergeometric([16, 8, 4], 6, 5).shape).toEqual([5, 3]);
    expect(h.multivariate_hypergeometric([16, 8, 4], 6, [2, 2], 'count').shape).toEqual([2, 2, 3]);
    expect(h.multivariate_hypergeometric([], 0, 4).shape).toEqual([4, 0]);
    expect(await values(h.multivariate_hypergeometric([3, 4], 0, 2))).toEqual([0, 0, 0, 0]);
    expect(await values(h.multivariate_hypergeometric([3, 0, 4], 7, 2))).toEqual([3, 0, 4, 3, 0, 4]);
    expect(await values(h.multivariate_hypergeometric(mt.tensor([5, 5], 'int32'), 10))).toEqual([5, 5]);
  });
});

describe('spawn', () => {
  it('children are deterministic given the seed and earlier spawns, differ from each other and the parent, and ignore the parent\'s draws', async () => {
    const draw = (h: mt.Generator) => values(h.random(64));
    const a = mt.random.default_rng(7).spawn(3);
    expect(a).toHaveLength(3);
    const b = mt.random.default_rng(7);
    await draw(b);
    const bk = b.spawn(3);
    const av = await Promise.all(a.map(draw)), bv = await Promise.all(bk.map(draw));
    expect(bv).toEqual(av);
    expect(new Set(av.map((v) => v.join())).size).toBe(3);
    expect(await draw(mt.random.default_rng(7))).not.toEqual(av[0]);
    const c = mt.random.default_rng(7);
    c.spawn(1);
    const later = c.spawn(2);
    expect(await draw(later[0]!)).toEqual(av[1]);
    expect(await draw(later[1]!)).toEqual(av[2]);
    expect(await draw(mt.random.default_rng(8).spawn(1)[0]!)).not.toEqual(av[0]);
    const g1 = await draw(mt.random.default_rng(7).spawn(1)[0]!.spawn(1)[0]!), g2 = await draw(mt.random.default_rng(7).spawn(1)[0]!.spawn(1)[0]!);
    expect(g1).toEqual(g2);
    expect(g1).not.toEqual(av[0]);
    expect(mt.random.default_rng(7).spawn(0)).toEqual([]);
  });
  it('children\'s streams are uncorrelated with each other and with the parent\'s (within 5 standard errors)', async () => {
    const p = mt.random.default_rng(11);
    const [c1, c2] = p.spawn(2);
    const [x, y, z] = await Promise.all([values(p.standard_normal(N)), values(c1!.standard_normal(N)), values(c2!.standard_normal(N))]);
    const corr = (u: number[], v: number[]): number => u.reduce((a, ui, i) => a + ui * v[i]!, 0) / N;
    for (const r of [corr(x, y), corr(x, z), corr(y, z)]) expect(Math.abs(r) * Math.sqrt(N)).toBeLessThan(5);
  });
});

/** Each program's draws: identical for chunkSize 1, 7 and the default, for 1 and 3 workers, and different for another seed. */
function sameForChunksAndWorkers(programs: readonly [string, (g: mt.Generator, chunkSize?: number) => mt.Tensor][]): void {
  for (const [name, make] of programs) {
    it(`${name}: identical for chunkSize 1, 7 and default, workers 1 and 3, and per seed`, async () => {
      const ref = await values(make(mt.random.default_rng(42)));
      expect(ref.every((v) => Number.isFinite(v))).toBe(true);
      for (const chunk of [1, 7, undefined]) {
        for (const workers of [1, 3]) {
          const got = Array.from((await make(mt.random.default_rng(42), chunk).fetch({ workers })).data as ArrayLike<number | bigint>, Number);
          expect(got).toEqual(ref);
        }
      }
      expect(await values(make(mt.random.default_rng(43)))).not.toEqual(ref);
    });
  }
}

describe('the generator promise for wald, zipf, the noncentral laws, standard_cauchy, permuted, multivariate_hypergeometric, spawn', () => {
  const cs = (c?: number) => (c ? { chunkSize: c } : {});
  const programs: [string, (g: mt.Generator, chunkSize?: number) => mt.Tensor][] = [
    ['wald', (g, c) => g.wald([0.5, 2, 30], 1.5, [20, 3], cs(c))],
    ['zipf', (g, c) => g.zipf(1.3, [60], cs(c))],
    ['zipf(a array)', (g, c) => g.zipf([1.015, 2.5, 3000], [20, 3], cs(c))],
    ['noncentral_chisquare', (g, c) => g.noncentral_chisquare(3, 2, [60], cs(c))],
    ['noncentral_chisquare (Poisson mixture)', (g, c) => g.noncentral_chisquare(0.5, 4, [60], cs(c))],
    ['noncentral_chisquare(df array)', (g, c) => g.noncentral_chisquare([0.5, 3], [1, 25], [30, 2], cs(c))],
    ['noncentral_f', (g, c) => g.noncentral_f(3, [5, 20], 1.5, [30, 2], cs(c))],
    ['standard_cauchy', (g, c) => g.standard_cauchy([20, 3], cs(c))],
    ['permuted(axis=1)', (g, c) => g.permuted(mt.arange(60, cs(c)).reshape([10, 6]), { axis: 1, ...cs(c) })],
    ['permuted(axis=None)', (g, c) => g.permuted(mt.arange(60, cs(c)).reshape([6, 10]), cs(c))],
    ['multivariate_hypergeometric marginals', (g, c) => g.multivariate_hypergeometric([16, 8, 30, 4], 25, [20], { ...cs(c) })],
    ['multivariate_hypergeometric count', (g, c) => g.multivariate_hypergeometric([16, 8, 30, 4], 25, [20], { method: 'count', ...cs(c) })],
    ['a spawned child', (g, c) => g.spawn(2)[1]!.gamma(0.8, 2, [60], cs(c))],
  ];
  sameForChunksAndWorkers(programs);
  it('legacy functions draw them from the seeded global generator', async () => {
    mt.random.seed(12);
    const a = await values(mt.random.wald(1, 2, 20)), b = await values(mt.random.zipf(2, 20)), c = await values(mt.random.noncentral_f(2, 5, 1, 20));
    mt.random.seed(12);
    expect(await values(mt.random.wald(1, 2, 20))).toEqual(a);
    expect(await values(mt.random.zipf(2, 20))).toEqual(b);
    expect(await values(mt.random.noncentral_f(2, 5, 1, 20))).toEqual(c);
    expect(mt.random.standard_cauchy(3).shape).toEqual([3]);
    expect(mt.random.noncentral_chisquare(3, 1, 4).shape).toEqual([4]);
    expect('permuted' in mt.random).toBe(false);
  });
});

describe('NumPy errors for wald, zipf, the noncentral laws, standard_cauchy, permuted, multivariate_hypergeometric, spawn', () => {
  const g = mt.random.default_rng(1);
  const cases: [() => unknown, RegExp, ErrorConstructor][] = [
    [() => g.wald(0, 1), /^mean <= 0$/, RangeError],
    [() => g.wald(1, -2), /^scale <= 0$/, RangeError],
    [() => g.wald([1, -1], 1), /^mean <= 0$/, RangeError],
    [() => g.wald(1, [1, 0]), /^scale <= 0$/, RangeError],
    [() => g.wald([1, 2], 1, [3]), /^shape mismatch/, RangeError],
    [() => g.wald(1), /missing required argument 'scale'/, TypeError],
    [() => g.zipf(1), /^a <= 1 or a is NaN$/, RangeError],
    [() => g.zipf(NaN), /^a <= 1 or a is NaN$/, RangeError],
    [() => g.zipf([2, 0.5]), /^a <= 1 or a contains NaNs$/, RangeError],
    [() => g.zipf(2, 3, { dtype: 'int32' }), /unexpected keyword argument 'dtype'/, TypeError],
    [() => g.noncentral_chisquare(0, 1), /^df <= 0$/, RangeError],
    [() => g.noncentral_chisquare(1, -1), /^nonc < 0$/, RangeError],
    [() => g.noncentral_chisquare(1, -0), /^nonc < 0$/, RangeError],
    [() => g.noncentral_chisquare(1, [1, -0.5]), /^nonc < 0$/, RangeError],
    [() => g.noncentral_f(0, 1, 1), /^dfnum <= 0$/, RangeError],
    [() => g.noncentral_f(1, 0, 1), /^dfden <= 0$/, RangeError],
    [() => g.noncentral_f(1, 1, -1), /^nonc < 0$/, RangeError],
    [() => g.standard_cauchy(3, { dtype: 'float32' }), /unexpected keyword argument 'dtype'/, TypeError],
    [() => g.permuted(mt.arange(6).reshape([2, 3]), { axis: 2 }), /^axis 2 is out of bounds for array of dimension 2$/, RangeError],
    [() => g.permuted(mt.tensor(5)), /len\(\) of unsized object/, TypeError],
    [() => g.permuted([1, 2, 3], 0), /takes at most 0 arguments/, TypeError],
    [() => g.permuted([1, 2, 3], { out: mt.zeros([3]) }), /out= is not supported/, TypeError],
    [() => g.multivariate_hypergeometric([3, 4], 2, null, 'all'), /^method must be "count" or "marginals"\.$/, RangeError],
    [() => g.multivariate_hypergeometric([3, 4], 2.5), /^nsample must be an integer$/, RangeError],
    [() => g.multivariate_hypergeometric([3, 4], -1), /^nsample must be nonnegative\.$/, RangeError],
    [() => g.multivariate_hypergeometric([3, 4], 8), /^nsample > sum\(colors\)$/, RangeError],
    [() => g.multivariate_hypergeometric([[3, 4]], 2), /^colors must be a one-dimensional sequence of nonnegative integers not exceeding 9223372036854775807\.$/, RangeError],
    [() => g.multivariate_hypergeometric([3, -4], 2), /^colors must be a one-dimensional sequence/, RangeError],
    [() => g.multivariate_hypergeometric([3, 4.5], 2), /^colors must be a one-dimensional sequence/, RangeError],
    [() => g.multivariate_hypergeometric([6e8, 6e8], 2), /^When method is "marginals", sum\(colors\) must be less than 1000000000\.$/, RangeError],
    [() => g.spawn(1.5), /'n_children' must be an integer/, TypeError],
  ];
  for (const [f, re, type] of cases) it(`${re.source}`, () => { expect(f).toThrow(re); expect(f).toThrow(type); });
  it('a lazy tensor parameter is checked when the run reaches it', async () => {
    await expect(g.wald(mt.subtract(mt.tensor([1, 2]), 1.5), 1).fetch()).rejects.toThrow(/^mean <= 0$/);
    await expect(g.zipf(mt.add(mt.tensor([2, 0.5]), 0)).fetch()).rejects.toThrow(/^a <= 1 or a contains NaNs$/);
    await expect(g.noncentral_chisquare(2, mt.subtract(mt.tensor([1, 0]), 0.5)).fetch()).rejects.toThrow(/^nonc < 0$/);
  });
});
