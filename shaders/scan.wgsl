// Cumulative sum or product of one float32 chunk along one axis (a scan
// task of tile/tile.ts): the chunk, seen as [outer, len, inner] around the
// axis, has outer * inner lines; one invocation walks one line in order,
// starting from the last element of the same line in the previous chunk
// along the axis when there is one. Each step rounds to float32, so the
// result is the CPU path's bit for bit (the order of the terms is the same).
// Parallel across lines only: the runtime sends chunks with few lines to the
// CPU.
//
// Bindings (group 0):
//   0  p: array<i32>, read     outer, len, inner, prevLen (0: no previous
//                               chunk), op (0 sum, 1 prod), grid width in
//                               workgroups
//   1  src: array<f32>, read   the input chunk, C order
//   2  prev: array<f32>, read  the previous output chunk along the axis
//                               ([outer, prevLen, inner]; one dummy word when
//                               prevLen is 0)
//   3  dst: array<f32>, write  the output chunk, C order
// Dispatch: lines / 64 workgroups (rounded up), wider than 65535 in two
// dimensions.

@group(0) @binding(0) var<storage, read> p: array<i32>;
@group(0) @binding(1) var<storage, read> src: array<f32>;
@group(0) @binding(2) var<storage, read> prev: array<f32>;
@group(0) @binding(3) var<storage, read_write> dst: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let outer = p[0];
  let len = p[1];
  let inner = p[2];
  let prevLen = p[3];
  let prod = p[4] == 1;
  let line = i32(wid.x + wid.y * u32(p[5])) * 64 + i32(lid);
  if (line >= outer * inner) { return; }
  let o = line / inner;
  let i = line % inner;
  var acc = select(0.0, 1.0, prod);
  if (prevLen > 0) { acc = prev[(o * prevLen + prevLen - 1) * inner + i]; }
  for (var k = 0; k < len; k = k + 1) {
    let at = (o * len + k) * inner + i;
    if (prod) { acc = acc * src[at]; } else { acc = acc + src[at]; }
    dst[at] = acc;
  }
}
