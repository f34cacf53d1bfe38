// Task DAGs for the placement simulator (placesim.ts), as plain data: blocks
// (chunks) with their bytes, the source blocks' holders under NumS's
// block-cyclic layout over a grid of peers (lshs.ts), tasks that read blocks
// and write one with a count of flops, and reductions whose partials a
// simulator combines in a fixed binary tree or where they lie. In: the
// operation's sizes and the peer count. Out: a `Dag`, with the volume it is
// measured against (a lower bound, or the volume of the 2-d algorithm that
// attains one up to a constant, as `bound.what` says).
//
//   gemm      C = A·B over b x b tiles, SUMMA's tasks: each output tile's t
//             products A[i,k]·B[k,j], then their sum
//   cholesky  right-looking over the lower triangle's tiles: POTRF, TRSM,
//             SYRK and GEMM updates, each writing a new version of its tile
//   qr        PLASMA's tile QR of a square matrix (flat tree): per step k,
//             GEQRT of the diagonal tile, UNMQR of the tiles right of it,
//             TSQRT of each tile below it against the diagonal's R, TSMQR of
//             each trailing pair of tiles (row k's and row i's) with it
//   tsqr      a tall-skinny m x n matrix in row blocks: each block's R, then
//             a tree of QRs of two stacked R factors
//   logreg    the logistic-regression gradient Xᵀ(σ(Xw) − y) over b x b tiles
//             of X: z = Xw as per-tile products summed along rows, r = σ(z) − y
//             per row block, then per-tile Xᵀr summed along columns

import { type Grid, blockCyclic, peerGrid } from './lshs.js';

export interface DagTask {
  readonly key: string;
  readonly reads: readonly number[];
  readonly write: number;
  /** Further blocks it writes, on the same peer (a tile QR's TSQRT and TSMQR update two tiles each). */
  readonly alsoWrites?: readonly number[];
  readonly flops: number;
}

/** A sum of partial blocks (each written by a task) into `out`, by combines of two that cost `flops` each. */
export interface DagReduce {
  readonly key: string;
  readonly parts: readonly number[];
  readonly out: number;
  readonly flops: number;
}

export interface Dag {
  readonly name: string;
  /** Bytes of each block, by block id. */
  readonly bytes: readonly number[];
  /** The peer (index) holding each source block; undefined for a computed one. */
  readonly sourceAt: readonly (number | undefined)[];
  readonly tasks: readonly DagTask[];
  readonly reduces: readonly DagReduce[];
  /** The blocks the job returns (never freed). */
  readonly outputs: readonly number[];
  /** The bytes moved that the operation is measured against, and what that volume is. */
  readonly bound?: { readonly bytes: number; readonly what: string };
}

const F64 = 8;

class Builder {
  readonly bytes: number[] = [];
  readonly sourceAt: (number | undefined)[] = [];
  readonly tasks: DagTask[] = [];
  readonly reduces: DagReduce[] = [];
  readonly outputs: number[] = [];

  source(bytes: number, at: number): number { this.bytes.push(bytes); this.sourceAt.push(at); return this.bytes.length - 1; }
  block(bytes: number): number { this.bytes.push(bytes); this.sourceAt.push(undefined); return this.bytes.length - 1; }
  task(key: string, reads: readonly number[], bytes: number, flops: number): number {
    const write = this.block(bytes);
    this.tasks.push({ key, reads, write, flops });
    return write;
  }
  /** A task writing two blocks of `bytes` each. */
  task2(key: string, reads: readonly number[], bytes: number, flops: number): [number, number] {
    const write = this.block(bytes), also = this.block(bytes);
    this.tasks.push({ key, reads, write, alsoWrites: [also], flops });
    return [write, also];
  }
  /** The sum of `parts` (one part is its own sum). */
  reduce(key: string, parts: readonly number[], flops: number): number {
    if (parts.length === 1) return parts[0]!;
    const out = this.block(this.bytes[parts[0]!]!);
    this.reduces.push({ key, parts, out, flops });
    return out;
  }
  dag(name: string, bound?: Dag['bound']): Dag {
    return { name, bytes: this.bytes, sourceAt: this.sourceAt, tasks: this.tasks, reduces: this.reduces, outputs: this.outputs, ...(bound ? { bound } : {}) };
  }
}

function tiles(n: number, b: number): number {
  if (!(Number.isInteger(n / b) && n >= b && b >= 1)) throw new Error(`simdags: ${n} is not a multiple of the tile ${b}`);
  return n / b;
}

