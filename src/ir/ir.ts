// The kernel IR: one small expression language for a fused chunk kernel.
// A Kernel computes, for every index of its output box, an expression over
// loop variables (global indices), loads from materialised inputs, random
// draws and nested reductions. Index arithmetic is the same language at
// int64. Expressions are hash-consed, so equal subexpressions are one object
// (common-subexpression elimination for free) and a kernel has a structural
// key that caches compiled Programs. Plain JSON-able data: a worker or peer
// compiles its own Program from it, never from code text.

import type { DType } from '../graph/dtype.js';
import type { BinaryOp, RandomDist, ReduceOp, UnaryOp } from '../graph/ops.js';

export type Expr =
  | { readonly k: 'const'; readonly dtype: DType; readonly value: number | boolean | string }
  /** A loop variable: the global index along one axis of the iteration space. */
  | { readonly k: 'var'; readonly dtype: 'int64'; readonly id: number }
  /** Element of materialised input `input` at the given global index (one int64 expr per axis). */
  | { readonly k: 'load'; readonly dtype: DType; readonly input: number; readonly index: readonly Expr[] }
  | { readonly k: 'unary'; readonly dtype: DType; readonly op: UnaryOp | 'floordiv_pos'; readonly a: Expr }
  | { readonly k: 'binary'; readonly dtype: DType; readonly op: BinaryOp; readonly a: Expr; readonly b: Expr }
  /** Lazy select: only the taken branch is evaluated (guards out-of-range loads). */
  | { readonly k: 'where'; readonly dtype: DType; readonly c: Expr; readonly a: Expr; readonly b: Expr }
  | { readonly k: 'cast'; readonly dtype: DType; readonly a: Expr }
  /** Counter-based random value for linear element index `index` of stream (seed, stream). */
  | { readonly k: 'random'; readonly dtype: DType; readonly dist: RandomDist; readonly seed: readonly [number, number]; readonly stream: number; readonly index: Expr }
  /**
   * A reduction over fresh loop variables `vars` (each over [0, size)) of `body`.
   * For argmin/argmax the value is the C-order linear index over `vars`.
   * `lanes` (float sums only, default SUM_LANES) is the number of lanes per block.
   */
  | { readonly k: 'reduce'; readonly dtype: DType; readonly op: ReduceOp; readonly vars: readonly RVar[]; readonly body: Expr; readonly lanes?: number }
  /** In a kernel's epilogue: the value of its top-level reduction. */
  | { readonly k: 'acc'; readonly dtype: DType };

/**
 * Float sums add their terms in blocks: each run of the innermost reduction
 * variable (a "row" of the reduction box, in C order) is cut into blocks of
 * SUM_BLOCK consecutive terms. A block sums its terms in `lanes` lanes (term
 * p of the block goes to lane p % lanes), each one by one from 0, and its sum
 * is `laneTree` of the lanes (the lane itself when there is one). The blocks, in order, sum in groups of
 * SUM_BLOCK (from 0) into group sums, and the group sums add up (from 0) to
 * the result. As in NumPy's pairwise sum (blocks of 128 in 8 lanes), the
 * error grows with the block and group lengths and the number of groups, not
 * with the number of terms; a contiguous row sums as f64x2 vectors in one
 * sequential pass, and a reduction over a leading axis adds whole rows of
 * outputs at once. A matrix product uses 2 lanes (what its GEMM routine keeps
 * in registers); a sum NumPy adds one by one uses 1 (order.ts, sequentialSum).
 */
export const SUM_BLOCK = 128;
export const SUM_LANES = 8;

/**
 * The sum of a block's lanes: lanes in pairs (l0, l1), (l2, l3), ... as two-lane
 * vectors added pairwise, ((v0 + v1) + (v2 + v3)), then the vector's two lanes:
 * for 8 lanes ((l0 + l2) + (l4 + l6)) + ((l1 + l3) + (l5 + l7)).
 */
export function laneTree<V>(lanes: readonly V[], add: (a: V, b: V) => V): V {
  if (lanes.length === 1) return lanes[0]!;
  return add(pairTree(lanes.filter((_, i) => i % 2 === 0), add), pairTree(lanes.filter((_, i) => i % 2 === 1), add));
}

