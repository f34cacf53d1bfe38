// The data of the routine benchmarks (bench/routines.js, bench/quantile.js):
// element i is a hash of its position (two multiply-xorshift rounds mod
// 2^32, over 2^32), which NumPy and Tessera both compute exactly in int64,
// so both sides sort or select the same float64 values. Tessera makes it
// as one fused kernel, chunk by chunk; NumPy a million elements at a time,
// so that its peak RSS is the array's and the program's, not that of the
// temporaries that made it.

/** Python lines that leave the data in `x` (with `n` and `np` defined). */
export const NUMPY_DATA = `
x = np.empty(n)
for lo in range(0, n, 10**6):
    i = np.arange(lo, min(n, lo + 10**6), dtype=np.int64)
    h = (i * 2654435761) % 2**32
    h = ((h ^ (h >> 15)) * 2246822519) % 2**32
    x[lo:lo + len(i)] = (h ^ (h >> 13)).astype(np.float64) / 2**32
del i, h`;

/** The same data as a stored Tessera array of `n` float64. */
export async function tesseraData(mt, n) {
  const i = mt.arange(n, { dtype: 'int64' });
  let h = i.multiply(2654435761).mod(2 ** 32);
  h = mt.bitwise_xor(h, mt.right_shift(h, 15)).multiply(2246822519).mod(2 ** 32);
  return mt.bitwise_xor(h, mt.right_shift(h, 13)).astype('float64').divide(2 ** 32).execute();
}
