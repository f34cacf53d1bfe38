// md.read_csv (src/dataframe/read.ts) against pandas 1.5 (test/fixtures/csv.json,
// test/fixtures/gen_csv.py): every case read from bytes, a file path, a file:
// URL and a Blob, whole and cut into many tiny ranges over small row chunks,
// on this thread and on parse threads, must give pandas' names, dtypes and
// values (floats bit for bit), and the error cases pandas' messages. A larger
// generated file, read in many ranges on threads, must equal the single-thread
// parse (parseCsv) with its string codes, warn once per column widened past
// the head, number a late malformed row's line as that parse does, and leave
// no thread behind (a process that reads and exits, exits).

import { execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it, vi } from 'vitest';
import * as mt from '../src/api/tensor.js';
import { type CsvOptions, parseCsv, rangeStart, scanStates } from '../src/dataframe/csv.js';
import * as md from '../src/dataframe/index.js';
import { runtime } from '../src/runtime/runtime.js';

type Value = string | boolean | null;
interface Case { name: string; csv: string; opts: CsvOptions; error?: string; columns?: { name: string; dtype: string; values: Value[] }[] }
const FIXTURE: { cases: Case[] } = JSON.parse(readFileSync(new URL('./fixtures/csv.json', import.meta.url), 'utf8'));
const enc = new TextEncoder();
const dir = mkdtempSync(join(tmpdir(), 'tessera-read-csv-'));

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  return mt.shutdown();
});

const hex = (v: number): string => {
  if (v !== v) return 'nan';
  const d = new DataView(new ArrayBuffer(8));
  d.setFloat64(0, v);
  return [...new Uint8Array(d.buffer)].map((b) => b.toString(16).padStart(2, '0')).join('');
};

/** A column of the fetched frame in the fixture's encoding. */
function values(f: md.LocalFrame, name: string, dtype: string): Value[] {
  return f.get(name).map((v) => (typeof v === 'number' ? (dtype.startsWith('float') ? hex(v) : String(v)) : typeof v === 'bigint' ? String(v) : v));
}

/** pandas' object column of True/False/NaN reads as a dictionary column of 'True' and 'False' here. */
const objectBool = (v: Value, dtype: string): Value => (dtype === 'object' && typeof v === 'boolean' ? (v ? 'True' : 'False') : v);

async function expectPandas(df: md.DataFrame, c: Case): Promise<void> {
  const want = c.columns!;
  const f = await df.fetch();
  expect(f.columns).toEqual(want.map((x) => x.name));
  expect(f.dtypes).toEqual(Object.fromEntries(want.map((x) => [x.name, x.dtype])));
  for (const w of want) expect(values(f, w.name, w.dtype), `${c.name}: column ${w.name}`).toEqual(w.values.map((v) => objectBool(v, w.dtype)));
}

/** The ways a case is read: its source and the options added to the case's. */
const WAYS: { name: string; source: (c: Case, i: number) => md.CsvSource; opts: md.ReadCsvOptions }[] = [
  { name: 'bytes', source: (c) => enc.encode(c.csv), opts: {} },
  { name: 'bytes in 7-byte ranges, 3-row chunks', source: (c) => enc.encode(c.csv), opts: { chunk_bytes: 7, chunkSize: 3 } },
  { name: 'bytes on 2 threads, 64-byte ranges', source: (c) => enc.encode(c.csv), opts: { chunk_bytes: 64, chunkSize: 3, threads: 2 } },
  { name: 'a file on 2 threads, 64-byte ranges', source: (c, i) => file(c, i), opts: { chunk_bytes: 64, chunkSize: 5, threads: 2 } },
  { name: 'a file: URL', source: (c, i) => pathToFileURL(file(c, i)), opts: {} },
  { name: 'a Blob on 1 thread, 64-byte ranges', source: (c) => new Blob([enc.encode(c.csv)]), opts: { chunk_bytes: 64, chunkSize: 4, threads: 1 } },
];

function file(c: Case, i: number): string {
  const path = join(dir, `case${i}.csv`);
  writeFileSync(path, c.csv);
  return path;
}

