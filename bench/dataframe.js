#!/usr/bin/env node
// The h2o db-benchmark (groupby q1-q10, join q1-q5 as j1-j5) and a
// MovieLens-shaped groupby, side by side: pandas, Dask, DuckDB, arquero and
// Tessera's `md`, on the same CSV files (bench/dbgen.py, written into
// bench/data/ once). The spellings are the db-benchmark's own
// (h2oai/db-benchmark: pandas/groupby-pandas.py, pandas/join-pandas.py,
// dask/groupby-dask2.py, dask/join-dask.py, duckdb/groupby-duckdb.R and
// join-duckdb.R); arquero and Tessera follow pandas' as closely as their APIs
// allow.
//
// Each system runs in a fresh process of its own, one after the other (never
// two at once): /usr/bin/python3 -c (pandas 1.5, Dask with the threaded
// scheduler on --threads workers) or this script with --child (DuckDB with
// --threads threads, arquero, Tessera). A child loads a data set (timed: the
// read_csv rows), runs its queries and prints one JSON line per event:
// {event: 'start', id} before each load or query, {event: 'done', id, status,
// runs, chk, rss} after it, {event: 'end', rss} last. A query's time is the
// median of 3 runs, or its one run when that took --cheap seconds or more (the
// db-benchmark runs each query twice). Its check value is the result's row
// count and the sums of its value columns (the db-benchmark's `chk`); a result
// whose check differs from pandas' (DuckDB's where pandas has none) is WRONG.
// A query that throws is `n/a (its message's first line)` and the process
// goes on; one that runs past --timeout seconds, or a process holding more
// than --max-rss GiB resident (polled five times a second: the machine is
// shared), is killed, the query marked TIMEOUT or error, and a fresh process
// reloads the data and goes on with the next query. Peak RSS
// (process.resourceUsage().maxRSS, getrusage's ru_maxrss) is reported after
// the first read_csv and at the end.
//
//   npm run build && node bench/dataframe.js [--quick] [--rows 1e7] [--k 100] [--ratings 2e7]
//                     [--queries q1,j5,...] [--systems pandas,dask,duckdb,arquero,tessera] [--threads 2]
//                     [--timeout 300] [--cheap 5] [--max-rss 14] [--render dataframe.json]
//
// Output: one JSON line per system, then one per row, then the Markdown
// table; bench/results/dataframe.{json,md}. bench/run.js --only dataframe runs
// this script and puts the table in latest.md.

import { spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '..');
const PANDAS_PY = '/usr/bin/python3';

export const SYSTEMS = ['pandas', 'dask', 'duckdb', 'arquero', 'tessera'];
export const LABEL = { pandas: 'pandas', dask: 'Dask', duckdb: 'DuckDB', arquero: 'arquero', tessera: 'Tessera' };

/**
 * The table's rows in the order every child runs them. A load row reads its
 * data set (`data`); a query names its group keys (`by`: the check sums every
 * other column of the result) or the columns it checks (`cols`).
 */
export const QUERIES = [
  { id: 'read_csv', data: 'groupby', load: true, question: 'G1, 9 columns' },
  { id: 'q1', data: 'groupby', by: ['id1'], question: 'sum v1 by id1' },
  { id: 'q2', data: 'groupby', by: ['id1', 'id2'], question: 'sum v1 by id1:id2' },
  { id: 'q3', data: 'groupby', by: ['id3'], question: 'sum v1 mean v3 by id3' },
  { id: 'q4', data: 'groupby', by: ['id4'], question: 'mean v1:v3 by id4' },
  { id: 'q5', data: 'groupby', by: ['id6'], question: 'sum v1:v3 by id6' },
  { id: 'q6', data: 'groupby', by: ['id4', 'id5'], question: 'median v3 sd v3 by id4 id5' },
  { id: 'q7', data: 'groupby', by: ['id3'], question: 'max v1 - min v2 by id3' },
  { id: 'q8', data: 'groupby', by: ['id6'], question: 'largest two v3 by id6' },
  { id: 'q9', data: 'groupby', by: ['id2', 'id4'], question: 'regression v1 v2 by id2 id4' },
  { id: 'q10', data: 'groupby', by: ['id1', 'id2', 'id3', 'id4', 'id5', 'id6'], question: 'sum v3 count by id1:id6' },
  { id: 'read_csv_join', data: 'join', load: true, question: 'J1: x and the small, medium, big y' },
  { id: 'j1', data: 'join', cols: ['v1', 'v2'], question: 'small inner on int' },
  { id: 'j2', data: 'join', cols: ['v1', 'v2'], question: 'medium inner on int' },
  { id: 'j3', data: 'join', cols: ['v1', 'v2'], question: 'medium outer (left) on int' },
  { id: 'j4', data: 'join', cols: ['v1', 'v2'], question: 'medium inner on factor' },
  { id: 'j5', data: 'join', cols: ['v1', 'v2'], question: 'big inner on int' },
  { id: 'read_csv_ml', data: 'ratings', load: true, question: 'the ratings' },
  { id: 'movielens', data: 'ratings', by: ['userId'], question: "ratings: groupby('userId').agg({rating: [sum, mean, max, min]})" },
];
const BY_ID = Object.fromEntries(QUERIES.map((q) => [q.id, q]));

// ---------------------------------------------------------------------------
// pandas and Dask: one Python program, its system and files in argv[1] (JSON).

