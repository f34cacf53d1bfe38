// The inner loops of k-means (runtime/cluster.ts) as WebAssembly SIMD
// modules generated for one row width d and one number of center pairs P.
// Centers come in pairs, packed dimension-major: for pair p and dimension f,
// the v128 (c[2p][f], c[2p + 1][f]) at C + 16·(p·d + f); an odd count is
// padded with a center whose norm is +Infinity (never nearest) or with a
// copy. Each lane does the arithmetic of the plain TypeScript loops it
// replaces, in the same order, with separate multiply and add (no FMA: relaxed
// SIMD is off in Node 20), so the results are bit for bit theirs:
//   near  each row's nearest center, ranked by ‖c‖² − 2x·c (the dot summed
//         over f from zero) with the first center winning a tie (found
//         without branches), its exact
//         squared distance Σ(x − c)², and, when `sums` is not 0, the Lloyd
//         fold: sums[j·d + f] += w·x_f, counts[j] += w, inertia += w·dist
//         (the return value), and two position-keyed sums of the labels;
//         w is 1 when the weights pointer is 0;
//   pot   each row's exact squared distances Σ(x − c)² to every center,
//         optionally min'd with the row's current closest distance (k-means++'s
//         potential: a pair takes one column of `cl` for both lanes when the
//         pair belongs to one run, `ppr` pairs per run, or two consecutive
//         columns, one per lane), optionally stored (out, P v128s a row), and
//         summed times the row's weight per center into sums (P v128s).
// The module imports its memory (env.memory, not shared: one per thread).
// In: d, P and the variant. Out: the module's bytes.

import { Code, T, V, assembleOne } from './encode.js';

const I32_ADD = 0x6a, I32_MUL = 0x6c, I32_SHL = 0x74, I32_SHR_U = 0x76, I32_AND = 0x71, I32_GE_S = 0x4e, I32_EQZ = 0x45;
const I32_STORE = 0x36, F64_LOAD = 0x2b, F64_STORE = 0x39, F64_ADD = 0xa0, F64_SUB = 0xa1, F64_MUL = 0xa2, F64_LT = 0x63, F64_EQ = 0x61;
const I32_WRAP = 0xa7, I32_LT_S = 0x48, I32_OR = 0x72, I32_XOR = 0x73, SELECT = 0x1b, F64_FROM_I32 = 0xb7, F64_FROM_U32 = 0xb8;

/** The widest row the kernels are generated for (a v128 local per dimension). */
export const KMEANS_WASM_MAX_D = 64;

/**
 * near(x, n, C, cc, labels, dists, sums, counts, w, first, hashes) -> inertia.
 * x: n rows of d float64 (global rows first, first + 1, ...); cc: P v128s of
 * the pairs' squared norms; labels: n int32; dists: n float64; hashes: two
 * float64 sums the fold adds each row's position-keyed label terms to
 * (runtime/cluster.ts kstep).
 */
