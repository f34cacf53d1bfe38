// The kernels of the tiled QR (runtime/qrtiles.ts) as WebAssembly SIMD
// modules over blocks that already lie in the module's memory, each with its
// own leading dimension, so that a tile QR task copies its tiles in once and
// runs every block-reflector update in place (wasm/tilegemm.ts copies its
// blocks in and out on every call, which costs as much as the arithmetic
// when K is an inner block of 32).
//   gemmnt    C −= P Qᵀ, tilegemm's loop nest: each 4 × 2 register block of C
//             keeps eight f64x2 accumulators of partial dot products along K
//             (even k in lane 0, odd k in lane 1), adds the two lanes at the
//             end and subtracts the sum from C. r % 4 = c % 2 = K % 2 = 0
//             (the QR pads its tiles to multiples of 4 with zeros). With V's
//             columns compact (K = 32 contiguous values a row) it runs as fast
//             with that short K as with a long one.
//   gemmnn    C −= P Q (Q's rows along C's columns): a 4 × 4 block of C in
//             eight f64x2 accumulators, four broadcast values of P times two
//             vectors of Q's row k each step; for the small T-factor product.
//   blockneg  D = −S, or D −= S: the block reflector's W = −Y_b and Y_b −= Z.
//   dot, axpy the Householder panel's level-2 loops.
// Separate multiply and add (no FMA in SIMD128). Each module imports its
// memory (env.memory, not shared: one per thread; the QR instantiates all of
// them over one memory).
// In: nothing. Out: the modules' bytes.

import { Code, T, V, assembleOne } from './encode.js';

const I32_ADD = 0x6a, I32_SHL = 0x74, I32_MUL = 0x6c, I32_GE_S = 0x4e, F64_LOAD = 0x2b, F64_STORE = 0x39, F64_ADD = 0xa0, F64_SUB = 0xa1;

/**
 * gemmnt(C, ldc, P, ldp, Q, ldq, r, c, K): C (r × c) −= P (r × K) Qᵀ (Q c × K), row-major at byte offsets C, P, Q
 * with leading dimensions in elements; r % 4 = c % 2 = K % 2 = 0 (rows need not be 16-byte aligned).
 */
