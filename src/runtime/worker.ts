// Worker entry: one compute thread of the local pool. It receives the shared
// chunk heap once, then jobs or batches of jobs; it runs each with the same
// Executor the main thread uses inline, and answers done (or, for a batch,
// which of its jobs it ran) or the error's message. A batch goes to every
// worker at once: each takes the next job nobody has taken (a counter in the
// shared heap) until none is left, so no worker waits for the main thread
// between one job and the next. Each job's start and end (ms on the clock
// every thread shares) go back with it, for the execution's timeline.

import { host } from '#host';
import { now } from './debug.js';
import { Executor, type Job } from './exec.js';

let exec: Executor | undefined;
let memory: WebAssembly.Memory | undefined;

type Msg =
  | { type: 'init'; memory: WebAssembly.Memory; paramPtr: number }
  | { type: 'job'; id: number; job: Job }
  | { type: 'batch'; id: number; jobs: Job[]; modules: [string, WebAssembly.Module][]; counter: number; started: number };

const port = host.threadPort();
port.onMessage((msg: Msg) => {
  if (msg.type === 'init') {
    memory = msg.memory;
    exec = new Executor(msg.memory, msg.paramPtr);
    return;
  }
  if (msg.type === 'batch') return batch(msg);
  try {
    exec!.run(msg.job);
    port.post({ type: 'done', id: msg.id });
  } catch (e) {
    port.post({ type: 'error', id: msg.id, ...failure(e) });
  }
});

function batch(msg: Extract<Msg, { type: 'batch' }>): void {
  const ran: number[] = [];
  const times: number[] = [];
  const next = new Int32Array(memory!.buffer, msg.counter, 1);
  Atomics.add(new Int32Array(memory!.buffer, msg.started, 1), 0, 1); // the main thread stops helping once every worker has
  try {
    for (const [key, module] of msg.modules) exec!.learn(key, module);
    for (let i = Atomics.add(next, 0, 1); i < msg.jobs.length; i = Atomics.add(next, 0, 1)) {
      const t0 = now();
      exec!.run(msg.jobs[i]!);
      times.push(t0, now());
      ran.push(i);
    }
    port.post({ type: 'done', id: msg.id, ran, times });
  } catch (e) {
    Atomics.store(next, 0, msg.jobs.length); // the others take no more of this batch
    port.post({ type: 'error', id: msg.id, ran, times, ...failure(e) });
  }
}

/** An error as a message can carry it: its text, and its class where the caller tells them apart (a bad index, a refused call, a tile's LinAlgError). */
function failure(e: unknown): { message: string; name?: string } {
  if (!(e instanceof Error)) return { message: String(e) };
  const kept = e.name === 'RangeError' || e.name === 'TypeError' || e.name === 'LinAlgError';
  return kept ? { message: e.message, name: e.name } : { message: e.message };
}
