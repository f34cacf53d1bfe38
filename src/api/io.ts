// NumPy's array I/O: save/load (.npy), savez/savez_compressed/load (.npz),
// frombuffer, fromfile/tofile, loadtxt/savetxt and a basic genfromtxt, in
// NumPy's formats byte for byte (./npy.ts has the .npy format, ./printf.ts
// savetxt's `fmt`). In: paths, URLs, bytes or Blobs, and tensors. Out:
// tensors made from the file's bytes, and files NumPy reads.
//
// One rule for when to await: every function that reads or writes a file
// returns a Promise (`await mt.load(src)`, `await mt.save(dst, x)`), in Node
// and in a browser, whatever the source; `frombuffer` interprets bytes
// already in memory and returns a Tensor at once. Writers must await anyway
// (a tensor is lazy: its values exist once computed), and a reader whose
// result type changed with its argument would be a trap.
//
// Where files come from: a path string (Node), a URL (file: in Node, else
// fetched), an ArrayBuffer or typed array of the file's bytes, a Blob/File,
// or a fetch Response. A string with a scheme (http:, https:, blob:, data:)
// is fetched; in a browser every string is a URL. Writers take a path
// (Node) or a sink with `write(bytes)` (a Node stream, a browser
// FileSystemWritableFileStream). Paths go through the host's files (#host:
// Node's fs; a browser has none), so a browser bundle holds no Node code.

import { host } from '#host';
import { gunzipSync, gzipSync, unzipSync, zipSync } from 'fflate';
import { ARRAY_CTOR, type DType, INFO, type TypedArray, parseDType } from '../graph/dtype.js';
import { halfBits, halfView } from '../graph/half.js';
import { type NDArray } from './convert.js';
import { type Descr, decode, isNpy, parseDescr, rawBytes, readNpy, writeNpy } from './npy.js';
import { type Scalar, percentCount, pyFormat } from './printf.js';
import { isOptions } from './bind.js';
import { type Operand, Tensor, reshape, tensor, toTensor, transpose } from './core.js';

export type Source = string | URL | ArrayBuffer | ArrayBufferView | Blob | Response;
export type Sink = string | URL | { write(bytes: Uint8Array): unknown };

// ---------------------------------------------------------------------------
// Bytes in and out


const SCHEME = /^[a-zA-Z][a-zA-Z0-9+.-]+:/;

/** A short name of a source for errors. */
function nameOf(src: Source | readonly string[]): string {
  if (typeof src === 'string') return JSON.stringify(src);
  if (src instanceof URL) return JSON.stringify(src.href);
  return `<${(src as object).constructor?.name ?? 'bytes'}>`;
}

async function readBytes(src: Source): Promise<Uint8Array> {
  if (src instanceof ArrayBuffer) return new Uint8Array(src);
  if (ArrayBuffer.isView(src)) return new Uint8Array(src.buffer, src.byteOffset, src.byteLength);
  if (typeof Blob !== 'undefined' && src instanceof Blob) return new Uint8Array(await src.arrayBuffer());
  if (typeof Response !== 'undefined' && src instanceof Response) return new Uint8Array(await src.arrayBuffer());
  const fs = host.files();
  if (typeof src === 'string' || src instanceof URL) {
    const local = src instanceof URL ? src.protocol === 'file:' : !SCHEME.test(src) || src.startsWith('file:');
    if (local && fs) return fs.read(typeof src === 'string' && src.startsWith('file:') ? new URL(src) : src);
    const res = await fetch(src);
    if (!res.ok) throw new Error(`cannot read ${nameOf(src)}: HTTP ${res.status} ${res.statusText}`);
    return new Uint8Array(await res.arrayBuffer());
  }
  throw new TypeError(`cannot read from ${nameOf(src)}: expected a path, a URL, bytes, a Blob or a Response`);
}

