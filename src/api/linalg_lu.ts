// The tiled LU with tournament pivoting (CALU, Grigori, Demmel and Xiang) of
// a square matrix, as routine nodes whose calls are the task DAG (as
// ./linalg_tiled.ts's Cholesky: each call writes one chunk once, reading a
// few tiles; runtime/lutiles.ts has the routines), and scipy.linalg.lu and
// np.linalg.solve, inv, det and slogdet through it. Nothing gathers the
// matrix: the widest read is one block column's tiles.
// Step k (right-looking): a tournament over panel column k's tiles from k
// down (a binary tree of combines, each a partial-pivoting GETRF of two
// tiles' or two candidate sets' rows stacked, keeping T rows; a square
// tile's own GETRF would keep all its rows, so the leaves are the tiles;
// the root factors the winners: L_kk, U_kk and the pivot order), then, with
// the step's row swaps fused in, L_ik = swap(A_ik) U_kk⁻¹, U_kj = L_kk⁻¹
// gather(k, j) (kept transposed: the update's GEMM reads it in place) and
// the trailing update A_ij − L_ik U_kj. The tournament costs about n²T
// multiply-adds beside the LU's n³/3, at GETRF's rate. Every version of a
// tile is a chunk of one workspace node ([V·T, T + 1]: a tile in the
// top-left, a candidate set or a step's record as [row index, values]). L's earlier block columns are kept
// as the steps wrote them: its output tiles apply the later steps' swaps as
// they copy (reading the block column's raw tiles and those steps' indices).
// The pivots may differ from LAPACK's partial pivoting (the tournament picks
// the rows of a well-conditioned block, not each column's largest entry), so
// |L| may pass 1 below the diagonal tiles (CALU's growth is bounded, and
// about partial pivoting's in practice); where a column's largest entry is
// far ahead of the rest, both pick it, and the factors are LAPACK's.
// In: float64 or float32 square Tensors of known shape. Out: lazy Tensors.

import * as G from '../graph/node.js';
import { MAX_CHUNKS } from '../graph/shape.js';
import { Tensor, add, all, arange, astype, equal, eye, isfinite, multiply, prod, reshape, sum, take, tril, triu, where } from './core.js';
import { MIN_TILE, tiledTriangularSolve, versions } from './linalg_tiled.js';

type Box = readonly (readonly [number, number])[];
type Read = { input: number; box: Box };

/** The parts of a tiled LU: L, U (n×n, T×T tiles), the permutation (perm[x]: the row of a at row x of L U; float64 [n]) and the per-step det record. */
export interface LuTiles { L: Tensor; U: Tensor; perm: Tensor; det: Tensor; T: number }

/**
 * The tile side for the LU of an n×n matrix chunked `chunk`: the chunk's side (at least MIN_TILE), doubled while
 * the workspace would pass half an array's chunk limit.
 */
export function luTileSize(n: number, chunk: readonly number[]): number {
  const [c0, c1] = chunk as [number, number];
  let t = Math.max(MIN_TILE, Math.min(c0, c1));
  // the workspace holds about nt³/3 + 3nt² chunks
  while (t < n && (Math.ceil(n / t) ** 3) / 3 + 3 * Math.ceil(n / t) ** 2 > MAX_CHUNKS / 2) t *= 2;
  return Math.min(n, t);
}

/** [lo, hi) of tile k of side T along an axis of length n. */
const span = (k: number, T: number, n: number): [number, number] => [k * T, Math.min(n, (k + 1) * T)];

/**
 * The CALU DAG of an n×n float64 or float32 `a` over T×T tiles (see the
 * header): the workspace node, then L, U, the permutation and det's records.
 */
