// Routines: the hand-written chunk operations that are no generated kernel
// (DESIGN.md, "Kernels and routines"). A plan names a routine and its plain
// parameters (tile/tile.ts RoutineTask); every thread and every peer runs its
// own copy of this table, so a routine is never shipped as code, and a peer
// checks a call's parameters and regions against the routine (`check`)
// before it runs it. A routine reads strided regions of the chunk heap (or of
// a peer's buffers) and writes one output region; it must be deterministic,
// so that a re-run gives the same bits (lineage recompute, verification).
// Here: the four stages of the chunked stable sort (runtime/resolve.ts):
//   sort   one 1-d chunk sorted by radix (NumPy's order: NaNs last, -0 equal
//          to 0, ties in input order); with `indices`, the chunk's sort keys
//          and global positions as an int64 [2, n] region, for argsort;
//   sample evenly spaced keys of one sorted chunk;
//   rank   for every sample, how many elements of one sorted chunk come
//          before it in the order (key, chunk, position): the host's only
//          read, from which it brackets each output chunk's slices;
//   merge  the slices of every sorted chunk that hold one output chunk,
//          merged pairwise in chunk order (a tie takes the earlier chunk's
//          element, so ties keep input order), less the first `skip`
//          elements, which an earlier chunk holds: values, or the positions;
// and the two stages of a chunked boolean selection (resolve.ts `compressInChunks`):
//   count    the true entries of one mask segment, one int64;
//   compact  the kept hyperplanes of consecutive (data, mask) segments, after
//            skipping the first `skip` kept ones, into one output chunk;
//   positions  the same over the masks alone, writing the kept elements'
//            positions (np.flatnonzero: no index array is made to be compacted);
//   take     a gather from a 1-d array of several chunks (graph/node.ts
//            `gather`): each result chunk from its indices and every chunk;
//   takerows the same along the first axis of an array chunked by rows
//            only: whole rows, each result chunk from every chunk of rows;
//   lines    every line along an axis of a region that holds whole lines,
//            sorted on its own (radix for long lines), or its positions;
//   quantiles  the quantiles of every line along the last axis of such a
//            region (numerics/quantile.ts's arithmetic, NumPy's bits).
// The radix sort itself (radixKeys, radixLine) also serves the host's
// operations on whole lines (quantiles, short sorts) in resolve.ts. A tiled
// factorization adds its tile kernels here (./tiles.ts: POTRF, TRSM, SYRK,
// GEMM on tiles, each call writing one tile) and needs no other task kind: its
// DAG is a routine node's calls reading the tiles earlier calls wrote (tile/tile.ts).
// ./scatter.ts has the folds of ufunc.at and bincount in chunks, ./search.ts
// searchsorted's search, ./group.ts a DataFrame groupby's fold into
// partials, ./join.ts a merge's counting sort, ./cluster.ts k-means'
// assignment and fold, ./tsqr.ts a tall-skinny QR's block factors,
// ./neighbors.ts the brute-force k nearest neighbours, ./radius.ts the
// neighbours within a radius, ./logit.ts logistic regression's Newton
// pass, ./tiles.ts the tiled factorizations' tiles; ./region.ts the
// contract every routine is written to.
// In: parameters and heap views. Out: the output region written.

import { ARRAY_CTOR, type DType, INFO, type TypedArray } from '../graph/dtype.js';
import type { RoutineParams } from '../graph/node.js';
import { type QKind, type QuantileSpec, isQuantileMethod, quantileDType } from '../graph/quantile.js';
import { quantileLine } from '../numerics/quantile.js';
import { type Region, type RegionSpec, type Routine, contiguous, flag, len, onlyParams, regionSpan, words } from './region.js';
import { SCATTER_ROUTINES } from './scatter.js';
import { GROUP_ROUTINES } from './group.js';
import { SEARCH_ROUTINES } from './search.js';
import { JOIN_ROUTINES } from './join.js';
import { CLUSTER_ROUTINES } from './cluster.js';
import { TSQR_ROUTINES } from './tsqr.js';
import { NEIGHBOR_ROUTINES } from './neighbors.js';
import { RADIUS_ROUTINES } from './radius.js';
import { TILE_ROUTINES } from './tiles.js';
import { QR_TILE_ROUTINES } from './qrtiles.js';
import { LU_ROUTINES } from './lutiles.js';
import { LOGIT_ROUTINES } from './logit.js';

export { type Region, type RegionSpec, regionSpan };

/** The dtypes the radix sort orders (every one but float16, which sorts as float32). */
const SORTABLE: ReadonlySet<DType> = new Set<DType>([
  'bool', 'int8', 'int16', 'int32', 'int64', 'uint8', 'uint16', 'uint32', 'float32', 'float64',
]);

export const isSortable = (d: DType): boolean => SORTABLE.has(d);

function count(params: RoutineParams, name: string): number {
  const v = params[name];
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) throw new TypeError(`routine parameter ${name} must be a count`);
  return v;
}

/** An array's elements as integer units that copy its bits exactly (two int32 words per 8-byte element). */
function units2(t: TypedArray, bytes: number): Int32Array | Int16Array | Int8Array {
  const C = bytes >= 4 ? Int32Array : bytes === 2 ? Int16Array : Int8Array;
  return new C(t.buffer as ArrayBuffer, t.byteOffset, t.byteLength / C.BYTES_PER_ELEMENT);
}

/** The element offsets (by `strides`) of every index of a box of `shape`, in C order. */
function offsets(shape: readonly number[], strides: readonly number[]): Int32Array {
  let out = new Int32Array([0]);
  for (let d = 0; d < shape.length; d++) {
    const n = shape[d]!, s = strides[d]!;
    if (n === 1) continue;
    const next = new Int32Array(out.length * n);
    for (let a = 0; a < out.length; a++) for (let i = 0; i < n; i++) next[a * n + i] = out[a]! + i * s;
    out = next;
  }
  return out;
}

