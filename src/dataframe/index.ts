// The pandas-like namespace `md` (tessera's `md`, and `tessera/dataframe`):
// DataFrame and Series over chunked columns, lazy as tensors are.

export { DataFrame, LocalFrame, execute, type FrameOptions } from './frame.js';
export { Series, type ColumnData, type SeriesOptions } from './series.js';
export { GroupBy, NamedAgg, type AggSpec, type GroupByOptions } from './groupby.js';
export { read_csv, type CsvSource, type ReadCsvOptions } from './read.js';
export { type Pending } from './pending.js';
export { StringMethods, type ValueCountsOptions } from './series_api.js';
export { concat, type ConcatOptions } from './concat.js';
export { read_arrow, type ArrowSource, type CsvWriteOptions } from './io.js';
