// NumPy's text form of arrays: array2string, array_repr, array_str and the
// print options, character for character as NumPy 2 prints them
// (numpy/_core/arrayprint.py). In: an NDArray (sync) or a Tensor (async: it is
// fetched first). Out: strings.
//
// Floats go through Dragon4 (numpy/_core/src/multiarray/dragon4.c) written
// over BigInt: the exact binary value, the margins to its neighbours, digits
// generated until unique or cut off, the last one rounded as NumPy rounds it.
// Each float width (16, 32, 64) gets its own type's margins, so float16 and
// float32 values print their own shortest digits (np.float16(0.1) is '0.1').
// The layout (FloatingFormat, IntegerFormat, _formatArray, the repr's
// dtype/shape extras) follows arrayprint.py line for line, so its quirks
// (padding set by the widest edge item, the wrap width less one for ']')
// come out the same.

import { type DType, INFO } from '../graph/dtype.js';
import { halfBits, roundHalf } from '../graph/half.js';
import type { TypedArray } from '../graph/dtype.js';

// What printing reads of an array: an NDArray's values, or a Tensor's once
// fetched. Said here as shapes, not imported: convert.ts's NDArray prints
// itself with this module.
/** An array's values (an NDArray). */
interface NDArray {
  readonly shape: readonly number[];
  readonly dtype: DType;
  readonly data: TypedArray | (ArrayLike<number> & Iterable<number>);
  readonly size: number;
  readonly ndim: number;
}
/** A lazy array (a Tensor): its values once computed. */
interface Tensor { fetch(): Promise<NDArray> }

export type FloatMode = 'fixed' | 'unique' | 'maxprec' | 'maxprec_equal';
export type Sign = '-' | '+' | ' ';

export interface PrintOptions {
  precision: number;
  threshold: number;
  edgeitems: number;
  linewidth: number;
  suppress: boolean;
  nanstr: string;
  infstr: string;
  sign: Sign;
  floatmode: FloatMode;
}

const DEFAULTS: PrintOptions = {
  precision: 8, threshold: 1000, edgeitems: 3, linewidth: 75, suppress: false,
  nanstr: 'nan', infstr: 'inf', sign: '-', floatmode: 'maxprec',
};
let current: PrintOptions = { ...DEFAULTS };

const FLOATMODES: readonly FloatMode[] = ['fixed', 'unique', 'maxprec', 'maxprec_equal'];

function checked(o: Partial<PrintOptions>): Partial<PrintOptions> {
  const out: Partial<PrintOptions> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined && v !== null) (out as Record<string, unknown>)[k] = v;
  if (out.floatmode !== undefined && !FLOATMODES.includes(out.floatmode)) {
    throw new RangeError(`floatmode option must be one of ${FLOATMODES.map((m) => `"${m}"`).join(', ')}`);
  }
  if (out.sign !== undefined && !['-', '+', ' '].includes(out.sign)) throw new RangeError("sign option must be one of ' ', '+', or '-'");
  for (const k of ['precision', 'threshold', 'edgeitems', 'linewidth'] as const) {
    const v = out[k];
    if (v !== undefined && (!Number.isInteger(v) || v < 0)) throw new RangeError(`${k} must be a non-negative integer`);
  }
  return out;
}

/** np.set_printoptions: changes the defaults of every later print (omitted keys stay as they are). */
export function set_printoptions(o: Partial<PrintOptions> = {}): void {
  current = { ...current, ...checked(o) };
}

/** np.get_printoptions: a copy of the current print options. */
export function get_printoptions(): PrintOptions {
  return { ...current };
}

// ---------------------------------------------------------------- float widths

/** A float dtype's width in bits: every float question below is asked of one. */
export type Width = 16 | 32 | 64;

