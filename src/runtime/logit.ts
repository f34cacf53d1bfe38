// The routine of logistic regression (learn/logistic.ts): one pass over a
// block of rows gives the block's share of everything a Newton step needs,
// each call writing one float64 row, so that only those numbers travel to the
// combine (a sum by the tree):
//   logit  mode 'newton': at parameters theta (K × D, D = d + 1, the
//          intercept last), the block's weighted log loss, gradient and
//          Hessian: one row [loss | K·D gradient | K(K+1)/2 class pairs
//          (k ≤ l) × the upper triangle of their D × D block, row-major |
//          the weight of the rows read | the weight of the rows the Hessian
//          summed]; the Hessian sums every `hstride`-th batch of BATCH rows
//          of the block (0: none), so that the host may take it from a
//          sample, scaled by the two weights;
//          mode 'loss': the block's weighted log loss at theta − t·dir for
//          t = 1, 1/2, 1/4, … (`steps` of them), and the weight of the rows
//          read: one row of steps + 1 numbers, so that a backtracking line
//          search is one pass.
//          Both read every `every`-th batch only (1: all): a sample of X.
// K = 1 is the binary loss (sigmoid) of the rows whose class is `target`
// against the rest; K > 1 the multinomial one (softmax) over classes 0..K−1.
// The loss is computed stably: log(1 + e^z) − y·z as max(z, 0) + log1p(e^−|z|)
// − y·z, and the softmax's log-sum-exp after subtracting the largest score.
// The Hessian of a row is c_kl · x xᵀ with c_kl = s·p_k(δ_kl − p_l) (binary:
// s·p(1 − p)), so only the upper triangle of x xᵀ is summed, once per class
// pair, over a batch's gathered columns (the intercept's column of 1s last).
// The order of the sums is fixed by the block: the result is deterministic.
// In: the rows (n × d float64, a box of whole rows), each row's class index
// (n float64), theta (1 × K·D; 'loss': 2 × K·D, theta then dir), and, when
// weighted, one float64 weight per row. Out: one partial row per call.

import type { RoutineParams } from '../graph/node.js';
import { type Region, type RegionSpec, type Routine, flag, onlyParams } from './region.js';

interface Dims { K: number; d: number; D: number; target: number; weighted: boolean; mode: 'newton' | 'loss'; steps: number; hstride: number; every: number }

function dims(params: RoutineParams): Dims {
  onlyParams(params, ['K', 'd', 'target', 'weighted', 'mode', 'steps', 'hstride', 'every']);
  const { K, d, target, mode, steps, hstride, every } = params;
  const count = (v: unknown, name: string, min: number): number => {
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min) throw new TypeError(`routine parameter ${name} must be an integer of at least ${min}`);
    return v;
  };
  if (mode !== 'newton' && mode !== 'loss') throw new TypeError("routine parameter mode must be 'newton' or 'loss'");
  const k = count(K, 'K', 1), dd = count(d, 'd', 1);
  return {
    K: k, d: dd, D: dd + 1, target: k === 1 ? count(target, 'target', 0) : -1, weighted: flag(params, 'weighted'), mode,
    steps: mode === 'loss' ? count(steps, 'steps', 1) : 0, hstride: mode === 'newton' ? count(hstride, 'hstride', 0) : 0,
    every: count(every, 'every', 1),
  };
}

/** The width of a 'newton' row: loss, gradient, and the upper triangles of the class pairs' Hessian blocks. */
export function newtonWidth(K: number, d: number): number {
  const D = d + 1;
  return 1 + K * D + ((K * (K + 1)) / 2) * ((D * (D + 1)) / 2) + 2;
}

function checkInputs(p: Dims, inputs: readonly RegionSpec[], output: RegionSpec): void {
  if (inputs.length !== (p.weighted ? 4 : 3)) throw new TypeError('logit reads the rows, their classes, theta (and the weights)');
  const [x, y, th, w] = inputs;
  if (x!.dtype !== 'float64' || x!.shape.length !== 2 || x!.shape[1] !== p.d) throw new TypeError(`logit reads rows as a float64 [n, ${p.d}] region`);
  const n = x!.shape[0];
  if (y!.dtype !== 'float64' || y!.shape.length !== 1 || y!.shape[0] !== n) throw new TypeError('logit reads one float64 class index per row');
  const rows = p.mode === 'loss' ? 2 : 1;
  if (th!.dtype !== 'float64' || th!.shape.length !== 2 || th!.shape[0] !== rows || th!.shape[1] !== p.K * p.D) {
    throw new TypeError(`logit reads theta as a float64 [${rows}, ${p.K * p.D}] region`);
  }
  if (w && (w.dtype !== 'float64' || w.shape.length !== 1 || w.shape[0] !== n)) throw new TypeError('logit reads one float64 weight per row');
  const width = p.mode === 'loss' ? p.steps + 1 : newtonWidth(p.K, p.d);
  if (output.dtype !== 'float64' || output.shape.length !== 2 || output.shape[0] !== 1 || output.shape[1] !== width) {
    throw new TypeError(`logit writes one float64 [1, ${width}] row`);
  }
}

