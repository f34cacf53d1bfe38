// The demo pages in real Chromium: the built pages (`npm run build` runs
// `vite build` on demo/, whose pages import only the public `tessera`
// package), served by `vite preview` cross-origin
// isolated on localhost, and headless Chromium (Debian's, through
// playwright-core, WebGPU on SwiftShader) opens them. Two tabs on the join
// page and one headless Node peer (`tessera worker`) make the room's
// workers; a third tab opens the pi page and coordinates 1e8 points over
// them: its count must equal the local run's for the same seed, also when
// one join tab is closed mid-job. A dashboard tab must list the peers. The
// three pages' screenshots go to test/artifacts/. The pages' weight is
// pages-weight.test.ts's; their controls, pages-controls.test.ts's.

import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type Browser, type BrowserContext, type Page, chromium } from 'playwright-core';
import { type PreviewServer, preview } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as mt from '../src/api/tensor.js';
import { type SignalServer, startSignalServer } from '../signaling-server/server.js';
import { mintToken } from '../signaling-server/token.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = `${ROOT}dist/cli/tessera.js`;
const ARTIFACTS = `${ROOT}test/artifacts`;
const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'];
const SECRET = 'pages-test';
const ROOM = 'pages';
const N = 100_000_000;

let signal: SignalServer;
let web: PreviewServer;
let browser: Browser;
let ctx: BrowserContext;
let base: string;
let query: string;
const node: ChildProcess[] = [];
const errors: string[] = [];

/** The local executor's count for the pi page's program (the README's, chunkSize 1e6). */
async function localCount(seed: number, n = N): Promise<number> {
  mt.random.seed(seed);
  const d = mt.random.uniform(-1, 1, [n, 2], { chunkSize: 1_000_000 });
  return Number((await mt.sqrt(d.power(2).sum({ axis: 1 })).less(1).sum().fetch()).item());
}

async function open(page: string, extra = '', q = query): Promise<Page> {
  const p = await ctx.newPage();
  p.on('pageerror', (e) => errors.push(`${page}: ${e.message}`));
  p.on('console', (m) => { if (m.type() === 'error') errors.push(`${page}: ${m.text()}`); });
  p.on('response', (r) => { if (r.status() >= 400) errors.push(`${page}: ${r.status()} for ${r.url()}`); });
  await p.goto(`${base}${page}.html${q}${extra}`);
  return p;
}

const joined = (p: Page) => p.waitForFunction(() => (window as unknown as { tessera?: unknown }).tessera !== undefined, undefined, { timeout: 90_000 });
const status = (p: Page) => p.textContent('#status');

beforeAll(async () => {
  if (!existsSync(`${ROOT}dist/pages/join.html`)) throw new Error('the pages are not built: run `npm run build` first');
  web = await preview({ configFile: `${ROOT}vite.config.ts`, logLevel: 'error', preview: { host: '127.0.0.1', port: 0 } });
  base = web.resolvedUrls!.local[0]!;
  signal = await startSignalServer({ port: 0, secret: SECRET, log: () => undefined });
  const token = mintToken(SECRET, ROOM, 3600);
  query = `?signal=${encodeURIComponent(signal.url)}&room=${ROOM}&token=${encodeURIComponent(token)}`;
  browser = await chromium.launch({
    executablePath: CHROMIUM.find((p) => existsSync(p)),
    args: ['--enable-unsafe-webgpu', '--enable-features=Vulkan', '--use-vulkan=swiftshader', '--use-webgpu-adapter=swiftshader', '--disable-vulkan-surface', '--no-sandbox'],
  });
  ctx = await browser.newContext({ viewport: { width: 1000, height: 900 } });
  const c = spawn(process.execPath, [CLI, 'worker', '--signal', signal.url, '--room', ROOM, '--token', token, '--memory', '1GiB'], { stdio: ['ignore', 'ignore', 'pipe'] });
  c.stderr!.on('data', () => undefined);
  node.push(c);
  mkdirSync(ARTIFACTS, { recursive: true });
}, 120_000);

afterAll(async () => {
  for (const c of node) c.kill('SIGKILL');
  await browser?.close();
  await signal?.close();
  await new Promise((r) => web?.httpServer.close(r));
  await mt.shutdown();
});

