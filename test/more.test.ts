// src/api/more.ts and linalg.tensorinv beyond the NumPy fixtures
// (gen_more.py): NumPy's errors with its messages (ValueError as
// RangeError, TypeError as TypeError, LinAlgError by name), int64 values a
// JSON fixture cannot carry, operands whose lengths are known only at run
// time (boolean-mask selections), round trips, and results that do not
// depend on the chunking. Expected values are NumPy 2.4's.
import { afterAll, describe, expect, it } from 'vitest';
import * as mt from '../src/api/tensor.js';

afterAll(() => mt.shutdown());

const vals = async (t: mt.Tensor): Promise<number[]> => Array.from((await t.fetch()).data as ArrayLike<number | bigint>, Number);
/** A selection: its length is known only once the run has computed the mask. */
const selected = (data: number[], dtype = 'float64'): mt.Tensor => {
  const t = mt.tensor(data, { dtype });
  return t.get(mt.greater_equal(mt.add(t, 0), 0));
};

describe('errors at the call, with NumPy messages', () => {
  it('bitwise_count refuses floats', () => {
    const msg = "ufunc 'bitwise_count' not supported for the input types, and the inputs could not be safely coerced to any supported types according to the casting rule ''safe''";
    expect(() => mt.bitwise_count([1.5, 2])).toThrow(new TypeError(msg));
    expect(() => mt.bitwise_count(1.5)).toThrow(TypeError);
    expect(() => mt.bitwise_count(mt.tensor([1], 'float16'))).toThrow(TypeError);
    expect(() => mt.bitwise_count([1], { where: [true] })).toThrow(/unexpected keyword argument 'where'/);
  });
  it('angle and spacing arguments', () => {
    expect(() => mt.angle([1], { degrees: true })).toThrow(/unexpected keyword argument 'degrees'/);
    expect(() => mt.spacing([1], { dtype: 'float32' })).toThrow(TypeError);
  });
  it('packbits', () => {
    expect(() => mt.packbits([1.0, 2.5])).toThrow(new TypeError('Expected an input array of integer or boolean data type'));
    expect(() => mt.packbits([])).toThrow(TypeError); // an empty list is float64, as in NumPy
    for (const order of ['l', 'B', 'LITTLE', '', 'xbig']) expect(() => mt.packbits([1], { bitorder: order })).toThrow(new RangeError("'order' must be either 'little' or 'big'"));
    expect(() => mt.packbits([1], { bitorder: null as unknown as string })).toThrow(/must be str, not None/);
    expect(() => mt.packbits([[1, 0]], { axis: 2 })).toThrow(new RangeError('axis 2 is out of bounds for array of dimension 2'));
    // a 0-d array is packed as a 1-d one, whatever axis says
    expect(() => mt.packbits(mt.tensor(3), { axis: 1 })).toThrow(new RangeError('axis 1 is out of bounds for array of dimension 1'));
    expect(() => mt.packbits([[1, 0]], { axis: 1.5 })).toThrow(new TypeError("'float' object cannot be interpreted as an integer"));
    expect(() => mt.packbits([1], 0, 'big', 3)).toThrow(/takes at most 2 arguments/);
  });
  it('unpackbits', () => {
    const b = mt.tensor([[2, 7], [255, 128]], 'uint8');
    expect(() => mt.unpackbits(mt.tensor([1], 'int8'))).toThrow(new TypeError('Expected an input array of unsigned byte data type'));
    expect(() => mt.unpackbits([true])).toThrow(TypeError);
    expect(() => mt.unpackbits([1, 2])).toThrow(TypeError); // int64
    for (const order of ['L', 'Big', '', 'xl']) expect(() => mt.unpackbits(b, { bitorder: order })).toThrow(new RangeError("'order' must begin with 'l' or 'b'"));
    expect(() => mt.unpackbits(b, { count: -33 })).toThrow(new RangeError('-count larger than number of elements'));
    expect(() => mt.unpackbits(b, { axis: 1, count: -17 })).toThrow(new RangeError('-count larger than number of elements'));
    expect(() => mt.unpackbits(mt.zeros([0, 2], { dtype: 'uint8' }), { axis: 0, count: -1 })).toThrow('-count larger than number of elements');
    expect(() => mt.unpackbits(b, { count: 2.5 })).toThrow(new TypeError('an integer is required'));
    expect(() => mt.unpackbits(b, { count: true as unknown as number })).toThrow(new TypeError('an integer is required'));
    expect(() => mt.unpackbits(b, { axis: -3 })).toThrow(new RangeError('axis -3 is out of bounds for array of dimension 2'));
  });
  it('trim_zeros', () => {
    const m = mt.tensor([[0, 1], [0, 0]]);
    for (const t of ['x', '', 'fbf', 'ff']) expect(() => mt.trim_zeros(m, t)).toThrow(new RangeError(`unexpected character(s) in \`trim\`: '${t}'`));
    expect(() => mt.trim_zeros(m, 'X')).toThrow("unexpected character(s) in `trim`: 'x'");
    expect(() => mt.trim_zeros(m, null as unknown as string)).toThrow(TypeError);
    expect(() => mt.trim_zeros(m, { axis: [1, -1] })).toThrow(new RangeError('repeated axis in `axis` argument'));
    expect(() => mt.trim_zeros(m, { axis: 2 })).toThrow(new RangeError('axis 2 is out of bounds for array of dimension 2'));
    expect(() => mt.trim_zeros(m, { axis: 1.5 })).toThrow(new TypeError("'float' object is not iterable"));
    expect(() => mt.trim_zeros(mt.tensor(0), { axis: 0 })).toThrow(new RangeError('axis 0 is out of bounds for array of dimension 0'));
  });
  it('linalg.tensorinv', () => {
    const a = mt.reshape(mt.eye(6), [2, 3, 6]);
    expect(() => mt.linalg.tensorinv(a, { ind: 0 })).toThrow(new RangeError('Invalid ind argument.'));
    expect(() => mt.linalg.tensorinv(a, -1)).toThrow(new RangeError('Invalid ind argument.'));
    expect(() => mt.linalg.tensorinv(a, 1.5)).toThrow(new TypeError('slice indices must be integers or None or have an __index__ method'));
    expect(() => mt.linalg.tensorinv(a, { idx: 2 })).toThrow(/unexpected keyword argument 'idx'/);
    for (const [shape, ind] of [[[2, 3, 6], 1], [[2, 3, 5], 2], [[2, 3, 4], 2]] as const) {
      let err: unknown;
      try { mt.linalg.tensorinv(mt.ones(shape), ind); } catch (e) { err = e; }
      expect(err).toBeInstanceOf(mt.linalg.LinAlgError);
      expect((err as Error).message).toBe('Last 2 dimensions of the array must be square');
    }
    expect(() => mt.linalg.tensorinv(mt.zeros([0, 3, 0]), 1)).toThrow(/cannot reshape array of size 0/);
    expect(() => mt.linalg.tensorinv(mt.reshape(mt.eye(4, { dtype: 'float16' }), [2, 2, 2, 2]))).toThrow(new TypeError('array type float16 is unsupported in linalg'));
    // NumPy reshapes the inverse with reshape(*()), which Python refuses
    expect(() => mt.linalg.tensorinv(mt.tensor(2.0))).toThrow(new TypeError('reshape() takes exactly 1 argument (0 given)'));
  });
});