export function nearModule(d: number, P: number): Uint8Array<ArrayBuffer> {
  const c = new Code();
  const [x, n, C, cc, labels, dists, sums, counts, w, first, hashes] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
  const locals: T[] = [];
  let next = 11;
  const local = (t: T): number => { locals.push(t); return next++; };
  const xv = Array.from({ length: d }, () => local(T.v128));
  const [a, v, bestv, bidx, m] = [local(T.v128), local(T.v128), local(T.v128), local(T.v128), local(T.v128)];
  const [r, bj, base, sp, j0, j1, pos] = [local(T.i32), local(T.i32), local(T.i32), local(T.i32), local(T.i32), local(T.i32), local(T.i32)];
  const [v0, v1, dist, t, wt, inertia] = [local(T.f64), local(T.f64), local(T.f64), local(T.f64), local(T.f64), local(T.f64)];
  c.block().loop();
  c.get(r).get(n).op(I32_GE_S).brIf(1);
  for (let f = 0; f < d; f++) c.get(x).vmem(V.load64_splat, 3, 8 * f).set(xv[f]!);
  // without branches (the nearest center of clustered rows is no pattern a predictor learns): each lane keeps the
  // least value and its pair over the even (lane 0) or odd (lane 1) centers, the first on a tie
  c.f64(Infinity).v(V.f64x2_splat).set(bestv).vzero().set(bidx);
  for (let p = 0; p < P; p++) {
    c.vzero().set(a);
    for (let f = 0; f < d; f++) c.get(xv[f]!).get(C).vmem(V.load, 4, 16 * (p * d + f)).v(V.f64x2_mul).get(a).v(V.f64x2_add).set(a);
    // ‖c‖² − 2·dot (2·dot is dot + dot exactly)
    c.get(cc).vmem(V.load, 4, 16 * p).get(a).get(a).v(V.f64x2_add).v(V.f64x2_sub).set(v);
    c.get(v).get(bestv).v(V.f64x2_lt).set(m);
    c.get(v).get(bestv).get(m).v(V.bitselect).set(bestv);
    c.vconst32([p, 0, p, 0]).get(bidx).get(m).v(V.bitselect).set(bidx);
  }
  // the two lanes' winners: the smaller value, the smaller center on a tie
  c.get(bidx).v(V.i64x2_extract, 0).op(I32_WRAP).i32(1).op(I32_SHL).set(j0);
  c.get(bidx).v(V.i64x2_extract, 1).op(I32_WRAP).i32(1).op(I32_SHL).i32(1).op(I32_ADD).set(j1);
  c.get(bestv).v(V.f64x2_extract, 0).set(v0).get(bestv).v(V.f64x2_extract, 1).set(v1);
  c.get(j1).get(j0);
  c.get(v1).get(v0).op(F64_LT).get(v1).get(v0).op(F64_EQ).get(j1).get(j0).op(I32_LT_S).op(I32_AND).op(I32_OR);
  c.op(SELECT).set(bj);
  // the nearest center's exact squared distance: base = C + (bj >> 1)·16d + (bj & 1)·8
  c.get(C).get(bj).i32(1).op(I32_SHR_U).i32(16 * d).op(I32_MUL).op(I32_ADD).get(bj).i32(1).op(I32_AND).i32(3).op(I32_SHL).op(I32_ADD).set(base);
  c.f64(0).set(dist);
  for (let f = 0; f < d; f++) {
    c.get(x).mem(F64_LOAD, 3, 8 * f).get(base).mem(F64_LOAD, 3, 16 * f).op(F64_SUB).tee(t).get(t).op(F64_MUL).get(dist).op(F64_ADD).set(dist);
  }
  c.get(labels).get(r).i32(2).op(I32_SHL).op(I32_ADD).get(bj).mem(I32_STORE, 2, 0);
  c.get(dists).get(r).i32(3).op(I32_SHL).op(I32_ADD).get(dist).mem(F64_STORE, 3, 0);
  c.get(sums).op(I32_EQZ).if().else();
  c.f64(1).set(wt);
  c.get(w).if().get(w).get(r).i32(3).op(I32_SHL).op(I32_ADD).mem(F64_LOAD, 3, 0).set(wt).end();
  c.get(sums).get(bj).i32(8 * d).op(I32_MUL).op(I32_ADD).set(sp);
  for (let f = 0; f < d; f++) {
    c.get(sp).get(sp).mem(F64_LOAD, 3, 8 * f).get(wt).get(x).mem(F64_LOAD, 3, 8 * f).op(F64_MUL).op(F64_ADD).mem(F64_STORE, 3, 8 * f);
  }
  c.get(counts).get(bj).i32(3).op(I32_SHL).op(I32_ADD).set(sp);
  c.get(sp).get(sp).mem(F64_LOAD, 3, 0).get(wt).op(F64_ADD).mem(F64_STORE, 3, 0);
  c.get(inertia).get(wt).get(dist).op(F64_MUL).op(F64_ADD).set(inertia);
  // h1 += (j + 1)·(imul(p, 0x9e3779b1) >>> 12), h2 += (j + 1)·(imul(p ^ 0x5bd1e995, 0x85ebca6b) >>> 12)
  c.get(first).get(r).op(I32_ADD).set(pos);
  c.get(hashes).get(hashes).mem(F64_LOAD, 3, 0);
  c.get(bj).i32(1).op(I32_ADD).op(F64_FROM_I32).get(pos).i32(0x9e3779b1).op(I32_MUL).i32(12).op(I32_SHR_U).op(F64_FROM_U32).op(F64_MUL);
  c.op(F64_ADD).mem(F64_STORE, 3, 0);
  c.get(hashes).get(hashes).mem(F64_LOAD, 3, 8);
  c.get(bj).i32(1).op(I32_ADD).op(F64_FROM_I32);
  c.get(pos).i32(0x5bd1e995).op(I32_XOR).i32(0x85ebca6b).op(I32_MUL).i32(12).op(I32_SHR_U).op(F64_FROM_U32).op(F64_MUL);
  c.op(F64_ADD).mem(F64_STORE, 3, 8);
  c.end();
  c.get(x).i32(8 * d).op(I32_ADD).set(x);
  c.get(r).i32(1).op(I32_ADD).set(r);
  c.br(0).end().end();
  c.get(inertia);
  return assembleOne('near', [T.i32, T.i32, T.i32, T.i32, T.i32, T.i32, T.i32, T.i32, T.i32, T.i32, T.i32], [T.f64], locals, c);
}

