// Float32 screening of the k-nearest-neighbour search (runtime/knn_gpu.ts):
// for each query, the K database rows of least float32 squared euclidean
// distance, sum over f of (q_f - x_f)², as direct differences (no cancelling
// ‖q‖² − 2q·x + ‖x‖²: the host's error bound stays relative to the
// distance). One invocation per query keeps its K best in a sorted list in
// private memory (a row goes in only below the list's last distance, so ties
// keep the earlier row); the workgroup's 64 queries pass over the database
// together in tiles of R rows staged in workgroup memory. The host re-ranks
// the candidates in float64 and certifies each query against the K-th
// distance written here (runtime/knn_gpu.ts says how).
//
// Bindings (group 0):
//   0  p: array<i32>, read    nq (queries in this run), nx (database rows),
//                              q0 (the database row of query 0 when `self`),
//                              self (1: query i skips database row q0 + i),
//                              gridX (workgroups along x)
//   1  q: array<f32>, read    the queries, nq × D row-major
//   2  x: array<f32>, read    the database, nx × D row-major
//   3  idx: array<u32>, write per query K database rows, nearest first
//   4  dst: array<f32>, write their float32 distances
// Overridable constants: D (row width, at most 64), K (rows kept per query,
// at most 64), R (rows per tile, R · D at most 2048).
// Dispatch: ceil(nq / 64) workgroups, in rows of gridX.

@group(0) @binding(0) var<storage, read> p: array<i32>;
@group(0) @binding(1) var<storage, read> q: array<f32>;
@group(0) @binding(2) var<storage, read> x: array<f32>;
@group(0) @binding(3) var<storage, read_write> idx: array<u32>;
@group(0) @binding(4) var<storage, read_write> dst: array<f32>;

override D: u32 = 10u;
override K: u32 = 26u;
override R: u32 = 204u;

const WG = 64u;
// above every distance the host lets reach the GPU (it keeps the values small enough): "no row yet"
const EMPTY = 3.0e38;

var<workgroup> xs: array<f32, 2048>;

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let nq = u32(p[0]);
  let nx = u32(p[1]);
  let qi = (wg.y * u32(p[4]) + wg.x) * WG + lid;
  let live = qi < nq;
  // a skipped row that no real row has when not `self`
  let skip = select(0xffffffffu, u32(p[2]) + qi, p[3] != 0);
  var qv: array<f32, 64>;
  if (live) {
    for (var f = 0u; f < D; f++) { qv[f] = q[qi * D + f]; }
  }
  var bd: array<f32, 64>;
  var bi: array<u32, 64>;
  for (var j = 0u; j < K; j++) { bd[j] = EMPTY; bi[j] = 0xffffffffu; }
  // the list's last distance, in a register (the list itself may live in slower memory: it is indexed at run time)
  var worst = EMPTY;
  for (var t0 = 0u; t0 < nx; t0 += R) {
    let rows = min(R, nx - t0);
    workgroupBarrier();
    for (var e = lid; e < rows * D; e += WG) { xs[e] = x[t0 * D + e]; }
    workgroupBarrier();
    if (live) {
      for (var r = 0u; r < rows; r++) {
        var s = 0.0;
        for (var f = 0u; f < D; f++) {
          let t = qv[f] - xs[r * D + f];
          s += t * t;
        }
        if (s < worst && t0 + r != skip) {
          var j = K - 1u;
          while (j > 0u && bd[j - 1u] > s) {
            bd[j] = bd[j - 1u];
            bi[j] = bi[j - 1u];
            j--;
          }
          bd[j] = s;
          bi[j] = t0 + r;
          worst = bd[K - 1u];
        }
      }
    }
  }
  if (live) {
    for (var j = 0u; j < K; j++) {
      idx[qi * K + j] = bi[j];
      dst[qi * K + j] = bd[j];
    }
  }
}
