// np.einsum over Tessera's graph. The subscripts are parsed once (explicit
// `->` or NumPy's implicit output: the letters seen once, sorted, after any
// ellipsis); each operand first loses repeated letters (a diagonal, as in
// 'ii->i') and letters used nowhere else (summed out); the operands are then
// contracted left to right, two at a time, each pair as one batched matmul
// (batch letters, then the free letters of each side, then the contracted
// ones) — the same reduction of contractions to GEMM that opt_einsum and
// NumPy's tensordot path use, so the heavy work lands in the matmul routine.

import { CASTINGS, type Casting, type DType, canCast } from '../graph/dtype.js';
import { isUnknown } from '../graph/shape.js';
import { dtypeArg } from './convert.js';
import { kwargs, trailingOpts } from './bind.js';
import { type Operand, type Tensor, astype, deferred, broadcast_to, matmul, reshape, sum, toTensor, transpose } from './core.js';
import { diagonal } from './manipulate.js';

interface Term { t: Tensor; sub: string[] }

const LETTER = /^[a-zA-Z]$/;

function parse(spec: string, ndims: number[]): { inputs: string[][]; output: string[] } {
  const s = spec.replace(/\s+/g, '');
  const arrow = s.indexOf('->');
  const lhs = arrow >= 0 ? s.slice(0, arrow) : s;
  const rhs = arrow >= 0 ? s.slice(arrow + 2) : undefined;
  const parts = lhs.split(',');
  if (parts.length !== ndims.length) throw new RangeError(`einsum(): ${parts.length} operand subscripts given for ${ndims.length} operands`);
  // Ellipsis dims get upper-case-free private names: '0', '1', ... (never letters).
  let ellRank = 0;
  const inputs = parts.map((p, k) => {
    const e = p.indexOf('...');
    const letters = p.replace('...', '').split('');
    for (const c of letters) if (!LETTER.test(c)) throw new RangeError(`einsum(): invalid subscript '${c}' in '${spec}'`);
    if (e < 0) {
      if (letters.length !== ndims[k]) throw new RangeError(`einsum(): operand ${k} has ${ndims[k]} dimensions but subscripts '${p}' name ${letters.length}`);
      return letters;
    }
    const r = ndims[k]! - letters.length;
    if (r < 0) throw new RangeError(`einsum(): operand ${k} has too few dimensions for subscripts '${p}'`);
    ellRank = Math.max(ellRank, r);
    const before = p.slice(0, e).split('').filter(Boolean);
    const after = p.slice(e + 3).split('').filter(Boolean);
    const ell = Array.from({ length: r }, (_, i) => String(ellRank - r + i));
    return [...before, ...ell, ...after];
  });
  // Ellipsis names count from the right: rename so equal names mean the same broadcast dim.
  for (const sub of inputs) {
    const ell = sub.filter((c) => !LETTER.test(c));
    const r = ell.length;
    let j = 0;
    for (let i = 0; i < sub.length; i++) if (!LETTER.test(sub[i]!)) sub[i] = String(ellRank - r + j++);
  }
  const ellNames = Array.from({ length: ellRank }, (_, i) => String(i));
  let output: string[];
  if (rhs === undefined) {
    const count = new Map<string, number>();
    for (const sub of inputs) for (const c of sub) if (LETTER.test(c)) count.set(c, (count.get(c) ?? 0) + 1);
    output = [...ellNames, ...[...count].filter(([, n]) => n === 1).map(([c]) => c).sort()];
  } else {
    const e = rhs.indexOf('...');
    const letters = rhs.replace('...', '').split('');
    for (const c of letters) {
      if (!LETTER.test(c)) throw new RangeError(`einsum(): invalid output subscript '${c}'`);
      if (!inputs.some((sub) => sub.includes(c))) throw new RangeError(`einsum(): output subscript '${c}' does not appear in the input subscripts`);
    }
    if (new Set(letters).size !== letters.length) throw new RangeError(`einsum(): output subscript repeated in '${rhs}'`);
    if (e < 0 && ellRank > 0) throw new RangeError("einsum(): output has no '...' but inputs broadcast over one");
    output = e < 0 ? letters : [...rhs.slice(0, e).split('').filter(Boolean), ...ellNames, ...rhs.slice(e + 3).split('').filter(Boolean)];
  }
  return { inputs, output };
}

/** Removes repeated letters within one operand by taking diagonals. */
function dedupe(term: Term): Term {
  let { t, sub } = term;
  for (;;) {
    const i = sub.findIndex((c, k) => sub.indexOf(c) !== k);
    if (i < 0) return { t, sub };
    const first = sub.indexOf(sub[i]!);
    if (t.shape[first] !== t.shape[i]) throw new RangeError(`einsum(): dimensions of repeated subscript '${sub[i]}' differ (${t.shape[first]} vs ${t.shape[i]})`);
    t = diagonal(t, { axis1: first, axis2: i });
    sub = [...sub.filter((_, k) => k !== first && k !== i), sub[i]!];
  }
}

