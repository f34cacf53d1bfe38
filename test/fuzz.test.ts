// The protocol under attack: fast-check properties and fuzzing over every
// decoder a peer's bytes reach (protocol.ts messages, arrow.ts chunk
// payloads, wire.ts kernel text, node.ts stream reassembly), the signaling
// server's socket handler, and the coordinator's and workers' message
// handlers on the seeded in-memory network (sim.ts) with a rogue peer in the
// room. Malformed, truncated, oversized, out-of-order and replayed input must
// be refused with an Error that says what is wrong, in bounded time, and must
// never take a process down or change a job's result: the job finishes bit
// for bit as the local run does, or fails with a clear error.
//
// fast-check picks a new seed each run and prints it with the shrunk
// counterexample on failure; PROP_SEED=<seed> replays it, PROP_RUNS=<n>
// scales the number of runs (default 100).

import { createHmac } from 'node:crypto';
import * as fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import * as Y from 'yjs';
import * as mt from '../src/api/tensor.js';
import { ARRAY_CTOR, DTYPES, type DType, INFO, type TypedArray } from '../src/graph/dtype.js';
import type { Kernel } from '../src/ir/ir.js';
import { decodeKernel, encodeKernel } from '../src/ir/wire.js';
import { decodeChunk, encodeChunk } from '../src/mesh/arrow.js';
import { Coordinator } from '../src/mesh/coordinator.js';
import { Reassembler } from '../src/mesh/node.js';
import { MAX_MESSAGE_BYTES, Message, type MessageOf, decodeMessage, encodeMessage } from '../src/mesh/protocol.js';
import { SimNet } from '../src/mesh/sim.js';
import { StateJournal } from '../src/mesh/journal.js';
import { MeshState, clientOf, writerOf } from '../src/mesh/state.js';
import { MeshWorker } from '../src/mesh/worker.js';
import { runtime } from '../src/runtime/runtime.js';
import { type LogEvent, type SignalServer, startSignalServer } from '../signaling-server/server.js';
import { checkToken, mintToken } from '../signaling-server/token.js';

afterAll(() => mt.shutdown());

const SCALE = Number(process.env.PROP_RUNS ?? 100) / 100;
const runs = (n: number) => ({ numRuns: Math.max(1, Math.round(n * SCALE)), ...(process.env.PROP_SEED ? { seed: Number(process.env.PROP_SEED) } : {}) });

/** Runs `f` on hostile input: it returns, or throws an Error whose message matches `clear`, within `ms`. */
function refusedOrOk<T>(f: () => T, clear: RegExp, ms = 1000): { ok: true; value: T } | { ok: false; error: Error } {
  const t0 = performance.now();
  try {
    return { ok: true, value: f() };
  } catch (e) {
    expect(e, `threw a non-Error: ${String(e)}`).toBeInstanceOf(Error);
    expect((e as Error).message).toMatch(clear);
    return { ok: false, error: e as Error };
  } finally {
    expect(performance.now() - t0, 'took too long').toBeLessThan(ms);
  }
}

const u32 = (bytes: Uint8Array, at: number, v: number) => new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).setUint32(at, v >>> 0, true);

/** A message as bytes from any header text (encodeMessage would refuse most of these). */
function frame(header: string, payload: Uint8Array = new Uint8Array(0)): Uint8Array {
  const h = new TextEncoder().encode(header);
  const out = new Uint8Array(4 + h.length + payload.length);
  u32(out, 0, h.length);
  out.set(h, 4);
  out.set(payload, 4 + h.length);
  return out;
}

/** Every path to a value inside a JSON value (the root is []). */
function paths(v: unknown, at: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  out.push(at);
  if (Array.isArray(v)) v.forEach((x, i) => paths(x, [...at, i], out));
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) paths(x, [...at, k], out);
  return out;
}

type Edit = { op: 'set' | 'drop' | 'add' | 'copy'; at: number; key: string; value: unknown };

/** A JSON value with edits applied (a copy): values replaced, keys dropped or added, subtrees copied elsewhere. */
function mutate(v: unknown, edits: readonly Edit[]): unknown {
  let root = structuredClone(v);
  for (const e of edits) {
    const ps = paths(root);
    const p = ps[e.at % ps.length]!;
    const get = (q: (string | number)[]) => q.reduce<any>((o, k) => o?.[k], root);
    const parent = p.length ? get(p.slice(0, -1)) : undefined;
    const last = p.at(-1);
    const value = structuredClone(e.op === 'copy' ? get(ps[(e.at * 7 + 3) % ps.length]!) : e.value);
    if (e.op === 'set' || e.op === 'copy') {
      if (parent === undefined) root = value; else parent[last!] = value;
    } else if (e.op === 'drop' && parent !== undefined) {
      if (Array.isArray(parent)) parent.splice(last as number, 1); else delete parent[last!];
    } else if (e.op === 'add') {
      const target = get(p);
      if (Array.isArray(target)) target.push(value);
      else if (target && typeof target === 'object') target[e.key] = value;
    }
  }
  return root;
}

const editArb = (values: fc.Arbitrary<unknown>, keys: fc.Arbitrary<string> = fc.string({ maxLength: 8 })): fc.Arbitrary<Edit> =>
  fc.record({ op: fc.constantFrom('set', 'drop', 'add', 'copy', 'set'), at: fc.nat(), key: keys, value: values }) as fc.Arbitrary<Edit>;

// ---------------------------------------------------------------------------
// Messages between peers (protocol.ts)

const opt = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });
const jobArb = fc.stringMatching(/^[A-Za-z0-9_-]{1,40}$/);
const peerArb = fc.stringMatching(/^[A-Za-z0-9_-]{1,32}$/);
const keyArb = fc.stringMatching(/^\d{1,9}\.\d{1,12}(\.\d{1,9})?(~\d{1,6})?$/);
const digestArb = fc.stringMatching(/^[0-9a-f]{32}$/);
const checkArb = opt(fc.constant(true as const));
const intArb = fc.oneof(fc.nat(1000), fc.maxSafeNat());
const smallArb = fc.oneof(fc.nat(100), fc.integer({ min: 0, max: 2 ** 31 - 1 }));
const rangeArb = fc.tuple(intArb, intArb).map(([a, b]) => (a <= b ? [a, b] : [b, a]) as [number, number]);
const boxArb = fc.array(rangeArb, { maxLength: 16, size: 'small' });
const dtypeArb = fc.constantFrom(...DTYPES);
const textArb = (maxLength: number) => fc.string({ unit: fc.oneof(fc.constantFrom('"', '\\', '\u0000', '\u2028', '\ud800', '\udfff'), fc.string({ unit: 'binary', minLength: 1, maxLength: 1 })), maxLength });
const sourceArb = fc.record({ key: keyArb, box: boxArb, from: fc.array(peerArb, { minLength: 1, maxLength: 64, size: 'small' }) });
const leaseArb = { job: jobArb, task: smallArb, attempt: smallArb };
/** Drops keys whose value is undefined (an absent optional field). */
const defined = <T extends object>(o: T): T => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;

/** A valid message of every type, with its payload where the type carries one. */
const messageArb: fc.Arbitrary<{ m: Message; payload?: Uint8Array }> = fc.oneof(
  fc.record({
    t: fc.constant('task' as const), ...leaseArb, kernel: textArb(200), kid: smallArb, partial: fc.boolean(), outer: boxArb, red: boxArb,
    reads: fc.array(fc.record({ dtype: dtypeArb, box: boxArb, pieces: fc.array(sourceArb, { maxLength: 4 }) }), { maxLength: 4 }),
    writes: fc.array(fc.record({ key: keyArb, dtype: dtypeArb, box: boxArb }), { minLength: 1, maxLength: 4 }), check: checkArb,
  }).map(defined),
  fc.record({
    t: fc.constant('scan' as const), ...leaseArb, op: fc.constantFrom('sum' as const, 'prod' as const), axis: fc.nat(15),
    inDtype: dtypeArb, outDtype: dtypeArb, shape: fc.array(intArb, { maxLength: 16, size: 'small' }), src: sourceArb, prev: opt(sourceArb), out: keyArb, check: checkArb,
  }).map(defined),
  fc.record({ t: fc.constant('free' as const), job: jobArb, keys: fc.array(keyArb, { maxLength: 20 }) }),
  fc.record({ t: fc.constant('end' as const), job: jobArb }),
  fc.record({ t: fc.constant('done' as const), ...leaseArb, bytes: fc.array(intArb, { maxLength: 4 }), ms: fc.double({ min: 0, max: 1e9, noNaN: true }).map((x) => x + 0), bytesIn: intArb, digests: fc.array(digestArb, { maxLength: 4 }), dev: fc.constantFrom('wasm' as const, 'gpu' as const) }),
  fc.record({ t: fc.constant('fail' as const), ...leaseArb, reason: textArb(300), missing: opt(fc.record({ key: keyArb, from: peerArb })), needKernel: opt(fc.constant(true as const)) }).map(defined),
  fc.record({ t: fc.constant('hb' as const), running: fc.array(fc.record(leaseArb), { maxLength: 8 }) }),
  fc.record({ t: fc.constant('get' as const), req: smallArb, job: jobArb, key: keyArb }),
  fc.record({ t: fc.constant('piece' as const), req: smallArb, key: keyArb }),
  fc.record({ t: fc.constant('missing' as const), req: smallArb, key: keyArb }),
  fc.constant({ t: 'y' as const }),
).chain((m): fc.Arbitrary<{ m: Message; payload?: Uint8Array }> => (m.t === 'piece' || m.t === 'y' ? fc.uint8Array({ maxLength: 64 }).map((payload) => ({ m, payload })) : fc.constant({ m })));

