// The chunk heap: one shared WebAssembly.Memory that every worker's kernels
// import, so a chunk written by one worker is read by another without a copy.
// A first-fit free list with coalescing hands out 64-byte-aligned blocks and
// grows the memory on demand. In: sizes. Out: byte offsets, and the counts
// the execution report shows (bytes allocated, peak in use).

import { MemoryError, sizeString } from '../graph/shape.js';
import { MAX_PAGES } from '../wasm/render.js';

const ALIGN = 64;
const PAGE = 65536;

/** Bytes the chunk heap can hold (a WebAssembly memory's maximum). */
export const HEAP_LIMIT = MAX_PAGES * PAGE;

export interface Block { readonly ptr: number; readonly bytes: number }

export class Heap {
  readonly memory: WebAssembly.Memory;
  /** Free blocks sorted by address. */
  private free: { ptr: number; bytes: number }[] = [];
  private top: number;
  inUse = 0;
  peak = 0;
  allocated = 0;
  /**
   * The largest single allocation since the execution began (reset by the
   * runtime): a chunk block here, or an array the host built whole
   * (`noteHost`: a gathered read, a host operation's result).
   */
  largest = 0;

  constructor(initialPages = 256) {
    this.memory = new WebAssembly.Memory({ initial: initialPages, maximum: MAX_PAGES, shared: true });
    this.top = ALIGN; // offset 0 stays unused so a null pointer is never a chunk
  }

  alloc(bytes: number): Block {
    const size = Math.max(ALIGN, Math.ceil(bytes / ALIGN) * ALIGN);
    for (let i = 0; i < this.free.length; i++) {
      const f = this.free[i]!;
      if (f.bytes >= size) {
        const ptr = f.ptr;
        if (f.bytes === size) this.free.splice(i, 1);
        else { f.ptr += size; f.bytes -= size; }
        return this.account({ ptr, bytes: size });
      }
    }
    const ptr = this.top;
    const end = ptr + size;
    if (end > MAX_PAGES * PAGE) {
      throw new MemoryError(`Unable to allocate ${sizeString(bytes)} for a chunk: the chunk heap is limited to 4 GiB `
        + `(in use: ${sizeString(this.inUse)}). Use a smaller chunkSize or fewer live tensors.`);
    }
    const have = this.memory.buffer.byteLength;
    if (end > have) {
      const want = Math.min(MAX_PAGES, Math.max(Math.ceil(end / PAGE), Math.ceil((have * 1.25) / PAGE)));
      this.memory.grow(want - have / PAGE);
    }
    this.top = end;
    return this.account({ ptr, bytes: size });
  }

  private account(b: Block): Block {
    this.inUse += b.bytes;
    this.allocated += b.bytes;
    this.peak = Math.max(this.peak, this.inUse);
    this.largest = Math.max(this.largest, b.bytes);
    return b;
  }

  /** Counts an array of `bytes` the host allocated whole (outside the heap) toward `largest`. */
  noteHost(bytes: number): void { this.largest = Math.max(this.largest, bytes); }

  /** Told of every block freed (the GPU device drops its copy). */
  onRelease: ((b: Block) => void) | undefined;

  release(b: Block): void {
    this.onRelease?.(b);
    this.inUse -= b.bytes;
    let lo = 0, hi = this.free.length;
    while (lo < hi) { const m = (lo + hi) >> 1; if (this.free[m]!.ptr < b.ptr) lo = m + 1; else hi = m; }
    this.free.splice(lo, 0, { ptr: b.ptr, bytes: b.bytes });
    // coalesce with neighbours
    const cur = this.free[lo]!;
    const next = this.free[lo + 1];
    if (next && cur.ptr + cur.bytes === next.ptr) { cur.bytes += next.bytes; this.free.splice(lo + 1, 1); }
    const prev = this.free[lo - 1];
    if (prev && prev.ptr + prev.bytes === cur.ptr) { prev.bytes += cur.bytes; this.free.splice(lo, 1); }
    const last = this.free[this.free.length - 1];
    if (last && last.ptr + last.bytes === this.top) { this.top = last.ptr; this.free.pop(); }
  }
}