describe('values', () => {
  it('bitwise_count at int64 extremes (past what JSON numbers hold)', async () => {
    const x = mt.tensor(BigInt64Array.of(-(2n ** 63n), 2n ** 63n - 1n, -1n, 0x5555555555555555n, -0x5555555555555555n));
    const r = mt.bitwise_count(x);
    expect(r.dtype).toBe('uint8');
    expect(await vals(r)).toEqual([1, 63, 1, 32, 32]);
  });
  it('0-d results for JS scalars', async () => {
    for (const [t, dtype, v] of [[mt.angle(-1), 'float64', Math.PI], [mt.spacing(1), 'float64', 2 ** -52], [mt.bitwise_count(-7), 'uint8', 3], [mt.angle(true, true), 'float64', 0]] as const) {
      const r = await t.fetch();
      expect([r.shape, r.dtype, Number(r.data[0])]).toEqual([[], dtype, v]);
    }
  });
  it('spacing of float16 steps towards +inf (npy_half_spacing), float32 and float64 away from zero', async () => {
    expect(await vals(mt.spacing(mt.tensor([-1, -3, -0, -65504], 'float16')))).toEqual([2 ** -11, 2 ** -9, 2 ** -24, 32]);
    expect(await vals(mt.spacing(mt.tensor([-1, -0, -3.4028234663852886e38], 'float32')))).toEqual([-(2 ** -23), 2 ** -149, -Infinity]);
  });
  it('unpackbits of an empty axis with count pads zeros (NumPy returns uninitialised memory there)', async () => {
    const r = mt.unpackbits(mt.zeros([0, 2], { dtype: 'uint8' }), { axis: 0, count: 3 });
    expect(r.shape).toEqual([3, 2]);
    expect(await vals(r)).toEqual([0, 0, 0, 0, 0, 0]);
  });
  it('unpackbits(packbits(x)) gives x != 0 back, for every axis and bit order', async () => {
    const x = mt.tensor([[[3, 0, 1], [0, 0, -2], [5, 1, 0]], [[0, 1, 1], [1, 0, 0], [0, 0, 7]]], 'int8');
    const want = await vals(mt.astype(mt.not_equal(x, 0), 'uint8'));
    for (const axis of [0, 1, 2]) {
      for (const bitorder of ['big', 'little']) {
        const p = mt.packbits(x, { axis, bitorder });
        expect(await vals(mt.unpackbits(p, { axis, count: x.shape[axis], bitorder }))).toEqual(want);
      }
    }
  });
  it('tensorinv is the inverse for tensordot over ind axes', async () => {
    const a = mt.add(mt.reshape(mt.eye(6), [2, 3, 3, 2]), mt.multiply(mt.reshape(mt.arange(36), [2, 3, 3, 2]), 0.01));
    const ainv = mt.linalg.tensorinv(a);
    expect(ainv.shape).toEqual([3, 2, 2, 3]);
    const id = await vals(mt.tensordot(ainv, a, { axes: 2 }));
    const eye = await vals(mt.reshape(mt.eye(6), [3, 2, 3, 2]));
    id.forEach((v, i) => expect(Math.abs(v - eye[i]!)).toBeLessThan(1e-12));
    expect(mt.linalg.tensorinv(mt.astype(a, 'float32')).dtype).toBe('float32');
  });
  it('tensorinv of a singular tensor fails the run with LinAlgError', async () => {
    const err = await mt.linalg.tensorinv(mt.ones([2, 2, 4])).fetch().then(() => undefined, (e: unknown) => e);
    expect((err as Error).name).toBe('LinAlgError');
    expect((err as Error).message).toBe('Singular matrix');
  });
  it('trim_zeros of a computed tensor, on every chunking', async () => {
    const t = mt.zeros([4, 5, 6]).set('1, 2, 3', 1).set('2, 1, 4', -2).set('1, 3, 3', NaN);
    for (const chunkSize of [1, 2, 3, 7]) {
      const x = mt.add(mt.tensor((await t.fetch()).toArray() as number[][][], { chunkSize }), 0);
      const r = await mt.trim_zeros(x).fetch({ workers: 0 });
      expect(r.shape).toEqual([2, 3, 2]);
      expect(Array.from(r.data as Float64Array)).toEqual([0, 0, 1, 0, NaN, 0, 0, -2, 0, 0, 0, 0]);
      expect((await mt.trim_zeros(x, 'f', { axis: [0, 2] }).fetch()).shape).toEqual([3, 5, 3]);
    }
  });
});