describe('read_csv against pandas 1.5', () => {
  FIXTURE.cases.forEach((c, i) => {
    it(c.name, async () => {
      for (const way of WAYS) {
        const read = md.read_csv(way.source(c, i), { ...c.opts, ...way.opts });
        if (c.error !== undefined) await expect(read, way.name).rejects.toThrow(c.error);
        else await expectPandas(await read, c).catch((e: Error) => { throw new Error(`${way.name}: ${e.message}`); });
      }
    });
  });
});

/** A seeded generator (mulberry32). */
function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * n rows: an int, a string whose later rows bring new strings, a column of ints that turns float at row
 * `late`, a quoted text with separators and newlines now and then, and blank lines.
 */
function generated(n: number, late: number, seed = 7): string {
  const next = rng(seed);
  const lines = ['i,s,v,t'];
  for (let r = 0; r < n; r++) {
    const s = r < n / 2 ? `k${Math.floor(next() * 40)}` : `n${Math.floor(next() * 3000)}`;
    const v = r < late ? String(Math.floor(next() * 1e6) - 5e5) : (next() * 1000 - 500).toFixed(3);
    const t = next() < 0.05 ? `"a, ""b""\nc${r}"` : `w${r % 97}`;
    lines.push(`${r},${s},${v},${t}`);
    if (next() < 0.01) lines.push('');
  }
  return lines.join('\n') + '\n';
}

describe('placing ranges on rows', () => {
  it("scanStates' first row start per entry state is rangeStart's, with quotes in the range or none", () => {
    const next = rng(2024);
    const pieces = ['a', '1', ',', '\n', '\r', '\r\n', '"', '""', ' '];
    for (let t = 0; t < 400; t++) {
      const noQuotes = t % 2 === 0;
      const text = Array.from({ length: 1 + Math.floor(next() * 30) }, () => pieces[Math.floor(next() * (noQuotes ? 6 : 9))]).join('');
      const bytes = enc.encode(text);
      const from = Math.floor(next() * (bytes.length + 1));
      const to = from + Math.floor(next() * (bytes.length - from + 1));
      const first = new Float64Array(6);
      scanStates(bytes, from, to, 44, 34, first);
      for (let s = 0; s < 6; s++) {
        const want = rangeStart(bytes, from, s);
        expect(first[s], `${JSON.stringify(text)} [${from}, ${to}) from state ${s}`).toBe(want < to ? want : -1);
      }
    }
  });
});

describe('string dictionaries', () => {
  it('merge the ranges by bytes: first-seen order, one entry for spellings that decode alike (invalid UTF-8)', async () => {
    const rows = ['s', 'b\xff', 'é', 'a', 'b\xfe', 'é', 'b\xff', 'z', 'a'];
    const bytes = Uint8Array.from(rows.join('\n') + '\n', (ch) => (ch === 'é' ? 0xe9 : ch.charCodeAt(0)));
    const utf8 = new Uint8Array([...bytes].flatMap((b) => (b === 0xe9 ? [0xc3, 0xa9] : [b])));
    const ref = parseCsv(utf8);
    for (const chunk_bytes of [3, 5, 1 << 20]) {
      const df = await md.read_csv(utf8, { chunk_bytes });
      expect(df.get('s').column.dict).toEqual(ref.columns[0]!.dtype === 'string' ? ref.columns[0]!.dict : null);
      expect(df.get('s').column.dict).toEqual(['b\ufffd', 'é', 'a', 'z']);
      expect((await df.fetch()).get('s')).toEqual(['b\ufffd', 'é', 'a', 'b\ufffd', 'é', 'b\ufffd', 'z', 'a']);
    }
  });
});

describe('string dictionaries of many distinct values', () => {
  it('a column of mostly distinct strings over many ranges: first-seen order and codes as the single-thread parse', async () => {
    const next = rng(7);
    const lines = ['u,k,x'];
    // ranges of ~2000 rows, mostly distinct: a thread's later ranges send their values undeduped (raw)
    for (let r = 0; r < 60_000; r++) {
      const u = r % 7 === 0 ? `id${Math.floor(next() * 5000)}` : `id${r}-${'x'.repeat(r % 15)}`;
      lines.push(`${u},k${r % 3},${r % 11 === 0 ? 'b\ufffd' : 'c'}`);
    }
    const bytes = enc.encode(lines.join('\n') + '\n');
    const ref = parseCsv(bytes);
    for (const threads of [0, 2]) {
      const df = await md.read_csv(bytes, { chunk_bytes: 48 << 10, chunkSize: 7000, threads });
      const f = await df.fetch();
      for (const c of ref.columns) {
        if (c.dtype !== 'string') throw new Error('expected a string column');
        expect(df.get(c.name).column.dict, c.name).toEqual(c.dict);
        expect(f.get(c.name), c.name).toEqual(Array.from(c.codes, (k) => (k < 0 ? null : c.dict[k]!)));
      }
    }
  });
});

