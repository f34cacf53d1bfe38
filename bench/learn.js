#!/usr/bin/env node
// learn beside scikit-learn (issue 33's benchmark): the seed's KNN
// (NearestNeighbors(n_neighbors=10).fit(X).kneighbors(X) over 200,000 x 10
// float64), KMeans on 1e6 x 10 (k = 8), LogisticRegression on 1e6 x 20 and
// PCA of 1e6 x 50 to 10 components, on the same data (written once as .npy
// files into bench/data/learn/ by /usr/bin/python3 with NumPy and
// scikit-learn's generators).
//
// Each (system, case) runs in a fresh process of its own, one at a time:
// scikit-learn through /usr/bin/python3 (its KNN twice: brute force with
// n_jobs=-1 and the k-d tree), Tessera through this script with --child.
// A process loads its data (not timed), runs the case, and prints one JSON
// line: the seconds of the fit (and the query), its peak RSS (getrusage's
// ru_maxrss, so the data's own size counts), and what the check compares:
// the KNN's indices and distances (written to an .npy file, compared here
// row by row with scikit-learn brute force's: identical neighbours, ties
// aside, is the target), KMeans' inertia, the logistic coefficients, the
// PCA's explained variance ratios. A case is timed once (these take seconds
// to minutes); --runs 3 takes the median of three. --device webgpu sets
// Tessera's options.device (the KNN then screens on the GPU: a GPU's first
// run includes opening it and compiling the shader, so take --runs 3).
//
//   npm run build && node bench/learn.js [--quick] [--only knn,kmeans,logistic,pca]
//                     [--systems sklearn,tessera] [--timeout 900] [--runs 1] [--device webgpu]
//
// Output: one JSON line per cell, then the Markdown table; bench/results/learn.{json,md}.

import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '..');
const PY = '/usr/bin/python3';
const DATA = path.join(HERE, 'data', 'learn');

/** The cases and their sizes (--quick: a tenth of the rows). */
const CASES = (quick) => {
  const s = quick ? 10 : 1;
  return [
    { id: 'knn', what: `NearestNeighbors(n_neighbors=10).fit(X).kneighbors(X), ${2e5 / s} x 10`, n: 2e5 / s, d: 10 },
    { id: 'kmeans', what: `KMeans(n_clusters=8, n_init=10).fit(X), ${1e6 / s} x 10`, n: 1e6 / s, d: 10 },
    { id: 'logistic', what: `LogisticRegression().fit(X, y), ${1e6 / s} x 20`, n: 1e6 / s, d: 20 },
    { id: 'pca', what: `PCA(n_components=10).fit(X), ${1e6 / s} x 50`, n: 1e6 / s, d: 50 },
  ];
};

// ---------------------------------------------------------------------------
// The data, written once.

const GEN = String.raw`
import json, os, sys
import numpy as np
from sklearn.datasets import make_blobs, make_classification
cfg = json.loads(sys.argv[1])
os.makedirs(cfg['dir'], exist_ok=True)
for c in cfg['cases']:
    path = os.path.join(cfg['dir'], f"{c['id']}_{int(c['n'])}.npz")
    if os.path.exists(path):
        continue
    n, d = int(c['n']), c['d']
    rng = np.random.default_rng(42)
    y = np.zeros(1)
    if c['id'] == 'knn':
        X = rng.random((n, d))
    elif c['id'] == 'kmeans':
        X, y = make_blobs(n_samples=n, n_features=d, centers=8, cluster_std=2.0, random_state=42)
    elif c['id'] == 'logistic':
        X, y = make_classification(n_samples=n, n_features=d, n_informative=10, random_state=42)
    else:
        X = rng.normal(size=(n, d)) @ rng.normal(size=(d, d)) + rng.normal(size=d)
    np.save(path[:-4] + '_X.npy', np.ascontiguousarray(X, dtype=np.float64))
    np.save(path[:-4] + '_y.npy', y.astype(np.float64))
    open(path, 'w').close()
`;

// ---------------------------------------------------------------------------
// scikit-learn's side: one case per process.

