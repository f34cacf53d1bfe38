// Property tests (fast-check): every result must be independent of how the
// inputs are chunked (`chunkSize`) and of how many workers run the tasks.
//
// A random program (random input shapes with 0-size dims, dtypes, data and
// chunkSizes, then a few random stages: elementwise ufuncs with broadcasting
// against other chunked inputs, scalars or fused random draws; where; astype;
// reductions over random axes/axis tuples with keepdims; x - max(x, axis);
// cumsum/cumprod; reshape/transpose/flip/swapaxes/expand_dims/broadcast_to/
// concatenate/roll/repeat; matmul/dot; take; basic indexing and set() with
// NumPy index strings; boolean masks, whose length is known only at run time)
// is built three times from the same description:
//   ref     every input in one chunk (chunkSize 2^30), run inline ({workers: 0});
//   inline  every input with its own random chunkSize, run inline;
//   pool    the same chunked program run on the worker pool (fetch(): one
//           worker per core).
// `inline` and `pool` run the same tasks with the same fixed combine order, so
// they must always agree bit for bit. Against `ref`:
//   - exact (bit-identical, NaN equal to NaN, -0 distinct from +0): integer
//     and bool results, elementwise programs, min/max/argmin/argmax/any/all,
//     shape ops, take, integer sums/products/cumsums/matmuls (wrapping integer
//     arithmetic is associative);
//   - within a rounding bound: float sum/prod/mean/var, float cumsum/cumprod
//     and float matmul/dot, whose summation order legitimately depends on the
//     chunking. The bound is the worst case of recursive summation, doubled
//     because both sides round: |got - ref| <= (4N + 16) * eps * mag, with N
//     the number of terms accumulated, eps the dtype's machine epsilon and mag
//     the same accumulation over |x| (mean(x^2) for var) computed separately.
//     After such a stage only shape ops are applied (a comparison or argmax of
//     an inexact value could flip legitimately), and exp/divide are not used
//     before it (they make huge finite values whose partial sums overflow in
//     an order-dependent way); products are taken over values tamed into
//     +-[0.9, 1.1] so they can neither overflow nor underflow.
// Random numbers (Philox4x32-10, counter-based) must be bit-identical for any
// chunkSize and worker count, differ between seeds, stay in range and match
// the reference Philox stream.
//
// fast-check picks a new seed each run and prints it with the shrunk
// counterexample on failure; PROP_SEED=<seed> replays it, PROP_RUNS=<n> sets
// the base number of runs (default 60), PROP_STATS=1 prints which operations
// the generated programs exercised.
import * as fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import * as mt from '../src/api/tensor.js';
import { randomValue, seedKey } from '../src/ir/philox.js';
import { availableParallelism } from 'node:os';

afterAll(() => mt.shutdown());

// ---------------------------------------------------------------------------
// Program descriptions (plain data, so fast-check can print and shrink them).
// Axes, permutations and reshape targets are raw integers resolved against the
// actual shape at build time, so any description is valid for any shape.

type DT = 'float64' | 'float32' | 'int32' | 'int64' | 'uint8' | 'bool';
const DTYPES: DT[] = ['float64', 'float32', 'int32', 'int64', 'uint8', 'bool'];
type ChunkSpec = number | (number | null)[];

interface Leaf {
  dtype: DT;
  /** Raw values, used cyclically and converted to the dtype. */
  values: number[];
  chunk: ChunkSpec;
  /** Leading dims of the target shape to drop, and a mask of dims set to 1 (broadcasting). */
  drop: number;
  ones: number;
}
type Other =
  | { k: 'scalar'; v: number }
  | { k: 'leaf'; leaf: Leaf }
  /** Fresh random numbers (default_rng(seed)) of the leaf's shape and chunking, fused into the program. */
  | { k: 'random'; seed: number; dist: 'uniform' | 'normal' | 'integers'; chunk: ChunkSpec; drop: number; ones: number };
type UnaryName = 'sqrt' | 'exp' | 'abs' | 'negative' | 'square' | 'floor' | 'sin' | 'logical_not' | 'isnan' | 'sign';
type BinaryName = 'add' | 'subtract' | 'multiply' | 'divide' | 'maximum' | 'minimum' | 'less' | 'greater_equal' | 'equal' | 'not_equal';
type ReduceName = 'sum' | 'prod' | 'min' | 'max' | 'mean' | 'var' | 'argmin' | 'argmax' | 'any' | 'all';

type Stage =
  | { k: 'unary'; op: UnaryName }
  | { k: 'binary'; op: BinaryName; other: Other; swap: boolean }
  | { k: 'where'; thr: number; other: Other; swap: boolean }
  | { k: 'astype'; dtype: DT }
  | { k: 'reduce'; op: ReduceName; axes: number[] | null; tuple: boolean; keepdims: boolean }
  | { k: 'scan'; op: 'cumsum' | 'cumprod'; axis: number | null }
  | { k: 'reshape'; split: number[]; infer: boolean }
  | { k: 'transpose'; keys: number[] }
  | { k: 'flip'; axes: number[] | null }
  | { k: 'swapaxes'; a: number; b: number }
  | { k: 'expand_dims'; axis: number }
  | { k: 'broadcast_to'; lead: number[]; grow: number[] }
  | { k: 'concatenate'; leaf: Leaf; len: number; axis: number; first: boolean }
  | { k: 'matmul'; fn: 'matmul' | 'dot'; leaf: Leaf; m: number; form: 'vec' | 'mat' | 'batch' }
  | { k: 'take'; idx: number[]; idxShape: number[]; idtype: 'int32' | 'int64'; chunk: ChunkSpec; axis: number | null }
  | { k: 'getitem'; items: IndexItem[] }
  | { k: 'setitem'; items: IndexItem[]; v: number }
  | { k: 'mask'; thr: number; rows: boolean }
  | { k: 'roll'; shift: number; axis: number | null }
  /** x - reduce(x, axis, keepdims): a reduction broadcast back against its own input. */
  | { k: 'center'; op: 'max' | 'min' | 'sum'; axis: number | null }
  | { k: 'repeat'; repeats: number; axis: number | null };

/** One item of a NumPy index string; start/stop of null are left out (`:`). */
interface IndexItem { kind: 'full' | 'slice' | 'int' | 'new' | 'ellipsis'; a: number | null; b: number | null; step: number | null }

interface Program {
  shape: number[];
  input: Leaf;
  stages: Stage[];
}

const ACCUMULATING = new Set(['sum', 'prod', 'mean', 'var', 'cumsum', 'cumprod', 'matmul']);
const isAccumulating = (s: Stage): boolean =>
  (s.k === 'reduce' && ACCUMULATING.has(s.op)) || s.k === 'scan' || s.k === 'matmul';
const SHAPE_ONLY = new Set(['reshape', 'transpose', 'flip', 'swapaxes', 'expand_dims', 'broadcast_to', 'take', 'getitem', 'roll', 'repeat']);
/** Stages that work on a tensor whose length is known only at run time (after a boolean mask). */
const UNKNOWN_OK = new Set(['unary', 'binary', 'where', 'astype', 'reduce', 'scan']);

