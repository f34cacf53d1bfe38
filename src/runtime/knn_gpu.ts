// The exact k-nearest-neighbour search (squared euclidean) with its heavy
// part on a GPU: float32 screening there, an exact float64 re-rank here.
// In: the queries and the indexed rows as host float64 arrays (row-major,
// d wide), k, and `self` (the queries are the indexed rows, each skipping
// itself, as scikit-learn's kneighbors() without X). Out: [queries, 2k] as
// the `knn` routine writes it (./neighbors.ts): k squared distances
// ascending, then their k indices, ties to the lower index, bit for bit the
// routine's answer.
// Design: the shader (shaders/knn.wgsl) keeps per query the K = k + margin
// rows of least float32 distance. Here each query's K candidates are
// re-ranked by the routine's own float64 sums (the same terms in the same
// order), and the result is certified: every row the GPU left out has a
// float32 distance of at least τ, the K-th one, so by a rigorous bound on
// float32 rounding (lowerBound) its float64 distance is at least L(τ); when
// the k-th re-ranked distance lies strictly below L, no row left out could
// displace it, and the k found are exactly the routine's. A query that
// fails (ties or near-ties spanning the whole margin, duplicates) is
// searched again exactly on this thread (knnRows, the routine's kd-tree
// search). So the answer is always exact; the GPU only decides how fast.
// The re-rank reads rows at random, which costs more than its arithmetic,
// so a query's candidates are re-ranked only until the float32 distance of
// the next one bounds it beyond the k-th found (about k + 2 of the K).
// (Sorting rows and queries by a Morton code, for the cache, did not pay
// at 200,000 x 10: the writes of the answers then go at random instead.)

import { knnRows } from './neighbors.js';
import type { GpuDevice } from './webgpu.js';

/** Candidates kept per query beyond k: room for ties and for float32 rounding near the k-th distance. */
export const KNN_MARGIN = 16;
/** The widest rows and the most candidates per query the shader holds (its private arrays). */
const MAX_D = 64, MAX_K = 64;
/** Floats of one database tile in the shader's workgroup memory. */
const TILE = 2048;
/**
 * Queries per dispatch: at most QUERIES_PER_RUN (the output buffers), and
 * about WORK_PER_RUN multiply-adds (tens of milliseconds on a large GPU;
 * a dispatch that runs for seconds trips a desktop GPU's watchdog).
 */
const QUERIES_PER_RUN = 32768, WORK_PER_RUN = 2 ** 36;
/** The largest |value| screened: the squared float32 distances of such rows stay far below the shader's "no row" (3e38). */
const MAX_ABS = 1e15;
/** When more queries than this share fail their certificate, the caller's parallel search is the better one. */
const MAX_FAILED_SHARE = 0.25;

const U = 2 ** -24, TINY = 2 ** -126, E64 = 2 ** -53;

/** What one search did: queries certified from the GPU's candidates and queries searched again here, and where the time went. */
export interface KnnGpuReport {
  readonly queries: number;
  readonly certified: number;
  readonly recomputed: number;
  /**
   * Candidates re-ranked in float64, over all queries (of K each). gpuMs:
   * waiting for the GPU's candidates (each dispatch but the first runs
   * while the one before is re-ranked).
   */
  readonly reranked: number;
  /** The float32 copies and the norms. */
  readonly prepareMs: number;
  readonly gpuMs: number;
  readonly rerankMs: number;
  readonly exactMs: number;
}

/** Candidates per query for k neighbours, or 0 where the shader cannot hold them. */
function kept(k: number): number {
  const K = k + Math.min(KNN_MARGIN, MAX_K - k);
  return K > k ? K : 0;
}

/** Whether the GPU search takes this shape: rows at most MAX_D wide, k + margin candidates, and more rows than candidates to choose among. */
export function knnGpuFits(n: number, d: number, k: number, self: boolean): boolean {
  const K = kept(k);
  return K > 0 && d <= MAX_D && n - (self ? 1 : 0) > K;
}