export function qrGemmModule(): Uint8Array<ArrayBuffer> {
  const c = new Code();
  const [C, ldc, P, ldp, Q, ldq, r, cc, K] = [0, 1, 2, 3, 4, 5, 6, 7, 8];
  const locals: T[] = [];
  let next = 9;
  const local = (t: T): number => { locals.push(t); return next++; };
  const acc = Array.from({ length: 8 }, () => local(T.v128));
  const [p0, p1, p2, p3, q0, q1] = Array.from({ length: 6 }, () => local(T.v128));
  const [a, b, k, pa, qb, pk, qk, ca, rowP, rowQ, rowC] = Array.from({ length: 11 }, () => local(T.i32));
  // byte strides of a row of P, Q and C
  c.get(ldp).i32(8).op(I32_MUL).set(rowP);
  c.get(ldq).i32(8).op(I32_MUL).set(rowQ);
  c.get(ldc).i32(8).op(I32_MUL).set(rowC);
  c.i32(0).set(a);
  c.block().loop(); // over blocks of 4 rows
  c.get(a).get(r).op(I32_GE_S).brIf(1);
  c.get(P).get(a).get(rowP).op(I32_MUL).op(I32_ADD).set(pa);
  c.get(C).get(a).get(rowC).op(I32_MUL).op(I32_ADD).set(ca);
  c.i32(0).set(b);
  c.block().loop(); // over pairs of columns
  c.get(b).get(cc).op(I32_GE_S).brIf(1);
  c.get(Q).get(b).get(rowQ).op(I32_MUL).op(I32_ADD).set(qb);
  for (const x of acc) c.vzero().set(x);
  c.get(pa).set(pk).get(qb).set(qk).i32(0).set(k);
  c.block().loop(); // over K, two at a time
  c.get(k).get(K).op(I32_GE_S).brIf(1);
  const loadRow = (base: number, stride: number, row: number, into: number): void => {
    c.get(base);
    if (row) c.get(stride).i32(row).op(I32_MUL).op(I32_ADD);
    c.vmem(V.load, 3, 0).set(into);
  };
  loadRow(pk, rowP, 0, p0); loadRow(pk, rowP, 1, p1); loadRow(pk, rowP, 2, p2); loadRow(pk, rowP, 3, p3);
  loadRow(qk, rowQ, 0, q0); loadRow(qk, rowQ, 1, q1);
  [p0, p1, p2, p3].forEach((p, i) => {
    c.get(p).get(q0).v(V.f64x2_mul).get(acc[2 * i]!).v(V.f64x2_add).set(acc[2 * i]!);
    c.get(p).get(q1).v(V.f64x2_mul).get(acc[2 * i + 1]!).v(V.f64x2_add).set(acc[2 * i + 1]!);
  });
  c.get(pk).i32(16).op(I32_ADD).set(pk);
  c.get(qk).i32(16).op(I32_ADD).set(qk);
  c.get(k).i32(2).op(I32_ADD).set(k);
  c.br(0).end().end();
  // C[a + i][b + j] −= lane 0 + lane 1
  for (let i = 0; i < 4; i++) {
    for (let j = 0; j < 2; j++) {
      const x = acc[2 * i + j]!;
      const addr = (): void => {
        c.get(ca);
        if (i) c.get(rowC).i32(i).op(I32_MUL).op(I32_ADD);
        c.get(b).i32(8).op(I32_MUL).op(I32_ADD);
      };
      addr();
      addr(); c.mem(F64_LOAD, 3, 8 * j);
      c.get(x).v(V.f64x2_extract, 0).get(x).v(V.f64x2_extract, 1).op(F64_ADD).op(F64_SUB);
      c.mem(F64_STORE, 3, 8 * j);
    }
  }
  c.get(b).i32(2).op(I32_ADD).set(b);
  c.br(0).end().end();
  c.get(a).i32(4).op(I32_ADD).set(a);
  c.br(0).end().end();
  return assembleOne('gemmnt', [T.i32, T.i32, T.i32, T.i32, T.i32, T.i32, T.i32, T.i32, T.i32], [], locals, c);
}

/**
 * gemmnn(C, ldc, P, ldp, Q, ldq, r, c, K): C (r × c) −= P (r × K) Q (Q K × c), row-major at byte offsets with leading
 * dimensions in elements; r % 4 = c % 4 = 0.
 */
