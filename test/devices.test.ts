// Every compiled Program must compute what the reference interpreter does:
// the same fused kernels run through both, on the same memory, and agree
// exactly (same order of operations, same host Math functions).
import { describe, expect, it } from 'vitest';
import { fuse } from '../src/fuse/fuse.js';
import * as G from '../src/graph/node.js';
import { interpret } from '../src/ir/interpret.js';
import { tile, isScanTask, chunkBox } from '../src/tile/tile.js';
import { render, mathImports, writeParams } from '../src/wasm/render.js';
import { siteParams } from '../src/ir/ir.js';
import { ARRAY_CTOR } from '../src/graph/dtype.js';
import { stridesOf } from '../src/graph/shape.js';
import type { KernelArgs } from '../src/ir/args.js';

/** Runs every task of a one-output graph on a private memory with `exec`, returns the output's values. */
function runWith(out: G.Node, mode: 'ref' | 'wasm'): number[] {
  const steps = fuse([out], (n) => n.op === 'source');
  const plan = tile(steps, [out], () => undefined);
  const memory = new WebAssembly.Memory({ initial: 64, maximum: 65536, shared: true });
  let top = 4096;
  const alloc = (bytes: number) => { const p = top; top += Math.ceil(bytes / 64) * 64 + 64; return p; };
  const blocks = new Map<string, number>();
  const chunkPtr = (t: number, c: number) => {
    const key = `${t}:${c}`;
    if (!blocks.has(key)) {
      const s = plan.tensors[t]!;
      const box = chunkBox(s.shape, s.chunk, c);
      blocks.set(key, alloc(box.reduce((a, [lo, hi]) => a * (hi - lo), 1) * 8));
    }
    return blocks.get(key)!;
  };
  for (const task of plan.tasks) {
    if (isScanTask(task)) throw new Error('no scans here');
    const k = plan.kernels[task.kernel]!;
    const bind = (t: number, c: number, row?: number) => {
      const s = plan.tensors[t]!;
      const box = chunkBox(s.shape, s.chunk, c);
      const st = stridesOf(box.map(([lo, hi]) => hi - lo));
      const ptr = chunkPtr(t, c);
      const item = ARRAY_CTOR[s.dtype].BYTES_PER_ELEMENT;
      return row === undefined ? { ptr, origin: box.map(([lo]) => lo), strides: st } : { ptr: ptr + row * st[0]! * item, origin: box.slice(1).map(([lo]) => lo), strides: st.slice(1) };
    };
    const inputs = task.reads.map((r) => {
      const s = plan.tensors[r.tensor]!;
      const cs = s.shape.map(() => 0);
      // single-chunk inputs only in this harness
      return bind(r.tensor, cs.reduce((a) => a, 0));
    });
    const args: KernelArgs = { inputs, outputs: task.writes.map((w) => bind(w.tensor, w.chunk, w.row)), outer: task.outer, red: task.red, partial: task.partial };
    if (mode === 'ref') interpret(k, args, memory.buffer);
    else {
      const { bytes, layout } = render(k, task.partial);
      const inst = new WebAssembly.Instance(new WebAssembly.Module(bytes as Uint8Array<ArrayBuffer>), { env: { memory }, math: mathImports() });
      const scratch = layout.scratch ? alloc(layout.scratch.bytes) : 0;
      writeParams(layout, { ...args, scratch, sites: siteParams(k) }, new BigInt64Array(memory.buffer, 0, layout.slots), 0);
      (inst.exports.run as (p: number) => void)(0);
    }
  }
  const t = plan.outputs.get(out)!;
  const s = plan.tensors[t]!;
  const n = s.shape.reduce((a, b) => a * b, 1);
  const C = ARRAY_CTOR[s.dtype];
  return Array.from(new C(memory.buffer, chunkPtr(t, 0), n) as ArrayLike<number | bigint>, Number);
}

const seed = [11, 0] as const;
const cases: [string, () => G.Node][] = [
  ['uniform chain', () => G.unary('sqrt', G.binary('add', G.random('uniform', seed, 0, [5, 7]), G.constant(1, 'float64'), 'float64'), 'float64')],
  ['normal and exp', () => G.unary('exp', G.random('normal', seed, 1, [33]), 'float64')],
  ['split sum of squares', () => {
    const r = G.random('uniform', seed, 2, [40, 2], [8, 2]);
    return G.reduce('sum', G.binary('multiply', r, r, 'float64'), [0, 1], false, 'float64');
  }],
  ['row sums then compare', () => {
    const r = G.random('uniform', seed, 3, [50, 2], [16, 2]);
    const s = G.reduce('sum', G.binary('multiply', r, r, 'float64'), [1], false, 'float64');
    return G.reduce('sum', G.cast(G.binary('less', s, G.constant(0.5, 'float64'), 'bool'), 'int64'), [0], false, 'int64');
  }],
  ['argmax split', () => G.reduce('argmax', G.random('uniform', seed, 4, [64], [10]), [0], false, 'int64')],
  ['integer arithmetic wraps', () => {
    const b = G.cast(G.random('bits', seed, 5, [30]), 'int8');
    return G.binary('floor_divide', G.binary('multiply', b, b, 'int8'), G.constant(-7, 'int8'), 'int8');
  }],
  ['float32 transcendental', () => G.unary('tan', G.cast(G.random('normal', seed, 6, [20]), 'float32'), 'float32')],
];

describe('WASM programs match the reference interpreter', () => {
  for (const [name, make] of cases) {
    it(name, () => {
      const n = make();
      expect(runWith(n, 'wasm')).toEqual(runWith(n, 'ref'));
    });
  }
});
