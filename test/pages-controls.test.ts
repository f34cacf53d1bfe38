// The pages' controls in real Chromium (headless, Debian's, through
// playwright-core), on the built pages served by `vite preview`: the join
// page's Pause (a job then runs and the paused tab takes no task), Resume
// (it takes tasks again) and Leave (done at once, not by the 5 s fallback;
// the tab is out of the room), the pi page's Cancel (the job stops, the page
// says so, the workers stop computing it), a job whose coordinator tab
// closed (the dashboard marks it, and its cards do not follow it), a
// volunteer's contribution across a reload, the 390 px layout of the three
// pages (nothing scrolls sideways; screenshots go to test/artifacts/), and
// what the pages say when the signaling server is gone.

import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type Browser, type BrowserContext, type Page, chromium } from 'playwright-core';
import { type PreviewServer, preview } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SignalServer, startSignalServer } from '../signaling-server/server.js';
import { mintToken } from '../signaling-server/token.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ARTIFACTS = `${ROOT}test/artifacts`;
const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'];
const SECRET = 'controls-test';
const ROOM = 'controls';

let signal: SignalServer;
let signalClosed = false;
let web: PreviewServer;
let browser: Browser;
let ctx: BrowserContext;
let base: string;
let query: string;
const errors: string[] = [];

interface Stats { tasks: number; running: number; paused: boolean; links: number }
type Win = { tessera: { stats: () => Stats }; runPi: (n: number, s: number) => Promise<{ inside: number; workers: number }> };

async function open(page: string, extra = ''): Promise<Page> {
  const p = await ctx.newPage();
  p.on('pageerror', (e) => errors.push(`${page}: ${e.message}`));
  p.on('console', (m) => { if (m.type() === 'error') errors.push(`${page}: ${m.text()}`); });
  await p.goto(`${base}${page}.html${query}${extra}`);
  return p;
}

const joined = (p: Page) =>
  p.waitForFunction(() => (window as unknown as { tessera?: unknown }).tessera !== undefined, undefined, { timeout: 90_000 });
const stats = (p: Page) => p.evaluate(() => (window as unknown as Win).tessera.stats());
/** Waits until the page's stats pass `test`. */
const until = (p: Page, test: (s: Stats) => boolean, timeout = 5000) =>
  expect.poll(async () => test(await stats(p)), { timeout }).toBe(true);
const workersShown = (p: Page, n: number) => p.waitForFunction((want) => document.getElementById('workers')?.textContent === want,
  `${n} worker${n === 1 ? '' : 's'}`, { timeout: 30_000 });
const progressOver = (p: Page, x: number) => p.waitForFunction(
  (v) => Number((document.getElementById('progress') as HTMLProgressElement).value) > v, x, { timeout: 60_000, polling: 50 });
const statusMatches = (p: Page, re: RegExp, timeout = 10_000) => p.waitForFunction(
  (src) => new RegExp(src).test(document.getElementById('status')!.textContent!), re.source, { timeout, polling: 20 });
/** The job lines the dashboard shows: name and state. */
const jobsShown = (dash: Page) => dash.$$eval('#jobs .job', (els) =>
  els.map((e) => ({ name: e.querySelector('b')!.textContent!, state: (e as HTMLElement).dataset.state! })));
const untilJob = (dash: Page, name: string, state?: string) => expect.poll(async () =>
  (await jobsShown(dash)).some((j) => j.name === name && (state === undefined || j.state === state)), { timeout: 20_000 })
  .toBe(true);

beforeAll(async () => {
  if (!existsSync(`${ROOT}dist/pages/join.html`)) throw new Error('the pages are not built: run `npm run build` first');
  web = await preview({ configFile: `${ROOT}vite.config.ts`, logLevel: 'error', preview: { host: '127.0.0.1', port: 0 } });
  base = web.resolvedUrls!.local[0]!;
  signal = await startSignalServer({ port: 0, secret: SECRET, log: () => undefined });
  query = `?signal=${encodeURIComponent(signal.url)}&room=${ROOM}&token=${encodeURIComponent(mintToken(SECRET, ROOM, 3600))}`;
  browser = await chromium.launch({ executablePath: CHROMIUM.find((p) => existsSync(p)), args: ['--no-sandbox'] });
  ctx = await browser.newContext({ viewport: { width: 1000, height: 900 } });
  mkdirSync(ARTIFACTS, { recursive: true });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  if (!signalClosed) await signal?.close();
  await new Promise((r) => web?.httpServer.close(r));
});

