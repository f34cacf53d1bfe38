// DataFrame.merge and join (src/dataframe/merge.ts) against pandas 1.5
// (test/fixtures/gen_merge.py): every how on one and two keys, strings whose
// dictionaries differ between the sides, integer and float keys (NaN
// matching NaN), missing keys, many-to-many and many-to-one, empty results,
// suffixes, left_on/right_on, sort=True, join on the other's index, and the
// db-benchmark join questions on small tables; columns, dtypes, values,
// index and printed text. The same over chunks of 3 rows, after selections
// and on the simulated mesh; random frames (fast-check) against a plain
// reference of the row orders the fixtures show, over random chunkings;
// bad input.

import { readFileSync } from 'node:fs';
import * as fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import * as mt from '../src/api/tensor.js';
import * as md from '../src/dataframe/index.js';
import { type V, frameFrom, num } from './pandas-fixtures.js';
import { simMesh } from './sim-mesh.js';

afterAll(() => mt.shutdown());

interface Case {
  name: string; left: string; right: string; call: 'merge' | 'join'; opts: Record<string, unknown>;
  /** join: the right frame's column made its index. */
  set_index: string | null;
  columns?: string[]; dtypes?: string[]; values?: V[][]; index?: { names: (string | null)[]; levels: V[][] } | null; repr?: string; error?: string;
}
type MergeOptions = Parameters<md.DataFrame['merge']>[1];
const FIXTURE = JSON.parse(readFileSync(new URL('./fixtures/merge.json', import.meta.url), 'utf8')) as {
  frames: Record<string, { data: Record<string, V[]>; dtypes: Record<string, string> }>; cases: Case[];
};

const frameOf = (name: string, chunkSize?: number): md.DataFrame => frameFrom(FIXTURE.frames[name]!, chunkSize);

function run(c: Case, chunkSize?: number): md.DataFrame {
  const l = frameOf(c.left, chunkSize), r = frameOf(c.right, chunkSize);
  if (c.call === 'join') return l.join(r.set_index(c.set_index!), c.opts as never);
  return l.merge(r, c.opts as MergeOptions);
}

const close = (got: unknown, want: V, what: string): void => {
  const w = num(want);
  if (typeof w === 'number' && Number.isNaN(w)) { expect(got, what).toBeNaN(); return; }
  expect(typeof got === 'bigint' ? Number(got) : got, what).toEqual(w);
};

/**
 * pandas decides from the data whether a side's integer column becomes
 * float64 (some row found no match) or stays int64 (every row matched);
 * Tessera's dtypes are set before the run, so such a column is float64
 * whenever the how may leave a row of its side unmatched. Those columns are
 * compared by value, and the printed text (which shows 1.0 for 1) is not.
 */
function widened(c: Case, want: string, got: string): boolean {
  const how = (c.opts.how as string | undefined) ?? (c.call === 'join' ? 'left' : 'inner');
  return want === 'int64' && got === 'float64' && how !== 'inner';
}

/**
 * pandas 1.5 puts a merge's key column after the left frame's other columns
 * when the left frame has no rows (['w', 'k', ...] for a left frame ['k',
 * 'w']); Tessera keeps the left frame's order. Such cases are checked column
 * by column, by name.
 */
const emptyLeft = (c: Case): boolean => FIXTURE.frames[c.left]!.data[Object.keys(FIXTURE.frames[c.left]!.data)[0]!]!.length === 0;
/** pandas leaves out middle columns (' ...') past 80 characters; Tessera's print does not yet. */
const truncated = (c: Case): boolean => c.repr!.split('\n')[0]!.includes(' ...');

async function check(c: Case, result: md.DataFrame, opts: mt.RunOptions = {}): Promise<void> {
  const f = await result.fetch(opts);
  if (emptyLeft(c)) expect([...f.columns].sort(), c.name).toEqual([...c.columns!].sort());
  else expect(f.columns, c.name).toEqual(c.columns);
  const at = f.columns.map((n) => c.columns!.indexOf(n));
  const dtypes = Object.values(f.dtypes);
  const loose = dtypes.map((d, i) => widened(c, c.dtypes![at[i]!]!, d));
  expect(dtypes.map((d, i) => (loose[i] ? c.dtypes![at[i]!] : d)), `${c.name}: dtypes`).toEqual(at.map((i) => c.dtypes![i]));
  f.columns.forEach((col, i) => {
    const got = f.get(col), want = c.values![at[i]!]!;
    expect(got.length, `${c.name}: ${col} length`).toBe(want.length);
    got.forEach((v, r) => close(v, want[r]!, `${c.name}: ${col}[${r}]`));
  });
  if (c.index) c.index.levels[0]!.forEach((v, r) => close(f.index[r], v, `${c.name}: index [${r}]`));
  else expect(f.index, `${c.name}: a RangeIndex`).toEqual(Array.from({ length: f.shape[0] }, (_, i) => i));
  if (!loose.some(Boolean) && !emptyLeft(c) && !truncated(c)) expect(String(f), `${c.name}: printed`).toBe(c.repr);
}

