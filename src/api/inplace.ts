// NumPy's functions that change an array in place and return None:
// fill_diagonal, put, putmask, place, copyto. A Tessera tensor never changes,
// and a function that returned a new tensor instead would leave the user's
// array as it was without a word (NumPy code calls them as statements), so
// each raises a TypeError that gives the line to write instead.

import { type Refusal, refusal } from './refuse.js';

const immutable = (fn: string, instead: string): Refusal =>
  refusal(`np.${fn} changes its array in place, and a Tessera tensor never changes: write ${instead}, which gives the new tensor`, 'works in place; raises, naming the functional form');

/** np.fill_diagonal(a, val, wrap=False): in place in NumPy; raises, naming the functional form. */
export const fill_diagonal = immutable('fill_diagonal', "a = mt.where(mt.eye(a.shape[0], a.shape[1], { dtype: 'bool' }), val, a) (a 2-d a)");
/** np.put(a, ind, v): in place in NumPy; raises, naming the functional form. */
export const put = immutable('put', 'a = a.flat.set(ind, v)');
/** np.putmask(a, mask, values): in place in NumPy; raises, naming the functional form. */
export const putmask = immutable('putmask', 'a = mt.where(mask, values, a) (values a scalar or of a\'s shape)');
/** np.place(arr, mask, vals): in place in NumPy; raises, naming the functional form. */
export const place = immutable('place', 'arr = arr.set(mask, vals) (as many vals as mask has true entries)');
/** np.copyto(dst, src, casting, where): in place in NumPy; raises, naming the functional form. */
export const copyto = immutable('copyto', 'dst = mt.where(where, src, dst).astype(dst.dtype) (or mt.broadcast_to(src, dst.shape).astype(dst.dtype))');
