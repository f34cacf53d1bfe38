// Eigenvalues and right eigenvectors of one small real nonsymmetric matrix,
// on the host where a stack of matrices is gathered (runtime/resolve.ts),
// for np.linalg.eig and eigvals: a port of the path NumPy's LAPACK takes,
// dgeev with jobvl = 'N' (reference LAPACK 3.12, which NumPy's OpenBLAS
// bundles), step by step and in its order of operations:
//   dlascl  scale A into [sqrt(safmin)/eps, its inverse] if it lies outside
//   dgebal  permute to isolate eigenvalues, then scale rows and columns by
//           powers of 2 until their 2-norms are close (3.12's loops)
//   dgehd2  Householder reduction to upper Hessenberg form (what dgehrd
//           runs below 128 rows)
//   dorghr  Q from the reflectors (dorg2r, what dorgqr runs below 128)
//   dlahqr  Schur form T = Q^T H Q by double-shift QR (what dhseqr runs up
//           to 75 rows): Ahues & Tisseur's deflation, exceptional shifts
//           every 10 iterations without one, 2x2 blocks standardised by dlanv2
//   dtrevc3 eigenvectors of T by back substitution, times Q, max-norm 1
//   dgebak  undo the balancing; then unit 2-norms, as dgeev does
// The same steps give NumPy's order of eigenvalues (T's diagonal) and the
// signs of its eigenvectors; the values differ only in rounding (OpenBLAS's
// kernels sum in other orders, with FMA). Not everywhere, though: once a
// shift is an eigenvalue to working accuracy, the subdiagonal entry dlahqr
// tests for deflation is rounding noise, and one sweep more or fewer flips
// eigenvector signs or swaps eigenvalues; there NumPy's own answer changes
// when the input moves by an ulp, and no port can follow it (most random
// matrices past n = 10; test/fixtures/gen_eig.py keeps the robust ones).
// Past 75 rows dhseqr switches to the multishift dlaqr0, which this does not
// port: the same eigenvalues, perhaps in another order.
// Tessera has no complex dtype, so only real spectra are answered: a
// complex pair in T ends the computation before any eigenvector is formed.
// Storage is column-major, indices 1-based as in LAPACK (`at`), so each
// loop reads as its Fortran does.
// In: a row-major n x n float64 matrix with finite entries. Out: w and, when
// asked, v (row-major, eigenvectors as columns), or why there are none.

const ULP = 2 ** -52; // dlamch('P')
const SAFMIN = 2 ** -1022; // dlamch('S')
const HUGE = Number.MAX_VALUE; // dlamch('O')

export type Geev =
  | { ok: true; w: Float64Array; v?: Float64Array }
  /** complex: T has a 2x2 block (a complex pair); convergence: dlahqr ran out of iterations (NumPy's 'Eigenvalues did not converge') */
  | { ok: false; reason: 'complex' | 'convergence' };

/** dgeev('N', vectors ? 'V' : 'N') of the row-major n x n matrix `a0`. */
export function geev(a0: Float64Array, n: number, vectors: boolean): Geev {
  if (n === 0) return { ok: true, w: new Float64Array(0), ...(vectors ? { v: new Float64Array(0) } : {}) };
  const at = (i: number, j: number): number => i - 1 + (j - 1) * n;
  const a = new Float64Array(n * n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) a[i + j * n] = a0[i * n + j]!;
  const smlnum = Math.sqrt(SAFMIN) / ULP, bignum = 1 / smlnum;
  let anrm = 0;
  for (let i = 0; i < n * n; i++) anrm = Math.max(anrm, Math.abs(a[i]!));
  const cscale = anrm > 0 && anrm < smlnum ? smlnum : anrm > bignum ? bignum : 0;
  if (cscale) lascl(anrm, cscale, a);
  const { ilo, ihi, scale } = gebal(a, n);
  const tau = gehd2(a, n, ilo, ihi);
  const q = vectors ? orghr(a, n, ilo, ihi, tau) : undefined;
  // dhseqr: the eigenvalues dgebal isolated, then dlahqr on rows ilo..ihi
  const wr = new Float64Array(n + 1), wi = new Float64Array(n + 1);
  for (let i = 1; i < ilo; i++) wr[i] = a[at(i, i)]!;
  for (let i = ihi + 1; i <= n; i++) wr[i] = a[at(i, i)]!;
  if (ilo === ihi) wr[ilo] = a[at(ilo, ilo)]!;
  else if (!lahqr(vectors, n, ilo, ihi, a, wr, wi, q)) return { ok: false, reason: 'convergence' };
  for (let i = 1; i <= n; i++) if (wi[i] !== 0) return { ok: false, reason: 'complex' };
  const w = wr.slice(1);
  if (cscale) lascl(cscale, anrm, w);
  if (!vectors) return { ok: true, w };
  // every eigenvalue real: T is upper triangular (dhseqr clears below the subdiagonal, dlanv2 zeroed it)
  for (let j = 1; j <= n; j++) for (let i = j + 1; i <= n; i++) a[at(i, j)] = 0;
  const vr = trevc(a, n, q!);
  gebak(vr, n, ilo, ihi, scale);
  for (let j = 0; j < n; j++) {
    const s = 1 / nrm2(vr, j * n, n, 1);
    for (let i = 0; i < n; i++) vr[i + j * n]! *= s;
  }
  const v = new Float64Array(n * n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) v[i * n + j] = vr[i + j * n]!;
  return { ok: true, w, v };
}