interface FloatType {
  /** Stored mantissa bits (the hidden bit not counted) and exponent bits. */
  mantissa: number;
  exponent: number;
  /** The IEEE bits of a number rounded to this type. */
  bits: (v: number) => bigint;
  /** A number rounded to this type: NumPy does the layout's arithmetic in the array's own type (NEP 50). */
  round: (v: number) => number;
  /** np.finfo(dtype).precision: decimal digits it holds. */
  precision: number;
  /** Where str() of a scalar turns scientific: 10**precision (NumPy 2.3, gh-28679), float64's at 1e16 as Python's float. */
  strMax: number;
}

const view = new DataView(new ArrayBuffer(8));

const FLOAT: { readonly [W in Width]: FloatType } = {
  16: { mantissa: 10, exponent: 5, bits: (v) => BigInt(halfBits(v)), round: roundHalf, precision: 3, strMax: 1e3 },
  32: { mantissa: 23, exponent: 8, bits: (v) => { view.setFloat32(0, v); return BigInt(view.getUint32(0)); }, round: Math.fround, precision: 6, strMax: 1e6 },
  64: { mantissa: 52, exponent: 11, bits: (v) => { view.setFloat64(0, v); return view.getBigUint64(0); }, round: (v) => v, precision: 15, strMax: 1e16 },
};

/** The width of a float dtype; undefined for the others. */
function widthOf(d: DType): Width | undefined {
  const i = INFO[d];
  return i.kind === 'f' ? (i.bytes * 8) as Width : undefined;
}

// ---------------------------------------------------------------- Dragon4

interface Bits { mantissa: bigint; exponent: number; mantissaBit: number; unequal: boolean }

/** Mantissa and binary exponent of |v| as dragon4.c's Dragon4_PrintFloat_IEEE_binary16/32/64 take them. */
function bitsOf(v: number, w: Width): Bits {
  const t = FLOAT[w];
  const u = t.bits(v);
  const e = Number(u >> BigInt(t.mantissa)) & ((1 << t.exponent) - 1);
  const hidden = 1n << BigInt(t.mantissa);
  const m = u & (hidden - 1n);
  const bias = (1 << (t.exponent - 1)) - 1;
  if (e !== 0) return { mantissa: m | hidden, exponent: e - bias - t.mantissa, mantissaBit: t.mantissa, unequal: e !== 1 && m === 0n };
  return { mantissa: m, exponent: 1 - bias - t.mantissa, mantissaBit: m.toString(2).length - 1, unequal: false };
}

/**
 * Decimal digits of |v| and the power of ten of the first one. `unique`
 * stops at the shortest digits that read back as v (not before `cutoffMin`),
 * never past `cutoffMax`; otherwise the exact value is cut at `cutoffMax`.
 * Cutoffs count fractional digits ('fraction') or all digits ('total'); -1 is none.
 */
