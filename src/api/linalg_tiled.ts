// Tiled linear algebra (numpywren's programs over tiles): the Cholesky
// factor and triangular solves of a matrix that spans more than one chunk,
// as routine nodes (graph/node.ts `routine`) whose calls are the task DAG,
// every call writing one tile once (runtime/tiles.ts has the tile routines).
// A call reads tiles of the input and tiles earlier calls of its own node
// wrote, so tile/tile.ts derives the DAG from the reads, and the pool (or
// the mesh) runs each tile as soon as the tiles it reads exist.
// Cholesky is right-looking: at step k, POTRF of the diagonal tile, TRSM of
// the tiles below it, then SYRK and GEMM of the trailing tiles, each update
// its own task, so the DAG's critical path is about 3·nt tasks (nt tiles a
// side) and nt³/6 tasks may run beside it. Since a node's tile is written
// once, every version of a tile is a chunk of a workspace node ([V·T, T],
// one chunk per call, a ragged tile in its chunk's top-left); the runtime
// frees each as soon as the calls that read it have run (it is no output),
// so the workspace holds about the trailing matrix at any time. A second
// node copies the factor's tiles out (zeros above the diagonal).
// Folding a tile's updates into the call that finishes it (one node, no
// workspace) makes a DAG whose critical path grows as nt²: parallelism
// about nt/4.5 against about nt²/8 here (2 and 8 at nt = 8).
// The triangular solve folds: tile X_ic sums its T_ik X_kc products itself.
// Tile size: the input's chunk when it is square; otherwise the side of the
// square of the chunk's area (the same bytes a task), at least the chunk's
// shorter side, and at least MIN_TILE (a grid of tiny chunks would make n²
// tasks); doubled while the workspace would pass half an array's chunk limit.
// The input is not rechunked: a call reads any box of it.
// In: 2-d float Tensors of known shape. Out: the lazy result Tensor.

import * as G from '../graph/node.js';
import { MAX_CHUNKS } from '../graph/shape.js';
import { Tensor, astype, transpose } from './core.js';

/** The smallest tile side the tiled path uses (below it, tasks cost more than their arithmetic). */
export const MIN_TILE = 16;

type Box = readonly (readonly [number, number])[];

/** The tile side for a matrix of `n` rows over chunks `chunk` (see the header). */
export function tileSize(n: number, chunk: readonly number[]): number {
  const [c0, c1] = chunk as [number, number];
  let t = Math.max(1, Math.min(n, Math.max(MIN_TILE, c0 === c1 ? c0 : Math.max(Math.min(c0, c1), MIN_TILE * Math.floor(Math.sqrt(c0 * c1) / MIN_TILE)))));
  // the Cholesky workspace holds about nt³/6 version tiles, within one array's chunk limit
  while (t < n && (Math.ceil(n / t) ** 3) / 6 + Math.ceil(n / t) ** 2 > MAX_CHUNKS / 2) t *= 2;
  return Math.min(n, t);
}

/** Whether a 2-d tensor's last two axes span more than one chunk. */
export const spansChunks = (t: Tensor): boolean => t.ndim === 2 && t.node.chunk.some((c, i) => c < t.shape[i]!);

/** [lo, hi) of tile k of side T along an axis of length n. */
const span = (k: number, T: number, n: number): [number, number] => [k * T, Math.min(n, (k + 1) * T)];

/**
 * The version tiles of a workspace node (see the header) over an n×n matrix in T×T tiles: `latest` maps tile
 * (i, j) (key i·nt + j) to the call that wrote its latest version, the chunk of that call in the workspace;
 * `cur(i, j)` reads that version (input `self`, the workspace, a ragged tile in its chunk's top-left), or the
 * tile of input 0 while no call wrote one. (The tiled Cholesky's, and the LU's in ./linalg_lu.ts.)
 */
export function versions(n: number, T: number, self: number): {
  nt: number; len: (i: number) => number; latest: Map<number, number>; cur: (i: number, j: number) => { input: number; box: Box };
} {
  const nt = Math.ceil(n / T);
  const len = (i: number): number => Math.min(n, (i + 1) * T) - i * T;
  const latest = new Map<number, number>();
  const cur = (i: number, j: number): { input: number; box: Box } => {
    const v = latest.get(i * nt + j);
    return v === undefined ? { input: 0, box: [span(i, T, n), span(j, T, n)] } : { input: self, box: [[v * T, v * T + len(i)], [0, len(j)]] };
  };
  return { nt, len, latest, cur };
}

