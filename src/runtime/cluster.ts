// The routines of k-means (learn/cluster.ts): one Lloyd iteration is one
// pass over each block of rows, each call writing one chunk, so that a
// worker, a thread or a peer runs them and only k × (d + 1) numbers per
// block travel to the combine:
//   kassign  each row's nearest center (squared euclidean distance, the
//            first center on a tie, as scikit-learn's argmin): int32 labels;
//   kstep    one Lloyd step over a block: each row's nearest center, and
//            the block's per-center sums of rows, counts (weights) and the
//            sum of the rows' squared distances to their centers (the
//            inertia), with two position-keyed sums of the labels by which
//            the host sees that no label changed (scikit-learn's strict
//            convergence) without storing them: one float64 row
//            [k·d sums | k counts | inertia | h1 | h2] per run, for the
//            `runs` sets of centers stepped together (n_init's runs: the
//            rows are read once for all of them).
// Centers are ranked by ‖c‖² − 2x·c, as scikit-learn's Lloyd step ranks
// them (so near-ties fall the same way); the inertia sums the exact
// Σ(x − c)² of each row's own center, as its _inertia does.
//   kdist    the squared distances Σ(x − c)² of each row to each center
//            (KMeans.transform): an [n, k] float64 block.
// And the three of k-means++ for R initializations at once (learn's n_init
// runs draw together, so a step is two passes whatever R is):
//   kpp      the potential of every candidate: Σ w·min(closest_r, Σ(x − c)²)
//            over the block, candidates grouped by run (an even number per
//            run); one float64 row per block, which the host reads whole
//            (the per-block potentials are what it draws from);
//   kclose   each row's new closest distance per run, min(closest_r,
//            Σ(x − c_r)²) with the center run r kept: an [n, R] block;
//   klocate  the rows that draws land on inside one block, for one run: the
//            first row whose running sum of w·closest passes each target
//            (the host picked the block from the per-block potentials and
//            subtracted what comes before it): per target its global row
//            number and the row's d values (float64), so no gather follows.
// The loops run as WebAssembly SIMD (wasm/kmeans.ts) where the row width
// allows, or as the same arithmetic in TypeScript, over sub-blocks of rows
// copied into the kernel's memory, so both give the same bits.
// In: the rows (n × d float64, a box of whole rows), the centers (k × d).
// Out: labels, one partial row per call (the combine sums them), or blocks.

import type { RoutineParams } from '../graph/node.js';
import { KMEANS_WASM_MAX_D, type PotMin, nearModule, potModule } from '../wasm/kmeans.js';
import { type Region, type RegionSpec, type Routine, onlyParams } from './region.js';

const count = (params: RoutineParams, name: string): number => {
  const v = params[name];
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 1) throw new TypeError(`routine parameter ${name} must be a positive count`);
  return v;
};

function dims(params: RoutineParams, more: readonly string[] = []): { k: number; d: number; weighted: boolean; fresh: boolean } {
  onlyParams(params, ['k', 'd', 'weighted', 'fresh', ...more]);
  return { k: count(params, 'k'), d: count(params, 'd'), weighted: params.weighted === true, fresh: params.fresh === true };
}

/** A float64 region of `rows` rows (any, when undefined) and `cols` columns. */
function checkBlock(r: RegionSpec | undefined, rows: number | undefined, cols: number, what: string): void {
  if (!r || r.dtype !== 'float64' || r.shape.length !== 2 || (rows !== undefined && r.shape[0] !== rows) || r.shape[1] !== cols) {
    throw new TypeError(`k-means reads ${what} as a float64 [${rows ?? 'n'}, ${cols}] region`);
  }
}

function checkWeights(w: RegionSpec | undefined, n: number): void {
  if (!w || w.dtype !== 'float64' || w.shape.length !== 1 || w.shape[0] !== n) throw new TypeError('k-means reads one float64 weight per row');
}

/** A 2-d region as one dense row-major array. */
function dense(c: Region): Float64Array {
  const [k, d] = c.shape as [number, number];
  const out = new Float64Array(k * d);
  for (let j = 0; j < k; j++) for (let f = 0; f < d; f++) out[j * d + f] = c.data[j * c.strides[0]! + f * c.strides[1]!] as number;
  return out;
}

