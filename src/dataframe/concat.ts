// pandas' concat along the rows (axis 0): frames, or Series, one after
// another. Each result column is one tensor concatenation of the frames'
// pieces: numbers promoted as NumPy promotes them (an integer column that
// some frame lacks becomes float64, NaN there), strings moved into the union
// of the frames' dictionaries (each frame's codes through a small table, so
// equal strings share a code), a column a frame lacks missing in its rows.
// The labels are the frames' labels one after another (a RangeIndex's
// positions), or a new RangeIndex with ignore_index.

import * as mt from '../api/tensor.js';
import { DataFrame } from './frame.js';
import { type Column, type Labels, Series, dtypeName } from './series.js';

/** concat's options (pandas' keywords). */
export interface ConcatOptions {
  /** Only 0 (rows) is supported. */
  readonly axis?: 0 | 'index';
  /** The result over a new RangeIndex instead of the frames' labels. */
  readonly ignore_index?: boolean;
}

/** One frame's piece of a column: the column, or the frame's length where it lacks it (`like`: a column of the frame, for that length). */
type Piece = { readonly column: Column } | { readonly like: mt.Tensor };

/** The pieces as one column, or a TypeError naming the dtypes that do not join. */
function joined(name: string, pieces: readonly Piece[]): Column {
  const present = pieces.flatMap((p) => ('column' in p ? [p.column] : []));
  const strings = present.filter((c) => c.dict);
  const absent = present.length < pieces.length;
  if (strings.length && strings.length < present.length) {
    const other = present.find((c) => !c.dict)!;
    const what = `column ${JSON.stringify(name)} joins object (strings) with ${dtypeName(other)}`;
    throw new TypeError(`concat: ${what}, pandas' object column, not supported`);
  }
  if (strings.length) {
    const dict: string[] = [];
    const at = new Map<string, number>();
    const parts = pieces.map((p) => {
      if (!('column' in p)) return mt.full_like(p.like, -1, { dtype: 'int32' });
      const table = Int32Array.from(p.column.dict!, (s) => {
        let k = at.get(s);
        if (k === undefined) { k = dict.length; dict.push(s); at.set(s, k); }
        return k;
      });
      const codes = p.column.values;
      return mt.astype(mt.where(mt.less(codes, 0), -1, mt.take(mt.tensor(table), mt.maximum(codes, 0))), 'int32');
    });
    const nan = absent || strings.some((c) => c.missing === 'NaN');
    return { values: mt.concatenate(parts), dict, ...(nan ? { missing: 'NaN' as const } : {}) };
  }
  const bools = present.filter((c) => c.values.dtype === 'bool');
  if (bools.length && (bools.length < present.length || absent)) {
    const other = absent ? 'missing values' : dtypeName(present.find((c) => c.values.dtype !== 'bool')!);
    throw new TypeError(`concat: column ${JSON.stringify(name)} joins bool with ${other}, pandas' object column, not supported`);
  }
  const dtype = absent && !present.some((c) => c.values.dtype === 'float32') ? 'float64' : undefined;
  const parts = pieces.map((p) => {
    if (!('column' in p)) return mt.full_like(p.like, NaN, { dtype: dtype ?? 'float64' });
    return dtype ? mt.astype(p.column.values, dtype) : p.column.values;
  });
  return { values: mt.concatenate(parts) };
}

/** A frame's labels as index levels: a RangeIndex as its positions. */
function levelsOf(f: DataFrame): { names: readonly (string | null)[]; cols: readonly Column[] } {
  if (f.labels.kind === 'index') return f.labels;
  const first = f.columns.length ? f.column(f.columns[0]!).values : undefined;
  const n = f.shape[0];
  const values = Number.isNaN(n) && first
    ? mt.deferred('concat', [first], ([t]) => mt.arange(t!.shape[0]!, { dtype: 'int64' }))
    : mt.arange(n, { dtype: 'int64', ...(first ? { chunkSize: Math.max(1, first.node.chunk[0]!) } : {}) });
  return { names: [null], cols: [{ values }] };
}

/**
 * pandas' concat of frames or Series along the rows: a Series when every
 * object is a Series (named when all share a name), else a frame (a Series
 * is a column named as it is, or '0').
 */
export function concat(objs: readonly (DataFrame | Series)[], opts: ConcatOptions = {}): DataFrame | Series {
  if (!objs.length) throw new Error('ValueError: No objects to concatenate');
  if (opts.axis !== undefined && opts.axis !== 0 && opts.axis !== 'index') {
    throw new Error(`concat: axis ${String(opts.axis)} is not supported (rows only, axis 0)`);
  }
  const series = objs.every((o) => o instanceof Series);
  const frames = objs.map((o) => (o instanceof Series ? o.to_frame(series ? 'value' : o.name ?? '0') : o));
  const names: string[] = [];
  for (const f of frames) for (const n of f.columns) if (!names.includes(n)) names.push(n);
  const like = (f: DataFrame): mt.Tensor => {
    if (!f.columns.length) throw new Error('concat: a frame with no columns has no rows to join');
    return f.column(f.columns[0]!).values;
  };
  const piece = (f: DataFrame, n: string): Piece => (f.columns.includes(n) ? { column: f.column(n) } : { like: like(f) });
  const cols = new Map(names.map((n) => [n, joined(n, frames.map((f) => piece(f, n)))]));
  let labels: Labels = { kind: 'range' };
  if (!opts.ignore_index) {
    const levels = frames.map(levelsOf);
    const depth = levels[0]!.cols.length;
    if (levels.some((l) => l.cols.length !== depth)) {
      throw new Error('concat: frames whose indexes have different numbers of levels');
    }
    const same = (i: number): string | null => (levels.every((l) => l.names[i] === levels[0]!.names[i]) ? levels[0]!.names[i]! : null);
    labels = {
      kind: 'index', names: Array.from({ length: depth }, (_, i) => same(i)),
      cols: Array.from({ length: depth }, (_, i) => joined('index', levels.map((l) => ({ column: l.cols[i]! })))),
    };
  }
  if (!series) return new DataFrame(cols, {}, labels);
  const name = objs.every((o) => (o as Series).name === (objs[0] as Series).name) ? (objs[0] as Series).name : null;
  return new Series(cols.get('value')!, name, labels);
}
