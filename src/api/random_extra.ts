// Host-side draws and key derivation for the Generator (api/random.ts): the
// draws whose work is a sequential algorithm (per-slice Fisher–Yates for
// permuted; NumPy's two methods for multivariate_hypergeometric, whose colours
// are drawn one after another) and the keys of spawned generators. In: a
// Philox key and stream (and shapes, counts). Out: plain typed arrays or keys.
//
// Design: as choice and permutation do, the coordinator runs the algorithm
// once, reading its uniforms from Philox elements 0, 1, 2, ... of one stream
// (`HostStream`; rejection loops take as many as they need), so the result
// depends only on (seed, stream) and never on chunking or workers; the caller
// turns it into a source tensor (an index array to gather through, or the
// counts themselves).

import { philox, randomValue } from '../ir/philox.js';

type Key = readonly [number, number];

/** The uniforms of one stream read in order: NumPy's next_double and random_interval for host algorithms. */
class HostStream {
  private next = 0;
  constructor(private readonly key: Key, private readonly stream: number) {}
  /** A uniform on [0, 1). */
  double(): number { return randomValue('uniform', this.key, this.stream, this.next++); }
  /** An integer uniform on [0, max]. */
  interval(max: number): number { return Math.floor(this.double() * (max + 1)); }
}

/**
 * Flat gather indices of `permuted`: out.flat[p] = x.flat[index[p]]. With
 * axis null one Fisher–Yates shuffle of all elements (NumPy shuffles the
 * flattened copy); with an axis, each 1-d slice along it shuffled on its own,
 * slice s reading uniforms s*len .. s*len + len - 1 of the stream.
 */
export function permutedIndex(shape: readonly number[], axis: number | null, key: Key, stream: number): BigInt64Array {
  const size = shape.reduce((a, d) => a * d, 1);
  const out = new BigInt64Array(size);
  const len = axis === null ? size : shape[axis]!;
  const inner = axis === null ? 1 : shape.slice(axis + 1).reduce((a, d) => a * d, 1);
  const slices = len === 0 ? 0 : size / len;
  const perm = new Float64Array(len);
  for (let s = 0; s < slices; s++) {
    // slice s starts at outer block floor(s / inner) and inner offset s mod inner; its elements are inner apart
    const base = Math.floor(s / inner) * len * inner + (s % inner);
    for (let i = 0; i < len; i++) perm[i] = i;
    for (let i = len - 1; i > 0; i--) {
      const j = Math.floor(randomValue('uniform', key, stream, s * len + i) * (i + 1));
      const t = perm[i]!; perm[i] = perm[j]!; perm[j] = t;
    }
    for (let i = 0; i < len; i++) out[base + i * inner] = BigInt(base + perm[i]! * inner);
  }
  return out;
}

/** log k! : summed below 126 (NumPy's table), above by Stirling's series to 1/k^3, as NumPy's logfactorial. */
const LOGFACT = ((): Float64Array => {
  const t = new Float64Array(126);
  for (let k = 2; k < 126; k++) t[k] = t[k - 1]! + Math.log(k);
  return t;
})();
function logfactorial(k: number): number {
  if (k < 126) return LOGFACT[k]!;
  return (k + 0.5) * Math.log(k) - k + (0.9189385332046728 + (1 / k) * (1 / 12 - 1 / (360 * k * k)));
}

/**
 * NumPy's random_hypergeometric: the good balls in a sample of `sample` from
 * good + bad, by simulating the draws (hypergeometric_sample) for a sample
 * or complement below 10, else Stadlober's HRUA (hypergeometric_hrua), whose
 * loop takes uniforms until it accepts (U is taken in (0, 1] here, so X is
 * never infinite).
 */
function hypergeometric(rng: HostStream, good: number, bad: number, sample: number): number {
  const total = good + bad;
  if (sample < 10 || sample > total - 10) {
    const flip = sample > Math.floor(total / 2);
    let left = flip ? total - sample : sample, remTotal = total, remGood = good;
    while (left > 0 && remGood > 0 && remTotal > remGood) {
      remTotal--;
      if (rng.interval(remTotal) < remGood) remGood--;
      left--;
    }
    if (remTotal === remGood) remGood -= left;
    return flip ? remGood : good - remGood;
  }
  const s = Math.min(sample, total - sample), mg = Math.min(good, bad), Mg = Math.max(good, bad);
  const p = mg / total, q = Mg / total, a = s * p + 0.5;
  const c = Math.sqrt(((total - s) * s * p * q) / (total - 1) + 0.5), h = 1.7155277699214135 * c + 0.8989161620588988;
  const m = Math.floor(((s + 1) * (mg + 1)) / (total + 2));
  const logf = (x: number): number => logfactorial(x) + logfactorial(mg - x) + logfactorial(s - x) + logfactorial(Mg - s + x);
  const g = logf(m), b = Math.min(Math.min(s, mg) + 1, Math.floor(a + 16 * c));
  let k: number;
  for (;;) {
    const u = 1 - rng.double(), v = rng.double();
    const x = a + (h * (v - 0.5)) / u;
    if (x < 0 || x >= b) continue;
    k = Math.floor(x);
    const t = g - logf(k);
    if (u * (4 - u) - 3 <= t) break;
    if (u * (u - t) >= 1) continue;
    if (2 * Math.log(u) <= t) break;
  }
  if (good > bad) k = s - k;
  return s < sample ? good - k : k;
}

