// The `logit` routine (src/runtime/logit.ts) against closed forms written
// here row by row: its loss, gradient and Hessian pairs (binary and
// multinomial, weighted, on a sample of batches), the losses of its
// line-search mode, and its gradient against central differences of those
// losses; then LogisticRegression on rows enough for its warm start from a
// sample and its sampled Hessians (learn/logistic.ts): the fitted
// coefficients satisfy the optimum's equation, Xᵀs(p − y) + θ/C = 0,
// evaluated by plain tensor operations, also where the sample misses a class
// (no warm start then, and no iterations lost to one).

import { afterAll, describe, expect, it } from 'vitest';
import * as mt from '../src/api/tensor.js';
import * as learn from '../src/learn/index.js';
import { runRoutine } from '../src/runtime/routines.js';
import type { Region } from '../src/runtime/region.js';

afterAll(() => mt.shutdown());

/** A seeded uniform generator in [0, 1) (mulberry32). */
function rand(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const region = (data: Float64Array, shape: number[], origin?: number[]): Region => ({
  dtype: 'float64', shape, strides: shape.length === 2 ? [shape[1]!, 1] : [1], origin: origin ?? shape.map(() => 0), data,
});

/** Per-row loss, gradient and Hessian of the rows `rows` (a row's Hessian: c_kl x xᵀ), summed plainly. */
function closed(X: number[][], y: number[], s: number[], theta: number[], K: number, target: number, rows: number[], hrows: number[]) {
  const D = X[0]!.length + 1, n = K * D;
  const g = new Array<number>(n).fill(0), H = new Array<number>(n * n).fill(0);
  let loss = 0;
  const probs = (r: number): { z: number[]; p: number[] } => {
    const x = [...X[r]!, 1];
    const z = Array.from({ length: K }, (_, k) => x.reduce((a, v, f) => a + v * theta[k * D + f]!, 0));
    if (K === 1) return { z, p: [1 / (1 + Math.exp(-z[0]!))] };
    const m = Math.max(...z), e = z.map((v) => Math.exp(v - m)), t = e.reduce((a, b) => a + b, 0);
    return { z, p: e.map((v) => v / t) };
  };
  for (const r of rows) {
    const x = [...X[r]!, 1], { z, p } = probs(r);
    const Y = K === 1 ? [y[r] === target ? 1 : 0] : Array.from({ length: K }, (_, k) => (y[r] === k ? 1 : 0));
    loss += K === 1 ? s[r]! * (Math.log(1 + Math.exp(z[0]!)) - Y[0]! * z[0]!)
      : s[r]! * (Math.log(z.reduce((a, v) => a + Math.exp(v), 0)) - z[y[r]!]!);
    for (let k = 0; k < K; k++) for (let f = 0; f < D; f++) g[k * D + f]! += s[r]! * (p[k]! - Y[k]!) * x[f]!;
  }
  for (const r of hrows) {
    const x = [...X[r]!, 1], { p } = probs(r);
    for (let k = 0; k < K; k++) {
      for (let l = 0; l < K; l++) {
        const c = s[r]! * (K === 1 ? p[0]! * (1 - p[0]!) : p[k]! * ((k === l ? 1 : 0) - p[l]!));
        for (let a = 0; a < D; a++) for (let b = 0; b < D; b++) H[(k * D + a) * n + l * D + b]! += c * x[a]! * x[b]!;
      }
    }
  }
  return { loss, g, H };
}

/** The routine's 'newton' row unpacked into loss, gradient and the dense Hessian. */
function unpack(row: Float64Array, K: number, D: number) {
  const n = K * D, H = new Array<number>(n * n).fill(0);
  let i = 1 + n;
  for (let k = 0; k < K; k++) {
    for (let l = k; l < K; l++) {
      for (let a = 0; a < D; a++) {
        for (let b = a; b < D; b++, i++) {
          const at = [[k * D + a, l * D + b], [k * D + b, l * D + a], [l * D + b, k * D + a], [l * D + a, k * D + b]] as const;
          for (const [r, c] of at) H[r * n + c] = row[i]!;
        }
      }
    }
  }
  return { loss: row[0]!, g: Array.from(row.subarray(1, 1 + n)), H, weight: row[i]!, sampled: row[i + 1]! };
}

const near = (got: number[], want: number[], tol: number): void => {
  expect(got.length).toBe(want.length);
  got.forEach((v, i) => expect(Math.abs(v - want[i]!), `[${i}] ${v} vs ${want[i]}`).toBeLessThanOrEqual(tol * Math.max(1, Math.abs(want[i]!))));
};

describe('the logit routine', () => {
  const n = 150, d = 3, D = d + 1, next = rand(7);
  const X = Array.from({ length: n }, () => Array.from({ length: d }, () => 4 * next() - 2));
  const y = Array.from({ length: n }, () => Math.floor(3 * next()));
  const s = Array.from({ length: n }, () => 0.5 + next());
  const xr = region(Float64Array.from(X.flat()), [n, d]), yr = region(Float64Array.from(y), [n]), sr = region(Float64Array.from(s), [n]);
  const all = Array.from({ length: n }, (_, r) => r);
  // BATCH is 64 rows: every 2nd batch reads rows 0-63 and 128-149
  const even = all.filter((r) => Math.floor(r / 64) % 2 === 0);

  for (const [K, target] of [[1, 2], [3, -1]] as const) {
    const theta = Array.from({ length: K * D }, () => next() - 0.5);
    const newton = (params: Record<string, number | boolean | string>, weighted: boolean): Float64Array => {
      const width = 1 + K * D + ((K * (K + 1)) / 2) * ((D * (D + 1)) / 2) + 2;
      const out = region(new Float64Array(width), [1, width]);
      const th = region(Float64Array.from(theta), [1, K * D]);
      runRoutine('logit', { K, d, target, weighted, mode: 'newton', ...params }, [xr, yr, th, ...(weighted ? [sr] : [])], out);
      return out.data as Float64Array;
    };

    it(`K = ${K}: loss, gradient and Hessian equal their closed forms, weighted or not, over all rows or a sample of batches`, () => {
      for (const weighted of [false, true]) {
        const w = weighted ? s : s.map(() => 1);
        const got = unpack(newton({ hstride: 1, every: 1 }, weighted), K, D), want = closed(X, y, w, theta, K, target, all, all);
        near([got.loss], [want.loss], 1e-12); near(got.g, want.g, 1e-12); near(got.H, want.H, 1e-12);
        expect(got.weight).toBeCloseTo(w.reduce((a, b) => a + b, 0), 9);
        expect(got.sampled).toBeCloseTo(got.weight, 9);
        // a sample of batches read, and the Hessian from every 2nd of all batches (here the same rows), or none
        const sub = unpack(newton({ hstride: 2, every: 2 }, weighted), K, D), wsub = closed(X, y, w, theta, K, target, even, even);
        near([sub.loss], [wsub.loss], 1e-12); near(sub.g, wsub.g, 1e-12); near(sub.H, wsub.H, 1e-12);
        expect(sub.sampled).toBeCloseTo(even.reduce((a, r) => a + w[r]!, 0), 9);
        const hsub = unpack(newton({ hstride: 2, every: 1 }, weighted), K, D), whsub = closed(X, y, w, theta, K, target, all, even);
        near(hsub.g, want.g, 1e-12); near(hsub.H, whsub.H, 1e-12);
        const none = unpack(newton({ hstride: 0, every: 1 }, weighted), K, D);
        near(none.g, want.g, 1e-12); expect(none.H.every((v) => v === 0)).toBe(true);
      }
    });

    it(`K = ${K}: the line-search mode's losses at θ − t·dir, and the gradient against central differences of them`, () => {
      const losses = (th: number[], dir: number[], steps: number): Float64Array => {
        const out = region(new Float64Array(steps + 1), [1, steps + 1]);
        const both = region(Float64Array.from([...th, ...dir]), [2, K * D]);
        runRoutine('logit', { K, d, target, weighted: true, mode: 'loss', steps, every: 1 }, [xr, yr, both, sr], out);
        return out.data as Float64Array;
      };
      const dir = theta.map(() => next() - 0.5);
      const got = losses(theta, dir, 5);
      for (let j = 0; j < 5; j++) {
        const t = 2 ** -j;
        near([got[j]!], [closed(X, y, s, theta.map((v, i) => v - t * dir[i]!), K, target, all, []).loss], 1e-12);
      }
      const g = unpack(newton({ hstride: 0, every: 1 }, true), K, D).g, h = 1e-5;
      for (let i = 0; i < K * D; i++) {
        const e = theta.map((_, j) => (j === i ? h : 0));
        const [minus] = losses(theta, e, 1), [plus] = losses(theta, e.map((v) => -v), 1);
        expect(Math.abs((plus! - minus!) / (2 * h) - g[i]!)).toBeLessThan(1e-5 * Math.max(1, Math.abs(g[i]!)));
      }
    });
  }

  it('refuses a bad call', () => {
    const out = region(new Float64Array(3), [1, 3]);
    const th = region(new Float64Array(D), [1, D]);
    // an output row too short, then an unknown mode
    expect(() => runRoutine('logit', { K: 1, d, target: 1, weighted: false, mode: 'newton', hstride: 1, every: 1 }, [xr, yr, th], out)).toThrow(TypeError);
    expect(() => runRoutine('logit', { K: 1, d, target: 1, weighted: false, mode: 'other', every: 1 }, [xr, yr, th], out)).toThrow(TypeError);
  });
});

describe('LogisticRegression on rows enough for its warm start and sampled Hessians', () => {
  // 300,000 rows: a warm start from every 2nd batch, Hessians far from the optimum from every 2nd batch
  const n = 300_000, d = 3;
  const rng = mt.random.default_rng(3);
  const X = mt.multiply(rng.standard_normal([n, d]), mt.tensor([1, 2, 0.5]));
  const noise = rng.standard_normal([n, 3]);
  const zb = mt.add(mt.matmul(X, mt.tensor([0.8, -0.4, 1.5])), mt.multiply(noise.get(mt.slice(null), 0), 1.5));
  const yb = mt.astype(mt.greater(zb, 0.3), 'float64');
  const ym = mt.argmax(mt.add(mt.matmul(X, mt.tensor([[1, 0, -1], [0.2, 0.5, 0], [0, -1, 1]])), noise), { axis: 1 });
  const sw = mt.add(0.5, rng.random([n]));

  /** The largest entry of the objective's gradient at the fit, computed by plain tensor operations. */
  async function gradient(m: { coef_?: mt.Tensor; intercept_?: mt.Tensor }, y: mt.Tensor, s: mt.Tensor, multinomial: boolean, C: number): Promise<number> {
    const z = mt.add(mt.matmul(X, mt.transpose(m.coef_!)), m.intercept_!);
    let R: mt.Tensor;
    if (multinomial) {
      const e = mt.exp(mt.subtract(z, mt.max(z, { axis: 1, keepdims: true })));
      const P = mt.divide(e, mt.sum(e, { axis: 1, keepdims: true }));
      R = mt.subtract(P, mt.astype(mt.equal(mt.expand_dims(y, 1), mt.arange(3)), 'float64'));
    } else {
      R = mt.subtract(mt.divide(1, mt.add(1, mt.exp(mt.negative(z)))), mt.expand_dims(y, 1));
    }
    R = mt.multiply(R, mt.expand_dims(s, 1));
    const gw = mt.add(mt.matmul(mt.transpose(X), R), mt.divide(mt.transpose(m.coef_!), C));
    const gb = mt.sum(R, { axis: 0 });
    return Math.max(...((await mt.abs(mt.concatenate([mt.reshape(gw, [-1]), gb])).tolist()) as number[]));
  }

  it('binary, weighted, C = 0.5: the gradient vanishes at the fit, and a second fit gives the same coefficients bit for bit', async () => {
    const m = await new learn.linear_model.LogisticRegression({ C: 0.5 }).fit(X, yb, sw);
    expect(await gradient(m, yb, sw, false, 0.5)).toBeLessThan(1e-4);
    const again = await new learn.linear_model.LogisticRegression({ C: 0.5 }).fit(X, yb, sw);
    expect(await again.coef_!.tolist()).toEqual(await m.coef_!.tolist());
    expect(await again.intercept_!.tolist()).toEqual(await m.intercept_!.tolist());
  });

  it('one-vs-rest with a class of 50 rows the warm start\'s sample misses (rows 64-113, the 2nd batch): no warm start for it', async () => {
    const y = mt.tensor(Float64Array.from({ length: n }, (_, i) => (i >= 64 && i < 114 ? 2 : i % 2)));
    const m = await new learn.linear_model.LogisticRegression({ multi_class: 'ovr' }).fit(X, y);
    const rare = { coef_: m.coef_!.get(mt.slice(2, 3)), intercept_: m.intercept_!.get(mt.slice(2, 3)) };
    expect(await gradient(rare, mt.astype(mt.equal(y, 2), 'float64'), mt.ones([n]), false, 1)).toBeLessThan(1e-4);
    // Newton's iterations from zero alone (a dropped warm start's would add up to 10)
    expect((await m.n_iter_!.tolist() as number[])[2]).toBeLessThan(20);
  });

  it('multinomial: the gradient vanishes at the fit', async () => {
    const m = await new learn.linear_model.LogisticRegression().fit(X, ym);
    expect(await gradient(m, mt.astype(ym, 'float64'), mt.ones([n]), true, 1)).toBeLessThan(1e-4);
  });
});
