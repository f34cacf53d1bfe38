// NumPy's argument binding in JS: positional arguments stay positional, its
// keyword arguments go in a trailing options object (`kwargs` binds them as
// Python does), with the checks of a count, an `order` and Python's type
// names that NumPy's messages use. Values in, plain options out; it knows no
// Tensor, so every api module can import it.

import { UnknownLengthError } from '../graph/node.js';
import { repr } from '../graph/shape.js';

/**
 * Python's binding of NumPy's parameters after the array: positional values
 * take `names` in order, a trailing `{...}` gives keywords (`names` and the
 * keyword-only `kwOnly`). Too many positionals, a keyword the function does
 * not take (a misspelt `ddoff` must not be ignored) or one given twice is a
 * TypeError, as in Python. `out=` is refused: Tessera's values are immutable.
 */
export function kwargs<O>(fn: string, args: readonly unknown[], names: readonly string[], kwOnly: readonly string[] = []): O {
  const [pos, kw] = trailingOpts<Record<string, unknown>>(args);
  if (pos.length > names.length) {
    throw new TypeError(`${fn}() takes at most ${names.length} arguments after the array (${pos.length} given: ${names.join(', ')})`);
  }
  const o: Record<string, unknown> = {};
  pos.forEach((v, i) => { if (v !== undefined) o[names[i]!] = v; });
  for (const [k, v] of Object.entries(kw)) {
    if (!names.includes(k) && !kwOnly.includes(k)) {
      throw new TypeError(`${fn}() got an unexpected keyword argument '${k}' (expected ${[...names, ...kwOnly].join(', ')})`);
    }
    if (k in o) throw new TypeError(`${fn}() got multiple values for argument '${k}'`);
    if (v !== undefined) o[k] = v;
  }
  if (o.out !== undefined && o.out !== null) throw new TypeError(`${fn}(): out= is not supported (Tessera's values are immutable: use the returned tensor)`);
  if (o.keepdims !== undefined && typeof o.keepdims !== 'boolean') throw new TypeError(`keepdims must be a boolean, got ${repr(o.keepdims)}`);
  delete o.out;
  return o as O;
}
/** A parameter the caller must give, positionally or by keyword (Python's "missing required argument"). */
export function need<T>(fn: string, o: object, name: string): T {
  const v = (o as Record<string, unknown>)[name];
  if (v === undefined) throw new TypeError(`${fn}() missing required argument '${name}'`);
  return v as T;
}

/** A plain `{...}` object: NumPy's keyword arguments, trailing the positional ones. */
export function isOptions(x: unknown): x is Record<string, unknown> {
  if (x === null || typeof x !== 'object' || Array.isArray(x) || ArrayBuffer.isView(x)) return false;
  const p = Object.getPrototypeOf(x);
  return p === Object.prototype || p === null;
}

/** Splits a trailing options object off positional arguments (trailing undefineds dropped). */
export function trailingOpts<O>(args: readonly unknown[]): [unknown[], O] {
  const a = [...args];
  const trim = () => { while (a.length && a[a.length - 1] === undefined) a.pop(); };
  trim();
  const o = a.length && isOptions(a[a.length - 1]) ? (a.pop() as O) : ({} as O);
  trim();
  return [a, o];
}

/** A count given as a JS number: NaN (len() of a selection, known only at run time) is refused with what to do. */
export function knownLength<T>(fn: string, v: T, name: string): T {
  if (typeof v === 'number' && Number.isNaN(v)) throw new UnknownLengthError(`${fn}() with ${name} = NaN`);
  return v;
}

/** Python's name for the type of a JS value, for NumPy's TypeError messages. */
export const pyType = (v: unknown): string => (typeof v === 'number' ? (Number.isInteger(v) ? 'int' : 'float')
  : typeof v === 'boolean' ? 'bool' : typeof v === 'string' ? 'str' : v === null ? 'NoneType' : typeof v);

/**
 * NumPy's check of an `order` argument: a string, 'C', 'F', 'A' or 'K' in
 * either case (`CF`: only the first two, as the creation functions allow).
 * Values are C-ordered whatever it says; it changes no value.
 */
export function checkOrder(order: unknown, only: 'CFAK' | 'CF' = 'CFAK'): void {
  if (order === undefined || order === null) return;
  if (typeof order !== 'string') throw new TypeError(`order must be str, not ${pyType(order)}`);
  const u = order.toUpperCase();
  if (u.length !== 1 || !'CFAK'.includes(u)) throw new RangeError(`order must be one of 'C', 'F', 'A', or 'K' (got '${order}')`);
  if (!only.includes(u)) throw new RangeError("only 'C' or 'F' order is permitted");
}
