// The browser host (a page or a Worker): Web Workers for the compute pool,
// navigator.gpu, fetch, the page's WebSocket and RTCPeerConnection. The
// Node twin is ./node.ts; package.json's "#host" import picks this one under
// the "browser" condition. Like it, it imports nothing from the rest of Tessera.

import type { Host, Thread, ThreadPort } from './types.js';

const scope = globalThis as unknown as {
  crossOriginIsolated?: boolean;
  navigator?: { hardwareConcurrency?: number; gpu?: GPU };
  postMessage?: (m: unknown, transfer: Transferable[]) => void;
  addEventListener?: (t: string, f: (e: MessageEvent) => void) => void;
};

/** A Worker as the pool (or a volunteer) drives it. */
export function thread(w: Worker, failed: string): Thread {
  return {
    post: (m, transfer) => w.postMessage(m, transfer ?? []),
    onMessage: (f) => w.addEventListener('message', (e) => f(e.data)),
    onError: (f) => w.addEventListener('error', (e) => f(new Error(e.message || failed))),
    terminate: async () => w.terminate(),
  };
}

export const host: Host = {
  name: 'browser',

  // The pool shares one WebAssembly.Memory between threads, which a page may
  // only do when it is cross-origin isolated (COOP/COEP headers): otherwise
  // every task runs inline.
  cores: () => (scope.crossOriginIsolated ? Math.max(1, scope.navigator?.hardwareConcurrency ?? 1) : 0),

  tuneEngine: () => undefined,

  // The literal `new Worker(new URL('../runtime/worker.js', ...), { type: 'module' })` is what the pages' build
  // rewrites to the pool's thread chunk (vite.config.ts). Another script loads from its URL beside this module
  // (unbundled: a bundler sees no literal to follow).
  spawnThread(script?: string): Thread {
    if (script === undefined) {
      return thread(new Worker(new URL('../runtime/worker.js', import.meta.url), { type: 'module' }), 'a compute worker failed');
    }
    const url = new URL('../' + script, import.meta.url);
    return thread(new Worker(url, { type: 'module' }), `thread ${script} failed`);
  },

  threadPort(): ThreadPort {
    return {
      post: (m, transfer) => scope.postMessage!(m, transfer ?? []),
      onMessage: (f) => scope.addEventListener!('message', (e) => f(e.data)),
    };
  },

  gpu: async () => scope.navigator?.gpu,

  readText: async (url: URL) => (await fetch(url)).text(),

  files: () => undefined,
  env: () => undefined,
  fileJournal: async () => undefined,

  cacheDir: () => undefined,

  textStore(name: string, dir?: string) {
    if (dir !== undefined) return undefined;
    let storage: Storage | undefined;
    try {
      storage = (globalThis as { localStorage?: Storage }).localStorage;
    } catch {
      return undefined; // storage blocked for this page
    }
    if (!storage) return undefined; // a Worker has none
    const key = `tessera.${name}`;
    return {
      read: () => { try { return storage.getItem(key) ?? undefined; } catch { return undefined; } },
      write: (text: string) => {
        try { storage.setItem(key, text); } catch { /* quota or privacy mode: kept in memory */ }
      },
    };
  },

  net: async () => ({ WebSocket: globalThis.WebSocket as unknown as Awaited<ReturnType<Host['net']>>['WebSocket'] }),
};
