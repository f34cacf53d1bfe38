// Interval analysis of index expressions: which part of each input a task
// reads. In: an int64 Expr and the range of each loop variable. Out: an
// inclusive [lo, hi] (infinite where the index depends on data). The tiler
// clips the result to the input's shape and fetches only that box.

import type { Expr } from './ir.js';

export type Interval = readonly [number, number];
export const UNKNOWN: Interval = [-Infinity, Infinity];

export function bounds(e: Expr, vars: ReadonlyMap<number, Interval>): Interval {
  switch (e.k) {
    case 'const': return [Number(e.value), Number(e.value)];
    case 'var': return vars.get(e.id) ?? UNKNOWN;
    case 'binary': {
      const a = bounds(e.a, vars), b = bounds(e.b, vars);
      switch (e.op) {
        case 'add': return [a[0] + b[0], a[1] + b[1]];
        case 'subtract': return [a[0] - b[1], a[1] - b[0]];
        case 'multiply': {
          const p = [a[0] * b[0], a[0] * b[1], a[1] * b[0], a[1] * b[1]].map((v) => (Number.isNaN(v) ? 0 : v));
          return [Math.min(...p), Math.max(...p)];
        }
        case 'floor_divide':
          if (b[0] === b[1] && b[0] > 0) return [Math.floor(a[0] / b[0]), Math.floor(a[1] / b[0])];
          return UNKNOWN;
        case 'mod':
          if (b[0] === b[1] && b[0] > 0) {
            const d = b[0];
            if (Math.floor(a[0] / d) === Math.floor(a[1] / d)) return [a[0] - Math.floor(a[0] / d) * d, a[1] - Math.floor(a[0] / d) * d];
            return [0, d - 1];
          }
          return UNKNOWN;
        case 'minimum': return [Math.min(a[0], b[0]), Math.min(a[1], b[1])];
        case 'maximum': return [Math.max(a[0], b[0]), Math.max(a[1], b[1])];
        default: return UNKNOWN;
      }
    }
    case 'where': {
      const a = bounds(e.a, vars), b = bounds(e.b, vars);
      return [Math.min(a[0], b[0]), Math.max(a[1], b[1])];
    }
    default: return UNKNOWN;
  }
}