/** A quantile routine's parameters as the spec they spell (graph/quantile.ts), checked. */
function specOf(params: RoutineParams): QuantileSpec {
  const { method, qs, qShape, qKind, omitNaN } = params;
  const nums = (v: unknown): v is readonly number[] => Array.isArray(v) && v.every((e) => typeof e === 'number');
  if (method !== 'median' && !isQuantileMethod(method)) throw new TypeError('routine parameter method must be a quantile method');
  if (!nums(qs) || !nums(qShape) || typeof qKind !== 'string' || typeof omitNaN !== 'boolean') {
    throw new TypeError('routine parameters qs, qShape (numbers), qKind (a string) and omitNaN (a boolean) are required');
  }
  if (method !== 'median' && qShape.reduce((a, b) => a * b, 1) !== qs.length) throw new TypeError('routine parameter qShape must hold qs');
  return { method, qs, qShape, qKind: qKind as QKind, omitNaN };
}


/** A key region of argsort: int64 [2, n], keys in row 0 and global positions in row 1. */
const isKeyRegion = (r: RegionSpec): boolean => r.dtype === 'int64' && r.shape.length === 2 && r.shape[0] === 2;

/** Elements of a sorted run: a sort's 1-d chunk, or an argsort key region's columns. */
const runLength = (r: RegionSpec): number => r.shape[r.shape.length - 1]!;

/**
 * Where sample j of `s` lies in sorted run i (of k) of `m` elements, so
 * that 'sample' and 'rank' agree on it without being told: evenly spaced,
 * each run's grid shifted by (i + 1/2)/k of a step. Runs drawn alike have
 * their j-th samples at about the same value: unshifted, the samples of all
 * runs would bunch there, n/S ranks apart; shifted, they interleave, n/(k·S) apart.
 */
const samplePos = (j: number, m: number, s: number, i: number, k: number): number => Math.floor(((j + (i + 0.5) / k) * m) / s);

type SortRoutine =
  'sort' | 'merge' | 'sample' | 'rank' | 'count' | 'compact' | 'positions' | 'take' | 'takerows' | 'lines' | 'quantiles';

