// A frame as pandas 1.5 prints it (pandas/io/formats/format.py, default
// display options): each value with a leading space for its sign; a float
// column at 6 decimals with trailing zeros trimmed equally from all its
// values (one kept), or in scientific notation when a value would show as 0
// (0 < |x| < 1e-6) or is long and large; the index left-aligned, the columns
// right-aligned, one space between; past 60 rows the first and last 5 with a
// row of '...' and `[r rows x c columns]`.

export interface FormatColumn {
  readonly name: string;
  readonly dtype: string;
  readonly values: readonly (number | bigint | boolean | string | null)[];
  /** How a missing string shows: pandas shows a None given as such, NaN where it made the missing value (a group key, read_csv). */
  readonly missing?: 'None' | 'NaN';
}

/** A two-level column's name, as pyarrow writes a MultiIndex column's: `('v', 'sum')`. */
const TUPLE = /^\('(.*)', '(.*)'\)$/;

/** Display precision (display.precision), and the row limits (display.max_rows, display.min_rows). */
const DIGITS = 6, MAX_ROWS = 60, MIN_ROWS = 10;

/** Python's '{: .6f}' and '{: .6e}' of a float (NaN and infinities as pandas shows them). */
function fixed(v: number, digits: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return v > 0 ? ' inf' : '-inf';
  // JS writes -0 without its sign; Python keeps it
  const s = Object.is(v, -0) ? `-${(0).toFixed(digits)}` : v.toFixed(digits);
  return s.startsWith('-') ? s : ` ${s}`;
}
function scientific(v: number, digits: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return v > 0 ? ' inf' : '-inf';
  // JS writes 1.5e+0; Python 1.5e+00 (two exponent digits at least)
  const s = v.toExponential(digits).replace(/e([+-])(\d)$/, 'e$10$2');
  return s.startsWith('-') ? s : ` ${s}`;
}

/** pandas' _trim_zeros_float: trailing zeros off every fixed-point value while all end in 0, one kept after the point. */
function trimZeros(xs: string[]): string[] {
  const num = /^\s*[+-]?[0-9]+\.[0-9]*$/;
  let out = xs;
  for (;;) {
    const nums = out.filter((x) => num.test(x));
    if (!nums.length || !nums.every((x) => x.endsWith('0'))) break;
    out = out.map((x) => (num.test(x) ? x.slice(0, -1) : x));
  }
  return out.map((x) => (num.test(x) && x.endsWith('.') ? `${x}0` : x));
}

/** A float column's strings (FloatArrayFormatter with its defaults). */
function floats(values: readonly number[]): string[] {
  const f = trimZeros(values.map((v) => fixed(v, DIGITS)));
  const tooLong = f.length > 0 && Math.max(...f.map((x) => x.length)) > DIGITS + 6;
  const abs = values.filter((v) => !Number.isNaN(v)).map(Math.abs);
  const large = abs.some((a) => a > 1e6), small = abs.some((a) => a > 0 && a < 10 ** -DIGITS);
  return small || (tooLong && large) ? values.map((v) => scientific(v, DIGITS)) : f;
}

/** A column's strings, before they are aligned. */
function cells(c: FormatColumn): string[] {
  if (c.dtype.startsWith('float')) return floats(c.values.map((v) => (v === null ? NaN : Number(v))));
  if (c.dtype === 'bool') return c.values.map((v) => ` ${v ? 'True' : 'False'}`);
  // an integer's sign takes the leading space ('{: d}')
  return c.values.map((v) => (v === null ? ` ${c.missing ?? 'None'}` : (typeof v === 'number' || typeof v === 'bigint') && v < 0 ? String(v) : ` ${String(v)}`));
}