/** Row `r` of theta's region as one dense array. */
function paramRow(th: Region, r: number, len: number): Float64Array {
  const out = new Float64Array(len);
  for (let i = 0; i < len; i++) out[i] = th.data[r * th.strides[0]! + i * th.strides[1]!] as number;
  return out;
}

/** The scores z_k = θ_k · (x, 1) of the row in `xr` (which holds its 1 last). */
function score(xr: Float64Array, theta: Float64Array, K: number, D: number, z: Float64Array): void {
  for (let k = 0; k < K; k++) {
    let s = 0;
    const o = k * D;
    for (let f = 0; f < D; f++) s += xr[f]! * theta[o + f]!;
    z[k] = s;
  }
}

/** The softmax of z (into p) and its log-sum-exp, after subtracting the largest score. */
function softmax(z: Float64Array, K: number, p: Float64Array): number {
  let m = -Infinity;
  for (let k = 0; k < K; k++) if (z[k]! > m) m = z[k]!;
  let sum = 0;
  for (let k = 0; k < K; k++) { const e = Math.exp(z[k]! - m); p[k] = e; sum += e; }
  for (let k = 0; k < K; k++) p[k]! /= sum;
  return m + Math.log(sum);
}

/** Rows a 'newton' pass gathers before folding them into the gradient and the Hessian. */
const BATCH = 64;

/**
 * Adds Σ_j u[uo + j]·x_b[j] over the batch's nb rows to out[at + b − a] for
 * the columns b = a … D − 1 of xt: four columns side by side, four sums in
 * flight rather than one chain of dependent adds.
 */
function dots(u: Float64Array, uo: number, xt: Float64Array, a: number, D: number, nb: number, out: Float64Array, at: number): void {
  let b = a, i = at;
  for (; b + 3 < D; b += 4, i += 4) {
    let h0 = 0, h1 = 0, h2 = 0, h3 = 0;
    const o0 = b * BATCH, o1 = o0 + BATCH, o2 = o1 + BATCH, o3 = o2 + BATCH;
    for (let j = 0; j < nb; j++) {
      const v = u[uo + j]!;
      h0 += v * xt[o0 + j]!; h1 += v * xt[o1 + j]!; h2 += v * xt[o2 + j]!; h3 += v * xt[o3 + j]!;
    }
    out[i]! += h0; out[i + 1]! += h1; out[i + 2]! += h2; out[i + 3]! += h3;
  }
  for (; b < D; b++, i++) {
    let h = 0;
    const bo = b * BATCH;
    for (let j = 0; j < nb; j++) h += u[uo + j]! * xt[bo + j]!;
    out[i]! += h;
  }
}

/**
 * A call's rows, classes and weights as plain arrays and strides, built in
 * one place so that every loop meets one shape of object (the regions'
 * objects vary with where their memory came from); without weights, wd is
 * empty and ws 0.
 */
interface Rows { xd: Float64Array; s0: number; s1: number; yd: Float64Array; ys: number; wd: Float64Array; ws: number; weighted: boolean }

function rowsOf(x: Region, y: Region, w: Region | undefined): Rows {
  return {
    xd: x.data as Float64Array, s0: x.strides[0]!, s1: x.strides[1]!, yd: y.data as Float64Array, ys: y.strides[0]!,
    wd: (w?.data as Float64Array | undefined) ?? new Float64Array(0), ws: w?.strides[0] ?? 0, weighted: !!w,
  };
}

/**
 * The rows [r0, r1) of one batch whose Hessian is not summed, folded into
 * the loss and the gradient only: row by row, as the gradient's K·D sums
 * stay in L1 and need no gathered columns; binary two rows at a time, whose
 * scores' sums then proceed side by side. acc: [loss, weight].
 */