// ---------------------------------------------------------------------------
// Arbitraries

const rawValue = fc.oneof(
  { weight: 5, arbitrary: fc.integer({ min: -10, max: 10 }) },
  { weight: 4, arbitrary: fc.double({ min: -10, max: 10, noNaN: true }) },
  { weight: 1, arbitrary: fc.constantFrom(NaN, Infinity, -Infinity, -0, 0.5, 2 ** -1074) },
  { weight: 1, arbitrary: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }) },
);
const chunkSpec: fc.Arbitrary<ChunkSpec> = fc.oneof(
  fc.integer({ min: 1, max: 6 }),
  fc.array(fc.option(fc.integer({ min: 1, max: 4 }), { nil: null }), { minLength: 1, maxLength: 4 }),
);
const dim = fc.oneof({ weight: 1, arbitrary: fc.constant(0) }, { weight: 8, arbitrary: fc.integer({ min: 1, max: 5 }) });
const shapeArb = fc.array(dim, { minLength: 0, maxLength: 4 });
const dtypeArb = fc.constantFrom(...DTYPES);
const leafArb: fc.Arbitrary<Leaf> = fc.record({
  dtype: dtypeArb,
  values: fc.array(rawValue, { minLength: 1, maxLength: 24 }),
  chunk: chunkSpec,
  drop: fc.integer({ min: 0, max: 4 }),
  ones: fc.integer({ min: 0, max: 15 }),
});
const smallLeafArb: fc.Arbitrary<Leaf> = leafArb.map((l) => ({ ...l, drop: 0, ones: 0 }));
const otherArb: fc.Arbitrary<Other> = fc.oneof(
  fc.record({ k: fc.constant('scalar' as const), v: fc.oneof(fc.integer({ min: 0, max: 9 }), fc.double({ min: -10, max: 10, noNaN: true })) }),
  fc.record({ k: fc.constant('leaf' as const), leaf: leafArb }),
  fc.record({ k: fc.constant('random' as const), seed: fc.nat(1000), dist: fc.constantFrom<'uniform' | 'normal' | 'integers'>('uniform', 'normal', 'integers'), chunk: chunkSpec, drop: fc.integer({ min: 0, max: 4 }), ones: fc.integer({ min: 0, max: 15 }) }),
);
const axisRaw = fc.integer({ min: -4, max: 7 });

const stageArb: fc.Arbitrary<Stage> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ k: fc.constant('unary' as const), op: fc.constantFrom<UnaryName>('sqrt', 'exp', 'abs', 'negative', 'square', 'floor', 'sin', 'logical_not', 'isnan', 'sign') }) },
  { weight: 5, arbitrary: fc.record({ k: fc.constant('binary' as const), op: fc.constantFrom<BinaryName>('add', 'subtract', 'multiply', 'divide', 'maximum', 'minimum', 'less', 'greater_equal', 'equal', 'not_equal'), other: otherArb, swap: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant('where' as const), thr: fc.integer({ min: -3, max: 3 }), other: otherArb, swap: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('astype' as const), dtype: dtypeArb }) },
  { weight: 5, arbitrary: fc.record({ k: fc.constant('reduce' as const), op: fc.constantFrom<ReduceName>('sum', 'prod', 'min', 'max', 'mean', 'var', 'argmin', 'argmax', 'any', 'all'), axes: fc.option(fc.array(axisRaw, { minLength: 1, maxLength: 3 }), { nil: null }), tuple: fc.boolean(), keepdims: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant('scan' as const), op: fc.constantFrom<'cumsum' | 'cumprod'>('cumsum', 'cumprod'), axis: fc.option(axisRaw, { nil: null }) }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant('reshape' as const), split: fc.array(fc.nat(20), { minLength: 1, maxLength: 5 }), infer: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant('transpose' as const), keys: fc.array(fc.nat(9), { minLength: 1, maxLength: 4 }) }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('flip' as const), axes: fc.option(fc.array(axisRaw, { minLength: 1, maxLength: 2 }), { nil: null }) }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('swapaxes' as const), a: axisRaw, b: axisRaw }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('expand_dims' as const), axis: axisRaw }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('broadcast_to' as const), lead: fc.array(fc.nat(3), { maxLength: 2 }), grow: fc.array(fc.nat(3), { minLength: 1, maxLength: 3 }) }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant('center' as const), op: fc.constantFrom<'max' | 'min' | 'sum'>('max', 'min', 'sum'), axis: fc.option(axisRaw, { nil: null }) }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant('concatenate' as const), leaf: smallLeafArb, len: fc.nat(3), axis: axisRaw, first: fc.boolean() }) },
  { weight: 3, arbitrary: fc.record({ k: fc.constant('matmul' as const), fn: fc.constantFrom<'matmul' | 'dot'>('matmul', 'dot'), leaf: smallLeafArb, m: fc.nat(3), form: fc.constantFrom<'vec' | 'mat' | 'batch'>('vec', 'mat', 'batch') }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant('take' as const), idx: fc.array(fc.integer({ min: -50, max: 50 }), { minLength: 1, maxLength: 8 }), idxShape: fc.array(fc.nat(3), { maxLength: 2 }), idtype: fc.constantFrom<'int32' | 'int64'>('int32', 'int64'), chunk: chunkSpec, axis: fc.option(axisRaw, { nil: null }) }) },
);

const indexItemArb: fc.Arbitrary<IndexItem> = fc.record({
  kind: fc.constantFrom<IndexItem['kind']>('full', 'slice', 'slice', 'int', 'new', 'ellipsis'),
  a: fc.option(fc.integer({ min: -7, max: 7 }), { nil: null }),
  b: fc.option(fc.integer({ min: -7, max: 7 }), { nil: null }),
  step: fc.option(fc.constantFrom(1, 2, 3, -1, -2, -3), { nil: null }),
});
const indexingStageArb: fc.Arbitrary<Stage> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ k: fc.constant('getitem' as const), items: fc.array(indexItemArb, { minLength: 1, maxLength: 4 }) }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant('setitem' as const), items: fc.array(indexItemArb, { minLength: 1, maxLength: 4 }), v: fc.integer({ min: -3, max: 9 }) }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant('mask' as const), thr: fc.integer({ min: -3, max: 3 }), rows: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('roll' as const), shift: fc.integer({ min: -7, max: 7 }), axis: fc.option(axisRaw, { nil: null }) }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('repeat' as const), repeats: fc.nat(3), axis: fc.option(axisRaw, { nil: null }) }) },
);

const programArb: fc.Arbitrary<Program> = fc.record({
  shape: shapeArb,
  input: leafArb,
  stages: fc.array(fc.oneof({ weight: 4, arbitrary: stageArb }, { weight: 1, arbitrary: indexingStageArb }), { minLength: 1, maxLength: 4 }),
});

// ---------------------------------------------------------------------------
// Building a program