async function writeBytes(dst: Sink, bytes: Uint8Array, fn: string): Promise<void> {
  if (typeof dst === 'string' || dst instanceof URL) {
    const fs = host.files();
    if (!fs) throw new TypeError(`${fn}: writing to a path needs Node's file system; in a browser pass a sink with write(bytes), such as a FileSystemWritableFileStream`);
    await fs.write(dst, bytes);
    return;
  }
  if (dst && typeof (dst as { write?: unknown }).write === 'function') {
    await dst.write(bytes);
    return;
  }
  throw new TypeError(`${fn}: cannot write to ${nameOf(dst as unknown as Source)}: expected a path or an object with write(bytes)`);
}

/** np.save and np.savez add their extension to a path that lacks it. */
const withExt = (dst: Sink, ext: string): Sink => (typeof dst === 'string' && !dst.endsWith(ext) ? dst + ext : dst);

const isGz = (src: Source | Sink): boolean => (typeof src === 'string' ? src : src instanceof URL ? src.pathname : '').endsWith('.gz');

// ---------------------------------------------------------------------------
// Tensors from values and back

/** A tensor of C-order values (copied once more into the runtime's heap by `tensor`). */
/** A tensor of elements as stored (float16 as its bits, read as the Float16Array over them). */
function fromValues(shape: readonly number[], dtype: DType, data: TypedArray): Tensor {
  const flat = tensor(dtype === 'float16' ? (halfView(data as Uint16Array) as unknown as TypedArray) : data, { dtype });
  return reshape(flat, [...shape]);
}

async function valuesOf(x: Operand): Promise<NDArray> {
  return toTensor(x).fetch();
}

// ---------------------------------------------------------------------------
// .npy and .npz

export interface LoadOpts {
  /** NumPy refuses object arrays without it; Tessera refuses them always (they are pickled Python objects). */
  allow_pickle?: boolean;
  /** Accepted for NumPy's sake: 'r' and 'c' read the whole file (JS has no memory maps); 'r+' and 'w+' are refused. */
  mmap_mode?: null | 'r' | 'c' | 'r+' | 'w+' | 'readonly' | 'copyonwrite' | 'readwrite' | 'write';
  /** The longest .npy header read without allow_pickle (NumPy's default: 10000). */
  max_header_size?: number;
  fix_imports?: boolean;
  encoding?: string;
}

const ZIP_PREFIX = [0x50, 0x4b, 0x03, 0x04];
const ZIP_EMPTY = [0x50, 0x4b, 0x05, 0x06];
const startsWith = (b: Uint8Array, p: readonly number[]): boolean => p.every((x, k) => b[k] === x);

function npyTensor(bytes: Uint8Array, name: string, o: LoadOpts): Tensor {
  const a = readNpy(bytes, name, { allowPickle: !!o.allow_pickle, maxHeaderSize: o.max_header_size ?? 10000 });
  if (!a.fortran) return fromValues(a.shape, a.dtype, a.data);
  return transpose(fromValues([...a.shape].reverse(), a.dtype, a.data));
}

/**
 * np.load: a .npy file as a Tensor, or a .npz archive as an NpzFile. Always
 * a Promise (see the header). uint64, complex, string, structured and object dtypes are refused with an
 * error naming the dtype.
 */
export async function load(file: Source, o: LoadOpts = {}): Promise<Tensor | NpzFile> {
  const mm = o.mmap_mode;
  if (mm !== undefined && mm !== null) {
    if (!['r', 'c', 'r+', 'w+', 'readonly', 'copyonwrite', 'readwrite', 'write'].includes(mm)) throw new RangeError("mode must be one of ['r', 'c', 'r+', 'w+', 'readonly', 'copyonwrite', 'readwrite', 'write']");
    if (!['r', 'c', 'readonly', 'copyonwrite'].includes(mm)) throw new RangeError(`load: mmap_mode ${JSON.stringify(mm)} writes back to the file, which Tessera's immutable tensors cannot do`);
  }
  const bytes = await readBytes(file);
  const name = nameOf(file);
  if (startsWith(bytes, ZIP_PREFIX) || startsWith(bytes, ZIP_EMPTY)) return new NpzFile(bytes, name, o);
  if (isNpy(bytes)) return npyTensor(bytes, name, o);
  throw new RangeError(`${name} is not a .npy or .npz file: bad magic string (NumPy would try it as a pickle, which Tessera does not read)`);
}

