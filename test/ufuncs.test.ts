// The ufuncs of src/api/ufuncs.ts and their kernel ops, beyond the values
// in fixtures/numpy_ufuncs.json (gen_ufuncs.py): NumPy's errors for the
// dtypes and argument counts it refuses, the sign of a negative NaN (the JSON
// fixtures cannot carry it), the JS booleans of isrealobj/iscomplexobj, the
// Tensor methods and dtype=. Expected values are NumPy 2's.
import { afterAll, describe, expect, it } from 'vitest';
import * as mt from '../src/api/tensor.js';

afterAll(() => mt.shutdown());

const values = async (t: mt.Tensor, workers?: number): Promise<string[]> => {
  const r = await t.fetch(workers === undefined ? {} : { workers });
  return Array.from(r.data as ArrayLike<number | bigint>, (v) => (Object.is(v, -0) ? '-0' : String(v)));
};
/** A float64 NaN with its sign bit set (NumPy's -np.nan). */
const negNaN = (): number => new Float64Array(new BigUint64Array([0xfff8000000000000n]).buffer)[0]!;

describe('errors NumPy raises', () => {
  const i8 = () => mt.tensor([4, 6], { dtype: 'int8' });
  const f32 = () => mt.tensor([1.5, 2], { dtype: 'float32' });
  const cases: [string, () => unknown, ErrorConstructor, RegExp][] = [
    ['gcd of floats', () => mt.gcd(f32(), f32()), TypeError, /ufunc 'gcd' not supported for the input types/],
    ['lcm of a float and an int', () => mt.lcm(i8(), 2.5), TypeError, /ufunc 'lcm' not supported for the input types/],
    ['gcd of bools (no bool loop)', () => mt.gcd(mt.tensor([true]), mt.tensor([false])), TypeError, /ufunc 'gcd' not supported for the input types/],
    ['left_shift of floats', () => mt.left_shift(f32(), 1), TypeError, /ufunc 'left_shift' not supported for the input types/],
    ['right_shift of float64', () => mt.right_shift(mt.tensor([8.5]), mt.tensor([1.5])), TypeError, /ufunc 'right_shift' not supported/],
    ['a shift count the dtype cannot hold', () => mt.left_shift(i8(), 300), RangeError, /Python integer 300 out of bounds for int8/],
    ['a negative count for uint8', () => mt.right_shift(mt.tensor([4], { dtype: 'uint8' }), -1), RangeError, /Python integer -1 out of bounds for uint8/],
    ['ldexp with a float exponent', () => mt.ldexp(f32(), 3.0 + 0.5), TypeError, /ufunc 'ldexp' not supported for the input types/],
    ['ldexp with a float array exponent', () => mt.ldexp(f32(), f32()), TypeError, /ufunc 'ldexp' not supported/],
    ['ldexp with a JS int past int32', () => mt.ldexp(f32(), 2 ** 40), RangeError, /Python integer 1099511627776 out of bounds for int32/],
    ['gcd with one operand', () => (mt.gcd as (x: mt.Operand) => mt.Tensor)(i8()), TypeError, /gcd\(\) takes from 2 to 3 positional arguments but 1 were given/],
    ['heaviside with one operand', () => (mt.heaviside as (x: mt.Operand) => mt.Tensor)(f32()), TypeError, /heaviside\(\) takes from 2 to 3 positional arguments but 1 were given/],
    ['divmod with one operand', () => (mt.divmod as (x: mt.Operand) => unknown)(f32()), TypeError, /divmod\(\) takes from 2 to 4 positional arguments but 1 were given/],
    ['modf with none', () => (mt.modf as () => unknown)(), TypeError, /modf\(\) takes from 1 to 3 positional arguments but 0 were given/],
    ['logaddexp with an unknown keyword', () => mt.logaddexp(f32(), f32(), { axis: 0 }), TypeError, /logaddexp\(\) got an unexpected keyword argument 'axis'/],
    ['fmod with out=', () => mt.fmod(f32(), f32(), { out: f32() as unknown as null }), TypeError, /out= is not supported/],
    ['frexp with too many positionals', () => mt.frexp(f32(), null, null), TypeError, /frexp\(\) takes at most 1 arguments/],
  ];
  it.each(cases)('%s', (_, f, E, msg) => {
    expect(f).toThrow(E);
    expect(f).toThrow(msg);
  });
});