function dragon4(v: number, w: Width, unique: boolean, mode: 'fraction' | 'total', cutoffMax: number, cutoffMin: number): { digits: string; exp: number } {
  const b = bitsOf(v, w);
  if (b.mantissa === 0n) return { digits: '0', exp: 0 };
  let value: bigint, scale: bigint, mLow: bigint, mHigh: bigint;
  const two = (n: number) => 1n << BigInt(n);
  if (b.unequal) {
    if (b.exponent > 0) { value = 4n * b.mantissa * two(b.exponent); scale = 4n; mLow = two(b.exponent); mHigh = two(b.exponent + 1); }
    else { value = 4n * b.mantissa; scale = two(-b.exponent + 2); mLow = 1n; mHigh = 2n; }
  } else {
    if (b.exponent > 0) { value = 2n * b.mantissa * two(b.exponent); scale = 2n; mLow = two(b.exponent); }
    else { value = 2n * b.mantissa; scale = two(-b.exponent + 1); mLow = 1n; }
    mHigh = mLow;
  }
  const unequal = mHigh !== mLow;
  // An even mantissa wins ties when read back (IEEE round-to-even), so a digit string exactly on a margin still names it.
  const even = (b.mantissa & 1n) === 0n;
  let digitExp = Math.ceil((b.mantissaBit + b.exponent) * 0.30102999566398119521373889472449302676818988146211 - 0.69);
  if (cutoffMax >= 0 && mode === 'fraction' && digitExp <= -cutoffMax) digitExp = -cutoffMax + 1;
  if (digitExp > 0) scale *= 10n ** BigInt(digitExp);
  else if (digitExp < 0) {
    const p = 10n ** BigInt(-digitExp);
    value *= p; mLow *= p; mHigh = unequal ? 2n * mLow : mLow;
  }
  if (value >= scale) digitExp += 1;
  else { value *= 10n; mLow *= 10n; mHigh = unequal ? 2n * mLow : mLow; }

  let cutExp = digitExp - 100000;
  if (cutoffMax >= 0) cutExp = Math.max(cutExp, mode === 'total' ? digitExp - cutoffMax : -cutoffMax);
  let minExp = digitExp;
  if (cutoffMin >= 0) minExp = Math.min(minExp, mode === 'total' ? digitExp - cutoffMin : -cutoffMin);
  let outExp = digitExp - 1;

  const out: number[] = [];
  let low = false, high = false, digit = 0;
  for (;;) {
    digitExp -= 1;
    digit = Number(value / scale);
    value %= scale;
    if (unique) {
      low = even ? value <= mLow : value < mLow;
      high = even ? value + mHigh >= scale : value + mHigh > scale;
      if (((low || high) && digitExp <= minExp) || digitExp === cutExp) break;
    } else if (value === 0n || digitExp === cutExp) break;
    out.push(digit);
    value *= 10n; mLow *= 10n; mHigh = unequal ? 2n * mLow : mLow;
  }
  let roundDown = low;
  if (low === high) {
    const c = 2n * value;
    roundDown = c < scale || (c === scale && (digit & 1) === 0);
  }
  if (roundDown) out.push(digit);
  else if (digit === 9) {
    for (;;) {
      if (out.length === 0) { out.push(1); outExp += 1; break; }
      const last = out.pop()!;
      if (last !== 9) { out.push(last + 1); break; }
    }
  } else out.push(digit + 1);
  return { digits: out.join(''), exp: outExp };
}

export type Trim = 'k' | '.' | '0' | '-';
export interface FloatFmt { precision: number; minDigits: number; unique: boolean; trim: Trim; sign: boolean; padLeft: number; padRight: number; expDigits: number }

function finishFraction(frac: string, o: FloatFmt): string {
  if (o.trim === '0' && frac === '') frac = '0';
  else if (o.trim === 'k') {
    // Dragon4 drops the zeros a carry leaves (0.96 -> '1'): put back up to the digits asked for.
    const want = o.unique ? o.minDigits : o.precision;
    if (want > frac.length) frac += '0'.repeat(want - frac.length);
  }
  if (o.precision >= 0 && o.trim !== 'k' && frac.length > 0) {
    frac = frac.replace(/0+$/, '');
    if (frac === '' && o.trim === '0') frac = '0';
  }
  return frac;
}

function signOf(v: number, plus: boolean): string {
  return v < 0 || Object.is(v, -0) ? '-' : plus ? '+' : '';
}

/** np.format_float_positional's digits (fractional=True: precision counts the digits after the point, else all of them). */
export function positional(v: number, w: Width, o: FloatFmt, fractional = true): string {
  const { digits, exp } = dragon4(Math.abs(v), w, o.unique, fractional ? 'fraction' : 'total', o.precision, o.minDigits);
  let whole: string, frac: string;
  if (exp >= 0) {
    if (digits.length <= exp + 1) { whole = digits + '0'.repeat(exp + 1 - digits.length); frac = ''; }
    else { whole = digits.slice(0, exp + 1); frac = digits.slice(exp + 1); }
  } else { whole = '0'; frac = '0'.repeat(-exp - 1) + digits; }
  // With fractional=False the counts are of all digits: Dragon4 pads the fraction to
  // precision less the whole digits (a leading '0' counts), or min_digits less exp + 1.
  frac = finishFraction(frac, fractional ? o : {
    ...o,
    precision: o.precision < 0 ? o.precision : Math.max(0, o.precision - Math.max(exp + 1, 1)),
    minDigits: o.minDigits < 0 ? o.minDigits : Math.max(0, o.minDigits - (exp + 1)),
  });
  const sg = signOf(v, o.sign);
  let s = sg + whole + (frac === '' && o.trim === '-' ? '' : '.') + frac;
  if (o.padRight >= frac.length) s += ' '.repeat(o.padRight - frac.length + (o.trim === '-' && frac === '' ? 1 : 0));
  const left = whole.length + sg.length;
  if (o.padLeft > left) s = ' '.repeat(o.padLeft - left) + s;
  return s;
}

