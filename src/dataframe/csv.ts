// The parsing core of read_csv (pandas 1.5 semantics), as pure functions over bytes.
// In: a Uint8Array of CSV text (UTF-8, optional BOM) and pandas' options. Out: a
// Schema (names, separator, per-column dtype as pandas infers it) and, per byte
// range, columns: Float64Array / BigInt64Array / Uint8Array, strings as per-chunk
// dictionaries. Design: one tokenizer (pandas' C tokenizer's states, reduced to
// the six that decide where a row ends) shared by four verbs:
//   sniff       header + the head's rows → Schema
//   scanStates  a range's state transition (entry state → exit state), so row
//               starts are decidable with no serial pass: compose the ranges' maps
//               (and, per entry state, the range's first row start)
//   rangeStart  the first row start at or after a byte, given the state there
//   parseRows   the rows whose first byte is in [start, end) → columns
// and `work`, one range's scan or parse as read_csv's threads run it (read.ts).
// A column's dtype is a join over its values (int ⊂ float; bool; all ⊂ string;
// NA makes int float and bool object), so ranges parsed apart and joined with
// `unify` give what pandas gives for the whole file (low_memory=False).
// Floats emulate pandas' default parser (precise_xstrtod) step by step in
// doubles, so values equal pandas' bit for bit, including its roundings (of
// the fixture's 3000 float spellings, 928 of pandas' values are not the
// nearest double, which Number() would give).
// Not pandas: an int beyond int64 makes the column float64 (pandas:
// uint64 up to 2^64-1, text below -2^63); no implicit index column (a header
// one field short is an error); no comment, thousands, decimal or
// skipinitialspace options; UTF-8 only; dtype 'string' reads as pandas'
// dtype=str (object).

import { ARRAY_CTOR, type DType, type TypedArray } from '../graph/dtype.js';
import { type Spellings, Strings, decode, grow, latin1 } from './strings.js';

export { type Spellings, Strings } from './strings.js';

/** pandas 1.5's default NA strings (pandas._libs.parsers.STR_NA_VALUES). */
export const DEFAULT_NA = [
  '', '#N/A', '#N/A N/A', '#NA', '-1.#IND', '-1.#QNAN', '-NaN', '-nan', '1.#IND', '1.#QNAN',
  '<NA>', 'N/A', 'NA', 'NULL', 'NaN', 'n/a', 'nan', 'null',
];

export interface CsvOptions {
  sep?: string;
  quote?: string;
  /** 0: the first row names the columns; null: no header (names '0'..'n-1' or `names`). */
  header?: 0 | null;
  names?: string[];
  usecols?: (string | number)[];
  /** Per column name: a DType or 'string' (pandas' dtype=str); the column is then not inferred. */
  dtype?: Record<string, DType | 'string'>;
  /** Extra NA strings, added to pandas' defaults. */
  na_values?: string[];
  nrows?: number;
}

/** A column's inference state: the join of the kinds of its values so far. */
export type Kind = 'none' | 'int' | 'float' | 'bool' | 'string';
export interface ColumnState { kind: Kind; hasNA: boolean }

export interface Schema {
  /** Names of the columns kept (usecols), in file order. */
  names: string[];
  /** Their positions among the file's fields. */
  fields: number[];
  /** Fields per row in the file: a row with more is malformed. */
  width: number;
  sep: number;
  quote: number;
  states: ColumnState[];
  /** The user's dtype per kept column, or null where inferred. */
  forced: (DType | 'string' | null)[];
  na: string[];
  /** Offset of the first data row (after BOM and header), and records before it (the header). */
  dataStart: number;
  headerRows: number;
  nrows: number | null;
}

export type Column =
  | { name: string; dtype: 'float64' | 'float32'; values: Float64Array | Float32Array }
  | { name: string; dtype: 'int64'; values: BigInt64Array }
  | { name: string; dtype: Exclude<DType, 'float64' | 'float32' | 'int64' | 'bool'>; values: TypedArray }
  /** `missing` (1 = NA) only where pandas gives an object column of True/False/NaN. */
  | { name: string; dtype: 'bool'; values: Uint8Array; missing: Uint8Array | null }
  /**
   * Dictionary-encoded per chunk: codes index `dict` in first-seen order, -1 is NA. Parsed with `spellings`
   * (ParseOptions), codes index `spellings` instead (undecoded; see Strings) and dict is empty.
   */
  | { name: string; dtype: 'string'; codes: Int32Array; dict: string[]; spellings?: Spellings };


export interface Parsed {
  columns: Column[];
  /** Per column, the state after these rows: the driver joins them with `unify`. */
  states: ColumnState[];
  rows: number;
  /** Lines read, blank ones included, newlines inside quotes not: pandas numbers lines so. */
  records: number;
  /** Offset just past the last row read (may pass `end`: a row runs to its own end). */
  end: number;
  warnings: string[];
}

/** The dtype pandas reports for a column in this state. */
export function pandasDtype(s: ColumnState, forced: DType | 'string' | null = null): string {
  if (forced !== null) return forced === 'string' ? 'object' : forced;
  if (s.kind === 'int') return 'int64';
  if (s.kind === 'bool') return s.hasNA ? 'object' : 'bool';
  if (s.kind === 'string') return 'object';
  return 'float64';
}

