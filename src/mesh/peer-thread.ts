// The Web Worker of a volunteer tab (volunteer.ts starts it): a full worker
// peer over a PortEndpoint to the page, which holds the WebRTC links. Compute
// and heartbeats live here, so a hidden tab keeps its leases.

import { host } from '#host';
import { Peer, type PeerOptions } from './peer.js';
import { PortEndpoint } from './relay.js';

/** Page to this thread, besides the relayed endpoint. */
export type Control = { readonly k: 'start'; readonly opts: Omit<PeerOptions, 'log'> } | { readonly k: 'pause' } | { readonly k: 'resume' } | { readonly k: 'leave' };

const port = host.threadPort();
let peer: Peer | undefined;
let start: ((opts: Control & { k: 'start' }) => void) | undefined;
const started = new Promise<Control & { k: 'start' }>((r) => { start = r; });

/** What the page asked for before the peer was up (it measures this machine first), applied once it is. */
let wantPaused = false;
const sendStats = () => { if (peer) port.post({ k: 'stats', stats: peer.stats() }); };

const control = (c: Control): void => {
  if (c.k === 'start') start!(c);
  else if (c.k === 'pause' || c.k === 'resume') {
    wantPaused = c.k === 'pause';
    if (wantPaused) peer?.pause(); else peer?.resume();
    sendStats(); // the page shows the change now, not at the next tick
  } else if (c.k === 'leave') void (peer?.leave() ?? Promise.resolve()).then(() => port.post({ k: 'left' }));
};

const ep = await PortEndpoint.connect(port, (m) => control(m as Control));
const { opts } = await started;
try {
  peer = await Peer.start(ep, { ...opts, log: (line) => port.post({ k: 'log', line }) });
  if (wantPaused) peer.pause();
  port.post({ k: 'ready', stats: peer.stats() });
  setInterval(sendStats, 500);
} catch (e) {
  port.post({ k: 'error', message: (e as Error).message });
}
