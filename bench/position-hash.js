// The data of the routine benchmarks (bench/routines.js, bench/quantile.js):
// element i is a hash of its position (two multiply-xorshift rounds mod
// 2^32, over 2^32), which NumPy and Tessera both compute exactly in int64,
// so both sides sort or select the same float64 values. Tessera makes it
// as one fused kernel, chunk by chunk; NumPy a million elements at a time,
// so that its peak RSS is the array's and the program's, not that of the
// temporaries that made it.
//
// A stream may start at another position (the queries of searchsorted are
// the positions after the data's) and map each value u in [0, 1) and its
// position i to what a program needs (integer keys floor(u * 1e6), an
// increasing array i + u): one Python expression and one Tessera function
// that compute the same float64 operations in the same order.

/**
 * Python lines that leave `count` elements of the stream from position
 * `start` in `name` (Python expressions, with `np` defined), each the
 * Python expression `map` of `u` (the float64 hash) and `i` (its int64 position).
 */
export function numpyStream(name, count, { start = '0', map = 'u', dtype = 'np.float64' } = {}) {
  return `
${name} = np.empty(${count}, dtype=${dtype})
for lo in range(0, ${count}, 10**6):
    i = np.arange(${start} + lo, ${start} + min(${count}, lo + 10**6), dtype=np.int64)
    h = (i * 2654435761) % 2**32
    h = ((h ^ (h >> 15)) * 2246822519) % 2**32
    u = (h ^ (h >> 13)).astype(np.float64) / 2**32
    ${name}[lo:lo + len(i)] = ${map}
del i, h, u`;
}

/** The same stream as a stored Tessera array: `map(u, i)` of the lazy hash u and positions i. */
export async function tesseraStream(mt, count, { start = 0, map = (u) => u } = {}) {
  const i = mt.arange(start, start + count, { dtype: 'int64' });
  let h = i.multiply(2654435761).mod(2 ** 32);
  h = mt.bitwise_xor(h, mt.right_shift(h, 15)).multiply(2246822519).mod(2 ** 32);
  const u = mt.bitwise_xor(h, mt.right_shift(h, 13)).astype('float64').divide(2 ** 32);
  return map(u, i).execute();
}

/** Python lines that leave the data in `x` (with `n` and `np` defined). */
export const NUMPY_DATA = numpyStream('x', 'n');

/** The same data as a stored Tessera array of `n` float64. */
export const tesseraData = (mt, n) => tesseraStream(mt, n);
