// The DataFrame (`md`, src/dataframe/) against pandas 1.5
// (test/fixtures/gen_frame.py): frames built from columns and printed as
// pandas prints them, row selections with their labels, flex arithmetic and
// comparisons with pandas' dtypes, reductions skipping NaN, head and tail;
// the same over many chunks and on the simulated mesh; bad input.

import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import * as mt from '../src/api/tensor.js';
import * as md from '../src/dataframe/index.js';
import { simMesh } from './sim-mesh.js';

afterAll(() => mt.shutdown());

type V = number | boolean | string | null;
interface Case {
  name: string; op: string; data?: Record<string, V[]>; repr?: string; dtypes?: Record<string, string>; select?: string; index?: number[];
  columns?: Record<string, V[]>; flex?: string; dtype?: string; values?: V[] | Record<string, V>; column?: string; n?: number;
}
const FIXTURE = JSON.parse(readFileSync(new URL('./fixtures/frame.json', import.meta.url), 'utf8')) as { cases: Case[] };
const num = (v: V): V => (v === 'nan' ? NaN : v === 'inf' ? Infinity : v === '-inf' ? -Infinity : v);
const frameOf = (name: string, chunkSize?: number): md.DataFrame => {
  const c = FIXTURE.cases.find((k) => k.op === 'frame' && k.name === name)!;
  // JS numbers have no 1.0: a float column is given as a Float64Array (as a user would)
  const data = Object.fromEntries(Object.entries(c.data!).map(([k, vs]) => [k, c.dtypes![k] === 'float64' ? Float64Array.from(vs.map(num) as number[]) : vs.map(num)]));
  return new md.DataFrame(data as Record<string, md.ColumnData>, chunkSize ? { chunkSize } : {});
};
const jsValues = (xs: readonly unknown[]): V[] => xs.map((v) => (typeof v === 'bigint' ? Number(v) : (v as V)));

const SELECT: Record<string, (df: md.DataFrame) => md.Series> = {
  'a > 2': (df) => df.get('a').gt(2),
  "s == 'x'": (df) => df.get('s').eq('x'),
  "(a >= 2) & (s != 'y')": (df) => df.get('a').ge(2).logical_and(df.get('s').ne('y')),
  'b isna': (df) => df.get('b').isna(),
  'a between 2 5': (df) => df.get('a').between(2, 5),
  's isin x zz': (df) => df.get('s').isin(['x', 'zz']),
  f: (df) => df.get('f'),
  none: (df) => df.get('a').gt(100),
};
const FLEX: Record<string, (df: md.DataFrame) => md.Series> = {
  'a add b': (df) => df.get('a').add(df.get('b')),
  'a sub 1': (df) => df.get('a').sub(1),
  'a mul b': (df) => df.get('a').mul(df.get('b')),
  'a div 4': (df) => df.get('a').div(4),
  'a floordiv 4': (df) => df.get('a').floordiv(4),
  'a mod 4': (df) => df.get('a').mod(4),
  'b pow 2': (df) => df.get('b').pow(2),
  'b abs': (df) => df.get('b').abs(),
  'a gt 3': (df) => df.get('a').gt(3),
  'b le 1.25': (df) => df.get('b').le(1.25),
};