const SKLEARN = String.raw`
import json, resource, sys, time
import numpy as np
import sklearn
cfg = json.loads(sys.argv[1])
X = np.load(cfg['X'])
y = np.load(cfg['y'])
case, variant = cfg['case'], cfg['variant']
def run():
    t = time.perf_counter()
    if case == 'knn':
        from sklearn.neighbors import NearestNeighbors
        d, i = NearestNeighbors(n_neighbors=10, algorithm=variant, n_jobs=-1).fit(X).kneighbors(X)
        np.save(cfg['out'] + '_ind.npy', i.astype(np.int64)); np.save(cfg['out'] + '_dist.npy', d)
        chk = {'dist_sum': float(d.sum())}
    elif case == 'kmeans':
        from sklearn.cluster import KMeans
        m = KMeans(n_clusters=8, n_init=10, random_state=0).fit(X)
        chk = {'inertia': float(m.inertia_), 'n_iter': int(m.n_iter_)}
    elif case == 'logistic':
        from sklearn.linear_model import LogisticRegression
        m = LogisticRegression().fit(X, y)
        np.save(cfg['out'] + '_coef.npy', np.concatenate([m.coef_.ravel(), m.intercept_]))
        chk = {'coef_sum': float(m.coef_.sum())}
    else:
        from sklearn.decomposition import PCA
        m = PCA(n_components=10).fit(X)
        chk = {'ratio_sum': float(m.explained_variance_ratio_.sum()), 'first_ratio': float(m.explained_variance_ratio_[0])}
    return time.perf_counter() - t, chk
runs = []
for _ in range(cfg['runs']):
    s, chk = run(); runs.append(s)
print(json.dumps({'runs': runs, 'chk': chk, 'rss': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024, 'version': sklearn.__version__}))
`;

/** Tessera's side (this script with --child): one case. */
async function child(cfg) {
  const { mt, learn } = await import(pathToFileURL(path.join(ROOT, 'dist', 'index.js')).href);
  mt.options.device = cfg.device ?? 'wasm';
  const X = await (await mt.load(cfg.X)).execute();
  const y = await (await mt.load(cfg.y)).execute();
  const run = async () => {
    const t = performance.now();
    let chk;
    if (cfg.case === 'knn') {
      const [d, i] = await (await new learn.neighbors.NearestNeighbors({ n_neighbors: 10 }).fit(X)).kneighbors(X);
      await mt.save(`${cfg.out}_ind.npy`, i); await mt.save(`${cfg.out}_dist.npy`, d);
      chk = { dist_sum: Number(await mt.sum(d).item()) };
    } else if (cfg.case === 'kmeans') {
      const m = await new learn.cluster.KMeans({ n_clusters: 8, n_init: 10, random_state: 0 }).fit(X);
      chk = { inertia: m.inertia_, n_iter: m.n_iter_ };
    } else if (cfg.case === 'logistic') {
      const m = await new learn.linear_model.LogisticRegression().fit(X, y);
      await mt.save(`${cfg.out}_coef.npy`, mt.concatenate([mt.reshape(m.coef_, [-1]), m.intercept_]));
      chk = { coef_sum: Number(await mt.sum(m.coef_).item()) };
    } else {
      const m = await new learn.decomposition.PCA({ n_components: 10 }).fit(X);
      chk = { ratio_sum: Number(await mt.sum(m.explained_variance_ratio_).item()), first_ratio: Number(await m.explained_variance_ratio_.get(0).item()) };
    }
    return [(performance.now() - t) / 1000, chk];
  };
  const runs = [];
  let chk;
  for (let r = 0; r < cfg.runs; r++) { const [s, c] = await run(); runs.push(s); chk = c; }
  const commit = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).stdout?.trim();
  process.stdout.write(`${JSON.stringify({ runs, chk, rss: process.resourceUsage().maxRSS * 1024, version: commit })}\n`);
  await mt.shutdown?.();
}

// ---------------------------------------------------------------------------

