// Hand-written routines and loop orders against the reference interpreter,
// bit for bit, at awkward sizes: 1x1, sizes that are not multiples of the
// micro-kernel or cache blocks, K = 0, sub-boxes of a larger chunk, split K
// ranges, batches; then end to end through the runtime with chunked inputs
// against a plain JavaScript reference.
import { afterAll, describe, expect, it } from 'vitest';
import * as mt from '../src/api/tensor.js';
import { fuse } from '../src/fuse/fuse.js';
import { ARRAY_CTOR, type DType } from '../src/graph/dtype.js';
import * as G from '../src/graph/node.js';
import { halfBits, halfValue } from '../src/graph/half.js';
import type { Binding, KernelArgs } from '../src/ir/args.js';
import { interpret } from '../src/ir/interpret.js';
import { type Kernel, children, randomSites, siteParams } from '../src/ir/ir.js';
import { matmulOf } from '../src/ir/matmul.js';
import { mathImports, render, writeParams } from '../src/wasm/render.js';
import { PHILOX_INLINE_SITES } from '../src/wasm/expr.js';

afterAll(() => mt.shutdown());

/** A private heap: bump allocation in one shared memory. */
class Mem {
  readonly memory = new WebAssembly.Memory({ initial: 256, maximum: 65536, shared: true });
  private top = 4096;
  alloc(bytes: number): number {
    const p = this.top;
    this.top += Math.ceil(bytes / 64) * 64 + 64;
    const need = Math.ceil(this.top / 65536) - this.memory.buffer.byteLength / 65536;
    if (need > 0) this.memory.grow(need);
    return p;
  }
}

let seed = 12345;
/** Deterministic values in [-1, 1] with full 53-bit mantissas, so that every change of summation order shows. */
const rand = () => { seed = (seed * 1103515245 + 12345) % 2147483648; return Math.sin(seed); };

/** Fills a C-order array of `shape` at `ptr` with values that make rounding visible. */
function fill(mem: Mem, d: DType, ptr: number, n: number): void {
  const v = new ARRAY_CTOR[d](mem.memory.buffer, ptr, n) as Float64Array;
  for (let i = 0; i < n; i++) v[i] = rand() * (1 + i % 7) / 3;
}

/** Runs `kernel` for one task with WASM and with the interpreter; returns both outputs. */
function both(kernel: Kernel, mem: Mem, inputs: Binding[], out: { shape: number[]; dtype: DType }, outer: [number, number][], red: [number, number][], partial = false): [number[], number[]] {
  const n = out.shape.reduce((a, b) => a * b, 1);
  const strides = out.shape.map((_, i) => out.shape.slice(i + 1).reduce((a, b) => a * b, 1));
  const bytes = ARRAY_CTOR[out.dtype].BYTES_PER_ELEMENT;
  const results: number[][] = [];
  for (const mode of ['wasm', 'ref'] as const) {
    const ptr = mem.alloc(n * bytes);
    // Poison the output: a task must write its box and nothing else.
    new ARRAY_CTOR[out.dtype](mem.memory.buffer, ptr, n).fill((out.dtype === 'int64' ? -7n : -7) as never);
    const args: KernelArgs = { inputs, outputs: [{ ptr, origin: out.shape.map(() => 0), strides }], outer, red, partial };
    if (mode === 'ref') interpret(kernel, args, mem.memory.buffer);
    else {
      const { bytes: code, layout } = render(kernel, partial);
      const scratch = layout.scratch ? mem.alloc(layout.scratch.bytes) : 0;
      const inst = new WebAssembly.Instance(new WebAssembly.Module(code as Uint8Array<ArrayBuffer>), { env: { memory: mem.memory }, math: mathImports() });
      const params = mem.alloc(layout.slots * 8);
      writeParams(layout, { ...args, scratch, sites: siteParams(kernel) }, new BigInt64Array(mem.memory.buffer, params, layout.slots), 0);
      (inst.exports.run as (p: number) => void)(params);
    }
    results.push(Array.from(new ARRAY_CTOR[out.dtype](mem.memory.buffer, ptr, n) as ArrayLike<number>, Number));
  }
  return [results[0]!, results[1]!];
}