/** Fortran's SIGN(x, y): |x| with y's sign (-0 counts as negative, as gfortran has it). */
const sign = (x: number, y: number): number => (y > 0 || Object.is(y, 0) ? Math.abs(x) : -Math.abs(x));

/** dlapy2: sqrt(x^2 + y^2) without needless overflow. */
function lapy2(x: number, y: number): number {
  const xa = Math.abs(x), ya = Math.abs(y);
  const w = Math.max(xa, ya), z = Math.min(xa, ya);
  return z === 0 || w > HUGE ? w : w * Math.sqrt(1 + (z / w) ** 2);
}

/** dnrm2 of `len` entries of x from `start`, `stride` apart: the plain sum of squares, scaled by a power of 2 only where it would over- or underflow. */
function nrm2(x: Float64Array, start: number, len: number, stride: number): number {
  let big = 0;
  for (let i = 0; i < len; i++) big = Math.max(big, Math.abs(x[start + i * stride]!));
  if (big === 0 || !Number.isFinite(big)) return big;
  const s = big > 2 ** 500 || big < 2 ** -500 ? 2 ** -Math.round(Math.log2(big)) : 1;
  let ss = 0;
  for (let i = 0; i < len; i++) { const v = x[start + i * stride]! * s; ss += v * v; }
  return Math.sqrt(ss) / s;
}

/** dlascl('G'): x *= cto / cfrom, in steps that neither over- nor underflow. */
function lascl(cfrom: number, cto: number, x: Float64Array): void {
  const small = SAFMIN, big = 1 / small;
  let cfromc = cfrom, ctoc = cto;
  for (let done = false; !done;) {
    const cfrom1 = cfromc * small, cto1 = ctoc / big;
    let mul: number;
    if (Math.abs(cfrom1) > Math.abs(ctoc) && ctoc !== 0) { mul = small; cfromc = cfrom1; }
    else if (Math.abs(cto1) > Math.abs(cfromc)) { mul = big; ctoc = cto1; }
    else { mul = ctoc / cfromc; done = true; if (mul === 1) return; }
    for (let i = 0; i < x.length; i++) x[i]! *= mul;
  }
}

/**
 * dgebal('B') as of LAPACK 3.12: rows with no off-diagonal entry in the
 * leading block go to its bottom, then columns likewise to the top (each
 * search repeated until a pass moves nothing); then rows and columns ilo..ihi
 * scaled by powers of 2 until no scaling reduces their 2-norms' sum by 5%.
 * scale[j] (1-based) holds the row exchanged with j outside ilo..ihi, the
 * factor inside. Earlier LAPACKs restart each search after every exchange,
 * which permutes some matrices otherwise; this order is the one NumPy's
 * OpenBLAS (0.3.31) gives, bit for bit.
 */
