// The Series and DataFrame methods of src/dataframe (series_api.ts,
// columns.ts, frame.ts, concat.ts, io.ts) against pandas 1.5
// (test/fixtures/gen_frame_api.py): each fixture case names a call, which
// CALLS makes here the same way; the result's columns, dtypes, values,
// index and printed text (or a scalar, or to_csv's text) must be pandas'.
// The same over chunks of 3 rows, and on the simulated mesh; Arrow in and
// out; bad input.

import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tableFromArrays, tableToIPC, vectorFromArray, Dictionary, Utf8, Int32, Table } from 'apache-arrow';
import { afterAll, describe, expect, it } from 'vitest';
import * as mt from '../src/api/tensor.js';
import * as md from '../src/dataframe/index.js';
import { type V, frameFrom, num } from './pandas-fixtures.js';
import { simMesh } from './sim-mesh.js';

afterAll(() => mt.shutdown());

interface Case {
  name: string; kind: 'frame' | 'series' | 'scalar' | 'text';
  series_name?: string | null; columns?: string[]; dtypes?: string[]; values?: V[][];
  index?: { names: (string | null)[]; levels: V[][] } | null; repr?: string; value?: V; text?: string;
}
const FIXTURE = JSON.parse(readFileSync(new URL('./fixtures/frame_api.json', import.meta.url), 'utf8')) as {
  frames: Record<string, { data: Record<string, V[]>; dtypes: Record<string, string> }>; cases: Case[];
};

const frameOf = (name: string, chunkSize?: number): md.DataFrame => frameFrom(FIXTURE.frames[name]!, chunkSize);

