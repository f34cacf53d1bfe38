// read_csv (pandas 1.5 semantics): a CSV file, URL, Blob or bytes to a
// DataFrame of chunked columns, parsed in parallel by byte ranges. In: the
// source and pandas' options (csv.ts CsvOptions) plus the range size and the
// row chunking. Out: a DataFrame whose columns are materialised source
// tensors (strings as int32 codes into a dictionary in the file's first-seen
// order), equal to one single-threaded parse of the whole text (parseCsv).
// Design, after the driver test/csv.test.ts runs in one thread:
//   1. sniff a head (grown until its first row is whole): names and dtypes;
//   2. cut the data into ranges of chunk_bytes; each range's state map and its
//      first row start per entry state (scanStates) on the threads, a batch
//      ahead of the parsing; composed here left to right, they place every
//      range on whole rows;
//   3. parse the ranges on the threads, a few ahead of the one committed here
//      in file order (which numbers a malformed row's line for the whole file,
//      and stops at nrows without parsing the rest); a committed range's rows
//      are written straight into its columns' chunk blocks in the heap (string
//      codes remapped to one dictionary on the way) and the range is dropped,
//      so memory holds the ranges in flight and the output;
//   4. join the column states; a column that a later range widened (int that
//      turns float, say) is written again from every range, parsed for it
//      alone with the joined states.
// Threads are dataframe/parse-thread.ts, one per core, started per call and
// ended when it settles; each reads its own ranges of a file, so a large file
// is never held whole here. Inputs under 1 MiB parse on this thread.

import { type Pending, pending } from './pending.js';
import { host } from '#host';
import type { Thread } from '../host/types.js';
import { ARRAY_CTOR, type DType, INFO, type TypedArray } from '../graph/dtype.js';
import * as G from '../graph/node.js';
import type { Block } from '../runtime/memory.js';
import { runtime } from '../runtime/runtime.js';
import * as mt from '../api/tensor.js';
import {
  type Column as RangeColumn, type ColumnState, CsvError, type CsvOptions, type Parsed, type RangeJob, type RangeResult,
  type Schema, St, Strings, pandasDtype, sniff, unify, work,
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

type ScanResult = Extract<RangeResult, { kind: 'scan' }>;
type ParseResult = Extract<RangeResult, { kind: 'parse' }>;

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
  const text = source as string;
  const url = source instanceof URL ? source : /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? new URL(text) : null;
  if (url && (url.protocol === 'http:' || url.protocol === 'https:')) return httpSource(url);
  if (url && url.protocol !== 'file:') {
    throw new TypeError(`read_csv: cannot read ${url.protocol} URLs (a path, file:, http(s):, a Blob or bytes)`);
  }
  const files = host.files();
  if (!files) throw new Error('read_csv: this host has no files: give an http(s) URL, a Blob or bytes');
  const path = url ?? text;
  const size = await files.size(path);
  return { size, file: url ? url.href : text, read: (from, to) => files.readRange(path, from, to) };
}

