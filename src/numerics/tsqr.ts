// The R factor of a tall-skinny QR (TSQR): Householder QR of one block of
// rows stored column by column, and of a stack of such R factors (the
// combine). QR never forms XᵀX, so it keeps the small singular values that
// the Gram matrix squares away (PCA's 'full' solver, runtime/tsqr.ts).
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

/** R of the m × n column-major block `cols` (overwritten by the reflectors). */
export function householderR(cols: Float64Array, m: number, n: number): Float64Array {
  const p = Math.min(m, n), R = new Float64Array(n * n);
  for (let j = 0; j < p; j++) {
    const o = j * m;
    const nv = norm(cols, o + j, o + m), x0 = cols[o + j]!;
    if (nv === 0) {
      for (let c = j; c < n; c++) R[j * n + c] = cols[c * m + j]!;
      continue;
    }
    // the reflector v = x − αe₁ (α of x₀'s opposite sign: no cancellation), H = I − 2vvᵀ/vᵀv
    const alpha = x0 >= 0 ? -nv : nv;
    cols[o + j] = x0 - alpha;
    let vv = 0;
    for (let i = j; i < m; i++) vv += cols[o + i]! * cols[o + i]!;
    const tau = 2 / vv;
    for (let c = j + 1; c < n; c++) {
      const oc = c * m;
      let dot = 0;
      for (let i = j; i < m; i++) dot += cols[o + i]! * cols[oc + i]!;
      dot *= tau;
      for (let i = j; i < m; i++) cols[oc + i]! -= dot * cols[o + i]!;
    }
    R[j * n + j] = alpha;
    for (let c = j + 1; c < n; c++) R[j * n + c] = cols[c * m + j]!;
  }
  return R;
}

/** R of the stacked R factors (each n × n row-major): the TSQR combine. */
export function stackedR(Rs: readonly ArrayLike<number>[], n: number): Float64Array {
  const m = Rs.length * n, cols = new Float64Array(m * n);
  Rs.forEach((R, b) => {
    for (let i = 0; i < n; i++) for (let c = 0; c < n; c++) cols[c * m + b * n + i] = R[i * n + c]!;
  });
  return householderR(cols, m, n);
}
