// TensorFlow.js with its WASM backend (@tensorflow/tfjs + @tensorflow/tfjs-backend-wasm).
// tfjs has no float64 dtype, so float64 cases are n/a; the Monte Carlo case
// draws float32 (tf.randomUniform), as a tfjs user would. In Node the WASM
// backend runs on one thread: its threaded build needs browser Workers.

import { PI_CHUNK, STREAMS, fill, matvec, piPieces, probe } from '../data.js';

export async function setup() {
  const tf = await import('@tensorflow/tfjs');
  const wasm = await import('@tensorflow/tfjs-backend-wasm');
  if (!(await tf.setBackend('wasm'))) throw new Error('tf.setBackend("wasm") failed');
  await tf.ready();
  const piece = async (m) => {
    const r = tf.tidy(() => tf.randomUniform([m, 2], -1, 1).square().sum(1).sqrt().less(1).sum());
    const v = (await r.data())[0];
    r.dispose();
    return v;
  };
  return {
    info: { version: tf.version.tfjs, backend: tf.getBackend(), threads: `${wasm.getThreadsCount()} thread` },
    async prepare({ bench, size: n, dtype }) {
      if (bench === 'mc_pi') {
        const pieces = piPieces(n);
        return {
          async run() {
            let inside = 0;
            for (const m of pieces) inside += await piece(m);
            return (4 * inside) / n;
          },
          answer: (pi) => pi,
          note: pieces.length > 1 ? `float32 draws, in 1e${Math.log10(PI_CHUNK)}-point pieces` : 'float32 draws',
        };
      }
      if (dtype === 'float64') return { skip: 'no float64 in tfjs' };
      switch (bench) {
        case 'mean_expr': {
          const a = tf.tensor1d(fill(STREAMS.a, n, dtype)), b = tf.tensor1d(fill(STREAMS.b, n, dtype));
          return {
            async run() { const r = tf.tidy(() => a.mul(2).add(b).square().mean()); const v = (await r.data())[0]; r.dispose(); return v; },
            answer: (v) => v,
          };
        }
        case 'sum_axis0': case 'sum_axis1': case 'argmax_axis0': case 'argmax_axis1': {
          const x = tf.tensor2d(fill(STREAMS.x, n * n, dtype), [n, n]);
          const axis = Number(bench.at(-1));
          const op = bench.startsWith('sum') ? (t) => t.sum(axis) : (t) => t.argMax(axis);
          return {
            async run() { const r = op(x); const v = await r.data(); r.dispose(); return v; },
            answer: (v) => Array.from(v),
          };
        }
        case 'matmul': {
          const x = tf.tensor2d(fill(STREAMS.x, n * n, dtype), [n, n]);
          const y = tf.tensor2d(fill(STREAMS.y, n * n, dtype), [n, n]);
          const w = probe(n);
          return {
            // The WASM backend computes synchronously: the product exists when matMul returns.
            run: async () => tf.matMul(x, y),
            answer: async (c) => matvec(await c.data(), n, w),
            release: (c) => c.dispose(),
          };
        }
      }
      throw new Error(`unknown bench ${bench}`);
    },
  };
}