function gebal(a: Float64Array, n: number): { ilo: number; ihi: number; scale: Float64Array } {
  const at = (i: number, j: number): number => i - 1 + (j - 1) * n;
  const scale = new Float64Array(n + 1);
  const swap = (p: number, q: number, k: number, l: number): void => {
    for (let r = 1; r <= l; r++) { const t = a[at(r, p)]!; a[at(r, p)] = a[at(r, q)]!; a[at(r, q)] = t; }
    for (let c = k; c <= n; c++) { const t = a[at(p, c)]!; a[at(p, c)] = a[at(q, c)]!; a[at(q, c)] = t; }
  };
  let k = 1, l = n;
  for (let moved = true; moved;) {
    moved = false;
    for (let i = l; i >= 1; i--) {
      let isolated = true;
      for (let j = 1; j <= l; j++) if (i !== j && a[at(i, j)] !== 0) { isolated = false; break; }
      if (!isolated) continue;
      scale[l] = i;
      if (i !== l) swap(i, l, k, l);
      moved = true;
      if (l === 1) return { ilo: 1, ihi: 1, scale };
      l--;
    }
  }
  for (let moved = true; moved;) {
    moved = false;
    for (let j = k; j <= l; j++) {
      let isolated = true;
      for (let i = k; i <= l; i++) if (i !== j && a[at(i, j)] !== 0) { isolated = false; break; }
      if (!isolated) continue;
      scale[k] = j;
      if (j !== k) swap(j, k, k, l);
      moved = true;
      k++;
    }
  }
  for (let i = k; i <= l; i++) scale[i] = 1;
  const sfmin1 = SAFMIN / ULP, sfmax1 = 1 / sfmin1, sfmin2 = sfmin1 * 2, sfmax2 = 1 / sfmin2;
  for (let noconv = true; noconv;) {
    noconv = false;
    for (let i = k; i <= l; i++) {
      let c = nrm2(a, at(k, i), l - k + 1, 1);
      let r = nrm2(a, at(i, k), l - k + 1, n);
      let ca = 0, ra = 0;
      for (let p = 1; p <= l; p++) ca = Math.max(ca, Math.abs(a[at(p, i)]!));
      for (let p = k; p <= n; p++) ra = Math.max(ra, Math.abs(a[at(i, p)]!));
      if (c === 0 || r === 0) continue;
      let g = r / 2, f = 1;
      const s = c + r;
      while (c < g && Math.max(f, c, ca) < sfmax2 && Math.min(r, g, ra) > sfmin2) {
        f *= 2; c *= 2; ca *= 2; r /= 2; g /= 2; ra /= 2;
      }
      g = c / 2;
      while (g >= r && Math.max(r, ra) < sfmax2 && Math.min(f, c, g, ca) > sfmin2) {
        f /= 2; c /= 2; g /= 2; ca /= 2; r *= 2; ra *= 2;
      }
      if (c + r >= 0.95 * s) continue;
      if (f < 1 && scale[i]! < 1 && f * scale[i]! <= sfmin1) continue;
      if (f > 1 && scale[i]! > 1 && scale[i]! >= sfmax1 / f) continue;
      g = 1 / f;
      scale[i]! *= f;
      noconv = true;
      for (let p = k; p <= n; p++) a[at(i, p)]! *= g;
      for (let p = 1; p <= l; p++) a[at(p, i)]! *= f;
    }
  }
  return { ilo: k, ihi: l, scale };
}

/**
 * dlarfg on (alpha, x): the reflector H = I - tau [1; v][1; v]^T with
 * H [alpha; x] = [beta; 0]; x becomes v in place. Returns [beta, tau].
 */
function larfg(len: number, alpha: number, x: Float64Array, start: number, stride: number): [number, number] {
  if (len <= 1) return [alpha, 0];
  let xnorm = nrm2(x, start, len - 1, stride);
  if (xnorm === 0) return [alpha, 0];
  let beta = -sign(lapy2(alpha, xnorm), alpha);
  const safmin = SAFMIN / (ULP / 2); // dlamch('S') / dlamch('E')
  let knt = 0;
  if (Math.abs(beta) < safmin) {
    const rsafmn = 1 / safmin;
    do {
      knt++;
      for (let i = 0; i < len - 1; i++) x[start + i * stride]! *= rsafmn;
      beta *= rsafmn;
      alpha *= rsafmn;
    } while (Math.abs(beta) < safmin && knt < 20);
    xnorm = nrm2(x, start, len - 1, stride);
    beta = -sign(lapy2(alpha, xnorm), alpha);
  }
  const tau = (beta - alpha) / beta;
  const s = 1 / (alpha - beta);
  for (let i = 0; i < len - 1; i++) x[start + i * stride]! *= s;
  for (let j = 0; j < knt; j++) beta *= safmin;
  return [beta, tau];
}

