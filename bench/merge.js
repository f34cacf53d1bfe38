#!/usr/bin/env node
// DataFrame.merge (src/dataframe/merge.ts) on db-benchmark's join shapes:
// x of n rows (a string key of 100 distinct values, id1, another of 1e4,
// id2, and a float v1) inner-joined on a string key with a small table
// (100 rows, unique keys, 90 of them among x's) and a medium one (1e4 rows,
// unique keys, about 90% among x's), as `await x.merge(y, {on, how}).execute()`
// with how 'inner' (db-benchmark's questions; pandas 1.5's order of groups
// costs a sort of x's rows) and 'left' (x's rows in order: no sort). The
// tables are computed before the clock starts; each time is the fastest of
// `runs`. Prints one JSON line per case. bench/merge_pandas.py times pandas
// on the same shapes.
//
//   npm run build && node bench/merge.js [--n 1e7] [--runs 3] [--workers N]

import { availableParallelism } from 'node:os';

const args = process.argv.slice(2);
const flag = (name, def) => { const i = args.indexOf(`--${name}`); return i >= 0 ? args[i + 1] : def; };
const n = Number(flag('n', '1e7'));
const runs = Number(flag('runs', '3'));

const { mt } = await import('../dist/index.js');
const md = await import('../dist/dataframe/index.js');
mt.options.workers = Number(flag('workers', String(availableParallelism())));

const names = (k, from = 1) => Array.from({ length: k }, (_, i) => `id${i + from}`);
const rng = mt.random.default_rng(1);
/** A string column of `len` rows drawn from `dict`'s first `k` entries. */
const strings = (len, dict, k) => new md.Series({ values: mt.astype(rng.integers(0, k, [len]), 'int32'), dict });
const x = new md.DataFrame({ id1: strings(n, names(100), 100), id2: strings(n, names(10_000), 10_000), v1: rng.uniform(0, 1, [n]) });
// y's keys: unique, about 10% of them absent from x (x's names run from id1; y's from id11 or id1001)
const table = (key, k) => new md.DataFrame({ [key]: new md.Series({ values: mt.arange(k, { dtype: 'int32' }), dict: names(k, k / 10 + 1) }), v2: rng.uniform(0, 1, [k]) });
const small = table('id1', 100), medium = table('id2', 10_000);
await md.execute(x, small, medium);

const cases = [['small', small, 'id1'], ['medium', medium, 'id2']].flatMap(([size, y, on]) => ['inner', 'left'].map((how) => [`${size} (${y.shape[0]} rows) ${how} on a string key`, y, on, how]));
for (const [name, y, on, how] of cases) {
  let best = Infinity, rows = 0;
  for (let r = 0; r < runs; r++) {
    const t0 = performance.now();
    const m = await x.merge(y, { on, how }).execute();
    best = Math.min(best, performance.now() - t0);
    rows = m.column('v2').values.shape[0];
    if (Number.isNaN(rows)) rows = (await m.column('v2').values.fetch()).data.length;
  }
  console.log(JSON.stringify({ case: name, n, ms: Math.round(best), rows, workers: mt.options.workers }));
}
await mt.shutdown();
