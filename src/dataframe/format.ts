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
}

/** Display precision (display.precision), and the row limits (display.max_rows, display.min_rows). */
const DIGITS = 6, MAX_ROWS = 60, MIN_ROWS = 10;

/** Python's '{: .6f}' and '{: .6e}' of a float (NaN and infinities as pandas shows them). */
function fixed(v: number, digits: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return v > 0 ? ' inf' : '-inf';
  const s = v.toFixed(digits);
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
  return c.values.map((v) => ` ${v === null ? 'None' : String(v)}`);
}

/** The frame's text: `columns` in order, over row labels `index`. */
export function formatFrame(columns: readonly FormatColumn[], index: readonly number[]): string {
  if (!index.length || !columns.length) {
    return `Empty DataFrame\nColumns: [${columns.map((c) => c.name).join(', ')}]\nIndex: [${index.join(', ')}]`;
  }
  const n = index.length;
  const cut = n > MAX_ROWS;
  const rows = cut ? [...Array.from({ length: MIN_ROWS / 2 }, (_, i) => i), ...Array.from({ length: MIN_ROWS / 2 }, (_, i) => n - MIN_ROWS / 2 + i)] : index.map((_, i) => i);
  // a column's strings are made over the rows shown, as pandas makes them over the truncated frame
  const pick = <T>(xs: readonly T[]): T[] => rows.map((i) => xs[i]!);
  const idx = pick(index).map(String);
  const iw = Math.max(...idx.map((s) => s.length));
  const strcols = [[''.padEnd(iw), ...idx.map((s) => s.padEnd(iw))]];
  for (const c of columns) {
    const vals = cells({ ...c, values: pick(c.values) });
    const w = Math.max(c.name.length, ...vals.map((s) => s.length));
    strcols.push([c.name.padStart(w), ...vals.map((s) => s.padStart(w))]);
  }
  // the row of dots after the head: '...' in a column wider than 3, '..' otherwise; the index's left-aligned
  if (cut) {
    strcols.forEach((col, i) => {
      const w = col[1]!.length, dots = w > 3 ? '...' : '..';
      col.splice(1 + MIN_ROWS / 2, 0, i === 0 ? dots.padEnd(w) : dots.padStart(w));
    });
  }
  const lines = strcols[0]!.map((_, r) => strcols.map((col) => col[r]!).join(' '));
  return cut ? `${lines.join('\n')}\n\n[${n} rows x ${columns.length} columns]` : lines.join('\n');
}
