// The update of a float32 tile routine (runtime/tiles_gpu.ts): out = C − P Qᵀ
// (NT: the Cholesky's gemm and syrk, Q c×K) or out = C − P X (NN: the
// triangular solve's update, X K×c), P r×K, all row-major with leading
// dimensions. The whole output chunk M×N is written as runtime/tiles.ts
// `store` writes it: the r×c tile in its top-left, zeros elsewhere. With
// `lower` (SYRK) only b <= a is updated; the strict upper triangle keeps C's
// values (scratch: POTRF reads the lower triangle only), and a workgroup
// wholly above the diagonal does no arithmetic.
// A workgroup of 16 x 16 invocations computes a 64 x 64 block of the output,
// each invocation a 4 x 4 block in registers; P and Q (or X) pass through
// workgroup memory in 64 x 16 and 16 x 64 tiles along K, as shaders/matmul.wgsl.
// Out-of-range elements load as 0, so any sizes work.
//
// Bindings (group 0):
//   0  p: array<i32>, read    r, c, K, M, N, ldc, ldp, ldq, nn (0: NT, 1: NN), lower (0 or 1)
//   1  C: array<f32>, read    C[a * ldc + b]
//   2  P: array<f32>, read    P[a * ldp + k]
//   3  Q: array<f32>, read    NT: Q[b * ldq + k]; NN: X[k * ldq + b]
//   4  o: array<f32>, write   o[i * N + j], i < M, j < N
// Dispatch: (ceil(N / 64), ceil(M / 64)) workgroups.

@group(0) @binding(0) var<storage, read> p: array<i32>;
@group(0) @binding(1) var<storage, read> C: array<f32>;
@group(0) @binding(2) var<storage, read> P: array<f32>;
@group(0) @binding(3) var<storage, read> Q: array<f32>;
@group(0) @binding(4) var<storage, read_write> o: array<f32>;

var<workgroup> Ps: array<f32, 1024>; // 64 rows x 16 k
var<workgroup> Qs: array<f32, 1024>; // 16 k x 64 columns

@compute @workgroup_size(16, 16)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
  let r = p[0]; let c = p[1]; let K = p[2]; let M = p[3]; let N = p[4];
  let ldc = p[5]; let ldp = p[6]; let ldq = p[7]; let nn = p[8] != 0; let lower = p[9] != 0;
  let tr = i32(wg.y) * 64; let tc = i32(wg.x) * 64;
  let t = i32(lid.y * 16u + lid.x);
  // nothing to add past the tile, nor (SYRK) wholly above its diagonal: a bound uniform over the workgroup
  var kEnd = K;
  if (tr >= r || tc >= c || (lower && tc > tr + 63)) { kEnd = 0; }
  var acc: array<f32, 16>;
  for (var kk = 0; kk < kEnd; kk = kk + 16) {
    for (var q = 0; q < 4; q = q + 1) {
      let e = t + q * 256;
      let pr = e / 16; let pk = e % 16;
      let gi = tr + pr; let gk = kk + pk;
      var vp = 0.0;
      if (gi < r && gk < K) { vp = P[gi * ldp + gk]; }
      Ps[e] = vp;
      // NT reads Q along k (consecutive invocations, consecutive addresses); NN reads X along its columns
      var qk = e / 64; var qc = e % 64;
      if (!nn) { qk = e % 16; qc = e / 16; }
      let hk = kk + qk; let gj = tc + qc;
      var vq = 0.0;
      if (hk < K && gj < c) {
        if (nn) { vq = Q[hk * ldq + gj]; } else { vq = Q[gj * ldq + hk]; }
      }
      Qs[qk * 64 + qc] = vq;
    }
    workgroupBarrier();
    for (var k = 0; k < 16; k = k + 1) {
      var pv: array<f32, 4>;
      for (var i = 0; i < 4; i = i + 1) { pv[i] = Ps[(i32(lid.y) * 4 + i) * 16 + k]; }
      for (var j = 0; j < 4; j = j + 1) {
        let qv = Qs[k * 64 + i32(lid.x) * 4 + j];
        for (var i = 0; i < 4; i = i + 1) { acc[i * 4 + j] = acc[i * 4 + j] + pv[i] * qv; }
      }
    }
    workgroupBarrier();
  }
  for (var i = 0; i < 4; i = i + 1) {
    let gi = tr + i32(lid.y) * 4 + i;
    for (var j = 0; j < 4; j = j + 1) {
      let gj = tc + i32(lid.x) * 4 + j;
      if (gi < M && gj < N) {
        var v = 0.0;
        if (gi < r && gj < c) {
          v = C[gi * ldc + gj];
          if (!lower || gj <= gi) { v = v - acc[i * 4 + j]; }
        }
        o[gi * N + gj] = v;
      }
    }
  }
}