describe('the sign bit of NaN (which JSON fixtures cannot carry)', () => {
  it('signbit is true for -nan and -0, in float64 and float32, on WASM and inline', async () => {
    const x = mt.tensor(Float64Array.of(negNaN(), NaN, -0, 0, -1));
    // np.signbit([-nan, nan, -0., 0., -1.]) -> [True, False, True, False, True]
    expect(await values(mt.signbit(x))).toEqual(['1', '0', '1', '0', '1']);
    expect(await values(mt.signbit(x.astype('float32')), 0)).toEqual(['1', '0', '1', '0', '1']);
  });

  it('copysign takes the sign of a NaN', async () => {
    // np.copysign([3., 3., -2.], [-nan, nan, -0.]) -> [-3., 3., -2.]
    expect(await values(mt.copysign(mt.tensor([3, 3, -2]), mt.tensor(Float64Array.of(negNaN(), NaN, -0))))).toEqual(['-3', '3', '-2']);
    expect(await values(mt.copysign(mt.tensor([3, 3], { dtype: 'float32' }), mt.tensor(Float64Array.of(negNaN(), NaN)).astype('float32')), 0)).toEqual(['-3', '3']);
  });

  it('isposinf/isneginf follow the sign bit, as NumPy defines them', async () => {
    const x = mt.tensor([Infinity, -Infinity, NaN, -0, 1]);
    expect(await values(mt.isposinf(x))).toEqual(['1', '0', '0', '0', '0']);
    expect(await values(mt.isneginf(x))).toEqual(['0', '1', '0', '0', '0']);
  });
});

describe('what NumPy returns beyond arrays', () => {
  it('isrealobj and iscomplexobj are JS booleans (NumPy: Python bools)', () => {
    expect(mt.isrealobj(mt.tensor([1.5]))).toBe(true);
    expect(mt.iscomplexobj(mt.tensor([1.5]))).toBe(false);
    expect(mt.isrealobj(3)).toBe(true);
    expect(mt.iscomplexobj([1, 2])).toBe(false);
  });

  it('divmod, modf and frexp return JS arrays of two tensors, with NumPy dtypes', async () => {
    const [q, r] = mt.divmod(mt.tensor([7, -7], { dtype: 'int8' }), 2);
    expect([q.dtype, r.dtype]).toEqual(['int8', 'int8']);
    expect([await values(q), await values(r)]).toEqual([['3', '-4'], ['1', '1']]);
    const [m, e] = mt.frexp(mt.tensor([8, 0.3], { dtype: 'float32' }));
    // np.frexp(np.float32([8, 0.3])) -> ([0.5, 0.6], [4, -1]) in (float32, int32)
    expect([m.dtype, e.dtype]).toEqual(['float32', 'int32']);
    expect(await values(e)).toEqual(['4', '-1']);
    expect(await values(m)).toEqual(['0.5', String(Math.fround(0.6))]);
    const [f, i] = mt.modf(mt.tensor([-3.5], { dtype: 'int32' }));
    expect([f.dtype, i.dtype]).toEqual(['float64', 'float64']);
  });

  it('the kernel ops are Tensor methods, as every ufunc; frexp\'s halves are not', async () => {
    const a = mt.tensor([12, -18], { dtype: 'int16' });
    expect(await values(a.gcd(mt.tensor([8, 0], { dtype: 'int16' })))).toEqual(['4', '18']);
    expect(await values(a.left_shift(2))).toEqual(['48', '-72']);
    expect(await values(mt.tensor([1.5]).ldexp(3))).toEqual(['12']);
    expect((a as unknown as Record<string, unknown>).frexp_mantissa).toBeUndefined();
    expect((mt as unknown as Record<string, unknown>).frexp_mantissa).toBeUndefined();
  });

  it('dtype= picks the loop, as for every ufunc', async () => {
    // np.gcd(np.int8([12, -18]), np.int8([8, 0]), dtype='int32') -> int32 [4, 18]
    const g = mt.gcd(mt.tensor([12, -18], { dtype: 'int8' }), mt.tensor([8, 0], { dtype: 'int8' }), { dtype: 'int32' });
    expect(g.dtype).toBe('int32');
    expect(await values(g)).toEqual(['4', '18']);
  });

  it('aliases: bitwise_left_shift and bitwise_right_shift (NumPy 2)', async () => {
    expect(await values(mt.bitwise_right_shift(mt.tensor([-100], { dtype: 'int8' }), 100 - 92))).toEqual(['-1']);
    expect(await values(mt.bitwise_left_shift(mt.tensor([1], { dtype: 'uint8' }), 7))).toEqual(['128']);
  });
});
