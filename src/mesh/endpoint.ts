// What a mesh role (coordinator or worker) sees of the network: its own id,
// the peers it has a link to, and messages to and from them. The real
// network is node.ts (signaling server and WebRTC data channels); tests also
// drive the roles over sim.ts, a seeded in-memory network that delays,
// reorders, drops and disconnects. Messages arrive decoded and validated
// (protocol.ts): a role never sees bytes.

import type { Message } from './protocol.js';

export interface EndpointEvents {
  message(from: string, m: Message, payload?: Uint8Array): void;
  /** A link to a peer came up or went down. */
  peer(id: string, up: boolean): void;
}

export interface Endpoint {
  readonly id: string;
  /** Peers with a live link now. */
  peers(): readonly string[];
  /**
   * Sends a message (and its payload) to a peer; resolves once it is handed
   * to the link, rejects when there is no link to that peer.
   */
  send(to: string, m: Message, payload?: Uint8Array): Promise<void>;
  on(events: Partial<EndpointEvents>): void;
  /** Bytes sent to and received from each peer so far. */
  readonly traffic: ReadonlyMap<string, { sent: number; received: number }>;
  close(): Promise<void>;
}

/** Handlers registered with `on`, called in order (a throwing handler is logged, not fatal). */
export class Listeners {
  private readonly list: Partial<EndpointEvents>[] = [];
  add(e: Partial<EndpointEvents>): void { this.list.push(e); }
  message(from: string, m: Message, payload?: Uint8Array): void {
    for (const l of this.list) {
      try { l.message?.(from, m, payload); } catch (e) { console.error(`tessera mesh: handling ${m.t} from ${from}: ${(e as Error).stack}`); }
    }
  }
  peer(id: string, up: boolean): void {
    for (const l of this.list) {
      try { l.peer?.(id, up); } catch (e) { console.error(`tessera mesh: peer ${id} ${up ? 'up' : 'down'}: ${(e as Error).stack}`); }
    }
  }
}