describe('string dictionaries of a large table', () => {
  it('a range of 60k distinct values, quoted ones among them: lookups in blocks keep first-seen order', async () => {
    const lines = ['u'];
    for (let r = 0; r < 150_000; r++) lines.push(r % 13 === 0 ? `"q${r % 7000}"` : `v${(r * 7919) % 60_000}`);
    const bytes = enc.encode(lines.join('\n') + '\n');
    const ref = parseCsv(bytes).columns[0]!;
    if (ref.dtype !== 'string') throw new Error('expected a string column');
    for (const threads of [0, 2]) {
      const df = await md.read_csv(bytes, { chunk_bytes: 4 << 20, threads });
      expect(df.get('u').column.dict).toEqual(ref.dict);
      expect((await df.fetch()).get('u')).toEqual(Array.from(ref.codes, (k) => ref.dict[k]!));
    }
  });
});

describe('forced integer dtypes', () => {
  it('narrower integers wrap the int64 as NumPy does, beyond 2^53 too', async () => {
    const text = 'a,b,c\n300,-1,1099511627781\n-129,4294967297,9007199254740993\n';
    const df = await md.read_csv(enc.encode(text), { dtype: { a: 'int8', b: 'uint32', c: 'int32' } });
    const f = await df.fetch();
    expect(f.get('a')).toEqual([44, 127]);
    expect(f.get('b')).toEqual([4294967295, 1]);
    expect(f.get('c')).toEqual([5, 1]);
  });
});