type Out = md.DataFrame | md.Series | mt.Tensor | Promise<string>;
/** Each fixture case as Tessera writes it (`f`: a frame of the fixture by name). */
const CALLS: Record<string, (f: (n: string) => md.DataFrame, chunk?: number) => Out> = {
  'Series of floats': (_, chunkSize) => new md.Series([1.5, null, 3.0], { name: 'x', chunkSize }),
  'Series with an index': (_, chunkSize) => new md.Series([3, 1, 2], { name: 'n', index: [10, 20, 30], chunkSize }),
  'Series of strings': (_, chunkSize) => new md.Series(['a', null, 'b'], { chunkSize }),
  'Series dtype float64': (_, chunkSize) => new md.Series([1, 2, 3], { dtype: 'float64', name: 'v', chunkSize }),
  'Series of bools': (_, chunkSize) => new md.Series([true, false, true], { name: 'b', chunkSize }),
  'Series of float32': (_, chunkSize) => new md.Series(mt.tensor(new Float32Array([1.5, 2.5, -0.125]), { chunkSize }), { name: 'h' }),
  's fillna': (f) => f('mixed').get('s').fillna('none'),
  'f fillna': (f) => f('mixed').get('f').fillna(0),
  'i fillna': (f) => f('mixed').get('i').fillna(0),
  's dropna': (f) => f('mixed').get('s').dropna(),
  'f dropna': (f) => f('mixed').get('f').dropna(),
  's isna': (f) => f('mixed').get('s').isna(),
  'f notna': (f) => f('mixed').get('f').notna(),
  's map to floats': (f) => f('mixed').get('s').map({ pear: 1.5, apple: 2.0 }),
  't map to strings': (f) => f('mixed').get('t').map({ x: 'ex', y: 'why', z: 'zed' }),
  'i map to strings': (f) => f('mixed').get('i').map(new Map<unknown, unknown>([[5, 'five'], [-2, 'minus two'], [9, 'nine']])),
  't map function': (f) => f('mixed').get('t').map((x) => x + x),
  's map function, missing ignored': (f) => f('mixed').get('s').map((x) => [...x].slice(0, 2).join('')),
  't map function to floats': (f) => f('mixed').get('t').map((x) => (x === 'w' ? 0.5 : 1.5)),
  'i map to floats': (f) => f('mixed').get('i').map({ 5: 50, '-2': 20.5, 100: 1 }),
  't str startswith': (f) => f('mixed').get('t').str.startswith('w'),
  't str endswith': (f) => f('mixed').get('t').str.endswith('y'),
  's str contains, missing False (pandas: None, object)': (f) => f('mixed').get('s').str.contains('pp', { regex: false }),
  's str startswith, missing False (pandas: None, object)': (f) => f('mixed').get('s').str.startswith('p'),
  's str len': (f) => f('mixed').get('s').str.len(),
  's str lower': (f) => f('mixed').get('s').str.lower(),
  's str upper': (f) => f('mixed').get('s').str.upper(),
  's str strip': (f) => f('mixed').get('s').str.strip(),
  's str lower then value_counts': (f) => f('mixed').get('s').str.lower().value_counts({ sort: false }),
  't value_counts': (f) => f('mixed').get('t').value_counts(),
  't value_counts normalize': (f) => f('mixed').get('t').value_counts({ normalize: true }),
  't value_counts ascending': (f) => f('mixed').get('t').value_counts({ ascending: true }),
  't value_counts sort False': (f) => f('mixed').get('t').value_counts({ sort: false }),
  's value_counts sort False': (f) => f('mixed').get('s').value_counts({ sort: false }),
  's value_counts dropna False sort False': (f) => f('mixed').get('s').value_counts({ sort: false, dropna: false }),
  'g value_counts': (f) => f('mixed').get('g').value_counts(),
  'f value_counts sort False': (f) => f('mixed').get('f').value_counts({ sort: false }),
  'selection value_counts': (f) => { const m = f('mixed'); return m.get(m.get('i').gt(0)).get('t').value_counts(); },
  's unique': (f) => f('mixed').get('s').unique(),
  'g unique': (f) => f('mixed').get('g').unique(),
  'f unique': (f) => f('mixed').get('f').unique(),
  's nunique': (f) => f('mixed').get('s').nunique(),
  'g nunique': (f) => f('mixed').get('g').nunique(),
  'f nunique': (f) => f('mixed').get('f').nunique(),
  'f nunique dropna False': (f) => f('mixed').get('f').nunique({ dropna: false }),
  's nunique dropna False': (f) => f('mixed').get('s').nunique({ dropna: false }),
  'f nlargest 3': (f) => f('mixed').get('f').nlargest(3),
  'f nsmallest 3': (f) => f('mixed').get('f').nsmallest(3),
  'i nlargest 4': (f) => f('mixed').get('i').nlargest(4),
  'i nsmallest 3': (f) => f('mixed').get('i').nsmallest(3),
  'f quantile': (f) => f('mixed').get('f').quantile(0.5) as mt.Tensor,
  'i quantile list': (f) => f('mixed').get('i').quantile([0.1, 0.5, 0.9]),
  'i agg sum': (f) => f('mixed').get('i').agg('sum'),
  'f agg list': (f) => f('mixed').get('f').agg(['mean', 'min', 'max']),
  'i agg list': (f) => f('mixed').get('i').agg(['mean', 'min', 'max']),
  'f describe': (f) => f('mixed').get('f').describe(),
  'i describe': (f) => f('mixed').get('i').describe(),
  's describe': (f) => f('mixed').get('s').describe(),
  't describe': (f) => f('mixed').get('t').describe(),
  'b describe': (f) => f('mixed').get('b').describe(),
  'describe bools and strings': (f) => { const m = f('mixed'); return new md.DataFrame({ b: m.get('b'), s: m.get('t') }).describe(); },
  'b value_counts': (f) => f('mixed').get('b').value_counts(),
  'f value_counts dropna False sort False': (f) => f('mixed').get('f').value_counts({ dropna: false, sort: false }),
  'b nunique': (f) => f('mixed').get('b').nunique(),
  'f agg counts': (f) => f('mixed').get('f').agg(['count', 'nunique', 'std', 'median']),
  'one quantile': (f) => f('one').get('f').quantile(0.25) as mt.Tensor,
  'empty quantile': (f) => f('empty').get('f').quantile(0.5) as mt.Tensor,
  'one str upper': (f) => f('one').get('s').str.upper(),
  'one describe i': (f) => f('one').get('i').describe(),
  'astype strings to numbers': (f) => f('numtext').astype({ p: 'float64', q: 'int64' }),
  'astype object': (f) => f('mixed').get(['s', 'i']).astype({ s: 'object' }),
  'rename': (f) => f('mixed').rename({ columns: { s: 'fruit', zz: 'no' } }),
  'drop one': (f) => f('mixed').drop('b'),
  'drop columns': (f) => f('mixed').drop({ columns: ['s', 'f'] }),
  'astype dict': (f) => f('nums').astype({ i: 'float64' }),
  'astype all': (f) => f('nums').astype('float64'),
  'fillna value': (f) => f('nums').fillna(0),
  'fillna dict': (f) => f('mixed').fillna({ s: 'none', f: -1 }),
  'dropna': (f) => f('mixed').dropna(),
  'dropna subset': (f) => f('mixed').dropna({ subset: ['f'] }),
  'dropna how all': (f) => f('mixed').get(['s', 'f']).dropna({ how: 'all' }),
  'isna': (f) => f('mixed').isna(),
  'notna': (f) => f('mixed').notna(),
  'where frame': (f) => { const n = f('nums'); return n.where(gt(n, 1)); },
  'where rows': (f) => { const m = f('mixed'); return m.get(['s', 'i', 'f']).where(m.get('i').gt(2)); },
  'where other': (f) => { const n = f('nums').get(['i', 'g']); return n.where(gt(n, 5), 0); },
  'where strings other': (f) => {
    const m = f('mixed');
    return m.get(['s', 't']).where(new md.DataFrame({ s: m.get('i').gt(2), t: m.get('i').lt(5) }), 'gone');
  },
  'iloc row': (f) => f('nums').iloc(1) as md.Series,
  'iloc last row': (f) => f('nums').iloc(-1) as md.Series,
  'iloc strings row': (f) => f('strs').iloc(2) as md.Series,
  'iloc list': (f) => f('mixed').iloc([0, 2, 4]) as md.DataFrame,
  'iloc slice': (f) => f('mixed').iloc(mt.slice(1, 4)) as md.DataFrame,
  'iloc value': (f) => f('nums').iloc(1, 2) as mt.Tensor,
  'iloc rows and columns': (f) => f('mixed').iloc([1, 3], [0, 2]) as md.DataFrame,
  'iloc slice column': (f) => f('mixed').iloc(mt.slice(2, 5), 3) as md.Series,
  'loc slice': (f) => f('mixed').loc(mt.slice(2, 5)) as md.DataFrame,
  'loc rows and names': (f) => f('mixed').loc([1, 3], ['s', 'i']) as md.DataFrame,
  'loc mask': (f) => { const m = f('mixed'); return m.loc(m.get('g').eq(1), ['t', 'f']) as md.DataFrame; },
  'loc value': (f) => f('mixed').loc(3, 'i') as mt.Tensor,
  'loc label over a key index': (f) => f('nums').set_index('g').loc(10) as md.DataFrame,
  'loc labels over a key index': (f) => f('nums').set_index('g').loc([20, 30], ['f']) as md.DataFrame,
  'loc string label over a key index': (f) => f('mixed').get(['t', 'i']).set_index('t').loc('w') as md.DataFrame,
  'loc string labels over a key index': (f) => f('mixed').get(['t', 'i', 'f']).set_index('t').loc(['z', 'x']) as md.DataFrame,
  'iloc negative positions': (f) => f('mixed').iloc([-1, 0, -3]) as md.DataFrame,
  'loc after a selection': (f) => { const m = f('mixed'); return m.get(m.get('b')).loc([2, 6]) as md.DataFrame; },
  'nunique': (f) => f('mixed').nunique(),
  'count': (f) => f('mixed').count(),
  'sum numeric_only': (f) => f('mixed').sum({ numeric_only: true }),
  'mean numeric_only': (f) => f('mixed').mean({ numeric_only: true }),
  'sum': (f) => f('nums').sum(),
  'mean': (f) => f('nums').mean(),
  'min': (f) => f('nums').min(),
  'max': (f) => f('nums').max(),
  'std': (f) => f('nums').std(),
  'var': (f) => f('nums').var(),
  'median': (f) => f('nums').median(),
  'sum of bools and ints': (f) => f('mixed').get(['b', 'i']).sum(),
  'agg list': (f) => f('nums').agg(['mean', 'min', 'max']),
  'agg sum': (f) => f('nums').agg('sum'),
  'describe': (f) => f('mixed').describe(),
  'describe strings': (f) => f('strs').describe(),
  'duplicated g': (f) => f('mixed').duplicated({ subset: ['g'] }),
  'duplicated g last': (f) => f('mixed').duplicated({ subset: ['g'], keep: 'last' }),
  'duplicated g none kept': (f) => f('mixed').duplicated({ subset: ['g'], keep: false }),
  'duplicated strings with missing': (f) => f('mixed').duplicated({ subset: ['s'] }),
  'drop_duplicates g': (f) => f('mixed').drop_duplicates({ subset: ['g'] }),
  'drop_duplicates t g last': (f) => f('mixed').drop_duplicates({ subset: ['t', 'g'], keep: 'last' }),
  'drop_duplicates all columns': (f) => f('mixed').drop_duplicates(),
  'drop_duplicates none kept': (f) => f('mixed').drop_duplicates({ subset: ['t'], keep: false }),
  'nlargest f': (f) => f('mixed').nlargest(3, 'f'),
  'nsmallest g i': (f) => f('mixed').nsmallest(4, ['g', 'i']),
  'nlargest g i': (f) => f('mixed').nlargest(5, ['g', 'i']),
  'concat frames': (f) => md.concat([f('mixed').drop({ columns: ['b'] }), f('other')]),
  'concat ignore_index': (f) => md.concat([f('other'), f('mixed').get(['i', 's'])], { ignore_index: true }),
  'concat series': (f) => md.concat([f('mixed').get('s'), f('other').get('s')]),
  'concat selections': (f) => { const m = f('mixed'); return md.concat([m.get(m.get('i').gt(5)).get(['i', 't']), m.get(m.get('i').lt(0)).get(['i', 't'])]); },
  'concat series of two names': (f) => md.concat([f('mixed').get('s'), f('mixed').get('t')]),
  'concat series ignore_index': (f) => md.concat([f('other').get('i'), f('mixed').get('i')], { ignore_index: true }),
  'concat named indexes': (f) => {
    const n = f('nums');
    return md.concat([n.set_index('g'), n.get(n.get('i').gt(3)).set_index('g')]);
  },
  'concat with empty': (f) => md.concat([f('nums').get(['i', 'f']), f('empty')]),
  'to_csv mixed': (f) => f('mixed').to_csv(),
  'to_csv no index': (f) => f('nums').to_csv(null, { index: false }),
  'to_csv quotes': (f) => f('quotes').to_csv(),
  'to_csv sep': (f) => f('quotes').to_csv(null, { sep: ';' }),
  'to_csv named index': (f) => f('nums').set_index('g').to_csv(),
  'to_csv after a selection': (f) => { const m = f('mixed'); return m.get(m.get('b')).get(['s', 'f']).to_csv(); },
  'to_csv float32': () => new md.DataFrame({ h: new Float32Array([0.1, 1.5, 1e-7, 3e20, 16777216.0]) }).to_csv(),
  'to_csv one row': (f) => f('one').to_csv(),
  'to_csv empty': (f) => f('empty').to_csv(),
  'one describe': (f) => f('one').describe(),
  'one iloc row': (f) => f('one').get(['i', 'f']).iloc(0) as md.Series,
  'one nlargest': (f) => f('one').nlargest(2, 'i'),
  'one value_counts': (f) => f('one').get('s').value_counts(),
  'one duplicated': (f) => f('one').duplicated(),
  'empty sum': (f) => f('empty').sum(),
  'empty count': (f) => f('empty').count(),
  'empty dropna': (f) => f('empty').dropna(),
  'empty fillna': (f) => f('empty').fillna(0),
  'empty value_counts': (f) => f('empty').get('i').value_counts(),
  'empty nlargest': (f) => f('empty').get('f').nlargest(3),
  'empty describe': (f) => f('empty').describe(),
};

