// DataFrame.groupby (src/dataframe/groupby.ts, aggregate.ts) against pandas
// 1.5 (test/fixtures/gen_groupby.py): string, integer, float and bool keys,
// one or several, with sort, dropna and as_index; every aggregation by
// name, list, dict and named aggregation; columns, dtypes, values, index
// and printed text. The same over chunks of 7 rows (partials folded in a
// tree), and on the simulated mesh; bad input.

import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import * as mt from '../src/api/tensor.js';
import * as md from '../src/dataframe/index.js';
import { groupLimits } from '../src/dataframe/aggregate.js';
import { type V, frameFrom, num } from './pandas-fixtures.js';
import { simMesh } from './sim-mesh.js';

afterAll(() => mt.shutdown());

interface Result { columns: string[]; series: boolean; dtypes: string[]; values: V[][]; index: { names: (string | null)[]; levels: V[][] } | null; repr: string | null }
interface Case extends Partial<Result> {
  name: string; frame: string; by: string | string[]; opts: md.GroupByOptions; call: string;
  spec: string | string[] | Record<string, string | string[]> | { named: Record<string, [string, string]> } | null; select: string | string[] | null; error?: string;
  /** A row selection first: pandas' df[df[column] > threshold]. */
  where: [string, number] | null;
}
const FIXTURE = JSON.parse(readFileSync(new URL('./fixtures/groupby.json', import.meta.url), 'utf8')) as {
  frames: Record<string, { data: Record<string, V[]>; dtypes: Record<string, string> }>; cases: Case[];
};

const frameOf = (name: string, chunkSize?: number): md.DataFrame => frameFrom(FIXTURE.frames[name]!, chunkSize);

function run(c: Case, frame: md.DataFrame): md.DataFrame | md.Series {
  const df = c.where ? frame.get(frame.get(c.where[0]).gt(c.where[1])) : frame;
  let g = df.groupby(c.by, c.opts);
  if (c.select !== null) g = g.get(c.select);
  if (c.call === 'transform') return g.transform(c.spec as string);
  if (c.call === 'head') return g.head(c.spec as unknown as number);
  if (c.call !== 'agg') return (g as unknown as Record<string, () => md.DataFrame | md.Series>)[c.call]!.call(g);
  const spec = c.spec!;
  if (typeof spec === 'object' && !Array.isArray(spec) && 'named' in spec) return g.agg(spec.named as Record<string, string[]>);
  return g.agg(spec as md.AggSpec);
}

const close = (got: unknown, want: V, what: string): void => {
  const w = num(want);
  if (typeof w === 'number' && !Number.isInteger(w) || (typeof got === 'number' && Number.isNaN(got))) {
    if (Number.isNaN(w as number)) { expect(got, what).toBeNaN(); return; }
    expect(Math.abs((got as number) - (w as number)), what).toBeLessThanOrEqual(1e-12 * Math.max(1, Math.abs(w as number)));
    return;
  }
  expect(typeof got === 'bigint' ? Number(got) : got, what).toEqual(w);
};

async function check(c: Case, result: md.DataFrame | md.Series): Promise<void> {
  const f = await (result instanceof md.Series ? result.to_frame(result.name ?? '0') : result).fetch();
  expect(result instanceof md.Series, `${c.name}: a Series`).toBe(c.series);
  expect(f.columns, c.name).toEqual(c.series ? [f.columns[0]] : c.columns);
  expect(Object.values(f.dtypes), `${c.name}: dtypes`).toEqual(c.dtypes);
  f.columns.forEach((col, i) => {
    const got = f.get(col), want = c.values![i]!;
    expect(got.length, `${c.name}: ${col} length`).toBe(want.length);
    got.forEach((v, r) => close(v, want[r]!, `${c.name}: ${col}[${r}]`));
  });
  if (c.index) {
    expect(f.indexNames, `${c.name}: index names`).toEqual(c.index.names);
    const levels = c.index.levels.length === 1 ? [f.index] : c.index.levels.map((_, l) => f.index.map((t) => (t as unknown[])[l]));
    c.index.levels.forEach((want, l) => want.forEach((v, r) => close(levels[l]![r], v, `${c.name}: index level ${l} [${r}]`)));
  } else {
    expect(f.index, `${c.name}: a RangeIndex`).toEqual(Array.from({ length: f.shape[0] }, (_, i) => i));
  }
  if (c.repr) expect(String(f), `${c.name}: printed`).toBe(c.repr);
}

/**
 * Cases left out: pandas 1.5's whole-frame min and max drop an object
 * column whose values do not compare (a string beside a missing one, a
 * float NaN) as a nuisance column, which depends on the data; Tessera
 * keeps it (the missing value skipped, as a selected column's min does).
 */