/**
 * The error pandas raises for a row with too many fields; `line` counts lines as pandas does (header and blank lines
 * included, newlines inside quotes not). pandas' implicit index (a header one field short of every row) is not read:
 * such a file fails here.
 */
export class CsvError extends Error {
  constructor(readonly line: number, readonly expected: number, readonly saw: number) {
    super(`Error tokenizing data. C error: Expected ${expected} fields in line ${line}, saw ${saw}`);
  }
}

// ---------------------------------------------------------------------------
// Row boundaries: the tokenizer's states as far as they decide where a row ends.

/** State before a byte: at a row's start, after a \r that ended a row, at a field's start, in an unquoted field,
 * in a quoted field, after a quote inside a quoted field. */
export const St = { Row: 0, Cr: 1, FieldStart: 2, Field: 3, Quoted: 4, QuoteInQuoted: 5 } as const;
const NSTATES = 6;
// byte classes: other, quote, separator, \n, \r
const TRANS = Uint8Array.from([
  St.Field, St.Quoted, St.FieldStart, St.Row, St.Cr, // Row
  St.Field, St.Quoted, St.FieldStart, St.Row, St.Cr, // Cr (\n completes \r\n; anything else starts a row)
  St.Field, St.Quoted, St.FieldStart, St.Row, St.Cr, // FieldStart
  St.Field, St.Field, St.FieldStart, St.Row, St.Cr, // Field: a quote inside an unquoted field is text, as in pandas
  St.Quoted, St.QuoteInQuoted, St.Quoted, St.Quoted, St.Quoted, // Quoted
  St.Field, St.Quoted, St.FieldStart, St.Row, St.Cr, // QuoteInQuoted: "" is a quote; other text follows the field
]);

function classes(sep: number, quote: number): Uint8Array {
  const c = new Uint8Array(256);
  c[quote] = 1;
  c[sep] = 2;
  c[10] = 3;
  c[13] = 4;
  return c;
}

/** Whether a row starts at p, given the state before byte p. */
const startsRow = (bytes: Uint8Array, p: number, s: number): boolean =>
  p < bytes.length && (s === St.Row || (s === St.Cr && bytes[p] !== 10));

/**
 * The transition of bytes [from, to): for each state at `from`, the state at `to`. Each range computes its own
 * (in parallel); composing them left to right from St.Row at the data's start gives the exact state at every
 * boundary, which is what `rangeStart` needs. States that meet are followed once, so the cost is one tokenizer
 * pass per distinct live state (two in practice: inside quotes or not).
 * With `first`, also `rangeStart` for every entry state at once, within the range: first[s] is the offset of the
 * first row start in [from, to) when the state at `from` is s, or -1 (a parallel driver that does not hold the
 * whole file then needs no bytes past a range to place its rows).
 */
export function scanStates(bytes: Uint8Array, from: number, to: number, sep = 44, quote = 34, first?: Float64Array): Uint8Array {
  const q = bytes.indexOf(quote, from);
  if (q < 0 || q >= to) return unquoted(bytes, from, to, sep, first);
  const cls = classes(sep, quote);
  const out = new Uint8Array(NSTATES);
  const live: number[] = [];
  const owner: number[] = []; // entry state → index into live
  for (let s = 0; s < NSTATES; s++) {
    const j = live.indexOf(s);
    owner.push(j >= 0 ? j : live.push(s) - 1);
  }
  const pending = first ? [0, 1, 2, 3, 4, 5] : []; // entry states whose first row start is not found yet
  first?.fill(-1);
  let other = false;
  for (let p = from; p < to; p++) {
    const k = cls[bytes[p]!]!;
    // After one ordinary byte every state is Field or Quoted, which more ordinary bytes keep (and which start no
    // row): skip the run.
    if (k === 0 && other) continue;
    other = k === 0;
    for (let j = pending.length - 1; j >= 0; j--) {
      const s = live[owner[pending[j]!]!]!;
      if (s === St.Row || (s === St.Cr && k !== 3)) first![pending.splice(j, 1)[0]!] = p;
    }
    for (let j = 0; j < live.length; j++) live[j] = TRANS[live[j]! * 5 + k]!;
    if (live.length > 1 && k !== 0) merge(live, owner);
  }
  for (let s = 0; s < NSTATES; s++) out[s] = live[owner[s]!]!;
  return out;
}

/**
 * scanStates of a range without a quote (most ranges of most files), from native searches: outside quotes the
 * state after a byte depends on that byte alone, and inside quotes it stays there.
 */
