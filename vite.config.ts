// One config for the demo pages (Vite) and the tests (Vitest).
//
// The pages in demo/ import only the public API, `tessera`, which resolves to
// the compiled package in dist/ (build it first: `npm run build`). Its "#host"
// import picks src/host/browser.ts there under the browser condition, so the
// bundle has none of the Node host. WASM threads share memory, which a page
// may only do when cross-origin isolated: the dev and preview servers send
// COOP/COEP (a static host must send the same two headers).

import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { Plugin } from 'vite';
import { nodePolyfills } from 'vite-plugin-node-polyfills';
import { defineConfig } from 'vitest/config';

const root = fileURLToPath(new URL('.', import.meta.url));
/** Only for browser bundles: under Vitest the same plugin would shim Node's own Buffer in the tests. */
const polyfills = () => (process.env.VITEST ? [] : [nodePolyfills({ include: ['events', 'process', 'buffer', 'util', 'stream'], globals: { Buffer: true, global: true, process: true } })]);
/**
 * The threads a page starts (the volunteer's peer thread, the WASM pool's
 * compute threads) as chunks of the pages' own build, not as Vite workers:
 * a Vite worker is bundled on its own, so each carried its own copy of the
 * runtime and the mesh (the join page downloaded them twice). As chunks they
 * import the code they share with the page from the same files, which the
 * browser fetches once. The `new Worker(new URL(…))` of the host modules is
 * rewritten to a placeholder, and the placeholder to the emitted chunk's
 * file once its name is known.
 */
function sharedThreads(): Plugin {
  const threads = [
    { module: 'host/browser-peer.js', url: '../mesh/peer-thread.js', name: 'peer-thread' },
    { module: 'host/browser.js', url: '../runtime/worker.js', name: 'pool-thread' },
  ];
  const refs = new Map<string, string>();
  const literal = (url: string) =>
    new RegExp(`new URL\\(\\s*['"]${url.replace(/[./]/g, '\\$&')}['"]\\s*,\\s*import\\.meta\\.url\\s*\\)`);
  return {
    name: 'tessera-shared-threads',
    apply: 'build',
    enforce: 'pre',
    buildStart() {
      for (const t of threads) {
        refs.set(t.name, this.emitFile({ type: 'chunk', id: `${root}dist/${t.url.slice(3)}`, name: t.name }));
      }
    },
    transform(code, id) {
      const t = threads.find((x) => id.endsWith(`dist/${x.module}`));
      if (!t) return undefined;
      if (!literal(t.url).test(code)) {
        this.error(`${t.module} no longer starts ${t.url} as \`new Worker(new URL(…))\`: update sharedThreads`);
      }
      return { code: code.replace(literal(t.url), `__TESSERA_THREAD_${t.name.replace('-', '_')}__`), map: null };
    },
    renderChunk(code) {
      let out = code;
      for (const t of threads) {
        const file = this.getFileName(refs.get(t.name)!).split('/').pop()!;
        const url = `new URL(${JSON.stringify(`./${file}`)}, import.meta.url)`;
        out = out.replaceAll(`__TESSERA_THREAD_${t.name.replace('-', '_')}__`, url);
      }
      return out === code ? null : { code: out, map: null };
    },
  };
}

/**
 * Gzip and brotli copies of every text asset next to it (`x.js.gz`,
 * `x.js.br`), which `tessera pages` serves (sirv) to browsers that accept them.
 */
function precompress(): Plugin {
  return {
    name: 'tessera-precompress',
    apply: 'build',
    closeBundle() {
      const walk = (dir: string): string[] => readdirSync(dir, { withFileTypes: true })
        .flatMap((e) => (e.isDirectory() ? walk(`${dir}/${e.name}`) : [`${dir}/${e.name}`]));
      for (const f of walk(`${root}dist/pages`).filter((f) => /\.(js|css|html|wasm|svg|json)$/.test(f))) {
        const data = readFileSync(f);
        writeFileSync(`${f}.gz`, gzipSync(data, { level: 9 }));
        writeFileSync(`${f}.br`, brotliCompressSync(data, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
      }
    },
  };
}

/** Test files that start real processes, peers and browsers (see test.projects). */
const REAL = ['test/mesh.test.ts', 'test/reconnect.test.ts', 'test/browser.test.ts', 'test/pages.test.ts', 'test/pages-controls.test.ts', 'test/pages-weight.test.ts'];
const ISOLATED = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' };

export default defineConfig({
  root: `${root}demo`,
  base: './',
  resolve: {
    alias: [
      { find: /^tessera$/, replacement: `${root}dist/index.js` },
      { find: /^tessera\/tensor$/, replacement: `${root}dist/api/tensor.js` },
    ],
  },
  // simple-peer's streams (readable-stream) expect Node's events, process.nextTick, Buffer and global
  plugins: [...polyfills(), ...(process.env.VITEST ? [] : [sharedThreads(), precompress()])],
  build: {
    outDir: `${root}dist/pages`,
    emptyOutDir: true,
    target: 'es2022',
    // the runtime's shared chunk is ~580 KB before compression; what counts is the gzipped total, which
    // test/pages-weight.test.ts holds to the design's 500 KB budget
    chunkSizeWarningLimit: 800,
    rollupOptions: { input: Object.fromEntries(['index', 'join', 'pi', 'dashboard', 'frame'].map((p) => [p, `${root}demo/${p}.html`])) },
  },
  server: { headers: ISOLATED },
  preview: { headers: ISOLATED },
  test: {
    root,
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Two projects, run one after the other by `npm test`: the unit files side by side on every core,
    // then the real meshes and browsers (child processes, WebRTC, Chromium, a worker frozen past the
    // ICE timeout) one file at a time, so their timings and timeouts measure Tessera rather than
    // the other test files on a 2-core machine.
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/**/*.test.ts'], exclude: REAL } },
      { extends: true, test: { name: 'real', include: REAL, fileParallelism: false } },
    ],
  },
});