const DATA_DEPENDENT = new Set(['k min', 'k max']);
const CASES = FIXTURE.cases.filter((c) => !c.error && !DATA_DEPENDENT.has(c.name));

describe('groupby against pandas 1.5', () => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s', async (_n, c) => {
    await check(c, run(c, frameOf(c.frame)));
  });
  it('is the same over chunks of 7 rows (partials folded in a tree)', async () => {
    for (const c of CASES) await check(c, run(c, frameOf(c.frame, 7)));
  }, 120_000);
  it('is the same by a shuffle as by a tree (chunks of 5)', async () => {
    for (const method of ['shuffle', 'tree'] as const) {
      for (const c of CASES) await check(c, run({ ...c, opts: { ...c.opts, method } }, frameOf(c.frame, 5)));
    }
  }, 180_000);
  it('is the same with the groups numbered by a hash shuffle (chunks of 5 and of 64, partitions of 3 rows)', async () => {
    const { dense, hashRows } = groupLimits;
    groupLimits.dense = 0;
    try {
      for (const size of [5, 64]) for (const c of CASES) await check(c, run(c, frameOf(c.frame, size)));
      // more partitions than chunks
      groupLimits.hashRows = 3;
      for (const c of CASES) await check(c, run(c, frameOf(c.frame, 64)));
    } finally {
      Object.assign(groupLimits, { dense, hashRows });
    }
  }, 180_000);
  it('is the same with a combine fan-in of 2', async () => {
    const fanIn = mt.options.combineFanIn;
    mt.options.combineFanIn = 2;
    try {
      for (const c of CASES.slice(0, 20)) await check(c, run(c, frameOf(c.frame, 3)));
    } finally {
      mt.options.combineFanIn = fanIn;
    }
  }, 120_000);
});

describe('groupby on the simulated mesh', () => {
  it('gives pandas\' results with every task on mesh workers', async () => {
    const mesh = simMesh(['w1', 'w2', 'w3']);
    try {
      await new Promise((r) => setTimeout(r, 100));
      for (const [i, c] of CASES.filter((k) => k.frame === 'mixed').slice(0, 12).entries()) {
        const df = frameOf(c.frame, 5);
        // every other case by a shuffle: partitions fold the buckets that chunks on other workers wrote
        const r = run(i % 2 ? { ...c, opts: { ...c.opts, method: 'shuffle' } } : c, df);
        const f = r instanceof md.Series ? r.to_frame(r.name ?? '0') : r;
        await f.execute({ session: mesh.session });
        await check(c, r);
      }
      // the folds ran as mesh tasks
      expect(mesh.reports.some((r) => r.tasks > 0)).toBe(true);
    } finally {
      mesh.close();
    }
  }, 120_000);
});

describe('a pending read_csv takes method calls (Mars\' lazy md.read_csv)', () => {
  it('md.read_csv(...).groupby(...).agg(...).execute() resolves to the frame a step-by-step program gives', async () => {
    const csv = new TextEncoder().encode('k,v\nb,1\na,2\nb,3.5\nc,4\n');
    const chained = await md.read_csv(csv).groupby('k').agg({ v: ['sum', 'max'] }).execute();
    const stepwise = (await md.read_csv(csv)).groupby('k').agg({ v: ['sum', 'max'] }) as md.DataFrame;
    expect(String(await (chained as md.DataFrame).fetch())).toBe(String(await stepwise.fetch()));
    expect((await (chained as md.DataFrame).fetch()).get("('v', 'sum')")).toEqual([2, 4.5, 4]);
    // a property needs the value: the pending frame says so
    await expect((md.read_csv(csv) as unknown as { columns: () => Promise<unknown> }).columns()).rejects.toThrow(/not a method.*await the value first/);
  });
});

describe('groupby refuses bad input clearly', () => {
  const df = frameOf('mixed');
  it('names an unknown key or column', () => {
    expect(() => df.groupby('nope')).toThrow(/KeyError: "nope"/);
    expect(() => df.groupby('k').agg({ nope: 'sum' })).toThrow(/nope/);
    expect(() => df.groupby('k').get('nope')).toThrow(/nope/);
  });
  it('names an unknown aggregation, an option, a numeric one of strings', () => {
    expect(() => df.groupby('k').agg('total')).toThrow(/has no attribute 'total'/);
    expect(() => df.groupby('k', { sorted: true } as never)).toThrow(/unknown option sorted/);
    expect(() => df.groupby('k').agg({ s: 'sum' })).toThrow(/'sum' of the string column "s"/);
    expect(() => df.groupby('k').agg({ k: 'sum' })).toThrow(/key column/);
  });
});
