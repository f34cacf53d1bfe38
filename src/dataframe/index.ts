// The pandas-like namespace `md` (tessera's `md`, and `tessera/dataframe`):
// DataFrame and Series over chunked columns, lazy as tensors are.

export { DataFrame, LocalFrame, execute, type ColumnData, type FrameOptions } from './frame.js';
export { Series } from './series.js';
export { GroupBy, NamedAgg, type AggSpec, type GroupByOptions } from './groupby.js';
export { read_csv, type CsvSource, type ReadCsvOptions } from './read.js';
export { type Pending } from './pending.js';
