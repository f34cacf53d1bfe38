// A coordinator's journal on disk (Node): one file of JSON lines per job in a
// directory, appended as results are committed (see mesh/journal.ts). Only
// Node reaches this file, through the host (a browser keeps its journal in
// the mesh state alone).

import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Commit, Journal, JournalRecord } from './types.js';

type Line = { owner: string } | { t: number; peer: string; d: string; g?: true } | { t: number; gone: true };

export class FileJournal implements Journal {
  constructor(private readonly dir: string) { mkdirSync(dir, { recursive: true }); }

  private file(job: string): string {
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(job)) throw new Error(`not a job id: ${job}`);
    return join(this.dir, `${job}.jsonl`);
  }

  private add(job: string, line: Line): void { appendFileSync(this.file(job), `${JSON.stringify(line)}\n`); }

  async load(job: string): Promise<JournalRecord | undefined> {
    const f = this.file(job);
    if (!existsSync(f)) return undefined;
    let owner = '';
    const commits = new Map<number, Commit>();
    for (const text of readFileSync(f, 'utf8').split('\n')) {
      let l: Line;
      try { l = JSON.parse(text) as Line; } catch { continue; } // a line cut short by a crash
      if ('owner' in l) owner = l.owner;
      else if ('gone' in l) commits.delete(l.t);
      else if (Number.isInteger(l.t) && typeof l.peer === 'string' && typeof l.d === 'string') commits.set(l.t, { peer: l.peer, digests: l.d, ...(l.g === true ? { gpu: true } : {}) });
    }
    return { owner, commits };
  }

  begin(job: string, owner: string): void { this.add(job, { owner }); }
  commit(job: string, task: number, c: Commit): void { this.add(job, { t: task, peer: c.peer, d: c.digests, ...(c.gpu ? { g: true as const } : {}) }); }
  uncommit(job: string, task: number): void { this.add(job, { t: task, gone: true }); }
  end(job: string): void { rmSync(this.file(job), { force: true }); }
}
