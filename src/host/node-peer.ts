// Where a volunteer's worker peer runs in Node: in-process (no timer
// throttling to escape, and wrtc works on the main thread), so no thread.

import type { Thread } from './types.js';

export const spawnPeerThread = (): Thread | undefined => undefined;