describe('read_csv in many ranges on threads', () => {
  const text = generated(200_000, 180_000);
  const bytes = enc.encode(text);
  const path = join(dir, 'big.csv');
  writeFileSync(path, bytes);

  it('equals the single-thread parse: values, dtypes, string codes; warns once per widened column', async () => {
    const ref = parseCsv(bytes);
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      for (const source of [path, bytes] as md.CsvSource[]) {
        warn.mockClear();
        const df = await md.read_csv(source, { chunk_bytes: 256 << 10, chunkSize: 50_000, threads: 2 });
        expect(warn.mock.calls.map((a) => String(a[0]))).toEqual([
          "read_csv: column 'v' is read as float64: rows after the head it was sniffed from do not fit int64 (pandas: DtypeWarning, mixed types)",
        ]);
        expect(df.shape).toEqual([ref.rows, 4]);
        expect(df.dtypes).toEqual({ i: 'int64', s: 'object', v: 'float64', t: 'object' });
        expect(df.get('i').values.node.chunk).toEqual([50_000]);
        const f = await df.fetch();
        for (const c of ref.columns) {
          if (c.dtype === 'string') {
            expect(df.get(c.name).column.dict, c.name).toEqual(c.dict);
            expect(f.get(c.name), c.name).toEqual(Array.from(c.codes, (k) => (k < 0 ? null : c.dict[k]!)));
          } else {
            expect(f.get(c.name), c.name).toEqual(Array.from(c.values as ArrayLike<number | bigint>));
          }
        }
      }
    } finally {
      warn.mockRestore();
    }
  });

  it('reads an http URL by Range requests where the server answers 206, else whole', async () => {
    const asked: string[] = [];
    const server = createServer((req, res) => {
      const range = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
      asked.push(`${req.url} ${req.headers.range ?? 'whole'}`);
      if (req.url === '/ranges.csv' && range) {
        const [from, to] = [Number(range[1]), Math.min(bytes.length - 1, Number(range[2]))];
        res.writeHead(206, { 'content-range': `bytes ${from}-${to}/${bytes.length}` }).end(bytes.subarray(from, to + 1));
      } else {
        res.writeHead(200).end(bytes);
      }
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      const { port } = server.address() as { port: number };
      const ref = await (await md.read_csv(bytes, { threads: 0 })).fetch();
      for (const name of ['ranges.csv', 'whole.csv']) {
        const f = await (await md.read_csv(`http://127.0.0.1:${port}/${name}`, { chunk_bytes: 512 << 10, threads: 2 })).fetch();
        for (const c of ref.columns) expect(f.get(c), `${name} ${c}`).toEqual(ref.get(c));
      }
      expect(asked.filter((a) => a.startsWith('/ranges.csv')).length).toBeGreaterThan(10);
      expect(asked.filter((a) => a.startsWith('/whole.csv'))).toEqual(['/whole.csv bytes=0-0']);
    } finally {
      server.close();
      warn.mockRestore();
    }
  });

  it('nrows reads the first rows only', async () => {
    const df = await md.read_csv(path, { chunk_bytes: 64 << 10, threads: 2, nrows: 123_457 });
    const ref = parseCsv(bytes, { nrows: 123_457 });
    const f = await df.fetch();
    expect(df.dtypes).toEqual({ i: 'int64', s: 'object', v: 'int64', t: 'object' });
    expect(f.get('v')).toEqual(Array.from(ref.columns[2]!.values as BigInt64Array));
    // a few rows of many ranges: the ranges after them are neither parsed nor scanned (a Blob is read by slices)
    const slice = vi.spyOn(Blob.prototype, 'slice');
    try {
      const head = await (await md.read_csv(new Blob([bytes]), { chunk_bytes: 16 << 10, threads: 0, nrows: 10 })).fetch();
      expect(head.get('i')).toEqual(Array.from({ length: 10 }, (_, i) => BigInt(i)));
      expect(slice.mock.calls.length).toBeLessThan(20); // of some 300 ranges
    } finally {
      slice.mockRestore();
    }
  });

  it('a malformed row late in the file names its line as the single-thread parse (and pandas) does', async () => {
    const bad = enc.encode(text.replace('\n150000,', '\n150000,1,'));
    let want = '';
    try { parseCsv(bad); } catch (e) { want = (e as Error).message; }
    expect(want).toMatch(/^Error tokenizing data\. C error: Expected 4 fields in line \d+, saw 5$/);
    const alloc = vi.spyOn(runtime.heap, 'alloc');
    const release = vi.spyOn(runtime.heap, 'release');
    try {
      await expect(md.read_csv(bad, { chunk_bytes: 100 << 10, threads: 2 })).rejects.toThrow(want);
      await expect(md.read_csv(bad, { chunk_bytes: 100 << 10, threads: 0 })).rejects.toThrow(want);
      // the chunks written before the error are freed
      const freed = new Set(release.mock.calls.map(([b]) => b.ptr));
      expect(alloc.mock.results.length).toBeGreaterThan(0);
      expect(alloc.mock.results.map((r) => (r.value as { ptr: number }).ptr).filter((ptr) => !freed.has(ptr))).toEqual([]);
    } finally {
      alloc.mockRestore();
      release.mockRestore();
    }
  });

  it('a source that fails mid-read rejects the read with its error', async () => {
    let slices = 0;
    class Failing extends Blob {
      override slice(...args: Parameters<Blob['slice']>): Blob {
        return ++slices > 12 ? ({ arrayBuffer: () => Promise.reject(new Error('the disk is gone')) } as Blob) : super.slice(...args);
      }
    }
    await expect(md.read_csv(new Failing([bytes]), { chunk_bytes: 64 << 10, threads: 2 })).rejects.toThrow('the disk is gone');
  });

  it('leaves no thread behind: a process that reads (or fails to) exits', () => {
    const badPath = join(dir, 'bad.csv');
    writeFileSync(badPath, text.replace('\n150000,', '\n150000,1,'));
    const script = `
      const md = await import(${JSON.stringify(new URL('../dist/dataframe/index.js', import.meta.url).href)});
      const df = await md.read_csv(${JSON.stringify(path)}, { chunk_bytes: 1 << 18, threads: 2 });
      const err = await md.read_csv(${JSON.stringify(badPath)}, { chunk_bytes: 1 << 18, threads: 2 }).catch((e) => e.message);
      console.log(df.shape.join('x'), err);`;
    const main = join(dir, 'read.mjs');
    writeFileSync(main, script);
    const out = execFileSync(process.execPath, [main], { timeout: 60_000, encoding: 'utf8', stdio: 'pipe' });
    expect(out).toMatch(/^\d+x4 Error tokenizing data/);
  });
});