function matmulKernel(d: DType, a: number[], b: number[], same = false): { kernel: Kernel; inputs: G.Node[] } {
  const A = G.source('a', d, a, a);
  const B = same ? A : G.source('b', d, b, b);
  const steps = fuse([G.matmul(A, B, d)], (n) => n.op === 'source');
  const s = steps[steps.length - 1]!;
  if (s.kind !== 'kernel') throw new Error('expected a kernel');
  return { kernel: s.kernel, inputs: s.inputs as G.Node[] };
}

describe('GEMM routine matches the reference interpreter exactly', () => {
  const sizes: [number, number, number][] = [[1, 1, 1], [3, 5, 7], [4, 8, 16], [5, 9, 3], [13, 17, 300], [70, 37, 513], [133, 1031, 9], [2, 3, 0]];
  for (const d of ['float64', 'float32'] as const) {
    for (const [m, n, k] of sizes) {
      it(`${d} ${m}x${k} @ ${k}x${n}`, () => {
        const { kernel, inputs } = matmulKernel(d, [m, k], [k, n]);
        expect(matmulOf(kernel)).toBeDefined();
        const mem = new Mem();
        const bytes = ARRAY_CTOR[d].BYTES_PER_ELEMENT;
        const pa = mem.alloc(m * k * bytes), pb = mem.alloc(k * n * bytes);
        fill(mem, d, pa, m * k); fill(mem, d, pb, k * n);
        const bind = (x: G.Node<'source'>): Binding => (x.attrs.key === 'a' ? { ptr: pa, origin: [0, 0], strides: [k, 1] } : { ptr: pb, origin: [0, 0], strides: [n, 1] });
        const [w, r] = both(kernel, mem, inputs.map((x) => bind(x as G.Node<'source'>)), { shape: [m, n], dtype: d }, [[0, m], [0, n]], [[0, k]]);
        expect(w).toEqual(r);
      });
    }
  }

  it('writes only its sub-box, reads a K range, and honours origins and row strides', () => {
    for (const d of ['float64', 'float32'] as const) {
      const [m, n, k] = [41, 53, 290];
      const { kernel, inputs } = matmulKernel(d, [m, k], [k, n]);
      const mem = new Mem();
      const bytes = ARRAY_CTOR[d].BYTES_PER_ELEMENT;
      // A lives inside a wider chunk that starts at global row 10 (row stride k + 5).
      const pa = mem.alloc((m + 10) * (k + 5) * bytes), pb = mem.alloc(k * n * bytes);
      fill(mem, d, pa, (m + 10) * (k + 5)); fill(mem, d, pb, k * n);
      const bindA: Binding = { ptr: pa, origin: [-10, 0], strides: [k + 5, 1] };
      const bindB: Binding = { ptr: pb, origin: [0, 0], strides: [n, 1] };
      const binds = inputs.map((x) => ((x as G.Node<'source'>).attrs.key === 'a' ? bindA : bindB));
      for (const partial of [false, true]) {
        const [w, r] = both(kernel, mem, binds, { shape: [m, n], dtype: d }, [[3, 38], [5, 50]], [[17, 270]], partial);
        expect(w).toEqual(r);
        expect(w[0]).toBe(-7);
      }
    }
  });

  it('multiplies batches, and a matrix by itself', () => {
    for (const d of ['float64', 'float32'] as const) {
      const mem = new Mem();
      const bytes = ARRAY_CTOR[d].BYTES_PER_ELEMENT;
      const { kernel, inputs } = matmulKernel(d, [3, 6, 11], [3, 11, 9]);
      const pa = mem.alloc(3 * 6 * 11 * bytes), pb = mem.alloc(3 * 11 * 9 * bytes);
      fill(mem, d, pa, 3 * 6 * 11); fill(mem, d, pb, 3 * 11 * 9);
      const binds = inputs.map((x) => ((x as G.Node<'source'>).attrs.key === 'a' ? { ptr: pa, origin: [0, 0, 0], strides: [66, 11, 1] } : { ptr: pb, origin: [0, 0, 0], strides: [99, 9, 1] }));
      const [w, r] = both(kernel, mem, binds, { shape: [3, 6, 9], dtype: d }, [[1, 3], [0, 6], [2, 9]], [[0, 11]]);
      expect(w).toEqual(r);
      const sq = matmulKernel(d, [19, 19], [19, 19], true);
      expect(sq.inputs.length).toBe(1);
      const ps = mem.alloc(19 * 19 * bytes);
      fill(mem, d, ps, 19 * 19);
      const [w2, r2] = both(sq.kernel, mem, [{ ptr: ps, origin: [0, 0], strides: [19, 1] }], { shape: [19, 19], dtype: d }, [[0, 19], [0, 19]], [[0, 19]]);
      expect(w2).toEqual(r2);
    }
  });
});