const PYTHON = String.raw`
import gc, json, resource, statistics, sys, time
cfg = json.loads(sys.argv[1])
system, paths, todo, queries = cfg['system'], cfg['paths'], set(cfg['todo']), cfg['queries']
def emit(**o):
    print(json.dumps(o), flush=True)
try:
    import pandas as pd
    if system == 'dask':
        import dask, dask.dataframe as dd
        dask.config.set(scheduler='threads', num_workers=cfg['threads'])
except ImportError as e:
    emit(event='unavailable', reason=f'not installed ({e})')
    sys.exit(0)
emit(event='version', version=(dask if system == 'dask' else pd).__version__ + (f' (pandas {pd.__version__})' if system == 'dask' else ''))
def rss():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024

# the db-benchmark's column types (its groupby and join scripts)
GROUPBY_TYPES = {'id1': 'category', 'id2': 'category', 'id3': 'category', 'id4': 'Int32', 'id5': 'Int32', 'id6': 'Int32', 'v1': 'Int32', 'v2': 'Int32', 'v3': 'float64'}
JOIN_TYPES = {'id1': 'Int32', 'id2': 'Int32', 'id3': 'Int32', 'id4': 'category', 'id5': 'category', 'id6': 'category', 'v1': 'float64', 'v2': 'float64'}
def read(p, types):
    if system == 'dask':
        f = dd.read_csv(p, dtype=types)
        f = f.persist()
        return f, len(f)
    f = pd.read_csv(p, dtype=types)
    return f, len(f)
def load(data):
    if data == 'groupby':
        x, n = read(paths['groupby'], GROUPBY_TYPES)
        return {'x': x}, n
    if data == 'join':
        d = {}
        for k, p in paths['join'].items():
            cols = pd.read_csv(p, nrows=0).columns
            d[k], n = read(p, {c: t for c, t in JOIN_TYPES.items() if c in cols})
        return d, len(d['x'])
    r, n = read(paths['ratings'], None)
    return {'r': r}, n

G = dict(as_index=False, sort=False, observed=True, dropna=False)
r2 = lambda g: pd.Series({'r2': g.corr()['v1']['v2'] ** 2})
PANDAS = {
    'q1': lambda d: d['x'].groupby('id1', **G).agg({'v1': 'sum'}),
    'q2': lambda d: d['x'].groupby(['id1', 'id2'], **G).agg({'v1': 'sum'}),
    'q3': lambda d: d['x'].groupby('id3', **G).agg({'v1': 'sum', 'v3': 'mean'}),
    'q4': lambda d: d['x'].groupby('id4', **G).agg({'v1': 'mean', 'v2': 'mean', 'v3': 'mean'}),
    'q5': lambda d: d['x'].groupby('id6', **G).agg({'v1': 'sum', 'v2': 'sum', 'v3': 'sum'}),
    'q6': lambda d: d['x'].groupby(['id4', 'id5'], **G).agg({'v3': ['median', 'std']}),
    'q7': lambda d: d['x'].groupby('id3', **G).agg({'v1': 'max', 'v2': 'min'}).assign(range_v1_v2=lambda x: x['v1'] - x['v2'])[['id3', 'range_v1_v2']],
    'q8': lambda d: d['x'][~d['x']['v3'].isna()][['id6', 'v3']].sort_values('v3', ascending=False).groupby('id6', **G).head(2).reset_index(drop=True),
    'q9': lambda d: d['x'][['id2', 'id4', 'v1', 'v2']].groupby(['id2', 'id4'], **G).apply(r2),
    'q10': lambda d: d['x'].groupby(['id1', 'id2', 'id3', 'id4', 'id5', 'id6'], **G).agg({'v3': 'sum', 'v1': 'size'}),
    'j1': lambda d: d['x'].merge(d['small'], on='id1'),
    'j2': lambda d: d['x'].merge(d['medium'], on='id2'),
    'j3': lambda d: d['x'].merge(d['medium'], how='left', on='id2'),
    'j4': lambda d: d['x'].merge(d['medium'], on='id5'),
    'j5': lambda d: d['x'].merge(d['big'], on='id3'),
    'movielens': lambda d: d['r'].groupby('userId').agg({'rating': ['sum', 'mean', 'max', 'min']}),
}
DG = dict(dropna=False, observed=True)
def out(a):
    a = a.compute()
    a.reset_index(inplace=True)
    return a
DASK = {
    'q1': lambda d: out(d['x'].groupby('id1', **DG).agg({'v1': 'sum'})),
    'q2': lambda d: out(d['x'].groupby(['id1', 'id2'], **DG).agg({'v1': 'sum'})),
    'q3': lambda d: out(d['x'].groupby('id3', **DG).agg({'v1': 'sum', 'v3': 'mean'})),
    'q4': lambda d: out(d['x'].groupby('id4', **DG).agg({'v1': 'mean', 'v2': 'mean', 'v3': 'mean'})),
    'q5': lambda d: out(d['x'].groupby('id6', **DG).agg({'v1': 'sum', 'v2': 'sum', 'v3': 'sum'})),
    # not in the db-benchmark's Dask script (Dask had no groupby median then); Dask 2022.12 has
    # one, with a shuffle of the rows to their groups' partitions (its error message says so)
    'q6': lambda d: out(d['x'].groupby(['id4', 'id5'], **DG).agg({'v3': ['median', 'std']}, shuffle='tasks')),
    'q7': lambda d: out(d['x'].groupby('id3', **DG).agg({'v1': 'max', 'v2': 'min'}).assign(range_v1_v2=lambda x: x['v1'] - x['v2'])[['range_v1_v2']]),
    'q8': lambda d: out(d['x'][~d['x']['v3'].isna()][['id6', 'v3']].groupby('id6', **DG).apply(lambda x: x.nlargest(2, columns='v3'), meta={'id6': 'Int64', 'v3': 'float64'})[['v3']]),
    'q9': lambda d: out(d['x'][['id2', 'id4', 'v1', 'v2']].groupby(['id2', 'id4'], **DG).apply(r2, meta={'r2': 'float64'})),
    'q10': lambda d: out(d['x'].groupby(['id1', 'id2', 'id3', 'id4', 'id5', 'id6'], **DG).agg({'v3': 'sum', 'v1': 'size'})),
    'j1': lambda d: d['x'].merge(d['small'], on='id1').compute(),
    'j2': lambda d: d['x'].merge(d['medium'], on='id2').compute(),
    'j3': lambda d: d['x'].merge(d['medium'], how='left', on='id2').compute(),
    'j4': lambda d: d['x'].merge(d['medium'], on='id5').compute(),
    'j5': lambda d: d['x'].merge(d['big'], on='id3').compute(),
    'movielens': lambda d: out(d['r'].groupby('userId').agg({'rating': ['sum', 'mean', 'max', 'min']})),
}
RUN = DASK if system == 'dask' else PANDAS

def check(a, q):
    """Rows, and the sums of the checked columns (NaN skipped): every column but the keys, or q['cols'].
    reset_index names an unnamed index level 'index' or 'level_<i>' (Dask's q8 keeps the row labels, not id6)."""
    name = lambda c: c[0] if isinstance(c, tuple) else c
    label = lambda c: str(name(c)) == 'index' or str(name(c)).startswith('level_')
    if q.get('cols'):
        cols = [a[c] for c in q['cols']]
    else:
        cols = [a.iloc[:, i] for i, c in enumerate(a.columns) if name(c) not in q['by'] and not label(c)]
    return {'rows': int(len(a)), 'sums': [float(s.astype('float64').sum()) for s in cols]}

def one_line(e):
    return (f'{type(e).__name__}: {e}'.strip().split('\n') or [''])[0][:300]

data = None
for q in queries:
    if q['id'] not in todo and not q.get('load'):
        continue
    if q.get('load'):
        want = any(p['data'] == q['data'] and p['id'] in todo for p in queries)
        if not want:
            continue
        data = None
        gc.collect()
        emit(event='start', id=q['id'])
        t0 = time.perf_counter()
        try:
            data, n = load(q['data'])
            emit(event='done', id=q['id'], status='ok', runs=[time.perf_counter() - t0], chk={'rows': n, 'sums': []}, rss=rss())
        except Exception as e:
            emit(event='done', id=q['id'], status='n/a', reason=one_line(e), rss=rss(), load_failed=True)
        continue
    emit(event='start', id=q['id'])
    if data is None:
        emit(event='done', id=q['id'], status='n/a', reason='its data did not load')
        continue
    runs, a = [], None
    try:
        for _ in range(3):
            a = None
            gc.collect()
            t0 = time.perf_counter()
            a = RUN[q['id']](data)
            runs.append(time.perf_counter() - t0)
            if runs[0] >= cfg['cheap']:
                break
        emit(event='done', id=q['id'], status='ok', runs=runs, chk=check(a, q), rss=rss())
    except Exception as e:
        emit(event='done', id=q['id'], status='n/a', reason=one_line(e), rss=rss())
    a = None
emit(event='end', rss=rss())
`;

