// NumPy's constants, dtype names and dtype functions (src/api/scalars.ts),
// and the constructors that call JS functions or iterate JS values
// (fromfunction, fromiter, mask_indices), and the index builders and
// iterators (s_, index_exp, ndindex, ndenumerate) against NumPy's. The tables come from NumPy 2 in
// test/fixtures/scalars.json (test/fixtures/gen_scalars.py): every pair of
// dtypes for promote_types, can_cast (each casting) and issubdtype (with
// the abstract types), dtypes with weak JS scalars for result_type, and
// binary_repr/base_repr strings. The windows, matvec, vecmat, array_equiv
// and the asarray family run as conformance cases (numpy_scalars.json).
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import * as mt from '../src/api/tensor.js';

interface Arr { shape: number[]; dtype: string; data: (number | boolean)[] }
interface Tables {
  promote_types: Record<string, string>;
  can_cast: Record<string, boolean>;
  result_type: Record<string, string>;
  issubdtype: Record<string, boolean>;
  common_type: Record<string, string>;
  binary_repr: Record<string, string | { error: string }>;
  base_repr: Record<string, string>;
  arrays: Record<string, Arr>;
  ndindex: Record<string, number[][]>;
  ndenumerate: Record<string, [number[], number | boolean][]>;
  s_: Record<string, unknown[]>;
  typecodes: Record<string, string>;
  typename: Record<string, string>;
  format_float: [string, number | string, 16 | 32 | 64, Record<string, unknown>, string][];
}
const T: Tables = JSON.parse(readFileSync(new URL('./fixtures/scalars.json', import.meta.url), 'utf8'));
afterAll(() => mt.shutdown());

const WEAK: Record<string, number | boolean> = { true: true, 'int 3': 3, 'int -300': -300, 'float 2.5': 2.5 };
/** A result_type operand by its fixture name: a weak JS scalar, else a dtype name. */
const operand = (s: string): unknown => (s in WEAK ? WEAK[s] : s);

describe('constants and dtype names', () => {
  it('has NumPy constants', () => {
    expect([mt.pi, mt.e, mt.inf, mt.euler_gamma]).toEqual([Math.PI, Math.E, Infinity, 0.5772156649015329]);
    expect(Number.isNaN(mt.nan)).toBe(true);
  });
  it('names dtypes as strings a tensor compares equal to', () => {
    expect(mt.zeros(2, { dtype: mt.float32 }).dtype === mt.float32).toBe(true);
    expect(mt.ones(2).astype(mt.int8).dtype).toBe('int8');
    expect([mt.int_, mt.intp, mt.double, mt.single, mt.half, mt.bool_, mt.intc, mt.ubyte]).toEqual(['int64', 'int64', 'float64', 'float32', 'float16', 'bool', 'int32', 'uint8']);
  });
  it('describes a dtype with np.dtype', () => {
    const d = mt.dtype('f4');
    expect([d.name, d.kind, d.itemsize, d.char, d.str]).toEqual(['float32', 'f', 4, 'f', '<f4']);
    expect(mt.dtype(mt.arange(3)).name).toBe('int64');
    expect(mt.dtype('bool').str).toBe('|b1');
    expect(`${mt.dtype('i2')}`).toBe('int16');
    expect(mt.zeros(2, { dtype: mt.dtype('uint16') }).dtype).toBe('uint16');
    expect(() => mt.dtype('float128')).toThrow(/data type "float128" not understood/);
  });
});