/** dlarf('Left'): rows r0.. and columns c0..c1 of the n x n `c` times H = I - tau v v^T from the left (dgemv, then dger). */
function larfLeft(c: Float64Array, n: number, r0: number, c0: number, c1: number, v: Float64Array, tau: number): void {
  if (tau === 0) return;
  const at = (i: number, j: number): number => i - 1 + (j - 1) * n;
  for (let j = c0; j <= c1; j++) {
    let w = 0;
    for (let p = 0; p < v.length; p++) w += c[at(r0 + p, j)]! * v[p]!;
    const t = -tau * w;
    for (let p = 0; p < v.length; p++) c[at(r0 + p, j)]! += v[p]! * t;
  }
}

/** dlarf('Right'): rows 1..r1 and columns c0.. of `c` times H from the right. */
function larfRight(c: Float64Array, n: number, r1: number, c0: number, v: Float64Array, tau: number): void {
  if (tau === 0) return;
  const at = (i: number, j: number): number => i - 1 + (j - 1) * n;
  const w = new Float64Array(r1 + 1);
  for (let p = 0; p < v.length; p++) {
    const t = v[p]!;
    for (let i = 1; i <= r1; i++) w[i]! += t * c[at(i, c0 + p)]!;
  }
  for (let p = 0; p < v.length; p++) {
    const t = -tau * v[p]!;
    for (let i = 1; i <= r1; i++) c[at(i, c0 + p)]! += w[i]! * t;
  }
}

/** dgehd2: H = Q^T A Q upper Hessenberg in rows and columns ilo..ihi; reflector i's vector stays below the subdiagonal of column i. Returns tau (1-based). */
function gehd2(a: Float64Array, n: number, ilo: number, ihi: number): Float64Array {
  const at = (i: number, j: number): number => i - 1 + (j - 1) * n;
  const tau = new Float64Array(n + 1);
  for (let i = ilo; i <= ihi - 1; i++) {
    const len = ihi - i;
    const [beta, t] = larfg(len, a[at(i + 1, i)]!, a, at(Math.min(i + 2, n), i), 1);
    tau[i] = t;
    const v = new Float64Array(len);
    v[0] = 1;
    for (let p = 1; p < len; p++) v[p] = a[at(i + 1 + p, i)]!;
    larfRight(a, n, ihi, i + 1, v, t);
    larfLeft(a, n, i + 1, i + 1, n, v, t);
    a[at(i + 1, i)] = beta;
  }
  return tau;
}

/** dorghr: Q = H(ilo) ... H(ihi-1) from gehd2's reflectors, through dorg2r (accumulated backwards). Column-major. */
function orghr(a: Float64Array, n: number, ilo: number, ihi: number, tau: Float64Array): Float64Array {
  const at = (i: number, j: number): number => i - 1 + (j - 1) * n;
  const q = new Float64Array(n * n);
  for (let j = ihi; j >= ilo + 1; j--) for (let i = j + 1; i <= ihi; i++) q[at(i, j)] = a[at(i, j - 1)]!;
  for (let j = 1; j <= ilo; j++) q[at(j, j)] = 1;
  for (let j = ihi + 1; j <= n; j++) q[at(j, j)] = 1;
  const nh = ihi - ilo;
  for (let b = nh; b >= 1; b--) {
    const g = ilo + b, t = tau[ilo + b - 1]!;
    if (b < nh) {
      q[at(g, g)] = 1;
      const v = new Float64Array(ihi - g + 1);
      for (let p = 0; p < v.length; p++) v[p] = q[at(g + p, g)]!;
      larfLeft(q, n, g, g + 1, ihi, v, t);
      for (let i = g + 1; i <= ihi; i++) q[at(i, g)]! *= -t;
    }
    q[at(g, g)] = 1 - t;
    for (let i = ilo + 1; i < g; i++) q[at(i, g)] = 0;
  }
  return q;
}

/** drot on two strided vectors of `len` entries: (x, y) <- (c x + s y, c y - s x). */
function rot(m: Float64Array, len: number, x: number, y: number, stride: number, c: number, s: number): void {
  for (let p = 0; p < len; p++) {
    const xi = x + p * stride, yi = y + p * stride;
    const t = c * m[xi]! + s * m[yi]!;
    m[yi] = c * m[yi]! - s * m[xi]!;
    m[xi] = t;
  }
}

/**
 * dlanv2: the Schur factorisation of the real 2x2 [a b; c d]: a rotation
 * (cs, sn) making it upper triangular when its eigenvalues are real, and a
 * standard block (equal diagonal, b c < 0) when they are complex.
 */