/** Adjacent pairs first: ((x0 + x1) + (x2 + x3)) for four values (a power of two of them). */
export function pairTree<V>(xs: readonly V[], add: (a: V, b: V) => V): V {
  return xs.length === 1 ? xs[0]! : add(pairTree(xs.slice(0, xs.length / 2), add), pairTree(xs.slice(xs.length / 2), add));
}
export const isBlockedSum = (op: ReduceOp, acc: DType): boolean => op === 'sum' && (acc === 'float64' || acc === 'float32');

export interface RVar {
  readonly id: number;
  readonly size: number;
  /** Chunk length along this variable when it is split across tasks. */
  readonly chunk: number;
}

export interface KernelInput {
  readonly dtype: DType;
  readonly shape: readonly number[];
}

/**
 * out[v0..v(r-1)] = epilogue, where `acc` in the epilogue stands for the
 * top-level reduction `reduce` (absent for purely elementwise kernels).
 * Outer variables 0..r-1 range over `shape`, chunked by `chunk`.
 */
export interface Kernel {
  readonly inputs: readonly KernelInput[];
  readonly shape: readonly number[];
  readonly chunk: readonly number[];
  readonly dtype: DType;
  readonly reduce?: Extract<Expr, { k: 'reduce' }>;
  readonly epilogue: Expr;
}

const table = new Map<string, Expr>();

function keyOf(e: Expr): string {
  switch (e.k) {
    case 'const': return `c${e.dtype}:${Object.is(e.value, -0) ? '-0' : String(e.value)}`;
    case 'var': return `v${e.id}`;
    case 'load': return `l${e.dtype}:${e.input}[${e.index.map(idOf).join(',')}]`;
    case 'unary': return `u${e.op}:${e.dtype}(${idOf(e.a)})`;
    case 'binary': return `b${e.op}:${e.dtype}(${idOf(e.a)},${idOf(e.b)})`;
    case 'where': return `w${e.dtype}(${idOf(e.c)},${idOf(e.a)},${idOf(e.b)})`;
    case 'cast': return `t${e.dtype}(${idOf(e.a)})`;
    case 'random': return `r${e.dist}:${e.seed[0]},${e.seed[1]}:${e.stream}(${idOf(e.index)})`;
    case 'reduce': return `R${e.op}:${e.dtype}:${e.lanes ?? SUM_LANES}[${e.vars.map((v) => `${v.id}:${v.size}:${v.chunk}`).join(',')}](${idOf(e.body)})`;
    case 'acc': return `A${e.dtype}`;
    default: return e satisfies never;
  }
}

const ids = new WeakMap<Expr, number>();
let nextExprId = 0;
function idOf(e: Expr): number {
  let i = ids.get(e);
  if (i === undefined) {
    i = nextExprId++;
    ids.set(e, i);
  }
  return i;
}

/** Returns the canonical object for `e`: structurally equal expressions are identical. */
export function intern<E extends Expr>(e: E): E {
  const key = keyOf(e);
  const hit = table.get(key);
  if (hit) return hit as E;
  if (table.size > 200_000) table.clear();
  Object.freeze(e);
  table.set(key, e);
  return e;
}

export const I64 = 'int64' as const;
export const konst = (value: number | boolean | string, dtype: DType): Expr => intern({ k: 'const', dtype, value });
export const ivar = (id: number): Expr => intern({ k: 'var', dtype: I64, id });

/** Index arithmetic with constant folding, so views compose into short expressions. */
export function iadd(a: Expr, b: Expr): Expr {
  if (a.k === 'const' && b.k === 'const') return konst(Number(a.value) + Number(b.value), I64);
  if (a.k === 'const' && Number(a.value) === 0) return b;
  if (b.k === 'const' && Number(b.value) === 0) return a;
  return intern({ k: 'binary', dtype: I64, op: 'add', a, b });
}
export function imul(a: Expr, b: Expr): Expr {
  if (a.k === 'const' && b.k === 'const') return konst(Number(a.value) * Number(b.value), I64);
  if (a.k === 'const') [a, b] = [b, a];
  if (b.k === 'const' && Number(b.value) === 1) return a;
  if (b.k === 'const' && Number(b.value) === 0) return b;
  return intern({ k: 'binary', dtype: I64, op: 'multiply', a, b });
}
/** Floor division of a non-negative index by a positive constant. */
export function idiv(a: Expr, d: number): Expr {
  if (d === 1) return a;
  if (a.k === 'const') return konst(Math.floor(Number(a.value) / d), I64);
  return intern({ k: 'binary', dtype: I64, op: 'floor_divide', a, b: konst(d, I64) });
}
export function imod(a: Expr, d: number): Expr {
  if (d === 1) return konst(0, I64);
  if (a.k === 'const') return konst(Number(a.value) % d, I64);
  return intern({ k: 'binary', dtype: I64, op: 'mod', a, b: konst(d, I64) });
}
export const ic = (v: number): Expr => konst(v, I64);

