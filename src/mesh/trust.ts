// How much a coordinator trusts each worker's results: adaptive replication,
// as BOINC does it. In: the outcome of every check (coordinator.ts re-runs a
// committed result on other peers and compares digests, or applies
// Freivalds' test). Out: whether to check a new result of a peer, and which
// peers are quarantined. A record per peer id lives in a TrustStore (a file
// in Node, localStorage in a browser: host.textStore), so reputation and
// quarantine outlive a job and a session of the room; the signaling server
// vouches for ids (a reconnecting peer keeps its id).
//
// With `verify: 'sample'` every result of a peer is checked until it has a
// run of RUN verified results in a row; after that a result is checked with
// probability RATE, drawn after it committed, so the peer cannot know. A
// check that cannot be decided (two peers disagree, no third to vote) resets
// the run; a proven lie (outvoted 2:1) quarantines the peer for good, and
// the coordinator recomputes everything it committed in the current job, so
// a lie caught in the job it was told in does not make that job wrong.
// `strict` checks every result (twice the work); `off` checks none.
//
// The guarantee (with three workers or more, so that a vote can decide). A
// peer that lies on a fraction p of its results has all of its first RUN
// results checked, so it is trusted without having been caught with
// probability (1-p)^RUN. Once trusted, each lie is caught with
// probability RATE, so about (1-RATE)/RATE of its lies pass before one is
// caught and quarantines it. Over its whole life a liar gets at most
// (1-p)^RUN (1-RATE)/RATE wrong results accepted, on average: 0.12 for
// p = 1%, 1.4e-10 for p = 5%, and 19 (at a rate of p of its results) for a
// peer that lies very rarely, which sampling cannot tell from an honest one.
// An honest peer costs one re-run per result until it is trusted, then RATE.
//
// The parameters, from the target (bench/verify.js, test/mesh-sim.test.ts):
// 200 consecutive jobs of about 17 tasks on four workers, one lying on 1% or
// 5% of its results; at most 1% of jobs wrong, and under 10% re-runs per task
// once the honest peers are trusted.
// - RATE = 5%: the overhead after trust is RATE re-runs per task (an honest
//   result needs one re-run to agree), half the 10% target, so it stays under
//   it with sampling noise (5% +- 0.6% over 1000 tasks).
// - RUN = 500: each peer runs about 4 results per job (about 6 once the liar
//   is out), so honest peers are trusted after 90 to 125 of the 200 jobs. Wrong jobs come only from a liar
//   trusted before it was caught: p = 1% gets through with 0.99^500 = 0.66%
//   and then has about 3 lies left in the run; a model of the run (lies and
//   draws per result, 200,000 trials: `node bench/verify.js --model`) gives
//   more than 2 wrong jobs in 200 with probability 0.3%, and 0.017 wrong
//   jobs on average (0.008% of jobs); for p = 5% it never happened. RUN = 300
//   gave 3.7%, RUN = 400 1.1%, RUN = 600 0.06%; but each step of RUN is a
//   full re-run per result of every new peer, for RUN/4 more jobs (twice the
//   work), and leaves fewer of the 200 jobs to show the overhead after trust.

export type Verify = 'off' | 'sample' | 'strict';

/** Verified results in a row after which a peer's results are sampled rather than all checked. */
export const RUN = 500;
/** The probability that a result of a trusted peer is checked. */
export const RATE = 0.05;
/** Peers a store remembers; the least recently seen are forgotten first (quarantined ones last). */
const KEEP = 5000;
/** Saves of passed checks are gathered this long; a quarantine is saved at once. */
const SAVE_MS = 1000;

/** What a coordinator knows of a peer id. */
export interface PeerRecord {
  /** Results verified in a row since the peer joined or last disagreed. */
  readonly run: number;
  /** Results verified in all. */
  readonly verified: number;
  readonly quarantined?: true;
  /** When this record last changed (ms since the epoch). */
  readonly at: number;
}

export type TrustRecords = Record<string, PeerRecord>;

/** Where the records of a room are kept: synchronous, small, written whole. */
export interface TrustStore {
  load(): TrustRecords | undefined;
  save(records: TrustRecords): void;
}

