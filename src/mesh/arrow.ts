// Chunk payloads as Apache Arrow IPC (stream format): one column `v` holding
// the chunk's elements in C order, with its dtype and shape in the schema's
// metadata, so a payload describes itself and any Arrow reader can open it.
// In: a typed array, dtype and shape. Out: bytes; and back, checked.
//
// A payload comes from a peer, and Arrow's reader trusts the counts in its
// metadata (a 400-byte payload can claim a billion field nodes, and the
// reader builds them all, exhausting the heap), so before Arrow reads a
// payload `checkFrames` walks its messages with bounds-checked reads and
// admits only what encodeChunk writes: a schema of one primitive column, then
// record batches whose counts fit the bytes that carry them.

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
    checkFrames(bytes);
    t = tableFromIPC(bytes);
  } catch (e) {
    throw new TypeError(`chunk payload is not Arrow IPC of one column (${e instanceof Error ? e.message : String(e)})`);
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
  // every element must be in the payload (Arrow would pad a short buffer with zeros)
  if (!col.data.every((d) => ArrayBuffer.isView(d.values) && (d.values as TypedArray).length >= d.length)) throw new TypeError('chunk payload: a column buffer shorter than its length');
  const raw = col.toArray() as TypedArray;
  const Ctor = ARRAY_CTOR[dtype];
  if (!(raw instanceof Ctor)) throw new TypeError(`chunk payload: a ${raw.constructor.name} column for ${dtype}`);
  // a copy that owns its aligned buffer
  const data = new Ctor(n) as TypedArray;
  (data as unknown as { set(a: ArrayLike<unknown>): void }).set(raw as ArrayLike<unknown>);
  return { data, dtype, shape: shape as number[] };
}

// Arrow's IPC metadata (Message.fbs, Schema.fbs): the flatbuffer fields read here, by index.
const MESSAGE = { headerType: 1, header: 2, bodyLength: 3, customMetadata: 4 };
const HEADER = { schema: 1, recordBatch: 3 };
const SCHEMA = { fields: 1, customMetadata: 2, features: 3 };
const FIELD = { typeType: 2, dictionary: 4, children: 5, customMetadata: 6 };
const TYPE = { int: 2, floatingPoint: 3 };
const BATCH = { length: 0, nodes: 1, buffers: 2, compression: 3, variadicBufferCounts: 4 };
/** Custom metadata entries, and features, a payload may have. */
const MAX_ENTRIES = 16;

/** Bounds-checked reads of one flatbuffer: a read outside it throws. */
class Flat {
  constructor(private readonly v: DataView) {}

  private at(p: number, n: number): number {
    if (!(p >= 0 && p + n <= this.v.byteLength)) throw new TypeError(`metadata read at ${p} outside its ${this.v.byteLength} bytes`);
    return p;
  }

  u8(p: number): number { return this.v.getUint8(this.at(p, 1)); }
  u16(p: number): number { return this.v.getUint16(this.at(p, 2), true); }
  i32(p: number): number { return this.v.getInt32(this.at(p, 4), true); }
  /** An int64 that must be a safe integer. */
  i64(p: number): number {
    const x = this.v.getBigInt64(this.at(p, 8), true);
    if (x < BigInt(Number.MIN_SAFE_INTEGER) || x > BigInt(Number.MAX_SAFE_INTEGER)) throw new TypeError(`metadata count ${x} out of range`);
    return Number(x);
  }

  /** The table an offset at `p` points to. */
  ref(p: number): number { return p + this.v.getUint32(this.at(p, 4), true); }

  /** Where field `i` of the table at `t` is stored, or undefined when it is absent. */
  field(t: number, i: number): number | undefined {
    const vt = t - this.i32(t);
    if (4 + 2 * i + 2 > this.u16(vt)) return undefined;
    const off = this.u16(vt + 4 + 2 * i);
    return off ? t + off : undefined;
  }

