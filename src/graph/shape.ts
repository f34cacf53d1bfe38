// Shapes, axes and chunk grids: NumPy's broadcasting and axis rules, and the
// automatic chunking that every later stage tiles by.
// In: shapes and user axis arguments. Out: validated shapes/axes or a
// NumPy-like error thrown at the line the user wrote.

export type Shape = readonly number[];

export const sizeOf = (shape: Shape): number => shape.reduce((a, b) => a * b, 1);

export function stridesOf(shape: Shape): number[] {
  const s = new Array<number>(shape.length);
  let acc = 1;
  for (let i = shape.length - 1; i >= 0; i--) {
    s[i] = acc;
    acc *= shape[i]!;
  }
  return s;
}

/**
 * A value as an error message quotes it, so the reader sees what was passed:
 * `'1'` for the string, `1` for the number, `[1,"a"]` for an array, `null`,
 * `undefined`, `a function`, and an object's JSON (cut at 80 characters).
 */
export function repr(v: unknown): string {
  if (typeof v === 'string') return `'${v.length > 80 ? `${v.slice(0, 77)}...` : v}'`;
  if (typeof v === 'bigint') return `${v}n`;
  if (typeof v === 'function') return 'a function';
  if (typeof v === 'symbol') return v.toString();
  if (v === null || v === undefined || typeof v !== 'object') return String(v);
  let text: string | undefined;
  try { text = JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? `${x}n` : x)); } catch { text = undefined; }
  const name = (v as object).constructor?.name;
  if (text === undefined || (text === '{}' && name && name !== 'Object')) return `a ${name ?? 'value'}`;
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

export const shapeStr = (s: Shape): string => `(${s.join(', ')}${s.length === 1 ? ',' : ''})`;

export function sameShape(a: Shape, b: Shape): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

/**
 * A dimension whose length is known only once an input is computed (the
 * length of a boolean-mask selection) is NaN, as in Mars and Dask.
 */
export const isUnknown = (d: number): boolean => Number.isNaN(d);
export const hasUnknown = (s: Shape): boolean => s.some(isUnknown);

export function broadcastShapes(...shapes: Shape[]): number[] {
  const rank = Math.max(0, ...shapes.map((s) => s.length));
  const out = new Array<number>(rank).fill(1);
  for (const s of shapes) {
    for (let i = 0; i < s.length; i++) {
      const o = rank - s.length + i;
      const d = s[i]!;
      if (d === out[o] || d === 1) continue;
      if (out[o] === 1) out[o] = d;
      // Unknown lengths broadcast optimistically; the check reruns once they are known.
      else if (isUnknown(d) || isUnknown(out[o]!)) out[o] = NaN;
      else {
        throw new RangeError(
          `operands could not be broadcast together with shapes ${shapes.map(shapeStr).join(' ')}`,
        );
      }
    }
  }
  return out;
}

/** The most elements an array may have: every index must be an exact JS number (NumPy's limit is intp's). */
export const MAX_SIZE = 2 ** 53;

/**
 * The most chunks one array may be tiled into. Each chunk becomes at least
 * one task, and planning costs a few microseconds and some hundred bytes of
 * host memory per task: 2^18 chunks plan in about a second, where the
 * million of `zeros([1e6, 1e6])` in 8 MiB chunks blocked the event loop for
 * seconds and then ran for minutes. NumPy refuses such an array at once
 * (MemoryError); so does Tessera, at the line that builds it.
 */
export const MAX_CHUNKS = 2 ** 18;

/**
 * Bytes of the chunk heap (runtime/memory.ts: a WebAssembly memory's 4 GiB):
 * no chunk larger than it can ever be computed.
 */
export const CHUNK_HEAP_BYTES = 2 ** 32;

/** NumPy's MemoryError (a RangeError named so): an array the runtime cannot hold, refused before anything runs. */
export class MemoryError extends RangeError {
  constructor(message: string) {
    super(message);
    this.name = 'MemoryError';
  }
}

/** Bytes as NumPy's MemoryError writes them: three significant digits and a binary unit ('7.28 TiB'). */
export function sizeString(bytes: number): string {
  const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'];
  let i = 0;
  while (i < units.length - 1 && bytes >= 1024 ** (i + 1) * 0.9995) i++;
  if (i === 0) return `${bytes} bytes`;
  const v = bytes / 1024 ** i;
  return `${v.toPrecision(3).replace(/\.?0+$/, '')} ${units[i]}`;
}

/**
 * Refuses an array the runtime could never plan or hold: more chunks than
 * MAX_CHUNKS, or one chunk larger than the chunk heap. `itemBytes` is the
 * dtype's size; lengths known only at run time (NaN) are checked when the
 * graph is rebuilt over them.
 */