/** np.format_float_scientific's digits. */
export function scientific(v: number, w: Width, o: FloatFmt): string {
  const { digits, exp } = dragon4(Math.abs(v), w, o.unique, 'total', o.precision >= 0 ? o.precision + 1 : -1, o.minDigits >= 0 ? o.minDigits + 1 : -1);
  const frac = finishFraction(digits.slice(1), o);
  const sg = signOf(v, o.sign);
  const e = String(Math.abs(exp)).padStart(o.expDigits < 0 ? 2 : o.expDigits, '0');
  // unlike the positional form, trim '-' keeps the point when Dragon4 gave fraction digits, zeros since trimmed ('1.e-01')
  let s = sg + digits[0] + (digits.length === 1 && o.trim === '-' ? '' : '.') + frac + 'e' + (exp < 0 ? '-' : '+') + e;
  if (o.padLeft > 1 + sg.length) s = ' '.repeat(o.padLeft - 1 - sg.length) + s;
  return s;
}

// ---------------------------------------------------------------- element formats

type Value = number | bigint | boolean;
type Format = (x: Value) => string;

const NONE: FloatFmt = { precision: -1, minDigits: -1, unique: true, trim: 'k', sign: false, padLeft: -1, padRight: -1, expDigits: -1 };

/** FloatingFormat: one layout for all the values shown, chosen from them. */
function floatFormat(data: number[], w: Width, o: PrintOptions): Format {
  const floatmode = o.floatmode;
  let precision = floatmode === 'unique' ? -1 : o.precision;
  const finite = data.filter(Number.isFinite);
  const absNonZero = finite.filter((x) => x !== 0).map(Math.abs);
  let expFormat = false;
  if (absNonZero.length) {
    const max = Math.max(...absNonZero);
    const min = Math.min(...absNonZero);
    const { round, precision: digits } = FLOAT[w];
    // The data compares and divides in its own type (NEP 50: the Python float takes the array's type).
    const cutoff = round(10 ** Math.min(8, digits));
    const ratio = round(max / min);
    const tiny = round(0.0001);
    if (max >= cutoff || (!o.suppress && (min < tiny || ratio > 1000))) expFormat = true;
  }
  let padLeft: number, padRight: number, trim: Trim, expSize: number, unique: boolean, minDigits: number;
  const plus = o.sign === '+';
  if (finite.length === 0) {
    padLeft = 0; padRight = 0; trim = '.'; expSize = -1; unique = true; minDigits = -1;
  } else if (expFormat) {
    const fixed = floatmode === 'fixed';
    const strs = finite.map((x) => scientific(x, w, { ...NONE, precision, unique: !fixed, trim: fixed ? 'k' : '.', sign: plus }));
    const parts = strs.map((s) => { const [m, e] = s.split('e') as [string, string]; const [i, f] = m.split('.') as [string, string]; return { i, f, e }; });
    expSize = Math.max(...parts.map((p) => p.e.length)) - 1;
    trim = 'k';
    precision = Math.max(...parts.map((p) => p.f.length));
    minDigits = precision;
    unique = !fixed;
    padLeft = Math.max(...parts.map((p) => p.i.length));
    padRight = expSize + 2 + precision;
  } else {
    const fixed = floatmode === 'fixed';
    const strs = finite.map((x) => positional(x, w, { ...NONE, precision, unique: !fixed, trim: fixed ? 'k' : '.', sign: plus }));
    const parts = strs.map((s) => s.split('.') as [string, string]);
    padLeft = Math.max(...parts.map((p) => p[0].length));
    padRight = Math.max(...parts.map((p) => p[1].length));
    expSize = -1;
    unique = !fixed;
    if (floatmode === 'fixed' || floatmode === 'maxprec_equal') { precision = minDigits = padRight; trim = 'k'; }
    else { trim = '.'; minDigits = 0; }
  }
  if (o.sign === ' ' && !finite.some((x) => x < 0 || Object.is(x, -0))) padLeft += 1;
  if (finite.length !== data.length) {
    const negInf = o.sign !== '-' || data.some((x) => x === -Infinity);
    const offset = padRight + 1;
    padLeft = Math.max(padLeft, o.nanstr.length - offset, o.infstr.length + (negInf ? 1 : 0) - offset);
  }
  const f: FloatFmt = { precision, minDigits, unique, trim, sign: plus, padLeft, padRight, expDigits: expSize };
  return (x) => {
    const v = x as number;
    if (!Number.isFinite(v)) {
      const r = Number.isNaN(v) ? (plus ? '+' : '') + o.nanstr : (v < 0 ? '-' : plus ? '+' : '') + o.infstr;
      return ' '.repeat(Math.max(0, padLeft + padRight + 1 - r.length)) + r;
    }
    return expFormat ? scientific(v, w, f) : positional(v, w, f);
  };
}

