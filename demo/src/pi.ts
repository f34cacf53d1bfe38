// The pi page: this tab is the coordinator. It builds the README's Monte
// Carlo program with `mt` and runs it on the room's workers, a slice of the
// points at a time (each slice one mesh job over its chunks), so the plot can
// show the estimate converging. The counts are integers, so their sum is the
// count of the whole program, bit for bit what a local run gives.
//
// In: the room from the URL, the points and seed. Out: the estimate, its
// plot, and the workers that computed it. Cancel aborts the running slice's
// job (its workers are told to drop it) and stops the run.

import { mt, session } from 'tessera';
import { $, bytes, connectionLine, fail, pageUrl, roomFromUrl, setStatus } from './common.js';

/** Slices of the points, one mesh job each: a point on the plot per slice. */
const ROUNDS = 10;
const CHUNK = 1_000_000;

interface Point { readonly n: number; readonly pi: number }

function plot(points: readonly Point[], N: number): void {
  const W = 600, H = 260, L = 50, B = 24, T = 10;
  // wide enough for every estimate and for 3 standard errors of the first one
  const sigma = (n: number) => 4 * Math.sqrt((Math.PI / 4) * (1 - Math.PI / 4) / n);
  const span = Math.max(3 * sigma(points[0]!.n), ...points.map((p) => Math.abs(p.pi - Math.PI) * 1.3));
  const x = (n: number) => L + ((W - L - 10) * n) / N;
  const y = (v: number) => T + ((H - T - B) * (1 - (v - (Math.PI - span)) / (2 * span)));
  const path = points.map((p, i) => `${i ? 'L' : 'M'}${x(p.n).toFixed(1)},${y(p.pi).toFixed(1)}`).join('');
  $('plot').innerHTML = `
    <line x1="${L}" x2="${W - 10}" y1="${y(Math.PI)}" y2="${y(Math.PI)}" stroke="#c33" stroke-dasharray="4 3"/>
    <text x="${W - 12}" y="${y(Math.PI) - 4}" text-anchor="end" font-size="11" fill="#c33">π</text>
    <text x="4" y="${y(Math.PI + span) + 10}" font-size="11">${(Math.PI + span).toFixed(4)}</text>
    <text x="4" y="${y(Math.PI - span)}" font-size="11">${(Math.PI - span).toFixed(4)}</text>
    <text x="${W - 10}" y="${H - 6}" text-anchor="end" font-size="11">${N.toExponential(0)} points</text>
    <path d="${path}" fill="none" stroke="#2456c8" stroke-width="2"/>
    ${points.map((p) => `<circle cx="${x(p.n).toFixed(1)}" cy="${y(p.pi).toFixed(1)}" r="2.5" fill="#2456c8"/>`)
    .join('')}`;
}

try {
  const room = roomFromUrl();
  $('room').textContent = room.room;
  $<HTMLAnchorElement>('to-join').href = pageUrl('join.html');
  $<HTMLAnchorElement>('to-dashboard').href = pageUrl('dashboard.html');
  const s = await session(room);
  const run = $<HTMLButtonElement>('run'), cancel = $<HTMLButtonElement>('cancel');
  const workers = () => s.workers().size;
  let running: AbortController | undefined;
  const showWorkers = () => {
    $('workers').textContent = `${workers()} worker${workers() === 1 ? '' : 's'}`;
    run.disabled = workers() === 0 || running !== undefined;
    cancel.disabled = running === undefined;
  };
  const connection = () => {
    const c = s.node.connection;
    if (c !== 'online') setStatus(connectionLine(c, room.room), c === 'closed' ? 'error' : 'busy');
  };
  s.node.onConnection(connection);
  setInterval(showWorkers, 500);
  setStatus('connected; waiting for workers (open the join page in other tabs or machines)', 'busy');
  await s.waitForWorkers(1, 3_600_000);
  setStatus('ready');
  showWorkers();

  const go = async (N: number, seed: number) => {
    if (!Number.isInteger(N) || N <= 0 || N % (ROUNDS * CHUNK) !== 0) {
      throw new Error(`points must be a positive multiple of ${(ROUNDS * CHUNK).toExponential(0)}`);
    }
    if (running) throw new Error('a run is under way: cancel it first');
    const abort = (running = new AbortController());
    showWorkers();
    // a new run starts from a clean slate: the last run's plot and numbers go
    $('plot').innerHTML = '';
    for (const id of ['pi', 'err', 'rate', 'time', 'moved']) $(id).textContent = '—';
    $('done').textContent = '0';
    $<HTMLProgressElement>('progress').value = 0;
    setStatus(`computing on ${workers()} workers…`, 'busy');
    try {
      mt.random.seed(seed);
      const d = mt.random.uniform(-1, 1, [N, 2], { chunkSize: CHUNK });
      const inside = mt.sqrt(d.power(2).sum({ axis: 1 })).less(1);
      const per = N / ROUNDS;
      const points: Point[] = [];
      /** Workers that computed at least one task of the run (not the ones linked at its end). */
      const computed = new Set<string>();
      let count = 0, moved = 0;
      const t0 = performance.now();
      for (let r = 0; r < ROUNDS; r++) {
        const part = inside.get(`${r * per}:${(r + 1) * per}`).sum();
        const name = `pi ${N.toExponential(0).replace('+', '')} · slice ${r + 1}/${ROUNDS}`;
        const onProgress = ({ done, total }: { done: number; total: number }) => {
          $<HTMLProgressElement>('progress').value = (r + done / total) / ROUNDS;
        };
        await part.execute({ session: s, name, signal: abort.signal, onProgress });
        count += Number((await part.fetch()).item());
        for (const p of s.lastReport?.peers ?? []) if (p.tasks > 0) computed.add(p.id);
        moved += s.lastReport?.bytesMoved ?? 0;
        const n = (r + 1) * per, pi = (4 * count) / n, secs = (performance.now() - t0) / 1000;
        points.push({ n, pi });
        $('pi').textContent = pi.toFixed(7);
        $('err').textContent = Math.abs(pi - Math.PI).toExponential(2);
        $('done').textContent = n.toExponential(2);
        $('rate').textContent = `${(n / secs / 1e6).toFixed(1)} M`;
        $('time').textContent = `${secs.toFixed(2)} s`;
        $('moved').textContent = bytes(moved);
        plot(points, N);
      }
      const seconds = (performance.now() - t0) / 1000;
      const result = { N, seed, inside: count, pi: (4 * count) / N, seconds, workers: computed.size };
      (window as unknown as { piResult: unknown }).piResult = result;
      const by = `${result.workers} worker${result.workers === 1 ? '' : 's'}`;
      setStatus(`pi ≈ ${result.pi} from ${N.toExponential(0)} points in ${seconds.toFixed(2)} s, computed by ${by}`);
      return result;
    } catch (e) {
      if (!abort.signal.aborted) throw e;
      setStatus('cancelled: the job stopped and its workers dropped its pieces', 'busy');
      throw new Error('cancelled');
    } finally {
      running = undefined;
      showWorkers();
    }
  };
  (window as unknown as { runPi: typeof go }).runPi = go;
  run.onclick = () => {
    const N = Number($<HTMLInputElement>('points').value), seed = Number($<HTMLInputElement>('seed').value);
    go(N, seed).catch((e: Error) => { if (e.message !== 'cancelled') fail(e); });
  };
  cancel.onclick = () => running?.abort();
  if (new URLSearchParams(location.search).has('autorun')) run.click();
} catch (e) {
  fail(e);
}
