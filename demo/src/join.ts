// The join page: opening it makes this tab a worker peer of the room in its
// URL. The peer (compute and heartbeats) runs in a Web Worker; this page
// holds its WebRTC links and shows what it does. Leaving is graceful when
// the page can say goodbye (Leave, or the tab closing) and safe when it
// cannot: its leases lapse and coordinators re-run its work.
//
// In: the room from the URL. Out: the tab's numbers, its standing with the
// signaling server, and the volunteer's own contribution, summed over every
// visit from this browser (localStorage), so a reload does not forget it.

import { type VolunteerStats, volunteer } from 'tessera';
import { $, bytes, connectionLine, duration, fail, pageUrl, roomFromUrl, setStatus } from './common.js';

const show = (s: VolunteerStats) => {
  $('id').textContent = s.id;
  $('device').textContent = s.device === 'wasm' ? `CPU · WebAssembly × ${s.slots}` : `GPU · ${s.device}`;
  $('throughput').textContent = `${s.throughput.toFixed(0)} M/s`;
  $('tasks').textContent = String(s.tasks);
  $('running').textContent = String(s.running);
  $('sent').textContent = bytes(s.bytesSent);
  $('received').textContent = bytes(s.bytesReceived);
  $('held').textContent = bytes(s.bytesHeld);
  $('links').textContent = String(s.links);
};

/** What this browser has given, over all its visits to the join page. */
interface Contribution { tasks: number; bytesSent: number; ms: number; visits: number; since: number }
const KEY = 'tessera.contribution';

function loadContribution(): Contribution {
  const fresh = { tasks: 0, bytesSent: 0, ms: 0, visits: 0, since: Date.now() };
  try {
    const c = JSON.parse(localStorage.getItem(KEY) ?? 'null') as Partial<Contribution> | null;
    // a value another script (or an old version) left there counts only where each field is a number
    const num = (v: unknown, d: number) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : d);
    if (!c) return fresh;
    return {
      tasks: num(c.tasks, 0), bytesSent: num(c.bytesSent, 0), ms: num(c.ms, 0), visits: num(c.visits, 0),
      since: num(c.since, fresh.since),
    };
  } catch {
    return fresh; // storage blocked (a private window may refuse it): this visit alone counts
  }
}

/**
 * Adds this visit's counters as they grow; `update` takes the visit's running
 * totals. Every change is a read-add-write of the stored record, so join tabs
 * of one browser open at once add up rather than overwrite each other.
 */
function contribution(): { update(s: VolunteerStats, working: boolean): void } {
  const add = (f: (c: Contribution) => void): Contribution => {
    const c = loadContribution();
    f(c);
    try { localStorage.setItem(KEY, JSON.stringify(c)); } catch { /* storage full or blocked: shown, not kept */ }
    return c;
  };
  const draw = (c: Contribution) => {
    $('my-tasks').textContent = c.tasks.toLocaleString('en');
    $('my-time').textContent = duration(c.ms);
    $('my-sent').textContent = bytes(c.bytesSent);
    $('my-visits').textContent = `${c.visits} since ${new Date(c.since).toLocaleDateString()}`;
  };
  draw(add((c) => { c.visits++; }));
  let seen = { tasks: 0, bytesSent: 0, t: performance.now() };
  return {
    update(s, working) {
      const now = performance.now();
      draw(add((c) => {
        c.tasks += Math.max(0, s.tasks - seen.tasks);
        c.bytesSent += Math.max(0, s.bytesSent - seen.bytesSent);
        if (working) c.ms += now - seen.t;
      }));
      seen = { tasks: s.tasks, bytesSent: s.bytesSent, t: now };
    },
  };
}

try {
  const room = roomFromUrl();
  $('room').textContent = room.room;
  $<HTMLAnchorElement>('to-pi').href = pageUrl('pi.html');
  $<HTMLAnchorElement>('to-dashboard').href = pageUrl('dashboard.html');
  const device = (new URLSearchParams(location.search).get('device') ?? 'auto') as 'auto' | 'webgpu' | 'wasm';
  const mine = contribution();
  setStatus('measuring this machine and joining…', 'busy');
  const v = await volunteer({ ...room, device });
  // the page's own record of what the volunteer chose: stats from the worker thread come twice a second
  let paused = false, leaving = false, left = false;
  const working = () => !paused && !left && v.node.connection === 'online';
  const line = () => {
    if (left) return setStatus('left the room; reload to join again', 'busy');
    if (leaving) return setStatus('leaving: finishing running tasks…', 'busy');
    const c = v.node.connection;
    if (c !== 'online') return setStatus(connectionLine(c, room.room), c === 'closed' ? 'error' : 'busy');
    if (paused) return setStatus('paused: running tasks finish, no new ones come', 'busy');
    setStatus(`working in room ${room.room}${back ? ` (back in the room since ${back})` : ''}`);
  };
  let back = '';
  const update = (s: VolunteerStats) => { show(s); mine.update(s, working()); };
  (window as unknown as { tessera: unknown }).tessera = { volunteer: v, stats: () => v.stats() };
  update(v.stats());
  line();
  v.onStats(update);
  v.node.onConnection((c) => { if (c === 'online') back = new Date().toLocaleTimeString(); line(); });
  const pause = $<HTMLButtonElement>('pause'), leave = $<HTMLButtonElement>('leave');
  pause.disabled = leave.disabled = false;
  pause.onclick = () => {
    paused = !paused;
    if (paused) v.pause(); else v.resume();
    pause.textContent = paused ? 'Resume' : 'Pause';
    line();
  };
  leave.onclick = async () => {
    pause.disabled = leave.disabled = true;
    leaving = true;
    line();
    await v.leave();
    left = true;
    update(v.stats());
    line();
  };
  // a closing tab says goodbye if it can (its links close at once); if it cannot, its leases lapse
  addEventListener('pagehide', () => void v.node.close());
} catch (e) {
  fail(e);
}