/** Plain matmul with the blocked float sum (blocks of 128 products in two lanes; k < 128 * 128), rounding to float32 when asked. */
function refMatmul(a: ArrayLike<number>, b: ArrayLike<number>, m: number, k: number, n: number, f32: boolean): number[] {
  const r = f32 ? Math.fround : (x: number) => x;
  const out: number[] = [];
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < n; j++) {
      let group = 0;
      const lane = [0, 0];
      for (let q = 0; q < k; q++) {
        lane[q & 1] = r(lane[q & 1]! + r(a[i * k + q]! * b[q * n + j]!));
        if (q % 128 === 127 || q === k - 1) { group = r(group + r(lane[0]! + lane[1]!)); lane[0] = lane[1] = 0; }
      }
      out.push(r(0 + group));
    }
  }
  return out;
}

describe('matmul through the runtime', () => {
  const cases: { m: number; k: number; n: number; chunk?: number | (number | null)[] }[] = [
    { m: 1, k: 1, n: 1 }, { m: 3, k: 5, n: 7 }, { m: 67, k: 45, n: 130 }, { m: 300, k: 257, n: 129 },
    { m: 50, k: 40, n: 60, chunk: 16 }, { m: 33, k: 70, n: 21, chunk: [null, 20] },
  ];
  for (const d of ['float64', 'float32'] as const) {
    for (const c of cases) {
      it(`${d} ${c.m}x${c.k} @ ${c.k}x${c.n} chunks ${JSON.stringify(c.chunk ?? 'auto')}`, async () => {
        const av = Array.from({ length: c.m * c.k }, () => rand()), bv = Array.from({ length: c.k * c.n }, () => rand());
        const o = { dtype: d, ...(c.chunk ? { chunkSize: c.chunk } : {}) };
        const rows = (v: number[], w: number) => Array.from({ length: v.length / w }, (_, i) => v.slice(i * w, i * w + w));
        const a = mt.tensor(rows(av, c.k), o), b = mt.tensor(rows(bv, c.n), o);
        const af = d === 'float32' ? av.map(Math.fround) : av, bf = d === 'float32' ? bv.map(Math.fround) : bv;
        const want = refMatmul(af, bf, c.m, c.k, c.n, d === 'float32');
        for (const workers of [0, 2]) {
          const got = Array.from((await mt.matmul(a, b).fetch({ workers })).data as Float64Array);
          // Unsplit K is the same sequential sum, exactly; a split K adds partial sums in a tree.
          const bad = got.map((g, i) => [i, g, want[i]!]).filter(([, g, w]) => (c.chunk ? Math.abs(g! - w!) > (d === 'float32' ? 1e-5 : 1e-12) * c.k : g !== w));
          expect(bad.slice(0, 5)).toEqual([]);
        }
      });
    }
  }

  it('keeps integer, batched and epilogue products working', async () => {
    const a = mt.arange(24).reshape([2, 3, 4]), b = mt.arange(8).reshape([4, 2]);
    expect((await mt.matmul(a, b).fetch()).toArray()).toEqual([[[28, 34], [76, 98], [124, 162]], [[172, 226], [220, 290], [268, 354]]]);
    const x = mt.tensor([[1.5, 2], [3, 4]]);
    expect((await mt.matmul(x, x).multiply(2).add(1).fetch()).toArray()).toEqual([[17.5, 23], [34, 45]]);
  });
});