function unquoted(bytes: Uint8Array, from: number, to: number, sep: number, first?: Float64Array): Uint8Array {
  const out = Uint8Array.from({ length: NSTATES }, (_, s) => s);
  if (from < to) {
    const b = bytes[to - 1]!;
    const last = b === 10 ? St.Row : b === 13 ? St.Cr : b === sep ? St.FieldStart : St.Field;
    for (let s = 0; s < NSTATES; s++) if (s !== St.Quoted) out[s] = last;
  }
  if (first) {
    first.fill(-1);
    // past the first line end: after \n, or after \r and the \n of a \r\n
    let n = bytes.indexOf(10, from);
    if (n < 0 || n >= to) n = to;
    let r = bytes.subarray(from, n).indexOf(13);
    r = r < 0 ? to : from + r;
    let after = Math.min(n, r) + 1;
    if (after - 1 === r && after < to && bytes[after] === 10) after++;
    const ends = after < to ? after : -1;
    for (let s = 0; s < NSTATES; s++) if (s !== St.Quoted) first[s] = ends;
    if (from < to) {
      first[St.Row] = from;
      first[St.Cr] = bytes[from] !== 10 ? from : from + 1 < to ? from + 1 : -1;
    }
  }
  return out;
}

function merge(live: number[], owner: number[]): void {
  for (let j = live.length - 1; j > 0; j--) {
    const i = live.indexOf(live[j]!);
    if (i === j) continue;
    for (let s = 0; s < owner.length; s++) {
      if (owner[s] === j) owner[s] = i;
      else if (owner[s]! > j) owner[s]!--;
    }
    live.splice(j, 1);
  }
}

/** The offset of the first row that starts at or after `from`, given the tokenizer state at `from`; bytes.length if none. */
export function rangeStart(bytes: Uint8Array, from: number, state: number, sep = 44, quote = 34): number {
  const cls = classes(sep, quote);
  let s = state;
  for (let p = from; p < bytes.length; p++) {
    if (startsRow(bytes, p, s)) return p;
    s = TRANS[s * 5 + cls[bytes[p]!]!]!;
  }
  return bytes.length;
}

/**
 * Row starts for byte cuts over the data, the way a parallel driver finds them: each range [cut i, cut i+1)
 * computes `scanStates` on its own; the maps compose left to right from St.Row at schema.dataStart; each cut then
 * moves to its first row start. Ranges [starts[i], starts[i+1]) hold every row exactly once.
 */
export function rowStarts(bytes: Uint8Array, schema: Schema, cuts: number[]): number[] {
  const at = [...new Set(cuts.map((c) => Math.min(Math.max(c, schema.dataStart), bytes.length)))].sort((a, b) => a - b);
  const maps = at.map((c, i) => scanStates(bytes, i === 0 ? schema.dataStart : at[i - 1]!, c, schema.sep, schema.quote));
  let state: number = St.Row;
  return at.map((c, i) => {
    state = maps[i]![state]!;
    return rangeStart(bytes, c, state, schema.sep, schema.quote);
  });
}

// ---------------------------------------------------------------------------
// Tokenizer: one row into field spans.

/** One row's fields: spans into `bytes`, or into `scratch` where quotes were removed. */
class Row {
  n = 0;
  s = new Int32Array(16);
  e = new Int32Array(16);
  inScratch = new Uint8Array(16);
  scratch = new Uint8Array(256);
  used = 0;
  add(s: number, e: number, inScratch: number): void {
    if (this.n === this.s.length) {
      const grow = <T extends Int32Array | Uint8Array>(a: T): T => {
        const b = new (a.constructor as new (n: number) => T)(a.length * 2);
        b.set(a);
        return b;
      };
      this.s = grow(this.s);
      this.e = grow(this.e);
      this.inScratch = grow(this.inScratch);
    }
    this.s[this.n] = s;
    this.e[this.n] = e;
    this.inScratch[this.n++] = inScratch;
  }
  push(b: number): void {
    if (this.used === this.scratch.length) {
      const next = new Uint8Array(this.scratch.length * 2);
      next.set(this.scratch);
      this.scratch = next;
    }
    this.scratch[this.used++] = b;
  }
}

const isBlank = (b: number, sep: number): boolean => (b === 32 || b === 9) && b !== sep;

/** The bytes that end an unquoted field (the separator, \n and \r): one load per byte in the hot loop. */
const stop = new Uint8Array(256);
let stopSep = -1;
function stopAt(sep: number): void {
  stop.fill(0);
  stop[sep] = stop[10] = stop[13] = 1;
  stopSep = sep;
}

/**
 * Reads the row starting at p into `row`; returns the offset after its terminator. A line of only spaces and
 * tabs (not the separator) is blank, as in pandas (skip_blank_lines): row.n is then 0.
 */
function readRow(bytes: Uint8Array, p: number, sep: number, quote: number, row: Row): number {
  const n = bytes.length;
  if (sep !== stopSep) stopAt(sep);
  row.n = 0;
  row.used = 0;
  let q = p;
  while (q < n && isBlank(bytes[q]!, sep)) q++;
  if (q === n || bytes[q] === 10 || bytes[q] === 13) return q === n ? n : lineEnd(bytes, q);
  for (;;) {
    const b = p < n ? bytes[p]! : 10;
    if (b === quote) {
      const s0 = row.used;
      p++;
      for (;;) {
        if (p >= n) throw new Error('Error tokenizing data. C error: EOF inside string');
        const c = bytes[p++]!;
        if (c !== quote) row.push(c);
        else if (p < n && bytes[p] === quote) row.push(quote), p++;
        else break;
      }
      // Text after the closing quote belongs to the field (pandas: QUOTE_IN_QUOTED_FIELD → IN_FIELD).
      while (p < n && bytes[p] !== sep && bytes[p] !== 10 && bytes[p] !== 13) row.push(bytes[p++]!);
      row.add(s0, row.used, 1);
    } else {
      const s0 = p;
      while (p < n && stop[bytes[p]!] === 0) p++;
      row.add(s0, p, 0);
    }
    if (p >= n) return n;
    if (bytes[p] === sep) {
      p++;
      continue;
    }
    return lineEnd(bytes, p);
  }
}

