// String columns' dictionaries for read_csv, looked up by bytes. In: the byte
// spans of a column's values (csv.ts parseRows), or a range's distinct
// spellings with their hashes (a parse thread's, merged here by read.ts in file
// order). Out: ids in first-seen order, and either the spellings (a thread's
// range: nothing decoded) or the decoded dictionary (the frame's column).
// Design: one open-addressing table of (hash, id + 1) over a pool of the
// distinct byte strings, so a value seen before costs no JS string and no Map;
// a new entry is decoded once, from one decode of its range's whole pool when
// that pool is ASCII (a slice of a string is cheaper than a decode per value).

/** Distinct byte strings, in order: string k is bytes[ends[k - 1] (or 0) .. ends[k]), its FNV-1a hash hashes[k]. */
export interface Spellings { bytes: Uint8Array; ends: Int32Array; hashes: Int32Array }

/** FNV-1a over bytes [s, e): the hash every table here agrees on (a thread's hashes are reused by the merge). */
export function hashBytes(buf: Uint8Array, s: number, e: number): number {
  let h = 0x811c9dc5 | 0;
  for (let p = s; p < e; p++) h = Math.imul(h ^ buf[p]!, 0x01000193);
  return h;
}

export function latin1(buf: Uint8Array, s: number, e: number): string {
  let t = '';
  for (let p = s; p < e; p++) t += String.fromCharCode(buf[p]!);
  return t;
}

const utf8 = new TextDecoder();
export function decode(buf: Uint8Array, s: number, e: number): string {
  if (e - s > 32) return utf8.decode(buf.subarray(s, e));
  for (let p = s; p < e; p++) if (buf[p]! >= 128) return utf8.decode(buf.subarray(s, e));
  return latin1(buf, s, e);
}

/** The load past which a table doubles: linear probing stays short to 0.7, and a smaller table misses less. */
const FULL = 0.7;

/** The slots (a power of two, 256 at least) that hold n values under FULL. */
function slotsFor(n: number): number {
  let slots = 256;
  while (FULL * slots < n) slots *= 2;
  return slots;
}

function isAscii(buf: Uint8Array): boolean {
  let or = 0;
  for (let p = 0; p < buf.length; p++) or |= buf[p]!;
  return or < 128;
}

export function grow<T extends Float64Array | Int32Array | Uint8Array>(a: T, n: number): T {
  const b = new (a.constructor as new (n: number) => T)(Math.max(n, a.length * 2, 64));
  b.set(a);
  return b;
}

/**
 * A string column's dictionary, looked up by the value's bytes (see the file's header). With `texts`, ids are
 * entries of `dict` (in first-seen order; a new spelling is decoded once, and spellings that decode alike, invalid
 * UTF-8, share one); without, ids are spellings and nothing is decoded (a read_csv thread's range: the driver
 * merges the spellings).
 */
export class Strings {
  readonly dict: string[] = [];
  /**
   * Texts with U+FFFD and their ids: only such texts can come from two spellings (invalid UTF-8 decodes to
   * U+FFFD; valid UTF-8 decodes one to one), so only they are looked up by text.
   */
  private readonly replaced = new Map<string, number>();
  private n = 0; // spellings
  private table: Int32Array; // per slot: the hash, and the spelling + 1 (0: empty)
  private pool = new Uint8Array(1024);
  private ends = new Int32Array(64); // spelling k is pool[ends[k - 1] (or 0) .. ends[k])
  private hashes = new Int32Array(64);
  private ids: Int32Array | null; // spelling → dict entry, where they differ (texts)
  private text: string | null = null; // a whole ASCII pool being merged, decoded once (merge)

  /** `expect`: the distinct values expected (a table sized for them grows no more). */
  constructor(private readonly texts: boolean, expect = 0) {
    this.table = new Int32Array(2 * slotsFor(expect));
    this.ids = null;
  }

  get size(): number { return this.n; }

  /** Room for `n` distinct values of `bytes` bytes in all, so that a table expected to grow large grows once. */
  reserve(n: number, bytes: number): void {
    if (slotsFor(n) > this.table.length >> 1) this.rehash(slotsFor(n));
    if (bytes > this.pool.length) this.pool = grow(this.pool, bytes);
    if (n > this.ends.length) {
      this.ends = grow(this.ends, n);
      this.hashes = grow(this.hashes, n);
      if (this.ids) this.ids = grow(this.ids, n);
    }
  }

