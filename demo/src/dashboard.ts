// The dashboard: joins the room as an observer (never given work) and draws
// the shared state as it changes: peers and their devices, the ring the
// coordinators place source chunks on, job progress, bytes moved, and
// failures and recomputes as they happen.

import { type JobProgress, type MeshView, observe } from 'tessera';
import { $, bytes, colour, fail, pageUrl, roomFromUrl, setStatus, short } from './common.js';

const esc = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
let lastDone: { t: number; done: number; job: string } | undefined;
let tps = 0;

function ring(view: MeshView, job: JobProgress | undefined): string {
  const { nodes, pieces } = view.ring(job);
  const pt = (at: number, r: number) => [Math.sin(at * 2 * Math.PI) * r, -Math.cos(at * 2 * Math.PI) * r] as const;
  const ticks = nodes.map((n) => { const [x1, y1] = pt(n.at, 128), [x2, y2] = pt(n.at, 142); return `<line x1="${x1.toFixed(1)}" y1="${y1.toFixed(1)}" x2="${x2.toFixed(1)}" y2="${y2.toFixed(1)}" stroke="${colour(n.peer)}" stroke-width="2"/>`; });
  const dots = pieces.map((p) => { const [x, y] = pt(p.at, 112); return `<circle cx="${x.toFixed(1)}" cy="${y.toFixed(1)}" r="3" fill="${colour(p.peer)}"><title>${esc(p.key)} on ${short(p.peer)}</title></circle>`; });
  return `<circle r="128" fill="none" stroke="#ccd"/>${ticks.join('')}${dots.join('')}<text text-anchor="middle" font-size="12" y="4">${nodes.length} virtual nodes</text>`;
}

function render(view: MeshView): void {
  const peers = view.peers();
  const jobs = view.jobs();
  const job = jobs.find((j) => j.state === 'running') ?? jobs[0];
  const live = peers.filter((p) => p.linked && p.role === 'worker');
  $('nworkers').textContent = String(live.length);
  $('total').textContent = `${live.reduce((a, p) => a + p.throughput, 0).toFixed(0)} M/s`;
  if (job) {
    const now = performance.now();
    if (lastDone && lastDone.job === job.id && now > lastDone.t) tps = 0.7 * tps + 0.3 * (Math.max(0, job.done - lastDone.done) * 1000) / (now - lastDone.t);
    if (job.state !== 'running') tps = 0;
    lastDone = { t: now, done: job.done, job: job.id };
  }
  $('tps').textContent = tps.toFixed(0);
  $('moved').textContent = job ? bytes(job.bytesMoved ?? 0) : '—';
  $('faults').textContent = job ? `${job.releases ?? 0} · ${job.recomputed ?? 0}` : '0 · 0';
  $('peers').innerHTML = peers.map((p) => {
    const mine = job?.perPeer?.[p.id];
    const state = !p.linked ? 'left' : p.paused ? 'paused' : 'live';
    return `<tr><td><span class="dot" style="background:${colour(p.id)}"></span>${esc(short(p.id))}</td><td>${p.role}</td><td>${esc(p.host ?? '')}</td><td>${esc(p.device)}</td><td>${p.role === 'worker' ? `${p.throughput.toFixed(0)} M/s` : ''}</td><td>${p.role === 'worker' ? p.slots : ''}</td><td>${mine?.tasks ?? ''}</td><td>${mine ? bytes(mine.bytesIn) : ''}</td><td>${state}</td></tr>`;
  }).join('');
  $('ring').innerHTML = ring(view, job);
  $('jobs').innerHTML = jobs.length ? jobs.map((j) => `<div style="margin:.4rem 0"><b>${esc(j.id)}</b> ${j.state ?? 'running'} · ${j.done}/${j.total} tasks · ${((j.ms ?? 0) / 1000).toFixed(1)} s<progress max="${j.total}" value="${j.done}"></progress></div>`).join('') : 'none yet';
  $('events').innerHTML = (job?.events ?? []).slice().reverse().map((e) => `<li>${(e.ms / 1000).toFixed(2)} s · ${e.kind}${e.peer ? ` · peer ${esc(short(e.peer))}` : ''}${e.task !== undefined ? ` · task ${e.task}` : ''}${e.detail ? ` · ${esc(e.detail)}` : ''}</li>`).join('');
}

try {
  const room = roomFromUrl();
  $('room').textContent = room.room;
  $<HTMLAnchorElement>('to-join').href = pageUrl('join.html');
  $<HTMLAnchorElement>('to-pi').href = pageUrl('pi.html');
  const view = await observe(room);
  (window as unknown as { tessera: unknown }).tessera = { view };
  setStatus(`watching room ${room.room} as ${short(view.id)}`);
  let queued = false;
  const redraw = () => { if (!queued) { queued = true; requestAnimationFrame(() => { queued = false; render(view); }); } };
  view.onChange(redraw);
  setInterval(redraw, 1000);
  render(view);
} catch (e) {
  fail(e);
}