describe('dtype functions against NumPy', () => {
  it('promote_types: every pair', () => {
    for (const [k, want] of Object.entries(T.promote_types)) {
      const [a, b] = k.split(',');
      expect(mt.promote_types(a, b), k).toBe(want);
    }
  });
  it('can_cast: every pair and casting', () => {
    for (const [k, want] of Object.entries(T.can_cast)) {
      const [a, b, casting] = k.split(',');
      expect(mt.can_cast(a, b, casting), k).toBe(want);
      expect(mt.can_cast(mt.zeros(1, { dtype: a }), b, { casting }), k).toBe(want);
    }
    expect(() => mt.can_cast(3, 'int8')).toThrow(/does not support Python ints/);
    expect(() => mt.can_cast('int8', 'int16', 'sometimes')).toThrow(/casting must be one of/);
  });
  it('result_type: dtypes, arrays and weak scalars (NEP 50)', () => {
    for (const [k, want] of Object.entries(T.result_type)) {
      const parts = k.split(',');
      // the three-part keys are two arrays and a scalar
      const args = parts.length === 3 ? [mt.zeros(1, { dtype: parts[0] }), mt.zeros(1, { dtype: parts[1] }), operand(parts[2]!)] : parts.map(operand);
      expect(mt.result_type(...args), k).toBe(want);
    }
    expect(mt.result_type([1, 2.5])).toBe('float64');
    expect(mt.result_type(new Int16Array(2), 7)).toBe('int16');
    expect(() => mt.result_type()).toThrow(/at least one array or dtype/);
  });
  it('issubdtype: dtypes and abstract types', () => {
    for (const [k, want] of Object.entries(T.issubdtype)) {
      const [a, b] = k.split(',');
      expect(mt.issubdtype(a, b), k).toBe(want);
    }
    expect(mt.issubdtype(mt.zeros(1, { dtype: 'uint8' }).dtype, mt.unsignedinteger)).toBe(true);
    expect(() => mt.issubdtype('complex512', mt.floating)).toThrow(TypeError);
  });
  it('common_type', () => {
    for (const [k, want] of Object.entries(T.common_type)) {
      const arrays = k ? k.split(',').map((d) => mt.zeros(1, { dtype: d })) : [];
      expect(mt.common_type(...arrays), k).toBe(want);
    }
    expect(() => mt.common_type(mt.zeros(1, { dtype: 'bool' }))).toThrow(/non-numeric/);
  });
  it('isscalar and iterable', () => {
    expect([3, 2.5, true, 10n, 'a'].map(mt.isscalar)).toEqual([true, true, true, true, true]);
    expect([mt.array(3), [1], null, undefined, { a: 1 }].map(mt.isscalar)).toEqual([false, false, false, false, false]);
    expect([mt.array(3), mt.arange(2), [1], 'ab', 3, null].map(mt.iterable)).toEqual([false, true, true, true, false, false]);
  });
});

describe('binary_repr and base_repr against NumPy', () => {
  it('binary_repr, with two\'s complement widths', () => {
    for (const [k, want] of Object.entries(T.binary_repr)) {
      const [num, width] = k.split(',');
      const call = () => mt.binary_repr(BigInt(num!), width === 'None' ? {} : { width: Number(width) });
      if (typeof want === 'string') expect(call(), k).toBe(want);
      else expect(call, k).toThrow(want.error);
    }
    expect(mt.binary_repr(-5, 8)).toBe('11111011');
    expect(() => mt.binary_repr(2.5)).toThrow(/'float' object cannot be interpreted as an integer/);
  });
  it('base_repr', () => {
    for (const [k, want] of Object.entries(T.base_repr)) {
      const [num, base, padding] = k.split(',').map(Number);
      expect(mt.base_repr(num!, base, padding), k).toBe(want);
    }
    expect(mt.base_repr(5.7)).toBe('101');
    expect(() => mt.base_repr(5, 37)).toThrow(/Bases greater than 36/);
    expect(() => mt.base_repr(5, 1)).toThrow(/Bases less than 2/);
  });
});