function gradientRows(
  p: Dims, theta: Float64Array, rw: Rows, r0: number, r1: number, g: Float64Array, acc: Float64Array,
): void {
  const { K, d, D } = p;
  const { xd, s0, s1, yd, ys, wd, ws, weighted } = rw;
  let loss = 0, weight = 0;
  if (K === 1) {
    // unweighted, the rows' log1p(e^−|z|) sum as the log of the product of their 1 + e^−|z| (each in (1, 2], so
    // 64 rows' product stays finite; its rounding, eps/2 a row, is the order of the sum's own): one log, not a log1p a row
    let prod = 1;
    const b = theta[d]!;
    let r = r0;
    for (; r + 1 < r1; r += 2) {
      const ra = r * s0, rb = ra + s0;
      let za = b, zb = 0;
      for (let f = 0; f < d; f++) { const t = theta[f]!; za += xd[ra + f * s1]! * t; zb += xd[rb + f * s1]! * t; }
      zb += b;
      const sa = weighted ? wd[r * ws]! : 1, sb = weighted ? wd[(r + 1) * ws]! : 1;
      const ya = yd[r * ys] === p.target ? 1 : 0, yb = yd[(r + 1) * ys] === p.target ? 1 : 0;
      const ea = Math.exp(-Math.abs(za)), eb = Math.exp(-Math.abs(zb));
      const pa = za >= 0 ? 1 / (1 + ea) : ea / (1 + ea), pb = zb >= 0 ? 1 / (1 + eb) : eb / (1 + eb);
      if (!weighted) {
        loss += (za > 0 ? za : 0) - ya * za + (zb > 0 ? zb : 0) - yb * zb;
        prod *= (1 + ea) * (1 + eb);
      } else {
        if (sa !== 0) loss += sa * ((za > 0 ? za : 0) + Math.log1p(ea) - ya * za);
        if (sb !== 0) loss += sb * ((zb > 0 ? zb : 0) + Math.log1p(eb) - yb * zb);
      }
      weight += sa + sb;
      const qa = sa * (pa - ya), qb = sb * (pb - yb);
      for (let f = 0; f < d; f++) g[f]! += qa * xd[ra + f * s1]! + qb * xd[rb + f * s1]!;
      g[d]! += qa + qb;
    }
    if (r < r1) {
      const ra = r * s0;
      let za = b;
      for (let f = 0; f < d; f++) za += xd[ra + f * s1]! * theta[f]!;
      const sa = weighted ? wd[r * ws]! : 1, ya = yd[r * ys] === p.target ? 1 : 0;
      const ea = Math.exp(-Math.abs(za)), pa = za >= 0 ? 1 / (1 + ea) : ea / (1 + ea);
      if (sa !== 0) loss += sa * ((za > 0 ? za : 0) + Math.log1p(ea) - ya * za);
      weight += sa;
      const qa = sa * (pa - ya);
      for (let f = 0; f < d; f++) g[f]! += qa * xd[ra + f * s1]!;
      g[d]! += qa;
    }
    loss += Math.log(prod);
  } else {
    const xr = new Float64Array(D), z = new Float64Array(K), pr = new Float64Array(K);
    xr[d] = 1;
    for (let r = r0; r < r1; r++) {
      const ro = r * s0, s = weighted ? wd[r * ws]! : 1;
      weight += s;
      for (let f = 0; f < d; f++) xr[f] = xd[ro + f * s1]!;
      score(xr, theta, K, D, z);
      const cls = yd[r * ys]!;
      const lse = softmax(z, K, pr);
      if (s !== 0) loss += s * (lse - z[cls]!);
      for (let k = 0; k < K; k++) {
        const q = s * (pr[k]! - (k === cls ? 1 : 0));
        for (let f = 0; f < D; f++) g[k * D + f]! += q * xr[f]!;
      }
    }
  }
  acc[0]! += loss; acc[1]! += weight;
}

/**
 * The block's loss, gradient and Hessian pairs at theta (mode 'newton'), and
 * the sums of the weights of all rows and of the rows the Hessian summed.
 * The Hessian sums only every `hstride`-th batch of the block (all of them
 * at 1, none at 0): a Newton step needs the Hessian only as the metric of
 * its step, so a large X's may come from a sample of its rows (the host
 * scales it by the weights' ratio) while the loss and the gradient, which
 * fix the optimum, are exact. A batch with the Hessian is gathered column by
 * column (hessianBatch), one without folded row by row (gradientRows).
 */