/** pandas' `df > x` over every column. */
function gt(df: md.DataFrame, x: number): md.DataFrame {
  return new md.DataFrame(Object.fromEntries(df.columns.map((c) => [c, df.get(c).gt(x)])), {}, df.labels);
}

/**
 * Where Tessera differs from pandas on purpose, by case: the dtype it gives
 * (set before the rows are read) or the name of a Series it makes.
 */
const DTYPE: Record<string, string[]> = {
  // pandas keeps int64 where cond holds on every row: a dtype set by the data
  'where frame': ['float64', 'float64', 'float64'],
};
/** Cases whose text differs from pandas' (and why); their values, dtypes and index are pandas'. */
const PRINTED: Record<string, string> = {
  's value_counts dropna False sort False': 'an index prints a missing string as NaN; pandas prints the None it was given',
  'where rows': 'a string column with missing values set by where prints every one as NaN; pandas prints the None kept as None',
};
/** describe() of strings: an object column whose numbers are the strings of their digits here (they print the same). */
const TEXT_VALUES = new Set(['s describe', 't describe', 'b describe', 'describe strings', 'describe bools and strings']);
/** The row Series of iloc(i): pandas names it by the label (an integer); here its string. */
const SERIES_NAME: Record<string, string> = { 'iloc row': '1', 'iloc last row': '5', 'iloc strings row': '2', 'one iloc row': '0' };