// ---------------------------------------------------------------------------
// DuckDB, arquero and Tessera: a child is this script with --child. Each
// system is { version, load(data, paths) -> tables, run(id, tables) -> result,
// check(result, q) -> {rows, sums}, drop(result), close() }.

/** The sums of the checked columns of a result given as column arrays (null and NaN skipped). */
function sums(rows, columns, q, get) {
  const names = q.cols ?? columns.filter((c) => !q.by.includes(c));
  return {
    rows,
    sums: names.map((c) => {
      let s = 0;
      for (const v of get(c)) if (v !== null && v !== undefined && !Number.isNaN(Number(v))) s += Number(v);
      return s;
    }),
  };
}

async function duckdbSystem(cfg) {
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const db = await DuckDBInstance.create(':memory:', { threads: String(cfg.threads) });
  const con = await db.connect();
  const rows = async (sql) => (await con.runAndReadAll(sql)).getRows();
  const tables = { groupby: { x: cfg.paths.groupby }, join: cfg.paths.join, ratings: { r: cfg.paths.ratings } };
  // duckdb/groupby-duckdb.R and join-duckdb.R
  const SQL = {
    q1: 'SELECT id1, sum(v1) AS v1 FROM x GROUP BY id1',
    q2: 'SELECT id1, id2, sum(v1) AS v1 FROM x GROUP BY id1, id2',
    q3: 'SELECT id3, sum(v1) AS v1, avg(v3) AS v3 FROM x GROUP BY id3',
    q4: 'SELECT id4, avg(v1) AS v1, avg(v2) AS v2, avg(v3) AS v3 FROM x GROUP BY id4',
    q5: 'SELECT id6, sum(v1) AS v1, sum(v2) AS v2, sum(v3) AS v3 FROM x GROUP BY id6',
    q6: 'SELECT id4, id5, quantile_cont(v3, 0.5) AS median_v3, stddev(v3) AS sd_v3 FROM x GROUP BY id4, id5',
    q7: 'SELECT id3, max(v1)-min(v2) AS range_v1_v2 FROM x GROUP BY id3',
    q8: 'SELECT id6, v3 AS largest2_v3 FROM (SELECT id6, v3, row_number() OVER (PARTITION BY id6 ORDER BY v3 DESC) AS order_v3 FROM x WHERE v3 IS NOT NULL) sub_query WHERE order_v3 <= 2',
    q9: 'SELECT id2, id4, pow(corr(v1, v2), 2) AS r2 FROM x GROUP BY id2, id4',
    q10: 'SELECT id1, id2, id3, id4, id5, id6, sum(v3) AS v3, count(*) AS count FROM x GROUP BY id1, id2, id3, id4, id5, id6',
    j1: 'SELECT x.*, small.id4 AS small_id4, v2 FROM x JOIN small USING (id1)',
    j2: 'SELECT x.*, medium.id1 AS medium_id1, medium.id4 AS medium_id4, medium.id5 AS medium_id5, v2 FROM x JOIN medium USING (id2)',
    j3: 'SELECT x.*, medium.id1 AS medium_id1, medium.id4 AS medium_id4, medium.id5 AS medium_id5, v2 FROM x LEFT JOIN medium USING (id2)',
    j4: 'SELECT x.*, medium.id1 AS medium_id1, medium.id2 AS medium_id2, medium.id4 AS medium_id4, v2 FROM x JOIN medium USING (id5)',
    j5: 'SELECT x.*, big.id1 AS big_id1, big.id2 AS big_id2, big.id4 AS big_id4, big.id5 AS big_id5, big.id6 AS big_id6, v2 FROM x JOIN big USING (id3)',
    movielens: 'SELECT userId, sum(rating) AS sum, avg(rating) AS mean, max(rating) AS max, min(rating) AS min FROM r GROUP BY userId',
  };
  return {
    version: String((await rows('SELECT version()'))[0][0]),
    async load(data) {
      for (const t of ['x', 'small', 'medium', 'big', 'r']) await con.run(`DROP TABLE IF EXISTS ${t}`);
      for (const [t, p] of Object.entries(tables[data])) await con.run(`CREATE TABLE ${t} AS SELECT * FROM read_csv('${p}')`);
      const first = Object.keys(tables[data])[0];
      return Number((await rows(`SELECT count(*) FROM ${first}`))[0][0]);
    },
    async run(id) { await con.run(`CREATE TABLE ans AS ${SQL[id]}`); return 'ans'; },
    async check(_, q) {
      const columns = (await con.runAndReadAll('SELECT * FROM ans LIMIT 0')).columnNames();
      const names = q.cols ?? columns.filter((c) => !q.by.includes(c));
      const [r] = await rows(`SELECT count(*)::DOUBLE${names.map((c) => `, sum("${c}")::DOUBLE`).join('')} FROM ans`);
      return { rows: Number(r[0]), sums: r.slice(1).map((v) => (v === null ? 0 : Number(v))) };
    },
    async drop() { await con.run('DROP TABLE IF EXISTS ans'); },
    async close() { con.closeSync?.(); },
  };
}

