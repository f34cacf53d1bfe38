// NumPy's .npy format, byte for byte (numpy/lib/format.py): bytes in,
// { shape, dtype, data, fortran } out, and back. No tensors and no files
// here (./io.ts has those), so the format can be tested on bytes alone.
//
// A file is the magic "\x93NUMPY", a version (1.0: 2-byte header length,
// 2.0: 4-byte, 3.0: 4-byte and a UTF-8 header), a Python dict literal
// {'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), } padded with
// spaces to a multiple of 64 bytes and ending in '\n', then the raw data.
// Writers reproduce NumPy's padding exactly, including the 21-digit room it
// leaves to grow the first axis in place.

import { ARRAY_CTOR, type DType, INFO, type TypedArray } from '../graph/dtype.js';

export const MAGIC = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]; // \x93NUMPY
const ARRAY_ALIGN = 64;
const GROWTH_AXIS_MAX_DIGITS = 21;
const LITTLE = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

export interface NpyArray {
  shape: number[];
  dtype: DType;
  /** C-order values of the array as stored: with `fortran`, of the reversed shape. */
  data: TypedArray;
  fortran: boolean;
}

// ---------------------------------------------------------------------------
// dtype descriptors ('<f8', '>i4', '|b1')

const BY_DESCR: Record<string, DType> = {
  b1: 'bool', i1: 'int8', i2: 'int16', i4: 'int32', i8: 'int64',
  u1: 'uint8', u2: 'uint16', u4: 'uint32', f2: 'float16', f4: 'float32', f8: 'float64',
};
const NUMPY_NAMES: Record<string, string> = {
  u8: 'uint64', c8: 'complex64', c16: 'complex128', f16: 'longdouble', f12: 'longdouble', c32: 'clongdouble', c24: 'clongdouble', O8: 'object', O4: 'object',
};

export interface Descr { dtype: DType; big: boolean }

/** A dtype string as NumPy writes it in a header or accepts in frombuffer ('<f8', 'i4', 'float32'...). */
export function parseDescr(d: string, where: string): Descr {
  const m = /^([<>|=]?)([a-zA-Z])(\d+)$/.exec(d);
  if (m) {
    const [, order, kind, size] = m;
    const key = `${kind}${size}`;
    const big = order === '>' && Number(size) > 1;
    if (BY_DESCR[key]) return { dtype: BY_DESCR[key]!, big };
    if (kind === 'O') throw new TypeError(`${where}: object arrays (dtype '${d}', pickled Python objects) are not supported by Tessera`);
    const name = NUMPY_NAMES[key] ?? ({ U: 'str (unicode)', S: 'bytes', V: 'void (raw or structured)', M: 'datetime64', m: 'timedelta64' } as Record<string, string>)[kind!];
    throw new TypeError(`${where}: dtype '${d}'${name ? ` (${name})` : ''} is not supported by Tessera (it has bool, int8..int64, uint8..uint32, float16, float32, float64)`);
  }
  throw new TypeError(`${where}: dtype ${JSON.stringify(d)} not understood`);
}

/** NumPy's descr of a Tessera dtype on a little-endian machine (what np.save writes). */
export function descrOf(d: DType): string {
  const b = INFO[d].bytes;
  const kind = INFO[d].kind;
  return `${b === 1 ? '|' : '<'}${kind}${b}`;
}

// ---------------------------------------------------------------------------
// The header: a Python literal (dict of str keys; str, bool, int, tuple, list values)

type Py = string | number | boolean | null | Py[] | { [k: string]: Py };

