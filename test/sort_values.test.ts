// DataFrame.sort_values, sort_index and Series.sort_values (src/dataframe/
// sort.ts) against pandas 1.5 (test/fixtures/gen_sort_values.py): one and
// several keys of every kind (ints with ties and int64's extremes, floats
// with NaN and both zeros, strings with missing values and non-ASCII
// letters, bools), ascending flags and lists, na_position, sort_index, the
// labels kept; columns, dtypes, values, index and printed text. The same
// over chunks of 3 and 7 rows and on the simulated mesh; random frames
// (fast-check) against a plain stable sort over random chunkings; bad input.
// (test/sort.test.ts is the tensor sort's.)

import { readFileSync } from 'node:fs';
import * as fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import * as mt from '../src/api/tensor.js';
import * as md from '../src/dataframe/index.js';
import { type V, frameFrom, num } from './pandas-fixtures.js';
import { simMesh } from './sim-mesh.js';

afterAll(() => mt.shutdown());

interface Case {
  name: string; frame: string; call: 'sort_values' | 'sort_index' | 'series'; by: string | string[] | null;
  opts: Record<string, unknown>; set_index: string | null; then: Record<string, unknown> | null;
  series?: boolean; columns?: string[]; dtypes?: string[]; values?: V[][]; index?: { names: (string | null)[]; levels: V[][] } | null; repr?: string; error?: string;
}
const FIXTURE = JSON.parse(readFileSync(new URL('./fixtures/sort_values.json', import.meta.url), 'utf8')) as {
  frames: Record<string, { data: Record<string, V[]>; dtypes: Record<string, string> }>; cases: Case[];
};

const frameOf = (name: string, chunkSize?: number): md.DataFrame => frameFrom(FIXTURE.frames[name]!, chunkSize);

function run(c: Case, chunkSize?: number): md.DataFrame {
  let df = frameOf(c.frame, chunkSize);
  if (c.set_index !== null) df = df.set_index(c.set_index);
  let r: md.DataFrame;
  if (c.call === 'series') r = df.get(c.by as string).sort_values(c.opts as never).to_frame();
  else if (c.call === 'sort_values') r = df.sort_values(c.by!, c.opts as never);
  else r = df.sort_index(c.opts as never);
  return c.then ? r.sort_index(c.then as never) : r;
}

const close = (got: unknown, want: V, what: string): void => {
  const w = num(want);
  if (typeof w === 'number' && Number.isNaN(w)) { expect(got, what).toBeNaN(); return; }
  // Object.is: -0.0 stays -0.0
  expect(typeof got === 'bigint' ? Number(got) : got, what).toEqual(w);
};

async function check(c: Case, result: md.DataFrame, opts: mt.RunOptions = {}): Promise<void> {
  const f = await result.fetch(opts);
  expect(f.columns, c.name).toEqual(c.columns);
  expect(Object.values(f.dtypes), `${c.name}: dtypes`).toEqual(c.dtypes);
  f.columns.forEach((col, i) => {
    const got = f.get(col), want = c.values![i]!;
    expect(got.length, `${c.name}: ${col} length`).toBe(want.length);
    got.forEach((v, r) => close(v, want[r]!, `${c.name}: ${col}[${r}]`));
  });
  if (c.index) {
    expect(f.indexNames, `${c.name}: index names`).toEqual(c.index.names);
    c.index.levels[0]!.forEach((v, r) => close(f.index[r], v, `${c.name}: index [${r}]`));
  } else {
    expect(f.index, `${c.name}: a RangeIndex`).toEqual(Array.from({ length: f.shape[0] }, (_, i) => i));
  }
  // a Series prints with its name and dtype under it, which is not written yet: its frame's text is checked through the values
  if (!c.series) expect(String(f), `${c.name}: printed`).toBe(c.repr);
}

const CASES = FIXTURE.cases.filter((c) => !c.error);

describe('sort_values against pandas 1.5', () => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s', async (_n, c) => {
    await check(c, run(c));
  });
  it('is the same over chunks of 3 and of 7 rows', async () => {
    for (const c of CASES) {
      await check(c, run(c, 3));
      await check(c, run(c, 7));
    }
  }, 120_000);
});