/** An index level's strings (left-aligned where shown): numbers as a column shows them less the spaces all share (pandas' trim_front), others as they are. */
function labelCells(c: FormatColumn): string[] {
  if (c.dtype.startsWith('float') || c.dtype.startsWith('int') || c.dtype.startsWith('uint')) {
    // (floats are justified right before the trim, integers left as they are; NaN takes the sign's space and no more)
    const raw = cells(c), nan = (x: string): boolean => x === 'NaN';
    const w = c.dtype.startsWith('float') ? Math.max(0, ...raw.filter((x) => !nan(x)).map((x) => x.length)) : 0;
    const xs = raw.map((x) => (nan(x) ? ' NaN' : x.padStart(w)));
    const lead = Math.min(...xs.map((x) => x.length - x.trimStart().length));
    return xs.map((x) => x.slice(lead));
  }
  return c.values.map((v) => (v === null ? (c.missing ?? 'None') : c.dtype === 'bool' ? (v ? 'True' : 'False') : String(v)));
}

/**
 * The frame's text: `columns` in order, over the index's `levels` (one, or
 * a MultiIndex's, whose outer levels show a label only where it changes);
 * with `named`, a line of the levels' names under the column names.
 */
export function formatFrame(columns: readonly FormatColumn[], levels: readonly FormatColumn[], named = false): string {
  const n = levels[0]?.values.length ?? 0;
  if (!n || !columns.length) {
    const index = levels.length === 1 ? labelCells(levels[0]!) : [];
    return `Empty DataFrame\nColumns: [${columns.map((c) => c.name).join(', ')}]\nIndex: [${index.join(', ')}]`;
  }
  const cut = n > MAX_ROWS;
  const rows = cut ? [...Array.from({ length: MIN_ROWS / 2 }, (_, i) => i), ...Array.from({ length: MIN_ROWS / 2 }, (_, i) => n - MIN_ROWS / 2 + i)] : Array.from({ length: n }, (_, i) => i);
  // a column's strings are made over the rows shown, as pandas makes them over the truncated frame
  const pick = <T>(xs: readonly T[]): T[] => rows.map((i) => xs[i]!);
  const labels = levels.map((l) => labelCells({ ...l, values: pick(l.values) }));
  // sparsified: an outer level's label shows where it or a level outside it changes
  const shown = labels.map((ls, j) => ls.map((x, r) => (j < labels.length - 1 && r > 0 && labels.slice(0, j + 1).every((l) => l[r] === l[r - 1]) ? '' : x)));
  // two-level column names (`('v', 'sum')`): two header lines, the outer label shown where it changes
  const parts = columns.map((c) => TUPLE.exec(c.name));
  const multi = parts.some((p) => p !== null);
  const headers: string[][] = columns.map((c, i) => {
    if (!multi) return [c.dtype === 'object' ? c.name : ` ${c.name}`]; // a numeric column's name takes the sign's space too (pandas' need_leadsp)
    const [outer, inner] = parts[i] ? [parts[i]![1]!, parts[i]![2]!] : [c.name, ''];
    const prev = i > 0 ? (parts[i - 1] ? parts[i - 1]![1] : columns[i - 1]!.name) : undefined;
    return [outer === prev ? '' : outer, inner];
  });
  const head = headers[0]?.length ?? 1;
  const strcols: string[][] = shown.map((ls, j) => {
    const name = named ? (levels[j]!.name ?? '') : '';
    const w = Math.max(name.length, ...ls.map((x) => x.length));
    return [...headers[0]!.map(() => ''), ...(named ? [name] : []), ...ls].map((x) => x.padEnd(w));
  });
  columns.forEach((c, i) => {
    const vals = cells({ ...c, values: pick(c.values) });
    const w = Math.max(...headers[i]!.map((x) => x.length), ...vals.map((x) => x.length));
    strcols.push([...headers[i]!.map((x) => x.padStart(w)), ...(named ? [''.padStart(w)] : []), ...vals.map((x) => x.padStart(w))]);
  });
  // the row of dots after the head: '...' in a column wider than 3, '..' otherwise; the index's left-aligned
  const top = head + (named ? 1 : 0);
  if (cut) {
    strcols.forEach((col, i) => {
      const w = col[top]!.length, dots = w > 3 ? '...' : '..';
      col.splice(top + MIN_ROWS / 2, 0, i < levels.length ? dots.padEnd(w) : dots.padStart(w));
    });
  }
  const lines = strcols[0]!.map((_, r) => strcols.map((col) => col[r]!).join(' '));
  return cut ? `${lines.join('\n')}\n\n[${n} rows x ${columns.length} columns]` : lines.join('\n');
}