const lineEnd = (bytes: Uint8Array, p: number): number => (bytes[p] === 13 && bytes[p + 1] === 10 ? p + 2 : p + 1);

// ---------------------------------------------------------------------------
// Field values: pandas' converters over bytes.

const POW10 = Array.from({ length: 309 }, (_, k) => Number(`1e${k}`));
const isSpace = (b: number): boolean => b === 32 || (b >= 9 && b <= 13);

/**
 * pandas' precise_xstrtod (tokenizer.c), step for step in doubles: at most 17 significant digits accumulated as
 * number*10 + d, then one multiply or divide by an exact power of ten (two below 1e-308). Not always the nearest
 * double (Number() is): pandas' value is the one to match. NaN where pandas fails (then it tries inf, NA, bool).
 */
function xstrtod(buf: Uint8Array, p: number, end: number): number {
  while (p < end && isSpace(buf[p]!)) p++;
  let neg = false;
  if (buf[p] === 45 || buf[p] === 43) neg = buf[p++] === 45;
  let num = 0;
  let exp = 0;
  let digits = 0;
  let d: number;
  while (p < end && (d = buf[p]! - 48) >= 0 && d <= 9) {
    if (digits < 17) (num = num * 10 + d), digits++;
    else exp++;
    p++;
  }
  if (p < end && buf[p] === 46) {
    p++;
    let decimals = 0;
    while (digits < 17 && p < end && (d = buf[p]! - 48) >= 0 && d <= 9) (num = num * 10 + d), digits++, decimals++, p++;
    while (p < end && (d = buf[p]! - 48) >= 0 && d <= 9) p++;
    exp -= decimals;
  }
  if (digits === 0) return NaN;
  if (neg) num = -num;
  if (p < end && (buf[p] === 101 || buf[p] === 69)) {
    const at = p++;
    let eneg = false;
    if (buf[p] === 45 || buf[p] === 43) eneg = buf[p++] === 45;
    let n = 0;
    let k = 0;
    while (k < 17 && p < end && (d = buf[p]! - 48) >= 0 && d <= 9) (n = n * 10 + d), k++, p++;
    if (k === 0) p = at;
    else exp += eneg ? -n : n;
  }
  while (p < end && isSpace(buf[p]!)) p++;
  if (p !== end || exp > 308) return NaN; // pandas: ERANGE or trailing text → not a float
  if (exp > 0) num *= POW10[exp]!;
  else if (exp < -616) num = 0; // pandas drops the sign here
  else if (exp < -308) num = num / POW10[-308 - exp]! / POW10[308]!;
  else num /= POW10[-exp]!;
  return Math.abs(num) === Infinity ? NaN : num;
}

const INF = new Map([['inf', Infinity], ['+inf', Infinity], ['infinity', Infinity], ['+infinity', Infinity],
  ['-inf', -Infinity], ['-infinity', -Infinity]]);

/** A float as pandas' _try_double reads it (xstrtod, then the inf spellings in any case); NaN if not a float. */
function parseFloat64(buf: Uint8Array, s: number, e: number): number {
  const v = xstrtod(buf, s, e);
  if (v === v || e - s > 9) return v;
  return INF.get(latin1(buf, s, e).toLowerCase()) ?? NaN;
}

const INT_BIG = { min: -(2n ** 63n), max: 2n ** 63n - 1n };
let intHi = 0;
let intLo = 0;

/** pandas' str_to_int64: spaces, sign, digits, spaces. Sets intHi/intLo (two's complement words); false if not an int64. */
function parseInt64(buf: Uint8Array, s: number, e: number): boolean {
  while (s < e && isSpace(buf[s]!)) s++;
  while (e > s && isSpace(buf[e - 1]!)) e--;
  let p = s;
  const neg = buf[p] === 45;
  if (neg || buf[p] === 43) p++;
  if (p === e) return false;
  let v = 0;
  for (let q = p; q < e; q++) {
    const d = buf[q]! - 48;
    if (d < 0 || d > 9) return false;
    v = v * 10 + d;
  }
  if (e - p <= 15) {
    if (neg) v = -v;
    intLo = v | 0;
    intHi = Math.floor(v / 4294967296) | 0;
    return true;
  }
  const big = BigInt(latin1(buf, s, e));
  if (big < INT_BIG.min || big > INT_BIG.max) return false; // pandas: uint64 or object; here the column goes float or string
  intLo = Number(BigInt.asIntN(32, big));
  intHi = Number(BigInt.asIntN(32, big >> 32n));
  return true;
}

