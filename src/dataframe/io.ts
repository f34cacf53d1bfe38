// A frame in and out as files: Arrow IPC in (`read_arrow`: bytes, a Blob or
// a path, through apache-arrow's tableFromIPC, then the frame's Arrow
// conversion), Arrow and CSV out (`df.to_arrow()`, `df.to_csv()`, attached
// to DataFrame.prototype here, as ./frame.ts attaches Series.to_frame). The
// CSV is pandas 1.5's to_csv text: the index first, floats as Python's repr
// writes them, missing values empty, fields quoted only where they must be
// (csv.QUOTE_MINIMAL). Both outputs run the frame and read it here, as
// fetch does: writing a file is where the values leave the chunks.

import { type Table, tableFromIPC } from 'apache-arrow';
import { host } from '#host';
import { DataFrame, type FrameOptions } from './frame.js';
import { dtypeName } from './series.js';

/** Where read_arrow reads from: bytes, a Blob, or a path (Node). */
export type ArrowSource = Uint8Array | ArrayBuffer | Blob | string | URL;

async function bytesOf(src: ArrowSource): Promise<Uint8Array> {
  if (src instanceof Uint8Array) return src;
  if (src instanceof ArrayBuffer) return new Uint8Array(src);
  if (typeof Blob !== 'undefined' && src instanceof Blob) return new Uint8Array(await src.arrayBuffer());
  if (typeof src === 'string' || src instanceof URL) {
    const fs = host.files();
    if (!fs) {
      throw new TypeError('read_arrow: reading a path needs Node\'s file system; in a browser pass bytes or a Blob');
    }
    return fs.read(src);
  }
  throw new TypeError(`read_arrow: expected bytes, a Blob or a path, got ${typeof src}`);
}

/** A frame of an Arrow IPC file or stream's table (numbers, bools, strings; an integer column with nulls as float64 with NaN). */
export async function read_arrow(src: ArrowSource, opts: FrameOptions = {}): Promise<DataFrame> {
  return new DataFrame(tableFromIPC(await bytesOf(src)), opts);
}

/** Python's repr of a float: the shortest digits that read back, in exponent form below 1e-4 or from 1e16. */
export function pyFloat(x: number, float32 = false): string {
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  let digits = x.toExponential();
  if (float32) {
    // float32: the fewest digits that read back as the same float32, as NumPy's repr of it
    for (let p = 0; p <= 8; p++) {
      if (Math.fround(Number(x.toExponential(p))) === x) { digits = x.toExponential(p); break; }
    }
  }
  const [mant, e] = digits.split('e') as [string, string];
  const exp = Number(e);
  if (exp < -4 || exp >= 16) return `${mant}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  const neg = mant.startsWith('-');
  const ds = mant.replace('-', '').replace('.', '');
  let s: string;
  if (exp < 0) s = `0.${'0'.repeat(-exp - 1)}${ds}`;
  else if (ds.length <= exp + 1) s = `${ds}${'0'.repeat(exp + 1 - ds.length)}.0`;
  else s = `${ds.slice(0, exp + 1)}.${ds.slice(exp + 1)}`;
  return neg ? `-${s}` : s;
}

/** to_csv's options (pandas' keywords). */
export interface CsvWriteOptions { readonly index?: boolean; readonly sep?: string }

/** A value as to_csv writes it (`dtype`: its column's). */
function field(v: unknown, dtype: string): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'number') return dtype.startsWith('float') ? (Number.isNaN(v) ? '' : pyFloat(v, dtype === 'float32')) : String(v);
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  return String(v);
}

/** csv.QUOTE_MINIMAL: quoted (quotes doubled) where it holds the separator, a quote or a line break. */
function quoted(s: string, sep: string): string {
  return s.includes(sep) || s.includes('"') || s.includes('\n') || s.includes('\r') ? `"${s.replace(/"/g, '""')}"` : s;
}

declare module './frame.js' {
  interface DataFrame {
    /** The frame as an Arrow table (./frame.ts LocalFrame.toArrow). */
    to_arrow(): Promise<Table>;
    /** pandas' to_csv text; with a path (Node), the file is written too. */
    to_csv(path?: string | URL | null, opts?: CsvWriteOptions): Promise<string>;
  }
}

DataFrame.prototype.to_arrow = async function (this: DataFrame): Promise<Table> {
  return (await this.fetch()).toArrow();
};

DataFrame.prototype.to_csv = async function (this: DataFrame, path?: string | URL | null, opts: CsvWriteOptions = {}): Promise<string> {
  const sep = opts.sep ?? ',';
  if (sep.length !== 1) throw new TypeError('"delimiter" must be a 1-character string');
  const withIndex = opts.index ?? true;
  const local = await this.fetch();
  const names = local.columns;
  const n = local.shape[0];
  const dtypes = local.dtypes;
  const columns = names.map((c) => local.get(c));
  // the index's levels: names and dtypes from the frame's labels, values from the local frame
  const levels = this.labels.kind === 'range' ? 1 : this.labels.cols.length;
  const levelNames = this.labels.kind === 'range' ? [null] : this.labels.names;
  const levelTypes = this.labels.kind === 'range' ? ['int64'] : this.labels.cols.map(dtypeName);
  const index = local.index;
  const cell = (v: unknown, dtype: string): string => quoted(field(typeof v === 'bigint' ? String(v) : v, dtype), sep);
  const line = (fields: string[]): string => (fields.length === 1 && fields[0] === '' ? '""' : fields.join(sep));
  const header = [...(withIndex ? levelNames.map((x) => quoted(x ?? '', sep)) : []), ...names.map((x) => quoted(x, sep))];
  const lines = names.length || withIndex ? [line(header)] : [];
  for (let r = 0; r < n; r++) {
    const label = levels === 1 ? [index[r]] : (index[r] as unknown[]);
    const fields = [
      ...(withIndex ? label.map((v, j) => cell(v, levelTypes[j]!)) : []),
      ...columns.map((col, j) => cell(col[r], dtypes[names[j]!]!)),
    ];
    lines.push(line(fields));
  }
  const text = lines.length ? `${lines.join('\n')}\n` : '';
  if (path !== undefined && path !== null) {
    const fs = host.files();
    if (!fs) {
      throw new TypeError('to_csv: writing a path needs Node\'s file system; call it without a path for the text');
    }
    await fs.write(path, new TextEncoder().encode(text));
  }
  return text;
};