const CASES = FIXTURE.cases.filter((c) => !c.error);

describe('merge against pandas 1.5', () => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s', async (_n, c) => {
    await check(c, run(c));
  });
  it('is the same over chunks of 3 rows', async () => {
    for (const c of CASES) await check(c, run(c, 3));
  }, 120_000);
  it('is the same after a selection (lengths known only at run time)', async () => {
    for (const c of CASES.filter((k) => k.call === 'merge').slice(0, 24)) {
      const l = frameOf(c.left, 4), r = frameOf(c.right, 4);
      const all = (f: md.DataFrame) => f.get(f.get(f.columns[0]!).isna().logical_or(f.get(f.columns[0]!).notna())).reset_index({ drop: true });
      await check(c, all(l).merge(all(r), c.opts as MergeOptions));
    }
  }, 120_000);
});

type Key = string | number | null;
type How = 'inner' | 'left' | 'right' | 'outer';

/** pandas 1.5's rows of a merge on one key, as (left row, right row) pairs (-1: none): the orders the fixtures show, written plainly. */
function reference(lk: readonly Key[], rk: readonly Key[], how_: How, sort: boolean): [number, number][] {
  // an outer merge with an empty side is the other side's left or right merge (fixtures 'outer empty left/right')
  const how = how_ !== 'outer' ? how_ : !rk.length ? 'left' : !lk.length ? 'right' : how_;
  const same = (a: Key, b: Key): boolean => a === b;
  const matches = (k: Key, ks: readonly Key[]): number[] => ks.flatMap((x, j) => (same(x, k) ? [j] : []));
  let out: [number, number][] = [];
  if (how === 'left') out = lk.flatMap((k, i): [number, number][] => { const m = matches(k, rk); return m.length ? m.map((j) => [i, j]) : [[i, -1]]; });
  else if (how === 'right') out = rk.flatMap((k, j): [number, number][] => { const m = matches(k, lk); return m.length ? m.map((i) => [i, j]) : [[-1, j]]; });
  else {
    const groups: Key[] = [];
    for (const k of [...lk, ...rk]) if (!groups.some((g) => same(g, k))) groups.push(k);
    for (const g of groups) {
      const ls = matches(g, lk), rs = matches(g, rk);
      for (const i of ls) {
        if (rs.length) for (const j of rs) out.push([i, j]);
        else if (how === 'outer') out.push([i, -1]);
      }
      if (!ls.length && how === 'outer') for (const j of rs) out.push([-1, j]);
    }
  }
  if (!sort) return out;
  const keyOf = ([i, j]: [number, number]): Key => (i >= 0 ? lk[i]! : rk[j]!);
  const order = (a: Key, b: Key): number => (a === b ? 0 : a === null ? 1 : b === null ? -1 : a < b ? -1 : 1);
  return out.map((p, n) => [p, n] as const).sort((a, b) => order(keyOf(a[0]), keyOf(b[0])) || a[1] - b[1]).map(([p]) => p);
}

describe('merge of random frames against a plain reference', () => {
  // (integers spread wide span more than 2^16 codes: matched by value, not through tables)
  const ints = fc.oneof(fc.integer({ min: -2, max: 3 }), fc.integer({ min: -2, max: 3 }).map((v) => v * 100_003));
  const keys = (strings: boolean) => fc.array(strings ? fc.constantFrom('a', 'b', 'c', 'dd', null) : ints, { maxLength: 14 });
  it('gives the rows pandas 1.5 gives, over any chunking', async () => {
    await fc.assert(fc.asyncProperty(
      fc.constantFrom<How>('inner', 'left', 'right', 'outer'), fc.boolean(), fc.integer({ min: 1, max: 6 }), fc.integer({ min: 1, max: 6 }),
      fc.boolean().chain((strings) => fc.tuple(fc.constant(strings), keys(strings), keys(strings))),
      async (how, sort, cl, cr, [strings, lk, rk]) => {
        // a string key column as codes into its dictionary (first-seen order, -1 missing); integer keys as int64
        const column = (k: readonly Key[], chunkSize: number): md.ColumnData => {
          if (!strings) return BigInt64Array.from(k, (v) => BigInt(v as number));
          const dict = [...new Set(k.filter((v): v is string => v !== null))];
          return new md.Series({ values: mt.tensor(Int32Array.from(k, (v) => (v === null ? -1 : dict.indexOf(v as string))), { chunkSize }), dict });
        };
        const frame = (k: readonly Key[], id: string, chunkSize: number) => new md.DataFrame({ k: column(k, chunkSize), [id]: Float64Array.from(k, (_, i) => i) }, { chunkSize });
        const f = await frame(lk, 'li', cl).merge(frame(rk, 'ri', cr), { on: 'k', how, sort }).fetch();
        const at = (v: unknown): number => (Number.isNaN(v) ? -1 : (v as number));
        const got = f.get('li').map((v, n) => [at(v), at(f.get('ri')[n])]);
        expect(got, `${how} sort=${sort} ${JSON.stringify([lk, rk])}`).toEqual(reference(lk, rk, how, sort));
      },
    ), { numRuns: Number(process.env.PROP_RUNS ?? 40) });
  }, 120_000);
});