describe('the join page controls, the pi page Cancel and the dashboard, in headless Chromium', () => {
  let a: Page, b: Page, pi: Page, dash: Page;

  it('Pause: the page and the peer say paused at once, and the next job places nothing on the paused tab', async () => {
    a = await open('join', '&device=wasm');
    b = await open('join', '&device=wasm');
    await Promise.all([joined(a), joined(b)]);
    dash = await open('dashboard');
    pi = await open('pi');
    await workersShown(pi, 2);
    await a.click('#pause');
    expect((await stats(a)).paused).toBe(true); // at once, not at the thread's next report
    expect(await a.textContent('#pause')).toBe('Resume');
    expect(await a.textContent('#status')).toMatch(/paused/);
    await workersShown(pi, 1); // the coordinator sees the pause in the shared state
    const before = (await stats(a)).tasks;
    const got = await pi.evaluate(() => (window as unknown as Win).runPi(20_000_000, 1));
    expect(got.workers).toBe(1);
    await until(b, (s) => s.tasks > 0);
    await new Promise((r) => setTimeout(r, 1000)); // a task the paused tab took would show in its next report
    expect((await stats(a)).tasks).toBe(before);
  }, 180_000);

  it('Resume: the tab takes tasks again', async () => {
    await a.click('#pause');
    expect((await stats(a)).paused).toBe(false);
    expect(await a.textContent('#pause')).toBe('Pause');
    expect(await a.textContent('#status')).toMatch(/working in room/);
    await workersShown(pi, 2);
    const before = (await stats(a)).tasks;
    const got = await pi.evaluate(() => (window as unknown as Win).runPi(40_000_000, 2));
    expect(got.workers).toBe(2);
    await until(a, (s) => s.tasks > before);
  }, 120_000);

  it('jobs carry their names to the dashboard, and live peers there have distinct colours', async () => {
    await untilJob(dash, 'pi 4e7 · slice 10/10');
    const dots = await dash.$$eval('#peers tr[data-state=live] .dot', (els) =>
      els.map((e) => (e as HTMLElement).style.background));
    expect(dots.length).toBeGreaterThanOrEqual(3); // two workers and the pi tab
    expect(new Set(dots).size).toBe(dots.length);
  }, 30_000);

  it('Cancel on the pi page stops the running job: the page says cancelled and the workers stop computing it', async () => {
    await pi.fill('#points', '1e9');
    await pi.click('#run');
    await progressOver(pi, 0.01);
    const t0 = Date.now();
    await pi.click('#cancel');
    await statusMatches(pi, /cancelled/, 5000);
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(await pi.isDisabled('#cancel')).toBe(true);
    expect(await pi.isEnabled('#run')).toBe(true);
    // the job is cancelled in the shared state, and the workers went quiet
    await expect.poll(async () => (await jobsShown(dash)).some((j) => j.state === 'cancelled'), { timeout: 10_000 }).toBe(true);
    await Promise.all([a, b].map((p) => until(p, (s) => s.running === 0, 10_000)));
    const settled = await Promise.all([a, b].map(async (p) => (await stats(p)).tasks));
    await new Promise((r) => setTimeout(r, 2000));
    expect(await Promise.all([a, b].map(async (p) => (await stats(p)).tasks))).toEqual(settled);
    // a new run starts from an empty plot
    const run = pi.evaluate(() => (window as unknown as Win).runPi(20_000_000, 3));
    await pi.waitForFunction(() => document.getElementById('plot')!.childElementCount === 0
      || document.getElementById('status')!.textContent!.startsWith('pi ≈'), undefined, { timeout: 10_000, polling: 20 });
    expect((await run).workers).toBe(2);
  }, 120_000);

  it('a job whose coordinator tab closed is marked on the dashboard, and the cards do not follow it', async () => {
    const liveRows = () => dash.$$eval('#peers tr[data-state=live]', (rows) => rows.length);
    const before = await liveRows();
    const orphanPi = await open('pi');
    await workersShown(orphanPi, 2);
    // the dashboard judges a coordinator by its own link to it: wait for that link before the job starts
    await expect.poll(liveRows, { timeout: 30_000 }).toBeGreaterThan(before);
    void orphanPi.evaluate(() => (window as unknown as Win).runPi(1_000_000_000, 4)).catch(() => undefined);
    await progressOver(orphanPi, 0.005);
    // the job runs as slices one after another: on a busy machine the first may be done before the dashboard is read,
    // so whichever slice runs when the tab closes is the one marked
    const slice = async (state: string) => (await jobsShown(dash)).find((j) => j.name.startsWith('pi 1e9 · slice ') && j.state === state)?.name;
    await expect.poll(() => slice('running'), { timeout: 45_000 }).toBeDefined();
    await orphanPi.close();
    await expect.poll(() => slice('coordinator left'), { timeout: 45_000 }).toBeDefined();
    const orphan = (await slice('coordinator left'))!;
    expect(await dash.textContent('#current')).not.toBe(orphan);
    expect(await dash.textContent('#failures')).toContain(`${orphan} · coordinator-left`);
    // the departed coordinator's row fades rather than staying 'live'
    await dash.waitForSelector('#peers tr[data-state=left]', { timeout: 10_000 });
    await dash.screenshot({ path: `${ARTIFACTS}/dashboard-orphan.png`, fullPage: true });
  }, 120_000);

  it('Leave completes at once (not by the 5 s fallback) and the tab is out of the room', async () => {
    const t0 = Date.now();
    await a.click('#leave');
    await statusMatches(a, /left the room/);
    expect(Date.now() - t0).toBeLessThan(2500);
    expect((await stats(a)).links).toBe(0);
    await workersShown(pi, 1);
  }, 60_000);

  it("a volunteer's contribution is kept across a reload in the same browser", async () => {
    const myTasks = async () => Number((await b.textContent('#my-tasks'))!.replace(/,/g, ''));
    await expect.poll(myTasks, { timeout: 5000 }).toBeGreaterThan(0);
    const tasks = await myTasks();
    // both join tabs of this browser added theirs (a tab's visit counts once; the other left)
    expect(tasks).toBeGreaterThanOrEqual((await stats(b)).tasks);
    const visits = Number(/^(\d+)/.exec((await b.textContent('#my-visits'))!)![1]);
    expect(visits).toBe(2);
    await b.reload();
    await expect.poll(async () => b.textContent('#my-visits'), { timeout: 10_000 }).toMatch(/^3 since/);
    expect(await myTasks()).toBe(tasks);
    await joined(b);
  }, 120_000);

  it('at 390 px the pages fit the screen: nothing scrolls sideways', async () => {
    for (const [name, page] of [['join', b], ['pi', pi], ['dashboard', dash]] as const) {
      await page.setViewportSize({ width: 390, height: 844 });
      await page.waitForTimeout(300);
      const wide = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(wide, name).toBeLessThanOrEqual(390);
      await page.screenshot({ path: `${ARTIFACTS}/${name}-390.png`, fullPage: true });
    }
    expect(errors).toEqual([]);
  }, 60_000);

  it('the join page and the dashboard say when they are out of the signaling room, and when they are back', async () => {
    signalClosed = true;
    await signal.close();
    for (const p of [b, dash]) await statusMatches(p, /out of room controls/);
    // the tab keeps its links to peers meanwhile, and says so
    expect(await b.textContent('#status')).toMatch(/links to peers stay up/);
    // the server back on its port with its secret: both pages come back into the room by themselves, and say so
    signal = await startSignalServer({ port: Number(new URL(signal.url).port), secret: SECRET, log: () => undefined });
    signalClosed = false;
    await statusMatches(b, /^working in room controls \(back in the room since /, 30_000);
    await statusMatches(dash, /^watching room controls as \S+ \(back in the room since /, 30_000);
    expect((await stats(b)).links).toBeGreaterThan(0);
  }, 60_000);
});
