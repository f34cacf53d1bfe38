// Loop-order analysis of a kernel's reductions, shared by the stages that
// must agree on it: fuse picks a float sum's lanes for the order the kernel
// will run in, and the WASM emitter runs that order. Pure functions of the IR.
// In: Kernels and expressions. Out: the order ('rows' or 'inner') and the
// small predicates the emitter's fast paths test.

import { type Expr, type Kernel, type RVar, children } from './ir.js';

export const isVarExpr = (e: Expr | undefined, id: number): boolean => e !== undefined && e.k === 'var' && e.id === id;

/** Whether variable `id` occurs in `e`. */
export function mentions(e: Expr, id: number): boolean {
  if (e.k === 'var') return e.id === id;
  return children(e).some((x) => mentions(x, id));
}

/** Whether variable `id` occurs in `e` other than inside the loads `skip`. */
export function mentionsBesides(e: Expr, id: number, skip: ReadonlySet<Expr>): boolean {
  if (skip.has(e)) return false;
  if (e.k === 'var') return e.id === id;
  return children(e).some((x) => mentionsBesides(x, id, skip));
}

/** The load a reduction body is, possibly through a cast to float64: the body a vector loop handles. */
export function simdLoad(e: Expr): Extract<Expr, { k: 'load' }> | undefined {
  const x = e.k === 'cast' && e.dtype === 'float64' ? e.a : e;
  return x.k === 'load' && (x.dtype === 'float64' || x.dtype === 'float32') ? x : undefined;
}

export function containsKind(e: Expr, kind: Expr['k'], seen = new Set<Expr>()): boolean {
  if (seen.has(e)) return false;
  seen.add(e);
  return e.k === kind || children(e).some((x) => containsKind(x, kind, seen));
}

/** The loads of `e` outside nested reductions (those in index expressions included), each once. */
function loadsOf(e: Expr): Extract<Expr, { k: 'load' }>[] {
  const out: Extract<Expr, { k: 'load' }>[] = [];
  const seen = new Set<Expr>();
  const walk = (x: Expr) => {
    if (seen.has(x)) return;
    seen.add(x);
    if (x.k === 'load') out.push(x);
    if (x.k !== 'reduce') children(x).forEach(walk);
  };
  walk(e);
  return out;
}

/**
 * The loop order of a kernel's top-level reduction. 'inner' runs the
 * reduction innermost, per output. 'rows' runs it outside a block of outputs
 * along the innermost output axis, when that axis is the one the body's
 * loads are contiguous in (a reduction over a leading axis, such as
 * x.sum(axis=0)): then memory is read in order instead of with a stride.
 */
export function reduceOrder(k: Kernel): 'rows' | 'inner' {
  const red = k.reduce;
  const r = k.shape.length;
  if (!red || r === 0 || red.vars.length === 0 || Math.min(k.shape[r - 1]!, k.chunk[r - 1]!) < 8) return 'inner';
  if (containsKind(red.body, 'reduce') || containsKind(red.body, 'random')) return 'inner';
  const innerVar = red.vars[red.vars.length - 1]!.id;
  let rows = 0, inner = 0;
  for (const e of loadsOf(red.body)) {
    const last = e.index[e.index.length - 1];
    if (isVarExpr(last, r - 1) && e.index.slice(0, -1).every((i) => !mentions(i, r - 1))) rows++;
    else if (last && mentions(last, innerVar)) inner++;
  }
  return rows > 0 && inner === 0 ? 'rows' : 'inner';
}

/**
 * Whether a float sum over `vars` of `body` adds its terms one by one (one
 * lane), as NumPy does: a sum of fewer than eight terms (NumPy's pairwise sum
 * starts at eight), and a sum whose body reads memory only with a stride
 * along the innermost reduction variable (NumPy's sum over a leading axis is
 * `out += row`, with no pairwise sum at all; axes of length 1 do not
 * count). A var of identical values is then exactly 0 where NumPy's is.
 */
export function sequentialSum(vars: readonly RVar[], body: Expr, shapeOf: (input: number) => readonly number[]): boolean {
  if (vars.reduce((a, v) => a * v.size, 1) < 8) return true;
  if (vars.length === 0) return false;
  const id = vars[vars.length - 1]!.id;
  let loads = 0, contiguous = 0;
  for (const e of loadsOf(body)) {
    // The load's innermost axis longer than 1 is the one its memory is contiguous in.
    const shape = shapeOf(e.input);
    let a = shape.length - 1;
    while (a >= 0 && shape[a] === 1) a--;
    if (a >= 0) {
      loads++;
      if (mentions(e.index[a]!, id)) contiguous++;
    }
  }
  return loads > 0 && contiguous === 0;
}

/**
 * Lanes of a float sum run in 'rows' order: one. Its outputs' terms arrive a
 * row apart, so each block adds one by one (as NumPy does along a leading
 * axis, where it has no pairwise sum at all); more lanes would only multiply
 * the rows of accumulators kept in scratch.
 */
export const ROWS_LANES = 1;