const SORT_ROUTINES: Readonly<Record<SortRoutine, Routine>> = {
  sort: {
    check(params, inputs, output) {
      onlyParams(params, ['indices']);
      const indices = flag(params, 'indices');
      const x = inputs[0];
      if (inputs.length !== 1 || x!.shape.length !== 1 || !isSortable(x!.dtype)) {
        throw new TypeError('sort reads one 1-d chunk of a sortable dtype');
      }
      const want = indices
        ? isKeyRegion(output) && output.shape[1] === x!.shape[0]
        : output.dtype === x!.dtype && output.shape.length === 1 && output.shape[0] === x!.shape[0];
      if (!want) throw new TypeError('sort writes a chunk of its input\'s extent (int64 [2, n] with indices)');
    },
    run(params, [x], out) {
      const n = x!.shape[0]!;
      if (n === 0) return;
      const xs = contiguous(x!);
      const keys = radixKeys(x!.dtype, xs);
      if (!params.indices) { radixLine(keys, xs, out.data, false, 0, n, 1); return; }
      const perm = radixPerm(keys, 0, n, 1);
      const ow = words(out.data);
      const to = { lo: 0, hi: 0 };
      const rowStride = out.strides[0]!;
      const origin = x!.origin[0]!;
      for (let k = 0; k < n; k++) {
        keys.key(perm[k]!, to);
        // keys as signed int64s (the top bit flipped): radixKeys('int64') orders them back the same way
        ow[2 * k] = to.lo; ow[2 * k + 1] = keys.wide ? to.hi ^ 0x80000000 : 0;
        const at = 2 * (rowStride + k), pos = origin + perm[k]!;
        ow[at] = pos % 2 ** 32; ow[at + 1] = Math.floor(pos / 2 ** 32);
      }
    },
  },
  merge: {
    check(params, inputs, output) {
      onlyParams(params, ['indices', 'skip']);
      const indices = flag(params, 'indices');
      const skip = params.skip === undefined ? 0 : count(params, 'skip');
      if (!inputs.length) throw new TypeError('merge reads at least one sorted slice');
      const total = inputs.reduce((a, r) => a + (indices ? r.shape[1] ?? 0 : len(r)), 0);
      const d = inputs[0]!.dtype;
      const ok = indices
        ? inputs.every(isKeyRegion) && output.dtype === 'int64'
        : inputs.every((r) => r.shape.length === 1 && r.dtype === d && isSortable(d)) && output.dtype === d;
      if (!ok || output.shape.length !== 1) {
        throw new TypeError('merge writes one 1-d chunk of its slices\' dtype (int64 with indices)');
      }
      if (output.shape[0]! > total - skip) {
        throw new TypeError(`merge: skip ${skip} leaves ${Math.max(0, total - skip)} of its slices' ${total} elements, `
          + `fewer than the output's ${output.shape[0]}`);
      }
    },
    run(params, inputs, out) {
      const n = out.shape[0]!;
      if (n === 0) return;
      const skip = (params.skip as number | undefined) ?? 0;
      const runs = inputs.map((r) => (params.indices ? r.shape[1]! : r.shape[0]!));
      const total = runs.reduce((a, b) => a + b, 0);
      if (!params.indices) {
        const xs = concat(inputs.map(contiguous), out.dtype, total);
        writeSorted(mergePerm(radixKeys(out.dtype, xs), runs, total).subarray(skip), xs, out.data, false, 0, n, 1);
        return;
      }
      // keys (row 0) and positions (row 1) of every slice, side by side
      const keys = new BigInt64Array(scratch(Slot.Values, 8 * total), 0, total);
      const pos = new BigInt64Array(scratch(Slot.Positions, 8 * total), 0, total);
      const kw = words(keys), pw = words(pos);
      let at = 0;
      for (const r of inputs) {
        const m = r.shape[1]!, w = words(r.data), s = r.strides[0]!;
        kw.set(w.subarray(0, 2 * m), 2 * at);
        pw.set(w.subarray(2 * s, 2 * (s + m)), 2 * at);
        at += m;
      }
      const perm = mergePerm(radixKeys('int64', keys), runs, total).subarray(skip);
      const ow = words(out.data);
      for (let k = 0; k < n; k++) { ow[2 * k] = pw[2 * perm[k]!]!; ow[2 * k + 1] = pw[2 * perm[k]! + 1]!; }
    },
  },
  sample: {
    check(params, inputs, output) {
      onlyParams(params, ['indices', 'count', 'run', 'runs']);
      const indices = flag(params, 'indices'), s = count(params, 'count');
      if (s === 0) throw new TypeError('routine parameter count of sample must be at least 1');
      if (count(params, 'run') >= count(params, 'runs')) throw new TypeError('routine parameter run of sample must be below runs');
      const x = inputs[0];
      const fits = inputs.length === 1 && (indices ? isKeyRegion(x!) : x!.shape.length === 1 && isSortable(x!.dtype));
      if (!fits || runLength(x!) === 0) {
        throw new TypeError('sample reads one non-empty sorted run (int64 [2, n] with indices)');
      }
      if (output.dtype !== x!.dtype || output.shape.length !== 1 || output.shape[0] !== s) {
        throw new TypeError(`sample writes ${s} keys of its run's dtype`);
      }
    },
    run(params, [x], out) {
      const s = params.count as number, m = runLength(x!), i = params.run as number, k = params.runs as number;
      const bytes = INFO[x!.dtype].bytes, units = bytes === 8 ? 2 : 1;
      // an argsort run's keys are its row 0: the same offsets as a sort run's values
      const xv = units2(x!.data, bytes), ov = units2(out.data, bytes);
      const xs = x!.strides[x!.shape.length - 1]!, os = out.strides[0]!;
      for (let j = 0; j < s; j++) {
        const a = units * samplePos(j, m, s, i, k) * xs, b = units * j * os;
        ov[b] = xv[a]!; if (units === 2) ov[b + 1] = xv[a + 1]!;
      }
    },
  },
  rank: {
    check(params, inputs, output) {
      onlyParams(params, ['indices', 'run', 'count', 'runLength', 'length']);
      const indices = flag(params, 'indices'), s = count(params, 'count');
      const c = count(params, 'runLength'), n = count(params, 'length'), i = count(params, 'run');
      if (s === 0 || c === 0) throw new TypeError('routine parameters count and runLength of rank must be at least 1');
      const k = Math.ceil(n / c), m = Math.min(n, (i + 1) * c) - i * c;
      if (i >= k) throw new TypeError(`routine parameter run of rank is ${i}, past the ${k} runs of ${n} elements in runs of ${c}`);
      const [x, samples] = inputs;
      if (inputs.length !== 2) throw new TypeError('rank reads one sorted run, then every run\'s samples');
      const fits = indices ? isKeyRegion(x!) : x!.shape.length === 1 && isSortable(x!.dtype);
      if (!fits || runLength(x!) !== m) throw new TypeError(`rank reads run ${i} whole first (${m} elements; int64 [2, n] with indices)`);
      if (samples!.dtype !== x!.dtype || samples!.shape.length !== 1 || samples!.shape[0] !== k * s) {
        throw new TypeError(`rank reads ${k * s} samples (${s} a run) of its run's dtype second`);
      }
      if (output.dtype !== 'int32' || output.shape.length !== 2 || output.shape[0] !== 1 || output.shape[1] !== k * s) {
        throw new TypeError(`rank writes int32 [1, ${k * s}]: a count for every sample`);
      }
    },
    run(params, [x, samples], out) {
      const indices = params.indices as boolean, i = params.run as number, s = params.count as number;
      const m = runLength(x!), k = Math.ceil((params.length as number) / (params.runLength as number));
      // an argsort run's keys are its row 0, signed int64s: radixKeys('int64') orders them as the sort did
      const dtype = indices ? 'int64' : x!.dtype;
      const row = indices ? { ...x!, shape: [m], strides: [x!.strides[1]!] } : x!;
      const keys = radixKeys(dtype, contiguous(row)), sk = radixKeys(dtype, contiguous(samples!));
      const to = { lo: 0, hi: 0 }, at = { lo: 0, hi: 0 };
      const o = out.data as Int32Array, os = out.strides[1]!;
      for (let t = 0; t < samples!.shape[0]!; t++) {
        const r = Math.floor(t / s);
        if (r === i) { o[t * os] = samplePos(t - r * s, m, s, i, k); continue; }
        // the order (key, run, position): an equal key of an earlier run comes before the sample, of a later one after
        const orEqual = i < r;
        sk.key(t, at);
        let a = 0, b = m;
        while (a < b) {
          const h = (a + b) >>> 1;
          keys.key(h, to);
          const before = to.hi < at.hi || (to.hi === at.hi && (orEqual ? to.lo <= at.lo : to.lo < at.lo));
          if (before) a = h + 1; else b = h;
        }
        o[t * os] = a;
      }
    },
  },
  count: {
    check(params, inputs, output) {
      onlyParams(params, []);
      const m = inputs[0];
      if (inputs.length !== 1 || m!.shape.length !== 1 || m!.dtype !== 'bool') throw new TypeError('count reads one 1-d bool region');
      if (output.dtype !== 'int64' || len(output) !== 1) throw new TypeError('count writes one int64');
    },
    run(_params, [m], out) {
      const n = m!.shape[0]!, s = m!.strides[0]!, d = m!.data;
      let k = 0;
      for (let i = 0; i < n; i++) if (d[i * s]) k++;
      const w = words(out.data);
      w[0] = k; w[1] = 0;
    },
  },
  compact: {
    check(params, inputs, output) {
      onlyParams(params, ['axis', 'skip']);
      const axis = count(params, 'axis'), skip = count(params, 'skip');
      if (inputs.length < 2 || inputs.length % 2) throw new TypeError('compact reads pairs of a data region and its mask');
      const nd = output.shape.length;
      if (axis >= nd) throw new RangeError(`compact: axis ${axis} is out of bounds for a ${nd}-d region`);
      let kept = -skip;
      for (let p = 0; p < inputs.length; p += 2) {
        const x = inputs[p]!, m = inputs[p + 1]!;
        const fits = x.dtype === output.dtype && x.shape.length === nd && m.dtype === 'bool' && m.shape.length === 1 &&
          m.shape[0] === x.shape[axis] && x.shape.every((d, i) => i === axis || d === output.shape[i]);
        if (!fits) throw new TypeError('compact: each data region matches the output but along the axis, and its mask its extent there');
        kept += m.shape[0]!;
      }
      if (kept < output.shape[axis]!) throw new RangeError('compact: the regions hold fewer elements than the output');
    },
    run(params, inputs, out) {
      const axis = params.axis as number;
      let skip = params.skip as number;
      const want = out.shape[axis]!;
      if (want === 0 || len(out) === 0) return;
      const bytes = INFO[out.dtype].bytes;
      const units = bytes === 8 ? 2 : 1;
      const ov = units2(out.data, bytes);
      // the element offsets of one hyperplane across the axis (every other index), in the output and in a data region
      const plane = out.shape.map((d, i) => (i === axis ? 1 : d));
      const outPlane = offsets(plane, out.strides);
      let o = 0;
      for (let p = 0; p < inputs.length && o < want; p += 2) {
        const x = inputs[p]!, m = inputs[p + 1]!;
        const n = m.shape[0]!, ms = m.strides[0]!, md = m.data;
        const xv = units2(x.data, bytes), xs = x.strides[axis]!, os = out.strides[axis]!;
        const flat = outPlane.length === 1;
        const xPlane = flat ? outPlane : offsets(plane, x.strides);
        for (let i = 0; i < n && o < want; i++) {
          if (!md[i * ms]) continue;
          if (skip > 0) { skip--; continue; }
          if (flat) {
            const a = units * i * xs, b = units * o * os;
            ov[b] = xv[a]!; if (units === 2) ov[b + 1] = xv[a + 1]!;
          } else {
            for (let k = 0; k < outPlane.length; k++) {
              const a = units * (i * xs + xPlane[k]!), b = units * (o * os + outPlane[k]!);
              ov[b] = xv[a]!; if (units === 2) ov[b + 1] = xv[a + 1]!;
            }
          }
          o++;
        }
      }
    },
  },
  positions: {
    check(params, inputs, output) {
      onlyParams(params, ['skip']);
      const skip = count(params, 'skip');
      if (!inputs.length || inputs.some((m) => m.dtype !== 'bool' || m.shape.length !== 1)) throw new TypeError('positions reads 1-d bool regions');
      if (output.dtype !== 'int64' || output.shape.length !== 1) throw new TypeError('positions writes a 1-d int64 chunk');
      if (inputs.reduce((a, m) => a + m.shape[0]!, -skip) < output.shape[0]!) {
        throw new RangeError('positions: the regions hold fewer elements than the output');
      }
    },
    run(params, inputs, out) {
      let skip = params.skip as number;
      const want = out.shape[0]!, os = out.strides[0]!, ow = words(out.data);
      let o = 0;
      for (const m of inputs) {
        const n = m.shape[0]!, ms = m.strides[0]!, md = m.data, origin = m.origin[0]!;
        for (let i = 0; i < n && o < want; i++) {
          if (!md[i * ms]) continue;
          if (skip > 0) { skip--; continue; }
          const at = origin + i;
          ow[2 * o * os] = at % 2 ** 32; ow[2 * o * os + 1] = Math.floor(at / 2 ** 32);
          o++;
        }
      }
    },
  },
  take: {
    check(params, inputs, output) {
      onlyParams(params, []);
      const [idx, ...xs] = inputs;
      if (!idx || idx.dtype !== 'int64' || idx.shape.length !== output.shape.length || idx.shape.some((d, i) => d !== output.shape[i])) {
        throw new TypeError('take reads an int64 index region of the output\'s extent first');
      }
      if (!xs.length || xs.some((r) => r.dtype !== output.dtype || r.shape.length !== 1)) throw new TypeError('take reads 1-d chunks of the output\'s dtype');
      if (xs.some((r, i) => i + 1 < xs.length && r.shape[0] !== xs[0]!.shape[0])) throw new TypeError('take reads the chunks of a regular grid');
    },
    run(_params, [idx, ...xs], out) {
      const n = len(out);
      if (n === 0) return;
      const bytes = INFO[out.dtype].bytes, units = bytes === 8 ? 2 : 1;
      const c = xs[0]!.shape[0]!, total = xs.reduce((a, r) => a + r.shape[0]!, 0);
      const views = xs.map((r) => units2(r.data, bytes)), strides = xs.map((r) => r.strides[0]!);
      const ov = units2(out.data, bytes), iw = words(idx!.data);
      const outAt = offsets(out.shape, out.strides), idxAt = offsets(idx!.shape, idx!.strides);
      for (let k = 0; k < n; k++) {
        const a = 2 * idxAt[k]!;
        let j = iw[a + 1]! * 2 ** 32 + (iw[a]! >>> 0);
        // as the gather kernel: a negative index counts from the end, and none reads outside the array
        if (j < 0) j += total;
        j = Math.min(Math.max(j, 0), total - 1);
        const q = Math.floor(j / c), from = units * (j - q * c) * strides[q]!, to = units * outAt[k]!;
        const v = views[q]!;
        ov[to] = v[from]!; if (units === 2) ov[to + 1] = v[from + 1]!;
      }
    },
  },
  takerows: {
    check(params, inputs, output) {
      onlyParams(params, []);
      const [idx, ...xs] = inputs;
      const rest = xs[0]?.shape.slice(1) ?? [];
      if (!idx || idx.dtype !== 'int64' || output.shape.length !== idx.shape.length + rest.length || idx.shape.some((d, i) => d !== output.shape[i])) {
        throw new TypeError('takerows reads an int64 index region of the output\'s leading extent first');
      }
      if (!xs.length || xs.some((r) => r.dtype !== output.dtype || r.shape.length !== rest.length + 1 || r.shape.slice(1).some((d, i) => d !== rest[i]))) {
        throw new TypeError('takerows reads whole-row chunks of the output\'s dtype and row shape');
      }
      if (rest.some((d, i) => output.shape[idx.shape.length + i] !== d)) throw new TypeError('takerows writes rows of its chunks\' shape');
      if (xs.some((r, i) => i + 1 < xs.length && r.shape[0] !== xs[0]!.shape[0])) throw new TypeError('takerows reads the chunks of a regular grid');
    },
    run(_params, [idx, ...xs], out) {
      const rows = len(idx!), w = len(out) / Math.max(1, rows);
      if (rows === 0 || w === 0) return;
      const bytes = INFO[out.dtype].bytes, units = bytes === 8 ? 2 : 1;
      const c = xs[0]!.shape[0]!, total = xs.reduce((a, r) => a + r.shape[0]!, 0);
      const views = xs.map((r) => units2(r.data, bytes));
      const within = xs.map((r) => offsets(r.shape.slice(1), r.strides.slice(1)));
      const ov = units2(out.data, bytes), iw = words(idx!.data);
      const outAt = offsets(out.shape, out.strides), idxAt = offsets(idx!.shape, idx!.strides);
      for (let k = 0; k < rows; k++) {
        const a = 2 * idxAt[k]!;
        let j = iw[a + 1]! * 2 ** 32 + (iw[a]! >>> 0);
        // as the gather kernel: a negative index counts from the end, and none reads outside the array
        if (j < 0) j += total;
        j = Math.min(Math.max(j, 0), total - 1);
        const q = Math.floor(j / c), v = views[q]!, inRow = within[q]!, base = (j - q * c) * xs[q]!.strides[0]!;
        for (let e = 0; e < w; e++) {
          const from = units * (base + inRow[e]!), to = units * outAt[k * w + e]!;
          ov[to] = v[from]!; if (units === 2) ov[to + 1] = v[from + 1]!;
        }
      }
    },
  },
  lines: {
    check(params, inputs, output) {
      onlyParams(params, ['axis', 'indices']);
      const axis = count(params, 'axis'), indices = flag(params, 'indices');
      const x = inputs[0];
      if (inputs.length !== 1 || !isSortable(x!.dtype) || axis >= x!.shape.length) {
        throw new TypeError('lines reads one region of a sortable dtype, with the axis in it');
      }
      const same = output.shape.length === x!.shape.length && output.shape.every((d, i) => d === x!.shape[i]);
      if (!same || output.dtype !== (indices ? 'int64' : x!.dtype)) throw new TypeError('lines writes a region of its input\'s extent (int64 with indices)');
    },
    run(params, [x], out) {
      const axis = params.axis as number, indices = params.indices as boolean;
      const n = x!.shape[axis]!;
      if (n === 0 || len(out) === 0) return;
      const plane = x!.shape.map((d, i) => (i === axis ? 1 : d));
      const xAt = offsets(plane, x!.strides), oAt = offsets(plane, out.strides);
      const xs = x!.strides[axis]!, os = out.strides[axis]!;
      const keys = radixKeys(x!.dtype, x!.data);
      const bytes = INFO[out.dtype].bytes, units = bytes === 8 ? 2 : 1;
      const xv = units2(x!.data, bytes), ov = units2(out.data, bytes), ow = indices ? words(out.data) : undefined;
      const hi = new Uint32Array(n), lo = new Uint32Array(n), to = { lo: 0, hi: 0 };
      const order = new Array<number>(n);
      const cmp = (p: number, q: number): number => hi[p]! - hi[q]! || lo[p]! - lo[q]! || p - q;
      for (let l = 0; l < xAt.length; l++) {
        const base = xAt[l]!, obase = oAt[l]!;
        let perm: ArrayLike<number>;
        if (n >= RADIX_LINE) perm = radixPerm(keys, base, n, xs);
        else {
          for (let k = 0; k < n; k++) { keys.key(base + k * xs, to); hi[k] = to.hi; lo[k] = to.lo; order[k] = k; }
          perm = order.sort(cmp);
        }
        for (let k = 0; k < n; k++) {
          const p = perm[k]!, o = obase + k * os;
          if (ow) { ow[2 * o] = p; ow[2 * o + 1] = 0; continue; }
          const a = units * (base + p * xs), b = units * o;
          ov[b] = xv[a]!; if (units === 2) ov[b + 1] = xv[a + 1]!;
        }
      }
    },
  },
  quantiles: {
    check(params, inputs, output) {
      onlyParams(params, ['method', 'qs', 'qShape', 'qKind', 'omitNaN']);
      const spec = specOf(params);
      const x = inputs[0];
      if (inputs.length !== 1 || !isSortable(x!.dtype) || x!.shape.length < 1) throw new TypeError('quantiles reads one region of lines of a sortable dtype');
      const nq = spec.method === 'median' ? 0 : spec.qShape.length;
      const lead = x!.shape.slice(0, -1);
      const want = [...spec.qShape.slice(0, nq), ...lead];
      if (output.shape.length !== want.length || output.shape.some((d, i) => d !== want[i])) {
        throw new TypeError('quantiles writes a region of q\'s shape, then the lines\'');
      }
      if (output.dtype !== quantileDType(x!.dtype, spec)) throw new TypeError(`quantiles writes ${quantileDType(x!.dtype, spec)}`);
    },
    run(params, [x], out) {
      const spec = specOf(params);
      const nd = x!.shape.length, n = x!.shape[nd - 1]!;
      const lead = x!.shape.slice(0, -1), nq = spec.method === 'median' ? 1 : spec.qs.length;
      const lines = lead.reduce((a, b) => a * b, 1);
      if (lines === 0) return;
      const xAt = offsets([...lead, 1], x!.strides), xs = x!.strides[nd - 1]!;
      const oAt = offsets([...out.shape.slice(0, out.shape.length - lead.length).map(() => 1), ...lead], out.strides);
      // q's positions in the output, in C order of q's shape (one when a median or a single q)
      const qAt = offsets([...out.shape.slice(0, out.shape.length - lead.length), ...lead.map(() => 1)], out.strides);
      const keys = radixKeys(x!.dtype, x!.data), bool = x!.dtype === 'bool';
      const hi = new Uint32Array(n), lo = new Uint32Array(n), to = { lo: 0, hi: 0 };
      const order = new Array<number>(n);
      const cmp = (p: number, q: number): number => hi[p]! - hi[q]! || lo[p]! - lo[q]! || p - q;
      const o = out.data as unknown as (number | bigint)[];
      for (let l = 0; l < lines; l++) {
        const base = xAt[l]!;
        let perm: ArrayLike<number>;
        if (n >= RADIX_LINE) perm = radixPerm(keys, base, n, xs);
        else {
          for (let k = 0; k < n; k++) { keys.key(base + k * xs, to); hi[k] = to.hi; lo[k] = to.lo; order[k] = k; }
          perm = order.sort(cmp);
        }
        const at = (k: number): number | bigint | boolean => (bool ? x!.data[base + perm[k]! * xs] !== 0 : x!.data[base + perm[k]! * xs]!);
        const r = quantileLine(at, n, x!.dtype, out.dtype, spec);
        for (let q = 0; q < nq; q++) {
          const v = r[q]!;
          o[oAt[l]! + qAt[q]!] = typeof v === 'boolean' ? +v : v;
        }
      }
    },
  },
};