/** np.load of a file known to be .npy: a Tensor (a .npz is an error). */
export async function loadNpy(file: Source, o: LoadOpts = {}): Promise<Tensor> {
  const r = await load(file, o);
  if (r instanceof NpzFile) throw new TypeError(`${nameOf(file)} is a .npz archive, not a .npy file: use mt.load`);
  return r;
}

/**
 * NumPy's NpzFile: the arrays of a .npz archive by name (without '.npy';
 * `get` takes either). A member is decoded when first asked for, as NumPy
 * does, so one unsupported member does not stop the others. Members that are
 * not .npy files are not listed.
 */
export class NpzFile implements Iterable<[string, Tensor]> {
  /** The names of the arrays, in archive order. */
  readonly files: string[] = [];
  private readonly members = new Map<string, string>();
  private readonly cache = new Map<string, Tensor>();

  constructor(private readonly bytes: Uint8Array, private readonly name: string, private readonly opts: LoadOpts = {}) {
    try {
      unzipSync(bytes, { filter: (f) => { if (f.name.endsWith('.npy')) { const k = f.name.slice(0, -4); this.files.push(k); this.members.set(k, f.name); } return false; } });
    } catch (e) {
      throw new RangeError(`${name} is not a valid .npz archive: ${(e as Error).message}`);
    }
  }

  has(key: string): boolean { return this.members.has(key) || this.members.has(key.replace(/\.npy$/, '')); }

  /** The array named `key` (NumPy: npz[key]); a KeyError-like RangeError when there is none. */
  get(key: string): Tensor {
    const k = this.members.has(key) ? key : key.replace(/\.npy$/, '');
    const member = this.members.get(k);
    if (member === undefined) throw new RangeError(`${key} is not a file in the archive`);
    let t = this.cache.get(k);
    if (!t) {
      let raw: Uint8Array | undefined;
      try {
        raw = unzipSync(this.bytes, { filter: (f) => f.name === member })[member];
      } catch (e) {
        throw new RangeError(`${this.name}: cannot read ${member} from the archive: ${(e as Error).message}`);
      }
      t = npyTensor(raw!, `${this.name}[${JSON.stringify(member)}]`, this.opts);
      this.cache.set(k, t);
    }
    return t;
  }

  get size(): number { return this.files.length; }
  keys(): string[] { return [...this.files]; }
  values(): Tensor[] { return this.files.map((k) => this.get(k)); }
  entries(): [string, Tensor][] { return this.files.map((k) => [k, this.get(k)]); }
  [Symbol.iterator](): Iterator<[string, Tensor]> { return this.entries()[Symbol.iterator](); }
  /** Every array as a plain object keyed by name. */
  toObject(): Record<string, Tensor> { return Object.fromEntries(this.entries()); }
  toString(): string { return `NpzFile(${this.name}, files=[${this.files.map((f) => `'${f}'`).join(', ')}])`; }
}

async function npyBytes(x: Operand): Promise<Uint8Array> {
  const v = await valuesOf(x);
  return writeNpy(v.shape, v.dtype, v.raw);
}

/** np.save(file, arr): NumPy's exact bytes (the header NumPy writes, C order, little-endian). A path gets '.npy' if it lacks it. */
export async function save(file: Sink, arr: Operand, o: { allow_pickle?: boolean; fix_imports?: boolean } = {}): Promise<undefined> {
  void o;
  await writeBytes(withExt(file, '.npy'), await npyBytes(arr), 'save');
  return undefined;
}