function newton(p: Dims, x: Region, y: Region, th: Region, w: Region | undefined, out: Float64Array): void {
  const { K, D, hstride } = p;
  const theta = paramRow(th, 0, K * D), n = x.shape[0]!;
  const pairs = (K * (K + 1)) / 2, end = 1 + K * D + pairs * ((D * (D + 1)) / 2);
  const b = batchOf(p), rw = rowsOf(x, y, w);
  // acc: [loss, weight] of the rows folded without the Hessian, then [loss, weight, sampled weight] of the others
  const g = new Float64Array(K * D), acc = new Float64Array(2), bacc = new Float64Array(3);
  // each kind of batch in a function of its own, so that the JIT meets each with the types of its own loop
  for (let r0 = 0, batch = 0; r0 < n; r0 += BATCH, batch++) {
    if (batch % p.every) continue;
    const nb = Math.min(BATCH, n - r0);
    if (hstride > 0 && batch % hstride === 0) hessianBatch(p, theta, rw, r0, nb, b, out, bacc);
    else gradientRows(p, theta, rw, r0, r0 + nb, g, acc);
  }
  for (let i = 0; i < K * D; i++) out[1 + i]! += g[i]!;
  out[0] = bacc[0]! + acc[0]!;
  out[end] = bacc[1]! + acc[1]!;
  out[end + 1] = bacc[2]!;
}

/**
 * The arrays of a batch: xt its columns (column a at a·BATCH, the
 * intercept's 1s last); zb scores per class; res s(p_k − y_k) per class; cw
 * s·p_k(δ_kl − p_l) per class pair (k ≤ l); u a weighted column.
 */
interface Batch { xt: Float64Array; zb: Float64Array; res: Float64Array; cw: Float64Array; u: Float64Array; z: Float64Array; pr: Float64Array }

function batchOf(p: Dims): Batch {
  const { K, d, D } = p, pairs = (K * (K + 1)) / 2;
  const xt = new Float64Array(D * BATCH);
  xt.fill(1, d * BATCH);
  return {
    xt, zb: new Float64Array(K * BATCH), res: new Float64Array(K * BATCH), cw: new Float64Array(pairs * BATCH), u: new Float64Array(BATCH),
    z: new Float64Array(K), pr: new Float64Array(K),
  };
}

/**
 * One batch of nb rows from r0 folded into the loss, gradient and Hessian:
 * gathered column by column, scored and weighted per row, then each gradient
 * and Hessian entry adds one dot product over the batch, four entries side
 * by side, rather than a load and a store of every entry for every row.
 */
function hessianBatch(
  p: Dims, theta: Float64Array, rw: Rows, r0: number, nb: number, b: Batch, out: Float64Array, acc: Float64Array,
): void {
  const { K, d, D } = p, pairs = (K * (K + 1)) / 2;
  const { xt, zb, res, cw, u } = b;
  const { xd, s0, s1 } = rw;
  for (let j = 0; j < nb; j++) {
    const ro = (r0 + j) * s0;
    for (let f = 0; f < d; f++) xt[f * BATCH + j] = xd[ro + f * s1]!;
  }
  for (let k = 0; k < K; k++) {
    const zo = k * BATCH;
    zb.fill(theta[k * D + d]!, zo, zo + nb);
    for (let a = 0; a < d; a++) {
      const t = theta[k * D + a]!, xo = a * BATCH;
      for (let j = 0; j < nb; j++) zb[zo + j]! += t * xt[xo + j]!;
    }
  }
  if (K === 1) weighBinary(p, rw, r0, nb, b, acc); else weighSoftmax(p, rw, r0, nb, b, acc);
  for (let k = 0; k < K; k++) dots(res, k * BATCH, xt, 0, D, nb, out, 1 + k * D);
  let i = 1 + K * D;
  for (let q = 0; q < pairs; q++) {
    const co = q * BATCH;
    for (let a = 0; a < D; a++) {
      const xo = a * BATCH;
      for (let j = 0; j < nb; j++) u[j] = cw[co + j]! * xt[xo + j]!;
      dots(u, 0, xt, a, D, nb, out, i);
      i += D - a;
    }
  }
}