/** The schema from the shortest head of 64 KiB times a power of 4 whose first row is whole. */
async function sniffHead(src: Source, opts: CsvOptions): Promise<Schema> {
  for (let len = Math.min(src.size, 1 << 16); ; len = Math.min(src.size, len * 4)) {
    try {
      return sniff(await src.read(0, len, false), opts, len === src.size);
    } catch (e) {
      const cut = e instanceof Error && /sniff needs a longer head|EOF inside string/.test(e.message);
      if (len === src.size || !cut) throw e;
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
  return {
    threads: 0,
    run: async (job) => work(job, await src.read(job.from, job.to, false)),
    close: async () => undefined,
  };
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
          else if ('line' in r.error) w?.reject(new CsvError(r.error.line, r.error.expected, r.error.saw));
          else w?.reject(new Error(r.error.message));
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

/**
 * The ranges of whole rows, [first row start at or after a cut, the next one's), placed as the cuts' scans come
 * in: the scans are asked for a batch ahead of the range placed, so scanning overlaps parsing and a read that
 * stops early (nrows) scans little more than it parses. A cut with no row start of its own (inside one long row)
 * places nothing: its range joins the one before.
 */
class Placer {
  private readonly cuts: number[] = [];
  private readonly scans: Promise<ScanResult>[] = [];
  private readonly ranges: [number, number][] = [];
  private next = 0; // the next cut to look at
  private state: number = St.Row; // the tokenizer's state at that cut
  private start = -1; // the last row start found, whose range is not placed yet

  constructor(
    private readonly runner: Runner, private readonly size: number, private readonly schema: Schema, step: number,
    private readonly batch: number,
  ) {
    for (let c = schema.dataStart; c < size; c += step) this.cuts.push(c);
  }

  /** Range i, or null past the last. */
  async get(i: number): Promise<[number, number] | null> {
    while (this.ranges.length <= i && (this.next < this.cuts.length || this.start >= 0)) await this.place();
    return this.ranges[i] ?? null;
  }

  private async place(): Promise<void> {
    if (this.next === this.cuts.length) {
      this.ranges.push([this.start, this.size]);
      this.start = -1;
      return;
    }
    for (let j = this.scans.length; j < Math.min(this.cuts.length, this.next + this.batch); j++) {
      const from = this.cuts[j]!;
      const to = j + 1 < this.cuts.length ? this.cuts[j + 1]! : this.size;
      const { sep, quote } = this.schema;
      const scan = this.runner.run({ kind: 'scan', from, to, sep, quote }) as Promise<ScanResult>;
      scan.catch(() => undefined); // a failed scan fails the read when its range is placed
      this.scans.push(scan);
    }
    const scan = await this.scans[this.next]!;
    const first = scan.first[this.state]!;
    this.state = scan.map[this.state]!;
    this.next++;
    if (first < 0) return;
    if (this.start >= 0) this.ranges.push([this.start, first]);
    this.start = first;
  }
}

/**
 * The ranges' rows, parsed a few ranges ahead of the one committed here, in file order (each handed to `commit`,
 * then dropped): a malformed row's line counts the lines of the ranges before it; with nrows, parsing stops once
 * the ranges hold that many rows. Out: each committed range's column states.
 */
async function parseAll(
  runner: Runner, schema: Schema, ranges: Placer, commit: (p: Parsed) => void,
): Promise<ColumnState[][]> {
  const limit = schema.nrows;
  const parse = ([from, to]: [number, number], maxRows: number | null): Promise<Parsed | Error> => {
    const job: RangeJob = { kind: 'parse', from, to, schema, ...(maxRows === null ? {} : { maxRows }) };
    const failed = (e: unknown): Error => (e instanceof Error ? e : new Error(String(e)));
    return runner.run(job).then((r) => (r as ParseResult).parsed, failed);
  };
  const ahead = Math.max(1, runner.threads * PER_THREAD);
  const started: Promise<Parsed | Error>[] = [];
  const states: ColumnState[][] = [];
  let rows = 0;
  let lines = schema.headerRows;
  for (let i = 0; limit === null || rows < limit; i++) {
    for (let r; started.length < i + ahead && (r = await ranges.get(started.length));) started.push(parse(r, limit));
    if (i === started.length) break;
    let p = await started[i]!;
    delete started[i];
    // the last range nrows reaches: its rows past the limit are not read (nor their errors)
    if (limit !== null && (p instanceof Error || rows + p.rows > limit)) {
      p = await parse((await ranges.get(i))!, limit - rows);
    }
    if (p instanceof CsvError) throw new CsvError(lines + p.line, p.expected, p.saw);
    if (p instanceof Error) throw p;
    commit(p);
    states.push(p.states);
    rows += p.rows;
    lines += p.records;
  }
  return states;
}

/** Dictionary entries a column reserves room for at most, whatever the file's size promises (2^25: a 512 MiB table). */
const RESERVE_MAX = 1 << 25;

/** How a parsed column is stored: its dtype, or a dictionary column's kind. */
type Layout = 'string' | 'object-bool' | DType;
const layoutOf = (c: RangeColumn): Layout =>
  (c.dtype === 'string' ? 'string' : c.dtype === 'bool' && c.missing ? 'object-bool' : c.dtype);

/**
 * One column of the frame, written into its chunks' heap blocks as ranges commit, in file order, so a range's
 * parsed columns are dropped once written (memory: the ranges in flight, and the output). Strings get codes into
 * one dictionary in first-seen order (the ranges' undecoded spellings merged by their bytes: a string is decoded
 * once per file, not once per range). A range whose column is stored otherwise than the ranges before it (a
 * column that widened later) breaks the writer: the column is written again after the ranges' states are joined.
 */
class Writer {
  private layout: Layout | null = null;
  private dtype: DType = 'float64';
  private readonly blocks: Block[] = [];
  private capacity = 0; // of the last block, in rows
  private rows = 0;
  private dict: readonly string[] | undefined;
  private readonly strings = new Strings(true);
  broken = false;

  constructor(private readonly chunk: number) {}

  /**
   * Appends a range's column; false (and broken) if it is stored otherwise than the column so far. `share`: the
   * range's part of the file's bytes (which sizes the dictionary of a column of mostly distinct strings).
   */
  append(c: RangeColumn, share: number): boolean {
    const layout = layoutOf(c);
    if (this.broken || (this.layout !== null && layout !== this.layout)) return !(this.broken = true);
    if (this.layout === null) {
      this.layout = layout;
      this.dtype = layout === 'string' || layout === 'object-bool' ? 'int32' : layout;
      if (layout === 'object-bool') this.dict = ['False', 'True']; // pandas' object column of True, False and NaN
      if (layout === 'string') this.dict = this.strings.dict;
    }
    let put: (view: TypedArray, at: number, from: number, to: number) => void;
    if (c.dtype === 'string') {
      // the range's spellings, by their bytes, to entries of the frame's dictionary (decoded once each)
      const fresh = this.strings.size === 0;
      const map = this.strings.merge(c.spellings!);
      // a first range of (nearly) all distinct strings, as a key column of a join table: room for as many in
      // every range, so the table grows once. Not for a range only mostly distinct: draws from a million values
      // fill 300k rows 86% distinct, and the file's 1e8 rows would reserve for 84M entries where 1e6 come.
      if (fresh && map.length > 0.95 * c.codes.length && share > 0) {
        const scale = Math.min(1 / share, 1 << 10);
        const entries = Math.min(Math.ceil(map.length * scale * 1.05), RESERVE_MAX);
        this.strings.reserve(entries, Math.ceil((c.spellings!.bytes.length / map.length) * entries));
      }
      const codes = c.codes;
      put = (view, at, from, to) => {
        for (let r = from; r < to; r++) {
          const k = codes[r]!;
          view[at++] = k < 0 ? -1 : map[k]!;
        }
      };
    } else if (c.dtype === 'bool' && c.missing) {
      put = (view, at, from, to) => {
        for (let r = from; r < to; r++) view[at++] = c.missing![r] ? -1 : c.values[r]!;
      };
    } else {
      put = (view, at, from, to) => (view as Uint8Array).set((c.values as Uint8Array).subarray(from, to), at);
    }
    const n = c.dtype === 'string' ? c.codes.length : c.values.length;
    for (let r = 0; r < n;) {
      const k = Math.floor(this.rows / this.chunk);
      const at = this.rows - k * this.chunk;
      this.room(k, at + n - r);
      const to = Math.min(n, r + this.capacity - at);
      put(this.view(k), at, r, to);
      this.rows += to - r;
      r = to;
    }
    return true;
  }

  /** Room for `need` rows in block k: a new block, or the first one grown (up to a chunk: small frames stay small). */
  private room(k: number, need: number): void {
    const item = INFO[this.dtype].bytes;
    if (k === this.blocks.length) {
      this.capacity = k === 0 ? Math.min(this.chunk, Math.max(need, 1024)) : this.chunk;
      this.blocks.push(runtime.heap.alloc(this.capacity * item));
    } else if (need > this.capacity && this.capacity < this.chunk) {
      const capacity = Math.min(this.chunk, Math.max(need, 2 * this.capacity));
      const b = runtime.heap.alloc(capacity * item);
      const mem = new Uint8Array(runtime.heap.memory.buffer);
      mem.copyWithin(b.ptr, this.blocks[k]!.ptr, this.blocks[k]!.ptr + this.rows * item);
      runtime.heap.release(this.blocks[k]!);
      this.blocks[k] = b;
      this.capacity = capacity;
    }
  }

  private view(k: number): TypedArray {
    return new ARRAY_CTOR[this.dtype](runtime.heap.memory.buffer, this.blocks[k]!.ptr, this.capacity) as TypedArray;
  }

  /** The column: its blocks become a tensor's chunks. */
  finish(): Column {
    const n = this.rows;
    const key = `csv${Math.random().toString(36).slice(2)}`;
    const node = G.source(key, this.dtype, [n], [Math.max(1, Math.min(this.chunk, n))]);
    runtime.adopt(node, this.blocks.splice(0));
    const values = new mt.Tensor(node);
    return this.dict ? { values, dict: this.dict } : { values };
  }

  /** Frees what was written (a failed read, or a column written again). */
  free(): void {
    for (const b of this.blocks.splice(0)) runtime.heap.release(b);
  }
}

/**
 * pandas' read_csv (1.5): the file, URL, Blob or bytes as a DataFrame, parsed in parallel by byte ranges (see the
 * file's header). Dtypes are pandas' (inferred over the whole file, as with low_memory=False); a column that the
 * head sniffed narrower than later rows make it is reported with console.warn. A malformed row rejects with
 * pandas' message and line number. The frame is pending while it parses: `await` it, or chain its methods
 * (`md.read_csv(p).groupby('k').agg(...).execute()`, as Mars' lazy read_csv is used).
 */
export function read_csv(source: CsvSource, opts: ReadCsvOptions = {}): Pending<DataFrame> {
  return pending(readCsv(source, opts));
}

async function readCsv(source: CsvSource, opts: ReadCsvOptions): Promise<DataFrame> {
  const { chunk_bytes: step = 16 << 20, chunkSize = 1 << 20, threads, ...csv } = opts;
  const counts = [['chunk_bytes', step, 1], ['chunkSize', chunkSize, 1], ['threads', threads ?? 0, 0]] as const;
  for (const [name, v, least] of counts) {
    if (!Number.isInteger(v) || v < least) throw new RangeError(`read_csv: ${name} must be an integer >= ${least}, got ${v}`);
  }
  const src = await open(source);
  const schema = await sniffHead(src, csv);
  // (a page parses on its own thread: the pages' build does not carry the parse thread yet)
  const n = threads ?? (src.size < SMALL || host.name === 'browser' ? 0 : host.cores());
  const runner = n > 0 ? new ThreadRunner(src, n) : inline(src);
  let writers = schema.names.map(() => new Writer(chunkSize));
  try {
    const ranges = new Placer(runner, src.size, schema, step, Math.max(4, 2 * n * PER_THREAD));
    const write = (cs: number[]) => (p: Parsed): void => {
      p.columns.forEach((col, j) => writers[cs[j]!]!.append(col, p.end / Math.max(1, src.size - schema.dataStart)));
    };
    const all = schema.names.map((_, c) => c);
    const parts = await parseAll(runner, schema, ranges, write(all));
    const states = unify([schema.states, ...parts]);
    warnWidened(schema, states);
    if (!parts.length) {
      const none = work({ kind: 'parse', from: 0, to: 0, schema: { ...schema, states } }, new Uint8Array(0));
      write(all)((none as ParseResult).parsed);
    }
    // the columns a later range widened: every range parsed again for them alone, with the joined states
    const again = all.filter((c) => writers[c]!.broken);
    if (again.length) {
      for (const c of again) writers[c]!.free();
      writers = writers.map((w, c) => (again.includes(c) ? new Writer(chunkSize) : w));
      const pick = <T>(xs: T[]): T[] => again.map((c) => xs[c]!);
      const narrow: Schema = {
        ...schema, names: pick(schema.names), fields: pick(schema.fields), states: pick(states),
        forced: pick(schema.forced),
      };
      await parseAll(runner, narrow, ranges, write(again));
    }
  } catch (e) {
    for (const w of writers) w.free();
    throw e;
  } finally {
    await runner.close();
  }
  return new DataFrame(new Map(schema.names.map((name, c) => [name, writers[c]!.finish()])));
}

/** One console.warn per column that rows after the head made another dtype than the head's (pandas' DtypeWarning). */
function warnWidened(schema: Schema, states: ColumnState[]): void {
  schema.names.forEach((name, c) => {
    const was = schema.states[c]!;
    if (schema.forced[c] !== null || was.kind === 'none' || pandasDtype(was) === pandasDtype(states[c]!)) return;
    console.warn(`read_csv: column '${name}' is read as ${pandasDtype(states[c]!)}: rows after the head it was `
      + `sniffed from do not fit ${pandasDtype(was)} (pandas: DtypeWarning, mixed types)`);
  });
}
