// The DataFrame page: this tab is the coordinator. It reads the CSV the
// user picks (a File, parsed here by md.read_csv), then runs pandas'
// groupby of one column's count, sum, mean, min and max by a key column on
// the room's workers: the fold of each block of rows is a mesh task, the
// partials meet in a tree of reductions (or a shuffle, with many groups).
// In: the room from the URL, a file, the key and value columns. Out: the
// result as a table (its first 200 groups), and `window.frameResult` for
// the page tests.

import { md, session } from 'tessera';
import { $, bytes, connectionLine, fail, pageUrl, roomFromUrl, setStatus } from './common.js';

/** Groups shown in the table. */
const SHOWN = 200;

const cell = (v: unknown): string => (v === null ? 'NaN' : typeof v === 'number' && !Number.isInteger(v) ? v.toPrecision(8) : String(v));

function render(f: md.LocalFrame, key: string): void {
  const index = f.index as unknown[];
  const head = `<tr><th>${key}</th>${f.columns.map((c) => `<th>${c}</th>`).join('')}</tr>`;
  const cols = f.columns.map((c) => f.get(c));
  const rows = index.slice(0, SHOWN).map((k, r) => `<tr><td>${cell(k)}</td>${cols.map((c) => `<td>${cell(c[r])}</td>`).join('')}</tr>`);
  $('result').innerHTML = head + rows.join('') + (index.length > SHOWN ? `<tr><td colspan="${cols.length + 1}">… ${index.length - SHOWN} more</td></tr>` : '');
}

try {
  const room = roomFromUrl();
  $('room').textContent = room.room;
  $<HTMLAnchorElement>('to-join').href = pageUrl('join.html');
  $<HTMLAnchorElement>('to-dashboard').href = pageUrl('dashboard.html');
  const s = await session(room);
  const run = $<HTMLButtonElement>('run'), keySel = $<HTMLSelectElement>('key'), valueSel = $<HTMLSelectElement>('value');
  let frame: md.DataFrame | undefined;
  let running = false;
  const workers = () => s.workers().size;
  const showWorkers = () => {
    $('workers').textContent = `${workers()} worker${workers() === 1 ? '' : 's'}`;
    run.disabled = !frame || workers() === 0 || running;
  };
  s.node.onConnection(() => {
    const c = s.node.connection;
    if (c !== 'online') setStatus(connectionLine(c, room.room), c === 'closed' ? 'error' : 'busy');
  });
  setInterval(showWorkers, 500);
  setStatus('connected: pick a CSV file (workers: open the join page in other tabs or machines)', 'busy');

  /** Reads `file` into the page's frame (read_csv's options: the tests' smaller chunks) and offers its columns. */
  const load = async (file: Blob, opts: md.ReadCsvOptions = {}) => {
    setStatus('reading the file…', 'busy');
    const t0 = performance.now();
    frame = await md.read_csv(file, opts);
    $('read').textContent = `${((performance.now() - t0) / 1000).toFixed(2)} s`;
    $('rows').textContent = String(frame.shape[0]);
    const options = (names: string[]) => names.map((n) => `<option>${n}</option>`).join('');
    const numeric = frame.columns.filter((c) => frame!.dtypes[c] !== 'object');
    keySel.innerHTML = options(frame.columns);
    valueSel.innerHTML = options(numeric);
    keySel.disabled = valueSel.disabled = false;
    if (numeric.length && numeric[0] === keySel.value && numeric.length > 1) valueSel.value = numeric[1]!;
    setStatus(workers() ? 'ready' : 'read; waiting for workers', workers() ? 'ok' : 'busy');
    showWorkers();
  };

  /** The groupby on the room's workers; resolves to what the page shows. */
  const go = async (key: string, value: string) => {
    if (!frame) throw new Error('pick a CSV file first');
    running = true;
    showWorkers();
    setStatus(`grouping on ${workers()} workers…`, 'busy');
    $<HTMLProgressElement>('progress').value = 0;
    try {
      const t0 = performance.now();
      const result = frame.groupby(key).agg({ [value]: ['count', 'sum', 'mean', 'min', 'max'] }) as md.DataFrame;
      const before = s.totals.bytesMoved;
      await result.execute({ session: s, name: `groupby ${key}`, onProgress: ({ done, total }) => { $<HTMLProgressElement>('progress').value = done / total; } });
      const f = await result.fetch();
      const seconds = (performance.now() - t0) / 1000;
      $<HTMLProgressElement>('progress').value = 1;
      $('groups').textContent = String(f.shape[0]);
      $('time').textContent = `${seconds.toFixed(2)} s`;
      $('moved').textContent = bytes(s.totals.bytesMoved - before);
      render(f, key);
      const out = { groups: f.shape[0], columns: f.columns, index: f.index, values: Object.fromEntries(f.columns.map((c) => [c, f.get(c).map((v) => (typeof v === 'bigint' ? Number(v) : v))])), seconds };
      (window as unknown as { frameResult: unknown }).frameResult = out;
      setStatus(`${f.shape[0]} groups in ${seconds.toFixed(2)} s on ${workers()} workers`);
      return out;
    } finally {
      running = false;
      showWorkers();
    }
  };
  $<HTMLInputElement>('file').onchange = (e) => {
    const file = (e.target as HTMLInputElement).files?.[0];
    if (file) load(file).catch(fail);
  };
  (window as unknown as { loadCsv: typeof load; runGroupby: typeof go }).loadCsv = load;
  (window as unknown as { runGroupby: typeof go }).runGroupby = go;
  run.onclick = () => { go(keySel.value, valueSel.value).catch(fail); };
} catch (e) {
  fail(e);
}