/** A binary batch's loss, residuals and Hessian weights from its scores; acc: [loss, weight, sampled weight]. */
function weighBinary(p: Dims, rw: Rows, r0: number, nb: number, b: Batch, acc: Float64Array): void {
  const { zb, res, cw } = b;
  const { yd, ys, wd, ws, weighted } = rw;
  let loss = 0, bw = 0;
  for (let j = 0; j < nb; j++) {
    const r = r0 + j, s = weighted ? wd[r * ws]! : 1;
    bw += s;
    const zz = zb[j]!, yv = yd[r * ys] === p.target ? 1 : 0;
    const e = Math.exp(-Math.abs(zz));
    const pp = zz >= 0 ? 1 / (1 + e) : e / (1 + e);
    if (s !== 0) loss += s * ((zz > 0 ? zz : 0) + Math.log1p(e) - yv * zz);
    res[j] = s * (pp - yv);
    cw[j] = s * pp * (1 - pp);
  }
  acc[0]! += loss; acc[1]! += bw; acc[2]! += bw;
}

/** A multinomial batch's loss, residuals and Hessian weights from its scores; acc: [loss, weight, sampled weight]. */
function weighSoftmax(p: Dims, rw: Rows, r0: number, nb: number, b: Batch, acc: Float64Array): void {
  const { K } = p, { zb, res, cw, z, pr } = b;
  const { yd, ys, wd, ws, weighted } = rw;
  let loss = 0, bw = 0;
  for (let j = 0; j < nb; j++) {
    const r = r0 + j, s = weighted ? wd[r * ws]! : 1;
    bw += s;
    const cls = yd[r * ys]!;
    for (let k = 0; k < K; k++) z[k] = zb[k * BATCH + j]!;
    const lse = softmax(z, K, pr);
    if (s !== 0) loss += s * (lse - z[cls]!);
    for (let k = 0, q = 0; k < K; k++) {
      res[k * BATCH + j] = s * (pr[k]! - (k === cls ? 1 : 0));
      for (let l = k; l < K; l++, q++) cw[q * BATCH + j] = s * pr[k]! * ((k === l ? 1 : 0) - pr[l]!);
    }
  }
  acc[0]! += loss; acc[1]! += bw; acc[2]! += bw;
}

/** The block's loss at theta − t·dir for t = 1, 1/2, … (mode 'loss'). */
function losses(p: Dims, x: Region, y: Region, th: Region, w: Region | undefined, out: Float64Array): void {
  const { K, d, D, steps } = p;
  const theta = paramRow(th, 0, K * D), dir = paramRow(th, 1, K * D);
  const n = x.shape[0]!, { xd, s0, s1, yd, ys, wd, ws, weighted } = rowsOf(x, y, w);
  const xr = new Float64Array(D), z0 = new Float64Array(K), zd = new Float64Array(K), z = new Float64Array(K), pr = new Float64Array(K);
  xr[d] = 1;
  let weight = 0;
  for (let r = 0; r < n; r++) {
    if (((r / BATCH) | 0) % p.every) { r += BATCH - 1; continue; }
    const ro = r * s0;
    for (let f = 0; f < d; f++) xr[f] = xd[ro + f * s1]!;
    const s = weighted ? wd[r * ws]! : 1;
    weight += s;
    if (s === 0) continue;
    score(xr, theta, K, D, z0);
    score(xr, dir, K, D, zd);
    const cls = yd[r * ys]!;
    let t = 1;
    for (let j = 0; j < steps; j++, t /= 2) {
      if (K === 1) {
        const zz = z0[0]! - t * zd[0]!, yv = cls === p.target ? 1 : 0;
        out[j]! += s * ((zz > 0 ? zz : 0) + Math.log1p(Math.exp(-Math.abs(zz))) - yv * zz);
      } else {
        for (let k = 0; k < K; k++) z[k] = z0[k]! - t * zd[k]!;
        out[j]! += s * (softmax(z, K, pr) - z[cls]!);
      }
    }
  }
  out[steps] = weight;
}

export const LOGIT_ROUTINES: Readonly<Record<'logit', Routine>> = {
  logit: {
    check(params, inputs, output) {
      checkInputs(dims(params), inputs, output);
    },
    run(params, [x, y, th, w], out) {
      const p = dims(params);
      const acc = new Float64Array(out.shape[1]!);
      if (p.mode === 'newton') newton(p, x!, y!, th!, w, acc); else losses(p, x!, y!, th!, w, acc);
      const o = out.data as Float64Array, s = out.strides[1]!;
      for (let i = 0; i < acc.length; i++) o[i * s] = acc[i]!;
    },
  },
};