export function checkTiling(shape: Shape, chunk: Shape, itemBytes: number, dtype: string): void {
  if (hasUnknown(shape)) return;
  let count = 1;
  for (let i = 0; i < shape.length; i++) count *= Math.max(1, Math.ceil(shape[i]! / chunk[i]!));
  const chunkBytes = sizeOf(chunk) * itemBytes;
  if (count <= MAX_CHUNKS && chunkBytes <= CHUNK_HEAP_BYTES) return;
  const head = `Unable to allocate ${sizeString(sizeOf(shape) * itemBytes)} for an array with shape ${shapeStr(shape)} and data type ${dtype}`;
  if (chunkBytes > CHUNK_HEAP_BYTES) {
    throw new MemoryError(`${head}: one chunk of shape ${shapeStr(chunk)} takes ${sizeString(chunkBytes)}, `
      + `more than the ${sizeString(CHUNK_HEAP_BYTES)} chunk heap holds (pass a smaller chunkSize)`);
  }
  throw new MemoryError(`${head}: in chunks of shape ${shapeStr(chunk)} it makes ${count} chunks, `
    + `more than the ${MAX_CHUNKS} one array may be tiled into (pass a larger chunkSize, or compute it in pieces)`);
}

export function checkShape(shape: unknown, what = 'shape'): number[] {
  const arr = typeof shape === 'number' ? [shape] : shape;
  if (!Array.isArray(arr)) throw new TypeError(`${what} must be an integer or an array of integers, got ${repr(shape)}`);
  const out = arr.map((d) => {
    if (typeof d !== 'number' || !Number.isInteger(d)) throw new TypeError(`${what} entries must be integers, got ${repr(d)}`);
    if (d < 0) throw new RangeError(`negative dimensions are not allowed (${what} ${JSON.stringify(arr)})`);
    return d;
  });
  if (out.reduce((a, d) => a * d, 1) > MAX_SIZE) throw new RangeError(`array is too big: ${what} ${JSON.stringify(arr)} has more than 2**53 elements`);
  return out;
}

export function normalizeAxis(axis: number, ndim: number): number {
  if (typeof axis !== 'number' || !Number.isInteger(axis)) throw new TypeError(`axis must be an integer, got ${repr(axis)}`);
  if (axis < -ndim || axis >= ndim) {
    throw new RangeError(`axis ${axis} is out of bounds for array of dimension ${ndim}`);
  }
  return axis < 0 ? axis + ndim : axis;
}

/** axis: undefined/null = all axes; number or array of numbers. Sorted, unique. */
export function normalizeAxes(axis: number | readonly number[] | null | undefined, ndim: number): number[] {
  if (axis === undefined || axis === null) return Array.from({ length: ndim }, (_, i) => i);
  const list = typeof axis === 'number' ? [axis] : [...axis];
  const out = list.map((a) => normalizeAxis(a, ndim));
  if (new Set(out).size !== out.length) throw new RangeError('repeated axis');
  return out.sort((a, b) => a - b);
}

/** Bytes a chunk aims at when the user gives no chunkSize: big enough to amortise a task, small enough to balance cores. */
export const AUTO_CHUNK_BYTES = 8 * 1024 * 1024;

/**
 * Chunk lengths per axis. `chunkSize` follows Mars: a number caps every axis,
 * an array gives each axis (-1 or null = whole axis). Automatic chunks keep
 * trailing axes whole and split leading ones, so rows stay contiguous.
 */
export function chunkGrid(shape: Shape, itemBytes: number, chunkSize?: number | readonly (number | null)[]): number[] {
  if (chunkSize !== undefined) {
    if (typeof chunkSize === 'number') {
      if (!Number.isInteger(chunkSize) || chunkSize <= 0) throw new RangeError(`chunkSize must be a positive integer, got ${repr(chunkSize)}`);
      return shape.map((d) => Math.max(1, Math.min(d, chunkSize)));
    }
    if (!Array.isArray(chunkSize)) throw new TypeError(`chunkSize must be a positive integer or a list of them, got ${repr(chunkSize)}`);
    if (chunkSize.length !== shape.length) {
      throw new RangeError(`chunkSize ${JSON.stringify(chunkSize)} does not match shape ${shapeStr(shape)}`);
    }
    return shape.map((d, i) => {
      const c = chunkSize[i];
      if (c === null || c === -1 || c === undefined) return Math.max(1, d);
      if (!Number.isInteger(c) || c <= 0) throw new RangeError(`chunkSize entries must be positive integers, got ${repr(c)}`);
      return Math.max(1, Math.min(d, c));
    });
  }
  return chunksOfSize(shape, Math.floor(AUTO_CHUNK_BYTES / itemBytes));
}

/** The automatic grid for chunks of about `elements` elements: trailing axes whole, leading ones split. */
export function chunksOfSize(shape: Shape, elements: number): number[] {
  let budget = Math.max(1, elements);
  const out = shape.map((d) => Math.max(1, d));
  for (let i = shape.length - 1; i >= 0; i--) {
    const d = Math.max(1, shape[i]!);
    if (d <= budget) {
      out[i] = d;
      budget = Math.max(1, Math.floor(budget / d));
    } else {
      out[i] = budget;
      budget = 1;
    }
  }
  return out;
}

export const numChunks = (shape: Shape, chunk: Shape): number[] =>
  shape.map((d, i) => Math.max(1, Math.ceil(d / chunk[i]!)));