export function tiledLu(a: Tensor, T: number): LuTiles {
  const n = a.shape[0]!;
  const SELF = 1;
  const { nt, len, latest, cur } = versions(n, T, SELF);
  const calls: G.RoutineCall[] = [];
  const at = (v: number, rows: number, c0: number, c1: number): Read => ({ input: SELF, box: [[v * T, v * T + rows], [c0, c1]] });
  const push = (routine: string, params: G.RoutineParams, reads: Read[]): number => {
    calls.push({ routine, params, reads, chunk: calls.length });
    return calls.length - 1;
  };
  const rec: number[] = [];
  const rawL: number[][] = [];
  const rowU: number[][] = [];
  for (let k = 0; k < nt; k++) {
    const c = len(k), k0 = k * T;
    // the tournament's players: the panel's tiles (their first rows), then the candidate sets combines wrote (−1)
    let level: [Read, number][] = Array.from({ length: nt - k }, (_, q) => [cur(k + q, k), (k + q) * T]);
    const tourn = (pair: [Read, number][], root: boolean): [Read, number] =>
      [at(push('lutourn', { cols: c, root, rows0: pair.map((p) => p[1]) }, pair.map((p) => p[0])), c, 0, c + 1), -1];
    while (level.length > 2) {
      const next: [Read, number][] = [];
      for (let q = 0; q < level.length; q += 2) next.push(q + 1 < level.length ? tourn([level[q]!, level[q + 1]!], false) : level[q]!);
      level = next;
    }
    const r = calls.length;
    tourn(level, true);
    rec[k] = r;
    const record = at(r, c, 0, c + 1), idx = at(r, c, 0, 1);
    rawL[k] = [];
    rowU[k] = [];
    for (let i = k + 1; i < nt; i++) rawL[k]![i] = push('lucol', { k0, row0: i * T }, [cur(i, k), cur(k, k), record]);
    const rows0 = Array.from({ length: nt - k }, (_, q) => (k + q) * T);
    for (let j = k + 1; j < nt; j++) rowU[k]![j] = push('lurow', { k0, rows0 }, [record, ...rows0.map((_, q) => cur(k + q, j))]);
    for (let i = k + 1; i < nt; i++) {
      for (let j = k + 1; j < nt; j++) {
        const reads = [cur(i, j), cur(k, j), idx, at(rawL[k]![i]!, len(i), 0, c), at(rowU[k]![j]!, len(j), 0, c)];
        latest.set(i * nt + j, push('luupdate', { k0, row0: i * T }, reads));
      }
    }
  }
  const work = G.routine('linalg.lu.tiles', [a.node], calls, a.dtype, [calls.length * T, T + 1], [T, T + 1]);
  const W = 0;
  const wat = (v: number, rows: number, c0: number, c1: number): Read => ({ input: W, box: [[v * T, v * T + rows], [c0, c1]] });
  const lcalls: G.RoutineCall[] = [], ucalls: G.RoutineCall[] = [];
  for (let i = 0; i < nt; i++) {
    for (let j = 0; j < nt; j++) {
      const chunk = i * nt + j;
      const zero = { routine: 'zero', params: {}, reads: [], chunk };
      const diag = (part: string): G.RoutineCall => ({ routine: 'lutri', params: { part }, reads: [wat(rec[i]!, len(i), 1, len(i) + 1)], chunk });
      lcalls.push(j > i ? zero : j === i ? diag('L') : {
        routine: 'lulower', params: { row0: i * T, first: j + 1, T, tiles: nt - j - 1 }, chunk,
        reads: [
          ...Array.from({ length: nt - j - 1 }, (_, q) => wat(rawL[j]![j + 1 + q]!, len(j + 1 + q), 0, len(j))),
          ...Array.from({ length: i - j }, (_, q) => wat(rec[j + 1 + q]!, len(j + 1 + q), 0, 1)),
        ],
      });
      ucalls.push(j < i ? zero : j === i ? diag('U') : { routine: 'lutrans', params: {}, reads: [wat(rowU[i]![j]!, len(j), 0, len(i))], chunk });
    }
  }
  const L = new Tensor(G.routine('linalg.lu.l', [work], lcalls, a.dtype, [n, n], [T, T]));
  const U = new Tensor(G.routine('linalg.lu.u', [work], ucalls, a.dtype, [n, n], [T, T]));
  const perm = new Tensor(G.routine('linalg.lu.perm', [work], Array.from({ length: nt }, (_, c) => ({
    routine: 'luperm', params: { T, row0: c * T }, chunk: c, reads: Array.from({ length: c + 1 }, (_, s) => wat(rec[s]!, len(s), 0, 1)),
  })), 'float64', [n], [T]));
  const det = new Tensor(G.routine('linalg.lu.det', [work], Array.from({ length: nt }, (_, k) => ({
    routine: 'ludet', params: { k0: k * T }, chunk: k, reads: [wat(rec[k]!, len(k), 0, len(k) + 1)],
  })), a.dtype, [nt, 4], [1, 4]));
  return { L, U, perm, det, T };
}