describe('constructors that call JS', () => {
  const check = async (t: mt.Tensor, name: string) => {
    const want = T.arrays[name]!;
    const r = await t.fetch();
    expect(r.shape, name).toEqual(want.shape);
    expect(r.dtype, name).toBe(want.dtype);
    expect(Array.from(r.data as ArrayLike<number | bigint>, Number), name).toEqual(want.data.map(Number));
  };
  it('fromfunction passes index grids in the dtype', async () => {
    await check(mt.fromfunction((i: mt.Tensor, j: mt.Tensor) => i.add(j), [2, 3]), 'fromfunction i+j (2,3)');
    await check(mt.fromfunction((i: mt.Tensor, j: mt.Tensor) => i.multiply(10).add(j), [3, 4], { dtype: mt.int64 }), 'fromfunction i*10+j int64 (3,4)');
    await check(mt.fromfunction((i: mt.Tensor, j: mt.Tensor) => i.equal(j), [3, 3]), 'fromfunction i==j (3,3)');
    await check(mt.fromfunction((i: mt.Tensor, j: mt.Tensor, k: mt.Tensor) => i.add(j).add(k), [2, 2, 3], { dtype: 'float32' }), 'fromfunction i+j+k float32 (2,2,3)');
    // other keywords reach the function, as NumPy's **kwargs do
    const r = mt.fromfunction((i: mt.Tensor, o: { scale: number }) => i.multiply(o.scale), [3], { scale: 2 });
    expect((await r.fetch()).toArray()).toEqual([0, 2, 4]);
  });
  it('fromiter takes count values of an iterable', async () => {
    function* upTo(n: number) { for (let i = 0; i < n; i++) yield i; }
    await check(mt.fromiter(upTo(5), 'float64', 3), 'fromiter count 3');
    await check(mt.fromiter([1, -2, 3], { dtype: 'int8' }), 'fromiter int8 all');
    expect(() => mt.fromiter(upTo(2), 'float64', 3)).toThrow('iterator too short: Expected 3 but iterator had only 2 items.');
    expect(() => mt.fromiter([1])).toThrow(/missing required argument 'dtype'/);
  });
  it('mask_indices of triu and tril', async () => {
    await check(mt.stack(mt.mask_indices(4, mt.triu)), 'mask_indices triu');
    await check(mt.stack(mt.mask_indices(4, mt.tril, -1)), 'mask_indices tril -1');
  });
  it('asarray_chkfinite refuses NaN and inf when the run computes them', async () => {
    await expect(mt.asarray_chkfinite([1, NaN]).fetch()).rejects.toThrow('array must not contain infs or NaNs');
    await expect(mt.asarray_chkfinite(mt.array([1, 0]).divide(0)).fetch()).rejects.toThrow('array must not contain infs or NaNs');
    expect((await mt.asarray_chkfinite([1, 2], 'float32').fetch()).dtype).toBe('float32');
  });
  it('windows and gufuncs name bad arguments', () => {
    expect(() => mt.hanning('5' as unknown as number)).toThrow(/M must be a number/);
    expect(() => mt.matvec(mt.ones([2, 3]), mt.ones(4))).toThrow('matvec: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature (m,n),(n)->(m) (size 4 is different from 3)');
    expect(() => mt.matvec(mt.ones(3), mt.ones(3))).toThrow(/Input operand 0 does not have enough dimensions/);
    expect(() => mt.vecmat(mt.ones(2), mt.ones([3, 4]))).toThrow(/size 3 is different from 2/);
  });
});