describe('the demo pages in headless Chromium', () => {
  let joinA: Page, joinB: Page, pi: Page, dash: Page;

  it('two join tabs become workers, one on WebGPU (SwiftShader), one on WASM threads', async () => {
    joinA = await open('join', '&device=webgpu');
    joinB = await open('join', '&device=wasm');
    await Promise.all([joined(joinA), joined(joinB)]);
    expect(await status(joinA)).toMatch(/working in room/);
    const [a, b] = await Promise.all([joinA, joinB].map((p) => p.evaluate(() => (window as unknown as { tessera: { stats: () => { device: string; slots: number; host: string; throughput: number } } }).tessera.stats())));
    expect(a!.host).toBe('browser');
    expect(a!.device.toLowerCase()).toMatch(/swiftshader/);
    expect(b!.device).toBe('wasm');
    // cross-origin isolated, so the tab's WASM runs on a pool of threads, not inline
    expect(b!.slots).toBeGreaterThanOrEqual(1);
    expect(await joinB.evaluate(() => crossOriginIsolated)).toBe(true);
    expect(b!.throughput).toBeGreaterThan(0);
  }, 120_000);

  it('the pi page coordinates 1e8 points over two tabs and a Node peer: the local count, exactly', async () => {
    dash = await open('dashboard');
    pi = await open('pi');
    await pi.waitForFunction(() => document.getElementById('workers')?.textContent === '3 workers', undefined, { timeout: 60_000 });
    const want = await localCount(7);
    const got = await pi.evaluate(() => (window as unknown as { runPi: (n: number, s: number) => Promise<{ inside: number; pi: number; workers: number }> }).runPi(100_000_000, 7));
    expect(got.inside).toBe(want);
    expect(Math.abs(got.pi - Math.PI)).toBeLessThan(6 * Math.sqrt((Math.PI * (4 - Math.PI)) / N));
    // every peer got work: the join tabs report tasks done
    for (const p of [joinA, joinB]) await p.waitForFunction(() => (window as unknown as { tessera: { stats: () => { tasks: number } } }).tessera.stats().tasks > 0, undefined, { timeout: 5000 });
    // the dashboard lists the three workers and the pi tab's finished job
    await dash.waitForFunction(() => {
      const v = (window as unknown as { tessera?: { view: { peers: () => { role: string; linked: boolean }[]; jobs: () => { state?: string }[] } } }).tessera?.view;
      return !!v && v.peers().filter((p) => p.role === 'worker' && p.linked).length === 3 && v.jobs().some((j) => j.state === 'finished');
    }, undefined, { timeout: 30_000 });
    expect(await dash.locator('#peers tr').count()).toBeGreaterThanOrEqual(4); // 3 workers and the coordinator
    await dash.screenshot({ path: `${ARTIFACTS}/dashboard.png`, fullPage: true });
    await pi.screenshot({ path: `${ARTIFACTS}/pi.png`, fullPage: true });
    await joinB.screenshot({ path: `${ARTIFACTS}/join.png`, fullPage: true });
  }, 240_000);

  it('the DataFrame page groups a CSV over the room\'s workers: pandas\' groupby, as the local run gives it', async () => {
    // 60,000 rows, 12 groups, in chunks of 5,000 rows: the folds are tasks on the workers
    const rows = Array.from({ length: 60_000 }, (_, i) => `${['ant', 'bee', 'cat', 'dog', 'eel', 'fox', 'gnu', 'hen', 'ibis', 'jay', 'koi', 'lynx'][(i * 7) % 12]},${(i % 97) * 0.25},${i % 5}`);
    const csv = `k,v,w\n${rows.join('\n')}\n`;
    const { md } = await import('../src/index.js');
    const local = await (md.read_csv(new TextEncoder().encode(csv), { chunkSize: 5000 }).groupby('k').agg({ v: ['count', 'sum', 'mean', 'min', 'max'] }) as unknown as Promise<import('../src/dataframe/index.js').DataFrame>);
    const want = await local.fetch();
    const frame = await open('frame');
    await frame.waitForFunction(() => /^[1-9] workers?$/.test(document.getElementById('workers')?.textContent ?? ''), undefined, { timeout: 60_000 });
    const got = await frame.evaluate(async (text) => {
      const w = window as unknown as { loadCsv: (f: Blob, o: object) => Promise<void>; runGroupby: (k: string, v: string) => Promise<{ groups: number; columns: string[]; index: unknown[]; values: Record<string, unknown[]> }> };
      await w.loadCsv(new Blob([text]), { chunkSize: 5000 });
      return w.runGroupby('k', 'v');
    }, csv);
    expect(got.groups).toBe(12);
    expect(got.index).toEqual(want.index);
    expect(got.columns).toEqual(want.columns);
    for (const c of want.columns) expect(got.values[c], c).toEqual(want.get(c).map((v) => (typeof v === 'bigint' ? Number(v) : v)));
    expect(await frame.locator('#result tr').count()).toBe(13);
    await frame.screenshot({ path: `${ARTIFACTS}/frame.png`, fullPage: true });
  }, 180_000);

  it('closing a join tab mid-job still yields the local count', async () => {
    const want = await localCount(11);
    const run = pi.evaluate(() => (window as unknown as { runPi: (n: number, s: number) => Promise<{ inside: number }> }).runPi(100_000_000, 11));
    // close one worker tab once the job is under way
    await pi.waitForFunction(() => Number((document.getElementById('progress') as HTMLProgressElement).value) > 0.2, undefined, { timeout: 120_000, polling: 50 });
    await joinA.close();
    const got = await run;
    expect(got.inside).toBe(want);
    await pi.waitForFunction(() => document.getElementById('workers')?.textContent === '2 workers', undefined, { timeout: 30_000 });
    expect(errors).toEqual([]);
  }, 240_000);
});

