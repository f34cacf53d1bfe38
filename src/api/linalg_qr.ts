// The tiled QR of a matrix that spans more than one chunk (any shape, tall or
// wide: the tall-skinny one chunked by rows goes through TSQR instead), as
// routine nodes whose calls are the task DAG (runtime/qrtiles.ts has the
// routines), PLASMA's tile QR with a flat tree: at step k, GEQRT of the
// diagonal tile, UNMQR of the tiles right of it, then for each tile below it
// TSQRT (the diagonal's R on top of it) and TSMQR of the pair of rows to the
// right. A call writes one chunk once, so every version of a tile is a chunk
// of a workspace node ([2T + ib, T]: tsmqr's two tiles, tsqrt's R and V2,
// and the T factors), as in the tiled Cholesky (./linalg_tiled.ts); a
// version the later calls no longer read is freed. Q is LAPACK's orgqr over
// tiles: a second workspace starts from the identity's tiles and applies the
// stored reflectors in reverse (steps k from last to first, each its TSMQRs
// from the bottom up, then its UNMQR), touching only the columns j >= k that
// are not still the identity's. R is copied out of the first workspace
// (zeros below the diagonal), Q out of the second. The critical path is about
// 3 tasks a step (GEQRT, TSQRT, TSMQR of the next diagonal tile); the TSMQRs,
// about mt·nt²/2 of them, run beside it. The tile side is a multiple of 4 (the
// GEMM kernel's blocks; a ragged tile is zero-padded, which QR leaves alone).
// In: a 2-d float Tensor of known shape, its tile side. Out: lazy Q and R.

import * as G from '../graph/node.js';
import { MAX_CHUNKS } from '../graph/shape.js';
import { Tensor } from './core.js';
import { tileSize } from './linalg_tiled.js';

/** Columns of an inner block: the panel is ib wide, the block-reflector GEMMs have ib as their K or their width. */
export const QR_IB = 32;

type Box = readonly (readonly [number, number])[];
type Read = { input: number; box: Box };

/** [lo, hi) of tile k of side T along an axis of length n. */
const span = (k: number, T: number, n: number): [number, number] => [k * T, Math.min(n, (k + 1) * T)];

/**
 * The QR's tile side for an m × n matrix over chunks `chunk`: the Cholesky's choice (./linalg_tiled.ts), a multiple of 4,
 * doubled while the DAG's calls would pass half an array's chunk limit.
 */
export function qrTileSize(m: number, n: number, chunk: readonly number[]): number {
  let t = Math.ceil(tileSize(Math.max(m, n), chunk) / 4) * 4;
  const calls = (t: number): number => { const a = Math.ceil(m / t), b = Math.ceil(n / t), k = Math.min(a, b); return k * a * b + a * a; };
  while (t < Math.max(m, n) && calls(t) > MAX_CHUNKS / 2) t *= 2;
  return t;
}

/**
 * [Q, R] of an m × n float64 or float32 matrix over T × T tiles (T a multiple of 4): mode 'reduced' (Q m × k, R k × n,
 * k = min(m, n)), 'complete' (Q m × m, R m × n), or 'r' (R alone, k × n). Householder as LAPACK's: R's diagonal may be
 * negative. float32 stays float32 (the workspace is float64).
 */
