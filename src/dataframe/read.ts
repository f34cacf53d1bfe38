// read_csv (pandas 1.5 semantics): a CSV file, URL, Blob or bytes to a
// DataFrame of chunked columns, parsed in parallel by byte ranges. In: the
// source and pandas' options (csv.ts CsvOptions) plus the range size and the
// row chunking. Out: a DataFrame whose columns are materialised source
// tensors (strings as int32 codes into a dictionary in the file's first-seen
// order), equal to one single-threaded parse of the whole text (parseCsv).
// Design, after the driver test/csv.test.ts runs in one thread:
//   1. sniff a head (grown until its first row is whole): names and dtypes;
//   2. cut the data into ranges of chunk_bytes; each range's state map and its
//      first row start per entry state (scanStates) on the threads; composed
//      here left to right, they place every range on whole rows;
//   3. parse the ranges on the threads, a few ahead of the one committed here
//      in file order (which numbers a malformed row's line for the whole file,
//      and stops at nrows without parsing the rest);
//   4. join the column states, parse again the ranges that came out narrower;
//   5. lay the ranges' rows out in chunks of chunkSize rows, each chunk built
//      in its heap block (Runtime.putChunked), string codes remapped on the way.
// Threads are dataframe/parse-thread.ts, one per core, started per call and
// ended when it settles; each reads its own ranges of a file, so a large file
// is never held whole here. Inputs under 1 MiB parse on this thread.

import { host } from '#host';
import type { Thread } from '../host/types.js';
import type { DType, TypedArray } from '../graph/dtype.js';
import * as G from '../graph/node.js';
import { runtime } from '../runtime/runtime.js';
import * as mt from '../api/tensor.js';
import {
  type Column as Parsed1, CsvError, type CsvOptions, type Parsed, type RangeJob, type RangeResult, type Schema, St, pandasDtype,
  sniff, unify, work,
} from './csv.js';
import { DataFrame } from './frame.js';
import type { Column } from './series.js';
import type { ParseReply, ParseRequest } from './parse-thread.js';

export interface ReadCsvOptions extends CsvOptions {
  /** Bytes per range, the unit of parallel work (default 16 MiB). */
  chunk_bytes?: number;
  /** Rows per chunk of every column (default 2^20, or the frame's length when shorter). */
  chunkSize?: number;
  /** Parse threads: default one per core, or none (this thread) for inputs under 1 MiB; 0 parses here. */
  threads?: number;
}

/** A path or file: URL (Node), an http(s) URL, a Blob or File, or the bytes. */
export type CsvSource = string | URL | Blob | Uint8Array | ArrayBuffer;

const SMALL = 1 << 20;
/** Parse jobs a thread holds at once: one running, one waiting (so memory holds a few ranges). */
const PER_THREAD = 2;

interface Source {
  readonly size: number;
  /** A file the threads read themselves (a path, or a file: URL's href). */
  readonly file?: string;
  /** Bytes [from, to); `own`: a copy that may be transferred away. */
  read(from: number, to: number, own: boolean): Promise<Uint8Array>;
}

function bytesSource(b: Uint8Array): Source {
  return { size: b.length, read: async (from, to, own) => (own ? b.slice(from, to) : b.subarray(from, to)) };
}

/** An http(s) source: Range requests when the server answers one with 206, else the whole body at once. */
async function httpSource(url: URL): Promise<Source> {
  const probe = await fetch(url, { headers: { Range: 'bytes=0-0' } });
  const total = Number(/\/(\d+)\s*$/.exec(probe.headers.get('content-range') ?? '')?.[1]);
  if (probe.status === 206 && Number.isFinite(total)) {
    await probe.body?.cancel();
    return {
      size: total,
      async read(from, to) {
        if (to <= from) return new Uint8Array(0);
        const r = await fetch(url, { headers: { Range: `bytes=${from}-${to - 1}` } });
        if (r.status !== 206) throw new Error(`read_csv: ${url.href}: a range request got HTTP ${r.status}`);
        return new Uint8Array(await r.arrayBuffer());
      },
    };
  }
  if (!probe.ok) throw new Error(`read_csv: ${url.href}: HTTP ${probe.status} ${probe.statusText}`);
  return bytesSource(new Uint8Array(await probe.arrayBuffer()));
}