/**
 * Lower L with L Lᵀ = a, from a's lower triangle (a float64 or float32 n×n
 * matrix; the caller has cast and checked it), over T×T tiles: the
 * right-looking DAG in a workspace node, then the factor's tiles copied out.
 */
export function tiledCholesky(a: Tensor, T: number): Tensor {
  const n = a.shape[0]!;
  const { nt, latest, cur } = versions(n, T, 1);
  const calls: G.RoutineCall[] = [];
  const write = (i: number, j: number, routine: string, params: G.RoutineParams, reads: { input: number; box: Box }[]): void => {
    latest.set(i * nt + j, calls.length);
    calls.push({ routine, params, reads, chunk: calls.length });
  };
  for (let k = 0; k < nt; k++) {
    write(k, k, 'potrf', { tile: [k, k] }, [cur(k, k)]);
    for (let i = k + 1; i < nt; i++) write(i, k, 'trsm', { tile: [i, k] }, [cur(i, k), cur(k, k)]);
    for (let i = k + 1; i < nt; i++) {
      write(i, i, 'syrk', {}, [cur(i, i), cur(i, k)]);
      for (let j = k + 1; j < i; j++) write(i, j, 'gemm', {}, [cur(i, j), cur(i, k), cur(j, k)]);
    }
  }
  const work = G.routine('linalg.cholesky.tiles', [a.node], calls, a.dtype, [calls.length * T, T], [T, T]);
  const out: G.RoutineCall[] = [];
  for (let i = 0; i < nt; i++) {
    for (let j = 0; j < nt; j++) {
      const chunk = i * nt + j;
      out.push(j > i ? { routine: 'zero', params: {}, reads: [], chunk } : { routine: 'copy', params: {}, reads: [{ ...cur(i, j), input: 0 }], chunk });
    }
  }
  return new Tensor(G.routine('linalg.cholesky', [work], out, a.dtype, [n, n], [T, T]));
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

/** The widest matrix the tall-skinny QR takes: its combine factors (blocks · n) × n on one thread, its R is n × n. */
export const TSQR_MAX_COLS = 512;

/** Whether a 2-d tensor is tall and skinny, chunked by rows only: what tsqr takes. */
export const tallSkinny = (t: Tensor): boolean => t.ndim === 2 && t.shape[0]! >= t.shape[1]! && t.shape[1]! <= TSQR_MAX_COLS
  && t.shape[0]! > t.node.chunk[0]! && t.node.chunk[1] === t.shape[1] && t.shape[1]! > 0;

/**
 * [Q, R] of a tall-skinny matrix chunked by rows (the reduced QR, m × n and
 * n × n) by TSQR: each row chunk's R factor (`tsqr` routine tasks), their
 * stack factored again in one task (`tsqrtop`: each chunk's slice of that
 * Q, and R), then each chunk's rows of Q (`tsqrq`: the chunk factored
 * again, its Q applied to its slice). Nothing but d × d factors moves
 * between tasks; R's rows (Q's columns) may differ in sign from LAPACK's
 * factorization of the whole matrix, as QR allows. float32 stays float32
 * (computed in float64).
 */
export function tsqr(a: Tensor): [Tensor, Tensor] {
  const [m, n] = a.shape as [number, number];
  const x = a.dtype === 'float64' ? a : astype(a, 'float64');
  const L = a.node.chunk[0]!, B = Math.ceil(m / L);
  const rows = (b: number): [number, number] => [b * L, Math.min(m, (b + 1) * L)];
  const parts = G.routine('linalg.tsqr.r', [x.node], Array.from({ length: B }, (_, b) => ({
    routine: 'tsqr', params: { d: n, centered: false }, chunk: b, reads: [{ input: 0, box: [rows(b), [0, n]] as Box }],
  })), 'float64', [B, n * n], [1, n * n]);
  const top = G.routine('linalg.tsqr.top', [parts], [{
    routine: 'tsqrtop', params: { d: n }, chunk: 0, reads: [{ input: 0, box: [[0, B], [0, n * n]] as Box }],
  }], 'float64', [B * n + n, n], [B * n + n, n]);
  const q = G.routine('linalg.tsqr.q', [x.node, top], Array.from({ length: B }, (_, b) => ({
    routine: 'tsqrq', params: { d: n }, chunk: b,
    reads: [{ input: 0, box: [rows(b), [0, n]] as Box }, { input: 1, box: [[b * n, (b + 1) * n], [0, n]] as Box }],
  })), 'float64', [m, n], [L, n]);
  const Q = new Tensor(q), R = new Tensor(top).get(`${B * n}:`);
  return a.dtype === 'float32' ? [astype(Q, 'float32'), astype(R, 'float32')] : [Q, R];
}