export function qrGemmNNModule(): Uint8Array<ArrayBuffer> {
  const c = new Code();
  const [C, ldc, P, ldp, Q, ldq, r, cc, K] = [0, 1, 2, 3, 4, 5, 6, 7, 8];
  const locals: T[] = [];
  let next = 9;
  const local = (t: T): number => { locals.push(t); return next++; };
  const acc = Array.from({ length: 8 }, () => local(T.v128));
  const [p, q0, q1] = Array.from({ length: 3 }, () => local(T.v128));
  const [a, b, k, pa, ca, cb, pk, qk, rowP, rowQ, rowC] = Array.from({ length: 11 }, () => local(T.i32));
  c.get(ldp).i32(3).op(I32_SHL).set(rowP);
  c.get(ldq).i32(3).op(I32_SHL).set(rowQ);
  c.get(ldc).i32(3).op(I32_SHL).set(rowC);
  c.i32(0).set(a);
  c.block().loop(); // over blocks of 4 rows
  c.get(a).get(r).op(I32_GE_S).brIf(1);
  c.get(P).get(a).get(rowP).op(I32_MUL).op(I32_ADD).set(pa);
  c.get(C).get(a).get(rowC).op(I32_MUL).op(I32_ADD).set(ca);
  c.i32(0).set(b);
  c.block().loop(); // over blocks of 4 columns
  c.get(b).get(cc).op(I32_GE_S).brIf(1);
  c.get(ca).get(b).i32(3).op(I32_SHL).op(I32_ADD).set(cb);
  const rowAddr = (base: number, stride: number, i: number): void => {
    c.get(base);
    if (i) c.get(stride).i32(i).op(I32_MUL).op(I32_ADD);
  };
  for (let i = 0; i < 4; i++) for (let j = 0; j < 2; j++) { rowAddr(cb, rowC, i); c.vmem(V.load, 3, 16 * j).set(acc[2 * i + j]!); }
  c.get(pa).set(pk);
  c.get(Q).get(b).i32(3).op(I32_SHL).op(I32_ADD).set(qk);
  c.i32(0).set(k);
  c.block().loop(); // over K
  c.get(k).get(K).op(I32_GE_S).brIf(1);
  c.get(qk).vmem(V.load, 3, 0).set(q0);
  c.get(qk).vmem(V.load, 3, 16).set(q1);
  for (let i = 0; i < 4; i++) {
    rowAddr(pk, rowP, i); c.vmem(V.load64_splat, 3, 0).set(p);
    c.get(acc[2 * i]!).get(p).get(q0).v(V.f64x2_mul).v(V.f64x2_sub).set(acc[2 * i]!);
    c.get(acc[2 * i + 1]!).get(p).get(q1).v(V.f64x2_mul).v(V.f64x2_sub).set(acc[2 * i + 1]!);
  }
  c.get(pk).i32(8).op(I32_ADD).set(pk);
  c.get(qk).get(rowQ).op(I32_ADD).set(qk);
  c.get(k).i32(1).op(I32_ADD).set(k);
  c.br(0).end().end();
  for (let i = 0; i < 4; i++) for (let j = 0; j < 2; j++) { rowAddr(cb, rowC, i); c.get(acc[2 * i + j]!).vmem(V.store, 3, 16 * j); }
  c.get(b).i32(4).op(I32_ADD).set(b);
  c.br(0).end().end();
  c.get(a).i32(4).op(I32_ADD).set(a);
  c.br(0).end().end();
  return assembleOne('gemmnn', [T.i32, T.i32, T.i32, T.i32, T.i32, T.i32, T.i32, T.i32, T.i32], [], locals, c);
}

/**
 * blockneg(D, ldd, S, lds, r, c, sub): D (r × c) = −S (sub = 0) or D −= S (sub = 1), row-major at byte offsets with
 * leading dimensions in elements, c % 2 = 0: the block reflector's W = −Y_b and Y_b −= Z without a JavaScript loop.
 */
export function qrBlockNegModule(): Uint8Array<ArrayBuffer> {
  const c = new Code();
  const [D, ldd, S, lds, r, cc, sub] = [0, 1, 2, 3, 4, 5, 6];
  const locals: T[] = [];
  let next = 7;
  const local = (t: T): number => { locals.push(t); return next++; };
  const [a, d, s, end] = Array.from({ length: 4 }, () => local(T.i32));
  c.i32(0).set(a);
  c.block().loop(); // over rows
  c.get(a).get(r).op(I32_GE_S).brIf(1);
  c.get(D).get(a).get(ldd).op(I32_MUL).i32(3).op(I32_SHL).op(I32_ADD).set(d);
  c.get(S).get(a).get(lds).op(I32_MUL).i32(3).op(I32_SHL).op(I32_ADD).set(s);
  c.get(d).get(cc).i32(3).op(I32_SHL).op(I32_ADD).set(end);
  c.block().loop(); // over pairs of columns
  c.get(d).get(end).op(I32_GE_S).brIf(1);
  c.get(d);
  c.get(sub).if(T.v128).get(d).vmem(V.load, 3, 0).get(s).vmem(V.load, 3, 0).v(V.f64x2_sub)
    .else().get(s).vmem(V.load, 3, 0).v(V.f64x2_neg).end();
  c.vmem(V.store, 3, 0);
  c.get(d).i32(16).op(I32_ADD).set(d);
  c.get(s).i32(16).op(I32_ADD).set(s);
  c.br(0).end().end();
  c.get(a).i32(1).op(I32_ADD).set(a);
  c.br(0).end().end();
  return assembleOne('blockneg', [T.i32, T.i32, T.i32, T.i32, T.i32, T.i32, T.i32], [], locals, c);
}

const F64_MUL = 0xa2, I32_AND = 0x71, I32_LT_U = 0x49;