async function open(source: CsvSource): Promise<Source> {
  if (source instanceof Uint8Array) return bytesSource(source);
  if (source instanceof ArrayBuffer) return bytesSource(new Uint8Array(source));
  if (typeof Blob !== 'undefined' && source instanceof Blob) {
    return { size: source.size, read: async (from, to) => new Uint8Array(await source.slice(from, to).arrayBuffer()) };
  }
  const url = source instanceof URL ? source : /^[a-z][a-z0-9+.-]*:\/\//i.test(source as string) ? new URL(source as string) : null;
  if (url && (url.protocol === 'http:' || url.protocol === 'https:')) return httpSource(url);
  if (url && url.protocol !== 'file:') throw new TypeError(`read_csv: cannot read ${url.protocol} URLs (a path, file:, http(s):, a Blob or bytes)`);
  const files = host.files();
  if (!files) throw new Error('read_csv: this host has no files: give an http(s) URL, a Blob or bytes');
  const path = url ?? (source as string);
  return { size: await files.size(path), file: url ? url.href : (source as string), read: (from, to) => files.readRange(path, from, to) };
}

/** The schema from the shortest head of 64 KiB times a power of 4 whose first row is whole. */
async function sniffHead(src: Source, opts: CsvOptions): Promise<Schema> {
  for (let len = Math.min(src.size, 1 << 16); ; len = Math.min(src.size, len * 4)) {
    try {
      return sniff(await src.read(0, len, false), opts, len === src.size);
    } catch (e) {
      if (len === src.size || !(e instanceof Error) || !/sniff needs a longer head|EOF inside string/.test(e.message)) throw e;
    }
  }
}

/** Runs range jobs: on parse threads, or here. */
interface Runner {
  readonly threads: number;
  run(job: RangeJob): Promise<RangeResult>;
  close(): Promise<void>;
}

function inline(src: Source): Runner {
  return { threads: 0, run: async (job) => work(job, await src.read(job.from, job.to, false)), close: async () => undefined };
}

interface Waiting { job: RangeJob; resolve(r: RangeResult): void; reject(e: Error): void }

/** Parse threads, each given at most PER_THREAD jobs at a time; a thread that fails fails every job. */
class ThreadRunner implements Runner {
  private readonly slots: { thread: Thread; busy: number }[] = [];
  private readonly queue: Waiting[] = [];
  private readonly sent = new Map<number, Waiting>();
  private nextId = 0;
  private failed: Error | null = null;

  constructor(private readonly src: Source, readonly threads: number) {
    try {
      for (let i = 0; i < threads; i++) {
        const slot = { thread: host.spawnThread('dataframe/parse-thread.js'), busy: 0 };
        slot.thread.onMessage((r: ParseReply) => {
          slot.busy--;
          const w = this.sent.get(r.id);
          this.sent.delete(r.id);
          if ('result' in r) w?.resolve(r.result);
          else w?.reject('line' in r.error ? new CsvError(r.error.line, r.error.expected, r.error.saw) : new Error(r.error.message));
          this.pump();
        });
        slot.thread.onError((e) => this.fail(e));
        slot.thread.hold?.(true); // a read in progress keeps the process alive; close ends the threads
        this.slots.push(slot);
      }
    } catch (e) {
      void this.close();
      throw e;
    }
  }

