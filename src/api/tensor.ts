// The NumPy-like namespace, imported as `mt` (`import { mt } from 'tessera'`,
// `import * as mt from 'tessera/tensor'`): every name of NumPy's that
// Tessera has, gathered from the api modules. No api or mesh module imports
// it (they import core.ts and each other; test/layers.test.ts checks), so a
// module can take the Tensor without the whole namespace; the entry points
// do (index.ts, the CLI). Here the Tensor gets the ndarray methods that
// live in other api modules (indexing, sorting, searching, files) and the
// binary ufuncs their methods (`mt.add.reduce`, ufunc_methods.ts), both
// wired by name below rather than imported back by core.ts.

import type { BinaryOp } from '../graph/ops.js';
import { isUnknown } from '../graph/shape.js';
// the plain functions that the namespace completes (named, not `import * as`, which would bundle core.ts's namespace object)
import {
  add as addOf, subtract as subtractOf, multiply as multiplyOf, divide as divideOf, floor_divide as floor_divideOf,
  mod as modOf, power as powerOf, arctan2 as arctan2Of, maximum as maximumOf, minimum as minimumOf, fmax as fmaxOf,
  fmin as fminOf, hypot as hypotOf, equal as equalOf, not_equal as not_equalOf, less as lessOf,
  less_equal as less_equalOf, greater as greaterOf, greater_equal as greater_equalOf, logical_and as logical_andOf,
  logical_or as logical_orOf, logical_xor as logical_xorOf, bitwise_and as bitwise_andOf, bitwise_or as bitwise_orOf,
  bitwise_xor as bitwise_xorOf, fmod as fmodOf, copysign as copysignOf, nextafter as nextafterOf, ldexp as ldexpOf,
  gcd as gcdOf, lcm as lcmOf, left_shift as left_shiftOf, right_shift as right_shiftOf, where as whereOf,
} from './core.js';
import { type Operand, Tensor, ravel, reshape } from './core.js';
import { type UFuncKw } from './core.js';
import { tofile as tofileOf } from './io.js';
import { searchsorted as searchsortedOf } from './search.js';
import { argpartition as argpartitionOf, choose as chooseOf } from './extra.js';
import { type Index, compress, getitem, nonzero, setitem } from './indexing.js';
import { type IndexUpdate, at } from './at.js';
import { argsort } from './statistics.js';
import { diagonal, repeat } from './manipulate.js';
import { linalg as linalgBase } from './linalg.js';
import { randomized_svd } from './randomized.js';
import { linalgArrayApi } from './aliases.js';
import { type UFuncMethods, withMethods } from './ufunc_methods.js';

export * from './core.js';
export { checkOrder, isOptions, knownLength, kwargs, need, pyType, trailingOpts } from './bind.js';

// ---------------------------------------------------------------------------
// The binary ufuncs with NumPy's methods and attributes (the same functions
// as core.ts's, which withMethods completes in place).

type BinaryUFunc = ((x: Operand, y: Operand, o?: UFuncKw) => Tensor) & UFuncMethods;
type Plain = (x: Operand, y: Operand, o?: UFuncKw) => Tensor;
const u = (f: Plain, op: BinaryOp): BinaryUFunc =>
  withMethods(f as (x: Operand, y: Operand, ...rest: unknown[]) => Tensor, op === 'mod' ? 'remainder' : op, op) as BinaryUFunc;