export function tiledQR(a: Tensor, T: number, mode: 'reduced' | 'complete' | 'r'): Tensor[] {
  const [m, n] = a.shape as [number, number];
  if (T % 4 || T <= 0) throw new Error(`internal: the QR's tile side ${T} is not a multiple of 4`);
  const mt = Math.ceil(m / T), nt = Math.ceil(n / T), kt = Math.min(mt, nt);
  const ib = Math.min(QR_IB, T), H = 2 * T + ib;
  const base = { t: T, ib };
  // the factorization: the latest version of each tile (a call's chunk and which of its two tiles), its reflectors
  const calls: G.RoutineCall[] = [];
  const latest = new Map<number, [number, number]>();
  const geqrtOf = new Map<number, number>(), tsqrtOf = new Map<number, number>();
  const SELF = 1;
  const stored = (input: number, v: number, part: number, rows = T): Read => ({ input, box: [[v * H + part * T, v * H + part * T + rows], [0, T]] });
  /** The reads of tiles, their `raw` list: a tile not yet written is a box of a itself. */
  const tiles = (ts: [number, number][]): { reads: Read[]; raw: number[] } => {
    const raw: number[] = [];
    const reads = ts.map(([i, j], x) => {
      const v = latest.get(i * nt + j);
      if (v) return stored(SELF, v[0], v[1]);
      raw.push(x);
      return { input: 0, box: [span(i, T, m), span(j, T, n)] as Box };
    });
    return { reads, raw };
  };
  const push = (routine: string, params: G.RoutineParams, reads: Read[]): number => {
    calls.push({ routine, params, reads, chunk: calls.length });
    return calls.length - 1;
  };
  for (let k = 0; k < kt; k++) {
    const d = tiles([[k, k]]);
    const g = push('qrgeqrt', { ...base, raw: d.raw }, d.reads);
    latest.set(k * nt + k, [g, 0]);
    geqrtOf.set(k, g);
    for (let j = k + 1; j < nt; j++) {
      const c = tiles([[k, j]]);
      latest.set(k * nt + j, [push('qrunmqr', { ...base, raw: c.raw, trans: true }, [...c.reads, stored(SELF, g, 0), stored(SELF, g, 2, ib)]), 0]);
    }
    for (let i = k + 1; i < mt; i++) {
      const p = tiles([[k, k], [i, k]]);
      const t = push('qrtsqrt', { ...base, raw: p.raw }, p.reads);
      latest.set(k * nt + k, [t, 0]);
      tsqrtOf.set(i * mt + k, t);
      for (let j = k + 1; j < nt; j++) {
        const q = tiles([[k, j], [i, j]]);
        const s = push('qrtsmqr', { ...base, raw: q.raw, trans: true }, [...q.reads, stored(SELF, t, 1), stored(SELF, t, 2, ib)]);
        latest.set(k * nt + j, [s, 0]);
        latest.set(i * nt + j, [s, 1]);
      }
    }
  }
  const work = G.routine('linalg.qr.tiles', [a.node], calls, 'float64', [calls.length * H, T], [H, T]);
  const rows = mode === 'complete' ? m : Math.min(m, n), rt = Math.ceil(rows / T);
  // R: tile (i, j) read transposed from its latest version, zeros below the diagonal
  const rCalls: G.RoutineCall[] = [];
  for (let i = 0; i < rt; i++) {
    for (let j = 0; j < nt; j++) {
      const ri = span(i, T, rows), cj = span(j, T, n), v = latest.get(i * nt + j);
      const chunk = i * nt + j;
      rCalls.push(j < i || !v ? { routine: 'zero', params: {}, reads: [], chunk } : {
        routine: 'qrcopy', params: { tri: i === j }, chunk,
        reads: [{ input: 0, box: [[v[0] * H + v[1] * T, v[0] * H + v[1] * T + cj[1] - cj[0]], [0, ri[1] - ri[0]]] }],
      });
    }
  }
  const R = new Tensor(G.routine('linalg.qr.r', [work], rCalls, a.dtype, [rows, n], [T, T]));
  if (mode === 'r') return [R];
  // Q: the identity's tiles, the reflectors applied in reverse
  const qn = rows, qt = rt;
  const qCalls: G.RoutineCall[] = [];
  const qLatest = new Map<number, [number, number]>();
  const QSELF = 1;
  const qPush = (routine: string, params: G.RoutineParams, reads: Read[]): number => {
    qCalls.push({ routine, params, reads, chunk: qCalls.length });
    return qCalls.length - 1;
  };
  const qTile = (i: number, j: number): Read => {
    let v = qLatest.get(i * qt + j);
    if (!v) { v = [qPush('qreye', { ...base, diag: i === j }, []), 0]; qLatest.set(i * qt + j, v); }
    return stored(QSELF, v[0], v[1]);
  };
  for (let k = kt - 1; k >= 0; k--) {
    for (let i = mt - 1; i > k; i--) {
      const t = tsqrtOf.get(i * mt + k)!;
      for (let j = k; j < qt; j++) {
        const reads = [qTile(k, j), qTile(i, j), stored(0, t, 1), stored(0, t, 2, ib)];
        const s = qPush('qrtsmqr', { ...base, raw: [], trans: false }, reads);
        qLatest.set(k * qt + j, [s, 0]);
        qLatest.set(i * qt + j, [s, 1]);
      }
    }
    const g = geqrtOf.get(k)!;
    for (let j = k; j < qt; j++) {
      const reads = [qTile(k, j), stored(0, g, 0), stored(0, g, 2, ib)];
      qLatest.set(k * qt + j, [qPush('qrunmqr', { ...base, raw: [], trans: false }, reads), 0]);
    }
  }
  const qWork = G.routine('linalg.qr.qtiles', [work], qCalls, 'float64', [qCalls.length * H, T], [H, T]);
  const oCalls: G.RoutineCall[] = [];
  for (let i = 0; i < mt; i++) {
    for (let j = 0; j < qt; j++) {
      const ri = span(i, T, m), cj = span(j, T, qn), v = qLatest.get(i * qt + j)!;
      oCalls.push({
        routine: 'qrcopy', params: { tri: false }, chunk: i * qt + j,
        reads: [{ input: 0, box: [[v[0] * H + v[1] * T, v[0] * H + v[1] * T + cj[1] - cj[0]], [0, ri[1] - ri[0]]] }],
      });
    }
  }
  const Q = new Tensor(G.routine('linalg.qr.q', [qWork], oCalls, a.dtype, [m, qn], [T, T]));
  return [Q, R];
}
