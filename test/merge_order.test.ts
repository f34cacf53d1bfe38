// The merge's counting sort: the jorder routine against a plain stable sort
// (boxes read in order, a skip, 8-byte and 4-byte values, strided output),
// and its checks. The counting sort through the runtime (gcount, gbucket,
// jorder over many chunks) is covered by test/merge.test.ts's merges over
// small chunk sizes.

import { describe, expect, it } from 'vitest';
import { type Region, runRoutine } from '../src/runtime/routines.js';

const region = (data: Int32Array | Float64Array | BigInt64Array, dtype: Region['dtype'], stride = 1): Region =>
  ({ dtype, shape: [Math.floor((data.length + stride - 1) / stride)], strides: [stride], origin: [0], data });

describe('jorder', () => {
  const groups = [[3, 1, 3, 0], [1, 1, 2], [0, 3]];
  const values = [[10, 11, 12, 13], [20, 21, 22], [30, 31]];
  const inputs = (ctor: typeof Float64Array | typeof Int32Array, dtype: Region['dtype']): Region[] =>
    groups.flatMap((g, i) => [region(Int32Array.from(g), 'int32'), region(ctor.from(values[i]!), dtype)]);
  // the rows of every box in order, stably by group
  const rows = groups.flatMap((g, i) => g.map((k, r) => [k, values[i]![r]!] as const));
  const sorted = rows.map((r, i) => [r, i] as const).sort((a, b) => a[0][0] - b[0][0] || a[1] - b[1]).map(([r]) => r[1]);

  it('orders the rows of its boxes stably by group, after a skip', () => {
    for (const [ctor, dtype] of [[Float64Array, 'float64'], [Int32Array, 'int32']] as const) {
      for (let skip = 0; skip < sorted.length; skip++) {
        const out = new ctor(Math.min(4, sorted.length - skip));
        runRoutine('jorder', { G: 4, lo: 0, skip }, inputs(ctor, dtype), region(out, dtype));
        expect([...out], `${dtype} skip ${skip}`).toEqual(sorted.slice(skip, skip + out.length));
      }
    }
  });
  it('writes int64 values whole, into a strided output, with groups from lo', () => {
    const g = region(Int32Array.from([6, 5, 6]), 'int32'), v = region(BigInt64Array.from([2n ** 40n, -1n, 7n]), 'int64');
    const out = new BigInt64Array(6);
    runRoutine('jorder', { G: 2, lo: 5, skip: 0 }, [g, v], region(out, 'int64', 2));
    expect([...out]).toEqual([-1n, 0n, 2n ** 40n, 0n, 7n, 0n]);
  });
  it('refuses a bad call', () => {
    const ins = inputs(Float64Array, 'float64');
    expect(() => runRoutine('jorder', { G: 4, lo: 0, skip: 8 }, ins, region(new Float64Array(2), 'float64'))).toThrow(/hold 9 rows, fewer than skip 8 and the output's 2/);
    expect(() => runRoutine('jorder', { G: 4, lo: 0, skip: 0 }, ins.slice(1), region(new Float64Array(2), 'float64'))).toThrow(/pairs/);
    expect(() => runRoutine('jorder', { G: 4, lo: 0, skip: 0 }, ins, region(new Int32Array(2), 'int32'))).toThrow(/output's dtype/);
    expect(() => runRoutine('jorder', { G: 2, lo: 0, skip: 0 }, ins, region(new Float64Array(2), 'float64'))).toThrow(/outside \[0, 2\)/);
    expect(() => runRoutine('jorder', { G: 4, lo: 0, skip: 0, x: 1 }, ins, region(new Float64Array(2), 'float64'))).toThrow(/unknown/);
  });
});
