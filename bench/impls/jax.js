// jax-js (@jax-js/jax) on its WASM device, written as its README teaches:
// the numpy namespace, jit() to fuse the element-wise chains, `.ref` to keep
// an array alive across calls (jax-js functions consume their arguments).
//
// Two facts about Node 20 shape what is measured here:
// - jax-js tests `x instanceof Float16Array` when an array is built from a
//   typed array, and Node 20 has no Float16Array, so an empty placeholder
//   class is defined (nothing is ever created from it);
// - its WASM device runs kernels on Web Workers when the global `Worker`
//   exists; Node has none, so jax-js runs on one thread here.
// jax.random.uniform draws float32 (as JAX's default), so Monte Carlo runs
// in float32.

import { readFileSync } from 'node:fs';
import { PI_CHUNK, STREAMS, fill, matvec, piPieces, probe } from '../data.js';

globalThis.Float16Array ??= class Float16Array {};

export async function setup() {
  const jax = await import('@jax-js/jax');
  const { numpy: np, random, jit, blockUntilReady } = jax;
  const devices = await jax.init('wasm');
  if (!devices.includes('wasm')) throw new Error(`jax-js has no wasm device (got ${devices.join(', ')})`);
  jax.defaultDevice('wasm');
  const version = JSON.parse(readFileSync(new URL('../../node_modules/@jax-js/jax/package.json', import.meta.url), 'utf8')).version;
  const dt = (d) => (d === 'float64' ? np.float64 : np.float32);
  const upload = (stream, n, shape, dtype) => np.array(fill(stream, n, dtype), { shape, dtype: dt(dtype) });
  let seed = 1;
  return {
    info: { version, threads: typeof Worker === 'undefined' ? '1 thread: no Worker in Node' : 'Web Workers' },
    async prepare({ bench, size: n, dtype }) {
      switch (bench) {
        case 'mc_pi': {
          const pieces = piPieces(n);
          const fns = new Map();
          const fn = (m) => {
            if (!fns.has(m)) {
              fns.set(m, jit((k) => np.sqrt(np.square(random.uniform(k, [m, 2], { minval: -1, maxval: 1 })).sum(1)).less(1).astype(np.int32).sum()));
            }
            return fns.get(m);
          };
          return {
            async run() {
              let inside = 0;
              for (const m of pieces) inside += (await fn(m)(random.key(seed++)).data())[0];
              return (4 * inside) / n;
            },
            answer: (pi) => pi,
            note: pieces.length > 1 ? `float32 draws, in 1e${Math.log10(PI_CHUNK)}-point pieces` : 'float32 draws',
          };
        }
        case 'mean_expr': {
          const a = upload(STREAMS.a, n, [n], dtype), b = upload(STREAMS.b, n, [n], dtype);
          await blockUntilReady([a, b]);
          const f = jit((x, y) => np.square(x.mul(2).add(y)).mean());
          return {
            run: async () => (await f(a.ref, b.ref).data())[0],
            answer: (v) => v,
          };
        }
        case 'sum_axis0': case 'sum_axis1': case 'argmax_axis0': case 'argmax_axis1': {
          const x = upload(STREAMS.x, n * n, [n, n], dtype);
          await blockUntilReady(x);
          const axis = Number(bench.at(-1));
          const op = bench.startsWith('sum') ? (t) => np.sum(t, axis) : (t) => np.argmax(t, axis);
          return {
            run: async () => op(x.ref).data(),
            answer: (v) => Array.from(v),
          };
        }
        case 'matmul': {
          const x = upload(STREAMS.x, n * n, [n, n], dtype), y = upload(STREAMS.y, n * n, [n, n], dtype);
          await blockUntilReady([x, y]);
          const w = probe(n);
          return {
            async run() { const c = np.matmul(x.ref, y.ref); await blockUntilReady(c); return c; },
            answer: async (c) => matvec(await c.data(), n, w), // data() consumes c
          };
        }
      }
      throw new Error(`unknown bench ${bench}`);
    },
  };
}
