// Linear-algebra and machine-learning PROGRAMS, NumPy line for NumPy line:
// regression by normal equations, lstsq, pinv, QR and gradient descent;
// ridge; PCA by svd and by eigh of the covariance; whitening; k-means steps;
// logistic regression; softmax and cross-entropy; cosine similarity; k-NN;
// Mahalanobis distances; a Gaussian process; a float32 MLP forward pass;
// power iteration; Gram-Schmidt; Householder; Markov chains; einsum and
// tensordot patterns; norms of every order, det, inv, rank, cond; cholesky;
// batched and broadcast solves; matmul of 1-d and broadcast operands; integer,
// bool, float32 and float16 products; causal attention, layer norm, Newton's
// method, conjugate gradients, Jacobi iteration, Procrustes, LDA, kernel PCA,
// tensorsolve, and try/except LinAlgError fallbacks (the error arrives when the
// run reaches the singular matrix, so the JS awaits execute() inside try). Each program is written as a NumPy user would
// write it against the documented contract (keywords in a trailing options
// object, x[...] as x.get/x.set, @ as mt.matmul), and its outputs compared with
// NumPy's from fixtures/programs_linalg.json (gen_programs_linalg.py; inputs
// drawn there from a seeded default_rng). Results unique only up to sign
// (singular and eigen vectors, QR's Q) are compared through sign-invariant
// quantities: values, reconstructions, absolute values. Some programs run a
// second time with the inputs tiled into small chunks, which must not change
// the results.
//
// Tolerances: dtype and shape exactly; ints and bools exactly; float64 within
// 1e-12 relative plus 1e-14 of the output's largest magnitude (matmul and sums
// add in another order than OpenBLAS, so an entry that cancels to near zero
// carries the rounding of its largest terms); programs that factor or solve
// (LU, Cholesky, QR, Jacobi SVD/eigh against LAPACK's algorithms) within 1e-10
// relative plus 1e-12 of the largest magnitude, as different algorithms round
// differently by a few ulp times the (small) condition numbers of these inputs;
// float32 within 1e-5 relative plus 1e-6 of the largest magnitude; float16
// within 2e-3 relative (two half-precision ulp).
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import * as mt from '../src/api/tensor.js';

afterAll(() => mt.shutdown());

type T = mt.Tensor;
type Enc = number | string | boolean | Enc[];
interface Input { tensor: Enc; shape: number[]; dtype: string }
interface Output { data: (number | string | boolean)[]; shape: number[]; dtype: string }
interface Program { name: string; inputs: Record<string, Input>; outputs: Record<string, Output> }
interface Tol { rtol: number; atol: number }

const fixture: Program[] = JSON.parse(readFileSync(new URL('./fixtures/programs_linalg.json', import.meta.url), 'utf8'));
const byName = new Map(fixture.map((p) => [p.name, p]));

const dec = (v: Enc): unknown => (Array.isArray(v) ? v.map(dec) : v === 'nan' ? NaN : v === 'inf' ? Infinity : v === '-inf' ? -Infinity : v);
const num = (v: number | string | boolean): number => (typeof v === 'boolean' ? Number(v) : v === 'nan' ? NaN : v === 'inf' ? Infinity : v === '-inf' ? -Infinity : (v as number));

const F64: Tol = { rtol: 1e-12, atol: 1e-14 };
const LA: Tol = { rtol: 1e-10, atol: 1e-12 };
const F32: Tol = { rtol: 1e-5, atol: 1e-6 };
// float16: one ulp is 2^-10 relative; a sum accumulated in float32 in another order may round once the other way.
const F16: Tol = { rtol: 2e-3, atol: 1e-3 };

function inputs(p: Program, chunkSize?: number): Record<string, T> {
  const out: Record<string, T> = {};
  for (const [k, v] of Object.entries(p.inputs)) {
    const t = mt.tensor(dec(v.tensor) as number[], { dtype: v.dtype, ...(chunkSize !== undefined ? { chunkSize } : {}) });
    // nested lists lose the shape of an empty array ([] for a (0, 0) matrix): give it back
    out[k] = t.size === 0 ? t.reshape(v.shape) : t;
  }
  return out;
}

async function compare(p: Program, got: Record<string, T>, tol: Tol): Promise<string[]> {
  const bad: string[] = [];
  expect(Object.keys(got).sort()).toEqual(Object.keys(p.outputs).sort());
  for (const [k, want] of Object.entries(p.outputs)) {
    const nd = await got[k]!.fetch();
    if (nd.dtype !== want.dtype) bad.push(`${k}: dtype ${nd.dtype}, NumPy ${want.dtype}`);
    if (JSON.stringify(nd.shape) !== JSON.stringify(want.shape)) { bad.push(`${k}: shape ${JSON.stringify(nd.shape)}, NumPy ${JSON.stringify(want.shape)}`); continue; }
    const g = Array.from(nd.data as ArrayLike<number | bigint>, Number);
    const w = want.data.map(num);
    const exact = !want.dtype.startsWith('float');
    const t = want.dtype === 'float32' ? { rtol: Math.max(tol.rtol, F32.rtol), atol: Math.max(tol.atol, F32.atol) } : want.dtype === 'float16' ? F16 : tol;
    const scale = w.reduce((m, v) => (Number.isFinite(v) ? Math.max(m, Math.abs(v)) : m), 0);
    for (let i = 0; i < w.length; i++) {
      const a = g[i]!, b = w[i]!;
      const ok = Number.isNaN(b) ? Number.isNaN(a) : exact || !Number.isFinite(b) ? a === b : Math.abs(a - b) <= t.rtol * Math.abs(b) + t.atol * scale;
      if (!ok) { bad.push(`${k}[${i}]: ${a}, NumPy ${b}${exact ? '' : ` (rel ${(Math.abs(a - b) / Math.abs(b)).toExponential(2)})`}`); break; }
    }
  }
  return bad;
}

const { linalg } = mt;

