// Worker entry: one compute thread of the local pool. It receives the shared
// chunk heap once, then jobs; it runs each with the same Executor the main
// thread uses inline, and answers done or the error's message.

import { host } from '#host';
import { Executor, type Job } from './exec.js';

let exec: Executor | undefined;

const port = host.threadPort();
port.onMessage((msg: { type: 'init'; memory: WebAssembly.Memory; paramPtr: number } | { type: 'job'; id: number; job: Job }) => {
  if (msg.type === 'init') {
    exec = new Executor(msg.memory, msg.paramPtr);
    return;
  }
  try {
    exec!.run(msg.job);
    port.post({ type: 'done', id: msg.id });
  } catch (e) {
    port.post({ type: 'error', id: msg.id, message: e instanceof Error ? e.message : String(e) });
  }
});