/** The permutation matrix P (a = P L U: P[perm[c], c] = 1), or Pᵀ, of dtype `dtype` over T×T tiles: each tile reads one chunk of perm. */
export function permutationMatrix(perm: Tensor, T: number, dtype: 'float64' | 'float32', transposed: boolean): Tensor {
  const n = perm.shape[0]!, nt = Math.ceil(n / T);
  const calls: G.RoutineCall[] = [];
  for (let i = 0; i < nt; i++) {
    for (let j = 0; j < nt; j++) {
      const p = transposed ? i : j;
      const params = { transpose: transposed, offset: (transposed ? j : i) * T };
      calls.push({ routine: 'lupmat', params, chunk: i * nt + j, reads: [{ input: 0, box: [span(p, T, n)] }] });
    }
  }
  return new Tensor(G.routine(transposed ? 'linalg.lu.pt' : 'linalg.lu.p', [perm.node], calls, dtype, [n, n], [T, T]));
}

/** Pᵀ b: b's rows gathered by the permutation (row x is b[perm[x]]), over T rows and b's column chunks; each tile reads b's block column. */
export function permuteRows(perm: Tensor, b: Tensor, T: number): Tensor {
  const [n, k] = b.shape as [number, number];
  const W = Math.max(1, Math.min(k, b.node.chunk[1]!));
  const nt = Math.ceil(n / T), nc = Math.ceil(k / W);
  const rows0 = Array.from({ length: nt }, (_, q) => q * T);
  const calls: G.RoutineCall[] = [];
  for (let i = 0; i < nt; i++) {
    for (let c = 0; c < nc; c++) {
      calls.push({
        routine: 'lurows', params: { rows0 }, chunk: i * nc + c,
        reads: [{ input: 0, box: [span(i, T, n)] }, ...rows0.map((_, q) => ({ input: 1, box: [span(q, T, n), span(c, W, k)] as Box }))],
      });
    }
  }
  return new Tensor(G.routine('linalg.lu.rows', [perm.node, b.node], calls, b.dtype, [n, k], [T, W]));
}

/** scipy.linalg.lu's check_finite: `a`, once the run has found no inf or NaN in it (ValueError 'array must not contain infs or NaNs'). */
export function finiteChecked(a: Tensor): Tensor {
  const ok = new Tensor(G.check(all(isfinite(a)).node, 'nonzero', 'RangeError', 'array must not contain infs or NaNs'));
  return where(ok, a, a);
}

/**
 * scipy.linalg.lu(a, permute_l, p_indices): [P, L, U] with a = P L U, or [P L, U], over tiles (see the header); with
 * `pIndices` P is SciPy 1.11's int32 row indices p, a = L[p] U (where each row of a went: perm's inverse).
 */
export function tiledLuParts(a: Tensor, T: number, permuteL: boolean, pIndices = false): Tensor[] {
  const { L, U, perm } = tiledLu(a, T);
  const dtype = a.dtype as 'float64' | 'float32';
  if (!permuteL) return [pIndices ? astype(inversePermutation(perm, T), 'int32') : permutationMatrix(perm, T, dtype, false), L, U];
  // P L: L's rows scattered back to a's order, as Pᵀ's rows are: (P L)[perm[x]] = L[x], i.e. the rows of L gathered by perm's inverse
  return [permuteRows(inversePermutation(perm, T), L, T), U];
}

/**
 * scipy.linalg.lu of a one-chunk m×n matrix of any shape, in one task (the `lugetrf` routine: LAPACK's getrf), its
 * parts sliced out: [P, L, U] (P m×m, L m×k unit lower trapezoidal, U k×n upper, k = min(m, n)), [P L, U], or p_indices.
 */