/** IntegerFormat: Python's '{:<sign><width>d}' with the width of the widest value shown. */
function intFormat(data: (number | bigint)[], sign: Sign): Format {
  let width = 0;
  if (data.length) {
    let max = data[0]!, min = data[0]!;
    for (const v of data) { if (v > max) max = v; if (v < min) min = v; }
    let maxLen = String(max).length;
    if (sign === ' ' && min < 0) sign = '-';
    if (max >= 0 && sign !== '-') maxLen += 1;
    width = Math.max(maxLen, String(min).length);
  }
  return (x) => {
    const v = x as number | bigint;
    const s = (v >= 0 && sign !== '-' ? sign : '') + String(v);
    return s.padStart(width, ' ');
  };
}

// ---------------------------------------------------------------- layout

interface Layout { linewidth: number; separator: string; edgeitems: number; summary: boolean }

function extendLine(s: string, line: string, word: string, width: number, nextPrefix: string): [string, string] {
  const wrap = line.length + word.length > width && line.length > nextPrefix.length;
  if (wrap) { s += line.trimEnd() + '\n'; line = nextPrefix; }
  return [s, line + word];
}

/** _formatArray: nested brackets, wrapping rows at the line width, '...' where summarised. */
function formatArray(a: NDArray, fmt: Format, value: (i: number) => Value, nextPrefix: string, l: Layout): string {
  const shape = a.shape;
  const strides: number[] = [];
  let acc = 1;
  for (let i = shape.length - 1; i >= 0; i--) { strides[i] = acc; acc *= shape[i]!; }
  const rec = (axis: number, off: number, hanging: string, width: number): string => {
    if (axis === shape.length) return fmt(value(off));
    const nextHanging = hanging + ' ';
    const nextWidth = width - 1;
    const n = shape[axis]!;
    const summary = l.summary && 2 * l.edgeitems < n;
    const lead = summary ? l.edgeitems : 0;
    const trail = summary ? l.edgeitems : n;
    const at = (i: number) => off + (i < 0 ? i + n : i) * strides[axis]!;
    const left = shape.length - axis;
    let s = '';
    if (left === 1) {
      const elemWidth = width - Math.max(l.separator.trimEnd().length, 1);
      let line = hanging;
      for (let i = 0; i < lead; i++) {
        [s, line] = extendLine(s, line, rec(axis + 1, at(i), nextHanging, nextWidth), elemWidth, hanging);
        line += l.separator;
      }
      if (summary) { [s, line] = extendLine(s, line, '...', elemWidth, hanging); line += l.separator; }
      for (let i = trail; i > 1; i--) {
        [s, line] = extendLine(s, line, rec(axis + 1, at(-i), nextHanging, nextWidth), elemWidth, hanging);
        line += l.separator;
      }
      [s, line] = extendLine(s, line, rec(axis + 1, at(-1), nextHanging, nextWidth), elemWidth, hanging);
      s += line;
    } else {
      const lineSep = l.separator.trimEnd() + '\n'.repeat(left - 1);
      for (let i = 0; i < lead; i++) s += hanging + rec(axis + 1, at(i), nextHanging, nextWidth) + lineSep;
      if (summary) s += hanging + '...' + lineSep;
      for (let i = trail; i > 1; i--) s += hanging + rec(axis + 1, at(-i), nextHanging, nextWidth) + lineSep;
      s += hanging + rec(axis + 1, at(-1), nextHanging, nextWidth);
    }
    return '[' + s.slice(hanging.length) + ']';
  };
  return rec(0, 0, nextPrefix, l.linewidth);
}

