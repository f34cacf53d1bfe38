// The routine of a merge's counting sort (dataframe/join_order.ts), which
// orders rows by a small group number without a comparison sort:
//   jorder  the rows of several boxes (each a box of group numbers, int32 in
//           [lo, lo + G), and a box of values of its length), stably
//           ordered by group: a count per group, its running sum, then each
//           row's value written at its group's next place. Boxes are read in
//           the order given, which is the rows' global order when they are
//           every chunk's box of one partition of the groups (runtime/group.ts
//           `gbucket`), partitions in order. The call writes the ordered
//           rows skip..skip+n-1 (n: its output's length), so that a
//           partition larger than an output chunk is split between calls.
// In: parameters and heap regions. Out: the 1-d region of values written.

import type { RoutineParams } from '../graph/node.js';
import { type Region, type Routine, contiguous, onlyParams } from './region.js';

function int(params: RoutineParams, name: string): number {
  const v = params[name];
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) {
    throw new TypeError(`routine parameter ${name} must be a count`);
  }
  return v;
}

/** A region's elements as integer units that copy its bits exactly (two per 8-byte element), and units per element. */
function units(r: Region): [Int32Array | Int16Array | Int8Array, number] {
  const b = r.data.BYTES_PER_ELEMENT, d = r.data;
  if (b === 8) return [new Int32Array(d.buffer as ArrayBuffer, d.byteOffset, d.length * 2), 2];
  const C = b === 4 ? Int32Array : b === 2 ? Int16Array : Int8Array;
  return [new C(d.buffer as ArrayBuffer, d.byteOffset, d.length), 1];
}

export const JOIN_ROUTINES: Readonly<Record<'jorder', Routine>> = {
  jorder: {
    check(params, inputs, output) {
      onlyParams(params, ['G', 'lo', 'skip']);
      const G = int(params, 'G'), skip = int(params, 'skip');
      int(params, 'lo');
      if (G < 1 || inputs.length % 2 !== 0) {
        throw new TypeError('jorder reads pairs of boxes (group numbers, values) over at least one group');
      }
      let total = 0;
      for (let i = 0; i < inputs.length; i += 2) {
        const g = inputs[i]!, x = inputs[i + 1]!;
        const ok = g.dtype === 'int32' && g.shape.length === 1 && x.shape.length === 1 && x.shape[0] === g.shape[0];
        if (!ok || x.dtype !== output.dtype) {
          throw new TypeError('jorder: each pair is a 1-d int32 box of group numbers and a box of its length '
            + 'of the output\'s dtype');
        }
        total += g.shape[0]!;
      }
      if (output.shape.length !== 1 || skip + output.shape[0]! > total) {
        const n = output.shape[0];
        throw new TypeError(`jorder: its boxes hold ${total} rows, fewer than skip ${skip} and the output's ${n}`);
      }
    },
    run(params, inputs, out) {
      const G = params.G as number, lo = params.lo as number, skip = params.skip as number, n = out.shape[0]!;
      if (n === 0) return;
      const at = new Float64Array(G + 1);
      const groups: Int32Array[] = [];
      for (let i = 0; i < inputs.length; i += 2) {
        const g = contiguous(inputs[i]!) as Int32Array;
        groups.push(g);
        for (let r = 0; r < g.length; r++) {
          const k = g[r]! - lo;
          if (k < 0 || k >= G) throw new RangeError(`jorder: group number ${g[r]} outside [${lo}, ${lo + G})`);
          at[k + 1]!++;
        }
      }
      for (let k = 1; k <= G; k++) at[k]! += at[k - 1]!;
      const [o, w] = units(out), os = out.strides[0]! * w, end = skip + n;
      for (let i = 0; i < inputs.length; i += 2) {
        const g = groups[i >> 1]!, x = inputs[i + 1]!;
        const [xs] = units(x), xstep = x.strides[0]! * w;
        for (let r = 0; r < g.length; r++) {
          const pos = at[g[r]! - lo]!++;
          if (pos < skip || pos >= end) continue;
          const to = (pos - skip) * os, from = r * xstep;
          o[to] = xs[from]!;
          if (w === 2) o[to + 1] = xs[from + 1]!;
        }
      }
    },
  },
};