const BIG = 2 ** 30;
const isF = (d: string): boolean => d === 'float64' || d === 'float32';
const sizeOf = (s: readonly number[]): number => s.reduce((a, b) => a * b, 1);

function convert(v: number, d: DT): number | boolean {
  if (d === 'bool') return v > 0;
  if (isF(d)) return Number.isFinite(v) && Math.abs(v) > 1000 ? v % 10 : v;
  return Number.isFinite(v) ? Math.trunc(v) : 0;
}

function nest(flat: (number | boolean)[], shape: readonly number[]): unknown {
  if (shape.length === 0) return flat[0];
  const [n, ...rest] = shape;
  const step = sizeOf(rest);
  return Array.from({ length: n! }, (_, i) => nest(flat.slice(i * step, (i + 1) * step), rest));
}

function resolveChunk(spec: ChunkSpec, rank: number): number | (number | null)[] {
  if (typeof spec === 'number') return spec;
  return Array.from({ length: rank }, (_, i) => spec[i % spec.length]!);
}

interface Ctx {
  /** false: every input is one chunk (the reference). */
  chunked: boolean;
  /** true: build the magnitude program for the inexact stage (see header). */
  mag: boolean;
}

function makeTensor(shape: readonly number[], dtype: DT, values: number[], chunk: ChunkSpec, ctx: Ctx): mt.Tensor {
  const chunkSize = ctx.chunked ? resolveChunk(chunk, shape.length) : BIG;
  if (sizeOf(shape) === 0) return mt.zeros(shape, { dtype, chunkSize });
  const flat = Array.from({ length: sizeOf(shape) }, (_, i) => convert(values[i % values.length]!, dtype));
  return mt.tensor(nest(flat, shape) as number[], { dtype, chunkSize });
}

function leafFor(leaf: Leaf, target: readonly number[], ctx: Ctx): mt.Tensor {
  const drop = leaf.drop % (target.length + 1);
  const shape = target.slice(drop).map((d, i) => ((leaf.ones >> i) & 1 ? 1 : d));
  return makeTensor(shape, leaf.dtype, leaf.values, leaf.chunk, ctx);
}

function otherFor(o: Other, target: readonly number[], ctx: Ctx): mt.Tensor | number {
  if (o.k === 'scalar') return o.v;
  if (o.k === 'leaf') return leafFor(o.leaf, target, ctx);
  const drop = o.drop % (target.length + 1);
  const shape = target.slice(drop).map((d, i) => ((o.ones >> i) & 1 ? 1 : d));
  const chunkSize = ctx.chunked ? resolveChunk(o.chunk, shape.length) : BIG;
  const g = mt.random.default_rng(o.seed);
  return o.dist === 'uniform' ? g.uniform(-2, 2, shape, { chunkSize }) : o.dist === 'normal' ? g.normal(0, 3, shape, { chunkSize }) : g.integers(-5, 5, shape, { chunkSize });
}
const dtypeOf = (o: mt.Tensor | number): string => (typeof o === 'number' ? 'weak' : o.dtype);

/** Normalises a raw axis into [-r, r) (keeping negative axes negative). */
function axisIn(raw: number, r: number): number {
  return raw >= 0 ? raw % r : -1 - ((-raw - 1) % r);
}
const pos = (a: number, r: number): number => (a < 0 ? a + r : a);

function divisors(n: number): number[] {
  const out: number[] = [];
  for (let d = 1; d <= n; d++) if (n % d === 0) out.push(d);
  return out;
}

/** What a built program knows about its result's exactness. */
interface Built {
  t: mt.Tensor;
  /** Set when a float accumulation happened: the number of terms and the result dtype. */
  inexact?: { n: number; dtype: string };
  /** Description of the stages actually applied (for failure messages). */
  applied: string[];
  /** Some value along the way had size 0 (or a run-time length, which may be 0). */
  zeroSize: boolean;
}

/** Prod/cumprod inputs: floats tamed into +-[0.9, 1.1] (or 1) so no product over- or underflows. */
function tame(x: mt.Tensor): mt.Tensor {
  if (!isF(x.dtype)) return x;
  return mt.where(mt.less(mt.abs(x), 0.9), 1, mt.clip(x, -1.1, 1.1)).astype(x.dtype);
}
const f64abs = (x: mt.Tensor): mt.Tensor => mt.abs(x.astype('float64'));

/** A NumPy index string for `items` on shape S (ints kept in range, at most one ellipsis, rank <= 5). */
function indexString(items: IndexItem[], S: readonly number[]): string {
  const r = S.length;
  const kept: IndexItem[] = [];
  let consuming = 0, ell = false, added = 0;
  for (const it of items) {
    if (it.kind === 'ellipsis') { if (!ell) kept.push(it); ell = true; }
    else if (it.kind === 'new') { if (r + added < 5) { kept.push(it); added++; } }
    else if (consuming < r) { kept.push(it); consuming++; }
  }
  const after = ell ? kept.slice(kept.findIndex((i) => i.kind === 'ellipsis') + 1).filter((i) => i.kind !== 'new').length : 0;
  let ax = 0;
  const parts = kept.map((it) => {
    switch (it.kind) {
      case 'ellipsis': ax = r - after; return '...';
      case 'new': return 'None';
      case 'full': ax++; return ':';
      case 'slice': ax++; return `${it.a ?? ''}:${it.b ?? ''}${it.step === null ? '' : `:${it.step}`}`;
      case 'int': {
        const d = S[ax++]!;
        return d === 0 ? ':' : String(axisIn(it.a ?? 0, d));
      }
    }
  });
  return parts.length ? parts.join(', ') : '...';
}