  run(job: RangeJob): Promise<RangeResult> {
    if (this.failed) return Promise.reject(this.failed);
    return new Promise((resolve, reject) => {
      this.queue.push({ job, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    for (const slot of this.slots) {
      while (slot.busy < PER_THREAD && this.queue.length && !this.failed) {
        const w = this.queue.shift()!;
        const id = this.nextId++;
        slot.busy++;
        this.sent.set(id, w);
        this.send(slot.thread, id, w.job).catch((e: Error) => {
          slot.busy--;
          this.sent.delete(id);
          w.reject(e);
        });
      }
    }
  }

  private async send(thread: Thread, id: number, job: RangeJob): Promise<void> {
    if (this.src.file !== undefined) return thread.post({ id, job, file: this.src.file } satisfies ParseRequest);
    const bytes = await this.src.read(job.from, job.to, true);
    thread.post({ id, job, bytes } satisfies ParseRequest, [bytes.buffer as ArrayBuffer]);
  }

  private fail(e: Error): void {
    this.failed = e;
    for (const w of [...this.sent.values(), ...this.queue.splice(0)]) w.reject(e);
    this.sent.clear();
  }

  async close(): Promise<void> {
    await Promise.all(this.slots.splice(0).map((s) => s.thread.terminate()));
  }
}

/** The ranges of whole rows: [first row start at or after each cut, the next one's), the empty ones left out. */
async function rowRanges(runner: Runner, size: number, schema: Schema, step: number): Promise<[number, number][]> {
  const cuts: number[] = [];
  for (let c = schema.dataStart; c < size; c += step) cuts.push(c);
  const scans = await Promise.all(cuts.map((from, i) => runner.run({
    kind: 'scan', from, to: i + 1 < cuts.length ? cuts[i + 1]! : size, sep: schema.sep, quote: schema.quote,
  }))) as Extract<RangeResult, { kind: 'scan' }>[];
  const entry: number[] = [];
  let state: number = St.Row;
  for (const s of scans) {
    entry.push(state);
    state = s.map[state]!;
  }
  // A range with no row start of its own (inside one long row) starts where the next one does.
  const starts = [...cuts.map(() => size), size];
  for (let i = cuts.length - 1; i >= 0; i--) {
    const f = scans[i]!.first[entry[i]!]!;
    starts[i] = f >= 0 ? f : starts[i + 1]!;
  }
  return cuts.map((_, i) => [starts[i]!, starts[i + 1]!] as [number, number]).filter(([a, b]) => a < b);
}

/**
 * The ranges' rows, parsed a few ranges ahead of the one committed here, in file order: a malformed row's line
 * counts the lines of the ranges before it; with nrows, parsing stops once the ranges hold that many rows.
 */
async function parseAll(runner: Runner, schema: Schema, ranges: [number, number][]): Promise<Parsed[]> {
  const limit = schema.nrows;
  const parse = (i: number, maxRows: number | null): Promise<Parsed | Error> => {
    const [from, to] = ranges[i]!;
    const job: RangeJob = { kind: 'parse', from, to, schema, ...(maxRows === null ? {} : { maxRows }) };
    return runner.run(job).then((r) => (r as Extract<RangeResult, { kind: 'parse' }>).parsed, (e) => (e instanceof Error ? e : new Error(String(e))));
  };
  const ahead = Math.max(1, runner.threads * PER_THREAD);
  const started: Promise<Parsed | Error>[] = [];
  const parts: Parsed[] = [];
  let rows = 0;
  let lines = schema.headerRows;
  for (let i = 0; i < ranges.length && (limit === null || rows < limit); i++) {
    while (started.length < Math.min(ranges.length, i + ahead)) started.push(parse(started.length, limit));
    let p = await started[i]!;
    // the last range nrows reaches: its rows past the limit are not read (nor their errors)
    if (limit !== null && (p instanceof Error || rows + p.rows > limit)) p = await parse(i, limit - rows);
    if (p instanceof CsvError) throw new CsvError(lines + p.line, p.expected, p.saw);
    if (p instanceof Error) throw p;
    parts.push(p);
    rows += p.rows;
    lines += p.records;
  }
  return parts;
}

/**
 * Joins the ranges' column states and parses again, with the joined states, the ranges where a column came out
 * with another dtype (a float column's NA, or a string column's, changes no stored value: those are kept).
 */
async function widen(runner: Runner, schema: Schema, ranges: [number, number][], parts: Parsed[]): Promise<Schema> {
  const states = unify([schema.states, ...parts.map((p) => p.states)]);
  schema.names.forEach((name, c) => {
    const was = schema.states[c]!;
    if (schema.forced[c] !== null || was.kind === 'none' || pandasDtype(was) === pandasDtype(states[c]!)) return;
    console.warn(`read_csv: column '${name}' is read as ${pandasDtype(states[c]!)}: rows after the head it was sniffed from `
      + `do not fit ${pandasDtype(was)} (pandas: DtypeWarning, mixed types)`);
  });
  const wide = { ...schema, states };
  const same = (p: Parsed): boolean => p.states.every((s, c) => pandasDtype(s) === pandasDtype(states[c]!));
  await Promise.all(parts.map(async (p, i) => {
    if (same(p)) return;
    const [from, to] = ranges[i]!;
    const r = await runner.run({ kind: 'parse', from, to, schema: wide, maxRows: p.rows });
    parts[i] = (r as Extract<RangeResult, { kind: 'parse' }>).parsed;
  }));
  return wide;
}

/** One column of the frame from its pieces (one per range), in chunks of `chunk` rows. */
function layout(pieces: Parsed1[], n: number, chunk: number): Column {
  const first = pieces[0]!;
  const offsets = [0];
  for (const p of pieces) offsets.push(offsets.at(-1)! + lengthOf(p));
  // copy(k, from, to, view, at): piece k's rows [from, to) into view[at...]
  let dtype: DType;
  let dict: string[] | undefined;
  let copy: (k: number, from: number, to: number, view: TypedArray, at: number) => void;
  if (first.dtype === 'string') {
    dtype = 'int32';
    const all: string[] = [];
    const ids = new Map<string, number>();
    const maps = pieces.map((p) => Int32Array.from((p as typeof first).dict, (t) => {
      let id = ids.get(t);
      if (id === undefined) ids.set(t, (id = all.push(t) - 1));
      return id;
    }));
    dict = all;
    copy = (k, from, to, view, at) => {
      const codes = (pieces[k] as typeof first).codes;
      const map = maps[k]!;
      for (let r = from; r < to; r++) {
        const v = codes[r]!;
        view[at++] = v < 0 ? -1 : map[v]!;
      }
    };
  } else if (first.dtype === 'bool' && first.missing) {
    // pandas' object column of True, False and NaN: here a dictionary column (the tensor has no missing booleans)
    dtype = 'int32';
    dict = ['False', 'True'];
    copy = (k, from, to, view, at) => {
      const p = pieces[k] as typeof first;
      for (let r = from; r < to; r++) view[at++] = p.missing![r] ? -1 : p.values[r]!;
    };
  } else {
    dtype = first.dtype;
    copy = (k, from, to, view, at) => (view as Uint8Array).set((pieces[k] as { values: Uint8Array }).values.subarray(from, to), at);
  }
  const node = G.source(`csv${Math.random().toString(36).slice(2)}`, dtype, [n], [Math.max(1, Math.min(chunk, n))]);
  let k = 0;
  runtime.putChunked(node, (c, view) => {
    const lo = c * chunk;
    const hi = lo + view.length;
    for (let at = lo; at < hi; k++) {
      if (offsets[k + 1]! <= at) continue;
      const to = Math.min(hi, offsets[k + 1]!);
      copy(k, at - offsets[k]!, to - offsets[k]!, view, at - lo);
      at = to;
      if (to < offsets[k + 1]!) break; // this piece goes on in the next chunk
    }
  });
  const values = new mt.Tensor(node);
  return dict ? { values, dict } : { values };
}

const lengthOf = (c: Parsed1): number => (c.dtype === 'string' ? c.codes.length : c.values.length);

/**
 * pandas' read_csv (1.5): the file, URL, Blob or bytes as a DataFrame, parsed in parallel by byte ranges (see the
 * file's header). Dtypes are pandas' (inferred over the whole file, as with low_memory=False); a column that the
 * head sniffed narrower than later rows make it is reported with console.warn. A malformed row rejects with
 * pandas' message and line number.
 */
export async function read_csv(source: CsvSource, opts: ReadCsvOptions = {}): Promise<DataFrame> {
  const { chunk_bytes: step = 16 << 20, chunkSize, threads, ...csv } = opts;
  if (!Number.isInteger(step) || step <= 0) throw new RangeError(`read_csv: chunk_bytes must be a positive integer, got ${step}`);
  if (chunkSize !== undefined && !(Number.isInteger(chunkSize) && chunkSize > 0)) {
    throw new RangeError(`read_csv: chunkSize must be a positive integer, got ${chunkSize}`);
  }
  if (threads !== undefined && !(Number.isInteger(threads) && threads >= 0)) {
    throw new RangeError(`read_csv: threads must be a non-negative integer, got ${threads}`);
  }
  const src = await open(source);
  let schema = await sniffHead(src, csv);
  const n = threads ?? (src.size < SMALL ? 0 : host.cores());
  const runner = n > 0 ? new ThreadRunner(src, n) : inline(src);
  let parts: Parsed[];
  try {
    const ranges = await rowRanges(runner, src.size, schema, step);
    parts = await parseAll(runner, schema, ranges);
    schema = await widen(runner, schema, ranges, parts);
  } finally {
    await runner.close();
  }
  if (!parts.length) parts = [(work({ kind: 'parse', from: 0, to: 0, schema }, new Uint8Array(0)) as Extract<RangeResult, { kind: 'parse' }>).parsed];
  const rows = parts.reduce((a, p) => a + p.rows, 0);
  const byColumn = schema.names.map((_, c) => parts.map((p) => p.columns[c]!));
  parts = [];
  const columns = new Map<string, Column>();
  schema.names.forEach((name, c) => {
    columns.set(name, layout(byColumn[c]!, rows, chunkSize ?? Math.max(1, Math.min(rows, 1 << 20))));
    byColumn[c] = []; // each column's pieces go once it is laid out
  });
  return new DataFrame(columns);
}
