#!/usr/bin/env node
// A CSV larger than memory should need, grouped: md.read_csv of the columns
// a query reads (usecols, the db-benchmark's dtypes), then a groupby sum,
// with the time of each and the process's peak RSS (getrusage's ru_maxrss)
// after each. Issue 32's target: a 1e8-row file (5.2 GB, written by
// `python3 bench/dbgen.py --rows 1e8 --only groupby`) grouped with peak RSS
// under 2 GB.
//
//   npm run build && node bench/big.js [file] [columns, the key first] [key]
//   node bench/big.js bench/data/G1_1e8_1e2_0_0.csv id1,v1 id1

import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { md, mt } = await import(pathToFileURL(path.join(ROOT, 'dist', 'index.js')).href);
const file = process.argv[2] ?? path.join(ROOT, 'bench', 'data', 'G1_1e8_1e2_0_0.csv');
const cols = (process.argv[3] ?? 'id1,v1').split(',');
const by = process.argv[4] ?? cols[0];
const types = { id1: 'string', id2: 'string', id3: 'string', id4: 'int32', id5: 'int32', id6: 'int32', v1: 'int32', v2: 'int32', v3: 'float64' };
const rss = () => `${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`;
const t0 = performance.now();
const f = await md.read_csv(file, { usecols: cols, dtype: Object.fromEntries(cols.map((c) => [c, types[c] ?? 'float64'])) });
await f.execute();
const t1 = performance.now();
console.log(`read_csv ${((t1 - t0) / 1000).toFixed(2)} s, ${f.shape[0]} rows; peak RSS ${rss()}`);
const g = f.groupby(by, { as_index: false, sort: false }).agg(Object.fromEntries(cols.filter((c) => c !== by).map((c) => [c, 'sum'])));
await g.execute();
const t2 = performance.now();
const out = await g.fetch();
console.log(`groupby ${((t2 - t1) / 1000).toFixed(2)} s, ${out.shape[0]} groups; peak RSS ${rss()}`);
await mt.shutdown?.();
