// NumPy's ufunc.at as a functional update: `x.at(index).add(v)` is
// `np.add.at(x, index, v)` (JAX spells it the same way), returning the new
// tensor. Unlike `x.set(index, x.get(index).add(v))`, positions the index
// names more than once take every value in turn: `x.at([0, 0]).add(1)` adds
// 2 to x[0], as ufunc.at's unbuffered loop does. Each step computes in the
// loop NumPy picks for x's dtype and the value's (a JS number is weak, as in
// x + v) and casts back to x's dtype, as ufunc.at casts into its array.
//
// The index takes every form `get` does (integers, slices, integer arrays,
// masks, a selection known only at run time): the flat positions of
// x.get(index) are gathered from x's own positions, and the values go into
// them on the host in index order (graph/node.ts `scatter`), in
// O(x.size + len(index)).

import * as G from '../graph/node.js';
import type { BinaryOp } from '../graph/ops.js';
import { broadcastShapes, hasUnknown, shapeStr } from '../graph/shape.js';
import { type Operand, Tensor, arange, astype, broadcast_to, isTensor, ravel, reshape, tensor, toTensor, whenKnown } from './core.js';
import type { JsData } from './convert.js';
import { getitem, setitem } from './indexing.js';

/** The ufuncs an update can apply (a comparison's bool result has no place in x's dtype in NumPy's at either). */
const OPS = {
  add: 'add', subtract: 'subtract', multiply: 'multiply', divide: 'divide', true_divide: 'divide', floor_divide: 'floor_divide',
  mod: 'mod', remainder: 'mod', power: 'power', maximum: 'maximum', minimum: 'minimum', fmax: 'fmax', fmin: 'fmin',
  arctan2: 'arctan2', hypot: 'hypot', fmod: 'fmod', copysign: 'copysign', gcd: 'gcd', lcm: 'lcm',
  logical_and: 'logical_and', logical_or: 'logical_or', logical_xor: 'logical_xor',
  bitwise_and: 'bitwise_and', bitwise_or: 'bitwise_or', bitwise_xor: 'bitwise_xor', left_shift: 'left_shift', right_shift: 'right_shift',
} as const satisfies Record<string, BinaryOp>;
export type AtOp = keyof typeof OPS;
export const AT_OPS = new Set<string>(Object.keys(OPS));

/** `x.at(index)`: the functional forms of `x[index] = v` and of NumPy's ufunc.at over the positions x.get(index) names. */
export class IndexUpdate {
  constructor(private readonly x: Tensor, private readonly index: readonly unknown[]) {}

  /** x[index]. */
  get(): Tensor { return getitem(this.x, ...this.index); }
  /** x with x[index] = v (a position named twice keeps the last value). */
  set(v: Operand): Tensor { return setitem(this.x, ...this.index, v); }
  /** np.add.at(x, index, v), as a new tensor. */
  add(v: Operand): Tensor { return this.apply('add', v); }
  subtract(v: Operand): Tensor { return this.apply('subtract', v); }
  multiply(v: Operand): Tensor { return this.apply('multiply', v); }
  divide(v: Operand): Tensor { return this.apply('divide', v); }
  power(v: Operand): Tensor { return this.apply('power', v); }
  /** np.maximum.at (NaN propagates, as in maximum). */
  maximum(v: Operand): Tensor { return this.apply('maximum', v); }
  minimum(v: Operand): Tensor { return this.apply('minimum', v); }
  /** JAX's names for maximum and minimum. */
  max(v: Operand): Tensor { return this.apply('maximum', v); }
  min(v: Operand): Tensor { return this.apply('minimum', v); }
  /** Any ufunc of two arguments that NumPy's at takes, by name: `x.at(i).apply('bitwise_or', m)`. */
  apply(ufunc: AtOp, v: Operand): Tensor { return update(this.x, this.index, ufunc, v); }
}

function update(x: Tensor, index: readonly unknown[], name: string, value: Operand): Tensor {
  if (!AT_OPS.has(name)) throw new TypeError(`at(): no update by '${name}'; one of ${[...AT_OPS].join(', ')}`);
  const op = OPS[name as AtOp];
  // x of a length known only at run time: the update is built once the run knows it
  const later = whenKnown('at', [x], (y: Tensor) => update(y, index, name, value));
  if (later) return later;
  // the loop: the ufunc's result dtype for x's dtype and the value (its dtype, or a JS number's kind)
  // (through the ufunc's method, not a lookup among the module's exports, which would keep every export in a bundle)
  const vProbe = isTensor(value) ? new Tensor(G.constant(0, value.dtype)) : typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint' ? value : toTensor(value);
  const compute = new Tensor(G.constant(0, x.dtype))[op](vProbe as Operand).dtype;
  const v = isTensor(value) ? astype(value, compute) : tensor(value as JsData, { dtype: compute });
  const positions = getitem(reshape(arange(x.size, { dtype: 'int64' }), x.shape), ...index);
  const build = (pos: Tensor, vals: Tensor): Tensor => {
    // ufunc.at's rule: the value broadcasts to x.get(index)'s shape, with no more dims than it
    let fits = vals.ndim <= pos.ndim;
    try { fits &&= shapeStr(broadcastShapes(vals.shape, pos.shape)) === shapeStr(pos.shape); } catch { fits = false; }
    if (!fits) throw new RangeError(`array is not broadcastable to correct shape: a value of shape ${shapeStr(vals.shape)} for the ${shapeStr(pos.shape)} positions the index names`);
    const b = ravel(broadcast_to(vals, pos.shape));
    return new Tensor(G.scatter(op, ravel(x).node, ravel(pos).node, b.node, compute));
  };
  const flat = hasUnknown(positions.shape) ? whenKnown('at', [positions, v], build)! : build(positions, v);
  return reshape(flat, x.shape);
}

/** x.at(...index). */
export const at = (x: Tensor, ...index: unknown[]): IndexUpdate => new IndexUpdate(x, index);