describe('reductions match the reference interpreter exactly', () => {
  type Case = { name: string; op: 'sum' | 'prod' | 'min' | 'max' | 'argmax' | 'argmin' | 'any'; shape: number[]; axes: number[]; dtype: DType; special?: boolean; rare?: boolean };
  const cases: Case[] = [];
  for (const dtype of ['float64', 'float32', 'int32'] as const) {
    for (const [shape, axes] of [[[300, 13], [0]], [[300, 13], [1]], [[7, 1100], [1]], [[1100, 9], [0]], [[3, 5, 700], [0, 2]], [[40, 33, 20], [0, 1]], [[1, 1], [0]], [[2500], [0]], [[130, 129], [0, 1]]] as [number[], number[]][]) {
      for (const op of ['sum', 'argmax', 'argmin', 'max', 'prod'] as const) cases.push({ name: `${op} ${dtype} ${JSON.stringify(shape)} axes ${axes}`, op, shape, axes, dtype });
    }
  }
  cases.push({ name: 'argmax with NaNs, ties and -0 along axis 0', op: 'argmax', shape: [64, 16], axes: [0], dtype: 'float64', special: true });
  cases.push({ name: 'argmin with NaNs, ties and -0 along axis 1', op: 'argmin', shape: [16, 64], axes: [1], dtype: 'float64', special: true });
  // Long rows of the vector path (groups of eight skipped by compares) with few NaNs and infs, and many ties.
  for (const dtype of ['float64', 'float32'] as const) {
    for (const op of ['argmax', 'argmin'] as const) cases.push({ name: `${op} ${dtype} along axis 1 with rare NaNs and infs, and ties`, op, shape: [24, 700], axes: [1], dtype, rare: true });
  }
  cases.push({ name: 'sum with NaN, inf and -0', op: 'sum', shape: [40, 300], axes: [0], dtype: 'float64', special: true });

  for (const c of cases) {
    it(c.name, () => {
      const x = G.source('x', c.dtype, c.shape, c.shape);
      const outDtype: DType = c.op.startsWith('arg') ? 'int64' : c.op === 'sum' || c.op === 'prod' ? (c.dtype === 'int32' ? 'int64' : c.dtype) : c.dtype;
      const node = G.reduce(c.op, x, c.axes, false, outDtype);
      const s = fuse([node], (n) => n.op === 'source')[0]!;
      if (s.kind !== 'kernel') throw new Error('expected a kernel');
      const mem = new Mem();
      const size = c.shape.reduce((a, b) => a * b, 1);
      const ptr = mem.alloc(size * 8);
      const v = new ARRAY_CTOR[c.dtype](mem.memory.buffer, ptr, size) as Float64Array;
      for (let i = 0; i < size; i++) {
        const u = rand();
        v[i] = c.dtype === 'int32' ? Math.round(u * 50) : c.op === 'prod' ? 1 + u / 50 : u * 100;
        if (c.special) v[i] = [NaN, -0, 0, 5, 5, Infinity, -Infinity, 1e300, u][Math.floor((u + 1) * 4.5) % 9]!;
        if (c.rare) v[i] = Math.abs(u) < 0.002 ? NaN : Math.abs(u) < 0.004 ? Infinity : Math.abs(u) < 0.006 ? -Infinity : Math.round(u * 300);
      }
      const strides = c.shape.map((_, i) => c.shape.slice(i + 1).reduce((a, b) => a * b, 1));
      const out = s.kernel.shape;
      const whole = (sh: readonly number[]) => sh.map((d) => [0, d] as [number, number]);
      const redShape = c.axes.map((a) => c.shape[a]!);
      // The whole box, then a partial task over a sub-box of the reduction.
      for (const partial of [false, true]) {
        const red = partial ? redShape.map((d) => [Math.floor(d / 3), d - Math.floor(d / 4)] as [number, number]) : whole(redShape);
        if (partial && c.op.startsWith('arg')) continue;
        const [w, r] = both(s.kernel, mem, [{ ptr, origin: c.shape.map(() => 0), strides }], { shape: [...out], dtype: partial ? s.kernel.reduce!.dtype : outDtype }, whole(out), red, partial);
        expect(w).toEqual(r);
      }
    });
  }
});