/**
 * arquero reads a CSV from one JS string, and V8 caps a string near 512 MiB
 * (the 2e7 ratings file is larger): a file past LOAD_PIECE bytes is parsed in
 * pieces cut at line ends, each with the header, and the tables concatenated.
 */
const LOAD_PIECE = 256 * 2 ** 20;

async function arqueroSystem() {
  const aq = await import('arquero');
  const { op } = aq;
  const read = async (p) => {
    const bytes = readFileSync(p);
    if (bytes.length <= LOAD_PIECE) return aq.fromCSV(bytes.toString('utf8'));
    const headEnd = bytes.indexOf(10) + 1;
    const header = bytes.subarray(0, headEnd).toString('utf8');
    const parts = [];
    for (let s = headEnd; s < bytes.length;) {
      const cut = s + LOAD_PIECE >= bytes.length ? bytes.length : bytes.indexOf(10, s + LOAD_PIECE) + 1 || bytes.length;
      parts.push(aq.fromCSV(header + bytes.subarray(s, cut).toString('utf8')));
      s = cut;
    }
    return parts[0].concat(...parts.slice(1));
  };
  const RUN = {
    q1: ({ x }) => x.groupby('id1').rollup({ v1: op.sum('v1') }),
    q2: ({ x }) => x.groupby('id1', 'id2').rollup({ v1: op.sum('v1') }),
    q3: ({ x }) => x.groupby('id3').rollup({ v1: op.sum('v1'), v3: op.mean('v3') }),
    q4: ({ x }) => x.groupby('id4').rollup({ v1: op.mean('v1'), v2: op.mean('v2'), v3: op.mean('v3') }),
    q5: ({ x }) => x.groupby('id6').rollup({ v1: op.sum('v1'), v2: op.sum('v2'), v3: op.sum('v3') }),
    q6: ({ x }) => x.groupby('id4', 'id5').rollup({ median_v3: op.median('v3'), sd_v3: op.stdev('v3') }),
    q7: ({ x }) => x.groupby('id3').rollup({ range_v1_v2: (d) => op.max(d.v1) - op.min(d.v2) }),
    q8: ({ x }) => x.select('id6', 'v3').filter((d) => d.v3 != null).groupby('id6').orderby(aq.desc('v3'))
      .filter(() => op.row_number() <= 2).ungroup(),
    q9: ({ x }) => x.groupby('id2', 'id4').rollup({ r2: (d) => op.corr(d.v1, d.v2) * op.corr(d.v1, d.v2) }),
    q10: ({ x }) => x.groupby('id1', 'id2', 'id3', 'id4', 'id5', 'id6').rollup({ v3: op.sum('v3'), count: op.count() }),
    j1: ({ x, small }) => x.join(small, 'id1'),
    j2: ({ x, medium }) => x.join(medium, 'id2'),
    j3: ({ x, medium }) => x.join_left(medium, 'id2'),
    j4: ({ x, medium }) => x.join(medium, 'id5'),
    j5: ({ x, big }) => x.join(big, 'id3'),
    movielens: ({ r }) => r.groupby('userId').rollup({
      sum: op.sum('rating'), mean: op.mean('rating'), max: op.max('rating'), min: op.min('rating'),
    }),
  };
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'node_modules', 'arquero', 'package.json'), 'utf8'));
  return {
    version: pkg.version,
    async load(data, paths) {
      const files = data === 'groupby' ? { x: paths.groupby } : data === 'join' ? paths.join : { r: paths.ratings };
      const t = {};
      for (const [k, p] of Object.entries(files)) t[k] = await read(p);
      t.rows = (t.x ?? t.r).numRows();
      return t;
    },
    async run(id, t) { return RUN[id](t); },
    async check(a, q) { return sums(a.numRows(), a.columnNames(), q, (c) => a.array(c)); },
  };
}

/** A CSV file's column names, from its first line (read alone: the files pass 500 MB). */
function headerOf(p) {
  const fd = openSync(p, 'r');
  try {
    const head = Buffer.alloc(4096);
    const n = readSync(fd, head, 0, head.length, 0);
    return head.subarray(0, n).toString('utf8').split('\n')[0].trim().split(',');
  } finally { closeSync(fd); }
}