// ---------------------------------------------------------------------------
// The kernels: WebAssembly where it runs, else the same loops in TypeScript
// over the same memory layout.

/** Rows per sub-block copied into the kernel's memory. */
const SUB = 4096;

type NearFn = (x: number, n: number, C: number, cc: number, labels: number, dists: number, sums: number, counts: number, w: number,
  first: number, hashes: number) => number;
type PotFn = (x: number, n: number, C: number, cl: number, cs: number, w: number, sums: number, out: number) => void;
interface Kernel<F> { memory: WebAssembly.Memory; fn: F }

/** One instance per shape and thread, made on first use (null where WebAssembly or its SIMD is missing). */
const KERNELS = new Map<string, Kernel<NearFn | PotFn> | null>();

function kernel<F>(key: string, bytes: () => Uint8Array<ArrayBuffer>, name: string): Kernel<F> | null {
  if (!KERNELS.has(key)) {
    let k: Kernel<F> | null = null;
    try {
      const memory = new WebAssembly.Memory({ initial: 1 });
      const inst = new WebAssembly.Instance(new WebAssembly.Module(bytes()), { env: { memory } });
      k = { memory, fn: inst.exports[name] as F };
    } catch { k = null; }
    KERNELS.set(key, k as Kernel<NearFn | PotFn> | null);
  }
  return KERNELS.get(key) as Kernel<F> | null;
}

/** Memory of at least `bytes` for a kernel (wasm) or its TypeScript stand-in. */
function memoryOf(k: Kernel<unknown> | null, bytes: number): ArrayBuffer {
  if (!k) return new ArrayBuffer(bytes);
  const pages = Math.ceil(bytes / 65536) - k.memory.buffer.byteLength / 65536;
  if (pages > 0) k.memory.grow(pages);
  return k.memory.buffer as ArrayBuffer;
}

/** nearModule's function in TypeScript, on the same layout. */
function nearTs(buf: ArrayBuffer, d: number, P: number): NearFn {
  const f64 = new Float64Array(buf), i32 = new Int32Array(buf);
  return (x, n, C, cc, labels, dists, sums, counts, w, first, hashes) => {
    let inertia = 0;
    for (let r = 0; r < n; r++, x += 8 * d) {
      const xr = x / 8;
      let best = Infinity, bj = 0;
      for (let p = 0; p < P; p++) {
        for (let l = 0; l < 2; l++) {
          let dot = 0;
          for (let f = 0; f < d; f++) dot += f64[xr + f]! * f64[C / 8 + 2 * (p * d + f) + l]!;
          const v = f64[cc / 8 + 2 * p + l]! - (dot + dot);
          if (v < best) { best = v; bj = 2 * p + l; }
        }
      }
      const base = C / 8 + (bj >> 1) * 2 * d + (bj & 1);
      let dist = 0;
      for (let f = 0; f < d; f++) { const t = f64[xr + f]! - f64[base + 2 * f]!; dist += t * t; }
      i32[labels / 4 + r] = bj; f64[dists / 8 + r] = dist;
      if (sums) {
        const wt = w ? f64[w / 8 + r]! : 1;
        for (let f = 0; f < d; f++) f64[sums / 8 + bj * d + f]! += wt * f64[xr + f]!;
        f64[counts / 8 + bj]! += wt;
        inertia += wt * dist;
        const p = first + r;
        f64[hashes / 8]! += (bj + 1) * (Math.imul(p, 0x9e3779b1) >>> 12);
        f64[hashes / 8 + 1]! += (bj + 1) * (Math.imul(p ^ 0x5bd1e995, 0x85ebca6b) >>> 12);
      }
    }
    return inertia;
  };
}