/** Records read back from a store, each field checked (the bytes may be old, cut short or tampered with). */
export function parseRecords(text: string | null | undefined): TrustRecords {
  const out: TrustRecords = {};
  let raw: unknown;
  try { raw = JSON.parse(text ?? '{}'); } catch { return out; }
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return out;
  const count = (v: unknown) => (typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : 0);
  for (const [id, r] of Object.entries(raw as Record<string, unknown>)) {
    if (!r || typeof r !== 'object' || id.length > 200) continue;
    const o = r as Record<string, unknown>;
    const at = typeof o.at === 'number' && Number.isFinite(o.at) ? o.at : 0;
    const q = o.quarantined === true ? { quarantined: true as const } : {};
    out[id] = { run: count(o.run), verified: count(o.verified), at, ...q };
  }
  return out;
}

export class Trust {
  private readonly records = new Map<string, PeerRecord>();
  readonly quarantined = new Set<string>();
  private saveTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    readonly mode: Verify = 'off',
    private readonly random: () => number = Math.random,
    private readonly store?: TrustStore,
  ) {
    this.merge(store?.load() ?? {});
  }

  /** The probability that a result from `peer` is re-run elsewhere. */
  rate(peer: string): number {
    if (this.mode === 'off') return 0;
    if (this.mode === 'strict' || !this.trusted(peer)) return 1;
    return RATE;
  }

  /** Whether `peer` has its run of verified results (its results are sampled). */
  trusted(peer: string): boolean { return !this.quarantined.has(peer) && (this.records.get(peer)?.run ?? 0) >= RUN; }

  /** Whether to check this result of `peer` (decided after it committed, so the peer cannot know). */
  draw(peer: string): boolean {
    const r = this.rate(peer);
    return r >= 1 || (r > 0 && this.random() < r);
  }

  /** What is known of `peer`. */
  record(peer: string): PeerRecord | undefined { return this.records.get(peer); }

  /** A result of `peer` was verified. */
  passed(peer: string): void {
    const r = this.records.get(peer);
    this.set(peer, { run: (r?.run ?? 0) + 1, verified: (r?.verified ?? 0) + 1 });
  }

  /** A result of `peer` disagreed with another's and nothing decided which was wrong: check all of its results again. */
  disagreed(peer: string): void { this.set(peer, { run: 0, verified: this.records.get(peer)?.verified ?? 0 }); }

  /** `peer` was outvoted: quarantined, here and in the store, for good. */
  caught(peer: string): void {
    this.quarantined.add(peer);
    this.set(peer, { run: 0, verified: this.records.get(peer)?.verified ?? 0 });
    this.flush();
  }

  private set(peer: string, r: Omit<PeerRecord, 'at' | 'quarantined'>): void {
    const q = this.quarantined.has(peer) ? { quarantined: true as const } : {};
    this.records.set(peer, { ...r, at: Date.now(), ...q });
    if (this.store && !this.saveTimer) {
      this.saveTimer = setTimeout(() => this.flush(), SAVE_MS);
      (this.saveTimer as { unref?: () => void }).unref?.();
    }
  }

  /** Takes in records another coordinator of the room saved: its quarantines hold here; a peer's newer record wins. */
  private merge(records: TrustRecords): void {
    for (const [id, r] of Object.entries(records)) {
      if (r.quarantined) this.quarantined.add(id);
      const mine = this.records.get(id);
      if (!mine || r.at > mine.at) this.records.set(id, this.quarantined.has(id) ? { ...r, quarantined: true } : r);
    }
  }

  /** Writes the records to the store now (after merging what others wrote there since). */
  flush(): void {
    clearTimeout(this.saveTimer);
    this.saveTimer = undefined;
    if (!this.store) return;
    this.merge(this.store.load() ?? {});
    const q = (id: string) => this.quarantined.has(id);
    // quarantines are kept first, then the peers seen last
    const all = [...this.records].sort(([i, x], [j, y]) => Number(q(j)) - Number(q(i)) || y.at - x.at);
    const marked = all.slice(0, KEEP).map(([id, r]): [string, PeerRecord] => [id, q(id) ? { ...r, quarantined: true } : r]);
    this.store.save(Object.fromEntries(marked));
  }
}

/** A store over a host's text record (host.textStore: a file in Node, localStorage in a browser). */
export function textTrustStore(text: { read(): string | undefined; write(text: string): void }): TrustStore {
  return { load: () => parseRecords(text.read()), save: (records) => text.write(JSON.stringify(records)) };
}