  /** Length of vector field `i` of table `t` (0 when absent) and where its elements start; the elements must fit. */
  vector(t: number, i: number, elementBytes: number): { length: number; start: number } {
    const f = this.field(t, i);
    if (f === undefined) return { length: 0, start: 0 };
    const v = this.ref(f);
    const length = this.v.getUint32(this.at(v, 4), true);
    this.at(v + 4, length * elementBytes);
    return { length, start: v + 4 };
  }
}

/**
 * Walks the messages of an IPC stream and throws unless it is a schema of
 * one Int or FloatingPoint column, then record batches of one node whose
 * lengths and buffers fit in their bodies, then the end of the stream.
 */
function checkFrames(bytes: Uint8Array): void {
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 0;
  let schema = false;
  for (;;) {
    if (at === bytes.length) return;
    if (at + 8 > bytes.length || v.getInt32(at, true) !== -1) throw new TypeError(`no message at byte ${at}`);
    const len = v.getInt32(at + 4, true);
    at += 8;
    if (len === 0 && at === bytes.length) return; // the end-of-stream marker
    if (len <= 0 || at + len > bytes.length) throw new TypeError(`metadata of ${len} bytes at byte ${at}`);
    const f = new Flat(new DataView(bytes.buffer, bytes.byteOffset + at, len));
    at += len;
    const msg = f.ref(0);
    const kind = f.field(msg, MESSAGE.headerType);
    const header = f.field(msg, MESSAGE.header);
    const bodyAt = f.field(msg, MESSAGE.bodyLength);
    const body = bodyAt === undefined ? 0 : f.i64(bodyAt);
    if (body < 0 || at + body > bytes.length) throw new TypeError(`a body of ${body} bytes at byte ${at}`);
    if (kind === undefined || header === undefined || f.vector(msg, MESSAGE.customMetadata, 4).length > MAX_ENTRIES) throw new TypeError('a message without a header');
    const h = f.ref(header);
    if (f.u8(kind) === HEADER.schema && !schema && body === 0) {
      if (f.vector(h, SCHEMA.fields, 4).length !== 1) throw new TypeError('a schema of other than one column');
      if (f.vector(h, SCHEMA.customMetadata, 4).length > MAX_ENTRIES || f.vector(h, SCHEMA.features, 8).length > MAX_ENTRIES) throw new TypeError('schema metadata over the limit');
      const field = f.ref(f.vector(h, SCHEMA.fields, 4).start);
      const type = f.field(field, FIELD.typeType);
      if (type === undefined || (f.u8(type) !== TYPE.int && f.u8(type) !== TYPE.floatingPoint)) throw new TypeError('a column of other than numbers');
      if (f.field(field, FIELD.dictionary) !== undefined || f.vector(field, FIELD.children, 4).length || f.vector(field, FIELD.customMetadata, 4).length > MAX_ENTRIES) throw new TypeError('a column with a dictionary, children or too much metadata');
      schema = true;
    } else if (f.u8(kind) === HEADER.recordBatch && schema) {
      const lengthAt = f.field(h, BATCH.length);
      const rows = lengthAt === undefined ? 0 : f.i64(lengthAt);
      const nodes = f.vector(h, BATCH.nodes, 16);
      const buffers = f.vector(h, BATCH.buffers, 16);
      if (nodes.length !== 1 || buffers.length > 3 || f.field(h, BATCH.compression) !== undefined || f.vector(h, BATCH.variadicBufferCounts, 8).length) throw new TypeError('a record batch of other than one plain column');
      const n = f.i64(nodes.start), nulls = f.i64(nodes.start + 8);
      // every element takes at least a byte
      if (rows !== n || n < 0 || n > body || nulls < 0 || nulls > n) throw new TypeError(`a record batch of ${n} elements in ${body} bytes`);
      for (let i = 0; i < buffers.length; i++) {
        const off = f.i64(buffers.start + 16 * i), size = f.i64(buffers.start + 16 * i + 8);
        if (off < 0 || size < 0 || off + size > body) throw new TypeError(`a buffer outside its record batch's ${body} bytes`);
      }
    } else {
      throw new TypeError(`an unexpected message of type ${f.u8(kind)}`);
    }
    at += body;
  }
}
