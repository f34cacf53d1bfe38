// Boxes of a tensor ([lo, hi) per axis) and copies between C-order buffers
// that cover different boxes: how a peer assembles the box a task reads from
// the pieces it fetched.

import { ARRAY_CTOR, type DType, INFO, type TypedArray } from '../graph/dtype.js';
import type { Range } from '../tile/tile.js';

export const extent = (box: readonly Range[]): number[] => box.map(([lo, hi]) => hi - lo);
export const count = (box: readonly Range[]): number => box.reduce((a, [lo, hi]) => a * Math.max(0, hi - lo), 1);

export function intersect(a: readonly Range[], b: readonly Range[]): Range[] | undefined {
  const out = a.map(([lo, hi], i) => [Math.max(lo, b[i]![0]), Math.min(hi, b[i]![1])] as Range);
  return out.every(([lo, hi]) => lo < hi) ? out : undefined;
}

/** Copies the elements of `src` (C order over `srcBox`) that fall in `dstBox` into `dst` (C order over `dstBox`). */
export function copyBoxInto(dst: TypedArray, dstBox: readonly Range[], src: TypedArray, srcBox: readonly Range[], dtype: DType): void {
  const inter = intersect(dstBox, srcBox);
  if (!inter && dstBox.length) return;
  const item = INFO[dtype].bytes;
  const d8 = new Uint8Array(dst.buffer, dst.byteOffset, dst.byteLength);
  const s8 = new Uint8Array(src.buffer, src.byteOffset, src.byteLength);
  if (!dstBox.length) { d8.set(s8.subarray(0, item)); return; }
  const r = inter!.length;
  const cstr = (box: readonly Range[]) => { const e = extent(box); const st = new Array<number>(r).fill(1); for (let i = r - 2; i >= 0; i--) st[i] = st[i + 1]! * e[i + 1]!; return st; };
  const ds = cstr(dstBox), ss = cstr(srcBox);
  const len = (inter![r - 1]![1] - inter![r - 1]![0]) * item;
  const idx = inter!.map(([lo]) => lo);
  const rows = inter!.slice(0, r - 1).reduce((a, [lo, hi]) => a * (hi - lo), 1);
  for (let k = 0; k < rows; k++) {
    let so = 0, d = 0;
    for (let i = 0; i < r; i++) { so += (idx[i]! - srcBox[i]![0]) * ss[i]!; d += (idx[i]! - dstBox[i]![0]) * ds[i]!; }
    d8.set(s8.subarray(so * item, so * item + len), d * item);
    for (let i = r - 2; i >= 0; i--) { if (++idx[i]! < inter![i]![1]) break; idx[i] = inter![i]![0]; }
  }
}

export const alloc = (dtype: DType, box: readonly Range[]): TypedArray => new ARRAY_CTOR[dtype](count(box)) as TypedArray;

/** Part `sub` (a box in the piece's own coordinates, from 0) of C-order data of `shape`, as a copy. */
export function cut(data: TypedArray, dtype: DType, shape: readonly number[], sub: readonly Range[]): TypedArray {
  const out = alloc(dtype, sub);
  copyBoxInto(out, sub, data, shape.map((d) => [0, d] as Range), dtype);
  return out;
}
