#!/usr/bin/env node
// One JavaScript implementation in its own process, driven by bench/run.js.
// Usage: node --expose-gc bench/child.js <tessera|tfjs|jax>
//
// Protocol: one JSON message per line. The child first prints
// {ready, version, threads, ...} (or {ready: false, error}). Then, for the one
// case this process serves:
//   {cmd: 'prepare', bench, size, dtype} -> {ok: true, setup_s, note?} | {ok: false, skip | error}
//   {cmd: 'run'}                         -> {t, answer, extra?} | {error}
//   {cmd: 'end'}                         -> {max_rss_bytes}, then the process exits
// `t` covers the computation up to a result the library holds (a fetched
// scalar or vector, or a materialised matrix); `answer` is computed from that
// result afterwards, outside the timed region, for run.js to check. A fresh
// process per case keeps the peak RSS of each case separate.

import readline from 'node:readline';

const name = process.argv[2];
const reply = (o) => process.stdout.write(JSON.stringify(o) + '\n');
// Libraries print banners with console.log; keep stdout for the protocol.
console.log = console.info = console.warn = (...a) => process.stderr.write(a.map(String).join(' ') + '\n');

const gc = () => { if (globalThis.gc) { globalThis.gc(); globalThis.gc(); } };
const short = (e) => String(e?.message ?? e).split('\n')[0].slice(0, 240);

let impl;
try {
  const mod = await import(`./impls/${name}.js`);
  impl = await mod.setup();
} catch (e) {
  reply({ ready: false, error: short(e) });
  process.exit(0);
}
reply({ ready: true, ...impl.info });

let prepared;
const rl = readline.createInterface({ input: process.stdin });
for await (const line of rl) {
  if (!line.trim()) continue;
  const m = JSON.parse(line);
  if (m.cmd === 'prepare') {
    try {
      const t0 = performance.now();
      prepared = await impl.prepare(m);
      gc();
      if (prepared.skip) reply({ ok: false, skip: prepared.skip });
      else reply({ ok: true, setup_s: (performance.now() - t0) / 1000, ...(prepared.note ? { note: prepared.note } : {}) });
    } catch (e) {
      reply({ ok: false, error: short(e) });
    }
  } else if (m.cmd === 'run') {
    try {
      const t0 = performance.now();
      const result = await prepared.run();
      const t = (performance.now() - t0) / 1000;
      const extra = prepared.extra?.();
      const answer = await prepared.answer(result);
      await prepared.release?.(result);
      // Garbage is collected after the run, before the parent's pause, so the next run
      // starts, as NumPy's does, on an idle machine: a collection just before it would
      // still be sweeping on other threads (up to a millisecond of CPU) when it starts.
      gc();
      reply({ t, answer, ...(extra ? { extra } : {}) });
    } catch (e) {
      reply({ error: short(e) });
    }
  } else if (m.cmd === 'end') {
    try { await impl.close?.(); } catch { /* the numbers are already out */ }
    reply({ max_rss_bytes: process.resourceUsage().maxRSS * 1024 });
    process.exit(0);
  }
}
process.exit(0);
