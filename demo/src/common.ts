// What every page shares: the room from the URL (?signal=ws://…&room=…&token=…),
// small formatting helpers, the page's status line, the words for its
// standing with the signaling server, and peer colours.

export interface Room {
  readonly signal: string;
  readonly room: string;
  readonly token: string;
  /** From `&ice=stun:host:3478,…`: STUN servers for tabs on different networks. */
  readonly iceServers?: { urls: string }[];
}

export function roomFromUrl(): Room {
  const q = new URLSearchParams(location.search);
  const signal = q.get('signal'), room = q.get('room'), token = q.get('token');
  if (!signal || !room || !token) {
    throw new Error('this page needs ?signal=ws://…&room=…&token=… in its URL '
      + '(`npx tessera pages` prints complete links)');
  }
  const ice = q.get('ice');
  return { signal, room, token, ...(ice ? { iceServers: ice.split(',').map((urls) => ({ urls })) } : {}) };
}

/** The same room's link to another page. */
export const pageUrl = (page: string): string => `${page}${location.search}`;

export const bytes = (n: number): string =>
  n >= 2 ** 30 ? `${(n / 2 ** 30).toFixed(2)} GiB`
  : n >= 2 ** 20 ? `${(n / 2 ** 20).toFixed(1)} MiB`
  : n >= 1024 ? `${(n / 1024).toFixed(1)} KiB`
  : `${n} B`;

/** `42 s`, `7 min`, `3.2 h`. */
export const duration = (ms: number): string =>
  ms < 60_000 ? `${(ms / 1000).toFixed(0)} s`
  : ms < 3_600_000 ? `${(ms / 60_000).toFixed(0)} min`
  : `${(ms / 3_600_000).toFixed(1)} h`;

export const short = (id: string): string => id.slice(0, 6);

/**
 * Twelve hues far apart, then the golden angle: a hash of the id gave two
 * live peers the same colour about one time in ten with a handful of peers.
 */
const PALETTE = [210, 30, 130, 0, 270, 60, 180, 320, 95, 240, 15, 160];
const hue = (i: number): number => (i < PALETTE.length ? PALETTE[i]! : (i * 137.508) % 360);

/**
 * Colours for peers: each peer keeps the colour it was given while it is
 * live, and a new peer takes the first colour no live peer has, so no two
 * live peers share one.
 */
export class Colours {
  private readonly given = new Map<string, number>();

  /** Frees the colours of peers no longer in `live` and gives one to each new live peer. */
  update(live: Iterable<string>): void {
    const now = new Set(live);
    for (const id of [...this.given.keys()]) if (!now.has(id)) this.given.delete(id);
    const taken = new Set(this.given.values());
    for (const id of now) {
      if (this.given.has(id)) continue;
      let i = 0;
      while (taken.has(i)) i++;
      this.given.set(id, i);
      taken.add(i);
    }
  }

  /** A live peer's colour; grey for one that has none (it left). */
  of(id: string): string {
    const i = this.given.get(id);
    return i === undefined ? '#99a' : `hsl(${hue(i).toFixed(0)} 70% 45%)`;
  }
}

export function setStatus(text: string, kind: 'ok' | 'busy' | 'error' = 'ok'): void {
  const el = document.getElementById('status')!;
  el.textContent = text;
  el.dataset.kind = kind;
}

/** What a page says about its MeshNode's `connection` when it is not 'online'. */
export function connectionLine(c: string, room: string): string {
  return c === 'reconnecting'
    ? `out of room ${room}: the signaling server is unreachable, reconnecting… (links to peers stay up meanwhile)`
    : `disconnected from room ${room}; reload to join again`;
}

export function fail(e: unknown): void {
  setStatus(e instanceof Error ? e.message : String(e), 'error');
  console.error(e);
}

export const $ = <T extends HTMLElement = HTMLElement>(id: string): T => document.getElementById(id) as T;

export const esc = (s: string): string => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