function sumOut(term: Term, keep: Set<string>): Term {
  const axes = term.sub.map((c, i) => (keep.has(c) ? -1 : i)).filter((i) => i >= 0);
  if (!axes.length) return term;
  return { t: sum(term.t, { axis: axes, dtype: term.t.dtype }), sub: term.sub.filter((c) => keep.has(c)) };
}

/** Contracts two terms, keeping the letters in `keep`, as one batched matmul. */
function contract(a: Term, b: Term, keep: Set<string>): Term {
  const size = new Map<string, number>();
  for (const { t, sub } of [a, b]) {
    sub.forEach((c, i) => {
      const d = t.shape[i]!;
      const prev = size.get(c);
      if (prev !== undefined && prev !== d && prev !== 1 && d !== 1) throw new RangeError(`einsum(): operands could not be broadcast for subscript '${c}' (${prev} vs ${d})`);
      size.set(c, prev === undefined || prev === 1 ? d : prev);
    });
  }
  const inA = new Set(a.sub), inB = new Set(b.sub);
  const batch = a.sub.filter((c) => inB.has(c) && keep.has(c));
  const con = a.sub.filter((c) => inB.has(c) && !keep.has(c));
  const fa = a.sub.filter((c) => !inB.has(c));
  const fb = b.sub.filter((c) => !inA.has(c));
  const prod = (cs: string[]) => cs.reduce((p, c) => p * size.get(c)!, 1);
  const arrange = (term: Term, order: string[], shape: number[]) => {
    const perm = order.map((c) => term.sub.indexOf(c));
    const moved = transpose(term.t, perm);
    return reshape(broadcast_to(moved, order.map((c) => size.get(c)!)), shape);
  };
  const A = arrange(a, [...batch, ...fa, ...con], [prod(batch), prod(fa), prod(con)]);
  const B = arrange(b, [...batch, ...con, ...fb], [prod(batch), prod(con), prod(fb)]);
  const out = reshape(matmul(A, B), [...batch, ...fa, ...fb].map((c) => size.get(c)!));
  return { t: out, sub: [...batch, ...fa, ...fb] };
}

/** einsum's keywords: `dtype` and `casting` as NumPy's; `optimize` and `order` change no value here. */
export interface EinsumOpts { dtype?: DType | string; casting?: Casting; optimize?: boolean | string; order?: string; out?: null }

/** np.einsum(subscripts, ...operands, { dtype, casting, optimize }). */
export function einsum(subscripts: string, ...operands: (Operand | EinsumOpts)[]): Tensor {
  if (typeof subscripts !== 'string') throw new TypeError('einsum(): the first argument must be a subscripts string');
  const [ops, kw] = trailingOpts<Record<string, unknown>>(operands);
  const o = kwargs<EinsumOpts>('einsum', [kw], [], ['out', 'dtype', 'order', 'casting', 'optimize']);
  if (!ops.length) throw new RangeError('einsum(): no operands given');
  let ts = (ops as Operand[]).map(toTensor);
  if (ts.some((t) => t.shape.some(isUnknown))) return deferred('einsum', ts, (us) => einsum(subscripts, ...us, kw as EinsumOpts));
  const dtype = dtypeArg(o.dtype);
  if (dtype) {
    // NumPy computes in dtype=, its operands cast under `casting` (default 'safe').
    const casting = o.casting ?? 'safe';
    if (!(CASTINGS as readonly string[]).includes(casting)) throw new RangeError(`casting must be one of 'no', 'equiv', 'safe', 'same_kind', or 'unsafe' (got ${JSON.stringify(casting)})`);
    ts.forEach((t) => { if (!canCast(t.dtype, dtype, casting)) throw new TypeError(`Cannot cast array data from dtype('${t.dtype}') to dtype('${dtype}') according to the rule '${casting}'`); });
    ts = ts.map((t) => astype(t, dtype));
  }
  const { inputs, output } = parse(subscripts, ts.map((t) => t.ndim));
  let terms: Term[] = ts.map((t, i) => dedupe({ t, sub: inputs[i]! }));
  const needed = (from: number): Set<string> => {
    const s = new Set(output);
    for (let j = from; j < terms.length; j++) for (const c of terms[j]!.sub) s.add(c);
    return s;
  };
  // Letters that appear in a single operand and not in the output are summed at once.
  terms = terms.map((term, i) => {
    const others = new Set(output);
    terms.forEach((u, j) => { if (j !== i) u.sub.forEach((c) => others.add(c)); });
    return sumOut(term, others);
  });
  let acc = terms[0]!;
  for (let i = 1; i < terms.length; i++) {
    const keep = needed(i + 1);
    acc = contract(acc, terms[i]!, keep);
  }
  acc = sumOut(acc, new Set(output));
  // Output order; letters of size-1 broadcast stay as they are.
  const perm = output.map((c) => acc.sub.indexOf(c));
  if (perm.some((p) => p < 0)) throw new RangeError(`einsum(): cannot produce output '${output.join('')}'`);
  return transpose(acc.t, perm);
}
