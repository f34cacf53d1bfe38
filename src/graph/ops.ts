// The operation tables: every ufunc Tessera knows, with its arity and
// NumPy's type resolution (which dtype it computes in, which it returns), and
// every reduction, with its combine, start value and identity (REDUCE). The
// kernel IR, its emitters and the reference interpreter are typed over these
// same enums and read these rows, so an op added here without an
// implementation fails to compile, and a reduction is described once.

import { type DType, INFO, floatResultOf, isFloat } from './dtype.js';

export const UNARY_OPS = [
  'negative', 'abs', 'sign', 'sqrt', 'square', 'cbrt', 'reciprocal',
  'exp', 'exp2', 'expm1', 'log', 'log2', 'log10', 'log1p',
  'sin', 'cos', 'tan', 'arcsin', 'arccos', 'arctan', 'sinh', 'cosh', 'tanh',
  'arcsinh', 'arccosh', 'arctanh', 'floor', 'ceil', 'trunc', 'rint',
  'logical_not', 'bitwise_not', 'isnan', 'isinf', 'isfinite', 'signbit',
  // np.frexp's two outputs, each its own op so that each fuses like any other ufunc.
  'frexp_mantissa', 'frexp_exponent',
] as const;
export type UnaryOp = (typeof UNARY_OPS)[number];

export const BINARY_OPS = [
  'add', 'subtract', 'multiply', 'divide', 'floor_divide', 'mod', 'power', 'arctan2',
  'maximum', 'minimum', 'fmax', 'fmin', 'hypot',
  'equal', 'not_equal', 'less', 'less_equal', 'greater', 'greater_equal',
  'logical_and', 'logical_or', 'logical_xor', 'bitwise_and', 'bitwise_or', 'bitwise_xor',
  'fmod', 'copysign', 'nextafter', 'ldexp', 'gcd', 'lcm', 'left_shift', 'right_shift',
] as const;
export type BinaryOp = (typeof BINARY_OPS)[number];

/**
 * What a scan task accumulates: cumsum and cumprod ('sum', 'prod', with their
 * float16 rounding), any binary op as `ufunc.accumulate`, and the two
 * composite ufuncs that have an accumulate of their own.
 */
export const SCAN_OPS = ['sum', 'prod', ...BINARY_OPS, 'logaddexp', 'logaddexp2'] as const;
export type ScanOp = (typeof SCAN_OPS)[number];

/** How an op maps its (promoted) input dtype to the dtype it computes in and returns. */
type Rule =
  | 'same' // computes and returns the input dtype
  | 'float' // computes in floatResultOf(input)
  | 'bool' // computes in input dtype, returns bool
  | 'logical' // computes on truthiness, returns bool
  | 'int' // bool or integers only, returns the input dtype
  | 'nobool' // like 'same', but NumPy rejects bool
  | 'int_nobool' // integers only (gcd, lcm: NumPy has no bool loop)
  | 'float_bool' // computes in floatResultOf(input), returns bool (signbit)
  | 'float_or_int'; // floor/ceil/trunc: ints stay as they are (NumPy 2; rint still goes to float)

const UNARY_RULE: { readonly [P in UnaryOp]: Rule } = {
  negative: 'nobool', abs: 'same', sign: 'nobool', sqrt: 'float', square: 'same', cbrt: 'float',
  reciprocal: 'same', exp: 'float', exp2: 'float', expm1: 'float', log: 'float', log2: 'float',
  log10: 'float', log1p: 'float', sin: 'float', cos: 'float', tan: 'float', arcsin: 'float',
  arccos: 'float', arctan: 'float', sinh: 'float', cosh: 'float', tanh: 'float', arcsinh: 'float',
  arccosh: 'float', arctanh: 'float', floor: 'float_or_int', ceil: 'float_or_int', trunc: 'float_or_int',
  rint: 'float', logical_not: 'logical', bitwise_not: 'int', isnan: 'bool', isinf: 'bool', isfinite: 'bool',
  signbit: 'float_bool', frexp_mantissa: 'float', frexp_exponent: 'float',
};

