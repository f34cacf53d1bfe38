// read_csv's parsing core (src/dataframe/csv.ts) against pandas 1.5
// (test/fixtures/csv.json, written by test/fixtures/gen_csv.py): each text
// parsed whole must give pandas' names, dtypes and values (floats bit for bit),
// and so must the same text cut at random byte offsets and read the way the
// parallel driver will: sniff a head, find each range's first row from the
// composed range states, parse the ranges apart, join their column states and
// parse again the ranges that came out narrower. Also the errors pandas raises.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  type Column, type CsvOptions, type Parsed, type Schema, St, pandasDtype, parseCsv, parseRows, rangeStart, rowStarts, scanStates,
  sniff, unify,
} from '../src/dataframe/csv.js';

type Value = string | boolean | null;
interface Case { name: string; csv: string; opts: CsvOptions; error?: string; columns?: { name: string; dtype: string; values: Value[] }[] }
const FIXTURE: { cases: Case[] } = JSON.parse(readFileSync(new URL('./fixtures/csv.json', import.meta.url), 'utf8'));
const enc = new TextEncoder();

/** A seeded generator (mulberry32), so a failing split can be replayed. */
function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const hex = (v: number): string => {
  if (v !== v) return 'nan';
  const d = new DataView(new ArrayBuffer(8));
  d.setFloat64(0, v);
  return [...new Uint8Array(d.buffer)].map((b) => b.toString(16).padStart(2, '0')).join('');
};

/** A column's values in the fixture's encoding. */
function values(c: Column): Value[] {
  if (c.dtype === 'string') return Array.from(c.codes, (k) => (k < 0 ? null : c.dict[k]!));
  if (c.dtype === 'bool') return Array.from(c.values, (v, i) => (c.missing?.[i] ? null : v === 1));
  if (c.dtype === 'float64' || c.dtype === 'float32') return Array.from(c.values as Float64Array, hex);
  return Array.from(c.values as ArrayLike<number | bigint>, (v) => String(v));
}

function expectPandas(got: { columns: Column[]; states: Parsed['states'] }, schema: Schema, c: Case): void {
  const want = c.columns!;
  expect(got.columns.map((x) => x.name)).toEqual(want.map((x) => x.name));
  expect(got.states.map((s, i) => pandasDtype(s, schema.forced[i]!))).toEqual(want.map((x) => x.dtype));
  for (let i = 0; i < want.length; i++) expect(values(got.columns[i]!), `${c.name}: column ${want[i]!.name}`).toEqual(want[i]!.values);
}

/** Columns of several ranges, end to end (string dictionaries merged by value). */
function concat(parts: Parsed[], schema: Schema): { columns: Column[]; states: Parsed['states'] } {
  const columns = schema.names.map((name, i): Column => {
    const pieces = parts.map((p) => p.columns[i]!);
    const first = pieces[0]!;
    if (first.dtype === 'string') {
      const dict: string[] = [];
      const ids = new Map<string, number>();
      const codes = pieces.flatMap((p) => values(p).map((v) => {
        if (v === null) return -1;
        if (!ids.has(v as string)) ids.set(v as string, dict.push(v as string) - 1);
        return ids.get(v as string)!;
      }));
      return { name, dtype: 'string', codes: Int32Array.from(codes), dict };
    }
    if (first.dtype === 'bool') {
      const anyMissing = pieces.some((p) => p.dtype === 'bool' && p.missing);
      const missing = anyMissing ? Uint8Array.from(pieces.flatMap((p) => values(p).map((v) => (v === null ? 1 : 0)))) : null;
      return { name, dtype: 'bool', values: Uint8Array.from(pieces.flatMap((p) => Array.from((p as typeof first).values))), missing };
    }
    const all = pieces.flatMap((p) => Array.from(p.values as ArrayLike<number | bigint>));
    const ctor = first.values.constructor as { from(a: unknown[]): typeof first.values };
    return { ...first, values: ctor.from(all) } as Column;
  });
  return { columns, states: unify(parts.map((p) => p.states)) };
}

/**
 * The parallel driver's steps, run in one thread: sniff `headLen` bytes, cut the data at `cuts`, compose the
 * ranges' state maps to find row starts, parse each range, join the states, parse again the ranges that differ.
 */