export const add = u(addOf, 'add'), subtract = u(subtractOf, 'subtract'), multiply = u(multiplyOf, 'multiply');
export const divide = u(divideOf, 'divide'), floor_divide = u(floor_divideOf, 'floor_divide'), mod = u(modOf, 'mod');
export const power = u(powerOf, 'power'), arctan2 = u(arctan2Of, 'arctan2'), maximum = u(maximumOf, 'maximum');
export const minimum = u(minimumOf, 'minimum'), fmax = u(fmaxOf, 'fmax'), fmin = u(fminOf, 'fmin');
export const hypot = u(hypotOf, 'hypot'), equal = u(equalOf, 'equal'), not_equal = u(not_equalOf, 'not_equal');
export const less = u(lessOf, 'less'), less_equal = u(less_equalOf, 'less_equal'), greater = u(greaterOf, 'greater');
export const greater_equal = u(greater_equalOf, 'greater_equal'), logical_and = u(logical_andOf, 'logical_and');
export const logical_or = u(logical_orOf, 'logical_or'), logical_xor = u(logical_xorOf, 'logical_xor');
export const bitwise_and = u(bitwise_andOf, 'bitwise_and'), bitwise_or = u(bitwise_orOf, 'bitwise_or');
export const bitwise_xor = u(bitwise_xorOf, 'bitwise_xor'), fmod = u(fmodOf, 'fmod');
export const copysign = u(copysignOf, 'copysign'), nextafter = u(nextafterOf, 'nextafter');
export const ldexp = u(ldexpOf, 'ldexp'), gcd = u(gcdOf, 'gcd'), lcm = u(lcmOf, 'lcm');
export const left_shift = u(left_shiftOf, 'left_shift'), right_shift = u(right_shiftOf, 'right_shift');
export const true_divide = divide, remainder = mod, bitwise_left_shift = left_shift, bitwise_right_shift = right_shift;
export const pow = power, atan2 = arctan2;

/** where(condition): condition.nonzero(), one index tensor per axis; where(condition, x, y) is core.ts's. */
export function where(c: Operand): Tensor[];
export function where(c: Operand, x: Operand, y: Operand): Tensor;
export function where(c: Operand, x?: Operand, y?: Operand): Tensor | Tensor[];
export function where(c: Operand, x?: Operand, y?: Operand): Tensor | Tensor[] {
  if (x === undefined && y === undefined) return nonzero(c);
  return whereOf(c, x as Operand, y as Operand);
}

// ---------------------------------------------------------------------------
// The ndarray methods that live in other api modules.

type Args = unknown[];
type Flat = { get: (...index: unknown[]) => Tensor; set: (index: Index, value: Operand) => Tensor };

declare module './core.js' {
  interface Tensor {
    /**
     * Iteration along the first axis, as over an ndarray: `for (const row of x)`,
     * `const [yy, xx] = mt.mgrid.get('0:3, 0:4')`. Each item is the lazy x.get(i).
     */
    [Symbol.iterator](): Iterator<Tensor>;
    /** ndarray.tofile(fid, sep='', format='%s'): writes the values, raw or as text (io.ts). */
    tofile(file: Parameters<typeof tofileOf>[1], ...args: unknown[]): Promise<undefined>;
    /** x[index]: `x.get('1:3, ::-1, None')`, `x.get(0, mt.slice(1, 3))`, `x.get(mask)`, `x.get([0, 2])`. */
    get(...index: unknown[]): Tensor;
    /**
     * The functional `x[index] = value`: a new tensor; x is unchanged. Also
     * `x.set(item1, item2, ..., value)`, the index items spread out as in `get`.
     */
    set(index: Index, ...value: unknown[]): Tensor;
    /**
     * Updates of x[index] that give a new tensor (x is unchanged): `x.at(i).add(v)` is NumPy's
     * `np.add.at(x, i, v)` (a position named twice takes both values), `x.at(i).set(v)` is `x.set(i, v)`.
     */
    at(...index: unknown[]): IndexUpdate;
    nonzero(): Tensor[];
    compress(condition: Operand, ...args: Args): Tensor;
    argsort(...args: Args): Tensor;
    repeat(repeats: number | readonly number[], ...args: Args): Tensor;
    diagonal(...args: (number | { offset?: number; axis1?: number; axis2?: number })[]): Tensor;
    searchsorted(v: Operand, ...args: Args): Tensor;
    choose(choices: Operand | readonly Operand[], ...args: Args): Tensor;
    argpartition(kth: number | readonly number[], ...args: Args): Tensor;
    /**
     * NumPy's `x.flat`: the elements in C order as one axis. `x.flat.get(i)`
     * reads `x.flat[i]`; `x.flat.set(i, v)` is `x.flat[i] = v`, a new tensor of x's shape.
     */
    readonly flat: Flat;
  }
}

