// What a volunteer downloads, and the `tessera` command as a newcomer meets
// it (the built CLI, spawned). The pages' JavaScript and WASM, gzipped, must
// stay under the design's 500 KB budget, with no Node host code; the join
// page opened from `tessera pages` in headless Chromium must download its
// scripts compressed, each once (the peer thread and the compute threads
// import the chunks the page already has), and the bytes it transfers are
// measured against the budget too. `--help` / `-h` print usage and start
// nothing; the `tessera worker` line that `tessera pages` prints joins a
// Node peer to the pages' room.

import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = `${ROOT}dist/cli/tessera.js`;
const ASSETS = `${ROOT}dist/pages/assets`;
const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'];
/** The design's budget for a page's JavaScript and WASM, gzipped (DESIGN.md, "Light pages"). */
const BUDGET = 500_000;

const children: ChildProcess[] = [];
let browser: Browser | undefined;

afterAll(async () => {
  for (const c of children) c.kill('SIGKILL');
  await browser?.close();
});

/** Starts `tessera pages` on free ports; resolves with its output once it printed its links. */
async function pages(room: string): Promise<{ out: string; link: (what: string) => string }> {
  const cli = spawn(process.execPath, [CLI, 'pages', '--port', '0', '--room', room], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(cli);
  let out = '';
  cli.stdout!.on('data', (d) => { out += d; });
  cli.stderr!.on('data', (d) => { out += d; });
  const t0 = Date.now();
  while (!/worker\s+npx tessera worker/.test(out) && Date.now() - t0 < 30_000) await new Promise((r) => setTimeout(r, 100));
  return { out, link: (what) => new RegExp(`${what}\\s+(\\S.*)`).exec(out)?.[1] ?? '' };
}

describe('page weight', () => {
  it('every page script, thread and WASM together stay under 500 KB gzipped, with no Node host code', () => {
    let total = 0;
    const files = readdirSync(ASSETS).filter((f) => /\.(js|wasm)$/.test(f));
    for (const f of files) {
      const data = readFileSync(`${ASSETS}/${f}`);
      total += gzipSync(data, { level: 9 }).length;
      expect(String(data), f).not.toMatch(/worker_threads|@roamhq\/wrtc|setFlagsFromString|node:fs/);
      // the precompressed copies `tessera pages` serves are there and current
      expect(gzipSync(data, { level: 9 }).equals(readFileSync(`${ASSETS}/${f}.gz`)), `${f}.gz`).toBe(true);
      expect(existsSync(`${ASSETS}/${f}.br`), `${f}.br`).toBe(true);
    }
    console.log(`pages' JS+WASM: ${files.length} files, ${(total / 1000).toFixed(0)} KB gzipped (budget ${BUDGET / 1000} KB)`);
    expect(total).toBeGreaterThan(50_000); // the runtime and the mesh are in there
    expect(total).toBeLessThan(BUDGET);
    // the threads are thin entries over the chunks the pages share, not bundles of their own
    for (const thread of ['peer-thread', 'pool-thread']) {
      const f = files.find((x) => x.startsWith(`${thread}-`));
      expect(f, thread).toBeDefined();
      expect(readFileSync(`${ASSETS}/${f}`).length, thread).toBeLessThan(4096);
    }
  });

  it('the join page from `tessera pages` downloads its scripts compressed, each once, well under the budget', async () => {
    const { link } = await pages('weight');
    browser = await chromium.launch({ executablePath: CHROMIUM.find((p) => existsSync(p)), args: ['--no-sandbox'] });
    const page = await (await browser.newContext()).newPage();
    const got: { url: string; encoding: string; bytes: number; status: number }[] = [];
    const pending: Promise<void>[] = [];
    page.on('requestfinished', (r) => pending.push((async () => {
      const res = await r.response();
      const sizes = await r.sizes();
      const bytes = sizes.responseBodySize + sizes.responseHeadersSize;
      // a script a thread took from the cache (its page loaded it first) transferred nothing
      const encoding = res ? (await res.allHeaders())['content-encoding'] ?? '' : '';
      if (res && bytes > 0) got.push({ url: r.url(), encoding, bytes, status: res.status() });
    })().catch((e: Error) => { got.push({ url: r.url(), encoding: `sizes: ${e.message}`, bytes: 0, status: 0 }); })));
    await page.goto(link('join'));
    await page.waitForFunction(() => 'tessera' in window, undefined, { timeout: 90_000 });
    await Promise.all(pending);
    const scripts = got.filter((g) => /\.(js|wasm)$/.test(new URL(g.url).pathname));
    const threads = [expect.stringMatching(/peer-thread-/), expect.stringMatching(/pool-thread-/)];
    expect(scripts.map((s) => new URL(s.url).pathname)).toEqual(expect.arrayContaining(threads));
    for (const s of scripts) expect(s.encoding, s.url).toMatch(/^(br|gzip)$/);
    const paths = scripts.map((s) => new URL(s.url).pathname);
    expect(new Set(paths).size).toBe(paths.length); // the threads took the page's chunks from the cache
    const transferred = got.reduce((a, g) => a + g.bytes, 0);
    const js = scripts.reduce((a, g) => a + g.bytes, 0);
    const raw = paths.reduce((a, p) => a + readFileSync(`${ROOT}dist/pages${p}`).length, 0);
    const kb = (n: number) => `${(n / 1000).toFixed(0)} KB`;
    console.log(`join page: ${got.length} requests, ${kb(transferred)} transferred `
      + `(scripts ${kb(js)} compressed, ${kb(raw)} uncompressed)`);
    expect(js).toBeLessThan(BUDGET);
    expect(transferred).toBeLessThan(raw / 2.5);
  }, 120_000);
});

describe('the tessera command', () => {
  const run = (...args: string[]) => spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 20_000 });

  it('--help and -h print usage and exit 0, for the command and every subcommand, starting nothing', () => {
    for (const args of [['-h'], ['--help'], ['help']]) {
      const r = run(...args);
      expect(r.status, args.join(' ')).toBe(0);
      for (const cmd of ['signal', 'token', 'worker', 'demo', 'pages']) {
        expect(r.stdout).toMatch(new RegExp(`\\n  tessera ${cmd} `));
      }
    }
    for (const cmd of ['signal', 'token', 'worker', 'demo', 'pages']) {
      for (const h of ['--help', '-h']) {
        // with the flags that would otherwise start a server or a worker: help wins, and returns at once
        const r = run(cmd, '--port', '0', h);
        expect(r.status, `${cmd} ${h}: ${r.stderr}`).toBe(0);
        expect(r.stdout).toMatch(new RegExp(`^usage: tessera ${cmd} `));
        // (a server started would not have exited either)
        expect(r.stdout).not.toMatch(/signaling server on ws:|signaling server ws:|joined room/);
      }
    }
    expect(run('help', 'pages').stdout).toMatch(/^usage: tessera pages /);
    const bad = run('bogus');
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/unknown command "bogus"/);
  }, 60_000);

  it('`tessera pages` prints a `tessera worker` line that joins a Node peer to the same room', async () => {
    const { out, link } = await pages('cli-line');
    const line = link('worker');
    expect(line, out).toMatch(/^npx tessera worker --signal ws:\/\/127\.0\.0\.1:\d+ --room cli-line --token \S+$/);
    const args = line.replace(/^npx tessera /, '').split(' ');
    const w = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    children.push(w);
    let err = '';
    w.stderr!.on('data', (d) => { err += d; });
    const t0 = Date.now();
    while (!/joined room cli-line/.test(err) && w.exitCode === null && Date.now() - t0 < 60_000) {
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(err).toMatch(/\[worker\] \S+ joined room cli-line/);
    w.kill('SIGTERM');
  }, 90_000);
});