/** C = A·B, all n x n float64 in b x b tiles, A and B block-cyclic over the peers' grid. Bound: SUMMA's 2·n²·√P words. */
export function gemm(n: number, b: number, peers: number): Dag {
  const t = tiles(n, b), grid = peerGrid(peers), g = new Builder(), tile = b * b * F64;
  const A: number[][] = [], B: number[][] = [];
  for (let i = 0; i < t; i++) {
    A.push([]); B.push([]);
    for (let j = 0; j < t; j++) {
      A[i]!.push(g.source(tile, blockCyclic(i, j, grid)));
      B[i]!.push(g.source(tile, blockCyclic(i, j, grid)));
    }
  }
  for (let i = 0; i < t; i++) {
    for (let j = 0; j < t; j++) {
      const parts: number[] = [];
      for (let k = 0; k < t; k++) parts.push(g.task(`mm/${i},${j},${k}`, [A[i]![k]!, B[k]![j]!], tile, 2 * b ** 3));
      g.outputs.push(g.reduce(`C/${i},${j}`, parts, b * b));
    }
  }
  return g.dag(`gemm ${n}/${b}`, { bytes: 2 * n * n * Math.sqrt(peers) * F64, what: 'SUMMA: 2n²√P words' });
}

/**
 * The Cholesky factor of an n x n float64 matrix (its lower triangle's tiles,
 * block-cyclic). Measured against the volume of the 2-d block-cyclic
 * algorithm with owner-computes (ScaLAPACK's): each factored panel tile sent
 * once to every other peer owning a tile that reads it, counted on this
 * layout. It attains the Ω(n²/√P) words per peer lower bound (Ballard,
 * Demmel, Holtz and Schwartz) up to a constant; it is not itself a bound.
 */
export function cholesky(n: number, b: number, peers: number): Dag {
  const t = tiles(n, b), grid = peerGrid(peers), g = new Builder(), tile = b * b * F64, b3 = b ** 3;
  const cur: number[][] = [];
  for (let i = 0; i < t; i++) { cur.push([]); for (let j = 0; j <= i; j++) cur[i]!.push(g.source(tile, blockCyclic(i, j, grid))); }
  let volume = 0;
  const owner = (i: number, j: number) => blockCyclic(i, j, grid);
  for (let k = 0; k < t; k++) {
    const lkk = g.task(`potrf/${k}`, [cur[k]![k]!], tile, b3 / 3);
    cur[k]![k] = lkk;
    volume += new Set(Array.from({ length: t - k - 1 }, (_, d) => owner(k + 1 + d, k)).filter((q) => q !== owner(k, k))).size * tile;
    for (let i = k + 1; i < t; i++) cur[i]![k] = g.task(`trsm/${i},${k}`, [lkk, cur[i]![k]!], tile, b3);
    for (let i = k + 1; i < t; i++) {
      // L[i,k] is read by the updates of row i (tiles (i, j), k < j <= i) and of column i (tiles (m, i), m > i)
      const readers = new Set<number>();
      for (let j = k + 1; j <= i; j++) readers.add(owner(i, j));
      for (let m = i + 1; m < t; m++) readers.add(owner(m, i));
      readers.delete(owner(i, k));
      volume += readers.size * tile;
      cur[i]![i] = g.task(`syrk/${i},${k}`, [cur[i]![k]!, cur[i]![i]!], tile, b3);
      for (let j = k + 1; j < i; j++) cur[i]![j] = g.task(`gemm/${i},${j},${k}`, [cur[i]![k]!, cur[j]![k]!, cur[i]![j]!], tile, 2 * b3);
    }
  }
  for (let i = 0; i < t; i++) for (let j = 0; j <= i; j++) g.outputs.push(cur[i]![j]!);
  return g.dag(`cholesky ${n}/${b}`, { bytes: volume, what: '2-d block-cyclic owner-computes volume (ScaLAPACK)' });
}

/**
 * The QR factorization of an n x n float64 matrix in b x b tiles
 * (block-cyclic), as PLASMA's tile QR with a flat tree (Buttari, Langou,
 * Kurzak and Dongarra): at step k, GEQRT factors tile (k, k) (its V, R and
 * T, 4b³/3 flops); UNMQR applies it to each tile (k, j), j > k (2b³); TSQRT
 * factors R_kk stacked on tile (i, k), i > k, one after another (2b³,
 * writing the new R_kk and tile (i, k)'s V and T); TSMQR applies that to
 * the pair of tiles (k, j) and (i, j) (4b³, writing both). 4n³/3 flops in
 * all. The job returns every tile's last version (R on and above the
 * diagonal, the Householder vectors below, as LAPACK's geqrf). Measured
 * against n²√P words, the order of the lower bound on the words moved by a
 * QR on P peers each holding n²/P (Ballard, Demmel, Holtz and Schwartz):
 * its constant is not known, so a yardstick, not a floor; the flat tree
 * passes each row-k tile down its whole column, about n²·(n/b)/3 words.
 */