async function check(c: Case, chunk: number | undefined, run: (...f: md.DataFrame[]) => Promise<void>): Promise<void> {
  const mixed = () => frameOf('mixed', chunk);
  if (c.op === 'frame') {
    const df = frameOf(c.name, chunk);
    expect(df.dtypes, c.name).toEqual(c.dtypes);
    await run(df);
    expect(String(await df.fetch()), c.name).toBe(c.repr);
  } else if (c.op === 'select') {
    const df = mixed();
    const out = df.get(SELECT[c.select!]!(df));
    await run(out);
    const local = await out.fetch();
    expect(String(local), c.name).toBe(c.repr);
    expect(local.index, c.name).toEqual(c.index);
    for (const [k, vs] of Object.entries(c.columns!)) expect(jsValues(local.get(k)), `${c.name} ${k}`).toEqual(vs.map(num));
  } else if (c.op === 'flex') {
    const df = mixed();
    const s = FLEX[c.flex!]!(df);
    expect(s.dtype, c.name).toBe(c.dtype);
    const got = await new md.DataFrame({ r: s }).fetch();
    expect(jsValues(got.get('r')), c.name).toEqual((c.values as V[]).map(num));
  } else if (c.op === 'reduce') {
    const s = mixed().get(c.column!);
    const want = c.values as Record<string, V>;
    for (const [r, v] of Object.entries(want)) {
      const got = Number(await (s as unknown as Record<string, () => mt.Tensor>)[r]!().item());
      expect(got, `${c.name} ${r}`).toBeCloseTo(num(v) as number, 12);
    }
  } else if (c.op === 'head' || c.op === 'tail') {
    const df = mixed();
    const out = c.op === 'head' ? df.head(c.n) : df.tail(c.n);
    await run(out);
    expect(String(await out.fetch()), c.name).toBe(c.repr);
  }
}

describe('md.DataFrame against pandas 1.5', () => {
  for (const chunk of [undefined, 2]) {
    it(`every case, ${chunk ? `in chunks of ${chunk} rows` : 'in one chunk'}`, async () => {
      for (const c of FIXTURE.cases) await check(c, chunk, async () => undefined);
    });
  }

  it('on the simulated mesh, in chunks of 2 rows: the same text and values', async () => {
    const { session, close } = simMesh(['w0', 'w1']);
    try {
      await new Promise((r) => setTimeout(r, 100));
      for (const c of FIXTURE.cases.filter((k) => k.op === 'select' || k.op === 'frame')) {
        await check(c, 2, async (...fs) => { for (const f of fs) await f.execute({ session }); });
      }
    } finally {
      close();
    }
  }, 60_000);

  it('toArrow: the columns as Arrow vectors (strings with nulls), and a selection\'s labels first as __index_level_0__', async () => {
    const df = frameOf('mixed');
    const t = (await df.fetch()).toArrow();
    expect(t.schema.fields.map((f) => f.name)).toEqual(['a', 'b', 's', 'f']);
    expect(t.numRows).toBe(6);
    expect(t.getChild('s')!.toArray()).toEqual(['x', 'y', null, 'x', 'zz', 'y']);
    expect(Array.from(t.getChild('a')!.toArray() as BigInt64Array, Number)).toEqual([1, 2, 3, 4, 5, 6]);
    const sel = (await df.get(df.get('a').gt(4)).fetch()).toArrow();
    expect(sel.schema.fields.map((f) => f.name)).toEqual(['__index_level_0__', 'a', 'b', 's', 'f']);
    expect(Array.from(sel.getChild('__index_level_0__')!.toArray() as BigInt64Array, Number)).toEqual([4, 5]);
  });

  it('bad input: an unknown column, mixed values, unequal lengths, a string compared with a number, a non-boolean selection', () => {
    const df = frameOf('mixed');
    expect(() => df.get('nope')).toThrow(/KeyError: "nope": no such column \(the columns are "a", "b", "s", "f"\)/);
    expect(() => new md.DataFrame({ x: [1, 'a'] })).toThrow(/column "x" mixes number and string values/);
    expect(() => new md.DataFrame({ x: [1, 2], y: [1, 2, 3] })).toThrow(/same length, got 2, 3/);
    expect(() => df.get('s').gt(1)).toThrow(/arithmetic on a string \(object\) Series/);
    expect(() => df.get('a').eq('x')).toThrow(/cannot compare a int64 Series with the string "x"/);
    expect(() => df.get(df.get('a'))).toThrow(/a row selection takes a boolean Series, got int64/);
  });
});
