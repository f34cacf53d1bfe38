// The messages mesh peers send each other over their data channels, as closed
// schemas with size and shape bounds: every message a peer receives is
// decoded here before anything acts on it, and one that does not fit is
// refused with the field that did not. A message is a JSON header and, for
// chunk data and Yjs updates, a binary payload.
//
// coordinator -> worker   task, scan, routine (run one chunk task; the kernel
//                          travels as IR text, which the worker validates and
//                          compiles itself; a routine is named, with plain
//                          parameters the worker checks against its own copy),
//                          free (pieces no task needs any more), end
// worker -> coordinator   done, fail, hb (heartbeat: the tasks it is running,
//                          and the peers it has a live link to)
// any -> any              get / piece / missing (one chunk piece, or a part
//                          of one, peer to peer; a get `via` a holder asks a coordinator to
//                          relay it from that holder, for a worker whose own
//                          link to it is down), y (a Yjs update of the
//                          shared mesh state)

import { z } from 'zod';
import { DTYPES } from '../graph/dtype.js';
import { SCAN_OPS } from '../graph/ops.js';

const MAX_RANK = 16;
/** Pieces a task may read, and peers a piece may be fetched from. */
const MAX_PIECES = 4096;
const MAX_FROM = 64;
export const MAX_KERNEL_TEXT = 1 << 20;

const int = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const small = z.number().int().min(0).max(2 ** 31 - 1);
const range = z.tuple([int, int]).refine(([lo, hi]) => lo <= hi, 'range ends before it starts');
const box = z.array(range).max(MAX_RANK);
const dtype = z.enum(DTYPES);
export const peerId = z.string().regex(/^[A-Za-z0-9_-]{1,32}$/);
/**
 * A piece of a job's tensor: `tensor.chunk`, or `tensor.chunk.row` for one
 * row of a partials chunk; `~n` after it names the n-th recomputation of a
 * result found wrong, so no peer mistakes a stale copy for it.
 */
const key = z.string().regex(/^\d{1,9}\.\d{1,12}(\.\d{1,9})?(~\d{1,6})?$/);
const job = z.string().regex(/^[A-Za-z0-9_-]{1,40}$/);
const lease = { job, task: small, attempt: small };
/** A piece's SHA-256, hex, truncated to 128 bits. */
const digest = z.string().regex(/^[0-9a-f]{32}$/);
/** Set on a verification re-run: run on the CPU (WASM), whatever the peer's device, so results compare bit for bit. */
const check = { check: z.literal(true).optional() };
/**
 * A piece a task reads: where it is, and (for a computed piece) the digest
 * its writer reported, which a fetched copy must match; `job` names the
 * earlier job of the same coordinator whose result it is, kept on the
 * workers (a stage of a routine), when it is not the task's own job's.
 */
const source = z.strictObject({
  key, box, from: z.array(peerId).min(1).max(MAX_FROM), d: digest.optional(), job: job.optional(),
  /** Fetch it whole, so that the copy is checked against `d` (verification is on), even where the task reads a part of it. */
  whole: z.literal(true).optional(),
});