describe('fusion', () => {
  /** Reductions inside another reduction's body, anywhere in the kernels of `outs`. */
  const nested = (outs: G.Node[]): number => {
    let count = 0;
    const walk = (e: import('../src/ir/ir.js').Expr, inside: boolean): void => {
      if (e.k === 'reduce') { if (inside) count++; walk(e.body, true); return; }
      for (const c of children(e)) walk(c, inside);
    };
    for (const st of fuse(outs, (n) => n.op === 'source')) if (st.kind === 'kernel') { if (st.kernel.reduce) walk(st.kernel.reduce, false); walk(st.kernel.epilogue, false); }
    return count;
  };
  it('stores a reduction that is read at more points than it has, so it is not recomputed at each', () => {
    // var's shape of graph: x - mean(x) (the mean through its division, a keepdims reshape and a broadcast), squared, summed
    for (const [shape, axis] of [[[20000], 0], [[30, 40], 1], [[30, 40], 0]] as [number[], number][]) {
      const x = G.binary('multiply', G.cast(G.iota(shape, shape.length - 1), 'float64'), G.constant(0.37, 'float64'), 'float64');
      const s = G.reduce('sum', x, [axis], false, 'float64');
      const m = G.binary('divide', s, G.constant(shape[axis]!, 'float64'), 'float64');
      const keep = G.reshape(m, shape.map((d, i) => (i === axis ? 1 : d)));
      const dev = G.binary('subtract', x, G.expand(keep, shape), 'float64');
      expect(nested([G.reduce('sum', G.binary('multiply', dev, dev, 'float64'), [axis], false, 'float64')])).toBe(0);
    }
    // a reduction of row sums still fuses whole: each row's sum is read once
    const y = G.source('y', 'float64', [30, 40], [30, 40]);
    expect(nested([G.reduce('sum', G.binary('multiply', G.reduce('sum', y, [1], false, 'float64'), G.constant(2, 'float64'), 'float64'), [0], false, 'float64')])).toBe(1);
  });
});

describe('reductions at the edges', () => {
  const run = (node: G.Node, inputs: { ptr: number; shape: number[] }[], mem: Mem): [number[], number[]] => {
    const s = fuse([node], (n) => n.op === 'source');
    const st = s[s.length - 1]!;
    if (st.kind !== 'kernel') throw new Error('expected a kernel');
    const k = st.kernel;
    const strides = (sh: number[]) => sh.map((_, i) => sh.slice(i + 1).reduce((a, b) => a * b, 1));
    const red = k.reduce ? k.reduce.vars.map((v) => [0, v.size] as [number, number]) : [];
    return both(k, mem, inputs.map((x) => ({ ptr: x.ptr, origin: x.shape.map(() => 0), strides: strides(x.shape) })), { shape: [...k.shape], dtype: k.dtype }, k.shape.map((d) => [0, d] as [number, number]), red);
  };

  it('sums over an empty axis, and over nothing', () => {
    const mem = new Mem();
    for (const [shape, axes] of [[[0, 10], [0]], [[10, 0], [1]], [[0, 10], [1]], [[6, 9], []]] as [number[], number[]][]) {
      const x = G.source('x', 'float64', shape, shape.map((d) => Math.max(1, d)));
      const ptr = mem.alloc(8 * Math.max(1, shape.reduce((a, b) => a * b, 1)));
      fill(mem, 'float64', ptr, shape.reduce((a, b) => a * b, 1));
      const [w, r] = run(G.reduce('sum', x, axes, false, 'float64'), [{ ptr, shape }], mem);
      expect(w).toEqual(r);
    }
  });

  it('sums a nested reduction, and a fused body in both loop orders', () => {
    const mem = new Mem();
    const shape = [37, 300];
    const x = G.source('x', 'float64', shape, shape);
    const ptr = mem.alloc(8 * 37 * 300);
    fill(mem, 'float64', ptr, 37 * 300);
    const sq = G.binary('multiply', x, x, 'float64');
    for (const node of [
      G.reduce('sum', G.reduce('sum', x, [1], false, 'float64'), [0], false, 'float64'),
      G.reduce('sum', sq, [0], false, 'float64'),
      G.reduce('sum', sq, [1], false, 'float64'),
      G.reduce('max', G.unary('abs', x, 'float64'), [0], false, 'float64'),
      G.reduce('argmax', G.unary('negative', x, 'float64'), [1], false, 'int64'),
    ]) {
      const [w, r] = run(node, [{ ptr, shape }], mem);
      expect(w).toEqual(r);
    }
  });
});

