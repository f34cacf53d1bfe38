// The API contract beyond values (those are in conformance.test.ts): errors
// thrown where the user wrote the call, NDArray, execute/fetch/eager,
// progress and the report, lengths known only at run time, value semantics
// of set, and what a failing execution leaves behind.
import { readFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, describe, expect, it } from 'vitest';
import * as mt from '../src/api/tensor.js';

afterAll(() => mt.shutdown());

describe('errors at the call site', () => {
  const cases: [string, () => unknown, RegExp][] = [
    ['broadcast', () => mt.ones([3, 2]).multiply(mt.ones([3])), /could not be broadcast together with shapes \(3, 2\) \(3,\)/],
    ['axis', () => mt.sum(mt.ones([2, 3]), { axis: -3 }), /axis -3 is out of bounds for array of dimension 2/],
    ['repeated axis', () => mt.sum(mt.ones([2, 3]), { axis: [0, -2] }), /repeated axis/],
    ['dtype', () => mt.zeros([2], { dtype: 'float128' }), /data type "float128" not understood/],
    ['matmul', () => mt.matmul(mt.ones([2, 3]), mt.ones([2, 3])), /mismatch in its core dimension 0.*size 2 is different from 3/],
    ['concatenate', () => mt.concatenate([mt.ones([2, 3]), mt.ones([2, 4])]), /along dimension 1, the array at index 0 has size 3 and the array at index 1 has size 4/],
    ['index bounds', () => mt.ones([2, 3]).get('0, 3'), /index 3 is out of bounds for axis 1 with size 3/],
    ['too many indices', () => mt.ones([2]).get('0, 0'), /too many indices for array: array is 1-dimensional, but 2 were indexed/],
    ['slice step', () => mt.ones([4]).get('::0'), /slice step cannot be zero/],
    ['index syntax', () => mt.ones([4]).get('1:x'), /slice bounds must be integers/],
    ['float index', () => mt.ones([4]).get(mt.tensor([0.5])), /arrays used as indices must be of integer \(or boolean\) type/],
    ['mask shape', () => mt.ones([4]).get(mt.tensor([true, false])), /boolean index did not match indexed array along axis 0; size of axis is 4 but size of corresponding boolean axis is 2/],
    ['split', () => mt.split(mt.ones([5]), 2), /array split does not result in an equal division/],
    ['negative shape', () => mt.zeros([2, -1]), /negative dimensions are not allowed/],
    ['bool subtract', () => mt.tensor([true]).subtract(mt.tensor([false])), /numpy boolean subtract/],
    ['bitwise float', () => mt.bitwise_and(mt.ones([2]), mt.ones([2])), /ufunc 'bitwise_and' not supported for the input types \(float64\)/],
    ['weak int range', () => mt.ones([2], { dtype: 'uint8' }).add(300), /Python integer 300 out of bounds for uint8/],
    ['operand type', () => mt.add(mt.ones([2]), null as unknown as number), /unsupported operand type null/],
    ['arange type', () => mt.arange('5' as unknown as number), /arange\(\): 'start' must be a number, got '5'/],
    ['einsum', () => mt.einsum('ij,jk->ik', mt.ones([2, 3]), mt.ones([4, 2])), /operands could not be broadcast for subscript 'j' \(3 vs 4\)/],
    ['chunkSize', () => mt.tensor([1, 2], { chunkSize: 0 }), /chunkSize must be a positive integer, got 0/],
    ['arange to infinity', () => mt.arange(0, Infinity), /Maximum allowed size exceeded/],
    ['arange of NaN', () => mt.arange(NaN), /arange: cannot compute length/],
    ['arange too long', () => mt.arange(1e300), /Maximum allowed size exceeded/],
    ['shape too big', () => mt.zeros([1e300]), /array is too big/],
    ['full value type', () => mt.full([2], 'x' as unknown as number), /fill_value must be a number, a boolean or an array, got 'x'/],
    ['full value range', () => mt.full([2], 300, { dtype: 'uint8' }), /Python integer 300 out of bounds for uint8/],
    ['tensor value range', () => mt.tensor([300, -1], { dtype: 'uint8' }), /Python integer 300 out of bounds for uint8/],
    ['negative int power', () => mt.tensor([2, 3]).power(-1), /Integers to negative integer powers are not allowed/],
    ['negative int power in an array', () => mt.tensor([2, 3]).power([1, -1]), /Integers to negative integer powers are not allowed/],
    ['negative int power in a typed array', () => mt.power(mt.tensor([2, 3]), new Int32Array([2, -2])), /Integers to negative integer powers are not allowed/],
    ['negative bigint power', () => mt.tensor([2, 3]).power(-1n as never), /Integers to negative integer powers are not allowed/],
    ['round decimals', () => mt.round(mt.tensor([1.234]), { decimals: 1.5 }), /'decimals' must be an integer, got 1.5/],
    ['trace of 1-d', () => mt.trace(mt.arange(3)), /diag requires an array of at least two dimensions/],
    ['tril of 0-d', () => mt.tril(mt.tensor(3)), /tril: input must be at least 1-dimensional/],
    ['moveaxis lengths', () => mt.moveaxis(mt.zeros([2, 3]), [0, 1], [0]), /`source` and `destination` arguments must have the same number of elements/],
    ['normal scale', () => mt.random.normal(0, -1, [3]), /scale < 0/],
    ['exponential scale', () => mt.random.exponential(-1, [3]), /scale < 0/],
    ['randint bounds', () => mt.random.randint(0, 300, [3], { dtype: 'uint8' }), /high is out of bounds for uint8/],
    ['randint dtype', () => mt.random.randint(0, 3, [3], { dtype: 'float64' }), /Unsupported dtype float64 for integers/],
    ['uniform dtype', () => mt.random.uniform(0, 1, [3], { dtype: 'int32' }), /Unsupported dtype int32 for random draws of floats/],
    ['random in float16', () => mt.random.default_rng(0).random(3, { dtype: 'float16' }), /Unsupported dtype float16 for random draws of floats/],
    ['normal in float16', () => mt.random.default_rng(0).standard_normal(3, { dtype: 'float16' }), /Unsupported dtype float16 for random draws of floats/],
    ['linalg of float16', () => mt.linalg.inv(mt.eye(2, { dtype: 'float16' })), /array type float16 is unsupported in linalg/],
    ['svd of float16', () => mt.linalg.svdvals(mt.eye(2, { dtype: 'float16' })), /array type float16 is unsupported in linalg/],
    ['norm ord for vectors', () => mt.linalg.norm(mt.tensor([3, 4]), { ord: 'fro' }), /Invalid norm order 'fro' for vectors/],
    ['norm dimensions', () => mt.linalg.norm(mt.ones([2, 2, 2]), { ord: 1 }), /Improper number of dimensions to norm/],
    ['norm duplicate axes', () => mt.linalg.norm(mt.ones([2, 2]), { axis: [0, -2] }), /Duplicate axes given/],
    ['misspelt keyword', () => mt.std(mt.ones([3]), { ddoff: 1 } as never), /unexpected keyword argument 'ddoff'/],
    ['repeated expand axis', () => mt.expand_dims(mt.ones([2]), [0, 0]), /repeated axis/],
    ['concatenate of a tensor', () => mt.concatenate(mt.arange(3) as never), /the first argument must be a list of arrays/],
    ['eye k', () => mt.eye(3, { k: 0.5 }), /'k' must be an integer, got 0.5/],
    ['trace offset', () => mt.trace(mt.ones([2, 2]), { offset: 0.5 }), /'offset' must be an integer, got 0.5/],
    ['take bounds', () => mt.take(mt.arange(3), [5]), /index 5 is out of bounds for axis 0 with size 3/],
    ['argmin of empty', () => mt.zeros([0]).argmin(), /attempt to get argmin of an empty sequence/],
    ['argmax keys', () => mt.argmax(mt.ones([2]), { ddof: 1 } as never), /unexpected keyword argument 'ddof'/],
    ['keepdims type', () => mt.sum(mt.ones([2]), { keepdims: 'yes' } as never), /keepdims must be a boolean/],
    ['int64 bound', () => mt.tensor([2n ** 63n], { dtype: 'int64' }), /Python integer 9223372036854775808 out of bounds for int64/],
    ['set of a Python int out of range', () => mt.arange(3, { dtype: 'uint8' }).set(0, 300), /Python integer 300 out of bounds for uint8/],
    ['set of a negative int into uint8', () => mt.arange(3, { dtype: 'uint8' }).set(':2', [1, -1]), /Python integer -1 out of bounds for uint8/],
    ['arange start out of range', () => mt.arange(-3, 3, { dtype: 'uint8' }), /Python integer -3 out of bounds for uint8/],
    ['arange of bools', () => mt.arange(0, 3, { dtype: 'bool' }), /only supported for booleans when the result has at most length 2/],
    ['array keyword', () => mt.tensor([1, 2], { dtyp: 'int8' } as never), /array\(\) got an unexpected keyword argument 'dtyp'/],
    ['array order', () => mt.tensor([1, 2], { order: 'X' } as never), /order must be one of 'C', 'F', 'A', or 'K'/],
    ['nested tensors of two shapes', () => mt.tensor([mt.arange(2), mt.arange(3)] as never), /inhomogeneous shape after 1 dimensions/],
    ['diag keyword', () => mt.diag(mt.ones([2, 2]), { kk: 1 } as never), /diag\(\) got an unexpected keyword argument 'kk'/],
    ['tile positionals', () => mt.tile(mt.ones([2]), 2, 9 as never), /tile\(\) takes at most 1 arguments after the array \(2 given/],
    ['swapaxes positionals', () => mt.ones([2, 2]).swapaxes(0, 1, 9), /swapaxes\(\) takes at most 2 arguments after the array \(3 given/],
    ['swapaxes missing', () => mt.swapaxes(mt.ones([2, 2]), { axis1: 0 }), /swapaxes\(\) missing required argument 'axis2'/],
    ['expand_dims missing', () => mt.expand_dims(mt.ones([2])), /expand_dims\(\) missing required argument 'axis'/],
    ['vstack keyword', () => mt.vstack([mt.ones([2])], { axis: 0 } as never), /vstack\(\) got an unexpected keyword argument 'axis'/],
    ['ufunc keyword', () => mt.add(mt.ones([2]), 1, { bogus: 1 } as never), /add\(\) got an unexpected keyword argument 'bogus'/],
    ['ufunc out', () => mt.add(mt.ones([2]), 1, { out: mt.ones([2]) } as never), /add\(\): out= is not supported/],
    ['ufunc out positional', () => mt.sqrt(mt.ones([2]), 5 as never), /sqrt\(\): out= is not supported/],
    ['ufunc where mask', () => mt.add(mt.ones([2]), 1, { where: mt.ones([2], { dtype: 'bool' }) } as never), /add\(\): where= is not supported/],
    ['ufunc without its operand', () => (mt.add as (x: unknown) => unknown)(mt.ones([2])), /add\(\) takes from 2 to 3 positional arguments but 1 were given/],
    ['ufunc loop', () => mt.sqrt(mt.ones([2], { dtype: 'int16' }), { dtype: 'int32' }), /No loop matching the specified signature and casting was found for ufunc sqrt/],
    ['ufunc casting of a float scalar', () => mt.add(mt.ones([2], { dtype: 'int16' }), 2.5, { dtype: 'int16' }), /Cannot cast ufunc 'add' input 1 from dtype\('float64'\) to dtype\('int16'\) with casting rule 'same_kind'/],
    ['ufunc safe casting', () => mt.add(mt.ones([2], { dtype: 'int16' }), 1, { dtype: 'int8', casting: 'safe' }), /Cannot cast ufunc 'add' input 0 from dtype\('int16'\) to dtype\('int8'\) with casting rule 'safe'/],
    ['ufunc casting name', () => mt.add(mt.ones([2]), 1, { casting: 'loose' } as never), /casting must be one of/],
    ['round of bools to decimals', () => mt.round(mt.tensor([true]), 1), /boolean array with decimals != 0/],
    ['take with float indices', () => mt.take(mt.arange(3), mt.tensor([1.0, 0.5])), /Cannot cast array data from dtype\('float64'\) to dtype\('int64'\) according to the rule 'safe'/],
    ['svdvals of a vector', () => mt.linalg.svdvals(mt.arange(3)), /1-dimensional array given\. Array must be at least two-dimensional/],
    ['matrix norm order', () => mt.linalg.norm(mt.ones([2, 2]), 3), /Invalid norm order for matrices/],
    ['quantile method', () => mt.quantile(mt.arange(3), 0.5, { method: 'cubic' }), /"cubic" is not a valid method\. Use one of: inverted_cdf, .*, nearest/],
    ['quantile of an empty line', () => mt.quantile(mt.zeros([0, 3]), 0.5, { axis: 0 }), /index -1 is out of bounds for axis 0 with size 0/],
    ['quantile of bools by interpolation', () => mt.quantile(mt.tensor([true, false]), 0.5), /numpy boolean subtract, the `-` operator, is not supported/],
    ['quantile q of 3 dimensions', () => mt.quantile(mt.arange(3), [[[0.5]]]), /q must be a scalar or 1d/],
    ['quantile weights with another method', () => mt.quantile(mt.arange(3), 0.5, { weights: [1, 1, 1] }), /Only method 'inverted_cdf' supports weights\. Got: linear\./],
    ['einsum keyword', () => mt.einsum('i->', mt.arange(3), { dtyp: 'int8' } as never), /einsum\(\) got an unexpected keyword argument 'dtyp'/],
    ['einsum safe casting', () => mt.einsum('i->', mt.arange(3.5), { dtype: 'int64' }), /Cannot cast array data from dtype\('float64'\) to dtype\('int64'\) according to the rule 'safe'/],
    ['astype safe casting', () => mt.arange(3.5).astype('int8', { casting: 'safe' }), "Cannot cast array data from dtype('float64') to dtype('int8') according to the rule 'safe'"],
    ['astype casting name', () => mt.astype(mt.arange(3), 'int8', { casting: 'sometimes' }), /casting must be one of 'no', 'equiv', 'safe', 'same_kind', or 'unsafe'/],
    ['astype keyword', () => mt.arange(3).astype('int8', { castng: 'safe' } as never), /astype\(\) got an unexpected keyword argument 'castng'/],
    ['full fill shape', () => mt.full([2, 4], [1, 2, 3]), 'could not broadcast input array from shape (3,) into shape (2,4)'],
    ['var ddof and correction', () => mt.var(mt.arange(3), { ddof: 1, correction: 1 }), "ddof and correction can't be provided simultaneously."],
  ];
  it.each(cases)('%s', (_, f, re) => {
    expect(f).toThrow(re);
  });
  it('full and full_like with an array fill value, var and std with NumPy 2\'s mean= and correction=, astype by a casting rule', async () => {
    const got = async (t: mt.Tensor) => { const r = await t.fetch(); return [r.dtype, r.toArray()]; };
    // NumPy 2.4: int64 [[1 2 3] [1 2 3]]; full_like casts into int8 ([[1 2 3] [1 2 3]])
    expect(await got(mt.full([2, 3], [1, 2, 3]))).toEqual(['int64', [[1, 2, 3], [1, 2, 3]]]);
    expect(await got(mt.full_like(mt.zeros([2, 3], { dtype: 'int8' }), [1.7, 2, 3]))).toEqual(['int8', [[1, 2, 3], [1, 2, 3]]]);
    expect(await got(mt.full([2, 2], mt.tensor([[0.5], [1.5]]), { dtype: 'float32' }))).toEqual(['float32', [[0.5, 0.5], [1.5, 1.5]]]);
    const a = mt.arange(12).reshape([3, 4]);
    // np.var(A, axis=1, mean=np.mean(A, axis=1, keepdims=True)) = [1.25 1.25 1.25]; np.std(A, correction=1) = 3.605551275463989
    expect(await got(mt.var(a, { axis: 1, mean: mt.mean(a, { axis: 1, keepdims: true }) }))).toEqual(['float64', [1.25, 1.25, 1.25]]);
    expect((await mt.std(a, { correction: 1 }).fetch()).item()).toBe(3.605551275463989);
    expect(await got(mt.arange(3).astype('float64', { casting: 'safe' }))).toEqual(['float64', [0, 1, 2]]);
  });
  it('linspace(retstep=True) gives the samples and the step, NaN where there is none', async () => {
    const [x, step] = mt.linspace(0, 1, 5, { retstep: true });
    expect(step).toBe(0.25);
    expect(Array.from((await x.fetch()).data as Float64Array)).toEqual([0, 0.25, 0.5, 0.75, 1]);
    expect(mt.linspace(0, 1, 1, { retstep: true })[1]).toBeNaN();
    expect(mt.linspace(0, 1, 1, { endpoint: false, retstep: true })[1]).toBe(1);
  });
  it('a list holding tensors stacks them, lazily computed ones too, with the dtype NumPy discovers', async () => {
    const lazy = mt.arange(3).multiply(2);
    const r = await mt.tensor([lazy, [1, 2, 3.5]]).fetch();
    expect(r.dtype).toBe('float64');
    expect(r.toArray()).toEqual([[0, 2, 4], [1, 2, 3.5]]);
    expect((await mt.tensor([[mt.tensor(1, { dtype: 'int8' }), 2]], { dtype: 'int16' }).fetch()).dtype).toBe('int16');
  });
  it('repeat takes its counts from a computed tensor', async () => {
    const counts = await mt.tensor([2, 0, 1]).add(0).execute();
    expect((await mt.repeat(mt.tensor([7, 8, 9]), counts).fetch()).toArray()).toEqual([7, 7, 9]);
  });
  it('execute of something other than tensors', async () => {
    await expect(mt.execute(5 as never)).rejects.toThrow(/execute\(\): argument 0 is not a tensor \(got 5\)/);
  });
});

describe('fetch, execute and NDArray', () => {
  it('returns shape, dtype, C-order data, nested arrays and 0-d items', async () => {
    const r = await mt.arange(6, { dtype: 'int32' }).reshape([2, 3]).T.fetch();
    expect(r.shape).toEqual([3, 2]);
    expect(r.dtype).toBe('int32');
    expect(Array.from(r.data as Int32Array)).toEqual([0, 3, 1, 4, 2, 5]);
    expect(r.toArray()).toEqual([[0, 3], [1, 4], [2, 5]]);
    expect((await mt.sum(mt.arange(5)).fetch()).item()).toBe(10);
    expect(() => r.item()).toThrow(/size 1/);
  });

  it('holds int64 exactly as BigInt64Array data', async () => {
    const big = 2 ** 53 + 2;
    const r = await mt.tensor(BigInt64Array.from([BigInt(big), -3n])).add(1).fetch();
    expect(r.data).toBeInstanceOf(BigInt64Array);
    expect((r.data as BigInt64Array)[0]).toBe(BigInt(big) + 1n);
    expect(r.toArray()).toEqual([BigInt(big) + 1n, -2]);
  });

  it('execute() resolves to the same tensor, materialised; mt.execute runs several outputs in one graph', async () => {
    const x = mt.arange(100, { dtype: 'float64' });
    const s = x.multiply(2);
    expect(await s.execute()).toBe(s);
    const [a, b] = await mt.execute(s.sum(), s.max());
    expect((await a!.fetch()).item()).toBe(9900);
    expect((await b!.fetch()).item()).toBe(198);
  });

  it('reports progress and an execution report', async () => {
    const seen: { done: number; total: number }[] = [];
    const t = mt.random.uniform(0, 1, [40_000], { chunkSize: 4_000 }).sum();
    await t.fetch({ onProgress: (p) => seen.push({ done: p.done, total: p.total }) });
    expect(seen.length).toBeGreaterThan(0);
    const last = seen[seen.length - 1]!;
    expect(last.done).toBe(last.total);
    for (let i = 1; i < seen.length; i++) expect(seen[i]!.done).toBeGreaterThanOrEqual(seen[i - 1]!.done);
    const rep = mt.lastReport()!;
    expect(rep.tasks).toBeGreaterThanOrEqual(10);
    expect(rep.peakBytes).toBeGreaterThan(0);
  });

  it('eager mode starts work at once and still fetches the same values', async () => {
    mt.options.eager = true;
    try {
      const x = mt.arange(10).multiply(3);
      expect((await x.fetch()).toArray()).toEqual([0, 3, 6, 9, 12, 15, 18, 21, 24, 27]);
    } finally {
      mt.options.eager = false;
    }
  });
});

describe('average with returned, nanstd\'s errors, the sign of a zero remainder', () => {
  it('average(returned=True) gives the mean and the sum of weights, broadcast to the mean', async () => {
    const [avg, scl] = mt.average(mt.tensor([1, 2, 3, 4]), { weights: [4, 3, 2, 1], returned: true });
    expect((await avg.fetch()).item()).toBe(2); // (4 + 6 + 6 + 4) / 10
    expect((await scl.fetch()).item()).toBe(10);
    const [a0, s0] = mt.average(mt.tensor([[1, 2], [3, 4]]), 0, [1, 3], true);
    expect((await a0.fetch()).toArray()).toEqual([2.5, 3.5]);
    expect((await s0.fetch()).toArray()).toEqual([4, 4]);
    const [a1, s1] = mt.average(mt.tensor([[1, 2], [3, 4]]), { axis: 1, returned: true, keepdims: true });
    expect((await a1.fetch()).toArray()).toEqual([[1.5], [3.5]]);
    const c = await s1.fetch();
    expect([c.shape, c.dtype, c.toArray()]).toEqual([[2, 1], 'float64', [[2], [2]]]);
  });

  it('raises NumPy\'s ZeroDivisionError when the run finds weights that sum to zero, and passes sums that do not', async () => {
    const err = await mt.average(mt.tensor([1, 2, 3]), { weights: [1, -1, 0] }).fetch().catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    expect([(err as Error).name, (err as Error).message]).toEqual(['ZeroDivisionError', "Weights sum to zero, can't be normalized"]);
    // one zero sum among several (along an axis) is enough, as np.any(scl == 0) in NumPy
    await expect(mt.average(mt.tensor([[1, 2], [3, 4]]), { axis: 1, weights: [[1, 1], [2, -2]] }).fetch()).rejects.toThrow(/Weights sum to zero/);
    // weights whose sum is known only at run time, from a selection
    const w = mt.tensor([2, -5, 1, -3]);
    const kept = w.get(w.greater(0)); // [2, 1]
    expect((await mt.average(mt.tensor([4, 10]), { weights: kept }).fetch()).item()).toBe(6); // (8 + 10) / 3
    await expect(mt.average(mt.tensor([4, 10]), { weights: kept.subtract(kept.sum().divide(2)) }).fetch()).rejects.toThrow(/Weights sum to zero/);
    // a NaN sum is not zero: NaN, as NumPy
    expect((await mt.average(mt.tensor([1, 2]), { weights: [NaN, 1] }).fetch()).item()).toBeNaN();
  });

  it('pads as np.pad does, and names what is wrong with a pad', async () => {
    // corners come from the last axis padded, as NumPy pads axis by axis
    const p = await mt.pad(mt.tensor([[1, 2], [3, 4]]), 1, { constant_values: [[10, 20], [30, 40]] }).fetch();
    expect(p.toArray()).toEqual([[30, 10, 10, 40], [30, 1, 2, 40], [30, 3, 4, 40], [30, 20, 20, 40]]);
    expect((await mt.pad(mt.tensor([1, 2, 3]), [5, 4], 'reflect').fetch()).toArray()).toEqual([2, 1, 2, 3, 2, 1, 2, 3, 2, 1, 2, 3]); // np.pad([1, 2, 3], (5, 4), 'reflect')
    expect(() => mt.pad(mt.zeros([0, 3]), [[1, 0], [0, 0]], 'wrap')).toThrow(/can't extend empty axis 0 using modes other than 'constant' or 'empty'/);
    expect(() => mt.pad(mt.ones([2]), -1)).toThrow(/index can't contain negative values/);
    expect(() => mt.pad(mt.ones([2]), 1.5)).toThrow(/`pad_width` must be of integral type/);
    expect(() => mt.pad(mt.ones([2, 2]), [[1, 2], [3, 4], [5, 6]])).toThrow(/pad_width \[\[1,2\],\[3,4\],\[5,6\]\] does not fit an array of 2 dimensions/);
    expect(() => mt.pad(mt.ones([2]), 1, 'medain')).toThrow(/mode 'medain' is not supported/);
    expect(() => mt.pad(mt.ones([2]), 1, 'edge', { constant_values: 3 })).toThrow(/unsupported keyword arguments for mode 'edge': \{'constant_values'\}/);
    expect(() => mt.pad(mt.ones([2]))).toThrow(/pad\(\) missing required argument 'pad_width'/);
  });

  it('names nanstd in its own argument errors', () => {
    expect(() => mt.nanstd(mt.ones([2]), { ddoff: 1 })).toThrow(/nanstd\(\) got an unexpected keyword argument 'ddoff'/);
  });

  it('gives a zero remainder the divisor\'s sign, as NumPy does (the fixtures cannot tell the zeros apart)', async () => {
    const sign = (v: number) => (Object.is(v, -0) ? '-0' : String(v));
    for (const dtype of ['float64', 'float32'] as const) {
      for (const workers of [0, 2]) {
        const r = await mt.mod(mt.tensor([4, -4, 0, -0, 3], { dtype }), mt.tensor([-2, -2, 2, 2, -1.5], { dtype })).fetch({ workers });
        expect(Array.from(r.data as Float64Array, sign)).toEqual(['-0', '-0', '0', '0', '-0']);
      }
    }
  });
});

describe('plans kept between runs', () => {
  it('reuses the plan of a graph of the same structure, bound to the new graph\'s own inputs', async () => {
    const a = await mt.arange(12_000, { dtype: 'float64', chunkSize: 1000 }).reshape([120, 100]).execute();
    const b = await mt.arange(12_000, { dtype: 'float64', chunkSize: 1000 }).multiply(-1).reshape([120, 100]).execute();
    const run = async (x: mt.Tensor) => {
      const v = (await x.multiply(2).add(1).sum({ axis: 0 }).fetch()).toArray() as number[];
      return { v, reused: mt.lastReport()!.planReused };
    };
    // column j of a: sum over i of 2*(100i + j) + 1 = 2*(100*7140 + 120j) + 120
    const colA = (j: number) => 2 * (100 * 7140 + 120 * j) + 120;
    const first = await run(a);
    expect(first.v.slice(0, 3)).toEqual([colA(0), colA(1), colA(2)]);
    const again = await run(a);
    expect(again.reused).toBe(true);
    expect(again.v).toEqual(first.v);
    // the same structure over another stored tensor of the same layout: the kept plan, b's values
    const other = await run(b);
    expect(other.reused).toBe(true);
    expect(other.v.slice(0, 3)).toEqual([240 - colA(0), 240 - colA(1), 240 - colA(2)]);
    // one input used twice is another graph than two inputs
    expect((await a.add(a).sum().fetch()).item()).toBe(12_000 * 11_999);
    expect((await a.add(b).sum().fetch()).item()).toBe(0);
    expect(mt.lastReport()!.planReused).toBe(false);
  });

  it('tells apart constants that JSON would merge: -0 and 0, NaN and the infinities', async () => {
    const z = await mt.full([4], -0, { dtype: 'float64' }).execute();
    // -0 + -0 is -0 and -0 + 0 is +0: 1/x tells them apart
    expect((await mt.divide(1, z.add(-0)).fetch()).toArray()).toEqual([-Infinity, -Infinity, -Infinity, -Infinity]);
    expect((await mt.divide(1, z.add(0)).fetch()).toArray()).toEqual([Infinity, Infinity, Infinity, Infinity]);
    expect(mt.lastReport()!.planReused).toBe(false);
    expect((await z.add(NaN).fetch()).toArray()).toEqual([NaN, NaN, NaN, NaN]);
    expect((await z.add(Infinity).fetch()).toArray()).toEqual([Infinity, Infinity, Infinity, Infinity]);
    expect((await z.add(-Infinity).fetch()).toArray()).toEqual([-Infinity, -Infinity, -Infinity, -Infinity]);
    expect(mt.lastReport()!.planReused).toBe(false);
  });

  it('gives the same values as a fresh plan for any worker count', async () => {
    mt.random.seed(7);
    const x = await mt.random.uniform(-1, 1, [300, 200], { chunkSize: 5000 }).execute();
    const f = () => mt.argmax(x.multiply(x), { axis: 1 });
    const want = Array.from((await f().fetch({ workers: 0 })).data as BigInt64Array, Number);
    for (const workers of [1, 2, 3]) {
      const got = await f().fetch({ workers });
      expect(mt.lastReport()!.planReused).toBe(true);
      expect(Array.from(got.data as BigInt64Array, Number)).toEqual(want);
    }
  });
});

describe('lengths known only at run time', () => {
  it('a mask selection has NaN length until executed, then the real one', async () => {
    const x = mt.arange(20).reshape([4, 5]);
    const sel = x.get(x.mod(3).equal(0));
    expect(sel.shape[0]).toBeNaN();
    const m = sel.multiply(2).sum();
    expect((await m.fetch()).item()).toBe(2 * (0 + 3 + 6 + 9 + 12 + 15 + 18));
    await sel.execute();
    expect(sel.shape).toEqual([7]);
  });

  it('chains selections, reduces them, and takes their mean by the run-time count', async () => {
    const x = mt.arange(1000, { dtype: 'float64', chunkSize: 64 });
    const a = x.get(x.greater(100));
    const b = a.get(a.less(200));
    expect((await b.mean().fetch()).item()).toBe(150);
    expect((await b.var().fetch()).item()).toBeCloseTo((99 * 99 - 1) / 12, 9);
    expect((await mt.nonzero(x.less(3))[0]!.fetch()).toArray()).toEqual([0, 1, 2]);
  });

  it('checks shapes again once lengths are known', async () => {
    const x = mt.arange(10);
    const bad = x.get(x.less(3)).add(x.get(x.less(4)));
    await expect(bad.fetch()).rejects.toThrow(/could not be broadcast together with shapes \(3,\) \(4,\)/);
    const m = mt.arange(12).reshape([3, 4]);
    const rows = m.get(mt.tensor([true, false, true]));
    await expect(mt.matmul(rows.T, mt.ones([3, 2])).fetch()).rejects.toThrow(/size 3 is different from 2/);
    await expect(mt.concatenate([rows, mt.ones([3, 5])], { axis: 1 }).fetch()).rejects.toThrow(/along dimension 0, the array at index 0 has size 2 and the array at index 1 has size 3/);
  });

  it('stacks, concatenates and multiplies arrays of lengths known only at run time', async () => {
    const t = mt.tensor([1, 0, 3, 0, 5]);
    const sel = t.get(t.greater(0));
    expect((await mt.stack(mt.nonzero(t)).fetch()).toArray()).toEqual([[0, 2, 4]]);
    expect((await mt.stack([sel, sel.multiply(2)]).fetch()).toArray()).toEqual([[1, 3, 5], [2, 6, 10]]);
    expect((await mt.dot(sel, sel).fetch()).item()).toBe(35);
    const m = mt.arange(12).reshape([3, 4]);
    expect((await mt.matmul(m.get(mt.tensor([true, false, true])), mt.ones([4, 2], { dtype: 'int64' })).fetch()).toArray()).toEqual([[6, 6], [38, 38]]);
  });

  it('takes medians and quantiles of selections, by the run-time length', async () => {
    const t = mt.tensor([4, -1, 9, 2, -7, 1]);
    const sel = t.get(t.greater(0)); // [4, 9, 2, 1]
    expect((await mt.median(sel).fetch()).item()).toBe(3);
    const low = await mt.quantile(sel, [0, 0.5, 1], { method: 'lower' }).fetch();
    expect([low.dtype, low.toArray()]).toEqual(['int64', [1, 2, 9]]);
    expect((await mt.percentile(sel, 25).fetch()).item()).toBe(1.75);
    const m = mt.tensor([[1, 5, 3], [-4, -5, -6], [9, 7, 8]]);
    const rows = m.get(m.sum({ axis: 1 }).greater(0)); // rows 0 and 2
    expect((await mt.median(rows, { axis: 0 }).fetch()).toArray()).toEqual([5, 6, 5.5]);
    expect((await mt.median(rows, { axis: 1, keepdims: true }).fetch()).toArray()).toEqual([[3], [8]]);
    // a selection that keeps nothing: NumPy's IndexError, when the length becomes known
    await expect(mt.quantile(t.get(t.greater(100)), 0.5).fetch()).rejects.toThrow(/index -1 is out of bounds for axis 0 with size 0/);
    expect(Number.isNaN((await mt.median(t.get(t.greater(100))).fetch()).item())).toBe(true);
  });

  it('builds einsum and trace over selections once their lengths are known', async () => {
    const x = mt.tensor([1, -2, 3, 4, -5]);
    const s = x.get(x.greater(0)); // [1, 3, 4]
    expect((await mt.einsum('i,i->', s, s).fetch()).item()).toBe(26);
    const m = mt.tensor([[1, 2, 3], [4, 5, 6], [-7, -8, -9], [1, 1, 1]]);
    const rows = m.get(m.sum({ axis: 1 }).greater(0)); // rows 0, 1 and 3
    expect((await mt.einsum('ij->j', rows).fetch()).toArray()).toEqual([6, 8, 10]);
    expect((await mt.einsum('ij,ij->i', rows, rows).fetch()).toArray()).toEqual([14, 77, 3]);
    const tr = await mt.trace(rows, { offset: 1, dtype: 'int8' }).fetch();
    expect([tr.dtype, tr.item()]).toEqual(['int8', 2 + 6]);
    expect(mt.trace(rows).shape).toEqual([]); // known before the run
  });

  it('gives singular values of a selection\'s rows, and NumPy\'s LinAlgError for a NaN entry when it runs', async () => {
    const m = mt.tensor([[3, 0], [9, 9], [0, -4]]);
    const rows = m.get(mt.tensor([true, false, true]));
    expect((await mt.linalg.svdvals(rows).fetch()).toArray()).toEqual([4, 3]);
    expect((await mt.linalg.norm(rows, 'nuc').fetch()).item()).toBe(7);
    await expect(mt.linalg.norm(mt.tensor([[1, NaN], [2, 3]]), 2).fetch()).rejects.toThrow(/SVD did not converge/);
  });
});

describe('NumPy forms a fourth battery found missing', () => {
  it('binds compress, repeat and hsplit arguments, stacks 0-d arrays, reduces a 0-d array over axis 0, and indexes item()', async () => {
    const m = mt.tensor([[0, 3, 0, 1], [2, 0, 0, 0], [0, 0, 5, 6]]);
    expect((await mt.compress([true, false, true], m, 0).fetch()).toArray()).toEqual([[0, 3, 0, 1], [0, 0, 5, 6]]);
    expect((await m.compress([true, false, true, false], 1).fetch()).toArray()).toEqual([[0, 0], [2, 0], [0, 5]]);
    expect((await mt.repeat(mt.arange(2), { repeats: 2 }).fetch()).toArray()).toEqual([0, 0, 1, 1]);
    expect((await mt.hsplit(mt.arange(4), { indices_or_sections: 2 })[1]!.fetch()).toArray()).toEqual([2, 3]);
    expect((await mt.hstack([mt.tensor(1), mt.arange(2)]).fetch()).toArray()).toEqual([1, 0, 1]);
    expect((await mt.sum(mt.tensor(5), 0).fetch()).item()).toBe(5);
    const a = await mt.arange(6).reshape(2, 3).fetch();
    expect([a.item(4), a.item(1, -1)]).toEqual([4, 5]);
    expect(() => a.item()).toThrow(/can only convert an array of size 1/);
    expect(() => a.item(2, 0)).toThrow(/index 2 is out of bounds for axis 0 with size 2/);
    // NumPy computes covariances in float64 whatever the input.
    const c = await mt.cov(mt.tensor([1, 2, 4], { dtype: 'float32' })).fetch();
    expect([c.dtype, c.item()]).toEqual(['float64', 2.3333333333333335]);
  });
  it('order in either case changes no value, as in NumPy', async () => {
    expect(Array.from((await mt.zeros([2], { order: 'f' }).fetch()).data as Float64Array)).toEqual([0, 0]);
    expect(Array.from((await mt.array([[1, 2], [3, 4]], { order: 'a' }).fetch()).data as BigInt64Array, Number)).toEqual([1, 2, 3, 4]);
    expect((await mt.ones_like(mt.tensor([1, 2]), { order: 'K' }).fetch()).dtype).toBe('int64');
  });
  it('cov checks computed weights when the run reaches them', async () => {
    const m = mt.tensor([[1, 2, 4], [0, 5, 1]]);
    const fetchError = async (t: mt.Tensor) => { try { await t.fetch(); } catch (e) { return e as Error; } throw new Error('the run did not fail'); };
    expect((await fetchError(mt.cov(m, { fweights: mt.add([1, 2.5, 1], 0) }))).message).toBe('fweights must be integer');
    expect((await fetchError(mt.cov(m, { aweights: mt.subtract([1, 2, 3], 2) }))).message).toBe('aweights cannot be negative');
    // np.cov([[1, 2, 4], [0, 5, 1]], fweights=[1, 2, 1], aweights=[0.5, 1, 2])
    const c = await mt.cov(m, { fweights: mt.add([1, 2, 1], 0), aweights: mt.multiply([0.5, 1, 2], 1) }).fetch();
    const want = [1.857142857142857, -1.714285714285714, -1.714285714285714, 6.428571428571428];
    Array.from(c.data as Float64Array).forEach((v, i) => expect(Math.abs(v - want[i]!)).toBeLessThan(1e-14));
  });
  it.each([
    ['vsplit of 1-d', () => mt.vsplit(mt.arange(4), 2), /vsplit only works on arrays of 2 or more dimensions/],
    ['meshgrid keyword', () => mt.meshgrid(mt.arange(2), mt.arange(2), { sparce: true } as never), /meshgrid\(\) got an unexpected keyword argument 'sparce'/],
    ['cov ddof', () => mt.cov(mt.tensor([1, 2, 4]), { ddof: 1.5 }), /ddof must be integer/],
    ['full order', () => mt.full([2, 2], 1, { dtype: 'int8', order: 'Q' }), /^order must be one of 'C', 'F', 'A', or 'K' \(got 'Q'\)$/],
    ['zeros order K', () => mt.zeros(2, { order: 'K' }), /^only 'C' or 'F' order is permitted$/],
    ['ones order type', () => mt.ones(2, { order: 3 as never }), /^order must be str, not int$/],
    ['zeros_like order', () => mt.zeros_like([1, 2], { order: 'CC' }), /got 'CC'/],
    ['astype order', () => mt.astype([1, 2], 'float32', { order: '' }), /got ''/],
    ['add order', () => mt.add(1, 2, { order: 'Q' }), /got 'Q'/],
    ['cov fweights integer', () => mt.cov(mt.ones([2, 3]), { fweights: [1, 2.5, 1] }), /^fweights must be integer$/],
    ['cov fweights negative', () => mt.cov(mt.ones([2, 3]), { fweights: [1, -1, 1] }), /^fweights cannot be negative$/],
    ['cov aweights negative', () => mt.cov(mt.ones([2, 3]), { aweights: [1, -1, 1] }), /^aweights cannot be negative$/],
    ['cov fweights length', () => mt.cov(mt.ones([2, 3]), { fweights: [1, 1] }), /^incompatible numbers of samples and fweights$/],
    ['cov aweights 2-d', () => mt.cov(mt.ones([2, 3]), { aweights: [[1, 1, 1]] }), /^cannot handle multidimensional aweights$/],
    ['linspace length', () => mt.linspace(0, 1, 1e300), /Maximum allowed size exceeded/],
    ['linspace num', () => mt.linspace(0, 1, 2.5), /'num' must be an integer, got 2.5/],
    ['diff order', () => mt.diff(mt.arange(3), { n: 1.5 }), /'float' object cannot be interpreted as an integer/],
    ['quantile range', () => mt.quantile(mt.arange(3), 1.5), /Quantiles must be in the range \[0, 1\]/],
  ] as [string, () => unknown, RegExp][])('%s', (_, f, re) => { expect(f).toThrow(re); });
});

describe('long chains', () => {
  it('a loop of 1000 steps fuses into kernels of bounded depth and gives the closed form', async () => {
    // v <- v/2 + 1 from v0 = x: v_n = 2 + (x - 2) / 2^n, which is 2 in float64 after 1000 steps.
    let v = mt.arange(4, { dtype: 'float64' });
    let w = mt.arange(4, { dtype: 'float64' });
    for (let i = 0; i < 1000; i++) v = v.multiply(0.5).add(1);
    for (let i = 0; i < 40; i++) w = w.multiply(0.5).add(1);
    expect(Array.from((await v.fetch()).data as Float64Array)).toEqual([2, 2, 2, 2]);
    expect(mt.lastReport()!.kernels).toBeGreaterThan(1);
    expect(Array.from((await w.fetch()).data as Float64Array)).toEqual([0, 1, 2, 3].map((x) => 2 + (x - 2) / 2 ** 40));
  });
  it('a loop that reads each step at several points (roll, reversed slices) stores the steps instead of copying them', async () => {
    // u = u + 0.25 * (roll(u, 1) - 2u + roll(u, -1)): inlined, every step would build the one before five times
    let u = mt.zeros(50).set(25, 1);
    for (let k = 0; k < 200; k++) u = u.add(mt.roll(u, 1).subtract(u.multiply(2)).add(mt.roll(u, -1)).multiply(0.25));
    const got = Array.from((await u.fetch()).data as Float64Array);
    // NumPy: the same loop, u[20:31]
    const want = [0.03519657071381045, 0.03681212145320832, 0.03811978742764078, 0.03908218631220877, 0.0396712497401428, 0.03986957047727801,
      0.0396712497401428, 0.03908218631220877, 0.03811978742764078, 0.03681212145320832, 0.03519657071381045];
    got.slice(20, 31).forEach((v, i) => expect(Math.abs(v - want[i]!)).toBeLessThan(1e-15));
    expect(mt.lastReport()!.kernels).toBeGreaterThan(20);
    // x = (x + x[::-1]) / 2 and a stencil through concatenate: 2 and 3 points a step
    let x = mt.arange(10, { dtype: 'float64' });
    for (let k = 0; k < 60; k++) x = x.add(x.get('::-1')).multiply(0.5);
    expect(Array.from((await x.fetch()).data as Float64Array)).toEqual(new Array(10).fill(4.5));
    // Conway's life on a torus, eight rolls of rolls a step: a glider moves one cell diagonally every 4 steps
    let g = mt.zeros([10, 10], { dtype: 'int8' });
    for (const [i, j] of [[1, 2], [2, 3], [3, 1], [3, 2], [3, 3]]) g = g.set(i!, j!, 1);
    for (let s = 0; s < 12; s++) {
      let n: mt.Tensor | undefined;
      for (const i of [-1, 0, 1]) for (const j of [-1, 0, 1]) {
        if (i === 0 && j === 0) continue;
        const r = mt.roll(mt.roll(g, i, 0), j, 1);
        n = n ? n.add(r) : r;
      }
      g = n!.equal(3).logical_or(g.equal(1).logical_and(n!.equal(2))).astype('int8');
    }
    // np.argwhere(g) after the same 12 steps
    expect((await mt.argwhere(g).fetch()).toArray()).toEqual([[4, 5], [5, 6], [6, 4], [6, 5], [6, 6]]);
  });
});

describe('NumPy positional arguments', () => {
  it('takes an axis positionally as NumPy does', async () => {
    const x = mt.arange(6).reshape([2, 3]);
    expect((await x.sum(1).fetch()).toArray()).toEqual([3, 12]);
    expect((await mt.sum(x, 0).fetch()).toArray()).toEqual([3, 5, 7]);
    expect((await mt.max(x, [0, 1]).fetch()).item()).toBe(5);
    expect((await x.argmax(1).fetch()).toArray()).toEqual([2, 2]);
    expect((await mt.concatenate([x, x], 1).fetch()).shape).toEqual([2, 6]);
    expect((await mt.cumsum(x, 1).fetch()).toArray()).toEqual([[0, 1, 3], [3, 7, 12]]);
    expect(() => mt.sum(x, 'a' as unknown as number)).toThrow(/axis must be an integer, got 'a'/);
    expect((await mt.sum(x, 0, null, null, false, 1).fetch()).toArray()).toEqual([4, 6, 8]);
    expect(() => mt.sum(x, 0, null, null, false, 1, true, 9)).toThrow(/sum\(\) takes at most 6 arguments after the array/);
    expect(() => mt.max(x, { where: x.greater(2) })).toThrow(/reduction operation 'maximum' does not have an identity, so to use a where mask one has to specify 'initial'/);
    expect(() => mt.any(x, 0, null, false, 1)).toThrow(/any\(\) takes at most 3 arguments after the array/);
    expect(() => mt.sum(x, 0, { axis: 1 })).toThrow(/sum\(\) got multiple values for argument 'axis'/);
    expect(() => mt.sum(x, 0, null, x)).toThrow(/out= is not supported/);
  });

  it('gives sign(-0.0) as +0.0, as NumPy does (the fixtures cannot tell the zeros apart)', async () => {
    const s = (await mt.sign(mt.tensor([-0.0, 0.0], { dtype: 'float64' })).fetch()).data as Float64Array;
    expect(Object.is(s[0], 0) && Object.is(s[1], 0)).toBe(true);
    const f = (await mt.sign(mt.tensor([-0.0], { dtype: 'float32' }).multiply(1)).fetch()).data as Float32Array;
    expect(Object.is(f[0], 0)).toBe(true);
  });
});

describe('value semantics', () => {
  it('set returns a new tensor and leaves the original unchanged', async () => {
    const x = mt.arange(6);
    const y = x.set('1:3', 0);
    expect((await y.fetch()).toArray()).toEqual([0, 0, 0, 3, 4, 5]);
    expect((await x.fetch()).toArray()).toEqual([0, 1, 2, 3, 4, 5]);
  });
});

describe('failures', () => {
  it('a failing execution frees its chunks and leaves the pool usable', async () => {
    await mt.arange(10).sum().fetch();
    // Chunks of earlier tests' unreachable tensors are freed by a FinalizationRegistry when V8
    // collects them, which the big allocations below would otherwise set off mid-test: collect them first.
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    for (let i = 0; i < 3; i++) { gc(); await new Promise((r) => setTimeout(r, 10)); }
    const before = mt.usage();
    // One array of 16 GB: refused before anything runs.
    await expect(mt.ones([200_000, 10_000]).add(1).fetch()).rejects.toThrow(/Unable to allocate 14.9 GiB for an array with shape \(200000, 10000\) and data type float64: it must be stored, and the chunk heap holds at most 4 GiB/);
    expect(mt.usage().bytesInUse).toBe(before.bytesInUse);
    // An array fusion must store (einsum's outer product is a matmul, stored before the sum) is too many
    // chunks to plan: refused at the line, as is a grid of too many chunks. (mt.outer broadcasts instead.)
    expect(() => mt.einsum('ij,kl->ijkl', mt.ones([1000, 1000]), mt.ones([1000, 1000]))).toThrow(/Unable to allocate 7.28 TiB for an array with shape \(1, 1000000, 1000000\)/);
    expect(() => mt.zeros([2_000_000], { chunkSize: 1 })).toThrow(/in chunks of shape \(1,\) it makes 2000000 chunks, more than the 262144/);
    // Three of 2.2 GB each, in one graph: each fits, together they fill the heap mid-execution.
    const big = mt.ones([100_000, 2_700]);
    await expect(mt.execute(big.add(1), big.add(2), big.add(3))).rejects.toThrow(/Unable to allocate .* the chunk heap is limited to 4 GiB/);
    const after = mt.usage();
    expect(after.bytesInUse).toBe(before.bytesInUse);
    expect(after.workers).toBeLessThanOrEqual(before.workers); // the pool may be torn down, never leaked
    expect((await mt.arange(10).sum().fetch()).item()).toBe(45);
  });
});

describe('sizes beyond what the runtime can hold', () => {
  it('are refused at the line with NumPy\'s MemoryError message, before anything is planned', () => {
    const t0 = performance.now();
    let err: unknown;
    try { mt.zeros([1e6, 1e6]).sum(); } catch (e) { err = e; }
    expect(performance.now() - t0).toBeLessThan(1000);
    expect(err).toBeInstanceOf(RangeError);
    expect((err as Error).name).toBe('MemoryError');
    // NumPy 2: "Unable to allocate 7.28 TiB for an array with shape (1000000, 1000000) and data type float64"
    expect((err as Error).message).toMatch(/^Unable to allocate 7.28 TiB for an array with shape \(1000000, 1000000\) and data type float64: in chunks of shape \(1, 1000000\) it makes 1000000 chunks/);
    expect(() => mt.random.uniform(0, 1, [1e6, 1e6])).toThrow(/Unable to allocate 7.28 TiB/);
    // one chunk larger than the 4 GiB chunk heap can never be computed, whatever the grid
    expect(() => mt.ones([1e5, 1e5], { chunkSize: 1e5 })).toThrow(/one chunk of shape \(100000, 100000\) takes 74.5 GiB, more than the 4 GiB chunk heap holds/);
    // what streams fits: a larger chunkSize plans the same size in few tasks
    expect(() => mt.zeros([1e6, 1e6], { chunkSize: [1000, 1e6] })).toThrow(/makes 1000 chunks|one chunk/);
    expect(mt.zeros([1e5, 1e6], { chunkSize: [500, 1e6] }).sum().shape).toEqual([]);
    // a lazily drawn 1e10 (pi's benchmark) is well within
    expect(mt.random.uniform(-1, 1, [1e10, 2]).shape).toEqual([1e10, 2]);
  });

  it('messages quote the value they refuse', () => {
    const x = mt.ones([2, 3]);
    expect(() => x.sum({ axis: '1' as unknown as number })).toThrow("axis must be an integer, got '1'");
    expect(() => x.sum({ axis: 1.5 })).toThrow('axis must be an integer, got 1.5');
    expect(() => mt.zeros(['2', 3] as unknown as number[])).toThrow("shape entries must be integers, got '2'");
    expect(() => mt.zeros([2], { chunkSize: '4' as unknown as number })).toThrow(/got '4'/);
  });
});

describe('ndarray methods', () => {
  it('reads values awaited (item, tolist, tobytes) and sizes (itemsize, nbytes), as NumPy computes them', async () => {
    const x = mt.tensor([[1.5, -2], [3, 4]]);
    expect(await x.item(2)).toBe(3);
    expect(await x.get('0, 1').item()).toBe(-2);
    expect(await x.tolist()).toEqual([[1.5, -2], [3, 4]]);
    // np.array([[1.5, -2], [3, 4]]).tobytes()[:8] is 1.5 as little-endian float64
    expect(Array.from((await x.tobytes()).slice(0, 8))).toEqual([0, 0, 0, 0, 0, 0, 0xf8, 0x3f]);
    expect((await mt.tensor([1, 2], { dtype: 'int16' }).tobytes()).length).toBe(4);
    expect([x.itemsize, x.nbytes]).toEqual([8, 32]);
    expect(await x.real.tolist()).toEqual([[1.5, -2], [3, 4]]);
    expect(await x.imag.tolist()).toEqual([[0, 0], [0, 0]]);
    expect(await x.conj().tolist()).toEqual([[1.5, -2], [3, 4]]);
  });
  it('searchsorted, choose and argpartition as methods give the functions\' results', async () => {
    const s = mt.tensor([1, 3, 5, 7]);
    expect(await s.searchsorted([0, 3, 8], { side: 'right' }).tolist()).toEqual([0, 2, 4]); // NumPy: [0 2 4]
    expect(await mt.tensor([0, 1, 0]).choose([[10, 11, 12], [20, 21, 22]]).tolist()).toEqual([10, 21, 12]);
    const p = await mt.tensor([5, 1, 4, 2]).argpartition(1).tolist() as number[];
    expect(p[1]).toBe(3); // the second smallest, 2, sits at index 1 of a partition (index 3 of the input)
  });
  it('refuses the in-place methods, naming the functional form', () => {
    const x = mt.tensor([3, 1, 2]);
    expect(() => x.sort()).toThrow(/sorts in place in NumPy.*use mt\.sort\(x/);
    expect(() => x.partition()).toThrow(/mt\.partition/);
    expect(() => x.fill()).toThrow(/mt\.full_like/);
    expect(() => x.put()).toThrow(/x\.set/);
  });
});

describe('finfo and iinfo (NumPy 2.x values: test/fixtures/gen_info.py)', () => {
  const E = JSON.parse(readFileSync(new URL('./fixtures/info.json', import.meta.url), 'utf8')) as {
    finfo: Record<string, Record<string, number>>; iinfo: Record<string, { bits: number; kind: string; min: string; max: string }>;
  };
  it.each(Object.entries(E.finfo))('finfo(%s)', (d, want) => {
    const got = mt.finfo(d) as unknown as Record<string, number>;
    for (const [k, v] of Object.entries(want)) expect(got[k], `${d}.${k}`).toBe(v);
    expect(mt.finfo(mt.zeros([2], { dtype: d })).eps).toBe(want.eps);
  });
  it.each(Object.entries(E.iinfo))('iinfo(%s)', (d, want) => {
    const got = mt.iinfo(d);
    expect({ bits: got.bits, kind: got.kind, min: String(got.min), max: String(got.max) }).toEqual(want);
  });
  it('refuses the other kind, as NumPy', () => {
    expect(() => mt.finfo('int32')).toThrow(/data type int32 not inexact/);
    expect(() => mt.iinfo('float32')).toThrow(/Invalid integer data type 'float32'/);
    expect(() => mt.iinfo('bool')).toThrow(/Invalid integer data type 'bool'/);
  });
});

