// How much a coordinator trusts each worker's results. Volunteers are
// untrusted: with `verify: 'sample'` a fraction of each peer's results is
// re-run on a different peer and compared bit for bit (both run on the CPU,
// where kernels are deterministic). New peers are checked often, peers with
// a long record of verified results less, never below a floor, so a peer
// that lies from the start is caught within its first tasks and one that
// turns later is still caught. `strict` re-runs every result (BOINC's
// replication, at twice the cost); `off` trusts everyone. A peer caught
// lying is quarantined for the coordinator's lifetime.

export type Verify = 'off' | 'sample' | 'strict';

/** Check rate of a peer with no verified results yet: (1 - 0.2)^50 < 1e-4, so a liar is caught within 50 tasks with p > 0.9999. */
const START = 0.2;
/** Each verified result lowers the rate by this factor... */
const DECAY = 0.8;
/** ...down to this floor. */
const FLOOR = 0.03;

export class Trust {
  private readonly verified = new Map<string, number>();
  readonly quarantined = new Set<string>();

  constructor(readonly mode: Verify = 'off', private readonly random: () => number = Math.random) {}

  /** The probability that a result from `peer` is re-run elsewhere. */
  rate(peer: string): number {
    if (this.mode === 'off') return 0;
    if (this.mode === 'strict') return 1;
    return Math.max(FLOOR, START * DECAY ** (this.verified.get(peer) ?? 0));
  }

  /** Whether to check this result of `peer` (decided after it committed, so the peer cannot know). */
  draw(peer: string): boolean { return this.random() < this.rate(peer); }

  passed(peer: string): void { this.verified.set(peer, (this.verified.get(peer) ?? 0) + 1); }

  caught(peer: string): void { this.quarantined.add(peer); }
}