describe('random draws (Philox blocks made sixteen at a time)', () => {
  it('match the reference in boxes that start and end anywhere, read forwards, transposed and two draws at once', () => {
    const mem = new Mem();
    for (const dist of ['uniform', 'uniform32', 'normal', 'bits'] as const) {
      const dt = dist === 'bits' ? 'uint32' : dist === 'uniform32' ? 'float32' : 'float64';
      const a = G.random(dist, [0x9e3779b9, 12345], 7, [9, 37]);
      const b = G.random(dist, [5, 0], 2 ** 31 + 3, [37, 9]);
      const nodes = [a, G.permute(b, [1, 0]), G.binary('subtract', a, G.permute(b, [1, 0]), dt)];
      for (const n of nodes) {
        const st = fuse([n], () => false).at(-1)!;
        if (st.kind !== 'kernel') throw new Error('expected a kernel');
        const k = st.kernel;
        for (const box of [[[0, 9], [0, 37]], [[2, 7], [3, 34]], [[8, 9], [31, 32]], [[1, 4], [17, 35]]] as [number, number][][]) {
          const [w, r] = both(k, mem, [], { shape: [9, 37], dtype: k.dtype }, box, []);
          expect(w).toEqual(r);
        }
      }
    }
  });
});

describe('many draw sites in one kernel (Philox through the module\'s functions)', () => {
  it('match the reference past PHILOX_INLINE_SITES, in every distribution, with the stream in a parameter', () => {
    const mem = new Mem();
    for (const dist of ['uniform', 'uniform32', 'normal', 'bits'] as const) {
      const dt = dist === 'bits' ? 'uint32' : dist === 'uniform32' ? 'float32' : 'float64';
      // a sum of PHILOX_INLINE_SITES + 3 draws, each its own (seed, stream): one site apiece
      let n: G.Node = G.random(dist, [1, 2], 0, [11, 23]);
      for (let i = 1; i < PHILOX_INLINE_SITES + 3; i++) n = G.binary('add', n, G.random(dist, [1 + i, 2 ** 31 + i], 2 ** 32 - i, [11, 23]), dt);
      const st = fuse([n], () => false).at(-1)!;
      if (st.kind !== 'kernel') throw new Error('expected a kernel');
      expect(randomSites(st.kernel).length).toBe(PHILOX_INLINE_SITES + 3);
      for (const box of [[[0, 11], [0, 23]], [[3, 9], [5, 22]]] as [number, number][][]) {
        const [w, r] = both(st.kernel, mem, [], { shape: [11, 23], dtype: st.kernel.dtype }, box, []);
        expect(w).toEqual(r);
      }
    }
  });

  it('compile small: a hundred draws in one fused chain', async () => {
    let x = mt.zeros([1000]);
    const g = mt.random.default_rng(3);
    for (let i = 0; i < 100; i++) x = x.add(g.random([1000]));
    const got = (await x.fetch()).data as Float64Array;
    // the same draws one at a time, each its own kernel
    const h = mt.random.default_rng(3);
    const want = new Float64Array(1000);
    for (let i = 0; i < 100; i++) { const d = (await h.random([1000]).fetch()).data as Float64Array; d.forEach((v, j) => { want[j] = want[j]! + v; }); }
    expect(Array.from(got)).toEqual(Array.from(want));
  });
});