/** What a peer's decoder may say when it refuses a message. */
const CLEAR_MESSAGE = /^(message shorter than its header length|message header of \d+ bytes does not fit|message header is not JSON|bad (\w+ )?message: .+|a \w+ message carries \d+ bytes it should not)$/s;

/** Decodes hostile bytes: refused clearly, or a message that fits its schema (with a payload exactly when its type has one). */
function decodeHostile(bytes: Uint8Array): Message | undefined {
  const r = refusedOrOk(() => decodeMessage(bytes), CLEAR_MESSAGE);
  if (!r.ok) return undefined;
  expect(Message.safeParse(r.value.m).success).toBe(true);
  expect(r.value.payload !== undefined).toBe(r.value.m.t === 'piece' || r.value.m.t === 'y');
  return r.value.m;
}

const jsonValues = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom(-1, 0, 1.5, 2 ** 31, 2 ** 53, 1e308, -0, '', 'task', 'done', 'piece', '1.2', '../x', null, [], {}, [[0, 1]], [[2, 1]], { t: 'end' }),
);
const messageTypes = ['task', 'scan', 'free', 'end', 'done', 'fail', 'hb', 'get', 'piece', 'missing', 'y', 'join', 'toString', '__proto__'];

describe('messages between peers: decodeMessage and encodeMessage', () => {
  it('a valid message of every type comes back as it was sent, with its payload', () => {
    const seen = new Set<string>();
    fc.assert(fc.property(messageArb, ({ m, payload }) => {
      seen.add(m.t);
      const got = decodeMessage(encodeMessage(m, payload));
      expect(got.m).toEqual(m);
      if (payload) expect(Array.from(got.payload!)).toEqual(Array.from(payload));
      else expect(got.payload).toBeUndefined();
    }), runs(400));
    expect(seen.size).toBe(11);
  });

  it('arbitrary bytes are refused clearly or decode to a message that fits its schema', () => {
    fc.assert(fc.property(fc.oneof(fc.uint8Array({ maxLength: 300 }), fc.string({ unit: 'binary', maxLength: 200 }).map((s) => frame(s)), fc.jsonValue().map((j) => frame(JSON.stringify(j)))), (bytes) => {
      decodeHostile(bytes);
    }), runs(500));
  });

  it('valid encodings truncated, extended, or with a header length that lies are refused clearly or still fit', () => {
    const lengths = (real: number, total: number) => fc.oneof(fc.constantFrom(0, 1, 3, real - 1, real + 1, total - 4, total - 3, 0x7fffffff, 0xffffffff, MAX_MESSAGE_BYTES), fc.nat(), fc.nat(total + 8));
    fc.assert(fc.property(messageArb.chain(({ m, payload }) => {
      const bytes = encodeMessage(m, payload);
      const real = bytes.length - 4 - (payload?.length ?? 0);
      return fc.tuple(fc.constant(bytes), fc.oneof(
        fc.nat(bytes.length).map((n) => ({ cut: n })),
        fc.uint8Array({ minLength: 1, maxLength: 40 }).map((tail) => ({ tail })),
        lengths(real, bytes.length).map((len) => ({ len })),
      ));
    }), ([bytes, how]) => {
      let b = bytes;
      if ('cut' in how) b = bytes.subarray(0, how.cut);
      if ('tail' in how) { b = new Uint8Array(bytes.length + how.tail.length); b.set(bytes); b.set(how.tail, bytes.length); }
      if ('len' in how) { b = bytes.slice(); u32(b, 0, how.len); }
      const m = decodeHostile(b);
      // bytes past the header are a payload, or refused
      if ('tail' in how && m) expect(m.t === 'piece' || m.t === 'y').toBe(true);
    }), runs(400));
  });

  it('headers with fields dropped, added, retyped or replaced are refused clearly or fit the schema', () => {
    let refused = 0, total = 0;
    fc.assert(fc.property(messageArb, fc.array(editArb(jsonValues, fc.constantFrom('extra', 't', 'job', 'task', 'key', '__proto__', 'constructor')), { minLength: 1, maxLength: 3 }), fc.constantFrom(...messageTypes), fc.boolean(), ({ m, payload }, edits, t, retype) => {
      const header = mutate(retype ? { ...m, t } : m, edits);
      total++;
      if (!decodeHostile(frame(JSON.stringify(header), payload))) refused++;
    }), runs(500));
    expect(refused).toBeGreaterThan(total / 2);
  });

  it('a message type that is not a string still gets a clear refusal', () => {
    for (const t of [{ toString: 1, valueOf: 1 }, { toString: null }, [], 5, null, { t: 'end' }]) {
      expect(() => decodeMessage(frame(JSON.stringify({ t, job: 'j' })))).toThrow(/^bad message: field t: /);
    }
  });

  it('huge headers are refused before they are parsed, and the encoder will not make one', () => {
    const kernel = 'é'.repeat(600_000); // 1.2 MB of UTF-8: fits the schema's 1 Mi characters, not the header limit
    const task: Message = { t: 'task', job: 'j', task: 0, attempt: 0, kernel, kid: 0, partial: false, outer: [], red: [], reads: [], writes: [{ key: '1.0', dtype: 'float32', box: [] }] };
    expect(() => encodeMessage(task)).toThrow(/header of \d+ bytes over the/);
    const bytes = frame(JSON.stringify(task));
    const t0 = performance.now();
    expect(() => decodeMessage(bytes)).toThrow(/does not fit/);
    expect(performance.now() - t0).toBeLessThan(50);
    // a deeply nested header is JSON, but not a message
    expect(() => decodeMessage(frame(`${'['.repeat(100_000)}${']'.repeat(100_000)}`))).toThrow(/^bad message/);
    // a message that does not fit its schema is the sender's bug: the encoder refuses it
    expect(() => encodeMessage({ t: 'get', req: -1, job: 'j', key: '1.0' })).toThrow(/internal: .*field req/);
  });
});

// ---------------------------------------------------------------------------
// Chunk payloads (arrow.ts)