/** Every routine a plan may name: the sort's, those of ufunc.at and bincount (./scatter.ts), searchsorted's (./search.ts) and a groupby's fold (./group.ts). */
export const ROUTINES = {
  ...SORT_ROUTINES, ...SCATTER_ROUTINES, ...SEARCH_ROUTINES, ...GROUP_ROUTINES, ...JOIN_ROUTINES, ...CLUSTER_ROUTINES, ...TSQR_ROUTINES, ...NEIGHBOR_ROUTINES,
  ...RADIUS_ROUTINES, ...TILE_ROUTINES, ...LOGIT_ROUTINES,
  ...LU_ROUTINES, ...QR_TILE_ROUTINES,
} as const;

export type RoutineName = keyof typeof ROUTINES;
export const isRoutine = (name: string): name is RoutineName => Object.hasOwn(ROUTINES, name);

/** Runs routine `name` (checked first: the table is the only code a call can reach). */
export function runRoutine(name: string, params: RoutineParams, inputs: readonly Region[], output: Region): void {
  if (!isRoutine(name)) throw new TypeError(`no routine named ${JSON.stringify(name)}`);
  ROUTINES[name].check(params, inputs, output);
  ROUTINES[name].run(params, inputs, output);
}

function concat(parts: readonly TypedArray[], dtype: DType, n: number): TypedArray {
  if (parts.length === 1) return parts[0]!;
  const out = new ARRAY_CTOR[dtype](scratch(Slot.Values, n * INFO[dtype].bytes), 0, n) as TypedArray;
  let at = 0;
  for (const p of parts) { out.set(p as never, at); at += p.length; }
  return out;
}

