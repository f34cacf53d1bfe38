#!/usr/bin/env node
// The `tessera` command: the signaling server, room tokens, a headless mesh
// worker, and the demo (what `npm start` runs): a signaling server, N
// headless workers as child processes and a coordinator computing Monte
// Carlo pi on them with a progress bar.
//
//   tessera signal --port 8787 --secret S [--host 127.0.0.1]
//   tessera token --secret S --room R [--ttl 1h]
//   tessera worker --signal ws://127.0.0.1:8787 --room R --token T [--device auto|webgpu|wasm] [--memory 2GiB] [--verbose]
//   tessera demo [--peers 3] [--points 1e9] [--seed 0]
//   tessera pages [--port 8080] [--host 127.0.0.1] [--room demo] [--peers 0] [--secret S]
//   tessera knn --csv data.csv [--k 10] [--out prefix] [--workers N]
//   tessera [COMMAND] --help | -h    (usage; starts nothing)

import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import { networkInterfaces } from 'node:os';
import sirv from 'sirv';
import { fileURLToPath } from 'node:url';
import * as mt from '../api/tensor.js';
import * as md from '../dataframe/index.js';
import * as learn from '../learn/index.js';
import { progressBar } from './progress.js';
import { Session } from '../mesh/session.js';
import { volunteer } from '../mesh/volunteer.js';
import type { DeviceChoice } from '../runtime/runtime.js';

type SignalModule = typeof import('../../signaling-server/dist/server.js');
type TokenModule = typeof import('../../signaling-server/dist/token.js');
const signalServer = (): Promise<SignalModule> => import(new URL('../../signaling-server/dist/server.js', import.meta.url).href) as Promise<SignalModule>;
const tokens = (): Promise<TokenModule> => import(new URL('../../signaling-server/dist/token.js', import.meta.url).href) as Promise<TokenModule>;

/** Each command's usage, as `tessera COMMAND --help` prints it. */
const HELP = {
  signal: `tessera signal --port 8787 --secret S [--host 127.0.0.1]
  The signaling server: introduces the peers of a room to each other (WebRTC
  offers and answers) and sees nothing else. --secret (or TESSERA_SECRET) signs
  the room tokens it accepts.`,
  token: `tessera token --secret S --room R [--ttl 1h]
  Prints a token for room R, signed with the server's secret, valid for --ttl
  (30s, 10m, 1h, 7d).`,
  worker: `tessera worker --signal ws://127.0.0.1:8787 --room R --token T [--device auto|webgpu|wasm] [--memory 2GiB] \
[--verbose]
  Lends this machine to room R as a headless worker until Ctrl-C (it leaves
  gracefully). --device: wasm (default) computes on every core; webgpu runs
  float32 kernels on the GPU; auto picks WebGPU on a hardware adapter.
  --memory caps the chunk bytes it keeps. --token may come from TESSERA_TOKEN.`,
  demo: `tessera demo [--peers 3] [--points 1e9] [--seed 0]
  A signaling server, --peers headless workers and a coordinator computing
  Monte Carlo pi over them, with a progress bar (what \`npm start\` runs).`,
  pages: `tessera pages [--port 8080] [--host 127.0.0.1] [--room demo] [--peers 0] [--secret S]
  Serves the built pages (join, pi, dashboard; compressed, cross-origin
  isolated) on --port and a signaling server on the next port, and prints each
  page's link with the room and a 24 h token, and the \`tessera worker\` command
  that joins a Node peer to the same room. --host 0.0.0.0 prints links for
  other machines too; --peers starts that many headless workers as well.`,
  knn: `tessera knn --csv data.csv [--k 10] [--out prefix] [--workers N]
  Mars' nearest-neighbour example: reads the CSV (its number columns), fits
  NearestNeighbors(n_neighbors=k) and queries every row, with a progress bar;
  prints the first rows of the indices and distances, and with --out writes
  them as prefix_indices.npy and prefix_distances.npy.`,
} as const;
type Command = keyof typeof HELP;

const USAGE = `usage:
${Object.values(HELP).map((h) => `  ${h.split('\n')[0]}`).join('\n')}
  tessera [COMMAND] --help      this text, or one command's

Run \`tessera COMMAND --help\` for what a command does.`;

class UsageError extends Error {}

function flags(argv: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (!a.startsWith('--')) throw new UsageError(`unexpected argument ${JSON.stringify(a)}`);
    const next = argv[i + 1];
    if (next === undefined || next.startsWith('--')) out.set(a.slice(2), 'true');
    else { out.set(a.slice(2), next); i++; }
  }
  return out;
}

function need(f: Map<string, string>, name: string, env?: string): string {
  const v = f.get(name) ?? (env ? process.env[env] : undefined);
  if (!v || v === 'true') throw new UsageError(`--${name} is required${env ? ` (or ${env})` : ''}`);
  return v;
}