/** Flat indices of the items _leading_trailing keeps: all of them unless summarised. */
function shownIndices(shape: readonly number[], edge: number, summary: boolean): number[] {
  const out: number[] = [];
  const rec = (axis: number, off: number) => {
    if (axis === shape.length) { out.push(off); return; }
    const n = shape[axis]!;
    const stride = shape.slice(axis + 1).reduce((x, y) => x * y, 1);
    const idx = summary && n > 2 * edge ? [...Array(edge).keys(), ...Array.from({ length: edge }, (_, k) => n - edge + k)] : [...Array(n).keys()];
    for (const i of idx) rec(axis + 1, off + i * stride);
  };
  rec(0, 0);
  return out;
}

function valueReader(a: NDArray): (i: number) => Value {
  if (a.dtype === 'bool') return (i) => a.data[i] !== 0;
  return (i) => a.data[i]!;
}

function formatFor(a: NDArray, shown: Value[], o: PrintOptions): Format {
  if (a.dtype === 'bool') {
    const t = a.ndim ? ' True' : 'True';
    return (x) => (x ? t : 'False');
  }
  const w = widthOf(a.dtype);
  if (w) return floatFormat(shown as number[], w, o);
  return intFormat(shown as (number | bigint)[], o.sign);
}

// ---------------------------------------------------------------- public API

export interface Array2StringOptions {
  max_line_width?: number;
  precision?: number;
  suppress_small?: boolean;
  separator?: string;
  prefix?: string;
  suffix?: string;
  threshold?: number;
  edgeitems?: number;
  sign?: Sign;
  floatmode?: FloatMode;
}

const isTensor = (a: NDArray | Tensor): a is Tensor => typeof (a as { fetch?: unknown }).fetch === 'function';

function array2stringSync(a: NDArray, opts: Array2StringOptions = {}): string {
  const o: PrintOptions = {
    ...current,
    ...checked({
      linewidth: opts.max_line_width, precision: opts.precision, suppress: opts.suppress_small,
      threshold: opts.threshold, edgeitems: opts.edgeitems, sign: opts.sign, floatmode: opts.floatmode,
    }),
  };
  const separator = opts.separator ?? ' ';
  const prefix = opts.prefix ?? '';
  o.linewidth -= (opts.suffix ?? '').length;
  if (a.size === 0) return '[]';
  const summary = a.size > o.threshold;
  const value = valueReader(a);
  const shown = shownIndices(a.shape, o.edgeitems, summary).map(value);
  const fmt = formatFor(a, shown, o);
  return formatArray(a, fmt, value, ' ' + ' '.repeat(prefix.length), { linewidth: o.linewidth, separator, edgeitems: o.edgeitems, summary });
}

const IMPLIED = new Set(['int64', 'float64', 'bool']);