function lanv2(a: number, b: number, c: number, d: number) {
  const safmn2 = 2 ** Math.trunc(Math.log(SAFMIN / ULP) / Math.log(2) / 2), safmx2 = 1 / safmn2;
  let cs: number, sn: number;
  if (c === 0) { cs = 1; sn = 0; }
  else if (b === 0) {
    cs = 0; sn = 1;
    const t = d; d = a; a = t; b = -c; c = 0;
  } else if (a - d === 0 && sign(1, b) !== sign(1, c)) { cs = 1; sn = 0; }
  else {
    let temp = a - d;
    let p = 0.5 * temp;
    const bcmax = Math.max(Math.abs(b), Math.abs(c));
    const bcmis = Math.min(Math.abs(b), Math.abs(c)) * sign(1, b) * sign(1, c);
    let scale = Math.max(Math.abs(p), bcmax);
    let z = (p / scale) * p + (bcmax / scale) * bcmis;
    if (z >= 4 * ULP) {
      // real eigenvalues
      z = p + sign(Math.sqrt(scale) * Math.sqrt(z), p);
      a = d + z;
      d = d - (bcmax / z) * bcmis;
      const tau = lapy2(c, z);
      cs = z / tau; sn = c / tau;
      b = b - c; c = 0;
    } else {
      // complex, or real and (almost) equal: make the diagonal entries equal
      let sigma = b + c;
      for (let count = 1; ; count++) {
        scale = Math.max(Math.abs(temp), Math.abs(sigma));
        if (scale >= safmx2) { sigma *= safmn2; temp *= safmn2; if (count <= 20) continue; }
        if (scale <= safmn2) { sigma *= safmx2; temp *= safmx2; if (count <= 20) continue; }
        break;
      }
      p = 0.5 * temp;
      let tau = lapy2(sigma, temp);
      cs = Math.sqrt(0.5 * (1 + Math.abs(sigma) / tau));
      sn = -(p / (tau * cs)) * sign(1, sigma);
      const aa = a * cs + b * sn, bb = -a * sn + b * cs, cc = c * cs + d * sn, dd = -c * sn + d * cs;
      a = aa * cs + cc * sn; b = bb * cs + dd * sn; c = -aa * sn + cc * cs; d = -bb * sn + dd * cs;
      temp = 0.5 * (a + d);
      a = temp; d = temp;
      if (c !== 0) {
        if (b !== 0) {
          if (sign(1, b) === sign(1, c)) {
            // real eigenvalues after all: reduce to upper triangular
            const sab = Math.sqrt(Math.abs(b)), sac = Math.sqrt(Math.abs(c));
            p = sign(sab * sac, c);
            tau = 1 / Math.sqrt(Math.abs(b + c));
            a = temp + p; d = temp - p;
            b = b - c; c = 0;
            const cs1 = sab * tau, sn1 = sac * tau;
            temp = cs * cs1 - sn * sn1;
            sn = cs * sn1 + sn * cs1;
            cs = temp;
          }
        } else {
          b = -c; c = 0;
          temp = cs; cs = -sn; sn = temp;
        }
      }
    }
  }
  const rti = c === 0 ? 0 : Math.sqrt(Math.abs(b)) * Math.sqrt(Math.abs(c));
  return { a, b, c, d, rt1r: a, rt1i: rti, rt2r: d, rt2i: -rti, cs, sn };
}

const KEXSH = 10;
const DAT1 = 3 / 4, DAT2 = -0.4375;

/**
 * dlahqr: the eigenvalues (wr, wi, 1-based) of the Hessenberg h's rows and
 * columns ilo..ihi by double-shift QR; with `wantt` the whole Schur form T
 * and, given z, Q's columns updated (rows ilo..ihi, as dhseqr asks).
 * False when an eigenvalue takes more than 30 * max(10, ihi - ilo + 1)
 * iterations in all.
 */