/**
 * A lower bound of the float64 squared distance (the routine's sums) from a
 * query of norm `qn` to any row of norm at most `xn` whose float32 screening
 * distance is at least `tau`. With u = 2^-24, data rounded to float32 and
 * subnormals flushed (WGSL allows it): each difference the shader forms,
 * t̂_f, is within u(1+u)(|q_f| + |x_f|) + u|t_f| + 4·2^-126 of the exact
 * t_f, so ‖t̂‖ ≤ (1+u)‖t‖ + A with A = u(1+u)(‖q‖ + ‖x‖) + 4·2^-126·√d; its
 * float32 sum of squares, in any order, with or without fused multiply-add,
 * is at most G‖t̂‖² + Z, G = (1+u)^(d+1), Z = 4d·2^-126. Inverted:
 * ‖t‖ ≥ (√((τ − Z)/G) − A)/(1+u). The routine's float64 sum is at least
 * ‖t‖²(1 − (d+4)·2^-53); a last factor covers this function's own rounding
 * (and L > 0 needs ‖t‖ far above float64's underflow, A being at least 2^-124).
 */
export function lowerBound(tau: number, qn: number, xn: number, d: number): number {
  return boundOf(d)(tau, slack(qn, xn, d));
}

/** A of lowerBound: how far rounding the data and the differences to float32 moves ‖t‖. */
const slack = (qn: number, xn: number, d: number): number => U * (1 + U) * (qn + xn) + 4 * TINY * Math.sqrt(d);

/** lowerBound for rows of width d, as a function of τ and A (its constants computed once: it runs per candidate). */
function boundOf(d: number): (tau: number, A: number) => number {
  const G = (1 + U) ** (d + 1), Z = 4 * d * TINY, C = (1 - (d + 4) * E64) * (1 - 1e-12);
  return (tau, A) => {
    const t = Math.max(0, Math.sqrt(Math.max(0, tau - Z) / G) - A) / (1 + U);
    return t * t * C;
  };
}

/** Euclidean norms of the rows of `a` (n × d), scaled up past their own rounding. */
function norms(a: Float64Array, d: number): Float64Array {
  const out = new Float64Array(a.length / d);
  for (let i = 0; i < out.length; i++) {
    let s = 0;
    for (let f = 0; f < d; f++) s += a[i * d + f]! * a[i * d + f]!;
    out[i] = Math.sqrt(s) * (1 + 1e-12);
  }
  return out;
}

/** Whether every value is finite and at most MAX_ABS in magnitude. */
function screenable(a: Float64Array): boolean {
  for (let i = 0; i < a.length; i++) if (!(Math.abs(a[i]!) <= MAX_ABS)) return false;
  return true;
}

/**
 * The k nearest rows of `x` for every row of `q` (or of `x` itself with
 * `self`), through the GPU's screening: [queries, 2k] and a report, or
 * undefined where the search is not one the shader takes (knnGpuFits, values
 * too large to screen in float32) or where too many queries fail their
 * certificate (the caller's search over every core then runs instead).
 * `perRun`: queries per dispatch (a test makes it small).
 */