export const Message = z.discriminatedUnion('t', [
  z.strictObject({
    t: z.literal('task'), ...lease,
    /** The kernel's IR text, sent once per job and peer; '' after that: the peer has it as the job's kernel `kid`. */
    kernel: z.string().max(MAX_KERNEL_TEXT), kid: small,
    partial: z.boolean(),
    outer: box, red: box,
    reads: z.array(z.strictObject({ dtype, box, pieces: z.array(source).max(MAX_PIECES) })).max(64),
    writes: z.array(z.strictObject({ key, dtype, box })).min(1).max(4),
    ...check,
  }),
  z.strictObject({
    t: z.literal('scan'), ...lease,
    op: z.enum(SCAN_OPS), axis: z.number().int().min(0).max(MAX_RANK - 1),
    inDtype: dtype, outDtype: dtype, shape: z.array(int).max(MAX_RANK),
    src: source, prev: source.optional(), out: key,
    ...check,
  }),
  z.strictObject({
    t: z.literal('routine'), ...lease,
    name: z.string().regex(/^[a-z][a-z0-9_.]{0,31}$/),
    /** Plain values only; the routine's own check (runtime/routines.ts) decides which it takes. */
    params: z.record(
      z.string().regex(/^[A-Za-z0-9_]{1,32}$/),
      z.union([z.number(), z.boolean(), z.string().max(256), z.array(z.number()).max(4096)]),
    ).refine((p) => Object.keys(p).length <= 32, 'too many routine parameters'),
    reads: z.array(z.strictObject({ dtype, box, pieces: z.array(source).max(MAX_PIECES) })).max(MAX_PIECES),
    write: z.strictObject({ key, dtype, box }),
    ...check,
  }),
  z.strictObject({ t: z.literal('free'), job, keys: z.array(key).max(65536) }),
  z.strictObject({ t: z.literal('end'), job }),
  z.strictObject({
    t: z.literal('done'), ...lease, bytes: z.array(int).max(4), ms: z.number().min(0).max(1e9), bytesIn: int,
    /** One per piece written, and where the task ran ('gpu' results differ from 'wasm' ones in the last bits). */
    digests: z.array(digest).max(4), dev: z.enum(['wasm', 'gpu']),
  }),
  z.strictObject({
    t: z.literal('fail'), ...lease, reason: z.string().max(2000),
    /** The piece no holder gave (of `job` when it is another job's kept result). */
    missing: z.strictObject({ key, from: peerId, job: job.optional() }).optional(),
    /** The task named a kernel this peer does not have (it restarted, or the message that carried it is late): send the text. */
    needKernel: z.literal(true).optional(),
    /** No holder of `missing` could be reached, directly or through a relay: the holder is not to blame (at first). */
    unreachable: peerId.optional(),
    /** The task's data, not the peer, failed it (a tile that is not positive definite): the job's error, once a second peer agrees. */
    error: z.literal('LinAlgError').optional(),
    /** The output would have taken the peer's pieces past its memory cap: the bytes it would have held (the peer is full, not faulty). */
    full: int.optional(),
  }),
  z.strictObject({
    t: z.literal('hb'), running: z.array(z.strictObject(lease)).max(4096),
    /** The peers this worker has a live link to (placement avoids the others as holders of its inputs). */
    linked: z.array(peerId).max(1024).optional(),
  }),
  z.strictObject({
    t: z.literal('get'), req: small, job, key, via: peerId.optional(),
    /** Only this part of the piece (a box in the piece's own coordinates, from 0): what a task reads of a large one. */
    sub: box.optional(),
  }),
  z.strictObject({ t: z.literal('piece'), req: small, key }),
  z.strictObject({ t: z.literal('missing'), req: small, key }),
  z.strictObject({ t: z.literal('y') }),
]);
export type Message = z.infer<typeof Message>;
export type MessageOf<T extends Message['t']> = Extract<Message, { t: T }>;

/** Messages that carry a binary payload, and only those. */
const WITH_PAYLOAD = new Set<Message['t']>(['piece', 'y']);

/** Largest encoded message (header and payload): a chunk piece with room to spare. */
export const MAX_MESSAGE_BYTES = 1 << 30;

/** Largest header: a task message with the largest kernel text, and room for its other fields. */
const MAX_HEADER_BYTES = MAX_KERNEL_TEXT + 65536;

/** The first thing wrong with a header, as "field a.b: what". */
function firstIssue(e: z.ZodError): string {
  const i = e.issues[0]!;
  return `${i.path.length ? `field ${i.path.join('.')}: ` : ''}${i.message}`;
}

/**
 * A message as bytes: u32 header length, the header's JSON, the payload.
 * Throws when the message does not fit its schema or its header is over the
 * size a receiver accepts (a bug in the sender: the receiver would refuse it).
 */
export function encodeMessage(m: Message, payload?: Uint8Array): Uint8Array {
  if (WITH_PAYLOAD.has(m.t) !== (payload !== undefined)) throw new Error(`internal: a ${m.t} message ${payload ? 'with' : 'without'} a payload`);
  const r = Message.safeParse(m);
  if (!r.success) throw new Error(`internal: a ${m.t} message that does not fit its schema: ${firstIssue(r.error)}`);
  const head = new TextEncoder().encode(JSON.stringify(m));
  if (head.length > MAX_HEADER_BYTES) throw new Error(`internal: a ${m.t} message with a header of ${head.length} bytes over the ${MAX_HEADER_BYTES}-byte limit`);
  const out = new Uint8Array(4 + head.length + (payload?.length ?? 0));
  new DataView(out.buffer).setUint32(0, head.length, true);
  out.set(head, 4);
  if (payload) out.set(payload, 4 + head.length);
  return out;
}

/** Decodes and validates a message; throws a TypeError naming what is wrong. */
export function decodeMessage(bytes: Uint8Array): { m: Message; payload?: Uint8Array } {
  if (bytes.length < 4) throw new TypeError('message shorter than its header length');
  const n = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(0, true);
  if (n > Math.min(bytes.length - 4, MAX_HEADER_BYTES)) throw new TypeError(`message header of ${n} bytes does not fit`);
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(4, 4 + n)));
  } catch {
    throw new TypeError('message header is not JSON');
  }
  const r = Message.safeParse(json);
  if (!r.success) {
    // the type the header names, when it is a word (anything may stand there; a log line shows this)
    const t = json && typeof json === 'object' && 't' in json && typeof json.t === 'string' && /^\w{1,20}$/.test(json.t) ? `${json.t} ` : '';
    throw new TypeError(`bad ${t}message: ${firstIssue(r.error)}`);
  }
  const rest = bytes.subarray(4 + n);
  if (WITH_PAYLOAD.has(r.data.t)) return { m: r.data, payload: rest };
  if (rest.length) throw new TypeError(`a ${r.data.t} message carries ${rest.length} bytes it should not`);
  return { m: r.data };
}