function readSplit(
  bytes: Uint8Array, opts: CsvOptions, cuts: number[], headLen: number,
): { schema: Schema; got: ReturnType<typeof concat>; warnings: string[] } {
  const schema = sniff(bytes.subarray(0, headLen), opts, headLen === bytes.length);
  const starts = [schema.dataStart, ...rowStarts(bytes, schema, cuts), bytes.length];
  const ranges = starts.slice(0, -1).map((s, i) => [s, Math.max(s, starts[i + 1]!)] as const);
  let records = schema.headerRows;
  const parts = ranges.map(([s, e]) => {
    const p = parseRows(bytes, s, e, schema, { rowBase: records });
    records += p.records;
    return p;
  });
  const states = unify([schema.states, ...parts.map((p) => p.states)]);
  const again = { ...schema, states };
  records = schema.headerRows;
  const final = parts.map((p, i) => {
    const same = p.states.every((s, c) => s.kind === states[c]!.kind && s.hasNA === states[c]!.hasNA);
    const q = same ? p : parseRows(bytes, ranges[i]![0], ranges[i]![1], again, { rowBase: records });
    records += q.records;
    expect(q.states).toEqual(states);
    return q;
  });
  return { schema: again, got: concat(final, again), warnings: parts.flatMap((p) => p.warnings) };
}

describe('read_csv core against pandas 1.5', () => {
  for (const c of FIXTURE.cases) {
    it(`${c.name}: whole`, () => {
      const bytes = enc.encode(c.csv);
      if (c.error !== undefined) {
        expect(() => parseCsv(bytes, c.opts)).toThrow(c.error);
        return;
      }
      const r = parseCsv(bytes, c.opts);
      expectPandas(r, r.schema, c);
      expect(r.warnings).toEqual([]);
    });
    if (c.opts.nrows !== undefined || c.opts.usecols?.includes('zz')) continue;
    it(`${c.name}: split at random byte offsets`, () => {
      const bytes = enc.encode(c.csv);
      const next = rng(c.name.length * 7919 + bytes.length);
      // the head must hold the first data row whole (sniff refuses a cut one)
      const whole = c.error === undefined ? parseCsv(bytes, c.opts).schema : null;
      const minHead = whole ? parseRows(bytes, whole.dataStart, whole.dataStart + 1, whole).end : 0;
      const tries = bytes.length > 2000 ? 40 : 25;
      for (let t = 0; t < tries; t++) {
        const cuts = Array.from({ length: 1 + Math.floor(next() * 8) }, () => Math.floor(next() * (bytes.length + 1)));
        if (t % 3 === 0) cuts.push(...cuts.map((x) => x + 1)); // neighbours: both bytes of a \r\n, a "" escape
        const head = Math.min(bytes.length, minHead + Math.floor(next() * (bytes.length - minHead + 1)));
        if (c.error !== undefined) {
          expect(() => readSplit(bytes, c.opts, cuts, bytes.length)).toThrow(c.error);
          continue;
        }
        const { schema, got } = readSplit(bytes, c.opts, cuts, head);
        expectPandas(got, schema, c);
      }
    });
  }
});

