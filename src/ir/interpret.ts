// The reference interpreter: evaluates a Kernel over one task's box, element
// by element, in plain TypeScript. It defines what every compiled Program
// must compute, including the order of accumulation: sequential per output
// element, in C order over the reduction box, except float sums, which add
// in blocks (`SUM_BLOCK`) so that long sums keep their accuracy.

import { ARRAY_CTOR, type DType, type TypedArray } from '../graph/dtype.js';
import { halfBits, halfValue } from '../graph/half.js';
import { type ArgReduceOp, REDUCE, accStart, isArgReduce } from '../graph/ops.js';
import type { KernelArgs } from './args.js';
import { type Expr, type Kernel, SUM_BLOCK, SUM_LANES, isBlockedSum, laneTree } from './ir.js';
import { randomValue } from './philox.js';
import { type Scalar, binaryScalar, castScalar, unaryScalar } from './scalar.js';

type Env = Map<number, number>;

const isNaNScalar = (v: Scalar): boolean => typeof v === 'number' && Number.isNaN(v);

/** Whether `v` replaces the best so far of an arg-reduction: NaN wins and stays; otherwise strictly better. */
export function better(op: ArgReduceOp, v: Scalar, best: Scalar): boolean {
  if (isNaNScalar(best)) return false;
  if (isNaNScalar(v)) return true;
  return REDUCE[op].better === 'greater' ? v > best : v < best;
}

class Evaluator {
  private views = new Map<DType, TypedArray>();
  constructor(private readonly kernel: Kernel, private readonly args: KernelArgs, private readonly mem: ArrayBufferLike) {}

  view(d: DType): TypedArray {
    let v = this.views.get(d);
    if (!v) {
      const C = ARRAY_CTOR[d];
      v = new C(this.mem, 0, Math.floor(this.mem.byteLength / (C as unknown as { BYTES_PER_ELEMENT: number }).BYTES_PER_ELEMENT));
      this.views.set(d, v);
    }
    return v;
  }

  address(b: KernelArgs['inputs'][number], d: DType, idx: readonly number[]): number {
    let off = b.ptr / (this.view(d) as unknown as { BYTES_PER_ELEMENT: number }).BYTES_PER_ELEMENT;
    for (let i = 0; i < idx.length; i++) off += (idx[i]! - b.origin[i]!) * b.strides[i]!;
    return off;
  }

  /** Runs the reduction `r` over the box `ranges`, returning [acc, argValue]. */
  reduce(r: Extract<Expr, { k: 'reduce' }>, env: Env, ranges: readonly (readonly [number, number])[]): [Scalar, Scalar] {
    if (isBlockedSum(r.op, r.dtype)) return [this.blockedSum(r, env, ranges), 0];
    const bodyType = r.body.dtype;
    const op = r.op;
    const arg = isArgReduce(op);
    let acc: Scalar = arg ? -1n : accStart(op, r.dtype);
    let best: Scalar = 0;
    const strides: number[] = [];
    let s = 1;
    for (let i = r.vars.length - 1; i >= 0; i--) { strides[i] = s; s *= r.vars[i]!.size; }
    const idx = ranges.map(([lo]) => lo);
    const n = ranges.reduce((a, [lo, hi]) => a * Math.max(0, hi - lo), 1);
    for (let c = 0; c < n; c++) {
      r.vars.forEach((v, i) => env.set(v.id, idx[i]!));
      const v = this.eval(r.body, env);
      if (arg) {
        if (acc === -1n || better(op, v, best)) {
          best = v;
          acc = BigInt(idx.reduce((a, x, i) => a + x * strides[i]!, 0));
        }
      } else {
        acc = binaryScalar(REDUCE[op].combine, acc, castScalar(v, bodyType, r.dtype), r.dtype);
      }
      for (let i = idx.length - 1; i >= 0; i--) {
        if (++idx[i]! < ranges[i]![1]) break;
        idx[i] = ranges[i]![0];
      }
    }
    return [acc, best];
  }

