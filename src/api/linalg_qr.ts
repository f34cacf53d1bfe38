// The tiled QR of a matrix that spans more than one chunk (any shape, tall or
// wide: the tall-skinny one chunked by rows goes through TSQR instead), as
// routine nodes whose calls are the task DAG (runtime/qrtiles.ts has the
// routines), PLASMA's tile QR with a flat tree: at step k, GEQRT of the
// diagonal tile, UNMQR of the tiles right of it, then for each tile below it
// TSQRT (the diagonal's R on top of it) and TSMQR of the pair of rows to the
// right. A call writes one chunk once, so every version of a tile is a chunk
// of a workspace ([2T + ib, T]: tsmqr's two tiles, tsqrt's R and V2, and the
// T factors), as in the tiled Cholesky (./linalg_tiled.ts); a version the
// later calls no longer read is freed. A workspace is a run of routine nodes
// of at most 1 GiB each (the plan checks a stored node's whole extent against
// the 4 GiB chunk heap, though few of its chunks are ever alive at once):
// each holds consecutive calls and reads the nodes before it. Q is LAPACK's
// orgqr over tiles: a second workspace starts from the identity's tiles and
// applies the stored reflectors in reverse (steps k from last to first, each
// its TSMQRs from the bottom up, then its UNMQR), touching only the columns
// j >= k that are not still the identity's. R is copied out of the first workspace
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

/** Bytes of one workspace node at most: the plan checks a stored node's whole extent against the chunk heap (4 GiB), freed versions too. */
const SEGMENT_BYTES = 2 ** 30;

/** A read, symbolic until the nodes exist: a box of the input, or rows of a version (a workspace's call `v`, its tile `part`). */
type Sym = { box: Box } | { ws: number; v: number; part: number; rows: number; cols?: number };
interface SymCall { routine: string; params: G.RoutineParams; reads: Sym[] }

/**
 * [Q, R] of an m × n float64 or float32 matrix over T × T tiles (T a multiple of 4): mode 'reduced' (Q m × k, R k × n,
 * k = min(m, n)), 'complete' (Q m × m, R m × n), or 'r' (R alone, k × n). Householder as LAPACK's: R's diagonal may be
 * negative. float32 stays float32 (the workspace is float64). Each workspace is cut into nodes of at most
 * `segmentBytes` (consecutive calls; a call reads the nodes before its own, and its own node's earlier chunks).
 */