describe('sort_values of random frames against a plain stable sort', () => {
  it('orders rows as a stable sort by the keys does, over any chunking', async () => {
    const row = fc.record({ i: fc.integer({ min: -3, max: 3 }), f: fc.constantFrom(NaN, -1.5, 0, 2, Infinity), s: fc.constantFrom('b', 'a', 'ä', 'B', null), b: fc.boolean() });
    const keysArb = fc.uniqueArray(fc.constantFrom('i', 'f', 's', 'b'), { minLength: 1, maxLength: 4 });
    await fc.assert(fc.asyncProperty(fc.array(row, { maxLength: 25 }), keysArb, fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }), fc.constantFrom<'last' | 'first'>('last', 'first'), fc.integer({ min: 1, max: 8 }),
      async (rows, by, asc, na, chunkSize) => {
        const dict = [...new Set(rows.map((r) => r.s).filter((v): v is string => v !== null))];
        const df = new md.DataFrame({
          i: BigInt64Array.from(rows, (r) => BigInt(r.i)), f: Float64Array.from(rows, (r) => r.f), b: rows.map((r) => r.b),
          s: new md.Series({ values: mt.tensor(Int32Array.from(rows, (r) => (r.s === null ? -1 : dict.indexOf(r.s))), { chunkSize }), dict }),
        }, { chunkSize });
        const ascending = by.map((_, k) => asc[k]!);
        const f = await df.sort_values(by, { ascending, na_position: na }).fetch();
        // the reference: a stable sort (Array.prototype.sort is stable) by each key, missing values where na_position says
        const missing = (v: unknown): boolean => v === null || (typeof v === 'number' && Number.isNaN(v));
        const cmp = (a: unknown, b: unknown): number => (a === b ? 0 : (a as number | string) < (b as number | string) ? -1 : 1);
        const want = rows.map((r, n) => [r, n] as const).sort(([x], [y]) => {
          for (const [k, key] of by.entries()) {
            const a = x[key as keyof typeof x], b = y[key as keyof typeof y];
            if (missing(a) || missing(b)) {
              if (missing(a) && missing(b)) continue;
              return (missing(a) ? 1 : -1) * (na === 'last' ? 1 : -1);
            }
            const c = key === 's' ? codePoint(a as string, b as string) : cmp(Number(a), Number(b));
            if (c) return ascending[k] ? c : -c;
          }
          return 0;
        }).map(([, n]) => n);
        expect(f.index, `${JSON.stringify(by)} ${JSON.stringify(ascending)} ${na}`).toEqual(want);
      }), { numRuns: Number(process.env.PROP_RUNS ?? 40) });
  }, 120_000);
});

/** Python's str order (code points). */
function codePoint(a: string, b: string): number {
  const x = [...a].map((c) => c.codePointAt(0)!), y = [...b].map((c) => c.codePointAt(0)!);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
}

describe('sort_values gathers nothing: over 64 chunks the largest allocation stays within a few chunks', () => {
  it('on several keys of every kind', async () => {
    const n = 64 * 4096, rng = mt.random.default_rng(4);
    const df = new md.DataFrame({
      s: new md.Series({ values: mt.astype(rng.integers(-1, 50, [n], { chunkSize: 4096 }), 'int32'), dict: Array.from({ length: 50 }, (_, i) => `k${i}`) }),
      b: mt.greater(rng.random([n], { chunkSize: 4096 }), 0.5), i: rng.integers(0, 1000, [n], { chunkSize: 4096 }), f: rng.random([n], { chunkSize: 4096 }),
    });
    await df.execute();
    await df.sort_values(['s', 'b', 'i', 'f'], { ascending: [true, false, false, true], na_position: 'first' }).execute({ workers: 2 });
    expect(mt.lastReport()!.largestAllocation).toBeLessThanOrEqual(4 * 4096 * 8);
  }, 120_000);
});

describe('sort_values on the simulated mesh', () => {
  it('gives pandas\' results with every task on mesh workers', async () => {
    const mesh = simMesh(['w1', 'w2', 'w3']);
    try {
      await new Promise((r) => setTimeout(r, 100));
      for (const c of CASES.filter((k) => Array.isArray(k.by)).slice(0, 8)) await check(c, run(c, 4), { session: mesh.session });
      expect(mesh.reports.some((r) => r.tasks > 0)).toBe(true);
    } finally {
      mesh.close();
    }
  }, 120_000);
});

describe('sort_values refuses bad input clearly', () => {
  it.each(FIXTURE.cases.filter((c) => c.error).map((c) => [c.name, c] as const))('%s', (_n, c) => {
    const [type, ...rest] = c.error!.split(': ');
    const message = rest.join(': ').replace(/^'(.*)'$/, '$1').replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    expect(() => run(c)).toThrow(new RegExp(`${type}.*${message}`));
  });
  it('refuses a bad ascending', () => {
    const df = frameOf('mixed');
    expect(() => df.sort_values('i', { ascending: 'yes' as never })).toThrow(/ascending takes a boolean/);
    expect(() => df.get('i').sort_values({ ascending: [true] as never })).toThrow(/ascending takes a boolean/);
  });
});
