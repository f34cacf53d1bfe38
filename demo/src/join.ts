// The join page: opening it makes this tab a worker peer of the room in its
// URL. The peer (compute and heartbeats) runs in a Web Worker; this page
// holds its WebRTC links and shows what it does. Leaving is graceful when
// the page can say goodbye (Leave, or the tab closing) and safe when it
// cannot: its leases lapse and coordinators re-run its work.

import { type VolunteerStats, volunteer } from 'tessera';
import { $, bytes, fail, pageUrl, roomFromUrl, setStatus } from './common.js';

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

try {
  const room = roomFromUrl();
  $('room').textContent = room.room;
  $<HTMLAnchorElement>('to-pi').href = pageUrl('pi.html');
  $<HTMLAnchorElement>('to-dashboard').href = pageUrl('dashboard.html');
  const device = (new URLSearchParams(location.search).get('device') ?? 'auto') as 'auto' | 'webgpu' | 'wasm';
  setStatus('measuring this machine and joining…', 'busy');
  const v = await volunteer({ ...room, device });
  (window as unknown as { tessera: unknown }).tessera = { volunteer: v, stats: () => v.stats() };
  show(v.stats());
  setStatus(`working in room ${room.room}`);
  v.onStats(show);
  const pause = $<HTMLButtonElement>('pause'), leave = $<HTMLButtonElement>('leave');
  pause.disabled = leave.disabled = false;
  pause.onclick = () => {
    if (v.stats().paused) { v.resume(); pause.textContent = 'Pause'; setStatus(`working in room ${room.room}`); }
    else { v.pause(); pause.textContent = 'Resume'; setStatus('paused: running tasks finish, no new ones come', 'busy'); }
  };
  leave.onclick = async () => {
    pause.disabled = leave.disabled = true;
    setStatus('leaving: finishing running tasks…', 'busy');
    await v.leave();
    setStatus('left the room; reload to join again', 'busy');
  };
  // a closing tab says goodbye if it can (its links close at once); if it cannot, its leases lapse
  addEventListener('pagehide', () => void v.node.close());
} catch (e) {
  fail(e);
}
