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
