// Consistent hashing with virtual nodes: each peer owns points on a 32-bit
// ring, as many as its weight (measured throughput) earns, and a key belongs
// to the first point at or after its hash. A peer that joins or leaves moves
// only the keys next to its own points.

const VNODES = 64;

/** FNV-1a, then a murmur3 finaliser to spread nearby keys. */
export function hash32(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) { h ^= s.charCodeAt(i); h = Math.imul(h, 0x01000193); }
  h ^= h >>> 16; h = Math.imul(h, 0x85ebca6b); h ^= h >>> 13; h = Math.imul(h, 0xc2b2ae35); h ^= h >>> 16;
  return h >>> 0;
}

export class Ring {
  private points: { at: number; peer: string }[] = [];
  private readonly count: number;
  /** Each peer's points, ascending (for `order`). */
  private readonly own = new Map<string, number[]>();

  /** `weights`: peer id -> relative throughput (the mean peer gets 64 virtual nodes). */
  constructor(weights: ReadonlyMap<string, number>) {
    const ws = [...weights.values()].filter((w) => w > 0);
    const mean = ws.length ? ws.reduce((a, b) => a + b, 0) / ws.length : 1;
    for (const [peer, w] of weights) {
      const n = Math.max(1, Math.min(8 * VNODES, Math.round((VNODES * (w > 0 ? w : mean)) / mean)));
      for (let v = 0; v < n; v++) this.points.push({ at: hash32(`${peer}#${v}`), peer });
    }
    this.points.sort((a, b) => a.at - b.at || (a.peer < b.peer ? -1 : 1));
    this.count = weights.size;
    for (const { at, peer } of this.points) {
      const a = this.own.get(peer);
      if (a) a.push(at); else this.own.set(peer, [at]);
    }
  }

  /** Every virtual node, in ring order (a dashboard draws them). */
  nodes(): readonly { readonly at: number; readonly peer: string }[] { return this.points; }

  /**
   * A comparator of peers in `owners(key)`'s order, without listing them all
   * (a binary search among each one's points: a placement asks it for every
   * task, and `owners` walks the whole ring). Peers not on the ring come last.
   */
  order(key: string): (a: string, b: string) => number {
    const h = hash32(key);
    const dist = (peer: string): number => {
      const a = this.own.get(peer);
      if (!a) return Infinity;
      let lo = 0, hi = a.length;
      while (lo < hi) { const mid = (lo + hi) >> 1; if (a[mid]! < h) lo = mid + 1; else hi = mid; }
      return lo < a.length ? a[lo]! - h : a[0]! + 2 ** 32 - h;
    };
    return (a, b) => {
      if (a === b) return 0;
      const da = dist(a), db = dist(b);
      return da !== db ? (da < db ? -1 : 1) : da === Infinity ? 0 : a < b ? -1 : 1;
    };
  }

  /** The peers that own `key`, in ring order (the owner first, then its successors). */
  owners(key: string): string[] {
    const p = this.points;
    if (!p.length) return [];
    const h = hash32(key);
    let lo = 0, hi = p.length;
    while (lo < hi) { const mid = (lo + hi) >> 1; if (p[mid]!.at < h) lo = mid + 1; else hi = mid; }
    const out: string[] = [];
    for (let i = 0; i < p.length && out.length < this.count; i++) {
      const peer = p[(lo + i) % p.length]!.peer;
      if (!out.includes(peer)) out.push(peer);
    }
    return out;
  }
}