/** Python's str of a fixture value. */
const pyStr = (v: V): string => (typeof v === 'boolean' ? (v ? 'True' : 'False') : String(v));

const close = (got: unknown, want: V, what: string): void => {
  const w = num(want);
  if (typeof w === 'number' && typeof got === 'number') {
    if (Number.isNaN(w as number)) { expect(got, what).toBeNaN(); return; }
    expect(Math.abs((got as number) - (w as number)), what).toBeLessThanOrEqual(1e-12 * Math.max(1, Math.abs(w as number)));
    return;
  }
  expect(typeof got === 'bigint' ? Number(got) : got, what).toEqual(w);
};

async function check(c: Case, result: Out): Promise<void> {
  if (c.kind === 'text') {
    expect(await (result as Promise<string>), c.name).toBe(c.text);
    return;
  }
  if (c.kind === 'scalar') {
    expect(result instanceof mt.Tensor, `${c.name}: a 0-d tensor`).toBe(true);
    const t = result as mt.Tensor;
    expect(t.ndim, c.name).toBe(0);
    close((await t.fetch()).data[0] as number, c.value!, c.name);
    return;
  }
  const series = result instanceof md.Series;
  expect(series, `${c.name}: a Series`).toBe(c.kind === 'series');
  if (series) expect((result as md.Series).name, `${c.name}: name`).toBe(SERIES_NAME[c.name] ?? c.series_name ?? null);
  const frame = series ? (result as md.Series).to_frame(c.columns![0]) : (result as md.DataFrame);
  const f = await frame.fetch();
  expect(f.columns, c.name).toEqual(c.columns);
  expect(Object.values(f.dtypes), `${c.name}: dtypes`).toEqual(DTYPE[c.name] ?? c.dtypes);
  f.columns.forEach((col, i) => {
    const got = f.get(col), want = c.values![i]!;
    expect(got.length, `${c.name}: ${col} length`).toBe(want.length);
    got.forEach((v, r) => close(v, TEXT_VALUES.has(c.name) && want[r] !== null ? pyStr(want[r]!) : want[r]!, `${c.name}: ${col}[${r}]`));
  });
  if (c.index) {
    expect(f.indexNames, `${c.name}: index names`).toEqual(c.index.names);
    const levels = c.index.levels.length === 1 ? [f.index] : c.index.levels.map((_, l) => f.index.map((t) => (t as unknown[])[l]));
    c.index.levels.forEach((want, l) => {
      expect(levels[l]!.length, `${c.name}: index length`).toBe(want.length);
      want.forEach((v, r) => close(levels[l]![r] as V, v, `${c.name}: index level ${l} [${r}]`));
    });
  } else {
    expect(f.index, `${c.name}: a RangeIndex`).toEqual(Array.from({ length: f.shape[0] }, (_, i) => i));
  }
  if (!DTYPE[c.name] && !PRINTED[c.name]) expect(String(f), `${c.name}: printed`).toBe(c.repr);
}