/** Bytes in `2GiB`, `512MiB`, `1e9`. */
export function parseBytes(s: string): number {
  const m = /^(\d+(?:\.\d+)?(?:e\d+)?)\s*(B|KiB|MiB|GiB|TiB|KB|MB|GB|TB)?$/i.exec(s.trim());
  if (!m) throw new UsageError(`not a size: ${JSON.stringify(s)} (try 512MiB or 2GiB)`);
  const unit = (m[2] ?? 'B').toLowerCase();
  const mult: Record<string, number> = { b: 1, kib: 2 ** 10, mib: 2 ** 20, gib: 2 ** 30, tib: 2 ** 40, kb: 1e3, mb: 1e6, gb: 1e9, tb: 1e12 };
  return Math.floor(Number(m[1]) * mult[unit]!);
}

/** A word as a POSIX shell reads it back: as is when it is plain, else single-quoted. */
const sh = (w: string): string => (/^[\w.:/=+-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`);

const fmtBytes = (n: number): string => (n >= 2 ** 20 ? `${(n / 2 ** 20).toFixed(1)} MiB` : n >= 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${n} B`);

async function signal(f: Map<string, string>): Promise<void> {
  const { startSignalServer } = await signalServer();
  const port = Number(f.get('port') ?? '8787');
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be 0-65535, got ${f.get('port')}`);
  const s = await startSignalServer({ port, host: f.get('host') ?? '127.0.0.1', secret: need(f, 'secret', 'TESSERA_SECRET') });
  console.log(`tessera signaling server on ${s.url}`);
  const stop = () => { void s.close().then(() => process.exit(0)); };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

async function token(f: Map<string, string>): Promise<void> {
  const { mintToken, parseDuration } = await tokens();
  console.log(mintToken(need(f, 'secret', 'TESSERA_SECRET'), need(f, 'room'), parseDuration(f.get('ttl') ?? '1h')));
}

async function worker(f: Map<string, string>): Promise<void> {
  const device = (f.get('device') ?? 'wasm') as DeviceChoice;
  if (!['auto', 'webgpu', 'wasm'].includes(device)) throw new UsageError(`--device must be auto, webgpu or wasm, got ${device}`);
  const memory = parseBytes(f.get('memory') ?? '2GiB');
  const log = (line: string) => console.error(`[worker] ${line}`);
  // --lie-for-tests F: corrupt a fraction F of results (tests of verification only; undocumented in the usage)
  const lie = f.has('lie-for-tests') ? Number(f.get('lie-for-tests')) : 0;
  if (!(lie >= 0 && lie <= 1)) throw new UsageError(`--lie-for-tests must be a fraction 0-1, got ${f.get('lie-for-tests')}`);
  const v = await volunteer({ signal: need(f, 'signal'), room: need(f, 'room'), token: need(f, 'token', 'TESSERA_TOKEN'), device, memory, ...(f.has('verbose') ? { log } : {}), ...(lie ? { lie } : {}) });
  const s = v.stats();
  console.error(`[worker] ${v.id} joined room ${f.get('room')}: ${s.slots} slots, ${s.throughput.toFixed(1)} M elements/s, device ${s.device}, memory cap ${fmtBytes(memory)}`);
  // said without --verbose: a worker out of the room gets no work; whoever runs it should know it tries to get back
  let outSince = 0;
  const room = f.get('room');
  v.node.onConnection((c, why) => {
    if (c === 'reconnecting') {
      outSince = Date.now();
      const reason = why ?? 'the signaling connection was lost';
      console.error(`[worker] out of room ${room}: ${reason}; reconnecting (with backoff) as ${v.id}`);
    } else if (c === 'online') {
      console.error(`[worker] back in room ${room} as ${v.id} after ${((Date.now() - outSince) / 1000).toFixed(1)} s`);
    }
  });
  const stop = async () => {
    await v.leave();
    await mt.shutdown();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
  // a worker runs until it is stopped
  setInterval(() => undefined, 1 << 30);
}

async function demo(f: Map<string, string>): Promise<void> {
  const peers = Number(f.get('peers') ?? '3');
  const N = Number(f.get('points') ?? '1e9');
  const seed = Number(f.get('seed') ?? '0');
  if (!Number.isInteger(peers) || peers < 1 || peers > 64) throw new UsageError(`--peers must be 1-64, got ${f.get('peers')}`);
  if (!Number.isInteger(N) || N <= 0) throw new UsageError(`--points must be a positive integer, got ${f.get('points')}`);
  const { startSignalServer } = await signalServer();
  const { mintToken } = await tokens();
  const secret = randomBytes(16).toString('hex');
  const room = 'demo';
  const server = await startSignalServer({ port: 0, secret, log: () => undefined });
  const tok = mintToken(secret, room, 3600);
  console.log(`signaling server on ${server.url}; starting ${peers} worker${peers > 1 ? 's' : ''}`);
  const children = spawnWorkers(peers, server.url, room, tok, 'inherit');
  const stopAll = () => { for (const c of children) c.kill('SIGTERM'); };
  // a demo stopped from outside (Ctrl-C, or a SIGTERM from a supervisor) takes its workers with it
  process.once('SIGINT', () => { stopAll(); process.exit(130); });
  process.once('SIGTERM', () => { stopAll(); process.exit(143); });
  const s = await Session.open({ signal: server.url, room, token: tok });
  try {
    await s.waitForWorkers(peers, 120_000);
    mt.random.seed(seed);
    const d = mt.random.uniform(-1, 1, [N, 2]);
    const inside = mt.sqrt(d.power(2).sum({ axis: 1 })).less(1).sum();
    const t0 = performance.now();
    const bar = progressBar();
    await inside.execute({ session: s, onProgress: bar.update });
    bar.end();
    const secs = (performance.now() - t0) / 1000;
    const pi = (4 * Number((await inside.fetch()).item())) / N;
    const rep = s.lastReport!;
    console.log(`pi ≈ ${pi} (error ${Math.abs(pi - Math.PI).toExponential(2)}) from ${N.toExponential(0)} points in ${secs.toFixed(2)} s on ${rep.peers.length} peer${rep.peers.length === 1 ? '' : 's'}`);
    for (const p of rep.peers) console.log(`  peer ${p.id}: ${p.tasks} tasks, ${fmtBytes(p.bytesIn)} fetched from other peers`);
    console.log(`  coordinator: ${fmtBytes([...s.node.traffic.values()].reduce((a, t) => a + t.sent + t.received, 0))} sent and received (tasks, heartbeats, results)`);
    if (rep.releases || rep.recomputed) console.log(`  ${rep.releases} tasks leased again, ${rep.recomputed} recomputed`);
  } finally {
    await s.close();
    stopAll();
    await server.close();
    await mt.shutdown();
  }
}

/** Starts `count` headless workers (`tessera worker`) as child processes of this one. */
function spawnWorkers(count: number, url: string, room: string, tok: string, stdio: 'inherit' | 'ignore'): ChildProcess[] {
  const script = fileURLToPath(import.meta.url);
  return Array.from({ length: count }, () => spawn(process.execPath, [script, 'worker', '--signal', url, '--room', room, '--token', tok], { stdio: ['ignore', stdio, stdio] }));
}

/**
 * The browser demo: a signaling server and the built pages (join, pi,
 * dashboard) served cross-origin isolated, with links that carry the room and
 * a token; optionally some headless workers in the room too.
 */
async function pages(f: Map<string, string>): Promise<void> {
  const root = fileURLToPath(new URL('../pages', import.meta.url));
  if (!existsSync(`${root}/join.html`)) throw new Error(`the pages are not built (${root}): run \`npm run build\``);
  const port = Number(f.get('port') ?? '8080');
  const bind = f.get('host') ?? '127.0.0.1';
  const room = f.get('room') ?? 'demo';
  const peers = Number(f.get('peers') ?? '0');
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be 0-65535, got ${f.get('port')}`);
  if (!Number.isInteger(peers) || peers < 0 || peers > 64) throw new UsageError(`--peers must be 0-64, got ${f.get('peers')}`);
  const secret = f.get('secret') ?? process.env.TESSERA_SECRET ?? randomBytes(16).toString('hex');
  const { startSignalServer } = await signalServer();
  const { mintToken } = await tokens();
  const sig = await startSignalServer({ port: port === 0 ? 0 : port + 1, host: bind, secret });
  // WASM threads share memory, which a page may only do when cross-origin isolated
  // gzip and brotli copies written at build (vite.config.ts) go to browsers that accept them; the assets'
  // names carry their content hash, so they are cached for good (a worker thread importing a chunk its
  // page already loaded then takes it from the cache rather than asking again)
  const isolate = (res: { setHeader(k: string, v: string): void }) => {
    res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
    res.setHeader('Cross-Origin-Embedder-Policy', 'require-corp');
  };
  const files = sirv(root, { dev: false, gzip: true, brotli: true, setHeaders: isolate });
  const assets = sirv(root, {
    dev: false, gzip: true, brotli: true, immutable: true, maxAge: 31_536_000, setHeaders: isolate,
  });
  const notFound = (res: import('node:http').ServerResponse) => () => { res.statusCode = 404; res.end('not found'); };
  const web = createServer((req, res) => (req.url?.startsWith('/assets/') ? assets : files)(req, res, notFound(res)));
  await new Promise<void>((r, j) => { web.once('error', j); web.listen(port, bind, r); });
  const webPort = (web.address() as { port: number }).port;
  // addresses other machines can use when listening on every interface
  const hosts = bind === '0.0.0.0' || bind === '::'
    ? ['127.0.0.1', ...Object.values(networkInterfaces()).flat().filter((i) => i && i.family === 'IPv4' && !i.internal).map((i) => i!.address)]
    : [bind];
  const tok = mintToken(secret, room, 24 * 3600);
  console.log(`tessera pages: room ${room}, signaling server ${sig.url}, token valid 24 h`);
  for (const h of hosts) {
    const q = `?signal=${encodeURIComponent(`ws://${h}:${new URL(sig.url).port}`)}&room=${encodeURIComponent(room)}&token=${encodeURIComponent(tok)}`;
    console.log(`\n  from ${h === '127.0.0.1' ? 'this machine' : `other machines (${h})`}:`);
    for (const page of ['join', 'pi', 'frame', 'dashboard']) console.log(`    ${page.padEnd(9)} http://${h}:${webPort}/${page}.html${q}`);
    const signalAt = `ws://${h}:${new URL(sig.url).port}`;
    console.log(`    ${'worker'.padEnd(9)} npx tessera worker --signal ${signalAt} --room ${sh(room)} --token ${sh(tok)}`);
  }
  if (hosts.length > 1) console.log('\n  (over plain http a page from another machine is not a secure context: it computes on one thread without WebGPU; serve it over https for both)');
  const children = spawnWorkers(peers, sig.url, room, tok, 'ignore');
  if (peers) console.log(`\n  ${peers} headless worker${peers > 1 ? 's' : ''} joined the room too`);
  console.log('\nOpen the join page in a few tabs or browsers (or run the worker line on machines with Node),'
    + ' then the pi page; Ctrl-C stops.');
  const stop = () => { for (const c of children) c.kill('SIGTERM'); web.close(); void sig.close().then(() => process.exit(0)); };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