describe('row boundaries', () => {
  /** Random CSV made to be hard: quotes, "" escapes, separators, \n, \r\n and \r inside quotes, blank lines. */
  function nasty(next: () => number, rows: number): string {
    const pick = <T>(xs: T[]): T => xs[Math.floor(next() * xs.length)]!;
    const field = (): string => pick([
      () => String(Math.floor(next() * 1000)),
      () => `"${pick(['a,b', 'x""y', 'l1\nl2', 'c\r\nd', 'e\rf', '', '""'])}"`,
      () => pick(['plain', 'a"b', ' sp ', '']),
    ])();
    const eol = (): string => pick(['\n', '\r\n', '\r', '\n\n', '\r\n  \r\n']);
    return 'a,b,c' + eol() + Array.from({ length: rows }, () => [field(), field(), field()].join(',')).join(eol()) + pick(['', '\n']);
  }

  it('any split gives the rows of the whole parse (random texts, random cuts)', () => {
    const next = rng(12345);
    for (let t = 0; t < 60; t++) {
      const bytes = enc.encode(nasty(next, 5 + Math.floor(next() * 40)));
      const whole = parseCsv(bytes, { dtype: { a: 'string', b: 'string', c: 'string' } });
      for (let k = 0; k < 10; k++) {
        const cuts = Array.from({ length: 1 + Math.floor(next() * 10) }, () => Math.floor(next() * (bytes.length + 1)));
        const { got } = readSplit(bytes, { dtype: { a: 'string', b: 'string', c: 'string' } }, cuts, bytes.length);
        expect(got.columns.map(values)).toEqual(whole.columns.map(values));
      }
    }
  });

  it('a range state map composes to the state a sequential scan reaches', () => {
    const next = rng(99);
    const bytes = enc.encode(nasty(next, 200));
    const full = scanStates(bytes, 0, bytes.length);
    const mid = Math.floor(bytes.length / 2);
    const a = scanStates(bytes, 0, mid);
    const b = scanStates(bytes, mid, bytes.length);
    for (let s = 0; s < 6; s++) expect(b[a[s]!]).toBe(full[s]);
  });

  it('rangeStart: inside quotes, on a \\r\\n, at a row start', () => {
    const bytes = enc.encode('a,b\n"x\ny",1\r\n2,3\n');
    expect(rangeStart(bytes, 4, St.Row)).toBe(4);
    expect(rangeStart(bytes, 6, St.Quoted)).toBe(13); // the \n at 6 is inside the quotes
    expect(rangeStart(bytes, 6, St.Field)).toBe(7); // the same byte outside quotes ends a row: the state decides
    expect(rangeStart(bytes, 12, St.Cr)).toBe(13); // the \n of a \r\n starts nothing
    expect(rangeStart(bytes, 16, St.Field)).toBe(17); // no row after the last: the length
  });
});

describe('widening and errors', () => {
  it('a value past the sniffed head widens the column with a warning, and the values are pandas\'', () => {
    const c = FIXTURE.cases.find((x) => x.name === 'widening int to string')!;
    const bytes = enc.encode(c.csv);
    const schema = sniff(bytes.subarray(0, 6), c.opts); // 'a\n1\n2\n': int64
    expect(pandasDtype(schema.states[0]!)).toBe('int64');
    const r = parseRows(bytes, schema.dataStart, bytes.length, schema);
    expect(r.warnings).toEqual(["column 'a': 'abc' in line 4 does not fit int64; the column is read as object"]);
    expectPandas(r, schema, c);
  });

  it('int → float by a later 1.5 and by a later NA', () => {
    for (const name of ['widening int to float', 'widening int to float by NA']) {
      const c = FIXTURE.cases.find((x) => x.name === name)!;
      const bytes = enc.encode(c.csv);
      const schema = sniff(bytes.subarray(0, bytes.indexOf(10, 5) + 1), c.opts);
      const r = parseRows(bytes, schema.dataStart, bytes.length, schema);
      expect(r.warnings.length).toBeGreaterThan(0);
      expectPandas(r, schema, c);
    }
  });

  it('a malformed row names its line as pandas does, also when parsed as a later range', () => {
    const bytes = enc.encode('a,b,c\n1,2,3\n4,5,6\n7,8,9\n10,11,12,13\n');
    const schema = sniff(bytes.subarray(0, 24), {});
    expect(() => parseRows(bytes, 24, bytes.length, schema, { rowBase: 4 })).toThrow('Error tokenizing data. C error: Expected 3 fields in line 5, saw 4');
  });

  it('option errors name the problem', () => {
    const bytes = enc.encode('a,b\n1,2\n');
    expect(() => sniff(bytes, { usecols: ['a', 'nope'] }, true)).toThrow("columns expected but not found: ['nope']");
    expect(() => sniff(bytes, { usecols: [7] }, true)).toThrow('columns expected but not found: [7]');
    expect(() => sniff(bytes, { dtype: { zz: 'int64' } }, true)).toThrow("dtype names column 'zz'");
    expect(() => sniff(bytes, { dtype: { a: 'int65' as 'int64' } }, true)).toThrow("unknown dtype 'int65'");
    expect(() => sniff(bytes, { sep: '::' }, true)).toThrow('sep must be one single-byte character');
    expect(() => parseCsv(enc.encode('a\n"open\n'))).toThrow('EOF inside string');
  });
});
