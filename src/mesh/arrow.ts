// Chunk payloads as Apache Arrow IPC (stream format): one column `v` holding
// the chunk's elements in C order, with its dtype and shape in the schema's
// metadata, so a payload describes itself and any Arrow reader can open it.
// In: a typed array, dtype and shape. Out: bytes; and back, checked.

import { Table, makeVector, tableFromIPC, tableToIPC } from 'apache-arrow';
import { ARRAY_CTOR, type DType, type TypedArray, isDType } from '../graph/dtype.js';

export function encodeChunk(data: TypedArray, dtype: DType, shape: readonly number[]): Uint8Array {
  // Arrow has no view of our bool (one byte per element): it travels as uint8 and comes back as bool
  const t = new Table({ v: makeVector(data as unknown as Float64Array) });
  t.schema.metadata.set('tessera.dtype', dtype);
  t.schema.metadata.set('tessera.shape', JSON.stringify(shape));
  return tableToIPC(t, 'stream');
}

/** The chunk in `bytes`; throws a TypeError when it is not the dtype and size the reader expects. */
export function decodeChunk(bytes: Uint8Array, want?: { dtype: DType; shape: readonly number[] }): { data: TypedArray; dtype: DType; shape: number[] } {
  let t: Table;
  try {
    t = tableFromIPC(bytes);
  } catch (e) {
    throw new TypeError(`chunk payload is not Arrow IPC (${(e as Error).message})`);
  }
  const dtype = t.schema.metadata.get('tessera.dtype');
  let shape: unknown;
  try { shape = JSON.parse(t.schema.metadata.get('tessera.shape') ?? 'null'); } catch { shape = null; }
  if (!isDType(dtype)) throw new TypeError(`chunk payload: bad dtype ${JSON.stringify(dtype)}`);
  if (!Array.isArray(shape) || shape.length > 16 || !shape.every((d) => Number.isInteger(d) && d >= 0)) throw new TypeError('chunk payload: bad shape');
  const n = (shape as number[]).reduce((a, b) => a * b, 1);
  const col = t.getChild('v');
  if (!col || col.length !== n) throw new TypeError(`chunk payload: ${col?.length ?? 0} elements for shape [${shape as number[]}]`);
  // a row of a partials chunk is [1, ...] to its reader and [...] to its writer: the elements must agree
  if (want && (want.dtype !== dtype || want.shape.reduce((a, b) => a * b, 1) !== n)) {
    throw new TypeError(`chunk payload is ${dtype} [${shape as number[]}], expected ${want.dtype} [${want.shape}]`);
  }
  const raw = col.toArray() as TypedArray;
  const Ctor = ARRAY_CTOR[dtype];
  if (!(raw instanceof Ctor)) throw new TypeError(`chunk payload: a ${raw.constructor.name} column for ${dtype}`);
  // a copy that owns its aligned buffer
  const data = new Ctor(n) as TypedArray;
  (data as unknown as { set(a: ArrayLike<unknown>): void }).set(raw as ArrayLike<unknown>);
  return { data, dtype, shape: shape as number[] };
}