function lahqr(wantt: boolean, n: number, ilo: number, ihi: number, h: Float64Array, wr: Float64Array, wi: Float64Array, z?: Float64Array): boolean {
  const at = (i: number, j: number): number => i - 1 + (j - 1) * n;
  const H = (i: number, j: number): number => h[at(i, j)]!;
  for (let j = ilo; j <= ihi - 3; j++) { h[at(j + 2, j)] = 0; h[at(j + 3, j)] = 0; }
  if (ilo <= ihi - 2) h[at(ihi, ihi - 2)] = 0;
  const nh = ihi - ilo + 1;
  const iloz = ilo, ihiz = ihi;
  const smlnum = SAFMIN * (nh / ULP);
  let i1 = 1, i2 = n;
  const itmax = 30 * Math.max(10, nh);
  let kdefl = 0;
  const v = new Float64Array(3);
  for (let i = ihi; i >= ilo;) {
    let l = ilo;
    let converged = false;
    for (let its = 0; its <= itmax; its++) {
      // a single small subdiagonal entry
      let k: number;
      for (k = i; k >= l + 1; k--) {
        if (Math.abs(H(k, k - 1)) <= smlnum) break;
        let tst = Math.abs(H(k - 1, k - 1)) + Math.abs(H(k, k));
        if (tst === 0) {
          if (k - 2 >= ilo) tst += Math.abs(H(k - 1, k - 2));
          if (k + 1 <= ihi) tst += Math.abs(H(k + 1, k));
        }
        // Ahues & Tisseur's conservative criterion (LAWN 122)
        if (Math.abs(H(k, k - 1)) <= ULP * tst) {
          const ab = Math.max(Math.abs(H(k, k - 1)), Math.abs(H(k - 1, k)));
          const ba = Math.min(Math.abs(H(k, k - 1)), Math.abs(H(k - 1, k)));
          const aa = Math.max(Math.abs(H(k, k)), Math.abs(H(k - 1, k - 1) - H(k, k)));
          const bb = Math.min(Math.abs(H(k, k)), Math.abs(H(k - 1, k - 1) - H(k, k)));
          const s = aa + ab;
          if (ba * (ab / s) <= Math.max(smlnum, ULP * (bb * (aa / s)))) break;
        }
      }
      l = k;
      if (l > ilo) h[at(l, l - 1)] = 0;
      if (l >= i - 1) { converged = true; break; }
      kdefl++;
      if (!wantt) { i1 = l; i2 = i; }
      let h11: number, h12: number, h21: number, h22: number, s: number;
      if (kdefl % (2 * KEXSH) === 0) {
        s = Math.abs(H(i, i - 1)) + Math.abs(H(i - 1, i - 2));
        h11 = DAT1 * s + H(i, i); h12 = DAT2 * s; h21 = s; h22 = h11;
      } else if (kdefl % KEXSH === 0) {
        s = Math.abs(H(l + 1, l)) + Math.abs(H(l + 2, l + 1));
        h11 = DAT1 * s + H(l, l); h12 = DAT2 * s; h21 = s; h22 = h11;
      } else {
        // Francis' double shift
        h11 = H(i - 1, i - 1); h21 = H(i, i - 1); h12 = H(i - 1, i); h22 = H(i, i);
      }
      s = Math.abs(h11) + Math.abs(h12) + Math.abs(h21) + Math.abs(h22);
      let rt1r = 0, rt1i = 0, rt2r = 0, rt2i = 0;
      if (s !== 0) {
        h11 /= s; h21 /= s; h12 /= s; h22 /= s;
        const tr = (h11 + h22) / 2;
        const det = (h11 - tr) * (h22 - tr) - h12 * h21;
        const rtdisc = Math.sqrt(Math.abs(det));
        if (det >= 0) {
          rt1r = tr * s; rt2r = rt1r; rt1i = rtdisc * s; rt2i = -rt1i;
        } else {
          // real shifts: the one nearer h22, twice
          rt1r = tr + rtdisc; rt2r = tr - rtdisc;
          if (Math.abs(rt1r - h22) <= Math.abs(rt2r - h22)) { rt1r *= s; rt2r = rt1r; }
          else { rt2r *= s; rt1r = rt2r; }
        }
      }
      // two consecutive small subdiagonal entries: where the bulge can start
      let m: number;
      for (m = i - 2; ; m--) {
        let h21s = H(m + 1, m);
        let s2 = Math.abs(H(m, m) - rt2r) + Math.abs(rt2i) + Math.abs(h21s);
        h21s = H(m + 1, m) / s2;
        v[0] = h21s * H(m, m + 1) + (H(m, m) - rt1r) * ((H(m, m) - rt2r) / s2) - rt1i * (rt2i / s2);
        v[1] = h21s * (H(m, m) + H(m + 1, m + 1) - rt1r - rt2r);
        v[2] = h21s * H(m + 2, m + 1);
        s2 = Math.abs(v[0]!) + Math.abs(v[1]!) + Math.abs(v[2]!);
        v[0]! /= s2; v[1]! /= s2; v[2]! /= s2;
        if (m === l) break;
        const h00 = Math.abs(H(m - 1, m - 1)) + Math.abs(H(m, m)) + Math.abs(H(m + 1, m + 1));
        if (Math.abs(H(m, m - 1)) * (Math.abs(v[1]!) + Math.abs(v[2]!)) <= ULP * Math.abs(v[0]!) * h00) break;
      }
      // the double-shift QR step: chase the bulge down
      for (let k2 = m; k2 <= i - 1; k2++) {
        const nr = Math.min(3, i - k2 + 1);
        if (k2 > m) for (let p = 0; p < nr; p++) v[p] = H(k2 + p, k2 - 1);
        const [beta, t1] = larfg(nr, v[0]!, v, 1, 1);
        v[0] = beta;
        if (k2 > m) {
          h[at(k2, k2 - 1)] = v[0]!;
          h[at(k2 + 1, k2 - 1)] = 0;
          if (k2 < i - 1) h[at(k2 + 2, k2 - 1)] = 0;
        } else if (m > l) {
          // not h = -h: that breaks when v[1] and v[2] underflow
          h[at(k2, k2 - 1)] = H(k2, k2 - 1) * (1 - t1);
        }
        const v2 = v[1]!, t2 = t1 * v2;
        if (nr === 3) {
          const v3 = v[2]!, t3 = t1 * v3;
          for (let j = k2; j <= i2; j++) {
            const sum = H(k2, j) + v2 * H(k2 + 1, j) + v3 * H(k2 + 2, j);
            h[at(k2, j)] = H(k2, j) - sum * t1;
            h[at(k2 + 1, j)] = H(k2 + 1, j) - sum * t2;
            h[at(k2 + 2, j)] = H(k2 + 2, j) - sum * t3;
          }
          for (let j = i1; j <= Math.min(k2 + 3, i); j++) {
            const sum = H(j, k2) + v2 * H(j, k2 + 1) + v3 * H(j, k2 + 2);
            h[at(j, k2)] = H(j, k2) - sum * t1;
            h[at(j, k2 + 1)] = H(j, k2 + 1) - sum * t2;
            h[at(j, k2 + 2)] = H(j, k2 + 2) - sum * t3;
          }
          if (z) {
            for (let j = iloz; j <= ihiz; j++) {
              const sum = z[at(j, k2)]! + v2 * z[at(j, k2 + 1)]! + v3 * z[at(j, k2 + 2)]!;
              z[at(j, k2)] = z[at(j, k2)]! - sum * t1;
              z[at(j, k2 + 1)] = z[at(j, k2 + 1)]! - sum * t2;
              z[at(j, k2 + 2)] = z[at(j, k2 + 2)]! - sum * t3;
            }
          }
        } else if (nr === 2) {
          for (let j = k2; j <= i2; j++) {
            const sum = H(k2, j) + v2 * H(k2 + 1, j);
            h[at(k2, j)] = H(k2, j) - sum * t1;
            h[at(k2 + 1, j)] = H(k2 + 1, j) - sum * t2;
          }
          for (let j = i1; j <= i; j++) {
            const sum = H(j, k2) + v2 * H(j, k2 + 1);
            h[at(j, k2)] = H(j, k2) - sum * t1;
            h[at(j, k2 + 1)] = H(j, k2 + 1) - sum * t2;
          }
          if (z) {
            for (let j = iloz; j <= ihiz; j++) {
              const sum = z[at(j, k2)]! + v2 * z[at(j, k2 + 1)]!;
              z[at(j, k2)] = z[at(j, k2)]! - sum * t1;
              z[at(j, k2 + 1)] = z[at(j, k2 + 1)]! - sum * t2;
            }
          }
        }
      }
    }
    if (!converged) return false;
    if (l === i) {
      wr[i] = H(i, i); wi[i] = 0;
    } else if (l === i - 1) {
      // a 2x2 block has split off: its standard form and its eigenvalues
      const r = lanv2(H(i - 1, i - 1), H(i - 1, i), H(i, i - 1), H(i, i));
      h[at(i - 1, i - 1)] = r.a; h[at(i - 1, i)] = r.b; h[at(i, i - 1)] = r.c; h[at(i, i)] = r.d;
      wr[i - 1] = r.rt1r; wi[i - 1] = r.rt1i; wr[i] = r.rt2r; wi[i] = r.rt2i;
      if (wantt) {
        if (i2 > i) rot(h, i2 - i, at(i - 1, i + 1), at(i, i + 1), n, r.cs, r.sn);
        rot(h, i - i1 - 1, at(i1, i - 1), at(i1, i), 1, r.cs, r.sn);
      }
      if (z) rot(z, ihiz - iloz + 1, at(iloz, i - 1), at(iloz, i), 1, r.cs, r.sn);
    }
    kdefl = 0;
    i = l - 1;
  }
  return true;
}