/** potModule's function in TypeScript, on the same layout. */
function potTs(buf: ArrayBuffer, d: number, P: number, min: PotMin): PotFn {
  const f64 = new Float64Array(buf);
  return (x, n, C, cl, cs, w, sums, out) => {
    const acc = new Float64Array(2 * P);
    for (let r = 0; r < n; r++, x += 8 * d) {
      const xr = x / 8, wt = w ? f64[w / 8 + r]! : 1, row = cl / 8 + r * cs;
      for (let p = 0; p < P; p++) {
        for (let l = 0; l < 2; l++) {
          let a = 0;
          for (let f = 0; f < d; f++) { const t = f64[xr + f]! - f64[C / 8 + 2 * (p * d + f) + l]!; a += t * t; }
          if (min.kind === 'lanes') a = Math.min(a, f64[row + 2 * p + l]!);
          if (min.kind === 'runs') a = Math.min(a, f64[row + Math.floor(p / min.ppr)]!);
          if (out) f64[out / 8 + r * 2 * P + 2 * p + l] = a;
          acc[2 * p + l]! += a * wt;
        }
      }
    }
    for (let i = 0; i < 2 * P; i++) f64[sums / 8 + i]! += acc[i]!;
  };
}

/** Centers packed in pairs, dimension-major (wasm/kmeans.ts), the odd one padded with `pad` (0) and its norm with +Infinity. */
function pack(C: Float64Array, k: number, d: number, f64: Float64Array, at: number, norms: number | null): void {
  const P = Math.ceil(k / 2);
  for (let j = 0; j < 2 * P; j++) {
    let s = 0;
    for (let f = 0; f < d; f++) {
      const v = j < k ? C[j * d + f]! : 0;
      f64[at + 2 * ((j >> 1) * d + f) + (j & 1)] = v;
      s += v * v;
    }
    if (norms !== null) f64[norms + j] = j < k ? s : Infinity;
  }
}

/** Copies rows [r0, r0 + m) of a region of d columns into f64 at `at`, row-major. */
function copyRows(x: Region, r0: number, m: number, d: number, f64: Float64Array, at: number): void {
  const s0 = x.strides[0]!, s1 = x.strides[1]!, data = x.data as Float64Array;
  if (s1 === 1 && s0 === d) { f64.set(data.subarray(r0 * d, (r0 + m) * d), at); return; }
  for (let r = 0; r < m; r++) for (let f = 0; f < d; f++) f64[at + r * d + f] = data[(r0 + r) * s0 + f * s1]!;
}

function copyVector(w: Region, r0: number, m: number, f64: Float64Array, at: number): void {
  const s = w.strides[0]!, data = w.data as Float64Array;
  for (let r = 0; r < m; r++) f64[at + r] = data[(r0 + r) * s]!;
}

interface Near { labels: Int32Array; sums: Float64Array; counts: Float64Array; inertia: number; hashes: Float64Array }

/**
 * Each row's nearest of k centers for each of `runs` sets of centers (C holds
 * runs·k rows), and with `fold` each run's Lloyd sums (weighted by w) and its
 * two label sums; the rows are copied into the kernel's memory once for all
 * runs. Labels are kept for the last run only (kassign has one).
 */
function near(x: Region, C: Float64Array, k: number, d: number, w: Region | null, fold: boolean, runs = 1): Near[] {
  const n = x.shape[0]!, P = Math.ceil(k / 2), first = x.origin[0]!;
  const wk = d <= KMEANS_WASM_MAX_D ? kernel<NearFn>(`near ${d} ${P}`, () => nearModule(d, P), 'near') : null;
  // layout (bytes), per run: centers, norms, counts, sums, label sums; then rows, weights, dists, labels
  const per = 16 * P * d + 16 * P + 16 * P + 16 * P * d + 16;
  const oX = runs * per, oW = oX + 8 * SUB * d, oD = oW + 8 * SUB, oL = oD + 8 * SUB;
  const at = (r: number) => {
    const oC = r * per, oCC = oC + 16 * P * d, oN = oCC + 16 * P, oS = oN + 16 * P, oH = oS + 16 * P * d;
    return { oC, oCC, oN, oS, oH };
  };
  const buf = memoryOf(wk, oL + 4 * SUB);
  const f64 = new Float64Array(buf), i32 = new Int32Array(buf);
  const fn = wk ? wk.fn : nearTs(buf, d, P);
  for (let r = 0; r < runs; r++) {
    const o = at(r);
    pack(C.subarray(r * k * d, (r + 1) * k * d), k, d, f64, o.oC / 8, o.oCC / 8);
    f64.fill(0, o.oN / 8, (o.oH + 16) / 8);
  }
  const labels = new Int32Array(n), inertia = new Float64Array(runs);
  for (let r0 = 0; r0 < n; r0 += SUB) {
    const m = Math.min(SUB, n - r0);
    copyRows(x, r0, m, d, f64, oX / 8);
    if (w) copyVector(w, r0, m, f64, oW / 8);
    for (let r = 0; r < runs; r++) {
      const o = at(r);
      inertia[r]! += fn(oX, m, o.oC, o.oCC, oL, oD, fold ? o.oS : 0, o.oN, w ? oW : 0, first + r0, o.oH);
    }
    labels.set(i32.subarray(oL / 4, oL / 4 + m), r0);
  }
  return Array.from({ length: runs }, (_, r) => {
    const o = at(r);
    return {
      labels, sums: f64.slice(o.oS / 8, o.oS / 8 + k * d), counts: f64.slice(o.oN / 8, o.oN / 8 + k), inertia: inertia[r]!,
      hashes: f64.slice(o.oH / 8, o.oH / 8 + 2),
    };
  });
}