/** Lines at least this long sort by radix (stable, linear); shorter ones by comparisons. */
export const RADIX_LINE = 1024;

/** The sort keys of a typed array's element `j`: unsigned words ordered as NumPy orders values (NaNs last, -0 equal to 0). */
export interface RadixKeys {
  readonly wide: boolean;
  key(j: number, to: { lo: number; hi: number }): void;
  /** The array the keys come from, where a loop over it can compute them inline (float64, float32). */
  readonly source?: { readonly dtype: 'float64' | 'float32' | 'int64'; readonly xs: TypedArray };
}

export function radixKeys(dtype: string, xs: TypedArray): RadixKeys {
  const w = (): Uint32Array => new Uint32Array(xs.buffer, xs.byteOffset, xs.byteLength >>> 2);
  switch (dtype) {
    case 'float64': {
      const f = xs as Float64Array, u = w();
      return { wide: true, source: { dtype: 'float64', xs }, key(j, to) {
        const v = f[j]!;
        if (v !== v) { to.hi = 0xffffffff; to.lo = 0xffffffff; return; }
        if (v === 0) { to.hi = 0x80000000; to.lo = 0; return; }
        const h = u[2 * j + 1]!, l = u[2 * j]!;
        if (h & 0x80000000) { to.hi = ~h >>> 0; to.lo = ~l >>> 0; } else { to.hi = (h | 0x80000000) >>> 0; to.lo = l; }
      } };
    }
    case 'float32': {
      const f = xs as Float32Array, u = w();
      return { wide: false, source: { dtype: 'float32', xs }, key(j, to) {
        const v = f[j]!, b = u[j]!;
        to.lo = v !== v ? 0xffffffff : v === 0 ? 0x80000000 : b & 0x80000000 ? ~b >>> 0 : (b | 0x80000000) >>> 0;
      } };
    }
    case 'int64': {
      const u = w();
      return { wide: true, source: { dtype: 'int64', xs }, key(j, to) { to.hi = (u[2 * j + 1]! ^ 0x80000000) >>> 0; to.lo = u[2 * j]!; } };
    }
    case 'int32': case 'int16': case 'int8':
      return { wide: false, key(j, to) { to.lo = ((xs[j] as number) ^ 0x80000000) >>> 0; } };
    default: return { wide: false, key(j, to) { to.lo = (xs[j] as number) >>> 0; } };
  }
}

