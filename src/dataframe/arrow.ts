// An Apache Arrow table's columns as a frame's columns, as pandas'
// Table.to_pandas() types them: numbers as their typed arrays (an integer
// column with nulls becomes float64 with NaN, as pandas makes it), bools,
// utf8 and dictionary-encoded strings as string columns (a dictionary in
// first-seen order, null missing). The table is host data already; this
// copies each column once into a tensor.

import { DataType, type Table, type Vector } from 'apache-arrow';
import * as mt from '../api/tensor.js';
import type { TypedArray } from '../graph/dtype.js';
import type { Column } from './series.js';

/** Whether `x` is an Arrow Table (by shape: a second copy of the library makes instanceof fail). */
export function isArrowTable(x: unknown): x is Table {
  return typeof x === 'object' && x !== null && 'schema' in x && 'getChildAt' in x && 'numRows' in x;
}

function stringColumn(v: Vector, opts: { chunkSize?: number }): Column {
  const dict: string[] = [];
  const at = new Map<string, number>();
  const codes = new Int32Array(v.length);
  for (let i = 0; i < v.length; i++) {
    const s = v.get(i) as string | null;
    if (s === null || s === undefined) { codes[i] = -1; continue; }
    let k = at.get(s);
    if (k === undefined) { k = dict.length; dict.push(s); at.set(s, k); }
    codes[i] = k;
  }
  return { values: mt.tensor(codes, opts), dict };
}

/** One Arrow column as a Column (`name` for the errors). */
function columnOf(name: string, v: Vector, chunk: number | undefined): Column {
  const opts = chunk ? { chunkSize: chunk } : {};
  const t = v.type;
  if (DataType.isUtf8(t) || DataType.isLargeUtf8(t) || DataType.isDictionary(t)) return stringColumn(v, opts);
  if (DataType.isBool(t)) {
    if (v.nullCount) {
      throw new TypeError(`DataFrame: Arrow column ${JSON.stringify(name)}: booleans with nulls (pandas' object column) are not supported`);
    }
    return { values: mt.tensor(Uint8Array.from({ length: v.length }, (_, i) => (v.get(i) ? 1 : 0)), 'bool', opts) };
  }
  if (DataType.isInt(t) || DataType.isFloat(t)) {
    if (v.nullCount) {
      const f = Float64Array.from({ length: v.length }, (_, i) => (v.isValid(i) ? Number(v.get(i)) : NaN));
      return { values: mt.tensor(f, opts) };
    }
    const values = v.toArray() as TypedArray;
    return { values: mt.tensor(values, opts) };
  }
  throw new TypeError(`DataFrame: Arrow column ${JSON.stringify(name)} has type ${String(t)}, not supported (numbers, bools, strings)`);
}

/** A table's columns, in its order. */
export function columnsFromArrow(table: Table, chunk: number | undefined): Map<string, Column> {
  const cols = new Map<string, Column>();
  table.schema.fields.forEach((f, i) => cols.set(f.name, columnOf(f.name, table.getChildAt(i)!, chunk)));
  return cols;
}
