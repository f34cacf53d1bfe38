// Thread entry: one of read_csv's parse threads (read.ts starts one per core,
// with host.spawnThread('dataframe/parse-thread.js')). In: { id, job, file }
// or { id, job, bytes }: a range job of the parsing core (csv.ts `work`) and
// where its bytes come from, a file it reads [from, to) of itself (so a large
// file is never held whole, and the main thread reads nothing), or the bytes
// themselves, transferred. Out: { id, result } with the result's typed arrays
// transferred back, or { id, error }: a CsvError's numbers (the driver
// renumbers its line for the whole file) or any other error's message.

import { host } from '#host';
import { CsvError, type RangeJob, type RangeResult, work } from './csv.js';

export interface ParseRequest { id: number; job: RangeJob; file?: string; bytes?: Uint8Array }
export type ParseReply =
  | { id: number; result: RangeResult }
  | { id: number; error: { line: number; expected: number; saw: number } | { message: string } };

/** The buffers of a result, to move rather than copy. */
function buffers(r: RangeResult): ArrayBuffer[] {
  if (r.kind === 'scan') return [];
  return r.parsed.columns.flatMap((c) => {
    if (c.dtype === 'string') {
      const { bytes, ends, hashes } = c.spellings!;
      return [c.codes.buffer, bytes.buffer, ends.buffer, hashes.buffer] as ArrayBuffer[];
    }
    if (c.dtype === 'bool' && c.missing) return [c.values.buffer as ArrayBuffer, c.missing.buffer as ArrayBuffer];
    return [c.values.buffer as ArrayBuffer];
  });
}

const port = host.threadPort();
port.onMessage(async (m: ParseRequest) => {
  try {
    const path = m.file?.startsWith('file:') ? new URL(m.file) : m.file;
    const bytes = m.bytes ?? (await host.files()!.readRange(path!, m.job.from, m.job.to));
    const result = work(m.job, bytes);
    port.post({ id: m.id, result } satisfies ParseReply, buffers(result));
  } catch (e) {
    const error = e instanceof CsvError
      ? { line: e.line, expected: e.expected, saw: e.saw }
      : { message: e instanceof Error ? e.message : String(e) };
    port.post({ id: m.id, error } satisfies ParseReply);
  }
});