/**
 * Scratch memory of this thread, by slot, reused from call to call: a task's
 * temporaries would otherwise be garbage the size of its chunk, which the
 * collector frees late (each thread's peak memory grew by several chunks).
 * Buffers past SCRATCH_KEEP bytes (a host sort of one huge line) are not kept.
 */
const scratchBuffers: ArrayBuffer[] = [];
const SCRATCH_KEEP = 32 * 2 ** 20;
const enum Slot { Lo, Hi, Perm, NextLo, NextHi, NextPerm, Values, Positions }

function scratch(slot: Slot, bytes: number): ArrayBuffer {
  const have = scratchBuffers[slot];
  if (have && have.byteLength >= bytes) return have;
  const b = new ArrayBuffer(Math.max(8, bytes));
  if (bytes <= SCRATCH_KEEP) scratchBuffers[slot] = b;
  return b;
}

const u32 = (slot: Slot, n: number): Uint32Array => new Uint32Array(scratch(slot, 4 * n), 0, n);

/** Bits of one radix digit: 2^11 counters stay in the L1 cache, and a pass scatters to as few places. */
const DIGIT = 11;

/** A line's keys into `lo` (and `hi`, when wide): one loop per dtype, where the hot cases need no call per element. */
function fillKeys(keys: RadixKeys, base: number, len: number, inner: number, lo: Uint32Array, hi: Uint32Array): void {
  const to = { lo: 0, hi: 0 };
  const src = keys.source;
  if (src && inner === 1 && src.dtype === 'float64') {
    const f = src.xs as Float64Array, u = new Uint32Array(f.buffer, f.byteOffset + 8 * base, 2 * len);
    for (let k = 0; k < len; k++) {
      const v = f[base + k]!;
      if (v !== v) { hi[k] = 0xffffffff; lo[k] = 0xffffffff; continue; }
      if (v === 0) { hi[k] = 0x80000000; lo[k] = 0; continue; }
      const h = u[2 * k + 1]!, l = u[2 * k]!;
      if (h & 0x80000000) { hi[k] = ~h; lo[k] = ~l; } else { hi[k] = h | 0x80000000; lo[k] = l; }
    }
    return;
  }
  if (src && inner === 1 && src.dtype === 'float32') {
    const f = src.xs as Float32Array, u = new Uint32Array(f.buffer, f.byteOffset + 4 * base, len);
    for (let k = 0; k < len; k++) {
      const v = f[base + k]!, b = u[k]!;
      lo[k] = v !== v ? 0xffffffff : v === 0 ? 0x80000000 : b & 0x80000000 ? ~b : b | 0x80000000;
    }
    return;
  }
  if (src && inner === 1 && src.dtype === 'int64') {
    const u = new Uint32Array(src.xs.buffer, src.xs.byteOffset + 8 * base, 2 * len);
    for (let k = 0; k < len; k++) { hi[k] = u[2 * k + 1]! ^ 0x80000000; lo[k] = u[2 * k]!; }
    return;
  }
  for (let k = 0; k < len; k++) {
    keys.key(base + k * inner, to);
    lo[k] = to.lo;
    if (keys.wide) hi[k] = to.hi;
  }
}

