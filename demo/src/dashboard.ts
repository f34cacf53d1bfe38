// The dashboard: joins the room as an observer (never given work) and draws
// the shared state as it changes: peers and their devices, the ring the
// coordinators place source chunks on, job progress, bytes moved, and
// failures and recomputes as they happen.
//
// In: the room from the URL, then the shared state (observe). Out: the page.
// What the shared state alone does not say is kept here: when a peer left
// (it fades, then goes), when a job's coordinator left (the job is marked,
// then pruned: nobody will finish it), and a log of events that outlives the
// 40 a job publishes, with failures kept apart (in localStorage, per room),
// so a re-lease is still there to read after the job moved on.

import { type JobEvent, type JobView, type MeshView, type PeerView, observe } from 'tessera';
import { $, Colours, bytes, connectionLine, esc, fail, pageUrl, roomFromUrl, setStatus, short } from './common.js';

/** A departed peer stays listed (fading) this long. */
const GONE_MS = 30_000;
/** A running job's coordinator must be missing this long before the job is marked (its link may still be coming up). */
const ORPHAN_GRACE_MS = 3000;
/** A job whose coordinator left is listed this long after it was marked, then pruned. */
const ORPHAN_SHOW_MS = 60_000;
/** Jobs listed at most, and events kept (recent ones, and failures). */
const KEEP_JOBS = 6;
const KEEP_RECENT = 30;
const KEEP_FAILURES = 200;
const FAILURES: ReadonlySet<string> = new Set([
  'release', 'recompute', 'peer-left', 'quarantine', 'bench', 'failed', 'coordinator-left',
]);

interface Logged {
  readonly key: string;
  /** Wall-clock time, ms. */
  readonly at: number;
  readonly job: string;
  readonly kind: string;
  readonly text: string;
}

const colours = new Colours();
const goneSince = new Map<string, number>();
const orphanSince = new Map<string, number>();
const seen = new Set<string>();
const recent: Logged[] = [];
let failures: Logged[] = [];
let failuresKey = '';
let lastDone: { t: number; done: number; job: string } | undefined;
let tps = 0;

const label = (j: JobView): string => j.name ?? j.id;

function log(e: Logged): void {
  if (seen.has(e.key)) return;
  seen.add(e.key);
  recent.push(e);
  if (recent.length > KEEP_RECENT) seen.delete(recent.shift()!.key);
  if (!FAILURES.has(e.kind)) return;
  failures.push(e);
  failures.sort((a, b) => a.at - b.at);
  if (failures.length > KEEP_FAILURES) failures.splice(0, failures.length - KEEP_FAILURES);
  try {
    localStorage.setItem(failuresKey, JSON.stringify(failures));
  } catch { /* storage blocked: kept for this visit */ }
}

function loadFailures(room: string): void {
  failuresKey = `tessera.failures.${room}`;
  try {
    const l = JSON.parse(localStorage.getItem(failuresKey) ?? '[]') as unknown;
    const valid = (e: Logged): e is Logged =>
      !!e && typeof e.key === 'string' && typeof e.at === 'number' && typeof e.text === 'string';
    if (Array.isArray(l)) failures = (l as Logged[]).filter(valid).slice(-KEEP_FAILURES);
  } catch { failures = []; }
  for (const f of failures) seen.add(f.key);
}

function eventText(j: JobView, e: JobEvent): string {
  const parts = [e.kind, e.peer ? `peer ${short(e.peer)}` : '', e.task !== undefined ? `task ${e.task}` : '', e.detail];
  return `${label(j)} · ${parts.filter(Boolean).join(' · ')}`;
}