/**
 * The distances of every row to m centers (with `min`, min'd with the rows'
 * closest distances `cl`, whose row has `cs` columns), summed per center
 * times the weights; each row's m values go to `store` when given.
 */
function pot(x: Region, C: Float64Array, m: number, d: number, min: PotMin, cl: Region | null, w: Region | null,
  store: ((r0: number, rows: number, f64: Float64Array, at: number, width: number) => void) | null): Float64Array {
  const n = x.shape[0]!, P = Math.ceil(m / 2);
  const key = `pot ${d} ${P} ${min.kind} ${min.kind === 'runs' ? min.ppr : 0}`;
  const wk = d <= KMEANS_WASM_MAX_D ? kernel<PotFn>(key, () => potModule(d, P, min), 'pot') : null;
  const cs = min.kind === 'lanes' ? 2 * P : cl ? cl.shape[1]! : 0;
  // layout (bytes): centers, sums, closest, rows, weights, stored distances
  const oC = 0, oS = 16 * P * d, oCl = oS + 16 * P, oX = oCl + 8 * SUB * cs, oW = oX + 8 * SUB * d, oO = oW + 8 * SUB;
  const buf = memoryOf(wk, oO + 16 * SUB * P);
  const f64 = new Float64Array(buf);
  const fn = wk ? wk.fn : potTs(buf, d, P, min);
  pack(C, m, d, f64, oC / 8, null);
  f64.fill(0, oS / 8, oCl / 8);
  for (let r0 = 0; r0 < n; r0 += SUB) {
    const rows = Math.min(SUB, n - r0);
    copyRows(x, r0, rows, d, f64, oX / 8);
    if (w) copyVector(w, r0, rows, f64, oW / 8);
    if (cl) {
      const c = cl.shape[1]!;
      if (c === cs) copyRows(cl, r0, rows, c, f64, oCl / 8);
      else {
        // one column per lane, padded to the pairs with +Infinity (the padded center's min is its distance)
        f64.fill(Infinity, oCl / 8, oCl / 8 + rows * cs);
        const [t0, t1] = cl.strides as [number, number];
        for (let r = 0; r < rows; r++) for (let j = 0; j < c; j++) f64[oCl / 8 + r * cs + j] = cl.data[(r0 + r) * t0 + j * t1] as number;
      }
    }
    fn(oX, rows, oC, oCl, cs, w ? oW : 0, oS, store ? oO : 0);
    if (store) store(r0, rows, f64, oO / 8, 2 * P);
  }
  return f64.slice(oS / 8, oS / 8 + m);
}

/** Writes `cols` of each stored row (width `width`) into a 2-d float64 region. */
const storeInto = (out: Region, cols: number) => (r0: number, rows: number, f64: Float64Array, at: number, width: number): void => {
  const o = out.data as Float64Array, t0 = out.strides[0]!, t1 = out.strides[1]!;
  for (let r = 0; r < rows; r++) for (let j = 0; j < cols; j++) o[(r0 + r) * t0 + j * t1] = f64[at + r * width + j]!;
};