/**
 * The rows of a merge are chunked as the driving side's; arrays whose
 * lengths only the run knows (an outer merge's right rows that no left row
 * matched, sorted by group) take the runtime's default chunking, so the
 * bound is a quarter of a column (a gather of one would be four times it).
 */
describe('merge gathers nothing: over 64 chunks the largest allocation stays within a quarter of a column', () => {
  const n = 64 * 4096;
  const rng = mt.random.default_rng(3);
  const names = Array.from({ length: 100 }, (_, i) => `id${i}`);
  const x = new md.DataFrame({
    s: new md.Series({ values: mt.astype(rng.integers(0, 100, [n], { chunkSize: 4096 }), 'int32'), dict: names }),
    i: rng.integers(0, 5000, [n], { chunkSize: 4096 }), v: rng.random([n], { chunkSize: 4096 }),
  });
  const small = new md.DataFrame({ s: new md.Series({ values: mt.arange(90, { dtype: 'int32' }), dict: names.slice(5, 95) }), w: mt.arange(90) });
  const wide = new md.DataFrame({ i: rng.integers(0, 6000, [n], { chunkSize: 4096 }), w: rng.random([n], { chunkSize: 4096 }) });
  it('the inputs', async () => {
    await md.execute(x, small, wide);
  });
  for (const how of ['inner', 'left', 'right', 'outer'] as const) {
    it(`${how} on a string key with a small table, and on an integer key many-to-many`, async () => {
      for (const m of [x.merge(small, { on: 's', how }), x.merge(wide, { on: 'i', how })]) {
        await m.execute({ workers: 2 });
        const largest = mt.lastReport()!.largestAllocation;
        expect(largest, how).toBeGreaterThan(0);
        expect(largest, how).toBeLessThanOrEqual((n * 8) / 4);
      }
    }, 120_000);
  }
});

describe('merge on the simulated mesh', () => {
  it('gives pandas\' results with every task on mesh workers', async () => {
    const mesh = simMesh(['w1', 'w2', 'w3']);
    try {
      await new Promise((r) => setTimeout(r, 100));
      for (const c of CASES.filter((k) => k.left === 'L' || k.left === 'x').slice(0, 16)) await check(c, run(c, 5), { session: mesh.session });
      expect(mesh.reports.some((r) => r.tasks > 0)).toBe(true);
    } finally {
      mesh.close();
    }
  }, 120_000);
});

describe('merge refuses bad input clearly', () => {
  const errors = FIXTURE.cases.filter((c) => c.error);
  it.each(errors.map((c) => [c.name, c] as const))('%s (pandas: %s)', (_n, c) => {
    // pandas' exception type and message lead Tessera's
    const [type, ...rest] = c.error!.split(': ');
    const message = rest.join(': ').replace(/^'(.*)'$/, '$1');
    expect(() => run(c)).toThrow(new RegExp(`${type}.*${message.split(' ').slice(0, 6).join(' ').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
  });
  const L = frameOf('L'), R = frameOf('R');
  it('names a missing key column of either side, and bad options', () => {
    expect(() => L.merge(R, { left_on: 'k', right_on: 'nope' })).toThrow(/KeyError: "nope".*right frame/);
    expect(() => L.merge(R, { on: 'k', left_on: 'k' })).toThrow(/MergeError/);
    expect(() => L.merge(R, { left_on: ['k', 'j'], right_on: 'k' })).toThrow(/len\(right_on\) must equal len\(left_on\)/);
    expect(() => L.merge(R, { on: 'k', sideways: true } as never)).toThrow(/unknown option sideways/);
  });
  it('refuses a bool column that would get missing values (pandas\' object column)', () => {
    expect(() => L.merge(frameOf('Rb'), { on: 'k', how: 'left' })).toThrow(/bool column "flag" of the right frame/);
  });
  it('refuses join\'s right and outer', () => {
    expect(() => L.join(frameOf('Ru').set_index('k'), { how: 'outer' as never })).toThrow(/not supported yet/);
  });
});