/** Runs one (system, case) process; its JSON line, or {status, reason}. */
function runOne(system, variant, c, paths, o) {
  const out = path.join(DATA, `out_${system}_${variant}_${c.id}`);
  const cfg = { case: c.id, variant, X: paths.X, y: paths.y, out, runs: o.runs, device: o.device };
  const [cmd, args] = system === 'sklearn' ? [PY, ['-c', SKLEARN, JSON.stringify(cfg)]]
    : [process.execPath, [fileURLToPath(import.meta.url), '--child', JSON.stringify(cfg)]];
  return new Promise((resolve) => {
    const p = spawn(cmd, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '', stderr = '';
    p.stdout.on('data', (d) => { stdout += d; });
    p.stderr.on('data', (d) => { stderr = (stderr + d).slice(-4000); });
    const timer = setTimeout(() => { p.kill('SIGKILL'); }, o.timeout * 1000);
    p.on('exit', (code, sig) => {
      clearTimeout(timer);
      const line = stdout.trim().split('\n').at(-1);
      if (code === 0 && line) return resolve({ status: 'ok', out, ...JSON.parse(line) });
      const why = sig === 'SIGKILL' ? 'TIMEOUT' : 'error';
      resolve({ status: why, reason: why === 'TIMEOUT' ? `past ${o.timeout} s` : (stderr.trim().split('\n').at(-1) ?? `exit ${code}`) });
    });
  });
}

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };

/** How Tessera's answer compares with scikit-learn's (brute force's for the KNN). */
async function compare(c, tess, ref) {
  if (tess.status !== 'ok' || ref?.status !== 'ok') return undefined;
  if (c.id === 'knn' || c.id === 'logistic') {
    const { mt } = await import(pathToFileURL(path.join(ROOT, 'dist', 'index.js')).href);
    if (c.id === 'logistic') {
      const [a, b] = [await mt.load(`${tess.out}_coef.npy`), await mt.load(`${ref.out}_coef.npy`)];
      return { max_abs_coef_diff: Number(await mt.max(mt.abs(mt.subtract(a, b))).item()) };
    }
    const [ia, ib] = [await mt.load(`${tess.out}_ind.npy`), await mt.load(`${ref.out}_ind.npy`)];
    const [da, db] = [await mt.load(`${tess.out}_dist.npy`), await mt.load(`${ref.out}_dist.npy`)];
    const rowsSame = Number(await mt.sum(mt.all(mt.equal(ia, ib), { axis: 1 })).item());
    const maxDist = Number(await mt.max(mt.abs(mt.subtract(da, db))).item());
    await mt.shutdown?.();
    return { rows_identical: rowsSame, rows: ia.shape[0], max_abs_dist_diff: maxDist };
  }
  if (c.id === 'kmeans') return { inertia_ratio: tess.chk.inertia / ref.chk.inertia };
  return { ratio_sum_diff: tess.chk.ratio_sum - ref.chk.ratio_sum };
}

const fmt = (s) => (s >= 100 ? s.toFixed(0) : s >= 10 ? s.toFixed(1) : s >= 1 ? s.toFixed(2) : s.toFixed(3));
const mib = (b) => `${Math.round(b / 2 ** 20).toLocaleString('en-US')} MiB`;

function table(rows, meta) {
  const lines = ['| case | scikit-learn | Tessera | Tessera / best scikit-learn | check | peak RSS (sklearn, Tessera) |', '| --- | ---: | ---: | ---: | --- | ---: |'];
  for (const r of rows) {
    const cell = (x) => (x?.status === 'ok' ? `${fmt(x.median_s)} s` : `**${x?.status ?? 'not run'}**${x?.reason ? ` (${String(x.reason).slice(0, 60)})` : ''}`);
    const sk = r.sklearn.map((x) => `${cell(x)}${x.variant !== 'default' ? ` (${x.variant})` : ''}`).join(', ');
    const best = Math.min(...r.sklearn.filter((x) => x.status === 'ok').map((x) => x.median_s));
    const ratio = r.tessera?.status === 'ok' && Number.isFinite(best) ? `${(r.tessera.median_s / best).toFixed(2)}×` : '-';
    const chk = r.check ? Object.entries(r.check).map(([k, v]) => `${k} ${typeof v === 'number' && !Number.isInteger(v) ? v.toExponential(2) : v}`).join(', ') : '-';
    const rss = [r.sklearn[0], r.tessera].map((x) => (x?.status === 'ok' ? mib(x.rss) : '-')).join(', ');
    lines.push(`| ${r.what} | ${sk} | ${cell(r.tessera)} | ${ratio} | ${chk} | ${rss} |`);
  }
  return `${lines.join('\n')}\n\n- ${meta.date}, \`${meta.command}\`, Tessera ${meta.tessera ?? '?'}, scikit-learn ${meta.sklearn ?? '?'}; ${meta.cpus} x ${meta.cpu}, node ${meta.node}. Each cell one process; time of the fit (and query), the data loaded before; median of ${meta.runs} run(s).\n`;
}