/** pandas' to_boolean: 'true' / 'false' in any case; -1 if neither. */
function parseBool(buf: Uint8Array, s: number, e: number): number {
  if (e - s !== 4 && e - s !== 5) return -1;
  const t = latin1(buf, s, e).toLowerCase();
  return t === 'true' ? 1 : t === 'false' ? 0 : -1;
}

/** The kind of one non-NA value: the narrowest converter pandas would accept it with. */
function kindOf(buf: Uint8Array, s: number, e: number): Kind {
  if (parseInt64(buf, s, e)) return 'int';
  if (parseFloat64(buf, s, e) === parseFloat64(buf, s, e)) return 'float';
  if (parseBool(buf, s, e) >= 0) return 'bool';
  return 'string';
}

/** The join of two states: what pandas infers for a column holding the values of both. */
export function join(a: ColumnState, b: ColumnState): ColumnState {
  const hasNA = a.hasNA || b.hasNA;
  let kind: Kind;
  if (a.kind === 'none' || a.kind === b.kind) kind = b.kind;
  else if (b.kind === 'none') kind = a.kind;
  else if ((a.kind === 'int' && b.kind === 'float') || (a.kind === 'float' && b.kind === 'int')) kind = 'float';
  else kind = 'string';
  if (kind === 'int' && hasNA) kind = 'float';
  return { kind, hasNA };
}

/** The states of a column over all ranges: a range whose states differ from these is parsed again with them. */
export function unify(parts: ColumnState[][]): ColumnState[] {
  return parts.reduce((acc, p) => acc.map((s, i) => join(s, p[i]!)));
}

// ---------------------------------------------------------------------------
// Columns under construction: storage follows the column's kind.

class Builder {
  f64 = new Float64Array(0);
  i32 = new Int32Array(0); // int64 as two words per value; codes for strings
  u8 = new Uint8Array(0);
  missing = new Uint8Array(0);
  readonly strings: Strings;
  /** The range's bytes, which outlive a row (a string in them may be looked up later, in a block; see Strings). */
  stable: Uint8Array | null = null;
  /**
   * `expect`: the distinct strings expected (the column's count in the range parsed before, on this thread), or
   * -1 where nearly every value was distinct: spellings are then not looked up (raw, see Strings).
   */
  constructor(public state: ColumnState, private readonly spellings = false, expect = 0) {
    this.strings = new Strings(!spellings, Math.max(0, expect), spellings && expect < 0);
  }

  reserve(n: number): void {
    this.strings.flush(this.i32);
    const k = this.state.kind;
    if ((k === 'float' || k === 'none') && this.f64.length < n) this.f64 = grow(this.f64, n);
    if (k === 'int' && this.i32.length < 2 * n) this.i32 = grow(this.i32, 2 * n);
    if (k === 'string' && this.i32.length < n) this.i32 = grow(this.i32, n);
    if (k === 'bool' && this.u8.length < n) (this.u8 = grow(this.u8, n)), (this.missing = grow(this.missing, n));
  }

  /** Stores value i; false if it does not fit the kind (the caller widens). */
  put(i: number, buf: Uint8Array, s: number, e: number, isNA: boolean): boolean {
    switch (this.state.kind) {
      case 'none':
      case 'float': {
        if (isNA) return (this.f64[i] = NaN), (this.state.hasNA = true);
        const v = parseFloat64(buf, s, e);
        if (v !== v) return false;
        if (this.state.kind === 'none') return false;
        this.f64[i] = v;
        return true;
      }
      case 'int':
        if (isNA || !parseInt64(buf, s, e)) return false;
        this.i32[2 * i] = intLo;
        this.i32[2 * i + 1] = intHi;
        return true;
      case 'bool': {
        if (isNA) return (this.u8[i] = 0), (this.missing[i] = 1), (this.state.hasNA = true);
        const v = parseBool(buf, s, e);
        if (v < 0) return false;
        this.u8[i] = v;
        this.missing[i] = 0;
        return true;
      }
      case 'string': {
        if (isNA) return (this.i32[i] = -1), (this.state.hasNA = true);
        if (buf === this.stable) this.strings.later(buf, s, e, this.i32, i);
        else this.strings.later(buf, s, e, this.i32, i), this.strings.flush(this.i32);
        return true;
      }
    }
  }

