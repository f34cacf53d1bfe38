// Tiled matrix product for one task of a float32 matmul kernel (ir/matmul.ts):
// C[..., i, j] = sum over k of A[..., i, k] * B[..., k, j] for the indices in
// the task's box. A workgroup of 16 x 16 invocations computes a 64 x 64 tile
// of one matrix of the batch, each invocation a 4 x 4 block in registers; A
// and B pass through workgroup memory in 64 x 16 and 16 x 64 tiles along k.
// Out-of-range elements load as 0 and are not stored, so any size works.
//
// Bindings (group 0):
//   0  p: array<i32>, read    rows, cols, K (the box's extents), i0, j0, k0
//                              (its first global indices), then origin[2] and
//                              strides[2] (elements) of a, of b, of c along the
//                              two matrix axes; then nb, the batch axes, and
//                              per batch axis (at 19 + 8 * axis): first index,
//                              extent, then origin and stride of a, of b, of c
//   1  a: array<f32>, read    the chunk region holding A's rows i, columns k
//   2  b: array<f32>, read    the chunk region holding B's rows k, columns j
//   3  c: array<f32>, write   the chunk region of the output
// Dispatch: (ceil(cols / 64), ceil(rows / 64), matrices in the batch box) workgroups.

@group(0) @binding(0) var<storage, read> p: array<i32>;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<storage, read> b: array<f32>;
@group(0) @binding(3) var<storage, read_write> c: array<f32>;

var<workgroup> As: array<f32, 1024>; // 64 rows x 16 k
var<workgroup> Bs: array<f32, 1024>; // 16 k x 64 columns

fn at_a(o: i32, i: i32, k: i32) -> i32 { return o + (i - p[6]) * p[8] + (k - p[7]) * p[9]; }
fn at_b(o: i32, k: i32, j: i32) -> i32 { return o + (k - p[10]) * p[12] + (j - p[11]) * p[13]; }
fn at_c(o: i32, i: i32, j: i32) -> i32 { return o + (i - p[14]) * p[16] + (j - p[15]) * p[17]; }

@compute @workgroup_size(16, 16)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
  let rows = p[0]; let cols = p[1]; let K = p[2];
  let i0 = p[3]; let j0 = p[4]; let k0 = p[5];
  let tr = i32(wg.y) * 64; let tc = i32(wg.x) * 64;
  let t = i32(lid.y * 16u + lid.x);
  // this workgroup's matrix: wg.z in C order over the batch box, as offsets into a, b and c
  var z = i32(wg.z);
  var oa = 0; var ob = 0; var oc = 0;
  for (var d = p[18] - 1; d >= 0; d = d - 1) {
    let q = 19 + 8 * d;
    let v = p[q] + z % p[q + 1];
    z = z / p[q + 1];
    oa = oa + (v - p[q + 2]) * p[q + 3];
    ob = ob + (v - p[q + 4]) * p[q + 5];
    oc = oc + (v - p[q + 6]) * p[q + 7];
  }
  var acc: array<f32, 16>;
  for (var kk = 0; kk < K; kk = kk + 16) {
    for (var q = 0; q < 4; q = q + 1) {
      let e = t + q * 256;
      let ar = e / 16; let ac = e % 16;
      let gi = tr + ar; let gk = kk + ac;
      var va = 0.0;
      if (gi < rows && gk < K) { va = a[at_a(oa, i0 + gi, k0 + gk)]; }
      As[e] = va;
      let br = e / 64; let bc = e % 64;
      let hk = kk + br; let gj = tc + bc;
      var vb = 0.0;
      if (hk < K && gj < cols) { vb = b[at_b(ob, k0 + hk, j0 + gj)]; }
      Bs[e] = vb;
    }
    workgroupBarrier();
    for (var k = 0; k < 16; k = k + 1) {
      var av: array<f32, 4>;
      for (var r = 0; r < 4; r = r + 1) { av[r] = As[(i32(lid.y) * 4 + r) * 16 + k]; }
      for (var q = 0; q < 4; q = q + 1) {
        let bv = Bs[k * 64 + i32(lid.x) * 4 + q];
        for (var r = 0; r < 4; r = r + 1) { acc[r * 4 + q] = acc[r * 4 + q] + av[r] * bv; }
      }
    }
    workgroupBarrier();
  }
  for (var r = 0; r < 4; r = r + 1) {
    let gi = tr + i32(lid.y) * 4 + r;
    for (var q = 0; q < 4; q = q + 1) {
      let gj = tc + i32(lid.x) * 4 + q;
      if (gi < rows && gj < cols) { c[at_c(oc, i0 + gi, j0 + gj)] = acc[r * 4 + q]; }
    }
  }
}