/**
 * The permutation that sorts one line by its keys, least significant digit
 * first (each pass stable, so ties keep their order: kind='stable'). It lives
 * in this thread's scratch memory: use it before the next sort.
 */
export function radixPerm(keys: RadixKeys, base: number, len: number, inner: number): Uint32Array {
  let lo = u32(Slot.Lo, len), hi = keys.wide ? u32(Slot.Hi, len) : lo;
  let perm = u32(Slot.Perm, len);
  fillKeys(keys, base, len, inner, lo, hi);
  for (let k = 0; k < len; k++) perm[k] = k;
  if (len === 0) return perm;
  let nextLo = u32(Slot.NextLo, len), nextHi = keys.wide ? u32(Slot.NextHi, len) : nextLo;
  let nextPerm = u32(Slot.NextPerm, len);
  const mask = (1 << DIGIT) - 1;
  // digits of each word (11, 11, 10 bits), the low word's first
  const passes: [number, number][] = [];
  for (let w = 0; w < (keys.wide ? 2 : 1); w++) for (let shift = 0; shift < 32; shift += DIGIT) passes.push([w, shift]);
  // every pass's digit counts (three digits a word) in one read of the keys: a digit's counts do not depend on the order
  const counts = new Uint32Array(passes.length << DIGIT);
  const s1 = DIGIT, s2 = 2 * DIGIT, c1 = 1 << DIGIT, c2 = 2 << DIGIT, c3 = 3 << DIGIT, c4 = 4 << DIGIT, c5 = 5 << DIGIT;
  for (let k = 0; k < len; k++) {
    const l = lo[k]!;
    counts[l & mask]!++; counts[c1 + ((l >>> s1) & mask)]!++; counts[c2 + (l >>> s2)]!++;
  }
  if (keys.wide) {
    for (let k = 0; k < len; k++) {
      const h = hi[k]!;
      counts[c3 + (h & mask)]!++; counts[c4 + ((h >>> s1) & mask)]!++; counts[c5 + (h >>> s2)]!++;
    }
  }
  passes.forEach(([w, shift], p) => {
    const src = w === 0 ? lo : hi;
    const count = counts.subarray(p << DIGIT, (p + 1) << DIGIT);
    if (count[(src[0]! >>> shift) & mask] === len) return; // one digit value: the pass changes nothing
    let at = 0;
    for (let b = 0; b <= mask; b++) { const c = count[b]!; count[b] = at; at += c; }
    // each word array is carried only while a later pass reads it
    const later = passes.slice(p + 1);
    const carryLo = later.some(([v]) => v === 0), carryHi = keys.wide && later.some(([v]) => v === 1);
    const l = lo, h = hi, nl = nextLo, nh = nextHi, pm = perm, np = nextPerm;
    if (carryLo && carryHi) {
      for (let k = 0; k < len; k++) {
        const t = count[(src[k]! >>> shift) & mask]!++;
        np[t] = pm[k]!; nl[t] = l[k]!; nh[t] = h[k]!;
      }
    } else if (carryLo) {
      for (let k = 0; k < len; k++) { const t = count[(src[k]! >>> shift) & mask]!++; np[t] = pm[k]!; nl[t] = l[k]!; }
    } else if (carryHi) {
      for (let k = 0; k < len; k++) { const t = count[(src[k]! >>> shift) & mask]!++; np[t] = pm[k]!; nh[t] = h[k]!; }
    } else {
      for (let k = 0; k < len; k++) np[count[(src[k]! >>> shift) & mask]!++] = pm[k]!;
    }
    [perm, nextPerm] = [nextPerm, perm];
    if (carryLo) [lo, nextLo] = [nextLo, lo];
    if (carryHi) [hi, nextHi] = [nextHi, hi];
  });
  return perm;
}