/**
 * The Householder panel's level-2 loops: dot(x, y, n) = Σ x[k] y[k], and axpy(y, x, a, n): y += a x, over n float64
 * values at byte offsets (any alignment), four at a time in two f64x2 lanes, the rest one by one.
 */
export function qrLevel2Modules(): { dot: Uint8Array<ArrayBuffer>; axpy: Uint8Array<ArrayBuffer> } {
  const dot = (() => {
    const c = new Code();
    const [x, y, n] = [0, 1, 2];
    const [a0, a1, end4, end] = [3, 4, 5, 6];
    const s = 7;
    c.get(x).get(n).i32(-4).op(I32_AND).i32(3).op(I32_SHL).op(I32_ADD).set(end4);
    c.get(x).get(n).i32(3).op(I32_SHL).op(I32_ADD).set(end);
    c.block().loop();
    c.get(x).get(end4).op(I32_LT_U).op(0x45).brIf(1); // i32.eqz: stop when x >= end4
    c.get(x).vmem(V.load, 3, 0).get(y).vmem(V.load, 3, 0).v(V.f64x2_mul).get(a0).v(V.f64x2_add).set(a0);
    c.get(x).vmem(V.load, 3, 16).get(y).vmem(V.load, 3, 16).v(V.f64x2_mul).get(a1).v(V.f64x2_add).set(a1);
    c.get(x).i32(32).op(I32_ADD).set(x);
    c.get(y).i32(32).op(I32_ADD).set(y);
    c.br(0).end().end();
    c.get(a0).get(a1).v(V.f64x2_add).set(a0);
    c.get(a0).v(V.f64x2_extract, 0).get(a0).v(V.f64x2_extract, 1).op(F64_ADD).set(s);
    c.block().loop();
    c.get(x).get(end).op(I32_LT_U).op(0x45).brIf(1);
    c.get(s).get(x).mem(F64_LOAD, 3, 0).get(y).mem(F64_LOAD, 3, 0).op(F64_MUL).op(F64_ADD).set(s);
    c.get(x).i32(8).op(I32_ADD).set(x);
    c.get(y).i32(8).op(I32_ADD).set(y);
    c.br(0).end().end();
    c.get(s);
    return assembleOne('dot', [T.i32, T.i32, T.i32], [T.f64], [T.v128, T.v128, T.i32, T.i32, T.f64], c);
  })();
  const axpy = (() => {
    const c = new Code();
    const [y, x, a, n] = [0, 1, 2, 3];
    const [av, end4, end] = [4, 5, 6];
    c.get(a).v(V.f64x2_splat).set(av);
    c.get(y).get(n).i32(-4).op(I32_AND).i32(3).op(I32_SHL).op(I32_ADD).set(end4);
    c.get(y).get(n).i32(3).op(I32_SHL).op(I32_ADD).set(end);
    c.block().loop();
    c.get(y).get(end4).op(I32_LT_U).op(0x45).brIf(1);
    c.get(y).get(y).vmem(V.load, 3, 0).get(x).vmem(V.load, 3, 0).get(av).v(V.f64x2_mul).v(V.f64x2_add).vmem(V.store, 3, 0);
    c.get(y).get(y).vmem(V.load, 3, 16).get(x).vmem(V.load, 3, 16).get(av).v(V.f64x2_mul).v(V.f64x2_add).vmem(V.store, 3, 16);
    c.get(x).i32(32).op(I32_ADD).set(x);
    c.get(y).i32(32).op(I32_ADD).set(y);
    c.br(0).end().end();
    c.block().loop();
    c.get(y).get(end).op(I32_LT_U).op(0x45).brIf(1);
    c.get(y).get(y).mem(F64_LOAD, 3, 0).get(x).mem(F64_LOAD, 3, 0).get(a).op(F64_MUL).op(F64_ADD).mem(F64_STORE, 3, 0);
    c.get(x).i32(8).op(I32_ADD).set(x);
    c.get(y).i32(8).op(I32_ADD).set(y);
    c.br(0).end().end();
    return assembleOne('axpy', [T.i32, T.i32, T.f64, T.i32], [], [T.v128, T.i32, T.i32], c);
  })();
  return { dot, axpy };
}