export function tiledQR(a: Tensor, T: number, mode: 'reduced' | 'complete' | 'r', segmentBytes = SEGMENT_BYTES): Tensor[] {
  const [m, n] = a.shape as [number, number];
  if (T % 4 || T <= 0) throw new Error(`internal: the QR's tile side ${T} is not a multiple of 4`);
  const mt = Math.ceil(m / T), nt = Math.ceil(n / T), kt = Math.min(mt, nt);
  const ib = Math.min(QR_IB, T), H = 2 * T + ib;
  const perSeg = Math.max(1, Math.floor(segmentBytes / (H * T * 8)));
  const base = { t: T, ib };
  const F = 0, QW = 1;
  const wsCalls: SymCall[][] = [[], []];
  const push = (w: number, routine: string, params: G.RoutineParams, reads: Sym[]): number => {
    wsCalls[w]!.push({ routine, params, reads });
    return wsCalls[w]!.length - 1;
  };
  const ver = (ws: number, v: number, part: number, rows = T): Sym => ({ ws, v, part, rows });
  // the factorization: the latest version of each tile (a call and which of its two tiles), each step's reflectors
  const latest = new Map<number, [number, number]>();
  const geqrtOf = new Map<number, number>(), tsqrtOf = new Map<number, number>();
  /** The reads of tiles, their `raw` list: a tile not yet written is a box of a itself. */
  const tiles = (ts: [number, number][]): { reads: Sym[]; raw: number[] } => {
    const raw: number[] = [];
    const reads = ts.map(([i, j], x): Sym => {
      const v = latest.get(i * nt + j);
      if (v) return ver(F, v[0], v[1]);
      raw.push(x);
      return { box: [span(i, T, m), span(j, T, n)] };
    });
    return { reads, raw };
  };
  for (let k = 0; k < kt; k++) {
    const d = tiles([[k, k]]);
    const g = push(F, 'qrgeqrt', { ...base, raw: d.raw }, d.reads);
    latest.set(k * nt + k, [g, 0]);
    geqrtOf.set(k, g);
    for (let j = k + 1; j < nt; j++) {
      const c = tiles([[k, j]]);
      latest.set(k * nt + j, [push(F, 'qrunmqr', { ...base, raw: c.raw, trans: true }, [...c.reads, ver(F, g, 0), ver(F, g, 2, ib)]), 0]);
    }
    for (let i = k + 1; i < mt; i++) {
      const p = tiles([[k, k], [i, k]]);
      const t = push(F, 'qrtsqrt', { ...base, raw: p.raw }, p.reads);
      latest.set(k * nt + k, [t, 0]);
      tsqrtOf.set(i * mt + k, t);
      for (let j = k + 1; j < nt; j++) {
        const q = tiles([[k, j], [i, j]]);
        const s = push(F, 'qrtsmqr', { ...base, raw: q.raw, trans: true }, [...q.reads, ver(F, t, 1), ver(F, t, 2, ib)]);
        latest.set(k * nt + j, [s, 0]);
        latest.set(i * nt + j, [s, 1]);
      }
    }
  }
  // Q: the identity's tiles, the reflectors applied in reverse
  const rows = mode === 'complete' ? m : Math.min(m, n), rt = Math.ceil(rows / T);
  const qLatest = new Map<number, [number, number]>();
  const qTile = (i: number, j: number): Sym => {
    let v = qLatest.get(i * rt + j);
    if (!v) { v = [push(QW, 'qreye', { ...base, diag: i === j }, []), 0]; qLatest.set(i * rt + j, v); }
    return ver(QW, v[0], v[1]);
  };
  if (mode !== 'r') {
    for (let k = kt - 1; k >= 0; k--) {
      for (let i = mt - 1; i > k; i--) {
        const t = tsqrtOf.get(i * mt + k)!;
        for (let j = k; j < rt; j++) {
          const reads = [qTile(k, j), qTile(i, j), ver(F, t, 1), ver(F, t, 2, ib)];
          const s = push(QW, 'qrtsmqr', { ...base, raw: [], trans: false }, reads);
          qLatest.set(k * rt + j, [s, 0]);
          qLatest.set(i * rt + j, [s, 1]);
        }
      }
      const g = geqrtOf.get(k)!;
      for (let j = k; j < rt; j++) {
        const reads = [qTile(k, j), ver(F, g, 0), ver(F, g, 2, ib)];
        qLatest.set(k * rt + j, [push(QW, 'qrunmqr', { ...base, raw: [], trans: false }, reads), 0]);
      }
    }
  }
  // the nodes: each workspace's segments in order, then R and Q copied out of them
  const segs: G.Node[][] = [[], []];
  const key = (r: Sym): string => ('box' in r ? 'a' : `${r.ws}:${Math.floor(r.v / perSeg)}`);
  const node = (name: string, calls: SymCall[], self: string | null, dtype: 'float64' | 'float32', shape: number[], chunk: number[]): G.Node => {
    const inputs: G.Node[] = [], index = new Map<string, number>();
    for (const c of calls) {
      for (const r of c.reads) {
        const kr = key(r);
        if (kr === self || index.has(kr)) continue;
        index.set(kr, inputs.length);
        inputs.push('box' in r ? a.node : segs[r.ws]![Math.floor(r.v / perSeg)]!);
      }
    }
    const routineCalls = calls.map((c, chunkIndex): G.RoutineCall => ({
      routine: c.routine, params: c.params, chunk: chunkIndex,
      reads: c.reads.map((r) => {
        const input = key(r) === self ? inputs.length : index.get(key(r))!;
        if ('box' in r) return { input, box: r.box };
        const o = (r.v % perSeg) * H + r.part * T;
        return { input, box: [[o, o + r.rows], [0, r.cols ?? T]] as Box };
      }),
    }));
    return G.routine(name, inputs, routineCalls, dtype, shape, chunk);
  };
  for (const [w, name] of [[F, 'linalg.qr.tiles'], [QW, 'linalg.qr.qtiles']] as const) {
    const calls = wsCalls[w]!;
    for (let s = 0; s * perSeg < calls.length; s++) {
      const part = calls.slice(s * perSeg, (s + 1) * perSeg);
      segs[w]!.push(node(name, part, `${w}:${s}`, 'float64', [part.length * H, T], [H, T]));
    }
  }
  /** Tile (i, j) of an output: its latest version's box (cols × rows, stored transposed), or zeros. */
  const out = (ws: number, v: [number, number] | undefined, ri: [number, number], cj: [number, number], tri: boolean): SymCall =>
    !v ? { routine: 'zero', params: {}, reads: [] }
      : { routine: 'qrcopy', params: { tri }, reads: [{ ws, v: v[0], part: v[1], rows: cj[1] - cj[0], cols: ri[1] - ri[0] }] };
  const rCalls: SymCall[] = [];
  for (let i = 0; i < rt; i++) {
    for (let j = 0; j < nt; j++) {
      const ri = span(i, T, rows), cj = span(j, T, n);
      rCalls.push(out(F, j < i ? undefined : latest.get(i * nt + j), ri, cj, i === j));
    }
  }
  const R = new Tensor(node('linalg.qr.r', rCalls, null, a.dtype as 'float64' | 'float32', [rows, n], [T, T]));
  if (mode === 'r') return [R];
  const oCalls: SymCall[] = [];
  for (let i = 0; i < mt; i++) {
    for (let j = 0; j < rt; j++) {
      const ri = span(i, T, m), cj = span(j, T, rows);
      oCalls.push(out(QW, qLatest.get(i * rt + j)!, ri, cj, false));
    }
  }
  const Q = new Tensor(node('linalg.qr.q', oCalls, null, a.dtype as 'float64' | 'float32', [m, rows], [T, T]));
  return [Q, R];
}
