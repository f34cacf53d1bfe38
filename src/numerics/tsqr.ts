// The R factor of a tall-skinny QR (TSQR): Householder QR of one block of
// rows stored column by column, and of a stack of such R factors (the
// combine). QR never forms XᵀX, so it keeps the small singular values that
// the Gram matrix squares away (PCA's 'full' solver, runtime/tsqr.ts).
// With Q: the same factorization keeps its reflectors (v below the
// diagonal, in place; τ aside) and applies them to a matrix, so a block's
// Q times the combine's slice for it is formed without Q itself.
// In: an m × n block, column-major. Out: R, n × n row-major, upper
// triangular (rows past m are zero); its diagonal may be negative, as
// LAPACK's is.

/** Σ x² of cols[from, to), scaled when the plain sum would overflow or underflow. */
function norm(cols: Float64Array, from: number, to: number): number {
  let ss = 0;
  for (let i = from; i < to; i++) ss += cols[i]! * cols[i]!;
  if (ss > 1e-280 && ss < 1e280) return Math.sqrt(ss);
  let scale = 0;
  for (let i = from; i < to; i++) scale = Math.max(scale, Math.abs(cols[i]!));
  if (scale === 0 || !Number.isFinite(scale)) return scale === 0 ? 0 : scale;
  ss = 0;
  for (let i = from; i < to; i++) { const t = cols[i]! / scale; ss += t * t; }
  return scale * Math.sqrt(ss);
}

/** R of the m × n column-major block `cols` (overwritten by the reflectors, whose τ go into `tau` when given). */
export function householderR(cols: Float64Array, m: number, n: number, tau?: Float64Array): Float64Array {
  const p = Math.min(m, n), R = new Float64Array(n * n);
  for (let j = 0; j < p; j++) {
    const o = j * m;
    const nv = norm(cols, o + j, o + m), x0 = cols[o + j]!;
    if (nv === 0) {
      if (tau) tau[j] = 0;
      for (let c = j; c < n; c++) R[j * n + c] = cols[c * m + j]!;
      continue;
    }
    // the reflector v = x − αe₁ (α of x₀'s opposite sign: no cancellation), H = I − τvvᵀ, τ = 2/vᵀv
    const alpha = x0 >= 0 ? -nv : nv;
    cols[o + j] = x0 - alpha;
    let vv = 0;
    for (let i = j; i < m; i++) vv += cols[o + i]! * cols[o + i]!;
    const t = 2 / vv;
    if (tau) tau[j] = t;
    for (let c = j + 1; c < n; c++) {
      const oc = c * m;
      let dot = 0;
      for (let i = j; i < m; i++) dot += cols[o + i]! * cols[oc + i]!;
      dot *= t;
      for (let i = j; i < m; i++) cols[oc + i]! -= dot * cols[o + i]!;
    }
    R[j * n + j] = alpha;
    for (let c = j + 1; c < n; c++) R[j * n + c] = cols[c * m + j]!;
  }
  return R;
}

/**
 * Q·S for the Q of a block factored by householderR (its reflectors in
 * `cols`, their τ in `tau`): Q is m × n (its first n columns; with m < n,
 * [Q | 0]), S n × k row-major. Out: m × k row-major.
 */
export function applyQ(cols: Float64Array, tau: Float64Array, m: number, n: number, S: Float64Array, k: number): Float64Array {
  const p = Math.min(m, n);
  const Y = new Float64Array(m * k); // column-major
  for (let i = 0; i < Math.min(m, n); i++) for (let c = 0; c < k; c++) Y[c * m + i] = S[i * k + c]!;
  for (let j = p - 1; j >= 0; j--) {
    const t = tau[j]!;
    if (t === 0) continue;
    const o = j * m;
    for (let c = 0; c < k; c++) {
      const oc = c * m;
      let dot = 0;
      for (let i = j; i < m; i++) dot += cols[o + i]! * Y[oc + i]!;
      dot *= t;
      for (let i = j; i < m; i++) Y[oc + i]! -= dot * cols[o + i]!;
    }
  }
  const out = new Float64Array(m * k);
  for (let i = 0; i < m; i++) for (let c = 0; c < k; c++) out[i * k + c] = Y[c * m + i]!;
  return out;
}

/** The stacked R factors (each n × n row-major) as one column-major (B·n) × n block. */
function stack(Rs: readonly ArrayLike<number>[], n: number): Float64Array {
  const m = Rs.length * n, cols = new Float64Array(m * n);
  Rs.forEach((R, b) => {
    for (let i = 0; i < n; i++) for (let c = 0; c < n; c++) cols[c * m + b * n + i] = R[i * n + c]!;
  });
  return cols;
}

/** R of the stacked R factors (each n × n row-major): the TSQR combine. */
export function stackedR(Rs: readonly ArrayLike<number>[], n: number): Float64Array {
  return householderR(stack(Rs, n), Rs.length * n, n);
}

/** The combine with its Q: R, and Q's rows for each block (n × n each, row-major), whose products with the blocks' Q are X's Q. */
export function stackedQR(Rs: readonly ArrayLike<number>[], n: number): { R: Float64Array; S: Float64Array[] } {
  const m = Rs.length * n, cols = stack(Rs, n), tau = new Float64Array(n);
  const R = householderR(cols, m, n, tau);
  const eye = new Float64Array(n * n);
  for (let i = 0; i < n; i++) eye[i * n + i] = 1;
  const Q = applyQ(cols, tau, m, n, eye, n);
  return { R, S: Rs.map((_, b) => Q.slice(b * n * n, (b + 1) * n * n)) };
}