/** One line sorted by radix (radixPerm); writes the values, or the positions (int64), at out's line. */
export function radixLine(
  keys: RadixKeys, xs: TypedArray, out: TypedArray, indices: boolean, base: number, len: number, inner: number,
): void {
  writeSorted(radixPerm(keys, base, len, inner), xs, out, indices, base, len, inner);
}

/** A line's elements in the order `perm` gives (their exact bits), or `perm` itself as int64 positions. */
function writeSorted(
  perm: Uint32Array, xs: TypedArray, out: TypedArray, indices: boolean, base: number, len: number, inner: number,
): void {
  if (indices) {
    const ow = new Int32Array(out.buffer, out.byteOffset, 2 * out.length);
    for (let k = 0; k < len; k++) { const j = base + k * inner; ow[2 * j] = perm[k]!; ow[2 * j + 1] = 0; }
    return;
  }
  // the elements' exact bits (no bigint or NaN canonicalised on the way): 8-byte ones word by word
  const bytes = xs.BYTES_PER_ELEMENT;
  if (bytes === 8) {
    const iw = words(xs), ow = words(out);
    for (let k = 0; k < len; k++) {
      const j = base + k * inner, f = base + perm[k]! * inner;
      ow[2 * j] = iw[2 * f]!; ow[2 * j + 1] = iw[2 * f + 1]!;
    }
  } else {
    const iv = (bytes === 4 ? new Int32Array(xs.buffer, xs.byteOffset, xs.length) : xs) as Int32Array;
    const ov = (bytes === 4 ? new Int32Array(out.buffer, out.byteOffset, out.length) : out) as Int32Array;
    for (let k = 0; k < len; k++) ov[base + k * inner] = iv[base + perm[k]! * inner]!;
  }
}

/**
 * The permutation that merges sorted runs (of lengths `runs`, one after
 * another) into one sorted line: pairs of runs merged, round after round,
 * each a sequential pass (log2 of the runs passes, where a radix sort makes
 * six scattering ones). A tie takes the earlier run's element first, so
 * ties keep run order: stable. Like radixPerm it lives in scratch memory.
 */
export function mergePerm(keys: RadixKeys, runs: readonly number[], len: number): Uint32Array {
  let lo = u32(Slot.Lo, len), hi = keys.wide ? u32(Slot.Hi, len) : lo;
  let perm = u32(Slot.Perm, len);
  fillKeys(keys, 0, len, 1, lo, hi);
  for (let k = 0; k < len; k++) perm[k] = k;
  let nextLo = u32(Slot.NextLo, len), nextHi = keys.wide ? u32(Slot.NextHi, len) : nextLo;
  let nextPerm = u32(Slot.NextPerm, len);
  let bounds = [0];
  for (const r of runs) if (r > 0) bounds.push(bounds[bounds.length - 1]! + r);
  while (bounds.length > 2) {
    const next = [0];
    for (let b = 0; b + 1 < bounds.length; b += 2) {
      const a0 = bounds[b]!, a1 = bounds[b + 1]!, a2 = b + 2 < bounds.length ? bounds[b + 2]! : a1;
      if (keys.wide) merge2(lo, hi, perm, nextLo, nextHi, nextPerm, a0, a1, a2);
      else merge1(lo, perm, nextLo, nextPerm, a0, a1, a2);
      next.push(a2);
    }
    [lo, nextLo] = [nextLo, lo];
    [perm, nextPerm] = [nextPerm, perm];
    if (keys.wide) [hi, nextHi] = [nextHi, hi];
    bounds = next;
  }
  return perm;
}

/** Merges runs [a0, a1) and [a1, a2) of 64-bit keys (and their positions) into the next arrays; ties from the first. */
function merge2(
  lo: Uint32Array, hi: Uint32Array, pm: Uint32Array, nl: Uint32Array, nh: Uint32Array, np: Uint32Array, a0: number, a1: number, a2: number,
): void {
  let i = a0, j = a1, o = a0;
  while (i < a1 && j < a2) {
    const hj = hi[j]!, hI = hi[i]!;
    if (hj < hI || (hj === hI && lo[j]! < lo[i]!)) { nl[o] = lo[j]!; nh[o] = hj; np[o++] = pm[j++]!; }
    else { nl[o] = lo[i]!; nh[o] = hI; np[o++] = pm[i++]!; }
  }
  for (; i < a1; i++, o++) { nl[o] = lo[i]!; nh[o] = hi[i]!; np[o] = pm[i]!; }
  for (; j < a2; j++, o++) { nl[o] = lo[j]!; nh[o] = hi[j]!; np[o] = pm[j]!; }
}

/** merge2 for 32-bit keys. */
function merge1(lo: Uint32Array, pm: Uint32Array, nl: Uint32Array, np: Uint32Array, a0: number, a1: number, a2: number): void {
  let i = a0, j = a1, o = a0;
  while (i < a1 && j < a2) {
    if (lo[j]! < lo[i]!) { nl[o] = lo[j]!; np[o++] = pm[j++]!; }
    else { nl[o] = lo[i]!; np[o++] = pm[i++]!; }
  }
  for (; i < a1; i++, o++) { nl[o] = lo[i]!; np[o] = pm[i]!; }
  for (; j < a2; j++, o++) { nl[o] = lo[j]!; np[o] = pm[j]!; }
}