const elementArb = (d: DType): fc.Arbitrary<number | bigint> => {
  switch (d) {
    case 'float64': return fc.double();
    case 'float32': return fc.float();
    case 'int64': return fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n });
    case 'bool': return fc.integer({ min: 0, max: 1 });
    default: {
      const bits = INFO[d].bytes * 8;
      return INFO[d].kind === 'u' ? fc.integer({ min: 0, max: 2 ** bits - 1 }) : fc.integer({ min: -(2 ** (bits - 1)), max: 2 ** (bits - 1) - 1 });
    }
  }
};
const size = (shape: readonly number[]) => shape.reduce((a, b) => a * b, 1);
const chunkArb = dtypeArb.chain((dtype) => fc.array(fc.nat(5), { maxLength: 4 }).chain((shape) => {
  const n = size(shape);
  return fc.array(elementArb(dtype), { minLength: n, maxLength: n }).map((xs) => ({ dtype, shape, data: (ARRAY_CTOR[dtype] as unknown as { from(a: unknown[]): TypedArray }).from(xs) }));
}));
const bytesOf = (a: TypedArray) => Array.from(new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
const CLEAR_CHUNK = /^chunk payload/;

/** Decodes a hostile payload: refused clearly, or data of the dtype and element count it declares (and the reader wants). */
function decodeChunkHostile(bytes: Uint8Array, want?: { dtype: DType; shape: number[] }): boolean {
  const r = refusedOrOk(() => decodeChunk(bytes, want), CLEAR_CHUNK);
  if (!r.ok) return false;
  const { data, dtype, shape } = r.value;
  expect(data).toBeInstanceOf(ARRAY_CTOR[dtype]);
  expect(data.length).toBe(size(shape));
  if (want) {
    expect(dtype).toBe(want.dtype);
    expect(data.length).toBe(size(want.shape));
  }
  return true;
}

describe('chunk payloads: decodeChunk and encodeChunk', () => {
  it('a chunk of every dtype and any shape comes back bit for bit, with its dtype and shape', () => {
    const seen = new Set<string>();
    fc.assert(fc.property(chunkArb, ({ dtype, shape, data }) => {
      seen.add(dtype);
      const bytes = encodeChunk(data, dtype, shape);
      for (const want of [undefined, { dtype, shape }]) {
        const got = decodeChunk(bytes, want);
        expect(got.dtype).toBe(dtype);
        expect(got.shape).toEqual(shape);
        expect(got.data).toBeInstanceOf(ARRAY_CTOR[dtype]);
        expect(bytesOf(got.data)).toEqual(bytesOf(data));
      }
      // a reader that expects another dtype or size refuses it
      const other = DTYPES.find((d) => d !== dtype)!;
      expect(() => decodeChunk(bytes, { dtype: other, shape })).toThrow(CLEAR_CHUNK);
      if (size(shape) > 0) expect(() => decodeChunk(bytes, { dtype, shape: [...shape, 2] })).toThrow(CLEAR_CHUNK);
    }), runs(200));
    expect(seen.size).toBe(DTYPES.length);
  });

  it('arbitrary bytes, framed as Arrow messages or not, are refused clearly', () => {
    const framed = fc.tuple(fc.integer({ min: -8, max: 1 << 16 }), fc.uint8Array({ maxLength: 600 })).map(([len, rest]) => {
      const b = new Uint8Array(8 + rest.length);
      u32(b, 0, 0xffffffff); u32(b, 4, len); b.set(rest, 8);
      return b;
    });
    fc.assert(fc.property(fc.oneof(fc.uint8Array({ maxLength: 600 }), framed), (bytes) => { decodeChunkHostile(bytes); }), runs(300));
  });

  it('valid payloads with bytes flipped, lengths rewritten, truncated or extended are refused clearly or decode to what they declare', () => {
    let accepted = 0, refused = 0;
    const editsArb = fc.array(fc.record({
      at: fc.nat(),
      k: fc.constantFrom('byte', 'byte', 'u32', 'cut', 'grow'),
      v: fc.oneof(fc.nat(255), fc.constantFrom(0xffffffff, 0x7fffffff, 1 << 30, 1 << 20, 0x10000)),
    }), { minLength: 1, maxLength: 4 });
    fc.assert(fc.property(chunkArb, fc.boolean(), editsArb, ({ dtype, shape, data }, withWant, edits) => {
      let b = encodeChunk(data, dtype, shape).slice();
      for (const { at, k, v } of edits) {
        const i = at % Math.max(1, b.length);
        if (k === 'byte') b[i] = v & 255;
        else if (k === 'u32' && b.length >= 4) u32(b, Math.min(i, b.length - 4) & ~3, v);
        else if (k === 'cut') b = b.subarray(0, i);
        else if (k === 'grow') { const g = new Uint8Array(b.length + (v % 64) + 1); g.set(b); b = g; }
      }
      if (decodeChunkHostile(b, withWant ? { dtype, shape } : undefined)) accepted++; else refused++;
    }), runs(400));
    // most edits break the payload; some (a flipped data byte) leave a valid one
    expect(refused).toBeGreaterThan(0);
    expect(accepted).toBeGreaterThan(0);
  });
});

// ---------------------------------------------------------------------------
// Kernel text (ir/wire.ts): valid kernels from small graphs through the public
// API, as a coordinator would send them, then edited

/** Programs whose kernels cover loads, random draws, casts, where, nested and partial (arg-)reductions and the GEMM routine. */
const KERNEL_PROGRAMS: (() => mt.Tensor)[] = [
  () => { mt.random.seed(3); const d = mt.random.uniform(-1, 1, [400, 2], { chunkSize: 100 }); return mt.sqrt(d.power(2).sum({ axis: 1 })).less(1).sum(); },
  () => mt.argmax(mt.arange(0, 300, 1, { chunkSize: 40 }).multiply(7).mod(97)),
  () => mt.matmul(mt.arange(0, 12, 1, { chunkSize: 12 }).reshape([3, 4]).cos(), mt.arange(0, 20, 1, { chunkSize: 20 }).reshape([4, 5]).sin()),
  () => mt.arange(0, 4800, 1, { chunkSize: 800 }).reshape([12, 400]).multiply(0.01).sin().sum({ axis: 1 }),
  () => { const x = mt.tensor([[1, -2, 3], [4, 5, -6]], { dtype: 'float32' }); return mt.where(x.greater(0), x.astype('int32'), mt.tensor(7, { dtype: 'int32' })).astype('uint8').min({ axis: 0 }); },
  () => mt.var_(mt.arange(0, 500, 1, { chunkSize: 100 }).astype('float32').reshape([5, 100]), { axis: 1 }).add(Infinity).multiply(-0),
  () => mt.tensor([true, false, true]).logical_not().any(),
];

const REDUCE_NAMES = ['sum', 'prod', 'min', 'max', 'argmin', 'argmax', 'any', 'all'];
const kernelValues = fc.oneof(
  fc.constantFrom(-1, 0, 1, 2, 3, 4, 8, 16, 17, 255, 1e6, 1e9, 2 ** 31, 2 ** 53, 1.5, -0.5, '$num:NaN', '$num:-0', '$num:Infinity', '$num:bogus', '', null, true, [], {}),
  fc.constantFrom(...DTYPES, 'float16', 'int128'),
  fc.constantFrom('const', 'var', 'load', 'unary', 'binary', 'where', 'cast', 'random', 'reduce', 'acc', 'gemm'),
  fc.constantFrom(...REDUCE_NAMES, 'add', 'multiply', 'divide', 'mod', 'power', 'sqrt', 'sin', 'negative', 'floordiv_pos', 'less', 'nonsense', 'uniform', 'normal', 'bits'),
  fc.constantFrom({ k: 'acc', dtype: 'float64' }, { k: 'var', dtype: 'int64', id: 7 }, { k: 'load', dtype: 'float64', input: 0, index: [] }, { id: 0, size: 1e9, chunk: 1 }),
  fc.jsonValue({ maxDepth: 2 }),
);

/** What a peer's kernel decoder and compiler may say when they refuse a kernel. */
const CLEAR_KERNEL = /^kernel text: ./;

describe('kernel text: decodeKernel and encodeKernel', () => {
  const kernels: Kernel[] = [];
  beforeAll(() => {
    for (const p of KERNEL_PROGRAMS) kernels.push(...runtime.planOf([p().node]).kernels);
  });

  it('every kernel comes back structurally equal and compiles', () => {
    expect(kernels.length).toBeGreaterThan(8);
    for (const k of kernels) {
      const back = decodeKernel(encodeKernel(k));
      expect(encodeKernel(back)).toBe(encodeKernel(k));
      runtime.programFor(back, false);
      if (back.reduce) runtime.programFor(back, true);
    }
  });

  it('edited kernels are refused clearly, or compile (never a hang, never a throw that is not an Error)', () => {
    const stats = { refused: 0, compiled: 0, compileErrors: new Map<string, number>() };
    // structural edits (most break the kernel), and edits of leaves to others of their kind (many keep it a kernel)
    const numbers = [0, 1, 2, 3, 4, 7, 8, 16, 17, 255, 65536, 1e6, 1e9, 2 ** 31, 2 ** 32, 2 ** 53, -1, 1.5, '$num:NaN', '$num:-0', '$num:Infinity'];
    const ops = ['add', 'multiply', 'divide', 'mod', 'power', 'floor_divide', 'maximum', 'less', 'logical_and', 'bitwise_xor', 'arctan2', 'sqrt', 'sin', 'negative', 'logical_not', 'bitwise_not', 'isnan', 'floordiv_pos', ...REDUCE_NAMES, 'uniform', 'normal', 'bits', 'uniform32'];
    const kinds = ['const', 'var', 'acc', 'cast', 'unary'];
    const like = (key: string | number, v: unknown): unknown[] => (typeof v === 'number' ? numbers : key === 'dtype' ? [...DTYPES] : key === 'op' || key === 'dist' ? ops : key === 'k' ? kinds : ['']);
    const leafEdit = fc.record({ at: fc.nat(), pick: fc.nat() });
    fc.assert(fc.property(fc.nat(), fc.array(editArb(kernelValues, fc.constantFrom('k', 'dtype', 'lanes', 'input', 'index', 'extra', 'reduce', 'chunk')), { maxLength: 2 }), fc.array(leafEdit, { maxLength: 3 }), fc.option(fc.tuple(fc.nat(), fc.string({ maxLength: 3 })), { freq: 8 }), (which, edits, leaves, splice) => {
      const k = kernels[which % kernels.length]!;
      const json = mutate(JSON.parse(encodeKernel(k)), edits);
      for (const l of leaves) {
        const ps = paths(json).filter((p) => p.length && ['number', 'string'].includes(typeof p.reduce<any>((o, q) => o?.[q], json)));
        if (!ps.length) break;
        const p = ps[l.at % ps.length]!;
        const parent = p.slice(0, -1).reduce<any>((o, q) => o[q], json);
        const choices = like(p.at(-1)!, parent[p.at(-1)!]);
        parent[p.at(-1)!] = choices[l.pick % choices.length];
      }
      let text = JSON.stringify(json);
      if (splice) { const at = splice[0] % (text.length + 1); text = text.slice(0, at) + splice[1] + text.slice(at + (splice[0] % 3)); }
      const r = refusedOrOk(() => decodeKernel(text), CLEAR_KERNEL);
      if (!r.ok) { stats.refused++; return; }
      for (const partial of r.value.reduce ? [false, true] : [false]) {
        const c = refusedOrOk(() => runtime.programFor(r.value, partial), /./s);
        if (c.ok) stats.compiled++;
        else { const why = `${c.error.constructor.name}: ${c.error.message.slice(0, 60)}`; stats.compileErrors.set(why, (stats.compileErrors.get(why) ?? 0) + 1); }
      }
    }), runs(600));
    if (process.env.PROP_STATS) console.log('kernels:', stats);
    expect(stats.refused).toBeGreaterThan(0);
    expect(stats.compiled).toBeGreaterThan(0);
  });

  it('deep, huge and degenerate kernel texts are refused clearly in bounded time', () => {
    const deep = (n: number) => `{"inputs":[],"shape":[],"chunk":[],"dtype":"float64","epilogue":${'{"k":"unary","dtype":"float64","op":"negative","a":'.repeat(n)}{"k":"const","dtype":"float64","value":1}${'}'.repeat(n)}}`;
    for (const text of [deep(3000), deep(100_000), '['.repeat(1e6), '"$num:NaN"', '"$num:x"', 'null', '{}', '{"inputs":[],"shape":[],"chunk":[],"dtype":"float64"}', '{"inputs":[],"shape":[1],"chunk":[],"dtype":"float64","epilogue":{"k":"acc","dtype":"float64"}}']) {
      const r = refusedOrOk(() => decodeKernel(text), CLEAR_KERNEL, 2000);
      expect(r.ok).toBe(false);
    }
    // as deep as a kernel may be: it decodes, and compiles or is refused with an Error
    const k = decodeKernel(deep(2000));
    refusedOrOk(() => runtime.programFor(k, false), /./s, 5000);
  });

  it('a reduction that claims a billion lanes is refused, not unrolled', () => {
    const k = kernels.find((x) => x.reduce && (x.reduce.op === 'sum'))!;
    for (const lanes of [1e9, 0, -1, 3, 1.5, 'x']) {
      const text = encodeKernel({ ...k, reduce: { ...k.reduce!, lanes: lanes as number } });
      expect(() => decodeKernel(text)).toThrow(/^kernel text: bad reduce/);
    }
  });
});

// ---------------------------------------------------------------------------
// The byte stream on a data channel (node.ts Reassembler)

/** Length-prefixed messages as one stream. */
function stream(msgs: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(msgs.reduce((a, m) => a + 4 + m.length, 0));
  let at = 0;
  for (const m of msgs) { u32(out, at, m.length); out.set(m, at + 4); at += 4 + m.length; }
  return out;
}

describe('the byte stream on a data channel: Reassembler', () => {
  it('any split of a stream into frames gives back exactly its messages', () => {
    fc.assert(fc.property(fc.array(fc.uint8Array({ maxLength: 200 }), { maxLength: 8 }), fc.array(fc.nat(), { maxLength: 30 }), (msgs, cuts) => {
      const bytes = stream(msgs);
      const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
      const re = new Reassembler();
      const got: Uint8Array[] = [];
      let prev = 0;
      for (const c of [...at, bytes.length]) { got.push(...re.push(bytes.subarray(prev, c))); prev = c; }
      expect(got.map((g) => Array.from(g))).toEqual(msgs.map((m) => Array.from(m)));
    }), runs(300));
  });

  it('a large message in many frames comes back whole, and a frame reused by its sender does not change it', () => {
    const msg = new Uint8Array(3 << 20).map((_, i) => (i * 31) & 255);
    const bytes = stream([msg, new Uint8Array([1, 2, 3])]);
    const re = new Reassembler();
    const got: Uint8Array[] = [];
    const frame = new Uint8Array(65536);
    for (let at = 0; at < bytes.length; at += frame.length) {
      const part = bytes.subarray(at, at + frame.length);
      frame.set(part);
      got.push(...re.push(frame.subarray(0, part.length)));
      frame.fill(0);
    }
    expect(got.length).toBe(2);
    expect(got[0]!.length).toBe(msg.length);
    expect(got[0]!.every((b, i) => b === msg[i])).toBe(true);
    expect(Array.from(got[1]!)).toEqual([1, 2, 3]);
  });

  it('a length over the limit throws an Error; messages before it still come out', () => {
    fc.assert(fc.property(fc.array(fc.uint8Array({ maxLength: 50 }), { maxLength: 4 }), fc.integer({ min: MAX_MESSAGE_BYTES + 1, max: 0xffffffff }), fc.nat(), (msgs, bad, cut) => {
      const good = stream(msgs);
      const head = new Uint8Array(4);
      u32(head, 0, bad);
      const re = new Reassembler();
      const split = cut % (good.length + 1);
      const got = [...re.push(good.subarray(0, split)), ...re.push(good.subarray(split))];
      expect(got.length).toBe(msgs.length);
      expect(() => re.push(head)).toThrow(/over the limit/);
    }), runs(200));
  });

  it('a header that claims a gigabyte does not allocate it before the bytes arrive', () => {
    const re = new Reassembler();
    const before = process.memoryUsage().arrayBuffers;
    const head = new Uint8Array(4);
    u32(head, 0, MAX_MESSAGE_BYTES);
    const held: Reassembler[] = [];
    for (let i = 0; i < 8; i++) { const r = new Reassembler(); r.push(head); r.push(new Uint8Array(1000)); held.push(r); }
    expect(re.push(head)).toEqual([]);
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(64 << 20);
    expect(held.length).toBe(8);
  });
});

// ---------------------------------------------------------------------------
// The signaling server (signaling-server/server.ts) on raw WebSockets

describe('the signaling server under attack', () => {
  const SECRET = 'fuzz-secret';
  const LIMITS = { maxMessageBytes: 4096, ratePerSecond: 50, burst: 40, strikes: 5, joinMs: 3000, idleMs: 5000 };
  let server: SignalServer;
  const logs: LogEvent[] = [];
  beforeAll(async () => {
    server = await startSignalServer({ port: 0, secret: SECRET, log: (e) => logs.push(e), limits: LIMITS });
  });
  afterAll(() => server?.close());

  interface Sock { ws: WebSocket; inbox: Record<string, unknown>[]; next: (t: string) => Promise<Record<string, unknown>>; closed: Promise<number>; addr: string }

  /** A raw socket that records what the server sends it. */
  async function connect(): Promise<Sock> {
    const ws = new WebSocket(server.url);
    const inbox: Record<string, unknown>[] = [];
    const waiters: (() => void)[] = [];
    ws.on('message', (d) => { inbox.push(JSON.parse(String(d)) as Record<string, unknown>); waiters.splice(0).forEach((f) => f()); });
    const closed = new Promise<number>((r) => ws.on('close', (code) => { r(code); waiters.splice(0).forEach((f) => f()); }));
    ws.on('error', () => undefined);
    await new Promise((r, j) => { ws.once('open', r); ws.once('error', j); });
    let read = 0;
    const next = async (t: string) => {
      const until = Date.now() + 3000;
      for (;;) {
        while (read < inbox.length) { const m = inbox[read++]!; if (m.t === t) return m; }
        if (ws.readyState >= WebSocket.CLOSING) throw new Error(`closed before a ${t}; got ${JSON.stringify(inbox)}`);
        if (Date.now() > until) throw new Error(`no ${t} within 3 s; got ${JSON.stringify(inbox)}`);
        await new Promise<void>((r) => { waiters.push(r); setTimeout(r, 100); });
      }
    };
    const s = ws as unknown as { _socket: { localPort: number } };
    return { ws, inbox, next, closed, addr: `127.0.0.1:${s._socket.localPort}` };
  }

  const join = async (room: string): Promise<Sock & { id: string }> => {
    const c = await connect();
    c.ws.send(JSON.stringify({ t: 'join', room, token: mintToken(SECRET, room, 60) }));
    const w = await c.next('welcome');
    return { ...c, id: w.id as string };
  };

  /** Two fresh peers of a new room are introduced and can signal each other. */
  async function stillServes(): Promise<void> {
    const room = `ok-${Math.random().toString(36).slice(2, 8)}`;
    const a = await join(room), b = await join(room);
    expect((await a.next('joined')).id).toBe(b.id);
    b.ws.send(JSON.stringify({ t: 'signal', to: a.id, data: { type: 'offer', sdp: 'v=0' } }));
    expect(await a.next('signal')).toEqual({ t: 'signal', from: b.id, data: { type: 'offer', sdp: 'v=0' } });
    a.ws.close(); b.ws.close();
  }

  const validClient = (room: string, peer: string) => fc.oneof(
    fc.constant({ t: 'join', room, token: mintToken(SECRET, room, 60) }),
    fc.constant({ t: 'join', room: 'elsewhere', token: mintToken(SECRET, room, 60) }),
    fc.constant({ t: 'signal', to: peer, data: { type: 'offer', sdp: 'v=0' } }),
    fc.constant({ t: 'signal', to: peer, data: { type: 'candidate', candidate: { candidate: 'candidate:1 1 udp 1 127.0.0.1 5000 typ host', sdpMLineIndex: 0, sdpMid: '0' } } }),
    fc.constant({ t: 'signal', to: peer, data: { renegotiate: true } }),
    fc.constant({ t: 'ping' }),
  );
  type Frame = { text: string } | { binary: Uint8Array };
  const frameArb = (room: string, peer: string): fc.Arbitrary<Frame> => fc.oneof(
    fc.string({ unit: 'binary', maxLength: 200 }).map((text) => ({ text })),
    fc.jsonValue({ maxDepth: 3 }).map((j) => ({ text: JSON.stringify(j) })),
    fc.tuple(validClient(room, peer), fc.array(editArb(jsonValues, fc.constantFrom('t', 'to', 'data', 'room', 'token', 'extra', 'type', 'sdp', '__proto__')), { maxLength: 3 })).map(([m, edits]) => ({ text: JSON.stringify(mutate(m, edits)) })),
    validClient(room, peer).map((m) => ({ text: JSON.stringify(m) })),
    fc.integer({ min: LIMITS.maxMessageBytes + 1, max: 16384 }).map((n) => ({ text: JSON.stringify({ t: 'signal', to: peer, data: { type: 'offer', sdp: 'x'.repeat(n) } }) })),
    fc.constant({ text: 'x'.repeat(100_000) }),
    fc.uint8Array({ maxLength: 100 }).map((binary) => ({ binary })),
  );

  it('random, malformed, oversized and binary frames are refused, logged and survived; fresh peers still get introduced', async () => {
    const room = 'fuzz-room';
    const host = await join(room); // a peer the frames may name
    const codes = new Map<number, number>();
    let answered = 0;
    await fc.assert(fc.asyncProperty(fc.boolean(), fc.array(frameArb(room, host.id), { minLength: 1, maxLength: 12 }), async (joinFirst, frames) => {
      const c = joinFirst ? await join(room) : await connect();
      for (const f of frames) {
        if (c.ws.readyState !== WebSocket.OPEN) break;
        if ('text' in f) c.ws.send(f.text); else c.ws.send(f.binary, { binary: true });
      }
      // the server answers a ping after the frames, or has closed the socket: it never goes quiet
      if (c.ws.readyState === WebSocket.OPEN) c.ws.send(JSON.stringify({ t: 'ping' }));
      const end = await Promise.race([c.next('pong').then(() => 'pong', () => 'closed'), c.closed.then(() => 'closed'), new Promise((r) => setTimeout(() => r('silent'), 4000))]);
      expect(end).not.toBe('silent');
      if (end === 'pong') answered++;
      c.ws.close();
      const code = await c.closed;
      codes.set(code, (codes.get(code) ?? 0) + 1);
      // every error the server sent says why
      for (const m of c.inbox) if (m.t === 'error') expect(String(m.reason)).toMatch(/./);
    }), { ...runs(40), timeout: 10_000 });
    // no frame reached a bug in the server (it logs those as 'error' and closes with 1011)
    expect(logs.filter((l) => l.event === 'error')).toEqual([]);
    expect(codes.has(1011)).toBe(false);
    expect(answered).toBeGreaterThan(0);
    expect(logs.some((l) => l.event === 'refused')).toBe(true);
    expect(server.rooms().get(room)).toContain(host.id);
    host.ws.close();
    await stillServes();
  }, 60_000);

  it('a flooding socket is cut off while another socket of the same room keeps working', async () => {
    const room = 'flood';
    const a = await join(room), b = await join(room), c = await join(room);
    logs.length = 0;
    // b pings at a steady pace through the flood
    let pongs = 0;
    b.ws.on('message', (d) => { if (String(d).includes('pong')) pongs++; });
    const steady = setInterval(() => { if (b.ws.readyState === WebSocket.OPEN) b.ws.send(JSON.stringify({ t: 'ping' })); }, 20);
    for (let i = 0; i < 3000; i++) a.ws.send(JSON.stringify({ t: 'signal', to: c.id, data: { type: 'offer', sdp: `flood ${i}` } }));
    expect(await a.closed).toBe(1008);
    expect(a.inbox.some((m) => m.t === 'error' && /rate limit/.test(String(m.reason)))).toBe(true);
    // the flood got through its burst, and what the rate refilled while it lasted (well under half a second), before the cut
    await new Promise((r) => setTimeout(r, 300));
    clearInterval(steady);
    expect(c.inbox.filter((m) => m.t === 'signal').length).toBeLessThanOrEqual(LIMITS.burst + LIMITS.ratePerSecond / 2);
    // the refusals of one flooding socket are logged once, not once per frame it sent after the cut
    expect(logs.filter((l) => l.event === 'refused' && l.addr === a.addr).length).toBeLessThanOrEqual(2);
    expect(pongs).toBeGreaterThan(5);
    expect(b.ws.readyState).toBe(WebSocket.OPEN);
    b.ws.send(JSON.stringify({ t: 'signal', to: c.id, data: { renegotiate: true } }));
    while ((await c.next('signal')).from !== b.id); // past the flood's signals
    // a socket that floods with refused messages is cut off by strikes
    const d = await join(room);
    for (let i = 0; i < 100; i++) d.ws.send('{');
    expect(await d.closed).toBe(1008);
    expect(d.inbox.filter((m) => m.t === 'error').length).toBeLessThanOrEqual(LIMITS.strikes);
    b.ws.close(); c.ws.close();
    await stillServes();
  }, 30_000);

  it('tokens: any string is refused with a reason, and a signed token of any payload never throws', () => {
    fc.assert(fc.property(fc.string({ maxLength: 600 }), fc.string({ maxLength: 70 }), (token, room) => {
      expect(typeof checkToken(SECRET, token, room)).toBe('string');
    }), runs(300));
    // a holder of the secret can sign any payload: the server must still answer with a reason
    const sign = (payload: string) => {
      const body = `v1.${Buffer.from(payload).toString('base64url')}`;
      return `${body}.${createHmac('sha256', SECRET).update(body).digest('base64url')}`;
    };
    fc.assert(fc.property(fc.oneof(fc.jsonValue().map((j) => JSON.stringify(j)), fc.string()), (payload) => {
      const why = checkToken(SECRET, sign(payload), 'r');
      expect(why === undefined || typeof why === 'string').toBe(true);
    }), runs(300));
    expect(checkToken(SECRET, sign('null'), 'r')).toMatch(/malformed/);
  });
});

// ---------------------------------------------------------------------------
// The coordinator's and workers' message handlers (coordinator.ts, worker.ts)
// on the seeded in-memory network, with a rogue peer in the room that sees
// every message (a tap on the network: the worst case of a peer that learns
// job ids from the shared state, and guesses task numbers, attempts, request
// numbers and piece keys, which are all small counters) and sends its own.

/** Small programs of several tasks each that read each other's pieces: partial (arg-)reductions and their combines, a matrix product of computed operands, a chain of scans over a source. */
const SIM_PROGRAMS: Record<string, () => mt.Tensor> = {
  pi: () => { mt.random.seed(11); const d = mt.random.uniform(-1, 1, [6000, 2], { chunkSize: 600 }); return mt.sqrt(d.power(2).sum({ axis: 1 })).less(1).sum(); },
  argmax: () => mt.argmax(mt.arange(0, 6000, 1, { chunkSize: 800 }).multiply(7).mod(9973)),
  matmul: () => mt.matmul(mt.arange(0, 600, 1, { chunkSize: 200 }).reshape([30, 20]).multiply(0.5).cos(), mt.arange(0, 200, 1, { chunkSize: 100 }).reshape([20, 10]).sin()),
  cumsum: () => mt.cumsum(mt.tensor(Array.from({ length: 90 }, (_, i) => Array.from({ length: 30 }, (_, j) => Math.sin(i * 30 + j))), { chunkSize: [20, 30] }), { axis: 0 }),
};
const simReference = new Map<string, number[]>();
async function simWant(name: string): Promise<number[]> {
  let r = simReference.get(name);
  if (!r) simReference.set(name, (r = Array.from((await SIM_PROGRAMS[name]!().fetch()).data as ArrayLike<number>, Number)));
  return r;
}

/** What the rogue does: each action at a delay after the previous, drawing its values from what it has seen. */
type Rogue =
  /** a valid message of any type, for a job that does not exist */
  | { k: 'wrongJob'; to: number; m: Message; payload?: Uint8Array }
  /** done, fail or hb for the running job's task numbers past its last */
  | { k: 'outOfRange'; what: 'done' | 'fail' | 'hb'; past: number }
  /** a message it saw, sent again from itself to the peer it went to */
  | { k: 'replay'; pick: number }
  /** heartbeats naming leases it saw */
  | { k: 'hb'; pick: number }
  /** a get for a piece it saw named, from anyone */
  | { k: 'get'; to: number; pick: number }
  /** replies to requests nobody made */
  | { k: 'strayReply'; to: number; req: number; piece: boolean }
  /** a fail for a task it saw leased to another peer, for an attempt that is not its own */
  | { k: 'fail'; pick: number; attempt: number; missing: boolean }
  /** free or end of the running job's pieces, to a worker */
  | { k: 'free'; to: number; pick: number; end: boolean }
  /** a reply of the wrong size to a request it saw another peer make */
  | { k: 'badPiece'; pick: number; bytes: Uint8Array };
type Forgery =
  /** a done for a task it was never leased (bytes and digests as the real result's), then it serves wrong data of the right size */
  | { k: 'done'; pick: number; attempt: number }
  /** a reply of the right size but wrong data to a request it saw another peer make */
  | { k: 'piece'; pick: number }
  /** a task message of the running job, as its coordinator would send it, whose output overwrites a piece a worker holds */
  | { k: 'task'; pick: number };

const ROGUE = 'rogue';
const WORKERS = ['w0', 'w1', 'w2'];
const peerAt = (i: number) => ['coordinator', ...WORKERS][i % (WORKERS.length + 1)]!;

interface Sent { from: string; to: string; m: Message; payload?: Uint8Array }

interface RogueHandle {
  send(to: string, m: Message, payload?: Uint8Array): void;
  /** Messages it has seen (from the tap), in order. */
  readonly seen: Sent[];
  /** The running job's id, once it has seen it. */
  job(): string | undefined;
  /** Listens to what others send the rogue itself. */
  onMessage(f: (from: string, m: Message, payload?: Uint8Array) => void): void;
  /** A replica of the shared state on the rogue's own link, which it may write as it likes. */
  state(): MeshState;
}

/**
 * How the rogue behaves when it joins as a worker: it takes no task ('silent'), fails each ('fail'), reports results
 * of the wrong size ('wrongBytes'), commits results it then does not serve ('noServe'), or heartbeats tasks it never
 * finishes ('slow').
 */
type RogueWorker = 'silent' | 'fail' | 'wrongBytes' | 'noServe' | 'slow';

/** Runs `name` on a simulated mesh of a coordinator and three workers while the rogue acts; the result, or the Error the job failed with. */
async function runWithRogue(name: string, seed: number, act: (rogue: RogueHandle) => Promise<void>, asWorker?: RogueWorker): Promise<{ ok: true; data: number[] } | { ok: false; error: Error }> {
  const net = new SimNet({ seed, maxDelayMs: 8 });
  const seen: Sent[] = [];
  const deliver = net.deliver.bind(net);
  net.deliver = (from, to, m, payload) => { if (from !== ROGUE) seen.push({ from, to, m, ...(payload ? { payload } : {}) }); deliver(from, to, m, payload); };
  const cep = net.join('coordinator');
  const cstate = new MeshState(cep, 40);
  const coord = new Coordinator(cep, cstate, { runtime, tickMs: 10, leaseMs: 150, fetchTimeoutMs: 80, waitForWorkersMs: 5000 });
  const closers: (() => void)[] = [() => coord.close(), () => cstate.close()];
  for (const id of WORKERS) {
    const ep = net.join(id);
    const st = new MeshState(ep, 40);
    st.announce({ role: 'worker', device: 'wasm', throughput: 1, memory: 1 << 28, slots: 2 });
    const w = new MeshWorker(ep, { runtime, memory: 1 << 28, heartbeatMs: 25, fetchTimeoutMs: 80 });
    closers.push(() => w.close(), () => st.close());
  }
  const rep = net.join(ROGUE);
  if (asWorker) {
    const st = new MeshState(rep, 40);
    st.announce({ role: 'worker', device: 'wasm', throughput: 4, memory: 1 << 28, slots: 2 });
    const leases: { job: string; task: number; attempt: number }[] = [];
    const beat = setInterval(() => { if (leases.length) void rep.send('coordinator', { t: 'hb', running: leases.slice(-64) }).catch(() => undefined); }, 25);
    closers.push(() => st.close(), () => clearInterval(beat));
    rep.on({
      message: (from, m) => {
        const send = (x: Message) => void rep.send(from, x).catch(() => undefined);
        if (m.t === 'get') return send({ t: 'missing', req: m.req, key: m.key });
        if (m.t !== 'task' && m.t !== 'scan') return;
        const lease = { job: m.job, task: m.task, attempt: m.attempt };
        const bytes = m.t === 'task' ? m.writes.map((w) => size(w.box.map(([lo, hi]) => hi - lo)) * INFO[w.dtype].bytes) : [size(m.shape) * INFO[m.outDtype].bytes];
        const done = (b: number[]) => send({ t: 'done', ...lease, bytes: b, ms: 1, bytesIn: 0, digests: b.map(() => 'b'.repeat(32)), dev: 'wasm' });
        if (asWorker === 'fail') send({ t: 'fail', ...lease, reason: 'rogue worker' });
        else if (asWorker === 'wrongBytes') done(bytes.map((b) => b + 1));
        else if (asWorker === 'noServe') done(bytes);
        else if (asWorker === 'slow') leases.push(lease);
      },
    });
  }
  const job = () => seen.find((s) => 'job' in s.m)?.m as { job: string } | undefined;
  const rogue: RogueHandle = {
    seen,
    job: () => job()?.job,
    send: (to, m, payload) => { if (net.alive(to)) void rep.send(to, m, payload).catch(() => undefined); },
    onMessage: (f) => rep.on({ message: f }),
    state: () => { const st = new MeshState(rep, 40); closers.push(() => st.close()); return st; },
  };
  const x = SIM_PROGRAMS[name]!();
  let stuck: ReturnType<typeof setTimeout> | undefined;
  try {
    const acting = act(rogue);
    const result = await Promise.race([
      coord.run([x.node]).then(() => undefined, (e: unknown) => e),
      new Promise<never>((_, reject) => { stuck = setTimeout(() => reject(new Error(`${name} seed ${seed}: the job did not finish in 15 s: ${coord.describe().join('; ')}`)), 15_000); }),
    ]);
    await acting;
    if (result !== undefined) {
      expect(result, `a job fails with an Error, not ${String(result)}`).toBeInstanceOf(Error);
      return { ok: false, error: result as Error };
    }
    return { ok: true, data: Array.from((await x.fetch()).data as ArrayLike<number>, Number) };
  } finally {
    clearTimeout(stuck);
    closers.forEach((c) => c());
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** The i-th message the rogue has seen that passes `f`, if any. */
const pickFrom = <T extends Sent>(seen: Sent[], i: number, f: (s: Sent) => s is T): T | undefined => { const xs = seen.filter(f); return xs.length ? xs[i % xs.length] : undefined; };
const isT = <T extends Message['t']>(...ts: T[]) => (s: Sent): s is Sent & { m: MessageOf<T> } => (ts as string[]).includes(s.m.t);
const leaseOf = (m: { job: string; task: number; attempt: number }) => ({ job: m.job, task: m.task, attempt: m.attempt });

/** Performs one hostile action, with what the rogue has seen so far. */
function hostile(r: RogueHandle, a: Rogue): void {
  const job = r.job();
  switch (a.k) {
    case 'wrongJob': {
      const m = 'job' in a.m ? { ...a.m, job: `zz${a.m.job}`.slice(0, 40) } : a.m;
      return r.send(peerAt(a.to), m as Message, a.payload);
    }
    case 'outOfRange': {
      if (!job) return;
      const tasks = Math.max(0, ...r.seen.filter(isT('task', 'scan')).map((s) => s.m.task)) + 1 + a.past;
      const lease = { job, task: Math.min(tasks + a.past * 1000, 2 ** 31 - 1), attempt: 0 };
      if (a.what === 'done') return r.send('coordinator', { t: 'done', ...lease, bytes: [8], ms: 1, bytesIn: 0, digests: ['0'.repeat(32)], dev: 'wasm' });
      if (a.what === 'fail') return r.send('coordinator', { t: 'fail', ...lease, reason: 'out of range' });
      return r.send('coordinator', { t: 'hb', running: [lease] });
    }
    case 'replay': {
      const s = r.seen.length ? r.seen[a.pick % r.seen.length]! : undefined;
      if (s && s.to !== ROGUE) r.send(s.to, s.m, s.payload);
      return;
    }
    case 'hb': {
      const ls = r.seen.filter(isT('task', 'scan')).map((s) => leaseOf(s.m));
      if (ls.length) r.send('coordinator', { t: 'hb', running: ls.slice(a.pick % ls.length) });
      return;
    }
    case 'get': {
      const s = pickFrom(r.seen, a.pick, isT('get'));
      if (s) r.send(peerAt(a.to), { t: 'get', req: 1e6 + a.pick % 1000, job: s.m.job, key: s.m.key });
      return;
    }
    case 'strayReply':
      return r.send(peerAt(a.to), a.piece ? { t: 'piece', req: 1e6 + a.req, key: '1.0' } : { t: 'missing', req: 1e6 + a.req, key: '1.0' }, a.piece ? new Uint8Array(8) : undefined);
    case 'fail': {
      const s = pickFrom(r.seen, a.pick, isT('task', 'scan'));
      const holder = pickFrom(r.seen, a.pick, isT('done'));
      const key = pickFrom(r.seen, a.pick, isT('get'));
      if (s) r.send('coordinator', { t: 'fail', job: s.m.job, task: s.m.task, attempt: a.attempt, reason: 'rogue', ...(a.missing && holder && key ? { missing: { key: key.m.key, from: holder.from } } : {}) });
      return;
    }
    case 'free': {
      const w = WORKERS[a.to % WORKERS.length]!;
      const keys = r.seen.filter(isT('get')).map((s) => s.m.key);
      if (job) r.send(w, a.end ? { t: 'end', job } : { t: 'free', job, keys: keys.slice(a.pick % Math.max(1, keys.length)) });
      return;
    }
    case 'badPiece': {
      const g = pickFrom(r.seen, a.pick, isT('get'));
      if (g) r.send(g.from, { t: 'piece', req: g.m.req, key: g.m.key }, a.bytes);
      return;
    }
    default: return a satisfies never;
  }
}

const rogueArb: fc.Arbitrary<Rogue> = fc.oneof(
  messageArb.map(({ m, payload }) => ({ k: 'wrongJob' as const, to: 0, m, ...(payload ? { payload } : {}) })).chain((a) => fc.nat(3).map((to) => ({ ...a, to }))),
  fc.record({ k: fc.constant('outOfRange' as const), what: fc.constantFrom('done' as const, 'fail' as const, 'hb' as const), past: fc.nat(3) }),
  fc.record({ k: fc.constant('replay' as const), pick: fc.nat() }),
  fc.record({ k: fc.constant('hb' as const), pick: fc.nat() }),
  fc.record({ k: fc.constant('get' as const), to: fc.nat(3), pick: fc.nat() }),
  fc.record({ k: fc.constant('strayReply' as const), to: fc.nat(3), req: fc.nat(1000), piece: fc.boolean() }),
  fc.record({ k: fc.constant('fail' as const), pick: fc.nat(), attempt: fc.nat(3), missing: fc.boolean() }),
  fc.record({ k: fc.constant('free' as const), to: fc.nat(3), pick: fc.nat(), end: fc.boolean() }),
  fc.record({ k: fc.constant('badPiece' as const), pick: fc.nat(), bytes: fc.uint8Array({ maxLength: 64 }) }),
);

/** Runs the rogue's actions through a job of `name`; the result must be the local one, or the job must fail with an Error that says why. */
async function underAttack(name: string, seed: number, actions: readonly [number, Rogue][], asWorker: RogueWorker | undefined, stats?: { ok: number; failed: string[] }): Promise<void> {
  const want = await simWant(name);
  const r = await runWithRogue(name, seed, async (rogue) => {
    for (let i = 0; i < 2000 && !rogue.job(); i++) await sleep(1);
    for (const [ms, a] of actions) {
      await sleep(ms);
      hostile(rogue, a);
    }
  }, asWorker);
  if (r.ok) { expect(r.data, `${name} seed ${seed}`).toEqual(want); if (stats) stats.ok++; }
  else { expect(r.error.message).toMatch(/\w/); stats?.failed.push(`${asWorker ?? 'outsider'}: ${r.error.message.slice(0, 100)}`); }
}

const actionsArb = fc.array(fc.tuple(fc.nat(6), rogueArb), { minLength: 5, maxLength: 60, size: 'max' });

describe('the mesh roles with a rogue peer in the room', () => {
  // an outsider's messages, or a worker that fails every task it takes (the job fails clearly after maxFailures)
  it.each(Object.keys(SIM_PROGRAMS))('%s: hostile messages never hang a job or change its result', async (name) => {
    const stats = { ok: 0, failed: [] as string[] };
    const asWorker = fc.oneof({ arbitrary: fc.constant(undefined), weight: 3 }, { arbitrary: fc.constant<RogueWorker>('fail'), weight: 1 });
    await fc.assert(fc.asyncProperty(fc.nat(1000), asWorker, actionsArb, (seed, asWorker, actions) => underAttack(name, seed, actions, asWorker, stats)), { ...runs(20), timeout: 30_000, endOnFailure: true });
    if (process.env.PROP_STATS) console.log(name, stats);
    expect(stats.ok).toBeGreaterThan(0);
  }, 120_000);

  // (a `done` whose byte counts are wrong once deleted its attempt before failing it: the task stayed 'run' forever)
  it('a worker that reports results of the wrong size does not stall a job', async () => {
    await fc.assert(fc.asyncProperty(fc.constantFrom(...Object.keys(SIM_PROGRAMS)), fc.nat(1000), (name, seed) => underAttack(name, seed, [], 'wrongBytes')), { ...runs(4), timeout: 30_000, endOnFailure: true });
  }, 120_000);

  // A worker that takes leases and never answers ('silent'), commits results it never serves ('noServe'), or
  // heartbeats tasks it never finishes ('slow') once held a job forever; now it is benched after 3 strikes in a row,
  // and a task with too few results for a median is a straggler after 4 straggler floors.
  it('a worker that never answers, never serves what it committed, or never finishes does not stall a job', async () => {
    await fc.assert(fc.asyncProperty(fc.constantFrom(...Object.keys(SIM_PROGRAMS)), fc.nat(1000), fc.constantFrom<RogueWorker>('silent', 'noServe', 'slow'), (name, seed, asWorker) => underAttack(name, seed, [], asWorker)), { ...runs(6), timeout: 30_000, endOnFailure: true });
  }, 180_000);
});

describe('the shared mesh state with a rogue peer in the room', () => {
  it('arbitrary and mutated Yjs updates are refused or applied, never crash a replica or hang', async () => {
    const net = new SimNet({ seed: 5, maxDelayMs: 1 });
    const a = net.join('a'), rogue = net.join('rogue');
    const st = new MeshState(a, 1000);
    const errors: string[] = [];
    const log = console.error;
    console.error = (line: string) => { errors.push(line); };
    try {
      st.announce({ role: 'worker', device: 'wasm', throughput: 1, memory: 1 << 20, slots: 1 });
      const src = new Y.Doc();
      src.getMap('peers').set('x', { role: 'worker', device: 'wasm', throughput: 2, memory: 1, slots: 2 });
      src.getMap('jobs').set('j', { done: 1, total: 2, peers: 1 });
      const valid = Y.encodeStateAsUpdate(src);
      await fc.assert(fc.asyncProperty(fc.oneof(fc.uint8Array({ maxLength: 200 }), fc.array(fc.tuple(fc.nat(), fc.nat(255)), { minLength: 1, maxLength: 4 }).map((edits) => {
        const b = valid.slice();
        for (const [at, v] of edits) b[at % b.length] = v;
        return b;
      })), async (update) => {
        const t0 = performance.now();
        await rogue.send('a', { t: 'y' }, update);
        await sleep(2);
        expect(performance.now() - t0).toBeLessThan(1000);
      }), runs(200));
      // the replica still works: it takes a valid update, the rogue's own capabilities written as the rogue
      const fresh = new Y.Doc();
      fresh.clientID = clientOf('rogue');
      fresh.getMap('peers').set('rogue', { role: 'worker', device: 'wasm', throughput: 2, memory: 1, slots: 3 });
      await rogue.send('a', { t: 'y' }, Y.encodeStateAsUpdate(fresh));
      await sleep(20);
      expect(st.peers.get('rogue')?.slots).toBe(3);
      expect(st.peers.get('a')?.role).toBe('worker');
    } finally {
      console.error = log;
      st.close();
    }
    expect(errors.every((e) => /a bad state update from rogue/.test(e))).toBe(true);
  });

  // A peer's capabilities are taken from that peer alone (state.ts): a rogue that pauses every worker, or gives
  // them NaN slots, changes nothing.
  it('capabilities a rogue writes for other peers are refused, and the job runs as if it had not', async () => {
    const want = await simWant('pi');
    const log = console.error;
    const refused: string[] = [];
    console.error = (line: string) => { refused.push(line); };
    try {
      for (const forged of [{ slots: Number.NaN }, { paused: true }]) {
        const r = await runWithRogue('pi', 1, async (rogue) => {
          const forger = rogue.state(); // a replica: once in sync, its writes come after the workers' own
          for (let i = 0; i < 2000 && !rogue.job(); i++) await sleep(1);
          for (let i = 0; i < 2000 && forger.peers.size < WORKERS.length; i++) await sleep(1);
          for (const w of WORKERS) forger.peers.set(w, { role: 'worker', device: 'wasm', throughput: 1, memory: 1 << 28, slots: 1, ...forged });
        });
        expect(r.ok && r.data).toEqual(want);
      }
    } finally {
      console.error = log;
    }
    expect(refused.some((e) => /from rogue: it writes the capabilities of peer w/.test(e))).toBe(true);
  }, 60_000);

  it("no rogue writes, relays or deletes a live peer's entries", async () => {
    const net = new SimNet({ seed: 6, maxDelayMs: 1 });
    const [a, w, r] = [net.join('a'), net.join('w'), net.join('rogue')];
    const caps = { role: 'worker' as const, device: 'wasm', throughput: 1, memory: 1 << 20, slots: 1 };
    const [sa, sw, sr] = [new MeshState(a, 1000), new MeshState(w, 1000), new MeshState(r, 1000)];
    const log = console.error;
    const refused: string[] = [];
    console.error = (line: string) => { refused.push(line); };
    try {
      sw.announce(caps);
      sr.announce({ ...caps, slots: 2 });
      await sleep(30);
      expect([...sa.workers().keys()].sort()).toEqual(['rogue', 'w']);
      // 1. written as itself: refused
      sr.peers.set('w', { ...caps, paused: true });
      // 2. written as w, continuing w's own clocks, and relayed: dropped, w is live and speaks for itself
      const asW = new Y.Doc();
      Y.applyUpdate(asW, Y.encodeStateAsUpdate(sw.doc));
      asW.clientID = clientOf('w'); // after w's writes arrived (Yjs moves a document off a client id others write with)
      asW.getMap('peers').set('w', { ...caps, slots: 0 });
      expect(writerOf(asW.getMap('peers'), 'w')).toBe(clientOf('w'));
      await r.send('a', { t: 'y' }, Y.encodeStateAsUpdate(asW));
      // 3. deleted
      await sleep(30);
      Y.applyUpdate(sr.doc, Y.encodeStateAsUpdate(sw.doc));
      sr.peers.delete('w');
      await sleep(30);
      expect(sa.peers.get('w')).toEqual(caps);
      expect([...sa.workers().keys()].sort()).toEqual(['rogue', 'w']);
      expect(refused.some((e) => /from rogue: it writes the capabilities of peer w/.test(e))).toBe(true);
    } finally {
      console.error = log;
      [sa, sw, sr].forEach((x) => x.close());
    }
  });

  it('a peer that links late takes the whole state of a long-running peer (long chains of overwrites included)', async () => {
    const net = new SimNet({ seed: 8, maxDelayMs: 1 });
    const w = net.join('w');
    const sw = new MeshState(w, 1000);
    const caps = { role: 'worker' as const, device: 'wasm', throughput: 1, memory: 1 << 20, slots: 1 };
    // 300 announcements and progress updates, interleaved (so Yjs cannot merge them): chains of 300 overwrites
    for (let i = 0; i < 300; i++) { sw.announce({ ...caps, throughput: i }); sw.jobs.set('j', { done: i, total: 300, peers: 1 }); }
    const late = net.join('late');
    const sl = new MeshState(late, 1000);
    try {
      await sleep(50);
      expect(sl.peers.get('w')?.throughput).toBe(299);
      expect(sl.jobs.get('j')?.done).toBe(299);
    } finally {
      sw.close();
      sl.close();
    }
  });

  it('a journal counts only where the coordinator it names wrote it, and expires once that coordinator has left', async () => {
    const net = new SimNet({ seed: 7, maxDelayMs: 1 });
    const [a, w, r] = [net.join('a'), net.join('w'), net.join('rogue')];
    const [sa, sw, sr] = [new MeshState(a, 1000), new MeshState(w, 1000), new MeshState(r, 1000)];
    try {
      const journal = (st: MeshState) => st.doc.getMap<Y.Map<unknown>>('journal');
      const record = (st: MeshState, job: string, owner: string, commits: Record<string, unknown>) => {
        const m = new Y.Map<unknown>();
        journal(st).set(job, m);
        m.set('owner', owner);
        for (const [k, v] of Object.entries(commits)) m.set(k, v);
      };
      record(sr, 'J1', 'gone', { 0: ['rogue', 'x'] }); // in the name of a coordinator that left
      record(sr, 'J2', 'w', { 0: ['rogue', 'x'] }); // in the name of a live one
      const wj = new StateJournal(sw); // w's own
      wj.begin('K', 'w');
      wj.commit('K', 0, { peer: 'w', digests: 'd0' });
      await sleep(30);
      journal(sr).get('K')!.set('1', ['rogue', 'x']); // the rogue adds to it
      await sleep(30);
      expect([...journal(sa).keys()].sort()).toEqual(['J1', 'J2', 'K']); // all arrived
      const sj = new StateJournal(sa);
      expect(await sj.load('J1')).toBeUndefined();
      expect(await sj.load('J2')).toBeUndefined();
      const k = await sj.load('K');
      expect(k?.owner).toBe('w');
      expect([...k!.commits]).toEqual([[0, { peer: 'w', digests: 'd0' }]]);
      // a coordinator that begins a job forgets the journals of coordinators that left more than the TTL ago
      new StateJournal(sa, 60_000).begin('L', 'a');
      expect([...journal(sa).keys()].sort()).toEqual(['J2', 'K', 'L']); // J1's owner is gone (and it has no time)
      net.kill('w');
      await sleep(30);
      new StateJournal(sa, 60_000).begin('M', 'a');
      expect([...journal(sa).keys()].sort()).toEqual(['K', 'L', 'M']); // K's owner left, but only just
      new StateJournal(sa, 0).begin('N', 'a');
      expect([...journal(sa).keys()].sort()).toEqual(['L', 'M', 'N']);
    } finally {
      [sa, sw, sr].forEach((x) => x.close());
    }
  });
});

/** What the rogue learned of each piece of the running job from the task messages it saw: its dtype and extent. */
function pieceSpecs(seen: Sent[]): Map<string, { dtype: DType; shape: number[] }> {
  const out = new Map<string, { dtype: DType; shape: number[] }>();
  const ext = (box: readonly (readonly [number, number])[]) => box.map(([lo, hi]) => hi - lo);
  for (const { m } of seen) {
    if (m.t === 'task') {
      for (const r of m.reads) for (const p of r.pieces) out.set(p.key, { dtype: r.dtype, shape: ext(p.box) });
      for (const w of m.writes) out.set(w.key, { dtype: w.dtype, shape: ext(w.box) });
    } else if (m.t === 'scan') {
      out.set(m.src.key, { dtype: m.inDtype, shape: ext(m.src.box) });
      if (m.prev) out.set(m.prev.key, { dtype: m.outDtype, shape: ext(m.prev.box) });
      out.set(m.out, { dtype: m.outDtype, shape: m.shape });
    }
  }
  return out;
}

/** A payload of the right dtype and size for `spec`, with every element wrong (3, or true). */
const wrongPiece = (spec: { dtype: DType; shape: number[] }): Uint8Array => {
  const n = size(spec.shape);
  const data = spec.dtype === 'int64' ? new BigInt64Array(n).fill(3n) : (new ARRAY_CTOR[spec.dtype](n) as Exclude<TypedArray, BigInt64Array>).fill(spec.dtype === 'bool' ? 1 : 3);
  return encodeChunk(data as TypedArray, spec.dtype, spec.shape);
};

/** Runs a forgery until the job ends: the result must be the local one, or the job must fail with a clear error. */
async function forge(name: string, seed: number, f: Forgery): Promise<void> {
  const want = await simWant(name);
  let forged = 0;
  const r = await runWithRogue(name, seed, async (rogue) => {
    for (let i = 0; i < 2000 && !rogue.job(); i++) await sleep(1);
    const specs = () => pieceSpecs(rogue.seen);
    const served = new Set<string>();
    if (f.k === 'done') {
      // the rogue answers gets for what it claims to hold with wrong data of the right size
      rogue.onMessage((from, m) => {
        if (m.t !== 'get') return;
        const spec = specs().get(m.key);
        if (spec) rogue.send(from, { t: 'piece', req: m.req, key: m.key }, wrongPiece(spec));
      });
    }
    for (let step = 0; step < 400; step++) {
      await sleep(1);
      if (f.k === 'done') {
        // a done for every task it sees leased to others, before theirs arrives, for an attempt nobody was given
        for (const s of rogue.seen.filter(isT('task', 'scan'))) {
          const id = `${s.m.task}`;
          if (served.has(id)) continue;
          served.add(id);
          const writes = s.m.t === 'task' ? s.m.writes.map((w) => specs().get(w.key)!) : [specs().get(s.m.out)!];
          rogue.send('coordinator', { t: 'done', job: s.m.job, task: s.m.task, attempt: 1000 + f.attempt, bytes: writes.map((w) => size(w.shape) * INFO[w.dtype].bytes), ms: 1, bytesIn: 0, digests: writes.map(() => 'a'.repeat(32)), dev: 'gpu' });
        }
      } else if (f.k === 'piece') {
        // a reply of the right size and wrong data to every request it sees
        for (const g of rogue.seen.filter(isT('get'))) {
          const id = `${g.from}/${g.m.req}`;
          const spec = specs().get(g.m.key);
          if (served.has(id) || !spec) continue;
          served.add(id);
          rogue.send(g.from, { t: 'piece', req: g.m.req, key: g.m.key }, wrongPiece(spec));
        }
      } else {
        // for every task it sees leased, a sibling task of the same kernel sent to the same worker with the first one's output keys:
        // whichever finishes last is what that worker stores, and serves, under those keys
        const tasks = rogue.seen.filter(isT('task'));
        for (const t of tasks) {
          const extents = (x: typeof t) => JSON.stringify(x.m.writes.map((w) => w.box.map(([lo, hi]) => hi - lo)));
          const other = tasks.find((u) => u.m.kid === t.m.kid && extents(u) === extents(t) && u.m.writes[0]!.key !== t.m.writes[0]!.key);
          const text = tasks.find((u) => u.m.kid === t.m.kid && u.m.kernel)?.m.kernel;
          const id = `${t.to}/${t.m.task}/${t.m.attempt}`;
          if (!other || text === undefined || served.has(id)) continue;
          served.add(id);
          forged++;
          const m: Message = { ...other.m, kernel: text, attempt: 1000 + f.pick % 1000, writes: other.m.writes.map((w, i) => ({ ...w, key: t.m.writes[i]!.key })) };
          for (const ms of [0, 2, 5, 10, 20]) setTimeout(() => rogue.send(t.to, m), ms);
        }
      }
    }
  });
  if (f.k === 'task') expect(forged).toBeGreaterThan(0);
  if (r.ok) expect(r.data, `${name} seed ${seed}: a forged ${f.k} changed the result`).toEqual(want);
  else expect(r.error.message).toMatch(/\w/);
}

describe('the mesh roles against forged messages', () => {
  const forged = (arb: fc.Arbitrary<Forgery>, programs = Object.keys(SIM_PROGRAMS)) => fc.assert(fc.asyncProperty(fc.constantFrom(...programs), fc.nat(1000), arb, (name, seed, f) => forge(name, seed, f)), { ...runs(8), timeout: 30_000, endOnFailure: true });

  it('a done from a peer that was never leased the task does not commit it', async () => {
    await forged(fc.record({ k: fc.constant('done' as const), pick: fc.nat(), attempt: fc.nat(100) }));
  }, 120_000);

  // (replies were once matched by request number alone: a forged piece of the right size changed the result)
  it('a forged piece reply never changes a job\'s result', async () => {
    await forged(fc.record({ k: fc.constant('piece' as const), pick: fc.nat() }));
  }, 120_000);

  // (a worker once ran tasks of a job from any peer and stored their outputs over what it held)
  it('a forged task never overwrites a job\'s pieces', async () => {
    await forged(fc.record({ k: fc.constant('task' as const), pick: fc.nat() }), ['pi', 'argmax']); // the programs with sibling tasks of one kernel
  }, 120_000);
});