describe('Series and DataFrame methods against pandas 1.5', () => {
  it('has a call for every fixture case', () => {
    expect(FIXTURE.cases.map((c) => c.name).filter((n) => !CALLS[n])).toEqual([]);
  });
  it.each(FIXTURE.cases.map((c) => [c.name, c] as const))('%s', async (_n, c) => {
    await check(c, CALLS[c.name]!((n) => frameOf(n)));
  });
  it('is the same over chunks of 3 rows', async () => {
    for (const c of FIXTURE.cases) await check(c, CALLS[c.name]!((n) => frameOf(n, 3), 3));
  }, 120_000);
});

describe('on the simulated mesh', () => {
  it('gives pandas\' results with the tasks on mesh workers', async () => {
    const mesh = simMesh(['w1', 'w2', 'w3']);
    try {
      await new Promise((r) => setTimeout(r, 100));
      const names = ['t value_counts', 's value_counts dropna False sort False', 'f nlargest 3', 'drop_duplicates t g last', 'describe', 'concat frames', 's str lower', 'dropna'];
      for (const name of names) {
        const c = FIXTURE.cases.find((k) => k.name === name)!;
        const r = CALLS[name]!((n) => frameOf(n, 5), 5) as md.DataFrame | md.Series;
        await (r instanceof md.Series ? r.to_frame(c.columns![0]) : r).execute({ session: mesh.session });
        await check(c, r);
      }
      expect(mesh.reports.some((r) => r.tasks > 0)).toBe(true);
    } finally {
      mesh.close();
    }
  }, 120_000);
});

