// The tiled factorizations (src/api/linalg_tiled.ts, linalg_lu.ts, linalg_qr.ts) as mesh jobs: the real
// Coordinator and worker peers over the seeded in-memory network
// (src/mesh/sim.ts), through failure schedules that strike mid-DAG: a worker
// killed after a given count of task results reached the coordinator, two
// killed at different steps, one frozen past its lease that wakes up late,
// one joining mid-job; and one kill with the coordinator placing by LSHS. Every job must end with the local pool's result, bit
// for bit (each tile task is deterministic and writes its tile once, so a
// re-run writes the same bits), with every task committed once plus once per
// recomputation of a lost piece, and the report must show the re-runs.
// Cases and schedules are tables: a factorization added later is one more
// row of CASES.
// In: small float64 matrices over 4×4 to 6×6 tiles, a tall one over 10 row chunks.

import { afterAll, describe, expect, it } from 'vitest';
import * as mt from '../src/api/tensor.js';
import { Coordinator, type MeshReport } from '../src/mesh/coordinator.js';
import { Lshs } from '../src/mesh/lshs.js';
import { SimNet, rng } from '../src/mesh/sim.js';
import { MeshState } from '../src/mesh/state.js';
import { MeshWorker } from '../src/mesh/worker.js';
import { runtime } from '../src/runtime/runtime.js';

afterAll(() => mt.shutdown());

/** A seeded symmetric positive definite n×n matrix (B Bᵀ / n + I, B uniform in [-1, 1)), chunked in c×c tiles. */
function spd(n: number, c: number, seed: number): mt.Tensor {
  const r = rng(seed);
  const b = Float64Array.from({ length: n * n }, () => 2 * r() - 1);
  const a = Array.from({ length: n }, () => new Array<number>(n).fill(0));
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      let s = 0;
      for (let k = 0; k < n; k++) s += b[i * n + k]! * b[j * n + k]!;
      a[i]![j] = a[j]![i] = s / n + (i === j ? 1 : 0);
    }
  }
  return mt.tensor(a, { dtype: 'float64', chunkSize: [c, c] });
}

/** A seeded m×n matrix with entries uniform in [-1, 1), chunked as `chunk`; `lower`: its upper triangle zeroed, its diagonal lifted. */
function uniform(m: number, n: number, chunk: [number, number], seed: number, lower = false): mt.Tensor {
  const r = rng(seed);
  const a = Array.from({ length: m }, (_, row) => Array.from({ length: n }, (_, col) => {
    if (!lower) return 2 * r() - 1;
    return col > row ? 0 : col === row ? 2 + r() : (2 * r() - 1) / 4;
  }));
  return mt.tensor(a, { dtype: 'float64', chunkSize: chunk });
}

interface Case {
  /** The job's outputs, as fresh lazy tensors each call (a run materialises them). */
  readonly build: () => mt.Tensor[];
  /** 0: the mesh's bits equal the pool's; else the largest difference allowed. */
  readonly tol: number;
}

