// String columns' dictionaries for read_csv, looked up by bytes. In: the byte
// spans of a column's values (csv.ts parseRows), or a range's distinct
// spellings with their hashes (a parse thread's, merged here by read.ts in file
// order). Out: ids in first-seen order, and either the spellings (a thread's
// range: nothing decoded) or the decoded dictionary (the frame's column).
// Design: one open-addressing table of (hash, id + 1, offset, length) over a
// pool of the distinct byte strings, so a value seen before costs no JS string
// and no Map; a new entry is decoded once, a slice of one decode of its range's
// whole pool when that pool is ASCII. A table out of cache is looked up in
// blocks whose slots are touched first (independent loads overlap; a lookup's
// branches wait on each). A thread whose ranges hold mostly distinct values
// sends them undeduped (raw): the driver's merge dedupes them anyway.

/**
 * Byte strings (distinct unless raw), in order: string k is bytes[ends[k - 1] (or 0) .. ends[k]), its FNV-1a hash
 * hashes[k].
 */
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
/** Values a merge touches ahead of looking them up: their lines fit in L2. */
const BLOCK = 512;

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
 * merges the spellings). `raw` (without texts): every value is a spelling of its own, not looked up (a range of
 * mostly distinct values, which the driver's merge dedupes anyway).
 */
export class Strings {
  readonly dict: string[] = [];
  /**
   * Texts with U+FFFD and their ids: only such texts can come from two spellings (invalid UTF-8 decodes to
   * U+FFFD; valid UTF-8 decodes one to one), so only they are looked up by text.
   */
  private readonly replaced = new Map<string, number>();
  private n = 0; // distinct values in the table (spellings when raw)
  // per slot: the hash, the id + 1 (0: empty; -(k + 1) while a merge's new value k has no id yet), and the bytes'
  // offset in pool and length, so that a probe reads one cache line before the bytes
  private table: Int32Array;
  private pool = new Uint8Array(1024);
  private used = 0; // bytes of pool
  private ends = new Int32Array(64); // without texts: spelling k is pool[ends[k - 1] (or 0) .. ends[k])
  private hashes = new Int32Array(64);
  private touched = 0; // what merge's loads read, kept so that they are not optimised away
  // values queued by `later`: their row, and bytes [s, e) of qbuf, with their hashes when flushed
  private queued = 0;
  private qbuf: Uint8Array | null = null;
  private readonly qrow = new Int32Array(BLOCK);
  private readonly qs = new Int32Array(BLOCK);
  private readonly qe = new Int32Array(BLOCK);
  private readonly qh = new Int32Array(BLOCK);

  /** `expect`: the distinct values expected (a table sized for them grows no more). */
  constructor(private readonly texts: boolean, expect = 0, readonly raw = false) {
    this.table = new Int32Array(4 * slotsFor(raw ? 0 : expect));
  }

  /** Distinct values (values, when raw). */
  get size(): number { return this.n; }

  /** Room for `n` distinct values of `bytes` bytes in all, so that a table expected to grow large grows once. */
  reserve(n: number, bytes: number): void {
    if (slotsFor(n) > this.table.length >> 2) this.rehash(slotsFor(n));
    if (bytes > this.pool.length) this.pool = grow(this.pool, bytes);
  }

  id(buf: Uint8Array, s: number, e: number): number {
    const h = hashBytes(buf, s, e);
    return this.raw ? this.spelling(h, buf, s, e) : this.find(buf, s, e, h);
  }

  private find(buf: Uint8Array, s: number, e: number, h: number): number {
    const t = this.table;
    const mask = (t.length >> 2) - 1;
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const q = i << 2;
      if (t[q + 1] === 0) {
        const id = this.texts ? this.entry(buf, s, e, null) : this.spelling(h, buf, s, e);
        this.insert(q, h, buf, s, e, id + 1);
        if (this.n > FULL * (t.length >> 2)) this.rehash(t.length >> 1);
        return id;
      }
      if (t[q] === h && t[q + 3] === e - s && this.same(t[q + 2]!, buf, s, e)) return t[q + 1]! - 1;
    }
  }

  /**
   * The id of bytes [s, e) of `buf` into out[i], now or with a block of others (flush), in order either way: a
   * large table's lookups are made in blocks that touch their slots first (see merge). `buf` must hold the bytes
   * until the block is flushed, and `out` must not be replaced before (the caller flushes before it grows out).
   */
  later(buf: Uint8Array, s: number, e: number, out: Int32Array, i: number): void {
    if (this.raw || this.table.length <= 1 << 18) {
      if (this.queued) this.flush(out);
      out[i] = this.id(buf, s, e);
      return;
    }
    if (this.queued && buf !== this.qbuf) this.flush(out);
    this.qbuf = buf;
    const j = this.queued++;
    this.qrow[j] = i;
    this.qs[j] = s;
    this.qe[j] = e;
    if (this.queued === BLOCK) this.flush(out);
  }

  /** Looks up the values `later` queued, their ids into out. */
  flush(out: Int32Array): void {
    const m = this.queued;
    if (m === 0) return;
    this.queued = 0;
    const buf = this.qbuf!;
    const hs = this.qh;
    for (let j = 0; j < m; j++) hs[j] = hashBytes(buf, this.qs[j]!, this.qs[j]! + (this.qe[j]! - this.qs[j]!));
    this.touch(hs, 0, m, (this.table.length >> 2) - 1);
    for (let j = 0; j < m; j++) out[this.qrow[j]!] = this.find(buf, this.qs[j]!, this.qe[j]!, hs[j]!);
  }

  /**
   * With texts: the ids of a range's spellings (a thread's Strings.spellings, which repeat when raw), in order.
   * A large table is out of cache, so each block of values first touches its slots (and the bytes of the entries
   * whose hash matches) in loops of independent loads, which the processor overlaps, before the block is looked
   * up in order (a lookup's branches wait on its load; a touch does not).
   */
  merge(sp: Spellings): Int32Array {
    if (!this.texts) throw new Error('Strings.merge: a dictionary of texts merges ranges');
    const { bytes, ends, hashes } = sp;
    const m = ends.length;
    this.reserve(this.n + m, this.used + bytes.length);
    const t = this.table;
    const mask = (t.length >> 2) - 1;
    const out = new Int32Array(m);
    const cold = t.length > 1 << 18; // past 1 MiB
    let text: string | null | undefined; // the range's bytes decoded once when ASCII: a new value is a slice
    for (let b = 0; b < m; b += BLOCK) {
      const end = Math.min(m, b + BLOCK);
      if (cold) this.touch(hashes, b, end, mask);
      for (let k = b; k < end; k++) {
        const h = hashes[k]!;
        const s = k ? ends[k - 1]! : 0;
        const e = ends[k]!;
        for (let i = h & mask; ; i = (i + 1) & mask) {
          const q = i << 2;
          if (t[q + 1] === 0) {
            if (text === undefined) text = isAscii(bytes) ? utf8.decode(bytes) : null;
            const id = this.entry(bytes, s, e, text);
            this.insert(q, h, bytes, s, e, id + 1);
            out[k] = id;
            break;
          }
          if (t[q] === h && t[q + 3] === e - s && this.same(t[q + 2]!, bytes, s, e)) {
            out[k] = t[q + 1]! - 1;
            break;
          }
        }
      }
    }
    return out;
  }

  /** Loads the first slot of values [b, end) and the bytes of a matching entry, so that their lines are cached. */
  private touch(hashes: Int32Array, b: number, end: number, mask: number): void {
    const t = this.table;
    let x = 0;
    for (let k = b; k < end; k++) x |= t[(hashes[k]! & mask) << 2]!;
    const pool = this.pool;
    for (let k = b; k < end; k++) {
      const q = (hashes[k]! & mask) << 2;
      if (t[q] === hashes[k]) x |= pool[t[q + 2]!]!;
    }
    this.touched = x;
  }

  /** The spellings (without texts), in id order. */
  spellings(): Spellings {
    const n = this.texts ? 0 : this.n;
    return { bytes: this.pool.slice(0, this.used), ends: this.ends.slice(0, n), hashes: this.hashes.slice(0, n) };
  }

  private same(o: number, buf: Uint8Array, s: number, e: number): boolean {
    const pool = this.pool;
    let p = s;
    while (p < e && pool[o++] === buf[p]) p++;
    return p === e;
  }

  /** Bytes [s, e) into pool and slot q. */
  private insert(q: number, h: number, buf: Uint8Array, s: number, e: number, id1: number): void {
    const t = this.table;
    t[q] = h;
    t[q + 1] = id1;
    t[q + 2] = this.used;
    t[q + 3] = e - s;
    this.append(buf, s, e);
    if (this.texts) this.n++;
  }

  private append(buf: Uint8Array, s: number, e: number): void {
    if (this.used + e - s > this.pool.length) this.pool = grow(this.pool, this.used + e - s);
    const pool = this.pool;
    let o = this.used;
    // a byte loop: most values are short, and a subarray per value would allocate
    for (let p = s; p < e; p++) pool[o++] = buf[p]!;
    this.used = o;
  }

  /** A new spelling's id (without texts): its hash and end recorded for spellings(). */
  private spelling(h: number, buf: Uint8Array, s: number, e: number): number {
    const k = this.n++;
    if (k === this.ends.length) {
      this.ends = grow(this.ends, k + 1);
      this.hashes = grow(this.hashes, k + 1);
    }
    if (this.raw) this.append(buf, s, e);
    this.ends[k] = this.raw ? this.used : this.used + e - s; // (a looked-up one's bytes go to pool in insert)
    this.hashes[k] = h;
    return k;
  }

  /** The dict entry of a new value: decoded (a slice of its range's text when that is ASCII). */
  private entry(buf: Uint8Array, s: number, e: number, ascii: string | null): number {
    const text = ascii !== null ? ascii.slice(s, e) : decode(buf, s, e);
    if (ascii !== null || !text.includes('\uFFFD')) return this.dict.push(text) - 1;
    const known = this.replaced.get(text);
    if (known !== undefined) return known;
    const id = this.dict.push(text) - 1;
    this.replaced.set(text, id);
    return id;
  }

  private rehash(slots: number): void {
    const old = this.table;
    const t = (this.table = new Int32Array(4 * slots));
    const mask = slots - 1;
    for (let j = 0; j < old.length; j += 4) {
      if (old[j + 1] === 0) continue;
      let i = old[j]! & mask;
      while (t[(i << 2) + 1] !== 0) i = (i + 1) & mask;
      const q = i << 2;
      t[q] = old[j]!;
      t[q + 1] = old[j + 1]!;
      t[q + 2] = old[j + 2]!;
      t[q + 3] = old[j + 3]!;
    }
  }
}