/** Children of an expression, for generic walks. */
export function children(e: Expr): readonly Expr[] {
  switch (e.k) {
    case 'const': case 'var': case 'acc': return [];
    case 'load': return e.index;
    case 'unary': case 'cast': return [e.a];
    case 'binary': return [e.a, e.b];
    case 'where': return [e.c, e.a, e.b];
    case 'random': return [e.index];
    case 'reduce': return [e.body];
    default: return e satisfies never;
  }
}

/** The key of a random draw site: draws of one (seed, stream) share their Philox blocks. */
export const siteKey = (e: Extract<Expr, { k: 'random' }>): string => `${e.seed[0]},${e.seed[1]},${e.stream}`;

const kernelSites = new WeakMap<Kernel, string[]>();

/** The distinct draw sites of a kernel, in a fixed order (each gets its own scratch). */
export function randomSites(k: Kernel): string[] {
  let out = kernelSites.get(k);
  if (!out) {
    const keys = new Set<string>();
    const seen = new Set<Expr>();
    const walk = (e: Expr): void => {
      if (seen.has(e)) return;
      seen.add(e);
      if (e.k === 'random') keys.add(siteKey(e));
      children(e).forEach(walk);
    };
    if (k.reduce) walk(k.reduce);
    walk(k.epilogue);
    out = [...keys];
    kernelSites.set(k, out);
  }
  return out;
}

const kernelKeys = new WeakMap<Kernel, string>();

/** Structural key of a kernel: equal keys compile to the same Program (memoised per kernel object: a plan asks once per task). */
export function kernelKey(k: Kernel): string {
  let key = kernelKeys.get(k);
  if (key === undefined) { key = computeKernelKey(k, false); kernelKeys.set(k, key); }
  return key;
}

const programKeys = new WeakMap<Kernel, string>();

/**
 * The kernel's key with each random draw's (seed, stream) replaced by the
 * index of its site: kernels that differ only in their seeds share one
 * compiled WASM program, which takes them as parameters (`siteParams`).
 */
export function programKey(k: Kernel): string {
  let key = programKeys.get(k);
  if (key === undefined) { key = computeKernelKey(k, true); programKeys.set(k, key); }
  return key;
}

function computeKernelKey(k: Kernel, bySite: boolean): string {
  const parts: string[] = [];
  const seen = new Map<Expr, number>();
  const sites = bySite ? randomSites(k) : [];
  const walk = (e: Expr): number => {
    const s = seen.get(e);
    if (s !== undefined) return s;
    const kids = children(e).map(walk);
    const self = bySite && e.k === 'random' ? `r${e.dist}:${e.dtype}:site${sites.indexOf(siteKey(e))}` : keyOf(e).replace(/\(.*\)$|\[.*\]$/s, '');
    parts.push(`${self}<${kids.join(',')}>`);
    const id = parts.length - 1;
    seen.set(e, id);
    return id;
  };
  const r = k.reduce ? walk(k.reduce) : -1;
  const ep = walk(k.epilogue);
  return `${k.inputs.map((i) => `${i.dtype}${i.shape.length}`).join(',')}|${k.shape.length}|${k.dtype}|${r}|${ep}|${parts.join(';')}`;
}

const kernelSiteParams = new WeakMap<Kernel, readonly (readonly [number, number, number])[]>();

/** Each draw site's (seed word 0, seed word 1, stream) as unsigned 32-bit numbers, in `randomSites` order. */
export function siteParams(k: Kernel): readonly (readonly [number, number, number])[] {
  let out = kernelSiteParams.get(k);
  if (!out) {
    out = randomSites(k).map((key) => key.split(',').map((v) => Number(v) >>> 0) as unknown as readonly [number, number, number]);
    kernelSiteParams.set(k, out);
  }
  return out;
}