/** The factorizations as mesh jobs; the inputs are sources the coordinator serves. */
const CASES: Record<string, Case> = {
  'cholesky 5×5 tiles': { build: () => [mt.linalg.cholesky(spd(160, 32, 1))], tol: 0 },
  'cholesky then cho_solve, 4×4 tiles': {
    build: () => {
      const L = mt.linalg.cholesky(spd(128, 32, 2));
      return [L, mt.linalg.cho_solve([L, true], uniform(128, 3, [32, 3], 3))];
    },
    tol: 0,
  },
  // six column chunks of b: 36 tile tasks, X_ic folding its T_ik X_kc products
  'solve_triangular 6×6 tiles': {
    build: () => [mt.linalg.solve_triangular(uniform(192, 192, [32, 32], 4, true), uniform(192, 12, [32, 2], 5), { lower: true })],
    tol: 0,
  },
  // the tournament, the swaps folded into the updates, the permuted copy-out of L; solve through it
  'lu and solve, 4×4 tiles': {
    build: () => {
      const a = uniform(128, 128, [32, 32], 7);
      // check_finite=False: its check is a host stage (a session runs it; Coordinator.run takes a graph without one)
      return [...(mt.linalg.lu(a, { check_finite: false }) as mt.Tensor[]), mt.linalg.solve(a, uniform(128, 2, [32, 2], 8))];
    },
    tol: 0,
  },
  // PLASMA's tile QR: GEQRT, UNMQR, TSQRT and TSMQR tiles, Q by the reflectors applied to the identity's tiles
  'qr (tile Householder), 4×3 tiles': { build: () => mt.linalg.qr(uniform(128, 96, [32, 32], 9)) as mt.Tensor[], tol: 0 },
  'tsqr 2000×16 over 10 row chunks': { build: () => mt.linalg.qr(uniform(2000, 16, [200, 16], 6)) as mt.Tensor[], tol: 0 },
};

interface Schedule {
  readonly workers: number;
  /** A worker is killed when the n-th task result reaches the coordinator (after it counted: the pieces it held are lost). */
  readonly kills?: readonly number[];
  /** A worker stops answering at the n-th result for `ms` (its lease lapses), then wakes up. */
  readonly freeze?: { readonly at: number; readonly ms: number };
  /** A worker joins at the n-th result. */
  readonly join?: number;
  /** The coordinator places by NumS's LSHS (src/mesh/lshs.ts) instead of the locality rule. */
  readonly lshs?: boolean;
}

const SCHEDULES: Record<string, Schedule> = {
  'one worker killed mid-DAG': { workers: 3, kills: [8] },
  'two workers killed at different steps': { workers: 4, kills: [5, 17] },
  'a worker frozen past its lease, then waking': { workers: 3, freeze: { at: 6, ms: 400 } },
  'a worker joining mid-job, one killed after': { workers: 2, join: 4, kills: [12] },
  'placed by LSHS, one worker killed mid-DAG': { workers: 3, kills: [8], lshs: true },
};

const local = new Map<string, Float64Array[]>();
async function want(name: string): Promise<Float64Array[]> {
  let w = local.get(name);
  if (!w) {
    const outs = CASES[name]!.build();
    w = [];
    for (const t of outs) w.push((await t.fetch()).data as Float64Array);
    local.set(name, w);
  }
  return w;
}

/** What the schedules made the coordinator do, summed over every run (they must really fail). */
const seen = { kills: 0, frozen: 0, joins: 0, releases: 0, recomputed: 0, leases: 0, tasks: 0 };