export function oneChunkLu(a: Tensor, permuteL: boolean, pIndices: boolean): Tensor[] {
  const [m, n] = a.shape as [number, number];
  const k = Math.min(m, n);
  const packed = new Tensor(G.routine('linalg.lu.getrf', [a.node], [{ routine: 'lugetrf', params: {}, chunk: 0, reads: [{ input: 0, box: [[0, m], [0, n]] }] }],
    a.dtype, [m, n + 2], [m, n + 2]));
  const lu = packed.get(':, 2:');
  const L = add(tril(lu.get(`:, :${k}`), -1), eye(m, k, { dtype: a.dtype }));
  const U = triu(lu.get(`:${k}`));
  const inv = astype(packed.get(':, 1'), 'int32');
  if (permuteL) return [take(L, inv, { axis: 0 }), U];
  if (pIndices) return [inv, L, U];
  return [astype(equal(reshape(arange(m), [m, 1]), reshape(packed.get(':, 0'), [1, m])), a.dtype), L, U];
}

/** The inverse of a permutation vector (inv[perm[c]] = c): P's rows dotted with 0..n−1, over P's tiles (n² multiply-adds, no gather). */
function inversePermutation(perm: Tensor, T: number): Tensor {
  const n = perm.shape[0]!;
  return sum(multiply(permutationMatrix(perm, T, 'float64', false), arange(n, { dtype: 'float64' })), { axis: 1 });
}

/** np.linalg.solve(a, b) over the tiled LU: Pᵀ b, then L y = Pᵀ b and U x = y (exact zero on U's diagonal: LinAlgError('Singular matrix')). */
export function tiledSolve(a: Tensor, b: Tensor, T: number): Tensor {
  const { L, U, perm, det } = tiledLu(a, T);
  const y = tiledTriangularSolve(L, permuteRows(perm, b, T), true, true, T);
  return tiledTriangularSolve(U, nonsingular(det, y), false, false, T);
}

/** np.linalg.inv(a) over the tiled LU: L Y = Pᵀ, U X = Y, Pᵀ built tile by tile. */
export function tiledInv(a: Tensor, T: number): Tensor {
  const { L, U, perm, det } = tiledLu(a, T);
  const y = tiledTriangularSolve(L, permutationMatrix(perm, T, a.dtype as 'float64' | 'float32', true), true, true, T);
  return tiledTriangularSolve(U, nonsingular(det, y), false, false, T);
}

/** `y` tile by tile, each tile once no step of the LU has an exact zero pivot (NumPy's LinAlgError('Singular matrix') otherwise). */
function nonsingular(det: Tensor, y: Tensor): Tensor {
  const nt = det.shape[0]!;
  const grid = y.shape.map((d, i) => Math.ceil(d / y.node.chunk[i]!)) as [number, number];
  const calls: G.RoutineCall[] = [];
  for (let i = 0; i < grid[0]; i++) {
    for (let j = 0; j < grid[1]; j++) {
      const box = y.shape.map((d, a) => [[i, j][a]! * y.node.chunk[a]!, Math.min(d, ([i, j][a]! + 1) * y.node.chunk[a]!)] as [number, number]);
      calls.push({ routine: 'lugate', params: {}, chunk: i * grid[1] + j, reads: [{ input: 0, box }, { input: 1, box: [[0, nt], [3, 4]] }] });
    }
  }
  return new Tensor(G.routine('linalg.lu.gate', [y.node, det.node], calls, y.dtype, y.shape, y.node.chunk));
}

/** np.linalg.det over the tiled LU: each step's product of U's diagonal times its swaps' sign, multiplied together. */
export function tiledDet(a: Tensor, T: number): Tensor {
  return prod(tiledLu(a, T).det.get(':, 0'));
}

/** np.linalg.slogdet over the tiled LU: [sign, log|det|] (0 and −inf for a singular matrix). */
export function tiledSlogdet(a: Tensor, T: number): Tensor[] {
  const { det } = tiledLu(a, T);
  return [prod(det.get(':, 1')), sum(det.get(':, 2'))];
}
