// Where a volunteer's worker peer runs in a browser: its own Web Worker
// (mesh/peer-thread.ts). Apart from ./browser.ts because that one is bundled
// into the peer thread itself, and a worker may not start itself.

import type { Thread } from './types.js';
import { thread } from './browser.js';

export const spawnPeerThread = (): Thread | undefined =>
  thread(new Worker(new URL('../mesh/peer-thread.js', import.meta.url), { type: 'module' }), 'the peer thread failed');