describe('short nested sums (straight-line code)', () => {
  it('match the blocked sum of the reference for every length up to the lanes, with -0 terms', () => {
    const mem = new Mem();
    for (const len of [0, 1, 2, 3, 5, 8, 9]) {
      for (const dtype of ['float64', 'float32'] as const) {
        // sum over a short axis of random draws (no loads), then a top-level sum: the pi kernel's shape
        const u = G.cast(G.binary('multiply', G.random('normal', [7, 9], 3, [50, 6, len]), G.constant(1e3, 'float64'), 'float64'), dtype);
        const negz = G.binary('multiply', G.binary('subtract', u, u, dtype), G.constant(-1, dtype), dtype); // -0 everywhere
        for (const body of [u, negz, G.unary('square', u, dtype)]) {
          const inner = G.reduce('sum', body, [2], false, dtype);
          const count = G.reduce('sum', G.binary('less', G.unary('abs', inner, dtype), G.constant(1000, dtype), 'bool'), [0, 1], false, 'int64');
          for (const n of [inner, count, G.reduce('max', inner, [1], false, dtype), G.reduce('sum', inner, [1], false, dtype)]) {
            const st = fuse([n], () => false).at(-1)!;
            if (st.kind !== 'kernel') throw new Error('expected a kernel');
            const k = st.kernel;
            const red = k.reduce ? k.reduce.vars.map((v) => [0, v.size] as [number, number]) : [];
            const [w, r] = both(k, mem, [], { shape: [...k.shape], dtype: k.dtype }, k.shape.map((d) => [0, d] as [number, number]), red);
            expect(w.map((x) => Object.is(x, -0) ? '-0' : x)).toEqual(r.map((x) => Object.is(x, -0) ? '-0' : x));
          }
        }
      }
    }
  });
});

describe('float sums keep their accuracy', () => {
  it('adds two million tenths without drifting', async () => {
    // A sequential sum drifts by about 1e-5 here; blocks of 128 in lanes, in groups, stay near 1e-9.
    const n = 2_000_000;
    for (const axis of [undefined, 0, 1] as const) {
      const x = axis === undefined ? mt.full([n], 0.1) : axis === 0 ? mt.full([n / 4, 4], 0.1) : mt.full([4, n / 4], 0.1);
      const got = Array.from((await (axis === undefined ? x.sum() : x.sum({ axis })).fetch()).data as Float64Array);
      const want = axis === undefined ? n / 10 : axis === 0 ? n / 40 : n / 40;
      for (const g of got) expect(Math.abs(g - want)).toBeLessThan(want * 1e-13);
    }
  });
});

describe('sums NumPy adds one by one', () => {
  // NumPy adds fewer than eight terms in order, and sums over a leading axis as out += row.
  const inOrder = (rows: number[][]) => rows[0]!.map((_, j) => rows.reduce((s, r) => s + r[j]!, 0));
  it('adds a short axis and a leading axis in order, so a var of equal values is 0', async () => {
    const row = Array.from({ length: 14 }, () => rand() * 3);
    for (const [n, axis] of [[5, 0], [5, 1], [7, 1], [300, 0]] as const) {
      const rows = Array.from({ length: n }, (_, i) => (i % 2 === 0 ? row : row.map((v) => v * 1.1)));
      const x = axis === 0 ? mt.tensor(rows) : mt.tensor(rows).T;
      const got = Array.from((await x.sum({ axis }).fetch()).data as Float64Array);
      if (n < 128) expect(got).toEqual(inOrder(rows));
      else expect(got.every((g, j) => Math.abs(g - inOrder(rows)[j]!) <= 1e-13 * Math.abs(g))).toBe(true);
    }
    // The mean of five equal values is the value itself only when they are added in order.
    const same = mt.broadcast_to(mt.tensor([row]), [5, 14]);
    const mean = Array.from((await same.mean({ axis: 0 }).fetch()).data as Float64Array);
    const v = Array.from((await same.var({ axis: 0, ddof: 1 }).fetch()).data as Float64Array);
    v.forEach((x, j) => expect(x === 0).toBe(mean[j] === row[j]));
  });
});

