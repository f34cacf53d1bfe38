// What a coordinator writes down so that a job outlives it. A resumable job's
// id is a fingerprint of its plan (kernels, tasks, tensor shapes and the
// bytes of its sources), so the same program run again, by a restarted
// process or by another tab, names the same job; the journal records which
// worker committed each task's result, and with which digests. A coordinator
// that finds a journal for its job, written by a coordinator that is gone,
// adopts every result whose worker is still in the room and computes only
// the rest. The journal lives in the mesh state (every peer holds a replica,
// so it survives the coordinator) and, in Node, in a file as well.
// A record in the mesh state counts only where the coordinator it names wrote
// it (state.ts binds writes to writers), and what a job adopts is verified
// like any other result: a journal is a claim, not a proof.

import * as Y from 'yjs';
import type { Plan } from '../tile/tile.js';
import { encodeKernel } from '../ir/wire.js';
import { type MeshState, clientOf, writerOf } from './state.js';
import type { Commit, Journal, JournalRecord } from '../host/types.js';

const hex = (b: ArrayBuffer): string => [...new Uint8Array(b)].map((x) => x.toString(16).padStart(2, '0')).join('');

/** The job id of a resumable plan: `r` and 24 hex digits of SHA-256 over everything that decides its results. */
export async function planId(plan: Plan, sourceDigest: (tensor: number) => Promise<string | undefined>): Promise<string> {
  const parts: string[] = [];
  for (const [i, t] of plan.tensors.entries()) parts.push(`T${i}:${t.dtype}:${t.shape}:${t.chunk}:${(await sourceDigest(i)) ?? ''}`);
  for (const k of plan.kernels) parts.push(`K${encodeKernel(k)}`);
  for (const t of plan.tasks) parts.push(`t${JSON.stringify(t)}`);
  parts.push(`O${[...plan.outputs.values()]}`);
  const h = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(parts.join('\n')));
  return `r${hex(h).slice(0, 24)}`;
}

/** How long the journal of a job whose coordinator left is kept in the mesh state (a failed job's is never ended). */
export const JOURNAL_TTL_MS = 24 * 3600 * 1000;

/** The journal in the mesh state: `journal` maps a job to its owner, when it began, and its commits (task -> [peer, digests]). */
export class StateJournal implements Journal {
  private readonly map: Y.Map<Y.Map<unknown>>;

  constructor(private readonly state: MeshState, private readonly ttlMs = JOURNAL_TTL_MS) { this.map = state.doc.getMap('journal'); }

  /** The job's record, if the coordinator it names wrote it; entries others wrote into it do not count. */
  async load(job: string): Promise<JournalRecord | undefined> {
    const m = this.map.get(job);
    const owner = m?.get('owner');
    if (!m || typeof owner !== 'string') return undefined;
    const writer = clientOf(owner);
    if (writerOf(this.map as Y.Map<unknown>, job) !== writer || writerOf(m, 'owner') !== writer) return undefined;
    const commits = new Map<number, Commit>();
    for (const [k, v] of m) {
      const t = Number(k);
      if (!Number.isInteger(t) || t < 0 || !Array.isArray(v) || writerOf(m, k) !== writer) continue;
      const [peer, digests, gpu] = v as unknown[];
      if (typeof peer === 'string' && typeof digests === 'string') commits.set(t, { peer, digests, ...(gpu === true ? { gpu } : {}) });
    }
    return { owner, commits };
  }

  /** A new record of the job, written by its new owner (an adopting coordinator copies what it adopts). */
  begin(job: string, owner: string): void {
    this.state.doc.transact(() => {
      this.sweep();
      const m = new Y.Map<unknown>();
      this.map.set(job, m);
      m.set('owner', owner);
      m.set('at', Date.now());
    });
  }

  /** Forgets journals whose coordinator left more than the TTL after they began (a failed job's, a job no one resumed). */
  private sweep(): void {
    const live = new Set([this.state.self, ...this.state.linked()]);
    for (const [job, m] of [...this.map]) {
      const owner = m.get('owner'), at = m.get('at');
      if (typeof owner === 'string' && live.has(owner)) continue;
      if (typeof at !== 'number' || !(Math.abs(Date.now() - at) <= this.ttlMs)) this.map.delete(job);
    }
  }

  commit(job: string, task: number, c: Commit): void { this.map.get(job)?.set(String(task), c.gpu ? [c.peer, c.digests, true] : [c.peer, c.digests]); }

  uncommit(job: string, task: number): void { this.map.get(job)?.delete(String(task)); }

  end(job: string): void { this.map.delete(job); }
}

/** Journals written together; a record is read from the first that has one. */
export class Journals implements Journal {
  constructor(private readonly all: readonly Journal[]) {}
  async load(job: string): Promise<JournalRecord | undefined> {
    for (const j of this.all) { const r = await j.load(job); if (r) return r; }
    return undefined;
  }
  begin(job: string, owner: string): void { for (const j of this.all) j.begin(job, owner); }
  commit(job: string, task: number, c: Commit): void { for (const j of this.all) j.commit(job, task, c); }
  uncommit(job: string, task: number): void { for (const j of this.all) j.uncommit(job, task); }
  end(job: string): void { for (const j of this.all) j.end(job); }
}