async function runOnSim(name: string, sname: string, seed: number): Promise<MeshReport> {
  const s = SCHEDULES[sname]!;
  const net = new SimNet({ seed, maxDelayMs: 3 });
  const cep = net.join('coordinator');
  const cstate = new MeshState(cep, 40);
  // leases shorter than the freeze: the frozen worker's tasks go elsewhere, and its late results are dropped
  const coord = new Coordinator(cep, cstate, {
    runtime, tickMs: 10, leaseMs: 150, fetchTimeoutMs: 80, waitForWorkersMs: 10_000, ...(s.lshs ? { placement: () => new Lshs() } : {}),
  });
  const closers: (() => void)[] = [() => coord.close(), () => cstate.close()];
  const live: string[] = [];
  let n = 0;
  const addWorker = () => {
    const id = `w${n++}`;
    const ep = net.join(id);
    const st = new MeshState(ep, 40);
    st.announce({ role: 'worker', device: 'wasm', throughput: 1, memory: 1 << 28, slots: 2 });
    const w = new MeshWorker(ep, { runtime, memory: 1 << 28, heartbeatMs: 25, fetchTimeoutMs: 80 });
    closers.push(() => w.close(), () => st.close());
    live.push(id);
  };
  for (let i = 0; i < s.workers; i++) addWorker();
  // the victim is the worker whose result just counted: it held pieces the DAG still reads
  const kill = (id: string) => {
    const i = live.indexOf(id);
    if (i < 0 || live.length < 2) return;
    live.splice(i, 1);
    seen.kills++;
    net.kill(id);
  };
  let results = 0;
  net.watch((step, from, to, m) => {
    if (step !== 'arrive' || m.t !== 'done' || to !== 'coordinator') return;
    results++;
    for (const k of s.kills ?? []) if (k === results) setTimeout(() => kill(from), 0);
    if (s.freeze?.at === results) { seen.frozen++; net.freeze(from, s.freeze.ms); }
    if (s.join === results) { seen.joins++; addWorker(); }
  });
  await new Promise((r) => setTimeout(r, 60)); // the workers' announcements arrive
  try {
    const outs = CASES[name]!.build();
    let stuck: ReturnType<typeof setTimeout> | undefined;
    const rep = await Promise.race([
      coord.run(outs.map((t) => t.node)),
      new Promise<never>((_, reject) => {
        stuck = setTimeout(() => reject(new Error(`${name} / ${sname} seed ${seed} did not finish in 20 s: ${coord.describe().join('; ')}`)), 20_000);
      }),
    ]).finally(() => clearTimeout(stuck));
    const w = await want(name);
    const tol = CASES[name]!.tol;
    for (const [i, t] of outs.entries()) {
      const got = (await t.fetch()).data as Float64Array;
      if (tol === 0) expect(Array.from(got), `${name} / ${sname} seed ${seed}: output ${i}`).toEqual(Array.from(w[i]!));
      else expect(Math.max(...got.map((x, j) => Math.abs(x - w[i]![j]!))), `${name} / ${sname} seed ${seed}: output ${i}`).toBeLessThanOrEqual(tol);
    }
    // no lost work: every task committed once, plus once per recomputation of a lost piece
    expect(rep.commits, `${name} / ${sname} seed ${seed}`).toBe(rep.tasks + rep.recomputed);
    seen.releases += rep.releases; seen.recomputed += rep.recomputed; seen.leases += rep.leases; seen.tasks += rep.tasks;
    return rep;
  } finally {
    closers.forEach((c) => c());
  }
}

describe('the tiled factorizations on the simulated mesh, through failure schedules mid-DAG', () => {
  for (const name of Object.keys(CASES)) {
    for (const sname of Object.keys(SCHEDULES)) {
      it(`${name}: ${sname}, the local result bit for bit, re-runs in the report`, async () => {
        const reruns = { releases: 0, recomputed: 0, extra: 0, byJoined: 0 };
        const joined = `w${SCHEDULES[sname]!.workers}`;
        for (const seed of [1, 2]) {
          const rep = await runOnSim(name, sname, seed);
          reruns.releases += rep.releases; reruns.recomputed += rep.recomputed; reruns.extra += rep.leases - rep.tasks;
          reruns.byJoined += rep.peers.find((p) => p.id === joined)?.tasks ?? 0;
        }
        // a worker that joined mid-job took part in it
        if (SCHEDULES[sname]!.join !== undefined) expect(reruns.byJoined, `${name} / ${sname}: tasks run by ${joined}`).toBeGreaterThan(0);
        // a kill or a freeze mid-DAG costs leases again (a lapsed or orphaned lease) or recomputed pieces
        expect(reruns.releases + reruns.recomputed, `${name} / ${sname}: ${JSON.stringify(reruns)}`).toBeGreaterThan(0);
        expect(reruns.extra).toBeGreaterThan(0);
      }, 60_000);
    }
  }

  it('the schedules really struck: workers killed, frozen and joined; leases re-granted and pieces recomputed', () => {
    console.log('linalg failure schedules:', JSON.stringify(seen));
    for (const k of ['kills', 'frozen', 'joins', 'releases', 'recomputed'] as const) expect(seen[k], k).toBeGreaterThan(0);
  });
});
