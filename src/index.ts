// Tessera's root export: the NumPy-like namespace `mt`, session `options`,
// and `session` (local for now; the mesh session arrives with the mesh).

import * as mt from './api/tensor.js';

export { mt };
export const options = mt.options;

/** The local session: every core of this machine. */
export function session(): { execute: typeof mt.execute; close: () => Promise<void> } {
  return { execute: mt.execute, close: mt.shutdown };
}
export type { Tensor, NDArray } from './api/tensor.js';
