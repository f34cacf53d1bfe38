// End-to-end checks of the core through the public namespace, against exact
// identities and closed forms (NumPy fixtures live in conformance.test.ts).
import { afterAll, describe, expect, it } from 'vitest';
import * as mt from '../src/api/tensor.js';
import { runtime } from '../src/runtime/runtime.js';

afterAll(() => mt.shutdown());

describe('core', () => {
  it('runs a fused elementwise chain', async () => {
    const a = mt.tensor([[1, 2, 3], [4, 5, 6]]);
    const r = await a.add(1).multiply(2).fetch();
    expect(r.dtype).toBe('int64');
    expect(r.shape).toEqual([2, 3]);
    expect(r.toArray()).toEqual([[4, 6, 8], [10, 12, 14]]);
  });

  it('reduces along axes with keepdims and negative axes', async () => {
    const a = mt.arange(24).reshape([2, 3, 4]);
    expect((await a.sum({ axis: -1 }).fetch()).toArray()).toEqual([[6, 22, 38], [54, 70, 86]]);
    expect((await a.sum({ axis: [0, 2], keepdims: true }).fetch()).shape).toEqual([1, 3, 1]);
    expect((await a.sum().fetch()).item()).toBe(276);
    expect((await a.argmax({ axis: 1 }).fetch()).toArray()).toEqual([[2, 2, 2, 2], [2, 2, 2, 2]]);
  });

  it('splits reductions across chunks and combines them', async () => {
    const a = mt.arange(1000, undefined, undefined, { chunkSize: 64 });
    expect((await a.sum().fetch()).item()).toBe(499500);
    expect((await mt.argmax(a.multiply(-1).add(500).abs().negative()).fetch()).item()).toBe(500);
    expect((await a.max().fetch()).item()).toBe(999);
  });

  it('gives the same random numbers for any chunking and worker count', async () => {
    const ref = await mt.random.default_rng(7).random([1000, 3], { chunkSize: 1000 }).fetch({ workers: 0 });
    for (const chunkSize of [1, 17, 256]) {
      for (const workers of [0, 2]) {
        const r = await mt.random.default_rng(7).random([1000, 3], { chunkSize }).fetch({ workers });
        expect(Array.from(r.data as Float64Array)).toEqual(Array.from(ref.data as Float64Array));
      }
    }
  });

  it('estimates pi with the Monte Carlo program', async () => {
    mt.random.seed(3);
    const N = 200_000;
    const d = mt.random.uniform(-1, 1, [N, 2], { chunkSize: 10_000 });
    const hits = mt.sqrt(d.power(2).sum({ axis: 1 })).less(1).sum();
    const pi = (4 * Number((await hits.fetch()).item())) / N;
    expect(Math.abs(pi - Math.PI)).toBeLessThan(0.02);
  });

  it('float16: data is a Float16Array of the values, which tensor() takes back exactly', async () => {
    const x = mt.tensor([0.1, -2.5, 65519, 1e-7, 70000], { dtype: 'float16' });
    const a = await x.fetch();
    expect(a.dtype).toBe('float16');
    // NumPy's float16 values: 0.1 -> 0.0999755859375, 65519 -> 65504, 1e-7 -> 2 * 2^-24, 70000 -> inf
    expect(Array.from(a.data as ArrayLike<number>)).toEqual([0.0999755859375, -2.5, 65504, 2 ** -23, Infinity]);
    expect(a.toArray()).toEqual([0.0999755859375, -2.5, 65504, 2 ** -23, Infinity]);
    expect(Array.from(a.raw as Uint16Array)).toEqual([0x2e66, 0xc100, 0x7bff, 0x0002, 0x7c00]);
    const back = await mt.tensor(a.data as never).fetch();
    expect(back.dtype).toBe('float16');
    expect(Array.from(back.raw as Uint16Array)).toEqual(Array.from(a.raw as Uint16Array));
    expect(await mt.tensor([1.5], { dtype: 'f2' }).add(mt.tensor([1], { dtype: 'int16' })).fetch().then((r) => r.dtype)).toBe('float32');
  });

  it('throws NumPy-like errors at the call site', () => {
    expect(() => mt.tensor([1, 2, 3]).add(mt.tensor([1, 2]))).toThrow(/could not be broadcast together with shapes \(3,\) \(2,\)/);
    expect(() => mt.tensor([1, 2, 3]).sum({ axis: 1 })).toThrow(/axis 1 is out of bounds for array of dimension 1/);
    expect(() => mt.tensor([1]).astype('float128')).toThrow(/data type "float128" not understood/);
    expect(() => mt.tensor([1, 2, 3]).reshape([2, 2])).toThrow(/cannot reshape array of size 3 into shape \(2, 2\)/);
  });

  describe('loops', () => {
    const rng = mt.random.default_rng(11);
    const X = rng.standard_normal([60, 5]);
    const y = rng.standard_normal([60]);
    const step = (w: mt.Tensor) => w.subtract(mt.matmul(X.T, mt.matmul(X, w).subtract(y)).multiply(0.01));

    it('a computed tensor is a leaf: each executed step runs only its own tasks', async () => {
      await mt.execute(X, y);
      let w = mt.zeros([5]);
      const tasks: number[] = [];
      for (let i = 0; i < 6; i++) {
        w = step(w);
        await w.execute();
        tasks.push(mt.lastReport()!.tasks);
      }
      // the same work each step (the first also transposes X, as every step does)
      expect(new Set(tasks).size).toBe(1);
      // and the steps' values are those of the lazy loop
      let v = mt.zeros([5]);
      for (let i = 0; i < 6; i++) v = step(v);
      expect(Array.from((await v.fetch()).data as Float64Array)).toEqual(Array.from((await w.fetch()).data as Float64Array));
    });

    it("a loop's running value read by a stored product is stored, not rebuilt in every later kernel", () => {
      const largest = (steps: number): number => {
        let w = mt.zeros([5]);
        for (let i = 0; i < steps; i++) w = step(w);
        return Math.max(...runtime.planOf([w.node]).kernels.map((k) => JSON.stringify(k.epilogue).length));
      };
      // before: each step's kernel held every earlier step (905 characters at 3 steps, growing to the depth cap)
      expect(largest(150)).toBeLessThan(1.1 * largest(60));
    });
  });
});