describe('operands whose lengths are known only at run time', () => {
  it('packbits and unpackbits of a selection', async () => {
    const s = selected([1, -1, 0, 2, 0, 0, 3, 1, 5], 'int32'); // [1, 0, 2, 0, 0, 3, 1, 5]: one byte
    const p = mt.packbits(s);
    expect(p.shape.every(Number.isNaN)).toBe(true);
    expect(await vals(p)).toEqual([0b10100111]);
    expect(await vals(mt.packbits(s, { bitorder: 'little' }))).toEqual([0b11100101]);
    const u = mt.unpackbits(mt.astype(selected([3, -1, 255]), 'uint8'), { count: -3 });
    expect(await vals(u)).toEqual([0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1]);
    // a count past the bits is known to be one only when the run knows the length
    const err = await mt.unpackbits(mt.astype(selected([3, -1]), 'uint8'), { count: -9 }).fetch().then(() => undefined, (e: unknown) => e);
    expect((err as Error).message).toBe('-count larger than number of elements');
  });
  it('packbits along an axis of known length, of rows selected at run time', async () => {
    const m = mt.tensor([[1, 0, 1], [0, 0, 0], [0, 1, 1]], 'uint8');
    const rows = mt.compress(mt.greater(mt.sum(m, { axis: 1 }), 0), m, { axis: 0 });
    const p = mt.packbits(rows, { axis: 1 });
    expect(p.shape[1]).toBe(1);
    expect(await vals(p)).toEqual([0b10100000, 0b01100000]);
    expect(await vals(mt.unpackbits(p, { axis: 1, count: 3 }))).toEqual([1, 0, 1, 0, 1, 1]);
  });
  it('trim_zeros of a selection', async () => {
    const r = mt.trim_zeros(selected([0, -1, 0, 4, -2, 0, 5, 0]), 'b');
    expect(await vals(r)).toEqual([0, 0, 4, 0, 5]);
    expect((await r.fetch()).shape).toEqual([5]);
  });
  it('elementwise functions keep the unknown length', async () => {
    const s = selected([-0.5, -1, 2, 0]);
    expect(await vals(mt.angle(s, { deg: true }))).toEqual([0, 0]);
    expect(await vals(mt.spacing(s))).toEqual([2 ** -51, 5e-324]);
    expect(await vals(mt.bitwise_count(mt.astype(s, 'int16')))).toEqual([1, 0]);
  });
  it('tensorinv asks for the operand to be executed first', () => {
    expect(() => mt.linalg.tensorinv(selected([2, -1]), 1)).toThrow(/execute\(\) it first/);
  });
});