describe('Arrow and files', () => {
  it('makes a frame of an Arrow table: numbers, bools, strings, dictionaries, nulls in integers as NaN', async () => {
    const table = new Table({
      i: vectorFromArray([1, 2, 3], new Int32()),
      n: vectorFromArray([1, null, 3], new Int32()),
      f: vectorFromArray(new Float64Array([0.5, 1.5, NaN])),
      b: vectorFromArray([true, false, true]),
      s: vectorFromArray(['a', null, 'b'], new Utf8()),
      d: vectorFromArray(['x', 'y', 'x'], new Dictionary(new Utf8(), new Int32())),
    });
    const df = new md.DataFrame(table, { chunkSize: 2 });
    expect(df.dtypes).toEqual({ i: 'int32', n: 'float64', f: 'float64', b: 'bool', s: 'object', d: 'object' });
    const f = await df.fetch();
    expect(f.get('n')).toEqual([1, NaN, 3]);
    expect(f.get('s')).toEqual(['a', null, 'b']);
    expect(f.get('d')).toEqual(['x', 'y', 'x']);
    expect(f.get('b')).toEqual([true, false, true]);
    // and back: to_arrow, IPC bytes, read_arrow (bytes, a Blob, a path)
    const back = await df.to_arrow();
    expect(back.getChild('s')!.toArray()).toEqual(['a', null, 'b']);
    const bytes = tableToIPC(tableFromArrays({ k: new Float64Array([1, 2]), s: ['p', 'q'] }));
    const dir = mkdtempSync(join(tmpdir(), 'tessera-arrow-'));
    writeFileSync(join(dir, 't.arrow'), bytes);
    for (const src of [bytes, new Blob([bytes]), join(dir, 't.arrow')]) {
      const r = await (await md.read_arrow(src)).fetch();
      expect(r.get('k')).toEqual([1, 2]);
      expect(r.get('s')).toEqual(['p', 'q']);
    }
  });
  it('writes to_csv to a path and resolves to the text', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tessera-csv-'));
    const path = join(dir, 'f.csv');
    const text = await frameOf('nums').to_csv(path);
    expect(readFileSync(path, 'utf8')).toBe(text);
  });
});