function parsePyLiteral(s: string): Py {
  let i = 0;
  const fail = (why: string): never => { throw new SyntaxError(`cannot parse .npy header ${JSON.stringify(s.trim())}: ${why} at character ${i}`); };
  const ws = () => { while (i < s.length && /\s/.test(s[i]!)) i++; };
  const value = (): Py => {
    ws();
    const c = s[i];
    if (c === '{' || c === '(' || c === '[') {
      const close = c === '{' ? '}' : c === '(' ? ')' : ']';
      i++;
      const items: Py[] = [];
      const dict: Record<string, Py> = {};
      for (;;) {
        ws();
        if (s[i] === close) { i++; break; }
        const v = value();
        if (c === '{') {
          ws();
          if (s[i] !== ':') fail("expected ':'");
          i++;
          if (typeof v !== 'string') fail('a key that is not a string');
          dict[v as string] = value();
        } else items.push(v);
        ws();
        if (s[i] === ',') i++;
        else if (s[i] !== close) fail(`expected ',' or '${close}'`);
      }
      return c === '{' ? dict : items;
    }
    if (c === "'" || c === '"') {
      const end = s.indexOf(c, i + 1);
      if (end < 0) fail('an unterminated string');
      const str = s.slice(i + 1, end);
      i = end + 1;
      return str;
    }
    const m = /^(True|False|None|[-+]?\d+L?)/.exec(s.slice(i));
    if (!m) fail('an unexpected token');
    i += m![0].length;
    return m![0] === 'True' ? true : m![0] === 'False' ? false : m![0] === 'None' ? null : Number(m![0].replace('L', ''));
  };
  const v = value();
  ws();
  if (i !== s.length) fail('trailing text');
  return v;
}

// ---------------------------------------------------------------------------
// Reading

const startsWith = (b: Uint8Array, p: readonly number[]): boolean => p.every((x, k) => b[k] === x);
export const isNpy = (b: Uint8Array): boolean => startsWith(b, MAGIC);

export interface ReadOpts { maxHeaderSize?: number; allowPickle?: boolean }

