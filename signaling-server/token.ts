// Room tokens: `v1.<payload>.<mac>`, payload the base64url JSON { r: room,
// e: expiry in Unix seconds }, mac its HMAC-SHA256 under the server's secret
// (base64url). `tessera token` mints them; the signaling server admits a peer
// to a room only with a token for that room that has not expired.
//
// Resume keys: the server gives each peer it admits the HMAC of its room and
// id under the same secret; a peer that lost its connection joins again with
// { id, key } and gets the same id back. The key is derived, not stored, so it
// survives a restart of the server, and only the server can vouch for an id.

import { createHmac, timingSafeEqual } from 'node:crypto';

const b64 = (b: Buffer | string): string => Buffer.from(b).toString('base64url');
const mac = (secret: string, body: string): Buffer => createHmac('sha256', secret).update(body).digest();

/** A token admitting its holder to `room` for `ttlSeconds` from `now` (ms). */
export function mintToken(secret: string, room: string, ttlSeconds: number, now = Date.now()): string {
  if (!secret) throw new Error('a token needs a secret');
  if (!validRoom(room)) throw new Error(`room must be 1-64 characters of [A-Za-z0-9._-], got ${JSON.stringify(room)}`);
  if (!(ttlSeconds > 0)) throw new Error(`ttl must be positive, got ${ttlSeconds}`);
  const body = `v1.${b64(JSON.stringify({ r: room, e: Math.floor(now / 1000 + ttlSeconds) }))}`;
  return `${body}.${b64(mac(secret, body))}`;
}

/** Why `token` does not admit its holder to `room` at `now` (ms), or undefined when it does. */
export function checkToken(secret: string, token: string, room: string, now = Date.now()): string | undefined {
  const parts = token.split('.');
  if (parts.length !== 3 || parts[0] !== 'v1') return 'malformed token';
  const body = `${parts[0]}.${parts[1]}`;
  const want = mac(secret, body);
  const got = Buffer.from(parts[2]!, 'base64url');
  if (got.length !== want.length || !timingSafeEqual(got, want)) return 'bad token signature';
  let claims: { r?: unknown; e?: unknown };
  try {
    claims = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as typeof claims;
  } catch {
    return 'malformed token';
  }
  if (!claims || typeof claims.r !== 'string' || typeof claims.e !== 'number') return 'malformed token';
  if (claims.r !== room) return `token for another room (${JSON.stringify(claims.r)})`;
  if (claims.e * 1000 <= now) return `token expired at ${new Date(claims.e * 1000).toISOString()}`;
  return undefined;
}

/** The key that lets the holder of peer id `id` in `room` regain that id (base64url HMAC-SHA256). */
export function resumeKey(secret: string, room: string, id: string): string {
  return b64(mac(secret, `resume.v1.${room}.${id}`));
}

/** Whether `key` is the resume key of `id` in `room`, compared in constant time. */
export function checkResumeKey(secret: string, room: string, id: string, key: string): boolean {
  const want = mac(secret, `resume.v1.${room}.${id}`);
  const got = Buffer.from(key, 'base64url');
  return got.length === want.length && timingSafeEqual(got, want);
}

export const validRoom = (room: string): boolean => /^[A-Za-z0-9._-]{1,64}$/.test(room);

/** Seconds in a duration such as `90`, `90s`, `15m`, `1h`, `2d`. */
export function parseDuration(s: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*(s|m|h|d)?$/.exec(s.trim());
  if (!m) throw new Error(`not a duration: ${JSON.stringify(s)} (try 90s, 15m, 1h, 2d)`);
  return Number(m[1]) * { s: 1, m: 60, h: 3600, d: 86400 }[(m[2] ?? 's') as 's'];
}