describe('bad input is refused clearly', () => {
  const df = frameOf('mixed');
  it('names an unknown column', () => {
    expect(() => df.drop('nope')).toThrow(/KeyError.*nope/);
    expect(() => df.dropna({ subset: ['nope'] })).toThrow(/KeyError: "nope"/);
    expect(() => df.loc([1], ['nope'])).toThrow(/KeyError: "nope"/);
    expect(() => df.fillna({ nope: 1 })).toThrow(/KeyError: "nope"/);
    expect(() => df.duplicated({ subset: 'nope' })).toThrow(/KeyError: "nope"/);
    expect(() => df.nlargest(2, 'nope')).toThrow(/KeyError: "nope"/);
    expect(() => df.astype({ nope: 'float64' })).toThrow(/KeyError: "nope"/);
  });
  it('names the dtypes of a type mismatch', () => {
    expect(() => df.get('f').fillna('x')).toThrow(TypeError);
    expect(() => df.get('f').fillna('x')).toThrow(/float64/);
    expect(() => df.get('s').fillna(1)).toThrow(/object/);
    expect(() => df.get('i').str).toThrow(/int64/);
    expect(() => df.get('s').nlargest(2)).toThrow(/dtype object/);
    expect(() => df.nlargest(2, 's')).toThrow(/dtype object/);
    expect(() => df.sum({ numeric_only: false })).toThrow(/dtype object/);
    expect(() => df.where(df.get('i'))).toThrow(/boolean, got dtype int64/);
    expect(() => md.concat([df.get(['i']), new md.DataFrame({ i: ['a'] })])).toThrow(/object.*int64/);
    expect(() => df.get('s').quantile(0.5)).toThrow(/quantile of a object/);
    expect(() => df.get('i').map((x) => x)).toThrow(/function of a int64 Series/);
    expect(() => df.iloc(0)).toThrow(/strings \(object\) and int64/);
  });
  it('parses strings as Python does, and says which one does not parse', async () => {
    expect(() => new md.DataFrame({ p: ['1.5', 'one'] }).astype('float64')).toThrow(/could not convert string to float: 'one'/);
    expect(() => new md.DataFrame({ p: ['1.5'] }).astype('int64')).toThrow(/invalid literal for int\(\) with base 10: '1.5'/);
    expect(() => df.get('i').astype('str')).toThrow(/int64 to str/);
    await expect(new md.DataFrame({ p: ['1', null] }).astype('int64').execute()).rejects.toThrow(/non-finite values/);
  });
  it('refuses what it does not do', () => {
    expect(() => df.get('s').str.contains('p.')).toThrow(/regular expressions are not supported/);
    expect(() => df.get('s').str.contains('p', { regex: true })).toThrow(/regular expressions/);
    expect(() => df.agg(['mean', 'mode'])).toThrow(/'mode' is not a valid function/);
    expect(() => df.iloc(40)).toThrow(/out-of-bounds/);
    expect(() => md.concat([])).toThrow(/No objects/);
  });
});