/** One float64 row written along a [1, width] region. */
function writeRow(out: Region, values: ArrayLike<number>): void {
  const o = out.data as Float64Array, s = out.strides[1]!;
  for (let i = 0; i < values.length; i++) o[i * s] = values[i]!;
}

/** klocate's parameters: the run's column, the runs, the row width and the targets. */
function locateParams(params: RoutineParams): { col: number; runs: number; d: number; targets: readonly number[]; weighted: boolean } {
  onlyParams(params, ['col', 'runs', 'd', 'targets', 'weighted']);
  const { col, targets } = params;
  const runs = count(params, 'runs'), d = count(params, 'd');
  if (typeof col !== 'number' || !Number.isSafeInteger(col) || col < 0 || col >= runs) {
    throw new TypeError('routine parameter col must be a column of the runs');
  }
  if (!Array.isArray(targets) || targets.length < 1 || targets.some((t) => typeof t !== 'number' || !(t >= 0))) {
    throw new TypeError('routine parameter targets must be non-negative numbers');
  }
  return { col, runs, d, targets: targets as readonly number[], weighted: params.weighted === true };
}

export const CLUSTER_ROUTINES: Readonly<Record<'kassign' | 'kstep' | 'kdist' | 'kpp' | 'kclose' | 'klocate', Routine>> = {
  kdist: {
    check(params, inputs, output) {
      const { k, d } = dims(params);
      if (inputs.length !== 2) throw new TypeError('kdist reads the rows and the centers');
      checkBlock(inputs[0], undefined, d, 'rows'); checkBlock(inputs[1], k, d, 'centers');
      checkBlock(output, inputs[0]!.shape[0], k, 'its output');
    },
    run(params, [x, c], out) {
      const { k, d } = dims(params);
      pot(x!, dense(c!), k, d, { kind: 'none' }, null, null, storeInto(out, k));
    },
  },
  kassign: {
    check(params, inputs, output) {
      const { k, d } = dims(params);
      if (inputs.length !== 2) throw new TypeError('kassign reads the rows and the centers');
      checkBlock(inputs[0], undefined, d, 'rows'); checkBlock(inputs[1], k, d, 'centers');
      if (output.dtype !== 'int32' || output.shape.length !== 1 || output.shape[0] !== inputs[0]!.shape[0]) {
        throw new TypeError('kassign writes one int32 label per row');
      }
    },
    run(params, [x, c], out) {
      const { k, d } = dims(params);
      const [{ labels }] = near(x!, dense(c!), k, d, null, false) as [Near];
      const o = out.data as Int32Array, s = out.strides[0]!;
      for (let r = 0; r < labels.length; r++) o[r * s] = labels[r]!;
    },
  },
  kstep: {
    check(params, inputs, output) {
      const { k, d, weighted } = dims(params, ['runs']);
      const runs = params.runs === undefined ? 1 : count(params, 'runs');
      if (inputs.length !== (weighted ? 3 : 2)) throw new TypeError('kstep reads the rows, the centers (and the weights)');
      checkBlock(inputs[0], undefined, d, 'rows'); checkBlock(inputs[1], runs * k, d, 'centers');
      if (weighted) checkWeights(inputs[2], inputs[0]!.shape[0]!);
      checkBlock(output, 1, runs * (k * d + k + 3), 'its output');
    },
    run(params, [x, c, w], out) {
      const { k, d } = dims(params, ['runs']);
      const runs = params.runs === undefined ? 1 : count(params, 'runs');
      const res = near(x!, dense(c!), k, d, w ?? null, true, runs);
      writeRow(out, res.flatMap(({ sums, counts, inertia, hashes }) => [...sums, ...counts, inertia, ...hashes]));
    },
  },
  kpp: {
    check(params, inputs, output) {
      const { k, d, weighted, fresh } = dims(params, ['runs']);
      const runs = count(params, 'runs');
      if (k % runs !== 0 || (k / runs) % 2 !== 0) throw new TypeError('kpp takes an even number of candidates per run');
      if (inputs.length !== 2 + (fresh ? 0 : 1) + (weighted ? 1 : 0)) {
        throw new TypeError('kpp reads the rows, the closest distances, the candidates (and the weights)');
      }
      const n = inputs[0]!.shape[0]!;
      checkBlock(inputs[0], undefined, d, 'rows');
      if (!fresh) checkBlock(inputs[1], n, runs, 'closest distances');
      checkBlock(inputs[fresh ? 1 : 2], k, d, 'candidates');
      if (weighted) checkWeights(inputs[inputs.length - 1], n);
      checkBlock(output, 1, k, 'its output');
    },
    run(params, inputs, out) {
      const { k, d, weighted, fresh } = dims(params, ['runs']);
      const runs = count(params, 'runs');
      const [x, cl, c] = fresh ? [inputs[0]!, null, inputs[1]!] : [inputs[0]!, inputs[1]!, inputs[2]!];
      const min: PotMin = fresh ? { kind: 'none' } : { kind: 'runs', ppr: k / runs / 2 };
      writeRow(out, pot(x, dense(c), k, d, min, cl, weighted ? inputs[inputs.length - 1]! : null, null));
    },
  },
  kclose: {
    check(params, inputs, output) {
      const { k, d, fresh } = dims(params);
      if (inputs.length !== (fresh ? 2 : 3)) throw new TypeError('kclose reads the rows, the closest distances and the kept centers');
      const n = inputs[0]!.shape[0]!;
      checkBlock(inputs[0], undefined, d, 'rows');
      if (!fresh) checkBlock(inputs[1], n, k, 'closest distances');
      checkBlock(inputs[fresh ? 1 : 2], k, d, 'kept centers');
      checkBlock(output, n, k, 'its output');
    },
    run(params, inputs, out) {
      const { k, d, fresh } = dims(params);
      const [x, cl, c] = fresh ? [inputs[0]!, null, inputs[1]!] : [inputs[0]!, inputs[1]!, inputs[2]!];
      pot(x, dense(c), k, d, fresh ? { kind: 'none' } : { kind: 'lanes' }, cl, null, storeInto(out, k));
    },
  },
  klocate: {
    check(params, inputs, output) {
      const { runs, d, targets, weighted } = locateParams(params);
      if (inputs.length !== (weighted ? 3 : 2)) throw new TypeError('klocate reads the closest distances, the rows (and the weights)');
      checkBlock(inputs[0], undefined, runs, 'closest distances');
      checkBlock(inputs[1], inputs[0]!.shape[0], d, 'rows');
      if (weighted) checkWeights(inputs[2], inputs[0]!.shape[0]!);
      checkBlock(output, 1, targets.length * (d + 1), 'its output');
    },
    run(params, [cl, x, w], out) {
      const { col, d, targets } = locateParams(params);
      const n = cl!.shape[0]!, data = cl!.data as Float64Array, s0 = cl!.strides[0]!, s1 = cl!.strides[1]!;
      const wd = w?.data as Float64Array | undefined, ws = w?.strides[0] ?? 0;
      // targets in increasing order, met in one walk; the sum is kpp's (the value times the weight, added in row order)
      const order = targets.map((_, i) => i).sort((a, b) => targets[a]! - targets[b]!);
      const found = new Float64Array(targets.length * (d + 1));
      const xd = x!.data as Float64Array, x0 = x!.strides[0]!, x1 = x!.strides[1]!;
      let sum = 0, r = 0, lastPositive = -1;
      for (const i of order) {
        for (; r < n && !(sum > targets[i]!); r++) {
          const v = data[r * s0 + col * s1]! * (wd ? wd[r * ws]! : 1);
          sum += v;
          if (v > 0) lastPositive = r;
        }
        // a target at or past the block's total (rounding in the host's subtraction) takes its last row that can be drawn
        const at = sum > targets[i]! ? r - 1 : lastPositive >= 0 ? lastPositive : n - 1;
        found[i * (d + 1)] = cl!.origin[0]! + at;
        for (let f = 0; f < d; f++) found[i * (d + 1) + 1 + f] = xd[at * x0 + f * x1]!;
      }
      writeRow(out, found);
    },
  },
};
