// Tiled linear algebra (numpywren's programs over tiles): the Cholesky
// factor and triangular solves of a matrix that spans more than one chunk,
// each ONE routine node (graph/node.ts `routine`) whose calls are the task
// DAG, every call writing one tile of the result once (runtime/tiles.ts has
// the tile routines). A call reads tiles of the input and the tiles of its
// own result that earlier calls wrote, so tile/tile.ts derives the DAG from
// the reads and the pool (or the mesh) runs ready tiles as they come.
// Cholesky: tile (i, j), i > j, is TRSM(A_ij − Σ_k<j L_ik L_jkᵀ, L_jj) and the
// diagonal tile POTRF(A_jj − Σ_k<j L_jk L_jkᵀ), each tile read on its own (a
// task holds a few tiles, never a panel): the SYRK and GEMM updates a
// right-looking factorization applies to a tile one column at a time are
// summed in the call that finishes it, because a node's tile is written once
// (each update writing its own A_ij would make ~nt³/6 tiles of one node). The calls come column
// by column, the order of the right-looking algorithm: every tile of column
// j is ready as soon as column j's diagonal tile is, as there.
// Tile size: the input's chunk when it is square; otherwise the side of the
// square of the chunk's area (the same bytes a task), at least the chunk's
// shorter side, and at least MIN_TILE (a grid of tiny chunks would make n²
// tasks). The input is not rechunked: a call reads any box of it.
// In: 2-d float Tensors of known shape. Out: the lazy result Tensor.

import * as G from '../graph/node.js';
import { Tensor, transpose } from './core.js';

/** The smallest tile side the tiled path uses (below it, tasks cost more than their arithmetic). */
export const MIN_TILE = 16;

type Box = readonly (readonly [number, number])[];

/** The tile side for a matrix of `n` rows over chunks `chunk` (see the header). */
export function tileSize(n: number, chunk: readonly number[]): number {
  const [c0, c1] = chunk as [number, number];
  const t = c0 === c1 ? c0 : Math.max(Math.min(c0, c1), MIN_TILE * Math.floor(Math.sqrt(c0 * c1) / MIN_TILE));
  return Math.max(1, Math.min(n, Math.max(t, MIN_TILE)));
}

/** Whether a 2-d tensor's last two axes span more than one chunk. */
export const spansChunks = (t: Tensor): boolean => t.ndim === 2 && t.node.chunk.some((c, i) => c < t.shape[i]!);

/** [lo, hi) of tile k of side T along an axis of length n. */
const span = (k: number, T: number, n: number): [number, number] => [k * T, Math.min(n, (k + 1) * T)];

/**
 * Lower L with L Lᵀ = a, from a's lower triangle (a float64 or float32 n×n
 * matrix; the caller has cast and checked it), over T×T tiles.
 */
export function tiledCholesky(a: Tensor, T: number): Tensor {
  const n = a.shape[0]!;
  const nt = Math.ceil(n / T);
  const SELF = 1;
  const calls: G.RoutineCall[] = [];
  for (let i = 0; i < nt; i++) for (let j = i + 1; j < nt; j++) calls.push({ routine: 'zero', params: {}, reads: [], chunk: i * nt + j });
  for (let j = 0; j < nt; j++) {
    const cj = span(j, T, n);
    /** The tiles L_r0 .. L_r,j-1 of row block `rows`, one read each. */
    const left = (rows: [number, number]): { input: number; box: Box }[] => Array.from({ length: j }, (_, k) => ({ input: SELF, box: [rows, span(k, T, n)] }));
    calls.push({ routine: 'potrf', params: { tile: [j, j] }, reads: [{ input: 0, box: [cj, cj] }, ...left(cj)], chunk: j * nt + j });
    for (let i = j + 1; i < nt; i++) {
      const ri = span(i, T, n);
      const reads = [{ input: 0, box: [ri, cj] }, { input: SELF, box: [cj, cj] }, ...left(ri), ...left(cj)];
      calls.push({ routine: 'trsm', params: { tile: [i, j] }, reads, chunk: i * nt + j });
    }
  }
  return new Tensor(G.routine('linalg.cholesky', [a.node], calls, a.dtype, [n, n], [T, T]));
}

/**
 * X with T X = b for a triangular n×n `t` (lower, or upper) and b n×k, both
 * of one float dtype, over tiles of T rows and b's column chunks: row tile
 * i of X waits for the rows before it (lower; after it, upper).
 */
export function tiledTriangularSolve(t: Tensor, b: Tensor, lower: boolean, unit: boolean, T: number): Tensor {
  const [n, k] = b.shape as [number, number];
  const W = Math.max(1, Math.min(k, b.node.chunk[1]!));
  const nt = Math.ceil(n / T), nc = Math.ceil(k / W);
  const SELF = 2;
  const calls: G.RoutineCall[] = [];
  for (let s = 0; s < nt; s++) {
    const i = lower ? s : nt - 1 - s;
    const ri = span(i, T, n);
    // the row tiles already solved: before i (lower), after it (upper)
    const done = lower ? Array.from({ length: i }, (_, k) => k) : Array.from({ length: nt - 1 - i }, (_, k) => i + 1 + k);
    for (let c = 0; c < nc; c++) {
      const cc = span(c, W, k);
      calls.push({
        routine: 'trsolve', params: { tile: [i, c], lower, unit }, chunk: i * nc + c,
        reads: [
          { input: 1, box: [ri, cc] }, { input: 0, box: [ri, ri] },
          ...done.map((q) => ({ input: 0, box: [ri, span(q, T, n)] as Box })), ...done.map((q) => ({ input: SELF, box: [span(q, T, n), cc] as Box })),
        ],
      });
    }
  }
  return new Tensor(G.routine('linalg.solve_triangular', [t.node, b.node], calls, b.dtype, [n, k], [T, W]));
}

/** The upper factor U = Lᵀ of a's upper triangle: the lower factor of aᵀ, transposed (NumPy's upper=True). */
export const tiledCholeskyUpper = (a: Tensor, T: number): Tensor => transpose(tiledCholesky(transpose(a), T));