function ring(view: MeshView, job: JobView | undefined): string {
  const { nodes, pieces } = view.ring(job);
  const pt = (at: number, r: number) => [Math.sin(at * 2 * Math.PI) * r, -Math.cos(at * 2 * Math.PI) * r] as const;
  const ticks = nodes.map((n) => {
    const [x1, y1] = pt(n.at, 128), [x2, y2] = pt(n.at, 142);
    return `<line x1="${x1.toFixed(1)}" y1="${y1.toFixed(1)}" x2="${x2.toFixed(1)}" y2="${y2.toFixed(1)}" `
      + `stroke="${colours.of(n.peer)}" stroke-width="2"/>`;
  });
  const dots = pieces.map((p) => {
    const [x, y] = pt(p.at, 112);
    return `<circle cx="${x.toFixed(1)}" cy="${y.toFixed(1)}" r="3" fill="${colours.of(p.peer)}">`
      + `<title>${esc(p.key)} on ${short(p.peer)}</title></circle>`;
  });
  return `<circle r="128" fill="none" stroke="#ccd"/>${ticks.join('')}${dots.join('')}`
    + `<text text-anchor="middle" font-size="12" y="4">${nodes.length} virtual nodes</text>`;
}

function peerRow(p: PeerView, job: JobView | undefined, now: number): string {
  const mine = job?.perPeer?.[p.id];
  const gone = goneSince.get(p.id);
  const state = gone !== undefined ? `left ${((now - gone) / 1000).toFixed(0)} s ago` : p.paused ? 'paused' : 'live';
  // a departed peer fades over GONE_MS, then is pruned
  const style = gone !== undefined ? ` style="opacity:${Math.max(0.25, 1 - (now - gone) / GONE_MS).toFixed(2)}"` : '';
  const worker = p.role === 'worker';
  const cells = [
    `<span class="dot" style="background:${colours.of(p.id)}"></span>${esc(short(p.id))}`,
    p.role, esc(p.host ?? ''), esc(p.device),
    worker ? `${p.throughput.toFixed(0)} M/s` : '', worker ? String(p.slots) : '',
    String(mine?.tasks ?? ''), mine ? bytes(mine.bytesIn) : '', state,
  ];
  const kind = gone !== undefined ? 'left' : p.paused ? 'paused' : 'live';
  return `<tr data-peer="${esc(p.id)}" data-state="${kind}"${style}>${cells.map((c) => `<td>${c}</td>`).join('')}</tr>`;
}

function jobLine(j: JobView, orphan: boolean): string {
  const state = orphan ? 'coordinator left' : j.state ?? 'running';
  return `<div class="job" data-job="${esc(j.id)}" data-state="${esc(state)}"><b>${esc(label(j))}</b> `
    + `<span class="state">${esc(state)}</span> · ${j.done}/${j.total} tasks · ${((j.ms ?? 0) / 1000).toFixed(1)} s`
    + `<progress max="${j.total}" value="${j.done}"></progress></div>`;
}

const logItem = (e: Logged) =>
  `<li data-kind="${esc(e.kind)}">${new Date(e.at).toLocaleTimeString()} · ${esc(e.text)}</li>`;