async function main(args) {
  const flag = (name, def) => { const i = args.indexOf(`--${name}`); return i >= 0 && args[i + 1] !== undefined ? args[i + 1] : def; };
  const quick = args.includes('--quick');
  const o = { timeout: Number(flag('timeout', '900')), runs: Number(flag('runs', '1')), device: flag('device', 'wasm') };
  const only = flag('only')?.split(',');
  const systems = flag('systems', 'sklearn,tessera').split(',');
  const cases = CASES(quick).filter((c) => !only || only.includes(c.id));
  if (!cases.length) { process.stderr.write(`learn: no case matches --only ${only}\n`); process.exit(2); }
  const meta = { type: 'meta', date: new Date().toISOString(), command: `node bench/learn.js${args.length ? ` ${args.join(' ')}` : ''}`, runs: o.runs, cpus: os.cpus().length, cpu: os.cpus()[0]?.model ?? '?', node: process.version };
  process.stdout.write(`${JSON.stringify(meta)}\n`);
  if (!existsSync(path.join(ROOT, 'dist', 'index.js'))) { process.stderr.write('learn: not built (npm run build)\n'); process.exit(1); }
  process.stderr.write('learn: data (bench/data/learn) ...');
  const gen = spawnSync(PY, ['-c', GEN, JSON.stringify({ dir: DATA, cases })], { stdio: ['ignore', 'inherit', 'inherit'] });
  if (gen.status !== 0) { process.stderr.write(' failed\n'); process.exit(1); }
  process.stderr.write(' ready\n');
  const rows = [];
  for (const c of cases) {
    const paths = { X: path.join(DATA, `${c.id}_${c.n}_X.npy`), y: path.join(DATA, `${c.id}_${c.n}_y.npy`) };
    const row = { type: 'learn', case: c.id, what: c.what, sklearn: [], tessera: undefined };
    const variants = c.id === 'knn' ? ['brute', 'kd_tree'] : ['default'];
    for (const s of systems) {
      for (const v of s === 'sklearn' ? variants : ['default']) {
        process.stderr.write(`learn: ${c.id} ${s}${v !== 'default' ? ` (${v})` : ''} ...`);
        const r = await runOne(s, v, c, paths, o);
        if (r.status === 'ok') r.median_s = median(r.runs);
        r.variant = v;
        process.stderr.write(r.status === 'ok' ? ` ${fmt(r.median_s)} s, ${mib(r.rss)}\n` : ` ${r.status} (${r.reason})\n`);
        if (s === 'sklearn') { row.sklearn.push(r); meta.sklearn = r.version ?? meta.sklearn; } else { row.tessera = r; meta.tessera = r.version ?? meta.tessera; }
      }
    }
    row.check = await compare(c, row.tessera, row.sklearn[0]);
    rows.push(row);
    process.stdout.write(`${JSON.stringify(row)}\n`);
  }
  const text = table(rows, meta);
  process.stdout.write(`\n${text}`);
  const dir = path.join(HERE, 'results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'learn.json'), `${JSON.stringify({ meta, rows }, null, 2)}\n`);
  writeFileSync(path.join(dir, 'learn.md'), `# learn beside scikit-learn\n\n${text}`);
}

if (process.argv[2] === '--child') await child(JSON.parse(process.argv[3]));
else await main(process.argv.slice(2));
