// The kernel IR as text, for a page or a peer to compile its own Program from
// (never code text). Plain JSON loses what numbers a kernel may hold: NaN and
// the infinities become null, -0 becomes 0. Here they travel as tagged
// strings, and a decoded kernel checks its own shape before it is used: every
// expression against the rule for its kind (its fields and operator, its
// variables bound, `acc` only where a reduction's value exists), walked with
// a stack of its own to a depth limit, so decoding text from a peer neither
// overflows the call stack nor lets the emitters unroll without end.
// In: a Kernel. Out: a string; and back.

import { isDType } from '../graph/dtype.js';
import { BINARY_OPS, RANDOM_DISTS, REDUCE_OPS, UNARY_OPS } from '../graph/ops.js';
import { type Expr, type Kernel, type RVar, intern } from './ir.js';

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

const MAX_RANK = 16;
/** Lanes a float sum may have (SUM_LANES, MATMUL_LANES, ROWS_LANES and between): the WASM emitter unrolls them. */
const LANES = new Set([1, 2, 4, 8]);
/** Expressions nested deeper than this are refused (the planner cannot build half as deep a kernel; the emitters recurse). */
const MAX_DEPTH = 2048;

const isInt = (x: unknown, max = Number.MAX_SAFE_INTEGER): x is number => typeof x === 'number' && Number.isInteger(x) && x >= 0 && x <= max;
const isNums = (a: unknown): a is number[] => Array.isArray(a) && a.length <= MAX_RANK && a.every((x) => isInt(x));
const oneOf = (list: readonly string[]) => (x: unknown): boolean => typeof x === 'string' && list.includes(x);
const isUnary = oneOf([...UNARY_OPS, 'floordiv_pos']), isBinary = oneOf(BINARY_OPS), isReduce = oneOf(REDUCE_OPS), isDist = oneOf(RANDOM_DISTS);
const isVar = (v: unknown): boolean => !!v && typeof v === 'object' && isInt((v as RVar).id) && isInt((v as RVar).size) && isInt((v as RVar).chunk);

type Fields = Readonly<Record<string, unknown>>;
/** Per kind: whether an expression's own fields are sound, and its child expressions by name. */
const RULES: { readonly [K in Expr['k']]: (e: Fields, k: Kernel) => [boolean, [string, unknown][]] } = {
  const: (e) => [['number', 'boolean', 'string'].includes(typeof e.value), []],
  var: (e) => [isInt(e.id), []],
  load: (e, k) => [isInt(e.input) && e.input < k.inputs.length && Array.isArray(e.index) && e.index.length === k.inputs[e.input]!.shape.length, Array.isArray(e.index) ? e.index.map((c, i) => [`index[${i}]`, c]) : []],
  unary: (e) => [isUnary(e.op), [['a', e.a]]],
  binary: (e) => [isBinary(e.op), [['a', e.a], ['b', e.b]]],
  where: (e) => [true, [['c', e.c], ['a', e.a], ['b', e.b]]],
  cast: (e) => [true, [['a', e.a]]],
  random: (e) => [isDist(e.dist) && Array.isArray(e.seed) && e.seed.length === 2 && e.seed.every((x) => isInt(x, 0xffffffff)) && isInt(e.stream), [['index', e.index]]],
  reduce: (e) => [isReduce(e.op) && Array.isArray(e.vars) && e.vars.length <= MAX_RANK && e.vars.every(isVar) && (e.lanes === undefined || LANES.has(e.lanes as number)), [['body', e.body]]],
  acc: () => [true, []],
};

/** A kernel from text; throws a TypeError naming the field when the text is not a kernel. */
export function decodeKernel(text: string): Kernel {
  let k: Kernel;
  try {
    k = JSON.parse(text, (_, v: unknown) => decodeNumber(v)) as Kernel;
  } catch (e) {
    throw new TypeError(e instanceof TypeError ? e.message : `kernel text: not JSON (${(e as Error).message})`);
  }
  if (!k || typeof k !== 'object') throw new TypeError('kernel text: not an object');
  if (!Array.isArray(k.inputs) || !k.inputs.every((i) => i && isDType(i.dtype) && isNums(i.shape))) throw new TypeError('kernel text: bad inputs');
  if (!isNums(k.shape) || !isNums(k.chunk) || k.chunk.length !== k.shape.length) throw new TypeError('kernel text: bad shape or chunk');
  if (!isDType(k.dtype)) throw new TypeError('kernel text: bad dtype');
  // a variable must be bound (an outer axis, or an enclosing reduction's), and `acc` stands only in the epilogue of a reduction
  const outer = new Set(k.shape.map((_, i) => i));
  const todo: [unknown, string, number, ReadonlySet<number>, boolean][] = [[k.epilogue, 'epilogue', 0, outer, k.reduce !== undefined]];
  if (k.reduce !== undefined) {
    if (k.reduce?.k !== 'reduce') throw new TypeError('kernel text: reduce is not a reduction');
    todo.push([k.reduce, 'reduce', 0, outer, false]);
  }
  while (todo.length) {
    const [e, where, depth, vars, acc] = todo.pop()!;
    if (depth > MAX_DEPTH) throw new TypeError(`kernel text: expressions nested over ${MAX_DEPTH} deep`);
    const x = e as Fields;
    if (!x || typeof x !== 'object' || !Object.hasOwn(RULES, x.k as string) || !isDType(x.dtype)) throw new TypeError(`kernel text: bad expression at ${where}`);
    const [ok, kids] = RULES[x.k as Expr['k']](x, k);
    if (!ok || (x.k === 'var' && !vars.has(x.id as number)) || (x.k === 'acc' && !acc)) throw new TypeError(`kernel text: bad ${x.k as string}${x.k === 'load' ? ` of input ${String(x.input)}` : ''} at ${where}`);
    const inner = x.k === 'reduce' ? new Set([...vars, ...(x.vars as RVar[]).map((v) => v.id)]) : vars;
    for (const [name, c] of kids) todo.push([c, `${where}.${name}`, depth + 1, inner, acc]);
  }
  // canonical expressions, as the emitters expect of a kernel built here (shared subtrees are one object), children first
  const memo = new Map<Expr, Expr>();
  const isExpr = (v: unknown): v is Expr => !!v && typeof v === 'object' && 'k' in v;
  const canon = (root: Expr): Expr => {
    const stack: [Expr, boolean][] = [[root, false]];
    while (stack.length) {
      const [e, ready] = stack.pop()!;
      if (memo.has(e)) continue;
      if (!ready) {
        stack.push([e, true]);
        for (const v of Object.values(e)) for (const c of Array.isArray(v) ? v : [v]) if (isExpr(c) && !memo.has(c)) stack.push([c, false]);
        continue;
      }
      const fields: Record<string, unknown> = {};
      for (const [name, v] of Object.entries(e)) fields[name] = isExpr(v) ? memo.get(v) : Array.isArray(v) ? v.map((c: unknown) => (isExpr(c) ? memo.get(c) : c)) : v;
      memo.set(e, intern(fields as unknown as Expr));
    }
    return memo.get(root)!;
  };
  try {
    return { ...k, epilogue: canon(k.epilogue), ...(k.reduce ? { reduce: canon(k.reduce) as Extract<Expr, { k: 'reduce' }> } : {}) };
  } catch (e) {
    // a field the rules above let through that interning cannot key (fuzzing finds such): refused all the same
    throw new TypeError(`kernel text: malformed expression (${(e as Error).message})`);
  }
}
