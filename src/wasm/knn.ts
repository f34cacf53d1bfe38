// The leaf scan of the nearest-neighbour search (runtime/neighbors.ts), as a
// WebAssembly module generated for one row width d: the exact squared
// euclidean distances from one query to the rows of a run of kd-tree leaves
// (those whose box is near enough), and the list of those not above the
// query's current k-th distance.
// Layout: a leaf's rows come in blocks of 4 (NaN-padded), each block
// dimension-major: for each dimension f, the 4 rows' values (two v128s).
// Each lane sums (q_f - x_f)² over f = 0, 1, ... from zero with separate
// multiply and add (no FMA; relaxed SIMD is off in Node 20), exactly as a
// scalar loop does, so its results are bit for bit the plain TypeScript
// distances (and the search's lower bounds, summed in the same order, never
// exceed them).
// The module imports its memory (env.memory, not shared: one per thread).
// In: d. Out: the module's bytes; export scan(q, x, leaves, kth, out) -> count.

import { Code, T, V, assembleOne } from './encode.js';


/** Rows per block of the leaf layout. */
export const KNN_BLOCK = 4;
/** Dimensions between the checks that let a block go early. */
const EXIT_EVERY = 3;

/**
 * scan(q, x, leaves, kth, out): q points at the query's d float64 values, x at
 * the first of `leaves` consecutive leaves. A leaf is a header (i32 blocks,
 * i32 first row), its box (d float64 lows, d highs) and its blocks; one whose
 * box lies farther than kth is passed over (its bound summed in the order of
 * the distance, so never above any distance in it). Every row whose distance
 * is at most kth is listed at out as two float64s, its distance and its row
 * (the leaf's first row plus its place); returns how many. Padding rows hold
 * NaN, which no comparison lets through.
 */
function scanBody(d: number): { locals: T[]; code: Code } {
  const c = new Code();
  const [q, x, leaves, kth, out] = [0, 1, 2, 3, 4];
  const locals: T[] = [];
  let n = 5;
  const local = (t: T): number => { locals.push(t); return n++; };
  const qv = Array.from({ length: d }, () => local(T.v128));
  const [acc0, acc1, t, kv] = [local(T.v128), local(T.v128), local(T.v128), local(T.v128)];
  const [mask, row, count, blocks, next] = [local(T.i32), local(T.i32), local(T.i32), local(T.i32), local(T.i32)];
  const [bound, g] = [local(T.f64), local(T.f64)];
  const ADD = 0x6a, SUB = 0x6b, SHL = 0x74, OR = 0x72, AND = 0x71, EQZ = 0x45, I32_LOAD = 0x28, MUL = 0x6c;
  const F64_LOAD = 0x2b, F64_STORE = 0x39, F64_FROM_I32 = 0xb7, F64_ADD = 0xa0, F64_SUB = 0xa1, F64_MUL = 0xa2, F64_MAX = 0xa5, F64_GT = 0x64;
  const head = 16, boxBytes = 16 * d;
  for (let f = 0; f < d; f++) c.get(q).vmem(V.load64_splat, 3, 8 * f).set(qv[f]!);
  c.get(kth).v(V.f64x2_splat).set(kv);
  c.block().loop(); // over leaves
  c.get(leaves).op(EQZ).brIf(1);
  c.get(x).mem(I32_LOAD, 2, 0).set(blocks);
  c.get(x).mem(I32_LOAD, 2, 4).set(row);
  // next = x + head + box + blocks · 32d
  c.get(x).i32(head + boxBytes).op(ADD).get(blocks).i32(32 * d).op(MUL).op(ADD).set(next);
  // the box's bound: Σ max(lo - q, q - hi, 0)², in the distance's order
  c.f64(0).set(bound);
  for (let f = 0; f < d; f++) {
    c.get(x).mem(F64_LOAD, 3, head + 8 * f).get(q).mem(F64_LOAD, 3, 8 * f).op(F64_SUB);
    c.get(q).mem(F64_LOAD, 3, 8 * f).get(x).mem(F64_LOAD, 3, head + 8 * d + 8 * f).op(F64_SUB).op(F64_MAX);
    c.f64(0).op(F64_MAX).tee(g).get(g).op(F64_MUL).get(bound).op(F64_ADD).set(bound);
  }
  c.block();
  c.get(bound).get(kth).op(F64_GT).brIf(0);
  c.get(x).i32(head + boxBytes).op(ADD).set(x);
  c.block().loop(); // over the leaf's blocks
  c.get(blocks).op(EQZ).brIf(1);
  c.vzero().set(acc0).vzero().set(acc1);
  // acc + t·t, with t = q_f - x_f for the block's rows 0-1 (acc0) or 2-3 (acc1)
  const term = (acc: number, f: number, off: number) => {
    c.get(qv[f]!).get(x).vmem(V.load, 3, off).v(V.f64x2_sub).tee(t);
    c.get(t).v(V.f64x2_mul).get(acc).v(V.f64x2_add).set(acc);
  };
  // Every EXIT_EVERY dimensions, a block whose four partial sums all exceed kth is left:
  // the sums only grow, so none of its rows can qualify.
  c.block();
  for (let f = 0; f < d; f++) {
    term(acc0, f, f * 32); term(acc1, f, f * 32 + 16);
    if ((f + 1) % EXIT_EVERY === 0 && f + 1 < d) {
      c.get(acc0).get(kv).v(V.f64x2_le).get(acc1).get(kv).v(V.f64x2_le).v(V.or).v(V.any_true).op(EQZ).brIf(0);
    }
  }
  c.get(acc0).get(kv).v(V.f64x2_le).v(V.i64x2_bitmask);
  c.get(acc1).get(kv).v(V.f64x2_le).v(V.i64x2_bitmask).i32(2).op(SHL).op(OR).tee(mask);
  c.if();
  for (let j = 0; j < KNN_BLOCK; j++) {
    c.get(mask).i32(1 << j).op(AND).if();
    // out[2·count] = distance, out[2·count + 1] = row + j
    c.get(count).i32(4).op(SHL).get(out).op(ADD).get(j < 2 ? acc0 : acc1).v(V.f64x2_extract, j & 1).mem(F64_STORE, 3, 0);
    c.get(count).i32(4).op(SHL).get(out).op(ADD).get(row).i32(j).op(ADD).op(F64_FROM_I32).mem(F64_STORE, 3, 8);
    c.get(count).i32(1).op(ADD).set(count);
    c.end();
  }
  c.end();
  c.end();
  c.get(row).i32(KNN_BLOCK).op(ADD).set(row);
  c.get(x).i32(32 * d).op(ADD).set(x);
  c.get(blocks).i32(1).op(SUB).set(blocks);
  c.br(0).end().end();
  c.end();
  c.get(next).set(x);
  c.get(leaves).i32(1).op(SUB).set(leaves);
  c.br(0).end().end();
  c.get(count);
  return { locals, code: c };
}

/** Bytes of one leaf of `rows` rows in the kernel's layout: header, box, blocks. */
export const knnLeafBytes = (rows: number, d: number): number => 16 + 16 * d + Math.ceil(rows / KNN_BLOCK) * KNN_BLOCK * 8 * d;

/** The module for rows of width d, importing a plain (unshared) memory of at least one page. */
export function knnModule(d: number): Uint8Array<ArrayBuffer> {
  const { locals, code } = scanBody(d);
  return assembleOne('scan', [T.i32, T.i32, T.i32, T.f64, T.i32], [T.i32], locals, code);
}