/** `tessera knn`: the seed's KNN program on a CSV, with a progress bar. */
async function knn(f: Map<string, string>): Promise<void> {
  const file = need(f, 'csv');
  const k = Number(f.get('k') ?? '10');
  if (!Number.isInteger(k) || k < 1) throw new UsageError(`--k must be a positive integer, got ${f.get('k')}`);
  if (f.has('workers')) mt.options.workers = Number(f.get('workers'));
  const t0 = performance.now();
  const df = await md.read_csv(file);
  const [rows, cols] = df.shape;
  console.log(`read ${file}: ${rows} rows x ${cols} columns in ${((performance.now() - t0) / 1000).toFixed(2)} s`);
  const bar = progressBar();
  mt.options.onProgress = bar.update;
  const t1 = performance.now();
  const nn = await new learn.neighbors.NearestNeighbors({ n_neighbors: k }).fit(df);
  const [dist, ind] = await nn.kneighbors(df);
  bar.end();
  mt.options.onProgress = undefined;
  console.log(`kneighbors of ${rows} rows, k = ${k}: ${((performance.now() - t1) / 1000).toFixed(2)} s`);
  console.log(`indices:\n${String(await ind!.get(mt.slice(0, 3)).fetch())}`);
  console.log(`distances:\n${String(await dist!.get(mt.slice(0, 3)).fetch())}`);
  const out = f.get('out');
  if (out && out !== 'true') {
    await mt.save(`${out}_indices.npy`, ind!);
    await mt.save(`${out}_distances.npy`, dist!);
    console.log(`wrote ${out}_indices.npy and ${out}_distances.npy`);
  }
  await mt.shutdown();
}