export function qr(n: number, b: number, peers: number): Dag {
  const t = tiles(n, b), grid = peerGrid(peers), g = new Builder(), tile = b * b * F64, b3 = b ** 3;
  const cur: number[][] = [];
  for (let i = 0; i < t; i++) { cur.push([]); for (let j = 0; j < t; j++) cur[i]!.push(g.source(tile, blockCyclic(i, j, grid))); }
  for (let k = 0; k < t; k++) {
    const vkk = g.task(`geqrt/${k}`, [cur[k]![k]!], tile, (4 * b3) / 3);
    let r = vkk;
    for (let j = k + 1; j < t; j++) cur[k]![j] = g.task(`unmqr/${k},${j}`, [vkk, cur[k]![j]!], tile, 2 * b3);
    for (let i = k + 1; i < t; i++) {
      const [rkk, vik] = g.task2(`tsqrt/${i},${k}`, [r, cur[i]![k]!], tile, 2 * b3);
      r = rkk;
      cur[i]![k] = vik;
      for (let j = k + 1; j < t; j++) [cur[k]![j], cur[i]![j]] = g.task2(`tsmqr/${i},${j},${k}`, [vik, cur[k]![j]!, cur[i]![j]!], tile, 4 * b3);
    }
    // the diagonal tile: R from the last TSQRT (GEQRT's own when k is the last), V from GEQRT
    cur[k]![k] = r;
    if (r !== vkk) g.outputs.push(vkk);
  }
  for (let i = 0; i < t; i++) for (let j = 0; j < t; j++) g.outputs.push(cur[i]![j]!);
  return g.dag(`qr ${n}/${b}`, { bytes: n * n * Math.sqrt(peers) * F64, what: 'n²√P words: the order of the QR lower bound (its constant unknown)' });
}

/**
 * The R factor of a tall-skinny m x n float64 matrix in row blocks of `rows`
 * (block i on peer i mod P). Bound: every peer holding a block but one sends
 * at least one R factor's worth (n² words as the tiles store it) — the
 * volume of a reduction tree over the peers; no general lower bound is given.
 */
export function tsqr(m: number, n: number, rows: number, peers: number): Dag {
  const nb = tiles(m, rows), g = new Builder(), r = n * n * F64;
  const parts: number[] = [];
  for (let i = 0; i < nb; i++) parts.push(g.task(`qr/${i}`, [g.source(rows * n * F64, blockCyclic(i, 0, [peers, 1]))], r, 2 * rows * n * n));
  g.outputs.push(g.reduce('R', parts, (10 / 3) * n ** 3));
  return g.dag(`tsqr ${m}x${n}/${rows}`, { bytes: (Math.min(peers, nb) - 1) * r, what: 'reduction tree over the peers: (P−1) R factors' });
}

/**
 * The gradient Xᵀ(σ(Xw) − y) of an n x n float64 X in b x b tiles (block-cyclic
 * over the grid), w and y in chunks of b (chunk i on peer i mod P). Measured
 * against the 2-d owner-computes volume of the vectors (X never moves): each
 * chunk of w sent to the grid's rows, z's partials summed across the
 * columns, r sent back across them, the gradient's partials summed across
 * the rows: 2·n·(R−1) + 2·n·(C−1) words on an R x C grid.
 */
export function logreg(n: number, b: number, peers: number): Dag {
  const t = tiles(n, b), grid: Grid = peerGrid(peers), g = new Builder(), tile = b * b * F64, vec = b * F64, line: Grid = [peers, 1];
  const X: number[][] = [];
  for (let i = 0; i < t; i++) { X.push([]); for (let j = 0; j < t; j++) X[i]!.push(g.source(tile, blockCyclic(i, j, grid))); }
  const w = Array.from({ length: t }, (_, j) => g.source(vec, blockCyclic(j, 0, line)));
  const y = Array.from({ length: t }, (_, i) => g.source(vec, blockCyclic(i + 1, 0, line)));
  const r: number[] = [];
  for (let i = 0; i < t; i++) {
    const z = g.reduce(`z/${i}`, Array.from({ length: t }, (_, j) => g.task(`xw/${i},${j}`, [X[i]![j]!, w[j]!], vec, 2 * b * b)), b);
    r.push(g.task(`r/${i}`, [z, y[i]!], vec, 20 * b));
  }
  for (let j = 0; j < t; j++) {
    g.outputs.push(g.reduce(`grad/${j}`, Array.from({ length: t }, (_, i) => g.task(`xtr/${i},${j}`, [X[i]![j]!, r[i]!], vec, 2 * b * b)), b));
  }
  const [R, C] = grid;
  return g.dag(`logreg ${n}/${b}`, { bytes: (2 * n * (R - 1) + 2 * n * (C - 1)) * F64, what: '2-d owner-computes volume of the vectors' });
}