function build(p: Program, ctx: Ctx): Built {
  let t = makeTensor(p.shape, p.input.dtype, p.input.values, p.input.chunk, ctx);
  let inexact: Built['inexact'];
  const applied: string[] = [];
  /** After a boolean mask the length is known only at run time; this bounds the size. */
  let unknownBound: number | undefined;
  let zeroSize = !(t.size > 0);
  p.stages.forEach((s, si) => {
    if (si > 0 && !(t.size > 0)) zeroSize = true;
    const accLater = p.stages.slice(si + 1).some(isAccumulating);
    if (inexact && !SHAPE_ONLY.has(s.k)) return;
    if (unknownBound !== undefined) {
      if (!UNKNOWN_OK.has(s.k)) return;
      if ((s.k === 'binary' || s.k === 'where') && s.other.k !== 'scalar') return;
      if (s.k === 'reduce') s = { ...s, axes: null, op: ['min', 'max', 'argmin', 'argmax'].includes(s.op) ? 'sum' : s.op };
      if (s.k === 'scan') s = { ...s, axis: null };
    }
    const S = t.shape, r = S.length;
    const sizeBound = unknownBound ?? t.size;
    switch (s.k) {
      case 'unary': {
        let op: string = s.op;
        if (t.dtype === 'bool' && (op === 'negative' || op === 'sign')) op = 'logical_not';
        if (op === 'exp' && accLater) op = 'abs';
        t = (mt as any)[op](t);
        applied.push(op);
        break;
      }
      case 'binary': {
        const o = otherFor(s.other, S, ctx);
        let op: string = s.op;
        if (op === 'subtract' && t.dtype === 'bool' && dtypeOf(o) === 'bool') op = 'not_equal';
        if (op === 'divide' && accLater) op = 'multiply';
        t = s.swap ? (mt as any)[op](o, t) : (mt as any)[op](t, o);
        applied.push(`${op}(${s.swap ? `${dtypeOf(o)}, x` : `x, ${dtypeOf(o)}`})`);
        break;
      }
      case 'where': {
        const cond = t.dtype === 'bool' ? t : mt.greater(t, s.thr);
        const o = otherFor(s.other, S, ctx);
        t = s.swap ? mt.where(cond, o, t) : mt.where(cond, t, o);
        applied.push(`where(x > ${s.thr}, ${s.swap ? `${dtypeOf(o)}, x` : `x, ${dtypeOf(o)}`})`);
        break;
      }
      case 'astype':
        t = t.astype(s.dtype);
        applied.push(`astype(${s.dtype})`);
        break;
      case 'reduce': {
        let op: ReduceName = s.op;
        let axis: number | number[] | null = null;
        if (s.axes !== null && r > 0) {
          if (s.tuple && op !== 'argmin' && op !== 'argmax') {
            const seen = new Set<number>();
            axis = s.axes.map((a) => axisIn(a, r)).filter((a) => !seen.has(pos(a, r)) && seen.add(pos(a, r)));
          } else {
            axis = axisIn(s.axes[0]!, r);
          }
        }
        const axesPos = axis === null ? S.map((_, i) => i) : (typeof axis === 'number' ? [axis] : axis).map((a) => pos(a, r));
        const n = axis === null ? sizeBound : sizeOf(axesPos.map((a) => S[a]!));
        // min/max/argmin/argmax of an empty selection raise (tested in core); use `any` instead.
        if (n === 0 && ['min', 'max', 'argmin', 'argmax'].includes(op)) op = 'any';
        const o = { axis, keepdims: s.keepdims };
        const x = op === 'prod' ? tame(t) : t;
        const exactOut = !['mean', 'var'].includes(op) && !(ACCUMULATING.has(op) && isF((mt as any)[op](x, o).dtype));
        if (ctx.mag && !exactOut) {
          t = op === 'var' ? mt.mean(mt.square(x.astype('float64')), o) : (mt as any)[op](f64abs(x), o);
        } else {
          t = (mt as any)[op](x, o);
        }
        if (!exactOut) inexact = { n, dtype: op === 'var' || op === 'mean' ? t.dtype : t.dtype };
        applied.push(`${op}(axis=${JSON.stringify(axis)}, keepdims=${s.keepdims})`);
        break;
      }
      case 'scan': {
        const axis = s.axis === null || r === 0 ? null : axisIn(s.axis, r);
        const x = s.op === 'cumprod' ? tame(t) : t;
        const out = (mt as any)[s.op](x, { axis });
        const n = axis === null ? sizeBound : S[pos(axis, r)]!;
        if (isF(out.dtype)) {
          inexact = { n, dtype: out.dtype };
          t = ctx.mag ? (mt as any)[s.op](f64abs(x), { axis }) : out;
        } else {
          t = out;
        }
        applied.push(`${s.op}(axis=${axis})`);
        break;
      }
      case 'reshape': {
        const n = t.size;
        const rank = 1 + (s.split[0]! % 4);
        const shape: number[] = [];
        if (n === 0) {
          for (let i = 0; i < rank; i++) shape.push(s.split[(i + 1) % s.split.length]! % 4);
          shape[s.split[0]! % rank] = 0;
        } else {
          let rem = n;
          for (let i = 0; i < rank - 1; i++) {
            const ds = divisors(rem);
            const d = ds[s.split[(i + 1) % s.split.length]! % ds.length]!;
            shape.push(d);
            rem /= d;
          }
          shape.push(rem);
          if (s.infer) shape[s.split[0]! % rank] = -1;
        }
        t = t.reshape(shape);
        applied.push(`reshape(${JSON.stringify(shape)})`);
        break;
      }
      case 'transpose': {
        if (r < 2) return;
        const perm = S.map((_, i) => i).sort((a, b) => s.keys[a % s.keys.length]! - s.keys[b % s.keys.length]! || a - b);
        t = t.transpose(perm);
        applied.push(`transpose(${JSON.stringify(perm)})`);
        break;
      }
      case 'flip': {
        if (r === 0) return;
        const axis = s.axes === null ? null : [...new Set(s.axes.map((a) => pos(axisIn(a, r), r)))];
        t = mt.flip(t, { axis });
        applied.push(`flip(axis=${JSON.stringify(axis)})`);
        break;
      }
      case 'swapaxes': {
        if (r === 0) return;
        t = t.swapaxes(axisIn(s.a, r), axisIn(s.b, r));
        applied.push(`swapaxes(${axisIn(s.a, r)}, ${axisIn(s.b, r)})`);
        break;
      }
      case 'expand_dims': {
        if (r >= 5) return;
        const axis = axisIn(s.axis, r + 1);
        t = mt.expand_dims(t, axis);
        applied.push(`expand_dims(${axis})`);
        break;
      }
      case 'broadcast_to': {
        const shape = [...s.lead, ...S.map((d, i) => (d === 1 ? s.grow[i % s.grow.length]! : d))];
        if (shape.length > 5 || sizeOf(shape) > 1000) return;
        t = mt.broadcast_to(t, shape);
        applied.push(`broadcast_to(${JSON.stringify(shape)})`);
        break;
      }
      case 'concatenate': {
        if (r === 0) return;
        const axis = axisIn(s.axis, r);
        const shape = [...S];
        shape[pos(axis, r)] = s.len;
        const o = makeTensor(shape, s.leaf.dtype, s.leaf.values, s.leaf.chunk, ctx);
        t = mt.concatenate(s.first ? [o, t] : [t, o], { axis });
        applied.push(`concatenate(${s.first ? `${o.dtype}${JSON.stringify(shape)}, x` : `x, ${o.dtype}${JSON.stringify(shape)}`}, axis=${axis})`);
        break;
      }
      case 'matmul': {
        if (r === 0) return;
        const k = S[r - 1]!;
        let shape: number[];
        if (s.form === 'vec') shape = [k];
        else if (s.form === 'mat' || (s.fn === 'matmul' && r > 3)) shape = [k, s.m];
        else shape = s.fn === 'dot' ? [2, k, s.m] : r >= 3 ? [S[0]!, k, s.m] : [2, k, s.m];
        if (s.fn === 'dot' && shape.length === 3 && r + 1 > 4) return;
        const o = makeTensor(shape, s.leaf.dtype, s.leaf.values, s.leaf.chunk, ctx);
        const out = (mt as any)[s.fn](t, o);
        if (isF(out.dtype)) {
          inexact = { n: k, dtype: out.dtype };
          t = ctx.mag ? (mt as any)[s.fn](f64abs(t), f64abs(o)) : out;
        } else {
          t = out;
        }
        applied.push(`${s.fn}(x, ${o.dtype}${JSON.stringify(shape)})`);
        break;
      }
      case 'take': {
        const axis = s.axis === null || r === 0 ? null : axisIn(s.axis, r);
        const n = axis === null ? t.size : S[pos(axis, r)]!;
        const ishape = n === 0 ? [0] : s.idxShape;
        if (sizeOf(ishape) * (axis === null ? 1 : t.size / Math.max(1, n)) > 1000) return;
        // Indices in [-n, n): NumPy's take (mode='raise') accepts negative ones.
        const vals = s.idx.map((v) => (v >= 0 ? v % n : -1 - ((-v - 1) % n)));
        const idx = makeTensor(ishape, s.idtype, vals, s.chunk, ctx);
        t = mt.take(t, idx, { axis });
        applied.push(`take(${s.idtype}${JSON.stringify(ishape)}=${JSON.stringify(nest(vals.length ? Array.from({ length: sizeOf(ishape) }, (_, i) => vals[i % vals.length]!) : [], ishape))}, axis=${axis})`);
        break;
      }
      case 'getitem': {
        const index = indexString(s.items, S);
        t = t.get(index);
        applied.push(`get('${index}')`);
        break;
      }
      case 'setitem': {
        const index = indexString(s.items, S);
        t = t.set(index, s.v);
        applied.push(`set('${index}', ${s.v})`);
        break;
      }
      case 'mask': {
        if (r === 0) return;
        let cond = t.dtype === 'bool' ? t : mt.greater(t, s.thr);
        if (s.rows && r > 1) cond = mt.any(cond, { axis: S.map((_, i) => i).slice(1) });
        const bound = t.size;
        t = t.get(cond);
        unknownBound = bound;
        applied.push(`mask(get(${s.rows && r > 1 ? 'any(x > thr, axis=1..)' : 'x > thr'}), thr=${s.thr})`);
        break;
      }
      case 'center': {
        if (t.dtype === 'bool' || t.size === 0) return;
        // Exact only: a float sum would round in a chunk-dependent order, so floats use max.
        const op = s.op === 'sum' && isF(t.dtype) ? 'max' : s.op;
        const axis = s.axis === null || r === 0 ? null : axisIn(s.axis, r);
        t = mt.subtract(t, (mt as any)[op](t, { axis, keepdims: true }));
        applied.push(`x - ${op}(x, axis=${axis}, keepdims)`);
        break;
      }
      case 'roll': {
        const axis = s.axis === null || r === 0 ? null : axisIn(s.axis, r);
        t = mt.roll(t, s.shift, { axis });
        applied.push(`roll(${s.shift}, axis=${axis})`);
        break;
      }
      case 'repeat': {
        if (t.size * s.repeats > 1000) return;
        const axis = s.axis === null || r === 0 ? null : axisIn(s.axis, r);
        t = mt.repeat(t, s.repeats, { axis });
        applied.push(`repeat(${s.repeats}, axis=${axis})`);
        break;
      }
    }
  });
  if (!(t.size > 0)) zeroSize = true;
  return { t, inexact, applied, zeroSize };
}