// ---------------------------------------------------------------------------
// The programs, in the order of gen_programs_linalg.py.
const programs: Record<string, { tol: Tol; chunk?: number; run: (x: Record<string, T>) => Record<string, T> | Promise<Record<string, T>> }> = {
  linreg_normal_equations: {
    tol: LA, chunk: 7,
    run: ({ X, y }) => {
      const A = mt.column_stack([mt.ones(X!.shape[0]!), X!]);
      const beta = linalg.solve(mt.matmul(A.T, A), mt.matmul(A.T, y!));
      const pred = mt.matmul(A, beta);
      const resid = y!.subtract(pred);
      const r2 = mt.subtract(1, mt.sum(resid.power(2)).divide(mt.sum(y!.subtract(y!.mean()).power(2))));
      return { beta, pred, r2 };
    },
  },
  linreg_lstsq: {
    tol: LA,
    run: ({ X, y }) => {
      const A = mt.column_stack([mt.ones(X!.shape[0]!), X!]);
      const [beta, res, rank, sv] = linalg.lstsq(A, y!, { rcond: null }) as [T, T, T, T];
      const rmse = mt.sqrt(res.get(0).divide(y!.shape[0]!));
      return { beta, res, rank, sv, rmse };
    },
  },
  linreg_pinv: {
    tol: LA,
    run: ({ X, y }) => {
      const A = mt.hstack([X!, mt.ones([X!.shape[0]!, 1])]);
      const Ap = linalg.pinv(A);
      const beta = mt.matmul(Ap, y!);
      const H = mt.matmul(A, Ap);
      return { beta, Ap, trace_H: mt.trace(H), ApA: mt.matmul(Ap, A) };
    },
  },
  ridge_path: {
    tol: LA,
    run: ({ X, y }) => {
      const mu = X!.mean({ axis: 0 });
      const sd = X!.std({ axis: 0 });
      const Z = X!.subtract(mu).divide(sd);
      const yc = y!.subtract(y!.mean());
      const betas = mt.stack([0.1, 1.0, 10.0].map((lam) => linalg.solve(mt.matmul(Z.T, Z).add(mt.multiply(lam, mt.eye(Z.shape[1]!))), mt.matmul(Z.T, yc))));
      const norms = linalg.norm(betas, { axis: 1 });
      return { betas, norms, coef_orig: betas.get(1).divide(sd) };
    },
  },
  linreg_gradient_descent_chunked: {
    tol: LA, chunk: 7,
    run: ({ X, y }) => {
      let w = mt.zeros(X!.shape[1]!);
      const losses: T[] = [];
      for (let i = 0; i < 20; i++) {
        const r = mt.matmul(X!, w).subtract(y!);
        losses.push(mt.mean(r.power(2)));
        w = w.subtract(mt.multiply(0.1, mt.matmul(X!.T, r)).divide(y!.shape[0]!));
      }
      return { w, losses: mt.array(losses as never) }; // np.array(list of 0-d arrays): works, though typed for JS data only
    },
  },
  lstsq_rank_deficient_multi_target: {
    tol: LA,
    run: ({ X, Y }) => {
      const A = mt.column_stack([X!, X!.get(':, 0').add(X!.get(':, 1'))]);
      const [coef, res, rank, sv] = linalg.lstsq(A, Y!, { rcond: null }) as [T, T, T, T];
      return { coef, res, rank, sv_top: sv.get(':3'), fit: mt.matmul(A, coef) };
    },
  },
  qr_least_squares: {
    tol: LA,
    run: ({ A, y }) => {
      const [Q, R] = linalg.qr(A!) as [T, T];
      const beta = linalg.solve(R, mt.matmul(Q.T, y!));
      return { beta, absdiagR: mt.abs(mt.diag(R)), QR: mt.matmul(Q, R), QtQ: mt.matmul(Q.T, Q), absQ: mt.abs(Q) };
    },
  },
  hat_matrix_leverage: {
    tol: LA,
    run: ({ X, y }) => {
      const H = mt.matmul(mt.matmul(X!, linalg.inv(mt.matmul(X!.T, X!))), X!.T);
      const lev = mt.diag(H);
      const n = y!.shape[0]!;
      const r = mt.matmul(mt.eye(n).subtract(H), y!);
      const mse = mt.matmul(r, r).divide(n - X!.shape[1]!);
      const stud = r.divide(mt.sqrt(mse.multiply(mt.subtract(1, lev))));
      return { lev, trace: mt.trace(H), stud, top: mt.argsort(mt.abs(stud)).get('-3:') };
    },
  },
  pca_svd: {
    tol: LA, chunk: 7,
    run: ({ X }) => {
      const mu = X!.mean({ axis: 0 });
      const Xc = X!.subtract(mu);
      const [U, S, Vt] = linalg.svd(Xc, { full_matrices: false }) as [T, T, T];
      const v = S.power(2).divide(X!.shape[0]! - 1);
      const ratio = v.divide(v.sum());
      const scores = mt.abs(mt.matmul(Xc, Vt.get(':2').T));
      const recon = mt.matmul(U.get(':, :2').multiply(S.get(':2')), Vt.get(':2')).add(mu);
      return { S, ratio, cum: mt.cumsum(ratio), abs_scores: scores, recon, absU: mt.abs(U), absVt: mt.abs(Vt) };
    },
  },
  pca_eigh: {
    tol: LA,
    run: ({ X }) => {
      const Xc = X!.subtract(X!.mean({ axis: 0 }));
      const C = mt.cov(Xc, { rowvar: false });
      let [w, V] = linalg.eigh(C) as [T, T];
      const order = mt.argsort(w).get('::-1');
      w = w.get(order);
      V = V.get(':', order);
      const proj = mt.matmul(Xc, V.get(':, :2'));
      return {
        w, absV: mt.abs(V), ratio: w.divide(w.sum()), abs_proj: mt.abs(proj), C_back: mt.matmul(mt.matmul(V, mt.diag(w)), V.T),
        k95: mt.searchsorted(mt.cumsum(w).divide(w.sum()), 0.95),
      };
    },
  },
  svd_low_rank: {
    tol: LA,
    run: ({ A }) => {
      const [U, S, Vt] = linalg.svd(A!, { full_matrices: false }) as [T, T, T];
      const A2 = mt.matmul(mt.matmul(U.get(':, :2'), mt.diag(S.get(':2'))), Vt.get(':2'));
      const [Uf, , Vtf] = linalg.svd(A!) as [T, T, T];
      return {
        A2, err_fro: linalg.norm(A!.subtract(A2), 'fro'), tail: mt.sqrt(mt.sum(S.get('2:').power(2))),
        err_2: linalg.norm(A!.subtract(A2), 2), UfTUf: mt.matmul(Uf.T, Uf), absVtf: mt.abs(Vtf), absUf6: mt.abs(Uf.get(':, :6')), svdvals: linalg.svdvals(A!),
      };
    },
  },
  zca_whitening: {
    tol: LA,
    run: ({ X }) => {
      const Xc = X!.subtract(X!.mean({ axis: 0 }));
      const C = mt.matmul(Xc.T, Xc).divide(X!.shape[0]! - 1);
      const [w, V] = linalg.eigh(C) as [T, T];
      const W = mt.matmul(mt.matmul(V, mt.diag(mt.divide(1.0, mt.sqrt(w.add(1e-5))))), V.T);
      const Xw = mt.matmul(Xc, W);
      return { W, cov_w: mt.cov(Xw, { rowvar: false }), Xw };
    },
  },
  kmeans_two_steps: {
    tol: F64, chunk: 7,
    run: ({ X, C: C0 }) => {
      let C = C0!;
      let d2!: T, labels!: T;
      for (let it = 0; it < 2; it++) {
        d2 = X!.get(':, None, :').subtract(C.get('None, :, :')).power(2).sum({ axis: 2 });
        labels = d2.argmin({ axis: 1 });
        let newC = mt.zeros_like(C);
        for (let k = 0; k < C.shape[0]!; k++) newC = newC.set(k, X!.get(labels.equal(k)).mean({ axis: 0 }));
        C = newC;
      }
      const inertia = d2.min({ axis: 1 }).sum();
      return { C, labels, inertia, counts: mt.bincount(labels, { minlength: 3 }) };
    },
  },
  logistic_regression_gd: {
    tol: LA,
    run: ({ X, y }) => {
      const n = y!.shape[0]!;
      let w = mt.zeros(X!.shape[1]!);
      let b: T | number = 0.0;
      for (let i = 0; i < 5; i++) {
        const z = mt.matmul(X!, w).add(b);
        const p = mt.divide(1, mt.add(1, mt.exp(mt.negative(z))));
        w = w.subtract(mt.multiply(0.5, mt.matmul(X!.T, p.subtract(y!))).divide(n));
        b = mt.subtract(b, mt.multiply(0.5, mt.mean(p.subtract(y!))));
      }
      const p = mt.divide(1, mt.add(1, mt.exp(mt.negative(mt.matmul(X!, w).add(b)))));
      const pred = p.greater_equal(0.5).astype('int64');
      const acc = mt.mean(pred.equal(y!));
      const loss = mt.negative(mt.mean(y!.multiply(mt.log(p)).add(mt.subtract(1, y!).multiply(mt.log(mt.subtract(1, p))))));
      return { w, b: mt.asarray(b), p, pred, acc, loss };
    },
  },
  softmax_cross_entropy: {
    tol: F64, chunk: 3,
    run: ({ logits, labels }) => {
      const z = logits!.subtract(logits!.max({ axis: 1, keepdims: true }));
      const e = mt.exp(z);
      const p = e.divide(e.sum({ axis: 1, keepdims: true }));
      const logp = z.subtract(mt.log(e.sum({ axis: 1, keepdims: true })));
      const n = labels!.shape[0]!;
      const loss = mt.negative(logp.get(mt.arange(n), labels!).mean());
      const onehot = mt.eye(logits!.shape[1]!).get(labels!);
      const grad = p.subtract(onehot).divide(n);
      return { p, loss, grad, pred: p.argmax({ axis: 1 }), rowsum: p.sum({ axis: 1 }) };
    },
  },
  cosine_similarity: {
    tol: F64, chunk: 3,
    run: ({ X }) => {
      const Xn = X!.divide(linalg.norm(X!, { axis: 1, keepdims: true }));
      const S = mt.matmul(Xn, Xn.T);
      const n = X!.shape[0]!;
      const S_off = S.subtract(mt.multiply(2, mt.eye(n)));
      const best = S_off.argmax({ axis: 1 });
      return { S, best, best_sim: S.get(mt.arange(n), best), diag: mt.diag(S) };
    },
  },
  knn_classify: {
    tol: F64, chunk: 7,
    run: ({ Xtr, ytr, Q }) => {
      const d = mt.sqrt(Q!.get(':, None, :').subtract(Xtr!.get('None, :, :')).power(2).sum({ axis: -1 }));
      const nn = mt.argsort(d, { axis: 1 }).get(':, :3');
      const votes = ytr!.get(nn);
      const pred = votes.sum({ axis: 1 }).greater_equal(2).astype('int64');
      const dk = mt.take_along_axis(d, nn, { axis: 1 });
      const w = mt.divide(1, dk);
      const soft = w.multiply(votes).sum({ axis: 1 }).divide(w.sum({ axis: 1 }));
      return { nn, pred, dk, soft };
    },
  },
  mahalanobis_outliers: {
    tol: LA,
    run: ({ X }) => {
      const mu = X!.mean({ axis: 0 });
      const C = mt.cov(X!, { rowvar: false });
      const Ci = linalg.inv(C);
      const D = X!.subtract(mu);
      const m2 = mt.einsum('ij,jk,ik->i', D, Ci, D);
      const m2b = mt.sum(mt.matmul(D, Ci).multiply(D), { axis: 1 });
      return { m2, m2b, worst: mt.argsort(m2).get('-3:'), mean_m2: m2.mean() };
    },
  },
  gaussian_process_rbf: {
    tol: LA,
    run: ({ X, y, Xs }) => {
      const rbf = (A: T, B: T): T => {
        const sq = mt.sum(A.power(2), { axis: 1 }).get(':, None').add(mt.sum(B.power(2), { axis: 1 }).get('None, :')).subtract(mt.matmul(mt.multiply(2, A), B.T));
        return mt.exp(mt.multiply(-0.5, sq).divide(0.8 ** 2));
      };
      const K = rbf(X!, X!).add(mt.multiply(0.1, mt.eye(X!.shape[0]!)));
      const alpha = linalg.solve(K, y!);
      const Ks = rbf(Xs!, X!);
      const mean = mt.matmul(Ks, alpha);
      const v = linalg.solve(K, Ks.T);
      const variance = mt.subtract(1.0, mt.sum(Ks.multiply(v.T), { axis: 1 }));
      return { alpha, mean, var: variance };
    },
  },
  mlp_forward_float32: {
    tol: F32, chunk: 3,
    run: ({ X, W1, b1, W2, b2 }) => {
      const h = mt.maximum(mt.matmul(X!, W1!).add(b1!), 0);
      const logits = mt.matmul(h, W2!).add(b2!);
      const z = logits.subtract(logits.max({ axis: 1, keepdims: true }));
      const p = mt.exp(z).divide(mt.exp(z).sum({ axis: 1, keepdims: true }));
      return { h, logits, p, pred: p.argmax({ axis: 1 }) };
    },
  },
  power_iteration: {
    tol: LA,
    run: ({ M }) => {
      const A = mt.matmul(M!, M!.T);
      const n = A.shape[0]!;
      let v = mt.ones(n).divide(mt.sqrt(n));
      for (let i = 0; i < 60; i++) {
        const w = mt.matmul(A, v);
        v = w.divide(linalg.norm(w));
      }
      const lam = mt.matmul(mt.matmul(v, A), v);
      return { lam, abs_v: mt.abs(v), top: linalg.eigvalsh(A).get(-1), resid: linalg.norm(mt.matmul(A, v).subtract(lam.multiply(v))).less(1e-6) };
    },
  },
  gram_schmidt: {
    tol: LA,
    run: ({ A }) => {
      let Q = mt.zeros_like(A!);
      for (let j = 0; j < A!.shape[1]!; j++) {
        let v = A!.get(':', j).copy();
        for (let i = 0; i < j; i++) v = v.subtract(mt.dot(Q.get(':', i), A!.get(':', j)).multiply(Q.get(':', i)));
        Q = Q.set(':', j, v.divide(linalg.norm(v)));
      }
      const R = mt.triu(mt.matmul(Q.T, A!));
      let P: T | number = 0;
      for (let i = 0; i < A!.shape[1]!; i++) P = mt.add(P, mt.outer(Q.get(':', i), Q.get(':', i)));
      return { Q, R, QtQ: mt.matmul(Q.T, Q), P: P as T, QR: mt.matmul(Q, R) };
    },
  },
  householder_reflection: {
    tol: LA,
    run: ({ x }) => {
      const e1 = mt.zeros_like(x!).set(0, 1.0);
      const alpha = mt.negative(mt.sign(x!.get(0))).multiply(linalg.norm(x!));
      const v = x!.subtract(alpha.multiply(e1));
      const H = mt.eye(x!.shape[0]!).subtract(mt.multiply(2, mt.outer(v, v)).divide(mt.dot(v, v)));
      return { H, Hx: mt.matmul(H, x!), HHt: mt.matmul(H, H.T), detH: linalg.det(H) };
    },
  },
  markov_chain: {
    tol: LA,
    run: ({ P: P0 }) => {
      const P = P0!.divide(P0!.sum({ axis: 1, keepdims: true }));
      const n = P.shape[0]!;
      const P20 = linalg.matrix_power(P, 20);
      let pi = mt.full(n, 1.0 / n);
      for (let i = 0; i < 50; i++) pi = mt.matmul(pi, P);
      const A = mt.vstack([P.T.subtract(mt.eye(n)).get(':-1'), mt.ones(n)]);
      const b = mt.zeros(n).set(-1, 1.0);
      return { P20, pi, stat: linalg.solve(A, b) };
    },
  },
  einsum_patterns: {
    tol: F64, chunk: 2,
    run: ({ A, B, S, C, Ab, Bb, u, v }) => ({
      'ij,jk->ik': mt.einsum('ij,jk->ik', A!, B!),
      'ij->ji': mt.einsum('ij->ji', A!),
      'ii->': mt.einsum('ii->', S!),
      'ii->i': mt.einsum('ii->i', S!),
      'ij,ij->i': mt.einsum('ij,ij->i', A!, C!),
      'bij,bjk->bik': mt.einsum('bij,bjk->bik', Ab!, Bb!),
      'i,j->ij': mt.einsum('i,j->ij', u!, v!),
      'ij->': mt.einsum('ij->', A!),
      'ij,jk,kl->il': mt.einsum('ij,jk,kl->il', A!, B!, B!.T),
      'implicit ij,jk': mt.einsum('ij,jk', A!, B!),
      '...ij->...ji': mt.einsum('...ij->...ji', Ab!),
    }),
  },
  einsum_int64: {
    tol: F64,
    run: ({ A, B }) => ({ AB: mt.einsum('ij,jk->ik', A!, B!), tr: mt.einsum('ii', A!.get(':, :3')), rowdot: mt.einsum('ij,ij->i', A!, A!) }),
  },
  tensordot_axes: {
    tol: F64, chunk: 2,
    run: ({ T: Tn, M, W, a, b }) => ({
      pairs: mt.tensordot(Tn!, M!, { axes: [[1, 2], [0, 1]] }),
      axes2: mt.tensordot(Tn!, M!, { axes: 2 }),
      outer: mt.tensordot(a!, b!, { axes: 0 }),
      axes1: mt.tensordot(Tn!, W!, { axes: 1 }),
      last_first: mt.tensordot(Tn!, W!, { axes: [[2], [0]] }).sum({ axis: 1 }),
      swapped: mt.tensordot(M!, Tn!, { axes: [[0, 1], [1, 2]] }),
    }),
  },
  batched_einsum_chunked: {
    tol: F64, chunk: 5,
    run: ({ Ab, Bb }) => {
      const C1 = mt.einsum('bij,bjk->bik', Ab!, Bb!);
      const C2 = mt.matmul(Ab!, Bb!);
      const fro = linalg.norm(C1, { axis: [1, 2] });
      const inner = mt.einsum('bij,bij->b', Ab!, Ab!);
      return { C1, C2, fro, inner, max_batch: fro.argmax() };
    },
  },
  matmul_1d_and_broadcast: {
    tol: F64, chunk: 3,
    run: ({ v, M, N, T: Tn, W }) => ({
      'v@N': mt.matmul(v!, N!), 'M@v': mt.matmul(M!, v!), 'v@v': mt.matmul(v!, v!), 'T@v': mt.matmul(Tn!, v!), 'T@W': mt.matmul(Tn!, W!),
      'matmul(v,W)': mt.matmul(v!, W!), 'dot(M,v)': mt.dot(M!, v!), 'dot(T,N)': mt.dot(Tn!, N!),
    }),
  },
  inner_outer_vdot: {
    tol: F64,
    run: ({ a, b, A, B }) => ({
      inner: mt.inner(a!, b!), outer: mt.outer(a!, b!), vdot: mt.vdot(A!, B!), inner2d: mt.inner(A!, B!),
      kron: mt.kron(A!.get(':2, :2'), mt.eye(2)), cross: mt.cross(a!.get(':3'), b!.get(':3')),
    }),
  },
  integer_graph_paths: {
    tol: F64, chunk: 4,
    run: ({ A }) => {
      const A3 = mt.matmul(mt.matmul(A!, A!), A!);
      return {
        A3, A4: linalg.matrix_power(A!, 4), triangles: mt.floor_divide(mt.trace(A3), 6), deg: A!.sum({ axis: 1 }),
        A32: mt.matmul(A!.astype('int32'), A!.astype('int32')), reach2: mt.matmul(A!.astype('bool'), A!.astype('bool')),
      };
    },
  },
  rotations_batched: {
    tol: LA,
    run: ({ theta, pts }) => {
      const c = mt.cos(theta!), s = mt.sin(theta!);
      const R = mt.stack([mt.stack([c, mt.negative(s)], { axis: -1 }), mt.stack([s, c], { axis: -1 })], { axis: -2 });
      const rot = mt.einsum('nij,nj->ni', R, pts!);
      const rot2 = mt.matmul(R, pts!.get('..., None')).get('..., 0');
      const back = linalg.solve(R, rot.get('..., None')).get('..., 0');
      return { R, rot, rot2, dets: linalg.det(R), RtR: mt.matmul(R.transpose(0, 2, 1), R), back };
    },
  },
  matrix_summaries: {
    tol: LA,
    run: ({ A, B }) => ({
      trace: mt.trace(A!), det: linalg.det(A!), inv: linalg.inv(A!), invA_A: mt.matmul(linalg.inv(A!), A!),
      rank: linalg.matrix_rank(A!), rank_def: linalg.matrix_rank(mt.matmul(B!, B!.T)),
      fro: linalg.norm(A!, 'fro'), ord2: linalg.norm(A!, 2), ord1: linalg.norm(A!, 1),
      ordinf: linalg.norm(A!, Infinity), nuc: linalg.norm(A!, 'nuc'), 'ord-2': linalg.norm(A!, -2),
      'ord-inf': linalg.norm(A!, -Infinity), vec1: linalg.norm(A!.get(0), 1), vecinf: linalg.norm(A!.get(':, 0'), Infinity),
      vec3: linalg.norm(A!.get(1), 3), vec0: linalg.norm(mt.round(A!.get(2)), 0), flat: linalg.norm(A!),
    }),
  },
  cholesky_solve: {
    tol: LA,
    run: ({ M, b }) => {
      const S = mt.matmul(M!, M!.T).add(mt.multiply(5, mt.eye(M!.shape[0]!)));
      const L = linalg.cholesky(S);
      const z = linalg.solve(L, b!);
      const x = linalg.solve(L.T, z);
      const logdet = mt.multiply(2, mt.sum(mt.log(mt.diag(L))));
      const [sign, ld] = linalg.slogdet(S) as [T, T];
      return { L, x, x_direct: linalg.solve(S, b!), logdet, sign, ld, LLt: mt.matmul(L, L.T), U: linalg.cholesky(S, { upper: true }) };
    },
  },
  batched_solve: {
    tol: LA,
    run: ({ A: A0, b, bv, A4, B4 }) => {
      const A = A0!.add(mt.multiply(3, mt.eye(3)));
      const x = linalg.solve(A, b!);
      const xv = linalg.solve(A, bv!);
      return {
        x, Ax: mt.matmul(A, x), xv, dets: linalg.det(A), invs: linalg.inv(A),
        bcast: linalg.solve(A4!.add(mt.multiply(3, mt.eye(3))), B4!), logdets: linalg.slogdet(A)[1]!,
      };
    },
  },
  eigh_matrix_functions: {
    tol: LA,
    run: ({ M }) => {
      const S = mt.matmul(M!, M!.T).add(mt.eye(M!.shape[0]!));
      const [w, V] = linalg.eigh(S) as [T, T];
      const sqrtS = mt.matmul(mt.matmul(V, mt.diag(mt.sqrt(w))), V.T);
      const invS = mt.matmul(V.divide(w), V.T);
      return { w, recon: mt.matmul(V.multiply(w), V.T), sqrt_sq: mt.matmul(sqrtS, sqrtS), sqrtS, invS, inv: linalg.inv(S), eigvalsh: linalg.eigvalsh(S) };
    },
  },
  multi_dot_cond: {
    tol: LA,
    run: ({ A, B, C, v }) => ({
      md: linalg.multi_dot([A!, B!, C!, v!]), chain: mt.matmul(mt.matmul(mt.matmul(A!, B!), C!), v!),
      cond: linalg.cond(A!), cond_fro: linalg.cond(A!, 'fro'), cond1: linalg.cond(A!, 1), condinf: linalg.cond(A!, Infinity),
    }),
  },
  covariance_einsum_corr: {
    tol: LA,
    run: ({ X }) => {
      const n = X!.shape[0]!;
      const Xc = X!.subtract(X!.mean({ axis: 0 }));
      const C1 = mt.einsum('ni,nj->ij', Xc, Xc).divide(n - 1);
      const d = mt.sqrt(mt.diag(C1));
      const R = C1.divide(mt.outer(d, d));
      return { C1, C2: mt.cov(X!.T), R, R2: mt.corrcoef(X!, { rowvar: false }) };
    },
  },
  float32_linalg: {
    tol: F32,
    run: ({ A: A0, b, B }) => {
      const A = A0!.add(mt.multiply(4, mt.eye(4, { dtype: 'float32' })));
      return {
        x: linalg.solve(A, b!), inv: linalg.inv(A), det: linalg.det(A), norm: linalg.norm(A),
        norm_ax: linalg.norm(B!, { axis: 0 }), eigvalsh: linalg.eigvalsh(A.add(A.T)), AB: mt.matmul(A, B!),
        AB64: mt.matmul(A, B!.astype('float64')), Aint8: mt.matmul(A, mt.ones([4, 2], { dtype: 'int8' })), AB_i32: mt.matmul(A, mt.ones([4, 2], { dtype: 'int32' })),
      };
    },
  },
  float32_matmul_chunked: {
    tol: F32, chunk: 7,
    run: ({ A, B }) => {
      const C = mt.matmul(A!, B!);
      return { C, relu_sum: mt.maximum(C, 0).sum({ axis: 0 }), colnorm: linalg.norm(C, { axis: 0 }), gram: mt.matmul(C.T, C) };
    },
  },

  attention_causal: {
    tol: LA, chunk: 2,
    run: ({ Q, K, V }) => {
      const d = Q!.shape[Q!.ndim - 1]!;
      let scores = mt.matmul(Q!, K!.transpose(0, 2, 1)).divide(mt.sqrt(d));
      const mask = mt.triu(mt.ones([Q!.shape[1]!, K!.shape[1]!], { dtype: 'bool' }), { k: 1 });
      scores = mt.where(mask, -Infinity, scores);
      scores = scores.subtract(scores.max({ axis: -1, keepdims: true }));
      let w = mt.exp(scores);
      w = w.divide(w.sum({ axis: -1, keepdims: true }));
      return { w, out: mt.matmul(w, V!), masked_zero: w.equal(0).sum() };
    },
  },
  layer_and_batch_norm: {
    tol: LA,
    run: ({ X, gamma, beta }) => {
      const mu = X!.mean({ axis: -1, keepdims: true });
      const v = X!.var({ axis: -1, keepdims: true });
      const ln = X!.subtract(mu).divide(mt.sqrt(v.add(1e-5))).multiply(gamma!).add(beta!);
      const bmu = X!.mean({ axis: 0 });
      const bn = X!.subtract(bmu).divide(mt.sqrt(X!.var({ axis: 0 }).add(1e-5)));
      return { ln, bn, ln_rowstd: ln.std({ axis: 1 }), bn_colmean: mt.abs(bn.mean({ axis: 0 })).less(1e-12) };
    },
  },
  newton_logistic: {
    tol: LA,
    run: ({ X, y }) => {
      let w = mt.zeros(X!.shape[1]!);
      for (let i = 0; i < 4; i++) {
        const p = mt.divide(1, mt.add(1, mt.exp(mt.matmul(mt.negative(X!), w))));
        const g = mt.matmul(X!.T, p.subtract(y!));
        const Hs = mt.matmul(X!.T, X!.multiply(p.multiply(mt.subtract(1, p)).get(':, None')));
        w = w.subtract(linalg.solve(Hs, g));
      }
      return { w, p: mt.divide(1, mt.add(1, mt.exp(mt.matmul(mt.negative(X!), w)))) };
    },
  },
  conjugate_gradient: {
    tol: LA,
    run: ({ M, b }) => {
      const A = mt.matmul(M!, M!.T).add(mt.multiply(M!.shape[0]!, mt.eye(M!.shape[0]!)));
      let x = mt.zeros_like(b!);
      let r = b!.subtract(mt.matmul(A, x));
      let p = r.copy();
      let rs = mt.matmul(r, r);
      const hist: T[] = [];
      for (let i = 0; i < 6; i++) {
        const Ap = mt.matmul(A, p);
        const alpha = rs.divide(mt.matmul(p, Ap));
        x = x.add(alpha.multiply(p));
        r = r.subtract(alpha.multiply(Ap));
        const rsNew = mt.matmul(r, r);
        hist.push(mt.sqrt(rsNew));
        p = r.add(rsNew.divide(rs).multiply(p));
        rs = rsNew;
      }
      return { x, x_solve: linalg.solve(A, b!), hist_head: mt.array(hist as never).get(':3') };
    },
  },
  jacobi_iteration: {
    tol: LA,
    run: ({ A: A0, b }) => {
      const A = A0!.add(mt.diag(mt.abs(A0!).sum({ axis: 1 }).add(1)));
      const D = mt.diag(A);
      const Rm = A.subtract(mt.diagflat(D));
      let x = mt.zeros_like(b!);
      for (let i = 0; i < 25; i++) x = b!.subtract(mt.matmul(Rm, x)).divide(D);
      return { x, converged: linalg.norm(mt.matmul(A, x).subtract(b!), Infinity).less(1e-12) };
    },
  },
  polynomial_regression: {
    tol: LA,
    run: ({ x, y }) => {
      const V = mt.vander(x!, 4);
      const [coef, res, rank] = linalg.lstsq(V, y!, { rcond: null }) as [T, T, T, T];
      const pf = mt.polyfit(x!, y!, 3) as T;
      const fit = mt.polyval(coef, x!);
      const Vi = mt.vander(x!, 3, { increasing: true });
      return { coef, res, rank, pf, fit, coef_inc: linalg.solve(mt.matmul(Vi.T, Vi), mt.matmul(Vi.T, y!)) };
    },
  },
  procrustes: {
    tol: LA,
    run: ({ A, B }) => {
      const M = mt.matmul(A!.T, B!);
      const [U, , Vt] = linalg.svd(M) as [T, T, T];
      const R = mt.matmul(U, Vt);
      return { R, RtR: mt.matmul(R.T, R), detR_abs: mt.abs(linalg.det(R)), aligned: mt.matmul(A!, R), err: linalg.norm(mt.matmul(A!, R).subtract(B!)) };
    },
  },
  kmeans_empty_cluster: {
    tol: F64, chunk: 3,
    run: ({ X, C }) => {
      const d2 = X!.get(':, None, :').subtract(C!.get('None, :, :')).power(2).sum({ axis: 2 });
      const labels = d2.argmin({ axis: 1 });
      let newC = mt.zeros_like(C!);
      for (let k = 0; k < C!.shape[0]!; k++) newC = newC.set(k, X!.get(labels.equal(k)).mean({ axis: 0 }));
      return { labels, newC, empty: mt.isnan(newC).any({ axis: 1 }) };
    },
  },
  integer_matmul_dtypes: {
    tol: F64,
    run: ({ a8, u8, i32 }) => ({
      'int8@int8': mt.matmul(a8!, a8!), 'uint8@uint8': mt.matmul(u8!, u8!), 'uint8@int8': mt.matmul(u8!, a8!), 'int32@int64': mt.matmul(i32!, a8!.astype('int64')),
      dot_int8: mt.dot(a8!.get(0), a8!.get(1)), einsum_int8: mt.einsum('ij,jk->ik', a8!, a8!), 'int32@float32': mt.matmul(i32!, mt.ones([3, 2], { dtype: 'float32' })),
      'bool@int8': mt.matmul(a8!.greater(0), a8!),
    }),
  },
  norms_over_axes: {
    tol: LA,
    run: ({ T: Tn, v, I }) => ({
      fro: linalg.norm(Tn!, 'fro', { axis: [1, 2] }), ord1: linalg.norm(Tn!, 1, { axis: [1, 2] }), ordinf: linalg.norm(Tn!, Infinity, { axis: [1, 2] }),
      nuc: linalg.norm(Tn!, 'nuc', { axis: [1, 2] }), ord2: linalg.norm(Tn!, 2, { axis: [1, 2] }), 'ord-2': linalg.norm(Tn!, -2, { axis: [1, 2] }),
      axes20: linalg.norm(Tn!, 1, { axis: [2, 0] }), keep: linalg.norm(Tn!, { axis: [1, 2], keepdims: true }), vec_axis0: linalg.norm(Tn!, { axis: 0 }),
      'v-inf': linalg.norm(v!, -Infinity), 'v0.5': linalg.norm(v!, 0.5), 'v-1': linalg.norm(v!, -1), int: linalg.norm(I!),
      int_axis: linalg.norm(I!, { axis: 1 }), vector_norm: linalg.vector_norm(Tn!, { ord: 3, axis: -1 }), matrix_norm: linalg.matrix_norm(Tn!, { ord: 'nuc' }),
      vector_norm_all: linalg.vector_norm(Tn!), vecdot: linalg.vecdot(Tn!, Tn!), matrix_transpose: linalg.matrix_transpose(Tn!),
    }),
  },
  singular_and_empty: {
    tol: LA,
    run: ({ S, Z0, B }) => {
      const [sign, ld] = linalg.slogdet(S!) as [T, T];
      return {
        det: linalg.det(S!), sign, ld, rank: linalg.matrix_rank(S!), rank_tol: linalg.matrix_rank(B!, { tol: 0.5 }),
        empty_mm: mt.matmul(mt.zeros([3, 0]), mt.zeros([0, 4])), det0: linalg.det(Z0!), inv0: linalg.inv(Z0!), pinv_zero: linalg.pinv(mt.zeros([3, 2])),
        empty_batch_det: linalg.det(mt.zeros([0, 3, 3])), int_det: linalg.det(mt.array([[2, 1], [1, 3]])), int_solve: linalg.solve(mt.array([[2, 1], [1, 3]]), mt.array([1, 2])),
      };
    },
  },
  einsum_more: {
    tol: F64,
    run: ({ A, B, Ab, C3, h }) => ({
      ji: mt.einsum('ji', A!), 'ba,ac': mt.einsum('ba,ac', A!, B!), bcast: mt.einsum('...ij,...jk->...ik', Ab!, C3!),
      'ij,ij->': mt.einsum('ij,ij->', A!, A!), 'i,i': mt.einsum('i,i', h!, h!), optimize: mt.einsum('ij,jk,kl->il', A!, B!, B!.T, { optimize: true }),
      'ijk->kji': mt.einsum('ijk->kji', Ab!), 'bhqd,bhkd->bhqk': mt.einsum('bhqd,bhkd->bhqk', Ab!.get('None'), Ab!.get('None')),
      mixed: mt.einsum('ij,j->i', A!, mt.arange(A!.shape[1]!)), outer3: mt.einsum('i,j,k->ijk', h!.get(':2'), h!.get(':3'), h!),
    }),
  },
  float32_decompositions: {
    tol: F32,
    run: ({ A, y }) => {
      const S = mt.matmul(A!.T, A!).add(mt.eye(3, { dtype: 'float32' }));
      const [, R] = linalg.qr(A!) as [T, T];
      const [coef, res, rank] = linalg.lstsq(A!, y!, { rcond: null }) as [T, T, T, T];
      return {
        sv: linalg.svd(A!, { compute_uv: false }) as T, w: (linalg.eigh(S) as T[])[0]!, absR: mt.abs(R), coef, res, rank,
        pinv: linalg.pinv(A!), L: linalg.cholesky(S), eigvals: mt.sort(linalg.eigvals(S)), slogdet: (linalg.slogdet(S) as T[])[1]!,
        cond: linalg.cond(S), mixed_solve: linalg.solve(S, y!.get(':3').astype('float64')),
      };
    },
  },
  eig_nonsymmetric: {
    tol: LA,
    run: ({ P, d }) => {
      const A = mt.matmul(mt.matmul(P!, mt.diag(d!)), linalg.inv(P!));
      const [w, V] = linalg.eig(A) as [T, T];
      const order = mt.argsort(w);
      const Vn = V.get(':', order).divide(linalg.norm(V.get(':', order), { axis: 0 }));
      return { w: w.get(order), eigvals: mt.sort(linalg.eigvals(A)), absV: mt.abs(Vn), AV_minus_VW: linalg.norm(mt.matmul(A, V).subtract(V.multiply(w))).less(1e-10) };
    },
  },
  qr_modes: {
    tol: LA,
    run: ({ A }) => {
      const [Qc, Rc] = linalg.qr(A!, { mode: 'complete' }) as [T, T];
      const r = linalg.qr(A!, { mode: 'r' }) as T;
      const [Q, R] = linalg.qr(A!.T) as [T, T];
      return { QcTQc: mt.matmul(Qc.T, Qc), absRc: mt.abs(Rc), absr: mt.abs(r), QR_wide: mt.matmul(Q, R), absR_wide: mt.abs(R) };
    },
  },
  strided_views_matmul: {
    tol: F64, chunk: 2,
    run: ({ A, B, T: Tn }) => ({
      rev: mt.matmul(A!.get('::2, ::-1'), B!.get('1:, :').T), swap: mt.matmul(mt.swapaxes(Tn!, 1, 2), Tn!), row: mt.matmul(A!.get(1), B!.T),
      neg_step: mt.matmul(A!.get('::-1'), A!.get('::-1').T), moveaxis: mt.matmul(mt.moveaxis(Tn!, 0, -1).reshape(4, -1), mt.ones(Tn!.shape[0]! * Tn!.shape[2]!)),
    }),
  },
  matrix_power_variants: {
    tol: LA,
    run: ({ A, I }) => ({
      'p-2': linalg.matrix_power(A!, -2), p0: linalg.matrix_power(A!, 0), p0_int: linalg.matrix_power(I!, 0), p5_int: linalg.matrix_power(I!, 5),
      p3_stack: linalg.matrix_power(mt.stack([A!, A!.T]), 3), p1: linalg.matrix_power(A!, 1),
    }),
  },
  weighted_least_squares: {
    tol: LA,
    run: ({ X, y, w }) => {
      const A = mt.column_stack([mt.ones(y!.shape[0]!), X!]);
      const sw = mt.sqrt(w!);
      const [beta] = linalg.lstsq(A.multiply(sw.get(':, None')), y!.multiply(sw), { rcond: null }) as T[];
      const W = mt.diag(w!);
      const beta2 = linalg.solve(mt.matmul(mt.matmul(A.T, W), A), mt.matmul(mt.matmul(A.T, W), y!));
      const wmean = mt.average(y!, { weights: w! });
      return { beta: beta!, beta2, wmean, wres: mt.average(y!.subtract(mt.matmul(A, beta!)).power(2), { weights: w! }) };
    },
  },
  lda_two_class: {
    tol: LA,
    run: ({ X, labels }) => {
      const m0 = X!.get(labels!.equal(0)).mean({ axis: 0 });
      const m1 = X!.get(labels!.equal(1)).mean({ axis: 0 });
      let Sw = mt.zeros([X!.shape[1]!, X!.shape[1]!]);
      for (const [k, m] of [[0, m0], [1, m1]] as [number, T][]) {
        const D = X!.get(labels!.equal(k)).subtract(m);
        Sw = Sw.add(mt.matmul(D.T, D));
      }
      let wdir = linalg.solve(Sw, m1.subtract(m0));
      wdir = wdir.divide(linalg.norm(wdir));
      const proj = mt.matmul(X!, wdir);
      const thr = mt.matmul(m0, wdir).add(mt.matmul(m1, wdir)).divide(2);
      return { Sw, w: wdir, proj, pred: proj.greater(thr).astype('int64') };
    },
  },
  kernel_pca_centering: {
    tol: LA,
    run: ({ X }) => {
      const sq = mt.sum(X!.power(2), { axis: 1 });
      const D2 = sq.get(':, None').add(sq.get('None, :')).subtract(mt.matmul(mt.multiply(2, X!), X!.T));
      const K = mt.exp(mt.negative(D2).divide(2.0));
      const n = K.shape[0]!;
      const one = mt.full([n, n], 1.0 / n);
      const Kc = K.subtract(mt.matmul(one, K)).subtract(mt.matmul(K, one)).add(mt.matmul(mt.matmul(one, K), one));
      let [w, V] = linalg.eigh(Kc) as [T, T];
      [w, V] = [w.get('::-1'), V.get(':, ::-1')];
      return { Kc, w_top: w.get(':3'), abs_embed: mt.abs(V.get(':, :2').multiply(mt.sqrt(w.get(':2')))) };
    },
  },
  triangle_normals: {
    tol: LA,
    run: ({ V, F }) => {
      const [a, b, c] = [V!.get(F!.get(':, 0')), V!.get(F!.get(':, 1')), V!.get(F!.get(':, 2'))];
      const n = mt.cross(b.subtract(a), c.subtract(a));
      const area = mt.multiply(0.5, linalg.norm(n, { axis: -1 }));
      const unit = n.divide(linalg.norm(n, { axis: -1, keepdims: true }));
      return { n, area, unit, total: area.sum(), cos: mt.einsum('ij,ij->i', unit, unit.get('::-1')) };
    },
  },
  trace_diagonal_offsets: {
    tol: F64,
    run: ({ A, T: Tn }) => ({
      tr1: mt.trace(A!, { offset: 1 }), 'tr-1': mt.trace(A!, -1), trT: mt.trace(Tn!, { axis1: 1, axis2: 2 }), trT02: mt.trace(Tn!, 0, 0, 2),
      diagT: mt.diagonal(Tn!, { axis1: 1, axis2: 2 }), diag_off: mt.diagonal(A!, 1), method: Tn!.trace({ axis1: 1, axis2: 2 }),
      int_tr: mt.trace(mt.arange(9).reshape(3, 3)), bool_tr: mt.trace(mt.eye(3, { dtype: 'bool' })),
    }),
  },
  large_matmul_chunked: {
    tol: F64, chunk: 16,
    run: ({ A, B }) => {
      const C = mt.matmul(A!, B!);
      return { rowsum: C.sum({ axis: 1 }), colmax: C.max({ axis: 0 }), fro: linalg.norm(C), AtA_diag: mt.diag(mt.matmul(A!.T, A!)), C_head: C.get(':5') };
    },
  },
  singular_fallback: {
    tol: LA,
    run: async ({ S, b, K }) => {
      // try/except np.linalg.LinAlgError: the error comes when the run reaches the singular matrix
      let x: T, method: number;
      try {
        x = linalg.solve(S!, b!);
        await x.execute();
        method = 0;
      } catch (e) {
        if (!(e instanceof mt.LinAlgError)) throw e;
        x = (linalg.lstsq(S!, b!, { rcond: null }) as T[])[0]!;
        method = 1;
      }
      let jitter = 0.0;
      let L!: T;
      for (let i = 0; i < 6; i++) {
        try {
          L = linalg.cholesky(K!.add(mt.multiply(jitter, mt.eye(K!.shape[0]!))));
          await L.execute();
          break;
        } catch (e) {
          if (!(e instanceof mt.LinAlgError)) throw e;
          jitter = jitter === 0 ? 1e-3 : jitter * 10;
        }
      }
      return { x, method: mt.asarray(method), jitter: mt.asarray(jitter, { dtype: 'float64' }), L };
    },
  },
  tensorsolve_tensorinv: {
    tol: LA,
    run: ({ M, B }) => {
      const a = M!.add(mt.multiply(3, mt.eye(6))).reshape(6, 2, 3);
      const x = (linalg as unknown as { tensorsolve: (a: T, b: T) => T }).tensorsolve(a, B!);
      const ainv = linalg.tensorinv(a, { ind: 1 });
      return { x, check: mt.tensordot(a, x, { axes: 2 }), x_inv: mt.tensordot(ainv, B!, { axes: 1 }) };
    },
  },
  pca_larger_chunked: {
    tol: LA, chunk: 7,
    run: ({ X }) => {
      const mu = X!.mean({ axis: 0 });
      const Xc = X!.subtract(mu);
      const [U, S, Vt] = linalg.svd(Xc, { full_matrices: false }) as [T, T, T];
      const ratio = S.power(2).divide(mt.sum(S.power(2)));
      const k = 3;
      const recon = mt.matmul(mt.matmul(U.get(`:, :${k}`), mt.diag(S.get(`:${k}`))), Vt.get(`:${k}`)).add(mu);
      const w = linalg.eigvalsh(mt.cov(X!, { rowvar: false })).get('::-1');
      return {
        S, ratio, abs_scores_head: mt.abs(mt.matmul(Xc, Vt.get(`:${k}`).T)).get(':10'), recon_head: recon.get(':10'), w,
        mse: mt.mean(X!.subtract(recon).power(2)),
      };
    },
  },
  eigh_16: {
    tol: LA,
    run: ({ X }) => {
      const C = mt.cov(X!, { rowvar: false });
      const [w, V] = linalg.eigh(C) as [T, T];
      return {
        w, absV_top: mt.abs(V.get(':, -3:')), recon_head: mt.matmul(V.multiply(w), V.T).get(':3'),
        VtV_is_eye: mt.allclose(mt.matmul(V.T, V), mt.eye(w.shape[0]!), { rtol: 0, atol: 1e-12 }),
      };
    },
  },
  float16_cosine: {
    tol: F64,
    run: ({ X }) => {
      const Xn = X!.divide(linalg.norm(X!, { axis: 1, keepdims: true }));
      const S = mt.matmul(Xn, Xn.T);
      return { norms: linalg.norm(X!, { axis: 1 }), Xn, S, dot: mt.dot(X!.get(0), X!.get(1)) };
    },
  },
  markov_eig_stationary: {
    tol: LA,
    run: ({ W: W0 }) => {
      const W = W0!.add(W0!.T);
      const P = W.divide(W.sum({ axis: 1, keepdims: true }));
      const [w, V] = linalg.eig(P.T) as [T, T];
      const i = mt.argmin(mt.abs(w.subtract(1)));
      let pi = mt.real(V.get(':', i));
      pi = pi.divide(pi.sum());
      return { w_sorted: mt.sort(w), pi, piP: mt.matmul(pi, P), deg_ratio: W.sum({ axis: 1 }).divide(W.sum()) };
    },
  },
};

describe('linear-algebra and ML programs against NumPy', () => {
  it('covers every program of the fixture', () => {
    expect(Object.keys(programs).sort()).toEqual(fixture.map((p) => p.name).sort());
  });
  for (const [name, prog] of Object.entries(programs)) {
    it(name, async () => {
      const p = byName.get(name)!;
      expect(await compare(p, await prog.run(inputs(p)), prog.tol)).toEqual([]);
    });
  }
});

describe('the same programs over small chunks', () => {
  for (const [name, prog] of Object.entries(programs)) {
    if (prog.chunk === undefined) continue;
    it(`${name} (chunkSize ${prog.chunk})`, async () => {
      const p = byName.get(name)!;
      expect(await compare(p, await prog.run(inputs(p, prog.chunk)), prog.tol)).toEqual([]);
    });
  }
});
