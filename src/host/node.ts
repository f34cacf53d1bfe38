// The Node host: what the runtime and the mesh need from the platform, in
// Node. Its browser twin is ./browser.ts; package.json's "#host" import picks
// one by the "browser" condition, so a browser bundle never sees this file
// (worker_threads, v8 flags, the `webgpu` package, `ws`, @roamhq/wrtc).
// It imports nothing from the rest of Tessera: tests run the sources while
// this resolves to its compiled twin in dist/.

import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { open, readFile, stat, writeFile } from 'node:fs/promises';
import { availableParallelism, homedir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { Worker, parentPort } from 'node:worker_threads';
import type { Host, Thread, ThreadPort } from './types.js';

/** Where Debian's Chromium keeps its SwiftShader Vulkan driver (a CPU implementation of Vulkan). */
const SWIFTSHADER_ICD = ['/usr/lib/chromium/vk_swiftshader_icd.json', '/usr/lib/chromium-browser/vk_swiftshader_icd.json'];

export const host: Host = {
  name: 'node',

  // read once: availableParallelism() asks the kernel for the affinity mask, a few µs on every run
  cores: (() => { let n = 0; return () => (n ||= Math.max(1, availableParallelism())); })(),

  // Kernels run once per task for a long time: compile them with the optimising
  // tier straight away. V8 does not replace a running baseline (Liftoff) frame,
  // so a worker's first task would otherwise run unoptimised to the end.
  tuneEngine: () => setFlagsFromString('--no-liftoff'),

  spawnThread(script = 'runtime/worker.js'): Thread {
    const url = new URL(`../${script}`, import.meta.url);
    if (!existsSync(url)) throw new Error(`thread script ${url.pathname} is missing: run \`npm run build\` first`);
    const w = new Worker(url);
    // An idle pool never keeps the process alive; one with work does (the pool says which, through hold).
    // Node refs a worker again when a listener is added, so unref comes after them.
    return {
      post: (m, transfer) => w.postMessage(m, transfer as never),
      onMessage: (f) => { w.on('message', f); w.unref(); },
      onError: (f) => { w.on('error', f); w.unref(); },
      terminate: async () => { await w.terminate(); },
      hold: (on) => { if (on) w.ref(); else w.unref(); },
    };
  },

  threadPort(): ThreadPort {
    return { post: (m, transfer) => parentPort!.postMessage(m, transfer as never), onMessage: (f) => { parentPort!.on('message', f); } };
  },

  async gpu(): Promise<GPU | undefined> {
    if (!process.env.VK_ICD_FILENAMES) {
      const icd = SWIFTSHADER_ICD.find((p) => existsSync(p));
      if (icd && process.env.TESSERA_GPU_DRIVER !== 'system') process.env.VK_ICD_FILENAMES = icd;
    }
    try {
      const { create, globals } = (await import('webgpu')) as unknown as { create: (flags: string[]) => GPU; globals: Record<string, unknown> };
      for (const [k, v] of Object.entries(globals)) if (!(k in globalThis)) (globalThis as Record<string, unknown>)[k] = v;
      return create([]);
    } catch {
      return undefined;
    }
  },

  async readText(url: URL): Promise<string> {
    return url.protocol === 'file:' ? readFileSync(url, 'utf8') : (await fetch(url)).text();
  },

  files() {
    return {
      read: async (path: string | URL) => new Uint8Array(await readFile(path)),
      write: (path: string | URL, bytes: Uint8Array) => writeFile(path, bytes),
      size: async (path: string | URL) => (await stat(path)).size,
      async readRange(path: string | URL, from: number, to: number) {
        const f = await open(path, 'r');
        try {
          const out = new Uint8Array(Math.max(0, to - from));
          let got = 0;
          while (got < out.length) {
            const { bytesRead } = await f.read(out, got, out.length - got, from + got);
            if (bytesRead === 0) break;
            got += bytesRead;
          }
          return got === out.length ? out : out.slice(0, got);
        } finally {
          await f.close();
        }
      },
    };
  },

  env: (name: string) => process.env[name],

  async fileJournal(dir: string) {
    const { FileJournal } = await import('./node-journal.js');
    return new FileJournal(dir);
  },

  cacheDir: () => process.env.TESSERA_CACHE || join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'tessera'),

  textStore(name: string, dir?: string) {
    if (dir === undefined) return undefined;
    // a name that is not a plain file name (a room can be any string) is kept under its hash
    const plain = /^[A-Za-z0-9_.-]{1,80}$/.test(name) && !name.startsWith('.');
    const file = join(dir, `${plain ? name : createHash('sha256').update(name).digest('hex').slice(0, 32)}.json`);
    return {
      read: () => { try { return readFileSync(file, 'utf8'); } catch { return undefined; } },
      write: (text: string) => {
        // whole or not at all: a crash mid-write leaves the old record
        try {
          mkdirSync(dir, { recursive: true });
          writeFileSync(`${file}.${process.pid}.tmp`, text);
          renameSync(`${file}.${process.pid}.tmp`, file);
        } catch { /* a read-only or full disk: the record stays in memory */ }
      },
    };
  },

  async net() {
    const { WebSocket } = await import('ws');
    const wrtc = ((await import('@roamhq/wrtc')) as { default?: unknown }).default;
    return { WebSocket: WebSocket as unknown as Awaited<ReturnType<Host['net']>>['WebSocket'], wrtc };
  },
};
