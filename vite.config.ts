// One config for the demo pages (Vite) and the tests (Vitest).
//
// The pages in demo/ import only the public API, `tessera`, which resolves to
// the compiled package in dist/ (build it first: `npm run build`). Its "#host"
// import picks src/host/browser.ts there under the browser condition, so the
// bundle has none of the Node host. WASM threads share memory, which a page
// may only do when cross-origin isolated: the dev and preview servers send
// COOP/COEP (a static host must send the same two headers).

import { fileURLToPath } from 'node:url';
import { nodePolyfills } from 'vite-plugin-node-polyfills';
import { defineConfig } from 'vitest/config';

const root = fileURLToPath(new URL('.', import.meta.url));
/** Only for browser bundles: under Vitest the same plugin would shim Node's own Buffer in the tests. */
const polyfills = () => (process.env.VITEST ? [] : [nodePolyfills({ include: ['events', 'process', 'buffer', 'util', 'stream'], globals: { Buffer: true, global: true, process: true } })]);
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
  plugins: polyfills(),
  build: {
    outDir: `${root}dist/pages`,
    emptyOutDir: true,
    target: 'es2022',
    rollupOptions: { input: Object.fromEntries(['index', 'join', 'pi', 'dashboard'].map((p) => [p, `${root}demo/${p}.html`])) },
  },
  worker: { format: 'es', plugins: polyfills },
  server: { headers: ISOLATED },
  preview: { headers: ISOLATED },
  test: {
    root,
    include: ['test/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
});