  finish(name: string, n: number, forced: DType | 'string' | null): Column {
    const { kind, hasNA } = this.state;
    this.strings.flush(this.i32);
    if (kind === 'string') {
      const codes = fit(this.i32, n);
      return this.spellings ? { name, dtype: 'string', codes, dict: [], spellings: this.strings.spellings() }
        : { name, dtype: 'string', codes, dict: this.strings.dict };
    }
    if (kind === 'bool') return { name, dtype: 'bool', values: fit(this.u8, n), missing: hasNA ? fit(this.missing, n) : null };
    const base = kind === 'int'
      ? { dtype: 'int64' as const, values: new BigInt64Array(fit(this.i32, 2 * n).buffer, 0, n) }
      : { dtype: 'float64' as const, values: kind === 'none' ? new Float64Array(n).fill(NaN) : fit(this.f64, n) };
    if (forced === null || forced === base.dtype || forced === 'string' || forced === 'bool') return { name, ...base };
    if (forced === 'float32') return { name, dtype: 'float32', values: Float32Array.from(base.values, Number) };
    if (forced === 'float16') throw new Error(`read_csv: dtype float16 is not supported (column '${name}')`);
    // pandas: astype from int64, wrapping as NumPy does; a typed array's store wraps the same way.
    const out = new ARRAY_CTOR[forced](n);
    if (out instanceof BigInt64Array) throw new Error(`read_csv: cannot read column '${name}' as ${forced}`);
    if (kind === 'int') {
      // the low words (a typed array's store wraps them as NumPy wraps the int64: modulo 2^8, 2^16 or 2^32)
      const words = this.i32;
      for (let i = 0; i < n; i++) out[i] = words[2 * i]!;
    } else {
      for (let i = 0; i < n; i++) out[i] = Number(base.values[i]!);
    }
    return { name, dtype: forced as Exclude<DType, 'float64' | 'float32' | 'int64' | 'bool'>, values: out };
  }
}

/** The first n values: a view when they fill most of the array (a range's arrays are sized to fit), else a copy. */
function fit<T extends Float64Array | Int32Array | Uint8Array>(a: T, n: number): T {
  return (a.length - n <= a.length / 8 ? a.subarray(0, n) : a.slice(0, n)) as T;
}

function stateOf(forced: DType | 'string' | null, base: ColumnState): ColumnState {
  if (forced === null) return { ...base };
  const kind = forced === 'string' ? 'string' : forced === 'bool' ? 'bool' : forced.startsWith('float') ? 'float' : 'int';
  return { kind, hasNA: base.hasNA };
}

// ---------------------------------------------------------------------------
// parseRows

export interface ParseOptions {
  /** Records before `start` (header included), for the line number of a malformed row. Default: the header's. */
  rowBase?: number;
  maxRows?: number;
  /** String columns as undecoded spellings (Column), for a driver that merges ranges' dictionaries by bytes. */
  spellings?: boolean;
}

/**
 * Per column position, the distinct strings of the last parse on this thread (the ranges of one file look alike):
 * a range's table starts at that size rather than growing to it again, or, -1, is not made where most values were
 * distinct (the driver dedupes them). Every RAW_RUN raw ranges, one is looked up again to check.
 */
const distinct: number[] = [];
const rawRuns: number[] = [];
const RAW_RUN = 8;

function nextHint(c: number, strings: Strings, rows: number): number {
  if (strings.raw) return (rawRuns[c] = (rawRuns[c] ?? 0) + 1) % RAW_RUN === 0 ? Math.ceil(rows / 2) : -1;
  rawRuns[c] = 0;
  return rows >= 1024 && strings.size > 0.75 * rows ? -1 : strings.size;
}

/**
 * Parses the rows whose first byte lies in [start, end); `start` must be a row start (schema.dataStart or a
 * `rangeStart`). A value that does not fit its column's kind widens the column (int → float → string, bool →
 * string; NA: int → float), re-reading the column's earlier rows, with a warning; a forced dtype never widens
 * and a value that does not fit it is an error, as in pandas.
 */
