// A mesh role in another thread: a volunteer tab keeps its WebRTC links on
// the page (RTCPeerConnection exists only there) and runs the worker, with
// its heartbeats, in a Web Worker, where a hidden tab's timer throttling does
// not reach. `bridge` serves an Endpoint over a thread port; `PortEndpoint`
// is that Endpoint as the other thread sees it. Messages cross already
// validated (the page's MeshNode decoded them), as structured clones.

import type { ThreadPort } from '../host/types.js';
import { type Endpoint, type EndpointEvents, Listeners } from './endpoint.js';
import type { Message } from './protocol.js';

/** Page to thread. */
type Down =
  | { readonly k: 'hello'; readonly id: string; readonly peers: readonly string[] }
  | { readonly k: 'msg'; readonly from: string; readonly m: Message; readonly payload?: Uint8Array }
  | { readonly k: 'peer'; readonly id: string; readonly up: boolean }
  | { readonly k: 'sent'; readonly req: number; readonly error?: string };

/** Thread to page. */
type Up = { readonly k: 'send'; readonly req: number; readonly to: string; readonly m: Message; readonly payload?: Uint8Array };

/** Anything that posts and receives structured clones: a Worker, or a thread's own scope. */
export interface Port { post(m: unknown): void; onMessage(f: (m: any) => void): void }

/** Serves `ep` to the thread at the other end of `port`. Other messages on the port go to `other`. */
export function bridge(ep: Endpoint, port: Port, other: (m: unknown) => void = () => undefined): void {
  port.post({ k: 'hello', id: ep.id, peers: ep.peers() } satisfies Down);
  ep.on({
    message: (from, m, payload) => port.post({ k: 'msg', from, m, ...(payload ? { payload } : {}) } satisfies Down),
    peer: (id, up) => port.post({ k: 'peer', id, up } satisfies Down),
  });
  port.onMessage((u: Up | { k?: undefined }) => {
    if (u.k !== 'send') return other(u);
    ep.send(u.to, u.m, u.payload).then(
      () => port.post({ k: 'sent', req: u.req } satisfies Down),
      (e: Error) => port.post({ k: 'sent', req: u.req, error: e.message } satisfies Down),
    );
  });
}

const isHello = (d: { k?: string }): d is Down & { k: 'hello' } => d.k === 'hello';
const isRelayed = (d: { k?: string }): d is Exclude<Down, { k: 'hello' }> =>
  d.k === 'msg' || d.k === 'peer' || d.k === 'sent';

export class PortEndpoint implements Endpoint {
  private readonly listeners = new Listeners();
  private readonly linked = new Set<string>();
  private readonly pending = new Map<number, { resolve: () => void; reject: (e: Error) => void }>();
  private nextReq = 1;
  /** The page counts traffic on its links; this side does not see it. */
  readonly traffic = new Map<string, { sent: number; received: number }>();

  private constructor(readonly id: string, private readonly port: ThreadPort) {}

  /** Waits for the page's hello on `port`; other messages go to `other`. */
  static connect(port: ThreadPort, other: (m: unknown) => void = () => undefined): Promise<PortEndpoint> {
    return new Promise((resolve) => {
      let ep: PortEndpoint | undefined;
      port.onMessage((d: Down | { k?: string }) => {
        if (isHello(d) && !ep) {
          ep = new PortEndpoint(d.id, port);
          for (const p of d.peers) ep.linked.add(p);
          resolve(ep);
        } else if (ep && isRelayed(d)) ep.receive(d);
        // anything else (the page's own controls: start, pause, resume, leave) is not the endpoint's
        else other(d);
      });
    });
  }

  private receive(d: Exclude<Down, { k: 'hello' }>): void {
    switch (d.k) {
      case 'msg': this.listeners.message(d.from, d.m, d.payload); break;
      case 'peer':
        if (d.up) this.linked.add(d.id); else this.linked.delete(d.id);
        this.listeners.peer(d.id, d.up);
        break;
      case 'sent': {
        const p = this.pending.get(d.req);
        this.pending.delete(d.req);
        if (d.error === undefined) p?.resolve(); else p?.reject(new Error(d.error));
        break;
      }
    }
  }

  peers(): readonly string[] { return [...this.linked]; }

  send(to: string, m: Message, payload?: Uint8Array): Promise<void> {
    if (!this.linked.has(to)) return Promise.reject(new Error(`no link to peer ${to}`));
    const req = this.nextReq++;
    return new Promise<void>((resolve, reject) => {
      this.pending.set(req, { resolve, reject });
      this.port.post({ k: 'send', req, to, m, ...(payload ? { payload } : {}) } satisfies Up);
    });
  }

  on(events: Partial<EndpointEvents>): void { this.listeners.add(events); }

  async close(): Promise<void> {
    for (const p of this.pending.values()) p.reject(new Error('the endpoint closed'));
    this.pending.clear();
    this.linked.clear();
  }
}