/** Decodes one .npy file. `name` says which file in errors. */
export function readNpy(bytes: Uint8Array, name: string, o: ReadOpts = {}): NpyArray {
  if (!isNpy(bytes)) throw new RangeError(`${name} is not a .npy file: bad magic string (expected \\x93NUMPY)`);
  if (bytes.length < 10) throw new RangeError(`${name}: truncated .npy header (${bytes.length} bytes)`);
  const [major, minor] = [bytes[6]!, bytes[7]!];
  if (!((major === 1 || major === 2 || major === 3) && minor === 0)) throw new RangeError(`${name}: we only support format version (1,0), (2,0), and (3,0), not (${major}, ${minor})`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const lenBytes = major === 1 ? 2 : 4;
  if (bytes.length < 8 + lenBytes) throw new RangeError(`${name}: truncated .npy header`);
  const hlen = major === 1 ? view.getUint16(8, true) : view.getUint32(8, true);
  const start = 8 + lenBytes;
  if (bytes.length < start + hlen) throw new RangeError(`${name}: truncated .npy header: it declares ${hlen} bytes, the file has ${bytes.length - start}`);
  const maxHeader = o.maxHeaderSize ?? 10000;
  if (hlen > maxHeader && !o.allowPickle) throw new RangeError(`${name}: Header info length (${hlen}) is large and may not be safe to load securely. To allow loading, adjust \`max_header_size\` or fully trust the \`.npy\` file using \`allow_pickle=True\`.`);
  const text = new TextDecoder(major === 3 ? 'utf-8' : 'latin1').decode(bytes.subarray(start, start + hlen));
  const d = parsePyLiteral(text);
  if (d === null || typeof d !== 'object' || Array.isArray(d)) throw new SyntaxError(`${name}: header is not a dictionary: ${JSON.stringify(text.trim())}`);
  const keys = Object.keys(d).sort();
  if (keys.join() !== 'descr,fortran_order,shape') throw new SyntaxError(`${name}: header does not contain the correct keys: ${JSON.stringify(keys)}`);
  const { descr, fortran_order: fortran, shape } = d as { descr: Py; fortran_order: Py; shape: Py };
  if (!Array.isArray(shape) || !shape.every((x) => typeof x === 'number' && Number.isSafeInteger(x) && x >= 0)) throw new SyntaxError(`${name}: shape is not valid: ${JSON.stringify(shape)}`);
  if (typeof fortran !== 'boolean') throw new SyntaxError(`${name}: fortran_order is not a valid bool: ${JSON.stringify(fortran)}`);
  if (typeof descr !== 'string') {
    throw new TypeError(`${name}: structured dtypes (descr ${JSON.stringify(descr)}) are not supported by Tessera`);
  }
  if (descr.replace(/^[<>|=]/, '').startsWith('O') && !o.allowPickle) throw new RangeError(`${name}: Object arrays cannot be loaded when allow_pickle=False`);
  const dt = parseDescr(descr, name);
  const dims = shape as number[];
  const n = dims.reduce((a, b) => a * b, 1);
  const item = INFO[dt.dtype].bytes;
  const body = bytes.subarray(start + hlen);
  if (body.length < n * item) {
    throw new RangeError(`${name}: truncated .npy data: shape (${dims.join(', ')}${dims.length === 1 ? ',' : ''}) of '${descr}' needs ${n * item} bytes, the file has ${body.length}`);
  }
  return { shape: dims, dtype: dt.dtype, data: decode(body, dt.dtype, n, dt.big), fortran };
}

/** n values of `dtype` from raw bytes (copied: the source may be unaligned), byte-swapped when big-endian. */
export function decode(raw: Uint8Array, dtype: DType, n: number, big: boolean): TypedArray {
  const size = INFO[dtype].bytes;
  const copy = raw.slice(0, n * size);
  if (big === LITTLE && size > 1) swap(copy, size);
  const out = new ARRAY_CTOR[dtype](copy.buffer, 0, n);
  if (dtype === 'bool') for (let k = 0; k < n; k++) if (out[k]) out[k] = 1;
  return out;
}

function swap(b: Uint8Array, size: number): void {
  for (let k = 0; k < b.length; k += size) {
    for (let lo = k, hi = k + size - 1; lo < hi; lo++, hi--) { const t = b[lo]!; b[lo] = b[hi]!; b[hi] = t; }
  }
}

// ---------------------------------------------------------------------------
// Writing

const pyTuple = (s: readonly number[]): string => (s.length === 1 ? `(${s[0]},)` : `(${s.join(', ')})`);

/** NumPy's header for a C-order array: the version it would pick (1.0 unless too long, then 2.0) and the same padding. */
export function npyHeader(shape: readonly number[], dtype: DType): Uint8Array {
  let h = `{'descr': '${descrOf(dtype)}', 'fortran_order': False, 'shape': ${pyTuple(shape)}, }`;
  if (shape.length > 0) h += ' '.repeat(Math.max(0, GROWTH_AXIS_MAX_DIGITS - String(shape[0]).length));
  const text = new TextEncoder().encode(h); // ASCII: digits, quotes and letters only
  for (const [major, lenBytes, max] of [[1, 2, 0xffff], [2, 4, 0xffffffff]] as const) {
    const hlen = text.length + 1;
    const pad = ARRAY_ALIGN - ((MAGIC.length + 2 + lenBytes + hlen) % ARRAY_ALIGN);
    if (hlen + pad > max) continue;
    const out = new Uint8Array(8 + lenBytes + hlen + pad);
    out.set(MAGIC);
    out[6] = major;
    const v = new DataView(out.buffer);
    if (lenBytes === 2) v.setUint16(8, hlen + pad, true); else v.setUint32(8, hlen + pad, true);
    out.set(text, 8 + lenBytes);
    out.fill(0x20, 8 + lenBytes + text.length, out.length - 1);
    out[out.length - 1] = 0x0a;
    return out;
  }
  throw new RangeError(`the .npy header for shape ${pyTuple(shape)} is too long`);
}

/** A whole .npy file of C-order values. */
export function writeNpy(shape: readonly number[], dtype: DType, data: TypedArray): Uint8Array {
  const head = npyHeader(shape, dtype);
  const body = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  const out = new Uint8Array(head.length + body.length);
  out.set(head);
  out.set(body, head.length);
  if (!LITTLE && INFO[dtype].bytes > 1) swap(out.subarray(head.length), INFO[dtype].bytes);
  return out;
}

/** Little-endian bytes of C-order values (tofile, frombuffer's twin). */
export function rawBytes(dtype: DType, data: TypedArray): Uint8Array {
  const out = new Uint8Array(data.buffer, data.byteOffset, data.byteLength).slice();
  if (!LITTLE && INFO[dtype].bytes > 1) swap(out, INFO[dtype].bytes);
  return out;
}