function render(view: MeshView): void {
  const now = Date.now();
  const all = view.peers();
  for (const p of all) {
    if (p.linked) goneSince.delete(p.id);
    else if (!goneSince.has(p.id)) goneSince.set(p.id, now);
  }
  const peers = all.filter((p) => p.linked || now - goneSince.get(p.id)! < GONE_MS);
  colours.update(all.filter((p) => p.linked).map((p) => p.id));

  const jobs = view.jobs();
  const orphan = (j: JobView) => {
    if (!j.coordinatorLeft) { orphanSince.delete(j.id); return false; }
    if (!orphanSince.has(j.id)) orphanSince.set(j.id, now);
    return now - orphanSince.get(j.id)! >= ORPHAN_GRACE_MS;
  };
  const marked = new Map(jobs.map((j) => [j.id, orphan(j)]));
  for (const j of jobs) {
    for (const e of j.events ?? []) {
      const key = `${j.id}/${e.ms}/${e.kind}/${e.peer ?? ''}/${e.task ?? ''}`;
      // a cancelled job ends with a 'failed' event; it is the user's choice, not a failure
      const kind = e.kind === 'failed' && j.state === 'cancelled' ? 'cancelled' : e.kind;
      const text = eventText(j, { ...e, kind: kind as JobEvent['kind'] });
      log({ key, at: (j.started ?? now) + e.ms, job: j.id, kind, text });
    }
    if (marked.get(j.id)) {
      const who = short(j.coordinator ?? '?');
      const text = `${label(j)} · coordinator-left · its coordinator ${who} left at ${j.done}/${j.total} tasks`;
      log({ key: `${j.id}/coordinator-left`, at: now, job: j.id, kind: 'coordinator-left', text });
    }
  }
  const pruned = (j: JobView) => marked.get(j.id) && now - orphanSince.get(j.id)! >= ORPHAN_SHOW_MS + ORPHAN_GRACE_MS;
  const shown = jobs.filter((j) => !pruned(j)).slice(0, KEEP_JOBS);
  // the cards follow the newest job that is running with its coordinator, else the newest that ended; never an orphan
  const running = (j: JobView) => (j.state ?? 'running') === 'running';
  const job = shown.find((j) => running(j) && !j.coordinatorLeft) ?? shown.find((j) => !running(j));

  const live = peers.filter((p) => p.linked && p.role === 'worker');
  $('nworkers').textContent = String(live.length);
  $('total').textContent = `${live.reduce((a, p) => a + p.throughput, 0).toFixed(0)} M/s`;
  if (job) {
    const t = performance.now();
    if (lastDone && lastDone.job === job.id && t > lastDone.t) {
      tps = 0.7 * tps + 0.3 * (Math.max(0, job.done - lastDone.done) * 1000) / (t - lastDone.t);
    }
    if (job.state !== undefined && job.state !== 'running') tps = 0;
    lastDone = { t, done: job.done, job: job.id };
  } else tps = 0;
  $('tps').textContent = tps.toFixed(0);
  $('current').textContent = job ? label(job) : '—';
  $('moved').textContent = job ? bytes(job.bytesMoved ?? 0) : '—';
  $('faults').textContent = job ? `${job.releases ?? 0} · ${job.recomputed ?? 0}` : '0 · 0';
  $('peers').innerHTML = peers.map((p) => peerRow(p, job, now)).join('');
  $('ring').innerHTML = ring(view, job);
  $('jobs').innerHTML = shown.length ? shown.map((j) => jobLine(j, marked.get(j.id)!)).join('') : 'none yet';
  $('events').innerHTML = recent.slice().sort((x, y) => y.at - x.at).map(logItem).join('');
  $('failures').innerHTML = failures.length ? failures.slice().reverse().map(logItem).join('') : '<li>none</li>';
  for (const id of [...orphanSince.keys()]) if (!jobs.some((j) => j.id === id)) orphanSince.delete(id);
  for (const id of [...goneSince.keys()]) if (!all.some((p) => p.id === id)) goneSince.delete(id);
}

try {
  const room = roomFromUrl();
  $('room').textContent = room.room;
  $<HTMLAnchorElement>('to-join').href = pageUrl('join.html');
  $<HTMLAnchorElement>('to-pi').href = pageUrl('pi.html');
  loadFailures(room.room);
  const view = await observe(room);
  (window as unknown as { tessera: unknown }).tessera = { view };
  let back = '';
  const line = () => {
    const c = view.node.connection;
    if (c !== 'online') setStatus(connectionLine(c, room.room), c === 'closed' ? 'error' : 'busy');
    else setStatus(`watching room ${room.room} as ${short(view.id)}${back ? ` (back in the room since ${back})` : ''}`);
  };
  line();
  view.node.onConnection((c) => { if (c === 'online') back = new Date().toLocaleTimeString(); line(); });
  $('clear-failures').onclick = () => {
    failures = [];
    try { localStorage.removeItem(failuresKey); } catch { /* nothing was kept */ }
    render(view);
  };
  let queued = false;
  const redraw = () => {
    if (queued) return;
    queued = true;
    requestAnimationFrame(() => { queued = false; render(view); });
  };
  view.onChange(redraw);
  setInterval(redraw, 1000);
  render(view);
} catch (e) {
  fail(e);
}