const BINARY_RULE: { readonly [P in BinaryOp]: Rule } = {
  add: 'same', subtract: 'nobool', multiply: 'same', divide: 'float', floor_divide: 'same', mod: 'same',
  power: 'same', arctan2: 'float', maximum: 'same', minimum: 'same', fmax: 'same', fmin: 'same',
  hypot: 'float', equal: 'bool', not_equal: 'bool', less: 'bool', less_equal: 'bool', greater: 'bool',
  greater_equal: 'bool', logical_and: 'logical', logical_or: 'logical', logical_xor: 'logical',
  bitwise_and: 'int', bitwise_or: 'int', bitwise_xor: 'int',
  fmod: 'same', copysign: 'float', nextafter: 'float', ldexp: 'float', gcd: 'int_nobool', lcm: 'int_nobool',
  left_shift: 'int', right_shift: 'int',
};

export interface Resolved {
  /** dtype both operands are cast to before the op. */
  readonly compute: DType;
  /** dtype of the result. */
  readonly result: DType;
}

function resolve(rule: Rule, name: string, d: DType): Resolved {
  switch (rule) {
    case 'same':
      return { compute: d, result: d };
    case 'float': {
      const f = floatResultOf(d);
      return { compute: f, result: f };
    }
    case 'float_or_int':
      return { compute: d, result: d };
    case 'bool':
      return { compute: d, result: 'bool' };
    case 'logical':
      return { compute: d, result: 'bool' };
    case 'nobool':
      if (d === 'bool') {
        throw new TypeError(`numpy boolean ${name}, the \`${name === 'subtract' ? '-' : name}\` operator, is not supported, use the bitwise_xor, the \`^\` operator, or the logical_xor function instead.`);
      }
      return { compute: d, result: d };
    case 'float_bool':
      return { compute: floatResultOf(d), result: 'bool' };
    case 'int_nobool':
      if (d === 'bool') throw new TypeError(`ufunc '${name}' not supported for the input types (${d}), and the inputs could not be safely coerced`);
      return resolve('int', name, d);
    case 'int':
      if (isFloat(d)) throw new TypeError(`ufunc '${name}' not supported for the input types (${d}), and the inputs could not be safely coerced`);
      return { compute: d, result: d };
    default:
      return rule satisfies never;
  }
}

export function resolveUnary(op: UnaryOp, d: DType): Resolved {
  // NumPy has no bool loop for these and computes them in int8.
  if ((op === 'reciprocal' || op === 'square') && d === 'bool') return { compute: 'int8', result: 'int8' };
  if (op === 'frexp_exponent') return { compute: floatResultOf(d), result: 'int32' };
  return resolve(UNARY_RULE[op], op, d);
}

export function resolveBinary(op: BinaryOp, d: DType): Resolved {
  if (op === 'power' && d === 'bool') return { compute: 'int8', result: 'int8' };
  // NumPy has no bool loop for these either: bool inputs take its first loop, int8.
  if ((op === 'floor_divide' || op === 'mod' || op === 'fmod' || op === 'left_shift' || op === 'right_shift') && d === 'bool') return { compute: 'int8', result: 'int8' };
  if (op === 'divide' && INFO[d].kind !== 'f') return { compute: 'float64', result: 'float64' };
  return resolve(BINARY_RULE[op], op, d);
}

export const isUnaryOp = (s: string): s is UnaryOp => (UNARY_OPS as readonly string[]).includes(s);
export const isBinaryOp = (s: string): s is BinaryOp => (BINARY_OPS as readonly string[]).includes(s);

export const REDUCE_OPS = ['sum', 'prod', 'min', 'max', 'argmin', 'argmax', 'any', 'all'] as const;
export type ReduceOp = (typeof REDUCE_OPS)[number];
export type ArgReduceOp = 'argmin' | 'argmax';
export type FoldOp = Exclude<ReduceOp, ArgReduceOp>;

/**
 * A reduction that folds its terms into an accumulator, as tinygrad keeps one:
 * a binary op and where the accumulator starts. Every stage reads these
 * fields (the graph, fusion, the reference interpreter, the WASM and WGSL
 * emitters), so a reduction is described here once.
 */