describe('float16 in WASM: bit for bit the reference (and NumPy\'s own casts)', () => {
  const mem = new Mem();
  const cast = (from: DType, to: DType, values: ArrayLike<number>): [number[], number[]] => {
    const n = values.length;
    const ptr = mem.alloc(n * ARRAY_CTOR[from].BYTES_PER_ELEMENT);
    (new ARRAY_CTOR[from](mem.memory.buffer, ptr, n) as Float64Array).set(values);
    const st = fuse([G.cast(G.source('x', from, [n], [n]), to)], (x) => x.op === 'source').at(-1)!;
    if (st.kind !== 'kernel') throw new Error('expected a kernel');
    return both(st.kernel, mem, [{ ptr, origin: [0], strides: [1] }], { shape: [n], dtype: to }, [[0, n]], []);
  };
  it('decodes every one of the 65536 float16 patterns exactly', () => {
    const all = Uint16Array.from({ length: 65536 }, (_, i) => i);
    const [w, r] = cast('float16', 'float64', all);
    expect(w.map((v, i) => Object.is(v, r[i]) || (Number.isNaN(v) && Number.isNaN(r[i])))).not.toContain(false);
    expect(r.map((v, i) => Object.is(v, halfValue(i)) || Number.isNaN(v))).not.toContain(false);
    // and encodes them back (every finite value, -0 included)
    const finite = [...all].filter((h) => Number.isFinite(halfValue(h)));
    const [w2] = cast('float64', 'float16', finite.map(halfValue));
    expect(w2).toEqual(finite);
  });
  it('rounds float64 and float32 to nearest, ties to even, in one rounding (no double rounding through float32)', () => {
    // every midpoint between neighbouring finite float16 values, and the doubles just either side of it
    const vals: number[] = [];
    for (let h = 0; h < 0x7c00; h += 7) {
      const lo = halfValue(h), hi = halfValue(h + 1), mid = (lo + hi) / 2;
      vals.push(mid, -mid, mid * (1 + 2 ** -52), mid * (1 - 2 ** -53), mid + 2 ** -60 * Math.max(1, mid));
    }
    vals.push(65519.99, 65520, 1e300, -1e300, 2 ** -25, 2 ** -26, 5e-324, NaN, Infinity, -Infinity);
    const want = vals.map(halfBits);
    const [w64, r64] = cast('float64', 'float16', vals);
    expect(r64).toEqual(want);
    expect(w64.map((v, i) => v === want[i] || (want[i] === 0x7e00 && (v & 0x7c00) === 0x7c00 && (v & 0x3ff) !== 0))).not.toContain(false);
    const f32 = Float32Array.from(vals);
    const [w32, r32] = cast('float32', 'float16', f32);
    expect(w32).toEqual(r32.map((v, i) => (Number.isNaN(f32[i]!) ? w32[i] : v)));
    expect(r32).toEqual(Array.from(f32, halfBits));
  });
});

describe('kernel IR as text (ir/wire.ts)', () => {
  it('keeps NaN, infinities and -0, and names what is wrong in bad text', async () => {
    const { encodeKernel, decodeKernel } = await import('../src/ir/wire.js');
    const x = G.source('x', 'float64', [4], [4]);
    const node = G.where(G.binary('greater', x, G.constant(0, 'float64'), 'bool'), G.constant(-0, 'float64'), G.binary('add', x, G.constant(NaN, 'float64'), 'float64'));
    const k = fuse([G.binary('fmax', node, G.constant(-Infinity, 'float64'), 'float64')], (n) => n.op === 'source').at(-1)!;
    if (k.kind !== 'kernel') throw new Error('expected a kernel');
    const back = decodeKernel(encodeKernel(k.kernel));
    const consts = (e: unknown, out: unknown[] = []): unknown[] => {
      if (e && typeof e === 'object') {
        if ((e as { k?: string }).k === 'const') out.push((e as { value: unknown }).value);
        Object.values(e).forEach((v) => consts(v, out));
      }
      return out;
    };
    expect(consts(back.epilogue).map((v) => Object.is(v, -0) ? '-0' : String(v)).sort()).toEqual(consts(k.kernel.epilogue).map((v) => Object.is(v, -0) ? '-0' : String(v)).sort());
    expect(consts(back.epilogue).some((v) => Object.is(v, -0))).toBe(true);
    expect(consts(back.epilogue).some((v) => Number.isNaN(v))).toBe(true);
    expect(() => decodeKernel('{"inputs":[],"shape":[2],"chunk":[2],"dtype":"float64","epilogue":{"k":"load","dtype":"float64","input":3,"index":[]}}')).toThrow(/load of input 3/);
    expect(() => decodeKernel('{"inputs":[],"shape":[2],"chunk":[2],"dtype":"float64","epilogue":{"k":"eval","dtype":"float64"}}')).toThrow(/bad expression at epilogue/);
    expect(() => decodeKernel('[1]')).toThrow(/inputs/);
  });
});