async function tesseraSystem() {
  const dist = path.join(ROOT, 'dist', 'index.js');
  if (!existsSync(dist)) throw new Error('not built (npm run build)');
  const { md, mt } = await import(pathToFileURL(dist).href);
  // the db-benchmark's column types (int32 for its Int32; strings are dictionary-encoded, as a category)
  const GROUPBY = { id1: 'string', id2: 'string', id3: 'string', id4: 'int32', id5: 'int32', id6: 'int32', v1: 'int32', v2: 'int32', v3: 'float64' };
  const JOIN = { id1: 'int32', id2: 'int32', id3: 'int32', id4: 'string', id5: 'string', id6: 'string', v1: 'float64', v2: 'float64' };
  const read = async (p, types) => {
    const dtype = types && Object.fromEntries(headerOf(p).filter((c) => types[c]).map((c) => [c, types[c]]));
    const f = await md.read_csv(p, dtype ? { dtype } : {});
    await f.execute();
    return f;
  };
  const G = { as_index: false, sort: false, observed: true, dropna: false };
  const RUN = {
    q1: ({ x }) => x.groupby('id1', G).agg({ v1: 'sum' }),
    q2: ({ x }) => x.groupby(['id1', 'id2'], G).agg({ v1: 'sum' }),
    q3: ({ x }) => x.groupby('id3', G).agg({ v1: 'sum', v3: 'mean' }),
    q4: ({ x }) => x.groupby('id4', G).agg({ v1: 'mean', v2: 'mean', v3: 'mean' }),
    q5: ({ x }) => x.groupby('id6', G).agg({ v1: 'sum', v2: 'sum', v3: 'sum' }),
    q6: ({ x }) => x.groupby(['id4', 'id5'], G).agg({ v3: ['median', 'std'] }),
    q7: ({ x }) => {
      const a = x.groupby('id3', G).agg({ v1: 'max', v2: 'min' });
      return a.assign({ range_v1_v2: a.get('v1').sub(a.get('v2')) }).get(['id3', 'range_v1_v2']);
    },
    q8: ({ x }) => x.get(x.get('v3').notna()).get(['id6', 'v3']).sort_values('v3', { ascending: false })
      .groupby('id6', G).head(2),
    // r² from sums alone, so that it needs only agg: with n rows, x = v1, y = v2,
    // r² = (n·Σxy − Σx·Σy)² / ((n·Σx² − (Σx)²)(n·Σy² − (Σy)²)) (pandas runs x.corr() per group)
    q9: ({ x }) => {
      const v1 = x.get('v1').astype('float64'), v2 = x.get('v2').astype('float64');
      const s = x.get(['id2', 'id4']).assign({ v1, v2, xy: v1.mul(v2), xx: v1.mul(v1), yy: v2.mul(v2), n: v1 })
        .groupby(['id2', 'id4'], G).agg({ v1: 'sum', v2: 'sum', xy: 'sum', xx: 'sum', yy: 'sum', n: 'count' });
      const [n, sx, sy] = [s.get('n'), s.get('v1'), s.get('v2')];
      const num = n.mul(s.get('xy')).sub(sx.mul(sy)).pow(2);
      const den = n.mul(s.get('xx')).sub(sx.mul(sx)).mul(n.mul(s.get('yy')).sub(sy.mul(sy)));
      return s.assign({ r2: num.div(den) }).get(['id2', 'id4', 'r2']);
    },
    q10: ({ x }) => x.groupby(['id1', 'id2', 'id3', 'id4', 'id5', 'id6'], G).agg({ v3: 'sum', v1: 'size' }),
    j1: ({ x, small }) => x.merge(small, { on: 'id1', how: 'inner' }),
    j2: ({ x, medium }) => x.merge(medium, { on: 'id2', how: 'inner' }),
    j3: ({ x, medium }) => x.merge(medium, { on: 'id2', how: 'left' }),
    j4: ({ x, medium }) => x.merge(medium, { on: 'id5', how: 'inner' }),
    j5: ({ x, big }) => x.merge(big, { on: 'id3', how: 'inner' }),
    movielens: ({ r }) => r.groupby('userId').agg({ rating: ['sum', 'mean', 'max', 'min'] }),
  };
  const commit = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).stdout?.trim();
  return {
    version: commit || '?',
    async load(data, paths) {
      const t = {};
      if (data === 'groupby') t.x = await read(paths.groupby, GROUPBY);
      else if (data === 'join') for (const [k, p] of Object.entries(paths.join)) t[k] = await read(p, JOIN);
      else t.r = await read(paths.ratings);
      t.rows = (t.x ?? t.r).shape[0];
      return t;
    },
    async run(id, t) { const a = RUN[id](t); await a.execute(); return a; },
    async check(a, q) { const f = await a.fetch(); return sums(f.shape[0], f.columns, q, (c) => f.get(c)); },
    async close() { await mt.shutdown?.(); },
  };
}

const JS_SYSTEMS = { duckdb: duckdbSystem, arquero: arqueroSystem, tessera: tesseraSystem };

const firstLine = (e) => String(e?.message ?? e).trim().split('\n')[0].slice(0, 300);