const wantsHelp = (a: string) => a === '--help' || a === '-h';

async function main(argv: readonly string[]): Promise<void> {
  const [cmd, ...rest] = argv;
  // help starts nothing, wherever it stands among the flags
  if (cmd !== undefined && (wantsHelp(cmd) || (cmd === 'help' && rest.length === 0))) return void console.log(USAGE);
  if (cmd === 'help' || (cmd !== undefined && cmd in HELP && rest.some(wantsHelp))) {
    const which = cmd === 'help' ? rest[0]! : cmd;
    if (!(which in HELP)) throw new UsageError(`unknown command ${JSON.stringify(which)}`);
    return void console.log(`usage: ${HELP[which as Command]}`);
  }
  const f = flags(rest);
  switch (cmd) {
    case 'signal': return signal(f);
    case 'token': return token(f);
    case 'worker': return worker(f);
    case 'demo': case undefined: return demo(f);
    case 'pages': return pages(f);
    case 'knn': return knn(f);
    default: throw new UsageError(`unknown command ${JSON.stringify(cmd)}`);
  }
}

main(process.argv.slice(2)).catch((e: Error) => {
  if (e instanceof UsageError) console.error(`tessera: ${e.message}\n${USAGE}`);
  else console.error(`tessera: ${e.message}`);
  process.exit(e instanceof UsageError ? 2 : 1);
});