export function parseRows(bytes: Uint8Array, start: number, end: number, schema: Schema, opts: ParseOptions = {}): Parsed {
  const { sep, quote, fields, width } = schema;
  const enc = new TextEncoder();
  const na = new Set(schema.na.map((t) => {
    const b = enc.encode(t);
    return latin1(b, 0, b.length);
  }));
  const naMax = Math.max(...[...na].map((t) => t.length));
  // An NA that would parse as a value must be matched first; pandas' defaults never do, so values parse first.
  const naFirst = [...na].some((t) => t !== '' && kindOf(new Uint8Array([...t].map((c) => c.charCodeAt(0))), 0, t.length) !== 'string');
  const naLead = new Uint8Array(256); // first bytes of the NA strings: most values are told apart by their first
  for (const t of na) if (t !== '') naLead[t.charCodeAt(0)] = 1;
  const isNA = (buf: Uint8Array, s: number, e: number): boolean =>
    e === s || (e - s <= naMax && naLead[buf[s]!] === 1 && na.has(latin1(buf, s, e)));
  const raw = opts.spellings ?? false;
  const cols = schema.names.map((_, c) => new Builder(stateOf(schema.forced[c]!, schema.states[c]!), raw, distinct[c]));
  if (raw) for (const b of cols) b.stable = bytes;
  const warnings: string[] = [];
  const rowBase = opts.rowBase ?? schema.headerRows;
  const maxRows = opts.maxRows ?? Infinity;
  const row = new Row();
  let starts = new Float64Array(64); // each row's offset: a widened column re-reads its earlier rows from them
  for (const b of cols) b.reserve(starts.length);
  let rows = 0;
  let records = 0;
  let p = start;

  const field = (c: number): [Uint8Array, number, number] | null => {
    const f = fields[c]!;
    if (f >= row.n) return null;
    return [row.inScratch[f] ? row.scratch : bytes, row.s[f]!, row.e[f]!];
  };
  /** Stores row i's value of column c; false if it does not fit (the caller widens). Allocates nothing: the hot path. */
  const store = (c: number, i: number): boolean => {
    const f = fields[c]!;
    const b = cols[c]!;
    if (f >= row.n) return b.put(i, bytes, 0, 0, true);
    const buf = row.inScratch[f] ? row.scratch : bytes;
    const s = row.s[f]!;
    const e = row.e[f]!;
    if (s === e || ((naFirst || b.state.kind === 'string') && isNA(buf, s, e))) return b.put(i, buf, s, e, true);
    return b.put(i, buf, s, e, false) || (isNA(buf, s, e) && b.put(i, buf, s, e, true));
  };

  /** Widens column c to fit the value of row i, then re-reads rows 0..i into the new storage. */
  const widen = (c: number, i: number): void => {
    const b = cols[c]!;
    const name = schema.names[c]!;
    const v = field(c);
    const missing = v === null || isNA(v[0], v[1], v[2]);
    const text = v === null ? '' : decode(v[0], v[1], v[2]);
    const forced = schema.forced[c];
    if (forced !== null) {
      if (missing && forced !== 'string') throw new Error(`${forced === 'bool' ? 'Bool' : 'Integer'} column has NA values in column ${schema.fields[c]}`);
      if (forced === 'float64' || forced === 'float32') throw new Error(`could not convert string to float: '${text}'`);
      throw new Error(`read_csv: column '${name}' (dtype ${forced}): cannot parse '${text}' in line ${rowBase + records}`);
    }
    const before = b.state;
    const after = join(before, missing ? { kind: 'none', hasNA: true } : { kind: kindOf(v![0], v![1], v![2]), hasNA: false });
    if (before.kind !== 'none') {
      warnings.push(`column '${name}': ${missing ? 'a missing value' : `'${text}'`} in line ${rowBase + records} does not fit `
        + `${pandasDtype(before)}; the column is read as ${pandasDtype(after)}`);
    }
    const next = new Builder(after, raw);
    next.stable = raw ? bytes : null;
    next.reserve(starts.length);
    cols[c] = next;
    const keep = row.n;
    const saved = { s: row.s.slice(0, keep), e: row.e.slice(0, keep), in: row.inScratch.slice(0, keep), scr: row.scratch.slice(0, row.used) };
    for (let r = 0; r < i; r++) {
      readRow(bytes, starts[r]!, sep, quote, row);
      if (!store(c, r)) throw new Error(`read_csv: internal: row ${r} does not fit ${after.kind} after widening`);
    }
    row.n = keep;
    row.s.set(saved.s);
    row.e.set(saved.e);
    row.inScratch.set(saved.in);
    row.scratch.set(saved.scr);
    row.used = saved.scr.length;
    if (!store(c, i)) throw new Error(`read_csv: internal: a value does not fit ${after.kind} after widening`);
  };

  while (p < end && rows < maxRows) {
    const at = p;
    p = readRow(bytes, p, sep, quote, row);
    records++;
    if (row.n === 0) continue;
    if (row.n > width) throw new CsvError(rowBase + records, width, row.n);
    if (rows === starts.length) {
      // room for the rows the range holds at the rate so far (grow at least doubles)
      starts = grow(starts, Math.min(maxRows, Math.ceil(((end - start) / (p - start)) * rows * 1.05) + 64));
      for (const b of cols) b.reserve(starts.length);
    }
    starts[rows] = at;
    for (let c = 0; c < cols.length; c++) if (!store(c, rows)) widen(c, rows);
    rows++;
  }
  const columns = cols.map((b, c) => b.finish(schema.names[c]!, rows, schema.forced[c]!));
  cols.forEach((b, c) => (distinct[c] = raw ? nextHint(c, b.strings, rows) : 0));
  return {
    columns,
    states: cols.map((b) => ({ ...b.state })),
    rows,
    records,
    end: p,
    warnings,
  };
}

// ---------------------------------------------------------------------------
// sniff

const oneByte = (what: string, s: string): number => {
  const b = new TextEncoder().encode(s);
  if (b.length !== 1) throw new Error(`read_csv: ${what} must be one single-byte character, got ${JSON.stringify(s)}`);
  return b[0]!;
};

/** pandas' names for a header row: empty → 'Unnamed: i', repeats → 'a.1', 'a.2'. */
function dedupe(names: string[]): string[] {
  const counts = new Map<string, number>();
  return names.map((raw, i) => {
    let name = raw === '' ? `Unnamed: ${i}` : raw;
    let n = counts.get(name) ?? 0;
    while (n > 0) {
      counts.set(name, n + 1);
      name = `${name}.${n}`;
      n = counts.get(name) ?? 0;
    }
    counts.set(name, n + 1);
    return name;
  });
}

/**
 * The schema from the file's head: names, separator, and each column's dtype as pandas infers it from the head's
 * rows. A row that runs to the end of `head` unterminated is left out (it may be cut) unless `whole` says `head`
 * is the entire file.
 */