const methods: ThisType<Tensor> & Record<string, (this: Tensor, ...args: any[]) => unknown> = {
  *[Symbol.iterator](this: Tensor): Iterator<Tensor> {
    if (this.ndim === 0) throw new TypeError('iteration over a 0-d array');
    const n = this.node.shape[0]!;
    if (isUnknown(n)) throw new TypeError('iteration over an axis whose length is known only at run time (after a boolean mask): execute() the array first');
    for (let i = 0; i < n; i++) yield this.get(i);
  },
  tofile(file: Parameters<typeof tofileOf>[1], ...args: unknown[]) { return tofileOf(this, file, ...args); },
  get(...index: unknown[]) { return getitem(this, ...index); },
  set(index: Index, ...value: unknown[]) { return setitem(this, index, ...value); },
  at(...index: unknown[]) { return at(this, ...index); },
  nonzero() { return nonzero(this); },
  compress(condition: Operand, ...args: Args) { return compress(condition, this, ...args); },
  argsort(...args: Args) { return argsort(this, ...args); },
  repeat(repeats: number | readonly number[], ...args: Args) { return repeat(this, repeats, ...args); },
  diagonal(...args: (number | { offset?: number; axis1?: number; axis2?: number })[]) { return diagonal(this, ...args); },
  searchsorted(v: Operand, ...args: Args) { return searchsortedOf(this, v, ...args); },
  choose(choices: Operand | readonly Operand[], ...args: Args) { return chooseOf(this, choices, ...args); },
  argpartition(kth: number | readonly number[], ...args: Args) { return argpartitionOf(this, kth, ...args); },
};
// as a class declares its methods: on the prototype, not enumerable
for (const key of Reflect.ownKeys(methods)) {
  Object.defineProperty(Tensor.prototype, key, {
    value: (methods as Record<PropertyKey, unknown>)[key], writable: true, configurable: true, enumerable: false,
  });
}
Object.defineProperty(Tensor.prototype, 'flat', {
  get(this: Tensor): Flat {
    const shape = this.shape;
    const flat = ravel(this);
    return {
      get: (...index) => getitem(flat, ...index),
      set: (index, value) => reshape(setitem(flat, index, value), shape),
    };
  },
  configurable: true,
  enumerable: false,
});

// ---------------------------------------------------------------------------
// np.linalg lives in linalg.ts (norms, solvers, decompositions).
export { LinAlgError } from './linalg.js';
/** numpy.linalg, with NumPy 2's Array API functions (matrix_norm, vector_norm, vecdot, ...) and Mars's randomized_svd. */
export const linalg = { ...linalgBase, ...linalgArrayApi, randomized_svd };
export {
  concat, conj, conjugate, cumulative_prod, cumulative_sum, dsplit, fix, imag, isdtype, matrix_transpose, matvec, permute_dims, real, real_if_close, row_stack,
  unstack, vecdot, vecmat,
} from './aliases.js';

// ---------------------------------------------------------------------------
// Random numbers live in random.ts (the Generator and the legacy `random` functions).
export { Generator, random } from './random.js';

export { array_split, block, diag, diagonal, hsplit, meshgrid, pad, repeat, roll, split, tile, vsplit } from './manipulate.js';
export { einsum } from './einsum.js';
export { divmod, fabs, float_power, frexp, heaviside, i0, iscomplex, iscomplexobj, isneginf, isposinf, isreal, isrealobj, logaddexp, logaddexp2, modf, sinc } from './ufuncs.js';
export * from './search.js';
export * from './extra.js';
export * from './io.js';
export { type Array2StringOptions, type FloatMode, type PrintOptions, type Sign, array2string, array_repr, array_str, get_printoptions, set_printoptions } from './print.js';
export * from './format.js';
export * from './info.js';
export * from './more.js';
export * from './scalars.js';
export * from './windows.js';
export { Slice, argwhere, compress, ellipsis, extract, flatnonzero, getitem, newaxis, nonzero, parseIndex, setitem, slice } from './indexing.js';
export type { Index } from './indexing.js';
export { IndexUpdate } from './at.js';
export {
  allclose, argsort, array_equal, atleast_1d, atleast_2d, atleast_3d, average, column_stack, corrcoef, cov, deg2rad, degrees, diff, dstack,
  isclose, logspace, median, nanprod, nanstd, nanvar, percentile, quantile, rad2deg, radians, sort, unique,
} from './statistics.js';
export * from './poly.js';
export { c_, index_exp, mgrid, ndenumerate, ndindex, ogrid, r_, s_ } from './index_tricks.js';
export { copyto, fill_diagonal, place, put, putmask } from './inplace.js';
export { fft } from './fft.js';
/** np.ndarray, for `x instanceof mt.ndarray`: the tensor class. */
export { Tensor as ndarray };
