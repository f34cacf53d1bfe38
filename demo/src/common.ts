// What every page shares: the room from the URL (?signal=ws://…&room=…&token=…),
// small formatting helpers, and the page's status line.

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
    throw new Error('this page needs ?signal=ws://…&room=…&token=… in its URL (`npx tessera pages` prints complete links)');
  }
  const ice = q.get('ice');
  return { signal, room, token, ...(ice ? { iceServers: ice.split(',').map((urls) => ({ urls })) } : {}) };
}

/** The same room's link to another page. */
export const pageUrl = (page: string): string => `${page}${location.search}`;

export const bytes = (n: number): string =>
  n >= 2 ** 30 ? `${(n / 2 ** 30).toFixed(2)} GiB` : n >= 2 ** 20 ? `${(n / 2 ** 20).toFixed(1)} MiB` : n >= 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${n} B`;

export const short = (id: string): string => id.slice(0, 6);

/** A stable colour per peer id. */
export function colour(id: string): string {
  let h = 0;
  for (let i = 0; i < id.length; i++) h = (h * 31 + id.charCodeAt(i)) >>> 0;
  return `hsl(${h % 360} 65% 50%)`;
}

export function setStatus(text: string, kind: 'ok' | 'busy' | 'error' = 'ok'): void {
  const el = document.getElementById('status')!;
  el.textContent = text;
  el.dataset.kind = kind;
}

export function fail(e: unknown): void {
  setStatus(e instanceof Error ? e.message : String(e), 'error');
  console.error(e);
}

export const $ = <T extends HTMLElement = HTMLElement>(id: string): T => document.getElementById(id) as T;