async function jsChild(cfg) {
  const emit = (o) => process.stdout.write(`${JSON.stringify(o)}\n`);
  const rss = () => process.resourceUsage().maxRSS * 1024;
  let sys;
  try { sys = await JS_SYSTEMS[cfg.system](cfg); } catch (e) {
    emit({ event: 'unavailable', reason: /Cannot find (module|package)/.test(e?.message) ? `not installed (${firstLine(e)})` : firstLine(e) });
    return;
  }
  emit({ event: 'version', version: sys.version });
  const todo = new Set(cfg.todo);
  let data;
  for (const q of cfg.queries) {
    if (q.load) {
      if (!cfg.queries.some((p) => p.data === q.data && todo.has(p.id))) continue;
      data = undefined;
      globalThis.gc?.();
      emit({ event: 'start', id: q.id });
      const t0 = performance.now();
      try {
        data = await sys.load(q.data, cfg.paths);
        const rows = typeof data === 'number' ? data : data.rows;
        emit({ event: 'done', id: q.id, status: 'ok', runs: [(performance.now() - t0) / 1000], chk: { rows, sums: [] }, rss: rss() });
      } catch (e) {
        emit({ event: 'done', id: q.id, status: 'n/a', reason: firstLine(e), rss: rss() });
      }
      continue;
    }
    if (!todo.has(q.id)) continue;
    emit({ event: 'start', id: q.id });
    if (data === undefined) { emit({ event: 'done', id: q.id, status: 'n/a', reason: 'its data did not load' }); continue; }
    try {
      const runs = [];
      let a;
      for (let r = 0; r < 3; r++) {
        if (a !== undefined) await sys.drop?.(a);
        a = undefined;
        globalThis.gc?.();
        const t0 = performance.now();
        a = await sys.run(q.id, data);
        runs.push((performance.now() - t0) / 1000);
        if (runs[0] >= cfg.cheap) break;
      }
      const chk = await sys.check(a, q);
      await sys.drop?.(a);
      emit({ event: 'done', id: q.id, status: 'ok', runs, chk, rss: rss() });
    } catch (e) {
      await sys.drop?.().catch(() => {});
      emit({ event: 'done', id: q.id, status: 'n/a', reason: firstLine(e), rss: rss() });
    }
  }
  emit({ event: 'end', rss: rss() });
  await sys.close?.();
}

// ---------------------------------------------------------------------------
// The orchestrator.

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
const mib = (b) => (b === undefined ? '-' : `${Math.round(b / 2 ** 20).toLocaleString('en-US')} MiB`);

function rssNow(pid) {
  try { return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024; } catch { return 0; }
}

/**
 * One child process until it ends or is killed: its events are handed to
 * `on` as they come. Resolves to {current, killed, exit}: the id the child was
 * working on when it stopped (undefined after its 'end'), and why.
 */
function runChild(system, cfg, o, on) {
  const [cmd, args] = system === 'pandas' || system === 'dask'
    ? [PANDAS_PY, ['-c', PYTHON, JSON.stringify(cfg)]]
    : [process.execPath, ['--expose-gc', `--max-old-space-size=${Math.round(o.maxRss / 2 ** 20)}`,
      fileURLToPath(import.meta.url), '--child', JSON.stringify(cfg)]];
  return new Promise((resolve) => {
    const proc = spawn(cmd, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let current, killed, stderr = '', timer;
    const kill = (why) => { if (!killed) { killed = why; proc.kill('SIGKILL'); } };
    const arm = (id) => {
      clearTimeout(timer);
      const limit = BY_ID[id]?.load ? 2 * o.timeout : o.timeout;
      timer = setTimeout(() => kill({ status: 'TIMEOUT', reason: `no result within ${limit} s (killed)` }), limit * 1000);
    };
    arm();
    const poll = setInterval(() => {
      const rss = rssNow(proc.pid);
      if (rss > o.maxRss) kill({ status: 'error', reason: `resident memory passed ${mib(o.maxRss)} (${mib(rss)}; killed)` });
    }, 200);
    proc.stderr.on('data', (d) => { stderr = (stderr + d).slice(-4000); });
    readline.createInterface({ input: proc.stdout }).on('line', (l) => {
      let e;
      try { e = JSON.parse(l); } catch { return; }
      if (e.event === 'start') { current = e.id; arm(e.id); }
      if (e.event === 'done' || e.event === 'end') current = undefined;
      on(e);
    });
    proc.on('error', (e) => kill({ status: 'error', reason: `could not start ${cmd}: ${e.message}` }));
    proc.on('close', (code, sig) => {
      clearTimeout(timer);
      clearInterval(poll);
      const lines = stderr.trim().split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('at ') && !/^Node\.js v/.test(l));
      const tail = (lines.findLast((l) => /^\w*(Error|Exception)\b/.test(l)) ?? lines.slice(-2).join(' | ')).slice(0, 300);
      resolve({ current, killed, exit: code === 0 ? undefined : `${sig ? `killed by ${sig}` : `exit code ${code}`}${tail ? `: ${tail}` : ''}` });
    });
  });
}

/** Every row of one system: fresh processes until each query has a result. */
async function runSystem(system, cfg, o) {
  const cells = {};
  const info = { system, status: 'ok' };
  const chosen = (q) => !cfg.only || cfg.only.includes(q.id) || (q.load && QUERIES.some((p) => p.data === q.data && cfg.only.includes(p.id)));
  let todo = QUERIES.filter(chosen).map((q) => q.id);
  process.stderr.write(`dataframe: ${LABEL[system]}\n`);
  while (todo.length) {
    const r = await runChild(system, { ...cfg, system, todo }, o, (e) => {
      if (e.event === 'unavailable') Object.assign(info, { status: 'not installed', reason: e.reason });
      if (e.event === 'version') info.version = e.version;
      if (e.event === 'done') {
        const { event: _, id, ...cell } = e;
        if (cells[id]) return; // a load repeated by a fresh process after a timeout
        if (cell.status === 'ok') cell.median_s = median(cell.runs);
        cells[id] = cell;
        if (id === 'read_csv' && cell.status === 'ok') info.rss_load = cell.rss;
        const n = cell.runs?.length;
        const t = cell.status === 'ok' ? `${cell.median_s.toFixed(3)} s (${n} run${n > 1 ? 's' : ''})` : `${cell.status} (${cell.reason})`;
        process.stderr.write(`  ${id.padEnd(14)} ${t}\n`);
      }
      if (e.event === 'end') info.rss_end = e.rss;
    });
    if (info.status !== 'ok') {
      for (const id of todo) cells[id] ??= { status: 'not installed', reason: info.reason };
      process.stderr.write(`  ${info.reason}\n`);
      break;
    }
    const stuck = r.current;
    if (stuck === undefined && !r.killed && !r.exit) break;
    const why = r.killed ?? { status: 'error', reason: r.exit ?? 'the process stopped' };
    process.stderr.write(`  ${(stuck ?? '?').padEnd(14)} ${why.status} (${why.reason})\n`);
    if (stuck === undefined) { for (const id of todo) cells[id] ??= { ...why }; break; }
    // a load that failed takes its data set's queries with it
    const lost = BY_ID[stuck].load ? QUERIES.filter((q) => q.data === BY_ID[stuck].data).map((q) => q.id) : [stuck];
    for (const id of lost) cells[id] ??= id === stuck ? { ...why } : { status: 'n/a', reason: `its data did not load (${why.status})` };
    todo = todo.filter((id) => !cells[id]);
  }
  return { info, cells };
}