type Named = Record<string, Operand>;
const isNamed = (x: unknown): x is Named => isOptions(x) && !(x instanceof Tensor);

async function savezImpl(fn: string, file: Sink, args: unknown[], level: 0 | 6): Promise<undefined> {
  const named: [string, Operand][] = [];
  let positional = args;
  if (args.length > 0 && isNamed(args[args.length - 1])) {
    positional = args.slice(0, -1);
    const kw = args[args.length - 1] as Named;
    for (const [k, v] of Object.entries(kw)) if (k !== 'allow_pickle') named.push([k, v]);
  }
  const all: [string, Operand][] = positional.map((a, i) => [`arr_${i}`, a as Operand]);
  for (const [k, v] of named) {
    if (all.some(([n]) => n === k)) throw new TypeError(`${fn}: Cannot use un-named variables and keyword ${k}`);
    all.push([k, v]);
  }
  const members: Record<string, [Uint8Array, { level: 0 | 6 }]> = {};
  for (const [k, v] of all) members[`${k}.npy`] = [await npyBytes(v), { level }];
  await writeBytes(withExt(file, '.npz'), zipSync(members), fn);
  return undefined;
}

/** np.savez(file, ...arrays, {name: array}): an uncompressed .npz (positional arrays are arr_0, arr_1...). */
export const savez = (file: Sink, ...args: (Operand | Named)[]): Promise<undefined> => savezImpl('savez', file, args, 0);
/** np.savez_compressed: as savez, deflated (zlib's default level, as Python's zipfile). */
export const savez_compressed = (file: Sink, ...args: (Operand | Named)[]): Promise<undefined> => savezImpl('savez_compressed', file, args, 6);

// ---------------------------------------------------------------------------
// Raw bytes: frombuffer, fromfile, tofile

/** A dtype argument that may carry a byte order ('>i4', '<f8', 'f2') as NumPy's frombuffer takes. */
function dtypeWithOrder(d: unknown, fn: string): Descr {
  if (d === undefined || d === null) return { dtype: 'float64', big: false };
  if (typeof d === 'string' && /^[<>|=]?[a-zA-Z]\d+$/.test(d)) return parseDescr(d, fn);
  return { dtype: parseDType(d), big: false };
}

/** Bytes of any buffer-like value. */
function bytesOf(buffer: ArrayBuffer | ArrayBufferView): Uint8Array {
  if (buffer instanceof ArrayBuffer || (typeof SharedArrayBuffer !== 'undefined' && buffer instanceof SharedArrayBuffer)) return new Uint8Array(buffer);
  if (ArrayBuffer.isView(buffer)) return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  throw new TypeError('a bytes-like object is required');
}

function fromBytes(b: Uint8Array, d: Descr, count: number, offset: number): Tensor {
  const item = INFO[d.dtype].bytes;
  if (!Number.isInteger(offset) || offset < 0 || offset > b.length) throw new RangeError(`offset must be non-negative and no greater than buffer length (${b.length})`);
  const avail = b.length - offset;
  let n: number;
  if (count < 0) {
    if (avail % item !== 0) throw new RangeError('buffer size must be a multiple of element size');
    n = avail / item;
  } else {
    if (count * item > avail) throw new RangeError('buffer is smaller than requested size');
    n = count;
  }
  return fromValues([n], d.dtype, decode(b.subarray(offset), d.dtype, n, d.big));
}

/**
 * np.frombuffer(buffer, dtype=float, count=-1, offset=0): a 1-d tensor of the
 * buffer's bytes, read now (a copy: a Tensor never shares memory with JS).
 * dtype may give a byte order ('>i4').
 */
export function frombuffer(buffer: ArrayBuffer | ArrayBufferView, ...args: unknown[]): Tensor {
  const [pos, kw] = splitArgs(args);
  const o = { dtype: pos[0], count: pos[1] ?? -1, offset: pos[2] ?? 0, ...kw } as { dtype?: unknown; count: number; offset: number };
  return fromBytes(bytesOf(buffer), dtypeWithOrder(o.dtype, 'frombuffer'), o.count, o.offset);
}

