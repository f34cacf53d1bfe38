// Tessera, from the built dist/ (run `npm run build` first), written as a user
// would write it: default chunking, default worker count (one per core).
// Inputs for the data cases are uploaded once with mt.tensor (the chunk heap
// keeps them); each timed run builds the expression afresh and computes it.

import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { STREAMS, fill, matvec, probe } from '../data.js';

const ROOT = new URL('../../', import.meta.url);

export async function setup({ device = 'wasm' } = {}) {
  const mt = await import(new URL('dist/api/tensor.js', ROOT).href);
  mt.options.device = device;
  const version = JSON.parse(readFileSync(new URL('package.json', ROOT), 'utf8')).version;
  const upload = async (stream, n, shape, dtype) => {
    const t = mt.tensor(fill(stream, n, dtype), { dtype });
    return shape.length === 1 ? t : t.reshape(shape).execute();
  };
  let seed = 1;
  // The execution report of the last run (tasks, kernels, peak chunk memory), kept in the JSON results.
  const extra = () => {
    const r = mt.lastReport();
    return r && { tasks: r.tasks, kernels: r.kernels, kernels_compiled: r.kernelsCompiled, workers: r.workers, peak_chunk_bytes: r.peakBytes, bytes_copied: r.bytesCopied, gpu_tasks: r.gpuTasks };
  };
  return {
    info: { version, threads: `${availableParallelism()} worker threads` },
    close: () => mt.shutdown(),
    async prepare(c) {
      const p = await prepareCase(c);
      return { ...p, extra };
    },
  };

  async function prepareCase({ bench, size: n, dtype }) {
    switch (bench) {
      case 'mc_pi':
        return {
          async run() {
            mt.random.seed(seed++);
            const d = mt.random.uniform(-1, 1, [n, 2], dtype === 'float32' ? { dtype } : {});
            const inside = mt.sqrt(d.power(2).sum({ axis: 1 })).less(1).sum();
            return (4 * Number((await inside.fetch()).item())) / n;
          },
          answer: (pi) => pi,
        };
      case 'mean_expr': {
        const a = await upload(STREAMS.a, n, [n], dtype);
        const b = await upload(STREAMS.b, n, [n], dtype);
        return {
          run: async () => Number((await a.multiply(2).add(b).power(2).mean().fetch()).item()),
          answer: (v) => v,
        };
      }
      case 'sum_axis0': case 'sum_axis1': case 'argmax_axis0': case 'argmax_axis1': {
        const x = await upload(STREAMS.x, n * n, [n, n], dtype);
        const axis = Number(bench.at(-1));
        const op = bench.startsWith('sum') ? (t) => t.sum({ axis }) : (t) => mt.argmax(t, { axis });
        return {
          run: async () => (await op(x).fetch()).data,
          answer: (data) => Array.from(data, Number),
        };
      }
      case 'matmul': {
        const x = await upload(STREAMS.x, n * n, [n, n], dtype);
        const y = await upload(STREAMS.y, n * n, [n, n], dtype);
        const w = probe(n);
        return {
          run: async () => mt.matmul(x, y).execute(),
          answer: async (c) => matvec((await c.fetch()).data, n, w),
        };
      }
    }
    throw new Error(`unknown bench ${bench}`);
  }
}
