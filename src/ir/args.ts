// The calling convention of a compiled kernel: where its inputs and outputs
// lie in memory and which box of the iteration space one task covers. Shared
// by the reference interpreter and the WASM emitter.

/** A region of one materialised chunk: element at global index g lies at ptr + sum((g - origin) * strides) * itemsize. */
export interface Binding {
  readonly ptr: number;
  readonly origin: readonly number[];
  readonly strides: readonly number[];
}

export interface KernelArgs {
  readonly inputs: readonly Binding[];
  /** One output; two in partial mode of an arg-reduction (value, then int64 index). */
  readonly outputs: readonly Binding[];
  /** [lo, hi) per outer loop variable. */
  readonly outer: readonly (readonly [number, number])[];
  /** [lo, hi) per variable of the top-level reduction. */
  readonly red: readonly (readonly [number, number])[];
  /** Write the raw accumulator (for a later combine) instead of the epilogue. */
  readonly partial: boolean;
  /** Byte offset of the task's scratch block, for routines whose Layout asks for one. */
  readonly scratch?: number;
  /** Each draw site's (seed word 0, seed word 1, stream), in `randomSites` order (`siteParams`). */
  readonly sites?: readonly (readonly [number, number, number])[];
}