describe('index builders and iterators against NumPy', () => {
  /** An index item as the fixture writes NumPy's. */
  const itemOf = (it: unknown): unknown =>
    it instanceof mt.Slice ? { slice: [it.start, it.stop, it.step] } : it === null ? 'newaxis' : it === '...' ? 'ellipsis' : it;
  it('s_ and index_exp give the items x.get takes', async () => {
    for (const [k, want] of Object.entries(T.s_)) {
      expect(mt.index_exp.get(k).map(itemOf), k).toEqual(want);
      const one = mt.s_.get(k);
      expect((want.length === 1 ? [one] : (one as unknown[])).map(itemOf), k).toEqual(want);
    }
    const x = mt.arange(12).reshape(3, 4);
    const idx = mt.index_exp.get('::-1, 2');
    expect((await x.get(...idx).fetch()).toArray()).toEqual((await x.get('::-1, 2').fetch()).toArray());
  });
  it('ndindex visits a shape in C order, from integers or one array', () => {
    for (const [k, want] of Object.entries(T.ndindex)) {
      const shape = JSON.parse(k) as number[];
      expect([...mt.ndindex(...shape)], k).toEqual(want);
      expect([...mt.ndindex(shape)], k).toEqual(want);
    }
    expect(() => mt.ndindex(2, -1)).toThrow(/negative dimensions/);
    expect(() => mt.ndindex(2.5)).toThrow(/must be integers/);
  });
  it('ndenumerate pairs each index with its value, a tensor through for await', async () => {
    const inputs: Record<string, mt.Tensor> = {
      'float64 (2,2)': mt.tensor([[1.5, -2.0], [0.25, 3.0]]),
      'int32 (3,)': mt.tensor([7, -1, 4], { dtype: 'int32' }),
      'bool ()': mt.tensor(true),
    };
    for (const [k, want] of Object.entries(T.ndenumerate)) {
      const got: unknown[] = [];
      for await (const pair of mt.ndenumerate(inputs[k]!)) got.push(pair);
      expect(got, k).toEqual(want);
      expect([...mt.ndenumerate(await inputs[k]!.fetch())], k).toEqual(want);
    }
    expect(() => [...mt.ndenumerate(mt.ones(2))]).toThrow(/use `for await`/);
  });
  it('typecodes and the bool scalars', () => {
    expect({ ...mt.typecodes }).toEqual(T.typecodes);
    expect([mt.True_, mt.False_]).toEqual([true, false]);
  });
  it('require casts and refuses what an immutable C-ordered tensor cannot be', async () => {
    const r = mt.require([1, 2], 'float32', ['C', 'ALIGNED', 'O']);
    expect((await r.fetch()).dtype).toBe('float32');
    expect(() => mt.require([1], null, 'F')).toThrow(/Fortran/);
    expect(() => mt.require([1], { requirements: ['W'] })).toThrow(/immutable/);
    expect(() => mt.require([1], { requirements: ['Q'] })).toThrow(/unknown requirement "Q"/);
    expect(mt.isfortran(mt.ones([2, 2]))).toBe(false);
  });
});

describe('format_float_positional and format_float_scientific against NumPy', () => {
  const num = (v: number | string): number => (v === 'nan' ? NaN : v === 'inf' ? Infinity : v === '-inf' ? -Infinity : (v as number));
  const DT = { 16: 'float16', 32: 'float32', 64: 'float64' } as const;
  it('every value of each width with each option set, character for character', async () => {
    const arrays = new Map<string, mt.NDArray>();
    let n = 0;
    for (const [fn, v, width, opts, want] of T.format_float) {
      const key = `${width}:${Object.is(v, -0) ? "-0" : String(v)}`;
      if (!arrays.has(key)) arrays.set(key, await mt.tensor(num(v), { dtype: DT[width] }).fetch());
      const f = fn === 'format_float_positional' ? mt.format_float_positional : mt.format_float_scientific;
      // a float64 as a JS number, the narrower widths as their NDArray
      const x = width === 64 ? num(v) : arrays.get(key)!;
      expect(f(x as number, opts), `${fn}(${DT[width]}(${String(v)}), ${JSON.stringify(opts)})`).toBe(want);
      n++;
    }
    expect(n).toBeGreaterThan(1000);
  });
  it('takes NumPy\'s positional order and a tensor (a Promise), and names bad options', async () => {
    expect(mt.format_float_positional(1 / 3, 4)).toBe('0.3333');
    expect(mt.format_float_scientific(1234.5, 2, false)).toBe('1.23e+03');
    await expect(mt.format_float_positional(mt.tensor(0.1, { dtype: 'float32' }))).resolves.toBe('0.1');
    expect(() => mt.format_float_positional(1.0, { unique: false })).toThrow('in non-unique mode `precision` must be supplied');
    expect(() => mt.format_float_positional(1.0, { precision: 2, min_digits: 3 })).toThrow('min_digits must be less than or equal to precision');
    expect(() => mt.format_float_positional(1.0, { precision: -1 })).toThrow('precision must be non-negative');
    expect(() => mt.format_float_positional(1.0, { fractional: false, precision: 0 })).toThrow('precision must be greater than 0 if fractional=False');
    expect(() => mt.format_float_scientific(1.0, { pad_right: 2 })).toThrow(/unexpected keyword argument 'pad_right'/);
  });
  it('typename and little_endian', () => {
    for (const [c, want] of Object.entries(T.typename)) expect(mt.typename(c), c).toBe(want);
    expect(() => mt.typename('x')).toThrow(/unknown type character/);
    expect(mt.little_endian).toBe(true);
  });
});