  id(buf: Uint8Array, s: number, e: number): number {
    return this.find(buf, s, e, hashBytes(buf, s, e));
  }

  /** The ids of a range's spellings (a thread's Strings.spellings), in their order. */
  merge(sp: Spellings): Int32Array {
    const { bytes, ends, hashes } = sp;
    const out = new Int32Array(ends.length);
    this.text = null;
    let ascii: boolean | null = null;
    for (let k = 0, s = 0; k < ends.length; s = ends[k++]!) {
      const e = ends[k]!;
      const known = this.lookup(bytes, s, e, hashes[k]!);
      if (known >= 0) {
        out[k] = known;
        continue;
      }
      // a first new spelling: the pool decoded whole if ASCII (each new one is then a slice of it)
      if (ascii === null && this.texts && (ascii = isAscii(bytes))) this.text = utf8.decode(bytes);
      out[k] = this.add(~known, hashes[k]!, bytes, s, e);
    }
    this.text = null;
    return out;
  }

  /** The spellings, in id order when ids are spellings. */
  spellings(): Spellings {
    const n = this.n;
    return { bytes: this.pool.slice(0, n ? this.ends[n - 1] : 0), ends: this.ends.slice(0, n), hashes: this.hashes.slice(0, n) };
  }

  private find(buf: Uint8Array, s: number, e: number, h: number): number {
    const known = this.lookup(buf, s, e, h);
    return known >= 0 ? known : this.add(~known, h, buf, s, e);
  }

  /** The id of bytes [s, e) with hash h, or ~slot of the empty slot where they would go. */
  private lookup(buf: Uint8Array, s: number, e: number, h: number): number {
    const t = this.table;
    const mask = (t.length >> 1) - 1;
    const len = e - s;
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const k = t[2 * i + 1]! - 1;
      if (k < 0) return ~i;
      if (t[2 * i] !== h) continue;
      const o = k ? this.ends[k - 1]! : 0;
      if (this.ends[k]! - o !== len) continue;
      const pool = this.pool;
      let p = 0;
      while (p < len && pool[o + p] === buf[s + p]) p++;
      if (p === len) return this.ids ? this.ids[k]! : k;
    }
  }

  private add(i: number, h: number, buf: Uint8Array, s: number, e: number): number {
    const k = this.n;
    let id = k;
    if (this.texts) id = this.entry(buf, s, e);
    const at = k ? this.ends[k - 1]! : 0;
    if (at + e - s > this.pool.length) this.pool = grow(this.pool, at + e - s);
    this.pool.set(buf.subarray(s, e), at);
    if (k === this.ends.length) {
      this.ends = grow(this.ends, k + 1);
      this.hashes = grow(this.hashes, k + 1);
    }
    this.ends[k] = at + e - s;
    this.hashes[k] = h;
    if (id !== k || this.ids) {
      if (!this.ids) this.ids = Int32Array.from({ length: this.ends.length }, (_, j) => j);
      if (this.ids.length <= k) this.ids = grow(this.ids, this.ends.length);
      this.ids[k] = id;
    }
    this.n++;
    this.table[2 * i] = h;
    this.table[2 * i + 1] = k + 1;
    if (this.n > FULL * (this.table.length >> 1)) this.rehash(this.table.length);
    return id;
  }

  /** The dict entry of a new spelling: decoded (a slice of the merged pool's text when ASCII). */
  private entry(buf: Uint8Array, s: number, e: number): number {
    const text = this.text !== null ? this.text.slice(s, e) : decode(buf, s, e);
    if (this.text !== null || !text.includes('\uFFFD')) return this.dict.push(text) - 1;
    const known = this.replaced.get(text);
    if (known !== undefined) return known;
    const id = this.dict.push(text) - 1;
    this.replaced.set(text, id);
    return id;
  }

  private rehash(slots: number): void {
    const old = this.table;
    const t = (this.table = new Int32Array(2 * slots));
    const mask = (t.length >> 1) - 1;
    for (let j = 0; j < old.length; j += 2) {
      if (old[j + 1] === 0) continue;
      let i = old[j]! & mask;
      while (t[2 * i + 1] !== 0) i = (i + 1) & mask;
      t[2 * i] = old[j]!;
      t[2 * i + 1] = old[j + 1]!;
    }
  }
}