export interface FoldRule {
  readonly kind: 'fold';
  /** acc = combine(acc, term), terms cast to the accumulator's dtype first; partial accumulators combine the same way. */
  readonly combine: 'add' | 'multiply' | 'minimum' | 'maximum' | 'logical_or' | 'logical_and';
  /**
   * Where the accumulator starts: the op's identity, or for min and max the
   * dtype's largest (smallest) value, infinity for floats (`accStart`).
   */
  readonly start: 0 | 1 | 'top' | 'bottom';
  /** NumPy's identity: the result of an empty reduction, and the fill of terms a selection drops; none for min and max. */
  readonly identity?: number | boolean;
  /** Its value rounds at every step, so a float32 accumulator widens to float64 and a float16 reduction runs in float32. */
  readonly widens: boolean;
  /** NumPy's name in its "no identity" error. */
  readonly ufunc: string;
}

/** argmin/argmax: the C-order index of the first best term, NaN beating any number. */
export interface ArgRule {
  readonly kind: 'arg';
  /** A term replaces the best so far when `better(term, best)` (strictly: the first of equals stays). */
  readonly better: 'less' | 'greater';
  readonly ufunc: string;
}

export type ReduceRule<P extends ReduceOp> = P extends ArgReduceOp ? ArgRule : FoldRule;

/** The reductions, one row each: the compiler asks for a row for every op of REDUCE_OPS. */
export const REDUCE: { readonly [P in ReduceOp]: ReduceRule<P> } = {
  sum: { kind: 'fold', combine: 'add', start: 0, identity: 0, widens: true, ufunc: 'add' },
  prod: { kind: 'fold', combine: 'multiply', start: 1, identity: 1, widens: true, ufunc: 'multiply' },
  min: { kind: 'fold', combine: 'minimum', start: 'top', widens: false, ufunc: 'minimum' },
  max: { kind: 'fold', combine: 'maximum', start: 'bottom', widens: false, ufunc: 'maximum' },
  any: { kind: 'fold', combine: 'logical_or', start: 0, identity: false, widens: false, ufunc: 'logical_or' },
  all: { kind: 'fold', combine: 'logical_and', start: 1, identity: true, widens: false, ufunc: 'logical_and' },
  argmin: { kind: 'arg', better: 'less', ufunc: 'argmin' },
  argmax: { kind: 'arg', better: 'greater', ufunc: 'argmax' },
};

export const isArgReduce = (op: ReduceOp): op is ArgReduceOp => REDUCE[op].kind === 'arg';

/** The rule of a reduction known to fold (to be an arg-reduction) where the type does not say so. */
export function foldRule(op: ReduceOp): FoldRule {
  const r = REDUCE[op];
  if (r.kind !== 'fold') throw new Error(`internal: ${op} is not a folding reduction`);
  return r;
}
/** Whether a reduction's accumulator widens (float32 to float64, float16 to float32): sums and products. */
export const widens = (op: ReduceOp): boolean => {
  const r = REDUCE[op];
  return r.kind === 'fold' && r.widens;
};
export function argRule(op: ReduceOp): ArgRule {
  const r = REDUCE[op];
  if (r.kind !== 'arg') throw new Error(`internal: ${op} is not an arg-reduction`);
  return r;
}

const TOP: { readonly [D in DType]: number | bigint } = {
  bool: 1, int8: 127, int16: 32767, int32: 2147483647, int64: 9223372036854775807n,
  uint8: 255, uint16: 65535, uint32: 4294967295, float16: Infinity, float32: Infinity, float64: Infinity,
};
const BOTTOM: { readonly [D in DType]: number | bigint } = {
  bool: 0, int8: -128, int16: -32768, int32: -2147483648, int64: -9223372036854775808n,
  uint8: 0, uint16: 0, uint32: 0, float16: -Infinity, float32: -Infinity, float64: -Infinity,
};

/** The accumulator's first value for `op` in dtype `d` (a bigint for int64, as the IR's scalars are). */
export function accStart(op: ReduceOp, d: DType): number | bigint {
  const s = foldRule(op).start;
  const v = s === 'top' ? TOP[d] : s === 'bottom' ? BOTTOM[d] : s;
  return d === 'int64' ? BigInt(v) : v;
}

export const RANDOM_DISTS = ['uniform', 'uniform32', 'normal', 'bits'] as const;
export type RandomDist = (typeof RANDOM_DISTS)[number];