describe('a mesh of browser tabs alone', () => {
  it('two join tabs and a pi tab need only the signaling server', async () => {
    const q = `?signal=${encodeURIComponent(signal.url)}&room=tabs&token=${encodeURIComponent(mintToken(SECRET, 'tabs', 600))}`;
    const tabs = [await open('join', '', q), await open('join', '', q)];
    await Promise.all(tabs.map(joined));
    const pi = await open('pi', '', q);
    await pi.waitForFunction(() => document.getElementById('workers')?.textContent === '2 workers', undefined, { timeout: 60_000 });
    const got = await pi.evaluate(() => (window as unknown as { runPi: (n: number, s: number) => Promise<{ inside: number; workers: number }> }).runPi(20_000_000, 5));
    expect(got.inside).toBe(await localCount(5, 20_000_000));
    // both tabs worked (a tab's worker reports its numbers twice a second)
    for (const t of tabs) await t.waitForFunction(() => (window as unknown as { tessera: { stats: () => { tasks: number } } }).tessera.stats().tasks > 0, undefined, { timeout: 5000 });
    await Promise.all([pi.close(), ...tabs.map((t) => t.close())]);
  }, 180_000);
});

describe('`tessera pages`, as a new user runs it', () => {
  it('serves the pages, prints their URLs, and a join page opened in another browser shows on the dashboard within seconds', async () => {
    const cli = spawn(process.execPath, [CLI, 'pages', '--port', '0', '--room', 'newcomer'], { stdio: ['ignore', 'pipe', 'pipe'] });
    node.push(cli);
    let out = '';
    cli.stdout!.on('data', (d) => { out += d; });
    cli.stderr!.on('data', () => undefined);
    const t0 = Date.now();
    while (!/dashboard\s+http/.test(out) && Date.now() - t0 < 30_000) await new Promise((r) => setTimeout(r, 100));
    const link = (page: string) => new RegExp(`${page}\\s+(http\\S+)`).exec(out)?.[1];
    expect(link('join'), out).toBeDefined();
    expect(link('pi')).toBeDefined();
    const dashboard = await (await browser.newContext()).newPage();
    await dashboard.goto(link('dashboard')!);
    await dashboard.waitForFunction(() => /watching room newcomer/.test(document.getElementById('status')?.textContent ?? ''), undefined, { timeout: 30_000 });
    // a second browser (its own context: no shared storage or workers) opens the join page
    const volunteer = await (await browser.newContext()).newPage();
    await volunteer.goto(link('join')!);
    await joined(volunteer);
    const id = await volunteer.evaluate(() => (window as unknown as { tessera: { stats: () => { id: string } } }).tessera.stats().id);
    const seen = Date.now();
    await dashboard.waitForFunction((peer) => [...document.querySelectorAll('#peers tr')].some((tr) => tr.textContent!.includes(peer.slice(0, 6)) && tr.textContent!.includes('worker')), id, { timeout: 10_000 });
    expect(Date.now() - seen).toBeLessThan(10_000);
    cli.kill('SIGTERM');
  }, 120_000);
});