/** Two checks alike: equal row counts and sums equal to a relative 1e-6. */
function same(a, b) {
  const close = (u, v) => Math.abs(u - v) <= 1e-6 * Math.max(1, Math.abs(u), Math.abs(v));
  return a.rows === b.rows && a.sums.length === b.sums.length && a.sums.every((v, i) => close(v, b.sums[i]));
}

/** The rows: every system's cell per query, a check that differs from the reference marked WRONG. */
function rowsOf(results, systems) {
  return QUERIES.map((q) => {
    const cells = Object.fromEntries(systems.map((s) => [s, results[s].cells[q.id] ?? { status: 'not run' }]));
    const ref = ['pandas', 'duckdb', ...systems].find((s) => cells[s]?.status === 'ok');
    for (const s of systems) {
      const c = cells[s];
      if (c.status === 'ok' && s !== ref && !same(c.chk, cells[ref].chk)) {
        Object.assign(c, { status: 'WRONG', reason: `check ${JSON.stringify(c.chk)}, ${LABEL[ref]} ${JSON.stringify(cells[ref].chk)}` });
      }
    }
    const t = (s) => (cells[s]?.status === 'ok' ? cells[s].median_s : undefined);
    const ratio = (s) => (t('tessera') !== undefined && t(s) !== undefined ? t('tessera') / t(s) : undefined);
    return {
      type: 'dataframe', case: q.id, question: q.question, reference: ref,
      tessera_vs_pandas: ratio('pandas'), tessera_vs_duckdb: ratio('duckdb'), cells,
    };
  });
}

// ---------------------------------------------------------------------------
// The table (also rendered by bench/run.js from saved rows).

const sci = (n) => n.toExponential(0).replace('+', '');
const fmtS = (s) => (s >= 100 ? s.toFixed(0) : s >= 10 ? s.toFixed(1) : s >= 1 ? s.toFixed(2) : s >= 0.01 ? s.toFixed(3) : s.toFixed(4)) + ' s';

/** The Markdown table of the rows and systems, with its notes. */
export function dataframeText(rows, systems, meta) {
  const names = systems.map((s) => s.system);
  const reasons = new Map();
  const cite = (c, s, id) => {
    const key = `${c.status}: ${c.reason ?? ''}`;
    if (!reasons.has(key)) reasons.set(key, { n: reasons.size + 1, where: [] });
    reasons.get(key).where.push(`${LABEL[s]} ${id}`);
    return reasons.get(key).n;
  };
  const cell = (r, s) => {
    const c = r.cells[s];
    if (c.status === 'ok') return `${fmtS(c.median_s)}${c.runs.length === 1 && !BY_ID[r.case]?.load ? '¹' : ''}`;
    if (c.status === 'not run') return '—';
    const label = c.status === 'WRONG' || c.status === 'TIMEOUT' ? `**${c.status}**` : c.status;
    return `${label} [${cite(c, s, r.case)}]`;
  };
  const x = (v) => (v === undefined ? '-' : `${v.toFixed(2)}×`);
  const ratios = (vsPandas, vsDuckdb) => `${x(vsPandas)} | ${x(vsDuckdb)} |`;
  const rssRow = (label, k) => `| ${label} | ${systems.map((s) => mib(s[k])).join(' | ')} | ${ratios(ratioOf(systems, k, 'pandas'), ratioOf(systems, k, 'duckdb'))}`;
  const lines = [
    `| query | ${names.map((s) => LABEL[s]).join(' | ')} | Tessera / pandas | Tessera / DuckDB |`,
    `| --- |${names.map(() => ' ---: |').join('')} ---: | ---: |`,
    ...rows.map((r) => `| ${r.case} (${r.question.replace(/\|/g, '\\|')}) | ${names.map((s) => cell(r, s)).join(' | ')} | ${ratios(r.tessera_vs_pandas, r.tessera_vs_duckdb)}`),
    rssRow('peak RSS after read_csv', 'rss_load'),
    rssRow('peak RSS at the end', 'rss_end'),
  ];
  const versions = systems.map((s) => `${LABEL[s.system]} ${s.version ?? `(${s.status})`}`).join(', ');
  const notes = [
    `Data (bench/dbgen.py): G1 groupby table of ${sci(meta.rows)} rows, K = ${meta.k}; J1 join tables (x of ${sci(meta.rows)} rows; `
      + `small, medium, big y); ratings of ${sci(meta.ratings)} rows. Each system in a fresh process of its own, one at a time; `
      + `${meta.threads} threads for Dask, DuckDB and Tessera (pandas and arquero use one). The machine may be shared: the times are one run's, noisy.`,
    `A cell is the median of 3 runs, or ¹ of a single run where the first took ${meta.cheap} s or more; read_csv rows are one load. `
      + '"Tessera / pandas", "Tessera / DuckDB": Tessera\'s time over theirs (below 1: Tessera is faster); the same for the peak RSS rows.',
    'Check: row count and the sums of the result\'s value columns (the db-benchmark\'s chk); one that differs from pandas\' '
      + '(DuckDB\'s where pandas has none) by more than a relative 1e-6 is **WRONG**.',
    `Versions: ${versions}. Machine: ${meta.cpus} x ${meta.cpu}, ${meta.mem_gib} GiB RAM, node ${meta.node}.`,
    ...[...reasons].map(([k, { n, where }]) => `[${n}] ${k} (${where.length > 6 ? `${where.slice(0, 3).join(', ')} and ${where.length - 3} more` : where.join(', ')})`),
  ];
  return `${lines.join('\n')}\n\n${notes.map((n) => `- ${n}`).join('\n')}\n`;
}