/** Positional arguments, then a trailing options object (NumPy's keywords). */
function splitArgs(args: readonly unknown[]): [unknown[], Record<string, unknown>] {
  if (args.length > 0 && isOptions(args[args.length - 1])) return [args.slice(0, -1), args[args.length - 1] as Record<string, unknown>];
  return [[...args], {}];
}

/** np.fromfile(file, dtype=float, count=-1, sep='', offset=0): binary when sep is '', else text separated by sep. */
export async function fromfile(file: Source, ...args: unknown[]): Promise<Tensor> {
  const [pos, kw] = splitArgs(args);
  const o = { dtype: pos[0], count: pos[1] ?? -1, sep: pos[2] ?? '', offset: pos[3] ?? 0, ...kw } as { dtype?: unknown; count: number; sep: string; offset: number };
  const b = await readBytes(file);
  const d = dtypeWithOrder(o.dtype, 'fromfile');
  if (o.sep === '') return fromBytes(b, d, o.count, o.offset);
  if (o.offset) throw new RangeError("'offset' argument only permitted for binary files");
  const text = new TextDecoder().decode(b);
  const sep = o.sep.trim();
  const words = sep === '' ? text.split(/\s+/) : text.split(sep).map((w) => w.trim());
  const vals = words.filter((w) => w !== '').slice(0, o.count < 0 ? undefined : o.count);
  return fromValues([vals.length], d.dtype, parseColumn(vals, d.dtype, 0, 0));
}

/** x.tofile(fid, sep='', format='%s') as a function: raw little-endian C-order bytes, or text separated by sep. */
export async function tofile(x: Operand, file: Sink, ...args: unknown[]): Promise<undefined> {
  const [pos, kw] = splitArgs(args);
  const o = { sep: pos[0] ?? '', format: pos[1] ?? '%s', ...kw } as { sep: string; format: string };
  const v = await valuesOf(x);
  if (o.sep === '') { await writeBytes(file, rawBytes(v.dtype, v.raw), 'tofile'); return undefined; }
  const k = kindOf(v.dtype);
  const text = Array.from(v.data as ArrayLike<Scalar>, (s) => pyFormat(o.format, [s], k)).join(o.sep);
  await writeBytes(file, new TextEncoder().encode(text), 'tofile');
  return undefined;
}

// ---------------------------------------------------------------------------
// Text: loadtxt, savetxt, genfromtxt

const kindOf = (d: DType): 'f' | 'f4' | 'i' | 'b' => (d === 'float32' ? 'f4' : d === 'float64' ? 'f' : d === 'bool' ? 'b' : 'i');

/** Python's float(): decimal literals, inf/infinity/nan with signs, surrounding whitespace. */
const FLOAT = /^[-+]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|inf(?:inity)?|nan)$/i;
const INT = /^[-+]?\d+$/;

function parseWord(w: string, dtype: DType): number | bigint | undefined {
  const s = w.trim();
  if (INFO[dtype].kind === 'f') {
    if (!FLOAT.test(s)) return undefined;
    const l = s.toLowerCase().replace(/^\+/, '');
    return l.endsWith('nan') ? NaN : l.includes('inf') ? (l.startsWith('-') ? -Infinity : Infinity) : Number(s);
  }
  if (dtype === 'bool') {
    if (/^true$/i.test(s)) return 1;
    if (/^false$/i.test(s)) return 0;
    return INT.test(s) ? (BigInt(s) !== 0n ? 1 : 0) : undefined;
  }
  if (!INT.test(s)) return undefined;
  const b = BigInt(s);
  const bits = INFO[dtype].bytes * 8;
  const lo = INFO[dtype].kind === 'u' ? 0n : -(1n << BigInt(bits - 1));
  const hi = INFO[dtype].kind === 'u' ? (1n << BigInt(bits)) - 1n : (1n << BigInt(bits - 1)) - 1n;
  if (b < lo || b > hi) return undefined;
  return dtype === 'int64' ? b : Number(b);
}