// ---------------------------------------------------------------------------
// Comparison

const values = (a: mt.NDArray): (number | bigint)[] => Array.from(a.data as ArrayLike<number | bigint>);

function sameValue(a: number | bigint, b: number | bigint): boolean {
  if (typeof a === 'number' && typeof b === 'number') return Object.is(a, b) || (Number.isNaN(a) && Number.isNaN(b));
  return a === b;
}

/** Indices where got and want differ; `tol` (per element) turns exact comparison into a bound. */
function mismatches(got: mt.NDArray, want: mt.NDArray, tol?: (i: number) => number): string[] {
  const g = values(got), w = values(want);
  const bad: string[] = [];
  for (let i = 0; i < w.length; i++) {
    const a = g[i]!, b = w[i]!;
    let ok = sameValue(a, b);
    if (!ok && tol && typeof a === 'number' && typeof b === 'number' && Number.isFinite(a) && Number.isFinite(b)) {
      ok = Math.abs(a - b) <= tol(i);
    }
    if (!ok) bad.push(`[${i}] got ${a} want ${b}`);
  }
  return bad;
}

function expectSame(label: string, got: mt.NDArray, want: mt.NDArray, tol?: (i: number) => number): void {
  expect(got.shape, `${label}: shape`).toEqual(want.shape);
  expect(got.dtype, `${label}: dtype`).toBe(want.dtype);
  expect(got.data.length, `${label}: length`).toBe(sizeOf(want.shape));
  const bad = mismatches(got, want, tol);
  expect(bad.slice(0, 6), `${label}: ${bad.length} of ${want.data.length} differ`).toEqual([]);
}

function describeError(f: () => unknown): string | undefined {
  try { f(); return undefined; } catch (e) { return String(e); }
}

/** What the generated programs exercised (printed with PROP_STATS=1). */
const coverage = { ran: 0, inexact: 0, thrown: [] as string[], ops: new Map<string, number>() };
afterAll(() => {
  if (process.env.PROP_STATS) console.log(JSON.stringify({ ...coverage, thrown: coverage.thrown.length, errors: [...new Set(coverage.thrown)].slice(0, 20), ops: Object.fromEntries([...coverage.ops].sort((a, b) => b[1] - a[1])) }, null, 1));
});

/** How many pooled runs had more than one task (so the property exercises the pool at all). */
const poolRuns = { pooled: 0, tasks: 0 };