/** Tessera's peak RSS `k` over system `other`'s, where both read the data. */
function ratioOf(systems, k, other) {
  const [t, o] = ['tessera', other].map((n) => systems.find((s) => s.system === n));
  return t?.rss_load && o?.rss_load && t[k] && o[k] ? t[k] / o[k] : undefined;
}

async function main(args) {
  const flag = (name, def) => { const i = args.indexOf(`--${name}`); return i >= 0 && args[i + 1] !== undefined ? args[i + 1] : def; };
  const known = ['rows', 'k', 'ratings', 'queries', 'systems', 'threads', 'timeout', 'cheap', 'max-rss', 'render'];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--quick') continue;
    if (!args[i].startsWith('--') || !known.includes(args[i].slice(2))) {
      process.stderr.write(`dataframe: unknown argument ${args[i]}\nusage: node bench/dataframe.js [--quick] [--rows 1e7] [--k 100] [--ratings 2e7] [--queries q1,j5,...] [--systems ${SYSTEMS.join(',')}] [--threads 2] [--timeout 300] [--cheap 5] [--max-rss 14] [--render dataframe.json]\n`);
      process.exit(2);
    }
    i++;
  }
  if (flag('render')) {
    const { meta, systems, rows } = JSON.parse(readFileSync(flag('render'), 'utf8'));
    process.stdout.write(dataframeText(rows, systems, meta));
    return;
  }
  const quick = args.includes('--quick');
  const o = { timeout: Number(flag('timeout', quick ? '120' : '300')), maxRss: Number(flag('max-rss', '14')) * 2 ** 30 };
  const systems = flag('systems', SYSTEMS.join(',')).split(',');
  const bad = systems.filter((s) => !SYSTEMS.includes(s));
  if (bad.length) { process.stderr.write(`dataframe: unknown system ${bad.join(', ')} (know ${SYSTEMS.join(', ')})\n`); process.exit(2); }
  const meta = {
    type: 'meta', date: new Date().toISOString(), command: `node bench/dataframe.js${args.length ? ` ${args.join(' ')}` : ''}`,
    rows: Number(flag('rows', quick ? '1e6' : '1e7')), k: Number(flag('k', '100')), ratings: Number(flag('ratings', quick ? '2e6' : '2e7')),
    threads: Number(flag('threads', '2')), cheap: Number(flag('cheap', '5')), timeout_s: o.timeout, max_rss_gib: o.maxRss / 2 ** 30,
    node: process.version, cpus: os.cpus().length, cpu: os.cpus()[0]?.model ?? '?', mem_gib: +(os.totalmem() / 2 ** 30).toFixed(1),
  };
  process.stdout.write(`${JSON.stringify(meta)}\n`);
  const t0 = performance.now();
  process.stderr.write(`dataframe: data (bench/dbgen.py, ${sci(meta.rows)} rows, ${sci(meta.ratings)} ratings) ...`);
  const gen = spawnSync(process.env.PYTHON ?? 'python3',
    [path.join(HERE, 'dbgen.py'), '--rows', String(meta.rows), '--k', String(meta.k), '--ratings', String(meta.ratings)],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (gen.status !== 0) { process.stderr.write(' bench/dbgen.py failed\n'); process.exit(1); }
  const made = JSON.parse(gen.stdout.trim().split('\n').at(-1));
  process.stderr.write(made.made.length ? ` wrote ${made.made.length} files in ${made.seconds} s\n` : ' present\n');
  const cfg = {
    paths: { groupby: made.groupby, join: made.join, ratings: made.ratings }, queries: QUERIES, threads: meta.threads, cheap: meta.cheap,
    only: flag('queries')?.split(','),
  };
  const unknown = (cfg.only ?? []).filter((id) => !BY_ID[id]);
  if (unknown.length) { process.stderr.write(`dataframe: unknown query ${unknown.join(', ')} (know ${QUERIES.map((q) => q.id).join(', ')})\n`); process.exit(2); }
  const results = {};
  for (const s of systems) {
    results[s] = await runSystem(s, cfg, o);
    process.stdout.write(`${JSON.stringify({ type: 'dataframe_system', ...results[s].info })}\n`);
  }
  const rows = rowsOf(results, systems).filter((r) => Object.values(r.cells).some((c) => c.status !== 'not run'));
  for (const r of rows) process.stdout.write(`${JSON.stringify(r)}\n`);
  meta.total_s = (performance.now() - t0) / 1000;
  const infos = systems.map((s) => results[s].info);
  const text = dataframeText(rows, infos, meta);
  process.stdout.write(`\n${text}`);
  const dir = path.join(HERE, 'results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'dataframe.json'), `${JSON.stringify({ meta, systems: infos, rows }, null, 2)}\n`);
  writeFileSync(path.join(dir, 'dataframe.md'), `# db-benchmark: groupby and join\n\n${meta.date}, \`${meta.command}\` (${(meta.total_s / 60).toFixed(1)} min)\n\n${text}`);
  process.stderr.write(`dataframe: done in ${(meta.total_s / 60).toFixed(1)} min; wrote bench/results/dataframe.md and dataframe.json\n`);
}

// run.js imports dataframeText from this file; only a run as a script measures.
if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const args = process.argv.slice(2);
  if (args[0] === '--child') { await jsChild(JSON.parse(args[1])); process.exit(0); } else await main(args);
}