/**
 * dtrevc3('R', 'B') for an upper triangular T (every eigenvalue real): for
 * each k from the last, x solves (T(1:k-1, 1:k-1) - T(k, k)) x = -T(1:k-1, k)
 * with x(k) = 1, by dlaln2's guarded divisions (a pivot below
 * ulp * |T(k, k)| is raised to it, which is what makes a defective matrix's
 * vectors nearly parallel rather than infinite) and rescaled against
 * overflow; the eigenvector is Q(:, 1:k) x, scaled to max-norm 1.
 * Column-major n x n.
 */
function trevc(t: Float64Array, n: number, q: Float64Array): Float64Array {
  const at = (i: number, j: number): number => i - 1 + (j - 1) * n;
  const smlnum = SAFMIN * (n / ULP);
  const bignum = (1 - ULP) / smlnum;
  const laSml = 2 * SAFMIN, laBig = 1 / laSml; // dlaln2's
  const colNorm = new Float64Array(n + 1);
  for (let j = 2; j <= n; j++) for (let i = 1; i < j; i++) colNorm[j]! += Math.abs(t[at(i, j)]!);
  const vr = new Float64Array(n * n);
  const x = new Float64Array(n + 1);
  for (let ki = n; ki >= 1; ki--) {
    const wr = t[at(ki, ki)]!;
    const smin = Math.max(ULP * Math.abs(wr), smlnum);
    x[ki] = 1;
    for (let k = 1; k < ki; k++) x[k] = -t[at(k, ki)]!;
    for (let j = ki - 1; j >= 1; j--) {
      // dlaln2, a real 1x1 system: (T(j, j) - wr) x = b
      const smini = Math.max(smin, laSml);
      let csr = t[at(j, j)]! - wr;
      if (Math.abs(csr) < smini) csr = smini;
      let scale = 1;
      const bnorm = Math.abs(x[j]!);
      if (Math.abs(csr) < 1 && bnorm > 1 && bnorm > laBig * Math.abs(csr)) scale = 1 / bnorm;
      let xj = (x[j]! * scale) / csr;
      const xnorm = Math.abs(xj);
      if (xnorm > 1 && colNorm[j]! > bignum / xnorm) { xj /= xnorm; scale /= xnorm; }
      if (scale !== 1) for (let k = 1; k <= ki; k++) x[k]! *= scale;
      x[j] = xj;
      for (let k = 1; k < j; k++) x[k]! += -xj * t[at(k, j)]!;
    }
    let big = 0;
    for (let r = 1; r <= n; r++) {
      let s = 0;
      for (let k = 1; k <= ki; k++) s += q[at(r, k)]! * x[k]!;
      vr[at(r, ki)] = s;
      big = Math.max(big, Math.abs(s));
    }
    const remax = 1 / big;
    for (let r = 1; r <= n; r++) vr[at(r, ki)]! *= remax;
  }
  return vr;
}

/** dgebak('B', 'R'): undo dgebal on the rows of the eigenvectors: the scaling, then the exchanges (scale[] 1-based). */
function gebak(v: Float64Array, n: number, ilo: number, ihi: number, scale: Float64Array): void {
  const at = (i: number, j: number): number => i - 1 + (j - 1) * n;
  if (ilo !== ihi) for (let i = ilo; i <= ihi; i++) for (let j = 1; j <= n; j++) v[at(i, j)]! *= scale[i]!;
  for (let ii = 1; ii <= n; ii++) {
    let i = ii;
    if (i >= ilo && i <= ihi) continue;
    if (i < ilo) i = ilo - ii;
    const k = Math.trunc(scale[i]!);
    if (k === i) continue;
    for (let j = 1; j <= n; j++) { const s = v[at(i, j)]!; v[at(i, j)] = v[at(k, j)]!; v[at(k, j)] = s; }
  }
}
