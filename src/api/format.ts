// np.format_float_positional and np.format_float_scientific: one float as
// text through the same Dragon4 as the array printer (./print.ts), with
// NumPy's options and checks (numpy/_core/arrayprint.py). In: a JS number
// (a float64, as a Python float is), a size-1 float NDArray (its own width:
// float16 and float32 values print their own shortest digits), or a tensor
// (fetched first, so the answer is a Promise). Out: the string.

import { INFO } from '../graph/dtype.js';
import { NDArray } from './convert.js';
import { type FloatFmt, type Trim, type Width, positional, scientific } from './print.js';
import { kwargs } from './bind.js';
import { type Tensor, isTensor } from './core.js';
import { repr } from '../graph/shape.js';

type Args = unknown[];
type Value = number | bigint | boolean | NDArray | Tensor;

interface Common { precision?: number | null; unique?: boolean; trim?: Trim; sign?: boolean; pad_left?: number | null; min_digits?: number | null }
interface PositionalOpts extends Common { fractional?: boolean; pad_right?: number | null }
interface ScientificOpts extends Common { exp_digits?: number | null }

/** NumPy's _none_or_positive_arg: None is -1, a negative value an error. */
function count(name: string, v: number | null | undefined): number {
  if (v === undefined || v === null) return -1;
  if (!Number.isInteger(v)) throw new TypeError(`'${typeof v === 'number' ? 'float' : typeof v}' object cannot be interpreted as an integer (${name})`);
  if (v < 0) throw new RangeError(`${name} must be non-negative`);
  return v;
}

/** The value and its float width: a JS number is a float64; an NDArray keeps its float dtype's width. */
function floatOf(fn: string, x: number | bigint | boolean | NDArray): [number, Width] {
  if (typeof x === 'number' || typeof x === 'bigint' || typeof x === 'boolean') return [Number(x), 64];
  if (x instanceof NDArray) {
    if (x.size !== 1) throw new TypeError(`${fn}(): only size-1 arrays can be converted to a float, got shape (${x.shape.join(', ')}${x.shape.length === 1 ? ',' : ''})`);
    const info = INFO[x.dtype];
    return [Number(x.item()), info.kind === 'f' ? (info.bytes * 8) as Width : 64];
  }
  throw new TypeError(`${fn}(): expected a floating-point number, got ${repr(x)}`);
}

function options(fn: string, o: Common): FloatFmt {
  const precision = count('precision', o.precision), minDigits = count('min_digits', o.min_digits);
  const unique = o.unique ?? true;
  if (!unique && precision < 0) throw new TypeError('in non-unique mode `precision` must be supplied');
  if (minDigits > 0 && precision > 0 && minDigits > precision) throw new RangeError('min_digits must be less than or equal to precision');
  const trim = o.trim ?? 'k';
  if (!['k', '.', '0', '-'].includes(trim)) throw new RangeError(`${fn}(): trim must be one of 'k', '.', '0' or '-', got ${JSON.stringify(trim)}`);
  return { precision, minDigits, unique, trim, sign: o.sign ?? false, padLeft: count('pad_left', o.pad_left), padRight: -1, expDigits: -1 };
}

/** inf and nan as Dragon4 writes them: no padding, a '+' only on inf. */
function special(v: number, sign: boolean): string | undefined {
  if (Number.isNaN(v)) return 'nan';
  if (v === Infinity) return sign ? '+inf' : 'inf';
  if (v === -Infinity) return '-inf';
  return undefined;
}

function run<T>(x: Value, f: (v: number | bigint | boolean | NDArray) => T): T | Promise<T> {
  return isTensor(x) ? x.fetch().then(f) : f(x);
}

/**
 * format_float_positional(x, precision=None, unique=True, fractional=True,
 * trim='k', sign=False, pad_left=None, pad_right=None, min_digits=None).
 */
export function format_float_positional(x: number | bigint | boolean | NDArray, ...args: Args): string;
export function format_float_positional(x: Tensor, ...args: Args): Promise<string>;
export function format_float_positional(x: Value, ...args: Args): string | Promise<string> {
  const o = kwargs<PositionalOpts>('format_float_positional', args, ['precision', 'unique', 'fractional', 'trim', 'sign', 'pad_left', 'pad_right', 'min_digits']);
  const fmt = { ...options('format_float_positional', o), padRight: count('pad_right', o.pad_right) };
  const fractional = o.fractional ?? true;
  if (!fractional && fmt.precision === 0) throw new RangeError('precision must be greater than 0 if fractional=False');
  return run(x, (y) => {
    const [v, w] = floatOf('format_float_positional', y);
    return special(v, fmt.sign) ?? positional(v, w, fmt, fractional);
  });
}

/**
 * format_float_scientific(x, precision=None, unique=True, trim='k',
 * sign=False, pad_left=None, exp_digits=None, min_digits=None).
 */
export function format_float_scientific(x: number | bigint | boolean | NDArray, ...args: Args): string;
export function format_float_scientific(x: Tensor, ...args: Args): Promise<string>;
export function format_float_scientific(x: Value, ...args: Args): string | Promise<string> {
  const o = kwargs<ScientificOpts>('format_float_scientific', args, ['precision', 'unique', 'trim', 'sign', 'pad_left', 'exp_digits', 'min_digits']);
  const fmt = { ...options('format_float_scientific', o), expDigits: count('exp_digits', o.exp_digits) };
  return run(x, (y) => {
    const [v, w] = floatOf('format_float_scientific', y);
    return special(v, fmt.sign) ?? scientific(v, w, fmt);
  });
}
