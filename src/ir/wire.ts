// The kernel IR as text, for a page or a peer to compile its own Program from
// (never code text). Plain JSON loses what numbers a kernel may hold: NaN and
// the infinities become null, -0 becomes 0. Here they travel as tagged
// strings, and a decoded kernel checks its own shape before it is used.
// In: a Kernel. Out: a string; and back.

import { isDType } from '../graph/dtype.js';
import { type Expr, type Kernel, intern } from './ir.js';

const TAG = '$num:';

function encodeNumber(v: number): number | string {
  if (Number.isNaN(v)) return `${TAG}NaN`;
  if (v === Infinity) return `${TAG}Infinity`;
  if (v === -Infinity) return `${TAG}-Infinity`;
  if (Object.is(v, -0)) return `${TAG}-0`;
  return v;
}

function decodeNumber(v: unknown): unknown {
  if (typeof v !== 'string' || !v.startsWith(TAG)) return v;
  const s = v.slice(TAG.length);
  if (s === 'NaN') return NaN;
  if (s === 'Infinity') return Infinity;
  if (s === '-Infinity') return -Infinity;
  if (s === '-0') return -0;
  throw new TypeError(`kernel text: bad number ${JSON.stringify(v)}`);
}

/** The kernel as text that keeps every number. */
export function encodeKernel(k: Kernel): string {
  return JSON.stringify(k, (_, v: unknown) => (typeof v === 'number' ? encodeNumber(v) : v));
}

const KINDS = new Set(['const', 'var', 'load', 'unary', 'binary', 'where', 'cast', 'random', 'reduce', 'acc']);

/** A kernel from text; throws a TypeError naming the field when the text is not a kernel. */
export function decodeKernel(text: string): Kernel {
  const k = JSON.parse(text, (_, v: unknown) => decodeNumber(v)) as Kernel;
  const isNums = (a: unknown): boolean => Array.isArray(a) && a.every((x) => typeof x === 'number' && Number.isInteger(x) && x >= 0);
  if (!k || typeof k !== 'object') throw new TypeError('kernel text: not an object');
  if (!Array.isArray(k.inputs) || !k.inputs.every((i) => i && typeof i.dtype === 'string' && isNums(i.shape))) throw new TypeError('kernel text: bad inputs');
  if (!isNums(k.shape) || !isNums(k.chunk)) throw new TypeError('kernel text: bad shape or chunk');
  const check = (e: Expr | undefined, where: string): void => {
    if (!e || typeof e !== 'object' || !KINDS.has(e.k) || !isDType(e.dtype)) throw new TypeError(`kernel text: bad expression at ${where}`);
    if (e.k === 'load' && !(Number.isInteger(e.input) && e.input >= 0 && e.input < k.inputs.length)) throw new TypeError(`kernel text: load of input ${e.input} at ${where}`);
    for (const [name, c] of Object.entries(e)) {
      if (c && typeof c === 'object' && 'k' in c) check(c as Expr, `${where}.${name}`);
      if (Array.isArray(c)) c.forEach((x, i) => { if (x && typeof x === 'object' && 'k' in x) check(x as Expr, `${where}.${name}[${i}]`); });
    }
  };
  check(k.epilogue, 'epilogue');
  if (k.reduce !== undefined) check(k.reduce, 'reduce');
  // canonical expressions, as the emitters expect of a kernel built here (shared subtrees are one object)
  const memo = new Map<Expr, Expr>();
  const canon = (e: Expr): Expr => {
    let c = memo.get(e);
    if (c) return c;
    const fields: Record<string, unknown> = {};
    for (const [name, v] of Object.entries(e)) {
      fields[name] = v && typeof v === 'object' && 'k' in v ? canon(v as Expr)
        : Array.isArray(v) ? v.map((x: unknown) => (x && typeof x === 'object' && 'k' in x ? canon(x as Expr) : x))
        : v;
    }
    c = intern(fields as unknown as Expr);
    memo.set(e, c);
    return c;
  };
  return { ...k, epilogue: canon(k.epilogue), ...(k.reduce ? { reduce: canon(k.reduce) as Extract<Expr, { k: 'reduce' }> } : {}) };
}