/** `workers`: the pool size of the pooled run (default: one per core). */
async function checkProgram(p: Program, workers?: number): Promise<void> {
  let ref: Built;
  try {
    ref = build(p, { chunked: false, mag: false });
  } catch (e) {
    // Building is validation only (shape/dtype rules): chunking must not change it.
    expect(describeError(() => build(p, { chunked: true, mag: false }))).toBe(String(e));
    coverage.thrown.push(String(e));
    return;
  }
  coverage.ran++;
  if (ref.inexact) coverage.inexact++;
  for (const a of ref.applied) { const k = a.replace(/\(.*$/, ''); coverage.ops.set(k, (coverage.ops.get(k) ?? 0) + 1); }
  let want: mt.NDArray;
  try {
    want = await ref.t.fetch({ workers: 0 });
  } catch (e) {
    throw new Error(`the one-chunk reference failed for ${show(p)}: ${String(e)}`);
  }
  expect(want.shape).toEqual(ref.t.shape);
  expect(want.dtype).toBe(ref.t.dtype);

  const a = build(p, { chunked: true, mag: false });
  const inline = await a.t.fetch({ workers: 0 });
  const b = build(p, { chunked: true, mag: false });
  const pool = await b.t.fetch(workers === undefined ? {} : { workers });
  const report = mt.lastReport();
  // A plan of more than one task really ran on the pool.
  if (report && report.tasks > 1) expect(report.workers).toBe(workers ?? availableParallelism());
  poolRuns.tasks += report?.tasks ?? 0;
  if (report && report.workers > 0) poolRuns.pooled++;
  expect(b.applied).toEqual(ref.applied);
  expectSame('pool vs inline (same chunking)', pool, inline);

  let tol: ((i: number) => number) | undefined;
  if (ref.inexact) {
    const m = build(p, { chunked: false, mag: true });
    const mag = values(await m.t.fetch({ workers: 0 })).map(Number);
    expect(mag.length).toBe(want.data.length);
    const eps = ref.inexact.dtype === 'float32' ? 2 ** -23 : 2 ** -52;
    const tiny = ref.inexact.dtype === 'float32' ? 2 ** -126 : 2 ** -1022;
    const f = (4 * ref.inexact.n + 16) * eps;
    tol = (i) => f * mag[i]! + tiny;
  }
  expectSame('inline chunked vs one chunk', inline, want, tol);
  expectSame('pool chunked vs one chunk', pool, want, tol);
}

/** A readable report of a failing program: input, chunking and the stages applied. */
function show(p: Program): string {
  try {
    const b = build(p, { chunked: true, mag: false });
    return `shape ${JSON.stringify(p.shape)} ${p.input.dtype} chunk ${JSON.stringify(resolveChunk(p.input.chunk, p.shape.length))}: ${b.applied.join(' -> ')}${b.inexact ? ` (inexact, n=${b.inexact.n})` : ''}`;
  } catch (e) {
    return `throws ${String(e)}`;
  }
}

/** checkProgram, with the failing program described in the error. */
async function checkDescribed(p: Program, workers?: number): Promise<void> {
  try {
    await checkProgram(p, workers);
  } catch (e) {
    throw new Error(`${show(p)}\n${(e as Error).message}`);
  }
}
const programProperty = (arb: fc.Arbitrary<Program>, workers?: number) => fc.asyncProperty(arb, (p) => checkDescribed(p, workers));

const RUN = { numRuns: Number(process.env.PROP_RUNS ?? 60), ...(process.env.PROP_SEED ? { seed: Number(process.env.PROP_SEED) } : {}) };

// ---------------------------------------------------------------------------

describe('results are independent of chunkSize and worker count', () => {
  it('random programs (elementwise, reductions, scans, shape ops, matmul, take)', async () => {
    poolRuns.pooled = 0;
    await fc.assert(programProperty(programArb), { ...RUN, numRuns: RUN.numRuns * 3 });
    expect(poolRuns.pooled, 'programs that ran on the pool').toBeGreaterThan(RUN.numRuns);
  }, 120_000);

  it('elementwise chains with broadcasting are bit-identical', async () => {
    const elementwise = fc.record({
      shape: shapeArb,
      input: leafArb,
      stages: fc.array(stageArb.filter((s) => ['unary', 'binary', 'where', 'astype'].includes(s.k)), { minLength: 1, maxLength: 5 }),
    });
    await fc.assert(
      fc.asyncProperty(elementwise, async (p) => {
        let inexact: Built['inexact'];
        try { inexact = build(p, { chunked: false, mag: false }).inexact; } catch { /* checkProgram checks build errors */ }
        expect(inexact, 'elementwise programs never accumulate').toBeUndefined();
        await checkDescribed(p);
      }),
      RUN,
    );
  }, 60_000);

  it('reductions over random axes, axis tuples and keepdims, and scans', async () => {
    const prog = fc.record({
      shape: shapeArb,
      input: leafArb,
      stages: fc.tuple(
        fc.option(stageArb.filter((s) => s.k === 'unary' || s.k === 'binary'), { nil: undefined }),
        stageArb.filter((s) => s.k === 'reduce' || s.k === 'scan'),
        fc.option(stageArb.filter((s) => SHAPE_ONLY.has(s.k)), { nil: undefined }),
      ).map((ss) => ss.filter((x): x is Stage => x !== undefined)),
    });
    await fc.assert(programProperty(prog), RUN);
  }, 60_000);

  it('argmin/argmax/min/max break ties at the first index in any chunking', async () => {
    // Few distinct values, so ties across chunk boundaries are common.
    const prog = fc.record({
      shape: fc.array(fc.integer({ min: 1, max: 6 }), { minLength: 1, maxLength: 3 }),
      input: fc.record({
        dtype: dtypeArb,
        values: fc.array(fc.constantFrom(0, 1, 2, NaN), { minLength: 1, maxLength: 30 }),
        chunk: chunkSpec,
        drop: fc.constant(0),
        ones: fc.constant(0),
      }),
      stages: fc.record({
        k: fc.constant('reduce' as const),
        op: fc.constantFrom<ReduceName>('argmin', 'argmax', 'min', 'max'),
        axes: fc.option(fc.array(axisRaw, { minLength: 1, maxLength: 1 }), { nil: null }),
        tuple: fc.constant(false),
        keepdims: fc.boolean(),
      }).map((s) => [s as Stage]),
    });
    await fc.assert(programProperty(prog), RUN);
  }, 60_000);

  it('reductions and scans over many chunks (long axes, up to hundreds of partials)', async () => {
    const bigChunk: fc.Arbitrary<ChunkSpec> = fc.oneof(
      fc.integer({ min: 1, max: 300 }),
      fc.array(fc.option(fc.integer({ min: 1, max: 300 }), { nil: null }), { minLength: 1, maxLength: 2 }),
    );
    const prog = fc.record({
      shape: fc.oneof(
        fc.tuple(fc.integer({ min: 0, max: 3000 })),
        fc.tuple(fc.integer({ min: 1, max: 60 }), fc.integer({ min: 1, max: 60 })),
      ).map((t) => [...t]),
      input: fc.record({ dtype: dtypeArb, values: fc.array(rawValue, { minLength: 1, maxLength: 97 }), chunk: bigChunk, drop: fc.constant(0), ones: fc.constant(0) }),
      stages: fc.tuple(
        fc.option(stageArb.filter((s) => s.k === 'unary' || (s.k === 'binary' && s.other.k === 'scalar')), { nil: undefined }),
        stageArb.filter((s) => s.k === 'reduce' || s.k === 'scan'),
      ).map((ss) => ss.filter((x): x is Stage => x !== undefined)),
    });
    await fc.assert(programProperty(prog), { ...RUN, numRuns: Math.ceil(RUN.numRuns / 2) });
  }, 60_000);

  it('random programs and random draws on 3 workers (more than cores) and on 1 worker', async () => {
    // Starting a pool of another size costs about a second, so each size gets one batch.
    for (const workers of [3, 1]) {
      await fc.assert(programProperty(programArb, workers), { ...RUN, numRuns: Math.ceil(RUN.numRuns / 3) });
      await fc.assert(fc.asyncProperty(drawArb, drawChunkArb, (d, spec) => checkDraw(d, spec, workers)), { ...RUN, numRuns: Math.ceil(RUN.numRuns / 4) });
    }
  }, 90_000);
});

describe('minimal reproductions of bugs the properties found', () => {
  // Regressions: a reshape of a stored or gathered 0-size array once divided
  // by a 0 stride while its index was built (fuse/fuse.ts reshapeIndex).
  it('reshape of a stored 0-size array [2, 0, 0] -> [0]', async () => {
    const r = await mt.tensor([[], []]).reshape([2, 0, 0]).reshape([0]).fetch();
    expect(r.shape).toEqual([0]);
  });
  it('ravel of a stored cumsum of a 0-size array [1, 0, 0] -> [0]', async () => {
    const r = await mt.cumsum(mt.zeros([1, 0, 0]), { axis: 0 }).ravel().fetch();
    expect(r.shape).toEqual([0]);
  });
  it('ravel of a gathered 0-size array [0, 1, 0] -> [0]', async () => {
    const x = mt.take(mt.zeros([0, 1, 0]), mt.zeros([0], { dtype: 'int32' }), { axis: 0 });
    const r = await mt.cumsum(x).fetch();
    expect(r.shape).toEqual([0]);
  });
});

// ---------------------------------------------------------------------------
// Random numbers

type Dist = 'uniform' | 'normal' | 'standard_normal' | 'randint' | 'integers' | 'exponential' | 'random';
interface Draw {
  seed: number;
  api: 'global' | 'rng';
  dist: Dist;
  shape: number[];
  low: number;
  span: number;
  dtype: 'default' | 'float32' | 'int32';
  /** Draws made before this one on the same generator (the stream number). */
  skip: number;
}

const randomShape = fc.array(fc.oneof({ weight: 1, arbitrary: fc.constant(0) }, { weight: 6, arbitrary: fc.integer({ min: 1, max: 40 }) }), { minLength: 0, maxLength: 3 })
  .filter((s) => sizeOf(s) <= 4000);
const drawArb: fc.Arbitrary<Draw> = fc.record({
  seed: fc.oneof(fc.nat(2 ** 32 - 1), fc.constantFrom(0, 1, 2 ** 32, 2 ** 53 - 1)),
  api: fc.constantFrom<'global' | 'rng'>('global', 'rng'),
  dist: fc.constantFrom<Dist>('uniform', 'normal', 'standard_normal', 'randint', 'integers', 'exponential', 'random'),
  shape: randomShape,
  low: fc.integer({ min: -100, max: 100 }),
  span: fc.integer({ min: 1, max: 1000 }),
  dtype: fc.constantFrom<'default' | 'float32' | 'int32'>('default', 'float32', 'int32'),
  skip: fc.nat(2),
});

function draw(d: Draw, chunkSize: number | (number | null)[] | undefined): mt.Tensor {
  const o: { chunkSize?: number | (number | null)[]; dtype?: string } = chunkSize === undefined ? {} : { chunkSize };
  const int = d.dist === 'randint' || d.dist === 'integers';
  if (d.dtype === 'float32' && !int) o.dtype = 'float32';
  if (d.dtype === 'int32' && int) o.dtype = 'int32';
  let g: any;
  if (d.api === 'global') { mt.random.seed(d.seed); g = mt.random; } else { g = mt.random.default_rng(d.seed); }
  for (let i = 0; i < d.skip; i++) g.random([3]);
  const hi = d.low + d.span;
  switch (d.dist) {
    case 'uniform': return g.uniform(d.low, hi, d.shape, o);
    case 'normal': return g.normal(d.low, d.span / 10, d.shape, o);
    case 'standard_normal': return g.standard_normal(d.shape, o);
    case 'randint': return mt.random.randint(d.low, hi, d.shape, o);
    case 'integers': return d.api === 'rng' ? g.integers(d.low, hi, d.shape, o) : g.randint(d.low, hi, d.shape, o);
    case 'exponential': return g.exponential(d.span / 100, d.shape, o);
    case 'random': return g.random(d.shape, o);
  }
}

const bytes = (a: mt.NDArray): Uint8Array => new Uint8Array(a.data.buffer, a.data.byteOffset, a.data.byteLength);

const drawChunkArb: fc.Arbitrary<ChunkSpec> = fc.oneof(fc.integer({ min: 1, max: 64 }), fc.array(fc.option(fc.integer({ min: 1, max: 16 }), { nil: null }), { minLength: 1, maxLength: 3 }));

/** One draw with chunkSize `spec` (inline, pooled) and with automatic chunks against one chunk: same bytes; range checks. */
async function checkDraw(d: Draw, spec: ChunkSpec, workers?: number): Promise<void> {
  // randint is the global API (the Generator's name is integers).
  if (d.dist === 'randint') d = { ...d, api: 'global' };
  const ref = await draw(d, BIG).fetch({ workers: 0 });
  const cs = resolveChunk(spec, d.shape.length);
  const inline = await draw(d, cs).fetch({ workers: 0 });
  const pool = await draw(d, cs).fetch(workers === undefined ? {} : { workers });
  const auto = await draw(d, undefined).fetch(workers === undefined ? {} : { workers });
  const label = `${d.api}.${d.dist} seed ${d.seed} shape ${JSON.stringify(d.shape)} chunkSize ${JSON.stringify(cs)} workers ${workers ?? 'default'}`;
  for (const [name, r] of [['inline', inline], ['pool', pool], ['auto chunks', auto]] as const) {
    expect(r.shape, `${label} ${name}`).toEqual(d.shape);
    expect(r.dtype, `${label} ${name}`).toBe(ref.dtype);
    expect(Buffer.from(bytes(r)).equals(Buffer.from(bytes(ref))), `${label} ${name}: bytes differ`).toBe(true);
  }
  const v = values(ref).map(Number);
  const hi = d.low + d.span;
  const int = d.dist === 'randint' || d.dist === 'integers';
  expect(ref.dtype).toBe(int ? (d.dtype === 'int32' ? 'int32' : 'int64') : d.dtype === 'float32' ? 'float32' : 'float64');
  // float32 results may round up onto the upper bound, as NumPy's do.
  const below = (x: number, h: number) => x < h || (ref.dtype === 'float32' && x === Math.fround(h));
  for (const x of v) {
    if (int) { if (!(Number.isInteger(x) && x >= d.low && x < hi)) expect.fail(`${label}: ${x} not an integer in [${d.low}, ${hi})`); }
    else if (d.dist === 'uniform') { if (!(x >= d.low && below(x, hi))) expect.fail(`${label}: ${x} not in [${d.low}, ${hi})`); }
    else if (d.dist === 'random') { if (!(x >= 0 && below(x, 1))) expect.fail(`${label}: ${x} not in [0, 1)`); }
    else if (d.dist === 'exponential') { if (!(x >= 0 && Number.isFinite(x))) expect.fail(`${label}: ${x} not in [0, inf)`); }
    else if (!Number.isFinite(x)) expect.fail(`${label}: ${x} not finite`);
  }
}

describe('random numbers (Philox) are bit-identical for any chunkSize and worker count', () => {
  it('same seed, any chunking and workers: same bytes; values in range', async () => {
    await fc.assert(fc.asyncProperty(drawArb, drawChunkArb, (d, spec) => checkDraw(d, spec)), RUN);
  }, 90_000);

  it('matches the reference Philox stream element by element', async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat(2 ** 32 - 1), randomShape, fc.integer({ min: 1, max: 50 }), fc.nat(2), async (seed, shape, cs, stream) => {
        const g = mt.random.default_rng(seed);
        for (let i = 0; i < stream; i++) g.random([1]);
        const u = await g.random(shape, { chunkSize: cs }).fetch();
        const key = seedKey(seed);
        const got = values(u) as number[];
        for (let i = 0; i < got.length; i++) {
          const want = randomValue('uniform', key, stream, i);
          if (!Object.is(got[i], want)) expect.fail(`seed ${seed} stream ${stream} element ${i}: got ${got[i]} want ${want}`);
        }
        // float32 draws: 24 bits of the same stream
        const g32 = mt.random.default_rng(seed);
        for (let i = 0; i < stream; i++) g32.random([1]);
        const got32 = values(await g32.random(shape, { chunkSize: cs, dtype: 'float32' }).fetch()) as number[];
        for (let i = 0; i < got32.length; i++) {
          const want = randomValue('uniform32', key, stream, i);
          if (!Object.is(got32[i], want)) expect.fail(`float32: seed ${seed} stream ${stream} element ${i}: got ${got32[i]} want ${want}`);
        }
      }),
      RUN,
    );
  }, 60_000);

  it('one compiled program serves every seed and stream (they are parameters), each drawing its own stream', async () => {
    const draw = async (seed: number, stream: number) => {
      const g = mt.random.default_rng(seed);
      for (let i = 0; i < stream; i++) g.random([1]);
      const u = values(await g.uniform(-1, 1, [3000, 2], { chunkSize: 700 }).sum({ axis: 1 }).fetch()) as number[];
      const key = seedKey(seed);
      u.forEach((v, i) => {
        const want = (randomValue('uniform', key, stream, 2 * i) * 2 - 1) + (randomValue('uniform', key, stream, 2 * i + 1) * 2 - 1);
        if (!Object.is(v, want)) expect.fail(`seed ${seed} stream ${stream} row ${i}: got ${v} want ${want}`);
      });
      return mt.lastReport()!.kernelsCompiled;
    };
    await draw(7, 0);
    expect(await draw(2 ** 32 - 5, 0), 'a new seed compiles nothing').toBe(0);
    expect(await draw(12345, 2), 'a new stream compiles nothing').toBe(0);
  });

  it('different seeds and successive draws give different values', async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat(2 ** 32 - 1), fc.nat(2 ** 32 - 1), fc.integer({ min: 8, max: 300 }), fc.integer({ min: 1, max: 50 }), async (s1, s2, n, cs) => {
        fc.pre(s1 !== s2);
        const a = values(await mt.random.default_rng(s1).random([n], { chunkSize: cs }).fetch());
        const b = values(await mt.random.default_rng(s2).random([n], { chunkSize: cs }).fetch());
        const g = mt.random.default_rng(s1);
        const c1 = g.standard_normal([n], { chunkSize: cs });
        const c2 = g.standard_normal([n], { chunkSize: cs });
        await mt.execute(c1, c2);
        const x = values(await c1.fetch()), y = values(await c2.fetch());
        expect(a.some((v, i) => v !== b[i]), `seeds ${s1} and ${s2} agree`).toBe(true);
        expect(x.some((v, i) => v !== y[i]), `two draws of seed ${s1} agree`).toBe(true);
        // A seed is a seed: mt.random.seed(s) and default_rng(s) give the same first stream.
        mt.random.seed(s1);
        const viaGlobal = values(await mt.random.random([n], { chunkSize: cs }).fetch());
        expect(viaGlobal).toEqual(a);
      }),
      { ...RUN, numRuns: Math.ceil(RUN.numRuns / 2) },
    );
  }, 60_000);

  it('random numbers inside a fused reduction: counts are exact for any chunking and workers', async () => {
    // The pi program: sqrt(sum(d^2, axis 1)) < 1, counted. Rows have two
    // elements, whose sum is the same in either order, so counts are exact.
    await fc.assert(
      fc.asyncProperty(fc.nat(2 ** 32 - 1), fc.integer({ min: 0, max: 3000 }), fc.integer({ min: 1, max: 500 }), fc.constantFrom(1, 2, null), async (seed, n, c0, c1) => {
        const run = async (cs: number | (number | null)[], workers?: number): Promise<[mt.NDArray, mt.NDArray]> => {
          const d = mt.random.default_rng(seed).uniform(-1, 1, [n, 2], { chunkSize: cs });
          const inside = mt.sqrt(d.power(2).sum({ axis: 1 })).less(1);
          const count = inside.sum();
          return [await count.fetch({ workers }), await inside.fetch({ workers })];
        };
        const [refCount, refInside] = await run(BIG, 0);
        expect(refCount.dtype).toBe('int64');
        expect(Number(refCount.item())).toBe(values(refInside).filter((v) => v).length);
        for (const [count, inside] of [await run([c0, c1], 0), await run([c0, c1])]) {
          expect(count.item()).toBe(refCount.item());
          expect(values(inside)).toEqual(values(refInside));
        }
      }),
      { ...RUN, numRuns: Math.ceil(RUN.numRuns / 2) },
    );
  }, 60_000);

  it('has the closed-form moments (fixed seeds)', async () => {
    const n = 100_000;
    const stats = (v: number[]) => {
      const m = v.reduce((a, b) => a + b, 0) / v.length;
      return { m, v: v.reduce((a, b) => a + (b - m) ** 2, 0) / v.length };
    };
    mt.random.seed(12345);
    const u = stats(values(await mt.random.uniform(0, 1, [n], { chunkSize: 7_000 }).fetch()).map(Number));
    expect(Math.abs(u.m - 0.5)).toBeLessThan(5 * Math.sqrt(1 / 12 / n));
    expect(Math.abs(u.v - 1 / 12)).toBeLessThan(5 * Math.sqrt(1 / 180 / n));
    const g = mt.random.default_rng(2024);
    const z = stats(values(await g.normal(0, 1, [n], { chunkSize: 10_001 }).fetch()).map(Number));
    expect(Math.abs(z.m)).toBeLessThan(5 / Math.sqrt(n));
    expect(Math.abs(z.v - 1)).toBeLessThan(5 * Math.sqrt(2 / n));
    const e = stats(values(await g.exponential(2, [n]).fetch()).map(Number));
    expect(Math.abs(e.m - 2)).toBeLessThan(5 * 2 / Math.sqrt(n));
    const k = stats(values(await g.integers(0, 10, [n]).fetch()).map(Number));
    expect(Math.abs(k.m - 4.5)).toBeLessThan(5 * Math.sqrt(99 / 12 / n));
  }, 30_000);
});