/** How pot's distances meet the closest ones: none, one column per lane, or one column per run of `ppr` pairs. */
export type PotMin = { kind: 'none' } | { kind: 'lanes' } | { kind: 'runs'; ppr: number };

/**
 * pot(x, n, C, cl, cs, w, sums, out): cl holds n rows of cs float64 (the
 * closest distances), w n weights (0: none), sums P v128s (added to), out
 * n rows of P v128s (0: not stored).
 */
export function potModule(d: number, P: number, min: PotMin): Uint8Array<ArrayBuffer> {
  const c = new Code();
  const [x, n, C, cl, cs, w, sums, out] = [0, 1, 2, 3, 4, 5, 6, 7];
  const locals: T[] = [];
  let next = 8;
  const local = (t: T): number => { locals.push(t); return next++; };
  const xv = Array.from({ length: d }, () => local(T.v128));
  const acc = Array.from({ length: P }, () => local(T.v128));
  const [a, t, wv] = [local(T.v128), local(T.v128), local(T.v128)];
  const [r, row, o] = [local(T.i32), local(T.i32), local(T.i32)];
  for (let p = 0; p < P; p++) c.vzero().set(acc[p]!);
  c.block().loop();
  c.get(r).get(n).op(I32_GE_S).brIf(1);
  for (let f = 0; f < d; f++) c.get(x).vmem(V.load64_splat, 3, 8 * f).set(xv[f]!);
  c.f64(1).v(V.f64x2_splat).set(wv);
  c.get(w).if().get(w).get(r).i32(3).op(I32_SHL).op(I32_ADD).vmem(V.load64_splat, 3, 0).set(wv).end();
  // row: the row's closest distances; o: its stored distances
  c.get(cl).get(r).get(cs).op(I32_MUL).i32(3).op(I32_SHL).op(I32_ADD).set(row);
  c.get(out).get(r).i32(16 * P).op(I32_MUL).op(I32_ADD).set(o);
  for (let p = 0; p < P; p++) {
    c.vzero().set(a);
    for (let f = 0; f < d; f++) {
      c.get(xv[f]!).get(C).vmem(V.load, 4, 16 * (p * d + f)).v(V.f64x2_sub).tee(t).get(t).v(V.f64x2_mul).get(a).v(V.f64x2_add).set(a);
    }
    if (min.kind === 'lanes') c.get(a).get(row).vmem(V.load, 3, 16 * p).v(V.f64x2_min).set(a);
    if (min.kind === 'runs') c.get(a).get(row).vmem(V.load64_splat, 3, 8 * Math.floor(p / min.ppr)).v(V.f64x2_min).set(a);
    c.get(out).if().get(o).get(a).vmem(V.store, 3, 16 * p).end();
    c.get(a).get(wv).v(V.f64x2_mul).get(acc[p]!).v(V.f64x2_add).set(acc[p]!);
  }
  c.get(x).i32(8 * d).op(I32_ADD).set(x);
  c.get(r).i32(1).op(I32_ADD).set(r);
  c.br(0).end().end();
  for (let p = 0; p < P; p++) c.get(sums).get(sums).vmem(V.load, 3, 16 * p).get(acc[p]!).v(V.f64x2_add).vmem(V.store, 3, 16 * p);
  return assembleOne('pot', [T.i32, T.i32, T.i32, T.i32, T.i32, T.i32, T.i32, T.i32], [], locals, c);
}