export function sniff(head: Uint8Array, opts: CsvOptions = {}, whole = false): Schema {
  const sep = oneByte('sep', opts.sep ?? ',');
  const quote = oneByte('quote', opts.quote ?? '"');
  const header = opts.header === undefined ? (opts.names ? null : 0) : opts.header;
  const bom = head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0;
  const row = new Row();
  let p = bom;
  let lines = 0;
  do (p = readRow(head, p, sep, quote, row)), lines++; while (row.n === 0 && p < head.length);
  if (!whole && p === head.length && head[p - 1] !== 10 && head[p - 1] !== 13) {
    throw new Error(`read_csv: the head (${head.length} bytes) ends inside its first row; sniff needs a longer head`);
  }
  const first = Array.from({ length: row.n }, (_, f) => decode(row.inScratch[f] ? row.scratch : head, row.s[f]!, row.e[f]!));
  const dataStart = header === 0 ? p : bom;
  const width = opts.names?.length ?? first.length;
  let all = opts.names ? [...opts.names] : header === 0 ? dedupe(first) : first.map((_, i) => String(i));
  if (all.length === 0) throw new Error('read_csv: No columns to parse from file');
  let fields = all.map((_, i) => i);
  if (opts.usecols) {
    const missing = opts.usecols.filter((u) => (typeof u === 'number' ? !(u >= 0 && u < all.length) : !all.includes(u)));
    if (missing.length) {
      const list = missing.map((u) => (typeof u === 'number' ? u : `'${u}'`)).join(', ');
      throw new Error(`Usecols do not match columns, columns expected but not found: [${list}]`);
    }
    fields = fields.filter((i) => opts.usecols!.some((u) => u === i || u === all[i]));
  }
  all = fields.map((i) => all[i]!);
  const dtype = opts.dtype ?? {};
  for (const k of Object.keys(dtype)) {
    if (!all.includes(k)) throw new Error(`read_csv: dtype names column '${k}', which is not among the columns read: ${all.join(', ')}`);
    if (dtype[k] !== 'string' && !(dtype[k]! in ARRAY_CTOR)) throw new Error(`read_csv: unknown dtype '${dtype[k]}' for column '${k}'`);
  }
  const schema: Schema = {
    names: all, fields, width, sep, quote,
    states: all.map(() => ({ kind: 'none', hasNA: false })),
    forced: all.map((n) => dtype[n] ?? null),
    na: [...DEFAULT_NA, ...(opts.na_values ?? [])],
    dataStart, headerRows: header === 0 ? lines : 0, nrows: opts.nrows ?? null,
  };
  const end = whole ? head.length : lastRowStart(head, dataStart, sep, quote);
  const sample = parseRows(head, dataStart, end, schema, schema.nrows === null ? {} : { maxRows: schema.nrows });
  return { ...schema, states: sample.states };
}

/** The start of the last row that begins in head[from..]: the row that may be cut where the head ends. */
function lastRowStart(head: Uint8Array, from: number, sep: number, quote: number): number {
  const cls = classes(sep, quote);
  let last = from;
  let s: number = St.Row;
  for (let p = from; p < head.length; p++) {
    if (startsRow(head, p, s)) last = p;
    s = TRANS[s * 5 + cls[head[p]!]!]!;
  }
  return last;
}

/** The whole file on one thread: sniff over all of it, then one parse (the reference the parallel driver must equal). */
export function parseCsv(bytes: Uint8Array, opts: CsvOptions = {}): Parsed & { schema: Schema } {
  const schema = sniff(bytes, opts, true);
  const parsed = parseRows(bytes, schema.dataStart, bytes.length, schema, schema.nrows === null ? {} : { maxRows: schema.nrows });
  return { ...parsed, schema };
}

// ---------------------------------------------------------------------------
// Range jobs: what read_csv's threads (parse-thread.ts) or its main thread run on one range's bytes.

/** Work on bytes [from, to) of the file: its state map and row starts (scan), or its rows (parse). */
export type RangeJob =
  | { kind: 'scan'; from: number; to: number; sep: number; quote: number }
  /** [from, to) is whole rows: from a row start to the next range's. */
  | { kind: 'parse'; from: number; to: number; schema: Schema; maxRows?: number };

export type RangeResult =
  /** `scanStates` with `first` (offsets in the file). */
  | { kind: 'scan'; map: Uint8Array; first: Float64Array }
  /**
   * String columns as spellings (ParseOptions); line numbers in a CsvError count from the range's first line (the
   * driver renumbers them).
   */
  | { kind: 'parse'; parsed: Parsed };

/** Runs `job` on `bytes`, which hold exactly bytes [job.from, job.to) of the file. */
export function work(job: RangeJob, bytes: Uint8Array): RangeResult {
  if (job.kind === 'scan') {
    const first = new Float64Array(NSTATES);
    const map = scanStates(bytes, 0, bytes.length, job.sep, job.quote, first);
    for (let s = 0; s < NSTATES; s++) if (first[s]! >= 0) first[s]! += job.from;
    return { kind: 'scan', map, first };
  }
  const opts = { rowBase: 0, spellings: true, ...(job.maxRows === undefined ? {} : { maxRows: job.maxRows }) };
  return { kind: 'parse', parsed: parseRows(bytes, 0, bytes.length, job.schema, opts) };
}