function arrayReprSync(a: NDArray, opts: { max_line_width?: number; precision?: number; suppress_small?: boolean } = {}): string {
  const width = opts.max_line_width ?? current.linewidth;
  const prefix = 'array(';
  const lst = array2stringSync(a, { ...opts, max_line_width: width, separator: ', ', prefix, suffix: ')' });
  const extras: string[] = [];
  if ((a.size === 0 && !(a.ndim === 1 && a.shape[0] === 0)) || a.size > current.threshold) {
    extras.push(`shape=(${a.shape.join(', ')}${a.ndim === 1 ? ',' : ''})`);
  }
  if (!IMPLIED.has(a.dtype) || a.size === 0) extras.push(`dtype=${a.dtype}`);
  if (!extras.length) return prefix + lst + ')';
  const arrStr = prefix + lst + ',';
  const extra = extras.join(', ') + ')';
  const lastLine = arrStr.length - (arrStr.lastIndexOf('\n') + 1);
  const spacer = lastLine + extra.length + 1 > width ? '\n' + ' '.repeat(prefix.length) : ' ';
  return arrStr + spacer + extra;
}

/** Python's str() of a NumPy scalar: shortest round-trip digits, positional for 1e-4 <= |x| < strMax. */
function scalarStr(v: Value, dtype: DType): string {
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  const w = widthOf(dtype);
  if (typeof v === 'bigint' || !w) return String(v);
  if (Number.isNaN(v)) return 'nan';
  if (!Number.isFinite(v)) return v > 0 ? 'inf' : '-inf';
  const a = Math.abs(v);
  if (a === 0 || (a < FLOAT[w].strMax && a >= 1e-4)) return positional(v, w, { ...NONE, trim: '0', precision: -1, minDigits: -1 });
  return scientific(v, w, { ...NONE, trim: '-', precision: -1, minDigits: -1 });
}

function arrayStrSync(a: NDArray, opts: { max_line_width?: number; precision?: number; suppress_small?: boolean } = {}): string {
  if (a.ndim === 0) return scalarStr(valueReader(a)(0), a.dtype);
  return array2stringSync(a, { ...opts, separator: ' ', prefix: '' });
}

/**
 * np.array2string. Sync for an NDArray; for a Tensor it fetches the values
 * first and returns a Promise. Options default to get_printoptions();
 * `formatter` and `legacy` are not supported.
 */
export function array2string(a: NDArray, opts?: Array2StringOptions): string;
export function array2string(a: Tensor, opts?: Array2StringOptions): Promise<string>;
export function array2string(a: NDArray | Tensor, opts?: Array2StringOptions): string | Promise<string> {
  return isTensor(a) ? a.fetch().then((x) => array2stringSync(x, opts)) : array2stringSync(a, opts);
}

/** np.array_repr ("array([1., 2.])", with NumPy's dtype= and shape= extras). Async for a Tensor. */
export function array_repr(a: NDArray, opts?: { max_line_width?: number; precision?: number; suppress_small?: boolean }): string;
export function array_repr(a: Tensor, opts?: { max_line_width?: number; precision?: number; suppress_small?: boolean }): Promise<string>;
export function array_repr(a: NDArray | Tensor, opts?: { max_line_width?: number; precision?: number; suppress_small?: boolean }): string | Promise<string> {
  return isTensor(a) ? a.fetch().then((x) => arrayReprSync(x, opts)) : arrayReprSync(a, opts);
}

/** np.array_str, which is str(a): "[1. 2.]"; a 0-d array prints as its scalar. Async for a Tensor. */
export function array_str(a: NDArray, opts?: { max_line_width?: number; precision?: number; suppress_small?: boolean }): string;
export function array_str(a: Tensor, opts?: { max_line_width?: number; precision?: number; suppress_small?: boolean }): Promise<string>;
export function array_str(a: NDArray | Tensor, opts?: { max_line_width?: number; precision?: number; suppress_small?: boolean }): string | Promise<string> {
  return isTensor(a) ? a.fetch().then((x) => arrayStrSync(x, opts)) : arrayStrSync(a, opts);
}