  private blockedSum(r: Extract<Expr, { k: 'reduce' }>, env: Env, ranges: readonly (readonly [number, number])[]): number {
    const d = r.dtype;
    const add = (a: number, b: number) => binaryScalar('add', a, b, d) as number;
    let total = 0, group = 0, terms = 0, blocks = 0;
    const lanes = r.lanes ?? SUM_LANES;
    const lane = new Array<number>(lanes).fill(0);
    const flush = () => {
      group = add(group, laneTree(lane, add));
      lane.fill(0); terms = 0;
      if (++blocks === SUM_BLOCK) { total = add(total, group); group = 0; blocks = 0; }
    };
    const m = r.vars.length;
    if (ranges.some(([lo, hi]) => hi <= lo)) return 0;
    const idx = ranges.map(([lo]) => lo);
    const [ilo, ihi] = m > 0 ? ranges[m - 1]! : [0, 1];
    for (;;) {
      r.vars.forEach((v, i) => env.set(v.id, idx[i]!));
      for (let j = ilo; j < ihi; j++) {
        if (m > 0) env.set(r.vars[m - 1]!.id, j);
        lane[terms % lanes] = add(lane[terms % lanes]!, castScalar(this.eval(r.body, env), r.body.dtype, d) as number);
        if (++terms === SUM_BLOCK) flush();
      }
      if (terms > 0) flush();
      let i = m - 2;
      for (; i >= 0; i--) {
        if (++idx[i]! < ranges[i]![1]) break;
        idx[i] = ranges[i]![0];
      }
      if (i < 0) break;
    }
    return add(total, group);
  }

  eval(e: Expr, env: Env, acc?: Scalar): Scalar {
    switch (e.k) {
      case 'const': return castScalar(typeof e.value === 'string' ? BigInt(e.value) : typeof e.value === 'boolean' ? (e.value ? 1 : 0) : e.value, typeof e.value === 'string' ? 'int64' : 'float64', e.dtype);
      case 'var': return BigInt(env.get(e.id)!);
      case 'load': {
        const idx = e.index.map((i) => Number(this.eval(i, env, acc)));
        const v = this.view(e.dtype)[this.address(this.args.inputs[e.input]!, e.dtype, idx)]!;
        return e.dtype === 'float16' ? halfValue(v as number) : v;
      }
      case 'unary': return unaryScalar(e.op, this.eval(e.a, env, acc), e.a.dtype);
      case 'binary': return binaryScalar(e.op, this.eval(e.a, env, acc), this.eval(e.b, env, acc), e.a.dtype);
      case 'where': {
        const c = this.eval(e.c, env, acc);
        return (typeof c === 'bigint' ? c !== 0n : c !== 0) ? this.eval(e.a, env, acc) : this.eval(e.b, env, acc);
      }
      case 'cast': return castScalar(this.eval(e.a, env, acc), e.a.dtype, e.dtype);
      case 'random': return randomValue(e.dist, e.seed, e.stream, Number(this.eval(e.index, env, acc)));
      case 'reduce': return this.reduce(e, env, e.vars.map((v) => [0, v.size] as const))[0];
      case 'acc': return acc!;
      default: return e satisfies never;
    }
  }

  store(b: KernelArgs['outputs'][number], d: DType, idx: readonly number[], v: Scalar): void {
    const view = this.view(d);
    const at = this.address(b, d, idx);
    if (d === 'int64') (view as BigInt64Array)[at] = typeof v === 'bigint' ? v : BigInt(v);
    else if (d === 'float16') (view as Uint16Array)[at] = halfBits(Number(v));
    else (view as Float64Array)[at] = Number(v);
  }

  run(): void {
    const { kernel: k, args } = this;
    const env: Env = new Map();
    const idx = args.outer.map(([lo]) => lo);
    const n = args.outer.reduce((a, [lo, hi]) => a * Math.max(0, hi - lo), 1);
    for (let c = 0; c < n; c++) {
      idx.forEach((v, i) => env.set(i, v));
      if (k.reduce) {
        const [acc, best] = this.reduce(k.reduce, env, args.red);
        if (args.partial) {
          if (isArgReduce(k.reduce.op)) {
            this.store(args.outputs[0]!, k.reduce.body.dtype, idx, best);
            this.store(args.outputs[1]!, 'int64', idx, acc);
          } else {
            this.store(args.outputs[0]!, k.reduce.dtype, idx, acc);
          }
        } else {
          this.store(args.outputs[0]!, k.dtype, idx, this.eval(k.epilogue, env, acc));
        }
      } else {
        this.store(args.outputs[0]!, k.dtype, idx, this.eval(k.epilogue, env));
      }
      for (let i = idx.length - 1; i >= 0; i--) {
        if (++idx[i]! < args.outer[i]![1]) break;
        idx[i] = args.outer[i]![0];
      }
    }
  }
}

/** Evaluates `kernel` over the task described by `args`, reading and writing `mem`. */
export function interpret(kernel: Kernel, args: KernelArgs, mem: ArrayBufferLike): void {
  new Evaluator(kernel, args, mem).run();
}