/** Parsed words into a typed array; NumPy's message (row 0-based, column 1-based) on a word that is not a number. */
function parseColumn(words: readonly string[], dtype: DType, row0: number, col: number): TypedArray {
  const out = new ARRAY_CTOR[dtype](words.length);
  words.forEach((w, i) => {
    const v = parseWord(w, dtype);
    if (v === undefined) throw new RangeError(`could not convert string '${w}' to ${dtype} at row ${row0 + i}, column ${col + 1}.`);
    (out as unknown as (number | bigint)[])[i] = dtype === 'float16' ? halfBits(Number(v)) : v;
  });
  return out;
}

export interface LoadtxtOpts {
  dtype?: DType | string;
  comments?: string | readonly string[] | null;
  delimiter?: string | null;
  skiprows?: number;
  usecols?: number | readonly number[] | null;
  unpack?: boolean;
  ndmin?: 0 | 1 | 2;
  max_rows?: number | null;
  encoding?: string;
  quotechar?: null;
}

/** The text of a source: lines given as an array of strings, or a file (gunzipped when its name ends in .gz). */
async function readText(src: Source | readonly string[]): Promise<string[]> {
  if (Array.isArray(src)) return src.flatMap((l: string) => l.split(/\r\n|\r|\n/));
  let b = await readBytes(src as Source);
  if (isGz(src as Source) || (b[0] === 0x1f && b[1] === 0x8b)) b = gunzipSync(b);
  const lines = new TextDecoder().decode(b).split(/\r\n|\r|\n/);
  if (lines.length && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

function stripComment(line: string, comments: readonly string[]): string {
  let cut = line.length;
  for (const c of comments) { const k = line.indexOf(c); if (k >= 0 && k < cut) cut = k; }
  return line.slice(0, cut);
}

const splitLine = (line: string, delimiter: string | null): string[] => (delimiter === null ? line.trim().split(/[ \t\f\v]+/) : line.split(delimiter));

/** (rows, columns) → NumPy's ndmin handling: squeeze, then at least ndmin dimensions (2-d from 1-d is a column). */
function ndminShape(rows: number, cols: number, ndmin: number): number[] {
  let shape = [rows, cols];
  if (ndmin < 2) shape = shape.filter((d) => d !== 1);
  if (shape.length < ndmin) shape = ndmin === 1 ? [1] : shape.length === 0 ? [1, 1] : [shape[0]!, 1];
  return shape;
}

/**
 * np.loadtxt(fname, dtype=float, comments='#', delimiter=None, skiprows=0,
 * usecols=None, unpack=False, ndmin=0, max_rows=None). fname is a source or
 * an array of lines; a name ending in .gz is gunzipped. NumPy's errors and
 * messages for a bad number, a changed column count and a bad usecols.
 */
export async function loadtxt(fname: Source | readonly string[], o: LoadtxtOpts = {}): Promise<Tensor> {
  const dtype = o.dtype === undefined || o.dtype === null ? 'float64' : parseDType(o.dtype);
  const comments = o.comments === null ? [] : typeof o.comments === 'string' ? [o.comments] : o.comments ? [...o.comments] : ['#'];
  const delimiter = o.delimiter ?? null;
  if (delimiter !== null && (typeof delimiter !== 'string' || delimiter.length !== 1)) throw new TypeError('Delimiter must be a single character');
  const ndmin = o.ndmin ?? 0;
  if (![0, 1, 2].includes(ndmin)) throw new RangeError(`Illegal value of ndmin keyword: ${ndmin}`);
  const usecols = o.usecols === undefined || o.usecols === null ? null : typeof o.usecols === 'number' ? [o.usecols] : [...o.usecols];
  const maxRows = o.max_rows ?? -1;
  const lines = (await readText(fname)).slice(o.skiprows ?? 0);
  const rows: string[][] = [];
  let ncols = -1;
  for (const line of lines) {
    if (maxRows >= 0 && rows.length >= maxRows) break;
    const body = stripComment(line, comments);
    if (body.trim() === '') continue;
    let words = splitLine(body, delimiter);
    if (usecols) {
      words = usecols.map((c) => {
        const k = c < 0 ? c + words.length : c;
        if (!Number.isInteger(c) || k < 0 || k >= words.length) throw new RangeError(`invalid column index ${c} at row ${rows.length + 1} with ${words.length} columns`);
        return words[k]!;
      });
    }
    if (ncols >= 0 && words.length !== ncols) throw new RangeError(`the number of columns changed from ${ncols} to ${words.length} at row ${rows.length + 1}; use \`usecols\` to select a subset and avoid this error`);
    ncols = words.length;
    rows.push(words);
  }
  // NumPy's reader makes (0, 1) of an input without data (so (0,) once squeezed) unless usecols says the width.
  if (rows.length === 0) ncols = usecols ? usecols.length : 1;
  const data = Array.from({ length: ncols }, (_, c) => parseColumn(rows.map((r) => r[c]!), dtype, 0, c));
  const t = fromValues(ndminShape(rows.length, ncols, ndmin), dtype, interleave(data, rows.length, dtype));
  return o.unpack ? transpose(t) : t;
}

/** Columns into one C-order (row-major) array. */
function interleave(cols: readonly TypedArray[], rows: number, dtype: DType): TypedArray {
  const out = new ARRAY_CTOR[dtype](rows * cols.length);
  const w = cols.length;
  cols.forEach((c, j) => { for (let i = 0; i < rows; i++) (out as unknown as unknown[])[i * w + j] = c[i]; });
  return out;
}

export interface SavetxtOpts {
  fmt?: string | readonly string[];
  delimiter?: string;
  newline?: string;
  header?: string;
  footer?: string;
  comments?: string;
  encoding?: string;
}

/**
 * np.savetxt(fname, X, fmt='%.18e', delimiter=' ', newline='\n', header='',
 * footer='', comments='# '): rows formatted with Python's `%` (./printf.ts),
 * a 1-d X as a column; a name ending in .gz is gzipped, as NumPy does.
 */
export async function savetxt(fname: Sink, X: Operand, o: SavetxtOpts = {}): Promise<undefined> {
  const { fmt = '%.18e', delimiter = ' ', newline = '\n', header = '', footer = '', comments = '# ' } = o;
  const x = toTensor(X);
  if (x.ndim === 0 || x.ndim > 2) throw new RangeError(`Expected 1D or 2D array, got ${x.ndim}D array instead`);
  const v = await x.fetch();
  const ncol = v.ndim === 1 ? 1 : v.shape[1]!;
  const nrow = v.shape[0]!;
  let format: string;
  if (Array.isArray(fmt)) {
    if (fmt.length !== ncol) throw new TypeError(`fmt has wrong shape.  ${JSON.stringify(fmt)}`);
    format = fmt.join(delimiter);
  } else if (typeof fmt === 'string') {
    const n = percentCount(fmt);
    if (n === 1) format = Array(ncol).fill(fmt).join(delimiter);
    else if (n !== ncol) throw new RangeError(`fmt has wrong number of % formats:  ${fmt}`);
    else format = fmt;
  } else throw new RangeError(`invalid fmt: ${String(fmt)}`);
  const kind = kindOf(v.dtype);
  const parts: string[] = [];
  if (header.length > 0) parts.push(comments + header.replaceAll('\n', `\n${comments}`) + newline);
  const data = v.data as ArrayLike<Scalar>;
  const row: Scalar[] = new Array(ncol);
  for (let i = 0; i < nrow; i++) {
    for (let j = 0; j < ncol; j++) row[j] = data[i * ncol + j]!;
    try {
      parts.push(pyFormat(format, row, kind) + newline);
    } catch (e) {
      if (e instanceof TypeError) throw new TypeError(`Mismatch between array dtype ('${v.dtype}') and format specifier ('${format}'): ${e.message}`);
      throw e;
    }
  }
  if (footer.length > 0) parts.push(comments + footer.replaceAll('\n', `\n${comments}`) + newline);
  let bytes = new TextEncoder().encode(parts.join(''));
  if (isGz(fname)) bytes = gzipSync(bytes);
  await writeBytes(fname, bytes, 'savetxt');
  return undefined;
}

export interface GenfromtxtOpts {
  dtype?: DType | string;
  comments?: string;
  delimiter?: string | null;
  skip_header?: number;
  skip_footer?: number;
  usecols?: number | readonly number[] | null;
  missing_values?: string | readonly string[];
  filling_values?: number;
  max_rows?: number | null;
  ndmin?: 0 | 1 | 2;
}

/**
 * np.genfromtxt, basic: float columns where an empty or missing field (or one
 * of `missing_values`) becomes NaN (or `filling_values`). Lines with a
 * different number of columns are an error, as NumPy's default
 * invalid_raise=True; names, converters and structured dtypes are not offered.
 */
export async function genfromtxt(fname: Source | readonly string[], o: GenfromtxtOpts = {}): Promise<Tensor> {
  const dtype = o.dtype === undefined || o.dtype === null ? 'float64' : parseDType(o.dtype);
  if (INFO[dtype].kind !== 'f' && o.filling_values === undefined) throw new TypeError('genfromtxt: missing values of an integer dtype need filling_values');
  const comments = o.comments ?? '#';
  const delimiter = o.delimiter ?? null;
  const missing = new Set(typeof o.missing_values === 'string' ? o.missing_values.split(',') : o.missing_values ?? []);
  missing.add('');
  const fill = o.filling_values ?? NaN;
  let lines = (await readText(fname)).slice(o.skip_header ?? 0);
  if (o.skip_footer) lines = lines.slice(0, Math.max(0, lines.length - o.skip_footer));
  const usecols = o.usecols === undefined || o.usecols === null ? null : typeof o.usecols === 'number' ? [o.usecols] : [...o.usecols];
  const rows: number[][] = [];
  let ncols = -1;
  for (const [at, line] of lines.entries()) {
    if (o.max_rows !== undefined && o.max_rows !== null && rows.length >= o.max_rows) break;
    const body = comments ? stripComment(line, [comments]) : line;
    if (body.trim() === '') continue;
    let words = delimiter === null ? body.trim().split(/\s+/) : body.split(delimiter).map((w) => w.trim());
    if (usecols) words = usecols.map((c) => words[c < 0 ? c + words.length : c] ?? '');
    if (ncols >= 0 && words.length !== ncols) throw new RangeError(`Some errors were detected !\n    Line #${at + 1 + (o.skip_header ?? 0)} (got ${words.length} columns instead of ${ncols})`);
    ncols = words.length;
    rows.push(words.map((w, j) => {
      if (missing.has(w)) return fill;
      const v = parseWord(w, 'float64');
      if (v === undefined) {
        if (INFO[dtype].kind === 'f') return fill;
        throw new RangeError(`genfromtxt: could not convert string '${w}' at row ${rows.length}, column ${j + 1}`);
      }
      return v as number;
    }));
  }
  if (ncols < 0) ncols = 0;
  const flat = new Float64Array(rows.length * ncols);
  rows.forEach((r, i) => flat.set(r, i * ncols));
  const shape = rows.length === 0 ? [0] : ndminShape(rows.length, ncols, o.ndmin ?? 0);
  const t = fromValues(shape, 'float64', flat);
  return dtype === 'float64' ? t : tensor(t, { dtype });
}