export async function knnGpu(gpu: GpuDevice, q: Float64Array, x: Float64Array, d: number, k: number, self: boolean,
  perRun = Math.max(1024, Math.min(QUERIES_PER_RUN, Math.floor(WORK_PER_RUN / (x.length || 1) / 64) * 64))):
  Promise<{ out: Float64Array; report: KnnGpuReport } | undefined> {
  const n = x.length / d, nq = q.length / d, K = kept(k);
  if (!knnGpuFits(n, d, k, self) || !screenable(x) || (!self && !screenable(q))) return undefined;
  // the rows in one binding
  if (x.length * 4 > gpu.info.maxStorageBufferBindingSize) return undefined;
  const tp = performance.now();
  const x32 = new Float32Array(x), q32 = self ? x32 : new Float32Array(q);
  const qn = norms(q, d), xn = (self ? qn : norms(x, d)).reduce((a, b) => Math.max(a, b), 0);
  const out = new Float64Array(nq * 2 * k);
  const failed: number[] = [];
  const resident = {}; // the database, uploaded once for every dispatch
  const constants = { D: d, K, R: Math.floor(TILE / d) };
  const cd = new Float64Array(K), ci = new Float64Array(K), bound = boundOf(d);
  const prepareMs = performance.now() - tp;
  let gpuMs = 0, rerankMs = 0, reranked = 0;
  /** One dispatch: the candidates of queries [a, b). */
  const screen = async (a: number) => {
    const b = Math.min(nq, a + perRun), rows = b - a;
    const idx = new Uint32Array(rows * K), dst = new Float32Array(rows * K);
    const groups = Math.ceil(rows / 64), gridX = Math.min(groups, gpu.info.maxComputeWorkgroupsPerDimension);
    await gpu.runShader('knn', Int32Array.from([rows, n, a, self ? 1 : 0, gridX]), [{ data: q32.subarray(a * d, b * d) }, { data: x32, key: resident }],
      [idx, dst], [gridX, Math.ceil(groups / gridX)], constants);
    return { rows, idx, dst };
  };
  /** Starts a dispatch, its failure handled where it is awaited (not an unhandled rejection meanwhile). */
  const start = (a: number) => { const p = screen(a); p.catch(() => undefined); return p; };
  let next: ReturnType<typeof screen> | undefined = start(0);
  try {
    for (let a = 0; a < nq; a += perRun) {
      const t0 = performance.now();
      const { rows, idx, dst } = await next!;
      // the next dispatch is submitted (a macrotask lets it reach the queue) and runs while these are re-ranked
      next = a + perRun < nq ? start(a + perRun) : undefined;
      if (next) await new Promise((r) => setTimeout(r, 0));
      const t1 = performance.now();
      for (let i = 0; i < rows; i++) {
        const p = a + i, qa = p * d, A = slack(qn[p]!, xn, d);
        // The candidates in the GPU's order (float32 distance ascending) by the routine's float64 sums, kept
        // sorted by (distance, index). Once k are in, a candidate whose float32 distance bounds its
        // float64 one above the k-th ends the list: the rest, and every row left out, lie farther still.
        let j = 0, ok = true;
        for (; j < K; j++) {
          const r = idx[i * K + j]!;
          if (r >= n) { ok = false; break; }
          if (j >= k && bound(dst[i * K + j]!, A) > cd[k - 1]!) break;
          let s = 0;
          for (let f = 0; f < d; f++) { const t = q[qa + f]! - x[r * d + f]!; s += t * t; }
          let at = j;
          while (at > 0 && (cd[at - 1]! > s || (cd[at - 1]! === s && ci[at - 1]! > r))) { cd[at] = cd[at - 1]!; ci[at] = ci[at - 1]!; at--; }
          cd[at] = s; ci[at] = r;
        }
        reranked += j;
        // having re-ranked all K, the k-th must lie below what the rows left out (at least the K-th) can reach
        if (!ok || (j === K && !(cd[k - 1]! < bound(dst[i * K + K - 1]!, A)))) { failed.push(p); continue; }
        for (let c = 0, at = p * 2 * k; c < k; c++, at++) { out[at] = cd[c]!; out[at + k] = ci[c]!; }
      }
      gpuMs += t1 - t0;
      rerankMs += performance.now() - t1;
    }
  } finally {
    // a dispatch still in flight (after an error) must finish before its database goes
    await next?.catch(() => undefined);
    gpu.forget(resident);
  }
  if (failed.length > MAX_FAILED_SHARE * nq) return undefined;
  const t2 = performance.now();
  if (failed.length) {
    const qf = new Float64Array(failed.length * d);
    failed.forEach((g, i) => qf.set(q.subarray(g * d, g * d + d), i * d));
    const res = knnRows(qf, x, d, k, self ? Float64Array.from(failed) : null);
    failed.forEach((g, i) => out.set(res.subarray(i * 2 * k, (i + 1) * 2 * k), g * 2 * k));
  }
  const exactMs = performance.now() - t2;
  const report = { queries: nq, certified: nq - failed.length, recomputed: failed.length, reranked, prepareMs, gpuMs, rerankMs, exactMs };
  return { out, report };
}