/**
 * NumPy's random_multivariate_hypergeometric_marginals: per variate, colour
 * j's count is hypergeometric(colors[j], the balls of later colours, what is
 * left to draw), the last colour taking the rest; a sample of more than half
 * the urn draws the balls left behind. Counts, variates * colors.length of
 * them, row-major.
 */
export function multivariateHypergeometricMarginals(colors: readonly number[], nsample: number, variates: number, key: Key, stream: number): BigInt64Array {
  const k = colors.length;
  const total = colors.reduce((a, b) => a + b, 0);
  const out = new BigInt64Array(variates * k);
  if (total === 0 || nsample === 0 || variates === 0) return out;
  const flip = nsample > Math.floor(total / 2);
  const m = flip ? total - nsample : nsample;
  const rng = new HostStream(key, stream);
  const row = new Float64Array(k);
  for (let v = 0; v < variates; v++) {
    row.fill(0);
    let left = m, remaining = total;
    for (let j = 0; left > 0 && j + 1 < k; j++) {
      remaining -= colors[j]!;
      row[j] = hypergeometric(rng, colors[j]!, remaining, left);
      left -= row[j]!;
    }
    if (left > 0) row[k - 1] = left;
    for (let i = 0; i < k; i++) out[v * k + i] = BigInt(flip ? colors[i]! - row[i]! : row[i]!);
  }
  return out;
}

/**
 * NumPy's random_multivariate_hypergeometric_count: an urn holding colour i
 * colors[i] times; each variate is a partial Fisher–Yates shuffle of its
 * first min(nsample, total - nsample) places, counted by colour (and taken
 * from colors when nsample is more than half the urn). The urn is not reset
 * between variates, as in NumPy: any arrangement shuffled again gives a
 * uniform sample. Counts, variates * colors.length of them, row-major.
 */
export function multivariateHypergeometricCount(colors: readonly number[], nsample: number, variates: number, key: Key, stream: number): BigInt64Array {
  const k = colors.length;
  const total = colors.reduce((a, b) => a + b, 0);
  const out = new BigInt64Array(variates * k);
  if (total === 0 || nsample === 0 || variates === 0) return out;
  let urn: Uint32Array;
  try { urn = new Uint32Array(total); } catch {
    throw new RangeError(`Insufficient memory for multivariate_hypergeometric with method='count' and sum(colors)=${total}`);
  }
  for (let i = 0, at = 0; i < k; at += colors[i]!, i++) urn.fill(i, at, at + colors[i]!);
  const flip = nsample > Math.floor(total / 2);
  const m = flip ? total - nsample : nsample;
  const rng = new HostStream(key, stream);
  const counts = new Float64Array(k);
  for (let v = 0; v < variates; v++) {
    counts.fill(0);
    for (let j = 0; j < m; j++) {
      const r = j + rng.interval(total - j - 1);
      const t = urn[r]!; urn[r] = urn[j]!; urn[j] = t;
      counts[t] = counts[t]! + 1;
    }
    for (let i = 0; i < k; i++) out[v * k + i] = BigInt(flip ? colors[i]! - counts[i]! : counts[i]!);
  }
  return out;
}

/**
 * The stream no draw reaches before 2^32 - 1 draws of one generator, kept
 * for deriving its children's keys (counter = (child index, 0, SPAWN_STREAM, 0)).
 */
const SPAWN_STREAM = 0xffffffff;
/**
 * The key of a generator's `index`-th spawned child: two words of Philox
 * under the parent's key, so children are a function of the parent's seed
 * and the spawn count only (not of the parent's draws, as NumPy's
 * SeedSequence.spawn), differ from each other and from the parent, and have
 * children of their own by the same rule.
 */
export function spawnKey(key: Key, index: number): [number, number] {
  const w = philox(key, SPAWN_STREAM, index);
  return [w[0]!, w[1]!];
}
