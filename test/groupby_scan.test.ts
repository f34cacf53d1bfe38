// The groupby paths that need no sort: cumcount and head by a scan over the
// chunks (per-chunk counts per group, their running sum, each chunk's rows
// numbered from it: aggregate.ts's scannedCount and runtime/group.ts's
// gscan), and the median by a selection (group.ts's median). Checked
// against plain references over random data and any chunking, and db-
// benchmark's q8 (the top two per group after a descending sort).

import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import * as mt from '../src/api/tensor.js';
import * as md from '../src/dataframe/index.js';
import { median } from '../src/runtime/group.js';

afterAll(() => mt.shutdown());

describe('the median by selection', () => {
  it('is the middle of the sorted values (the mean of the two middle ones for an even count)', () => {
    fc.assert(fc.property(fc.array(fc.integer({ min: -20, max: 20 }), { minLength: 1, maxLength: 200 }), (xs) => {
      const a = Float64Array.from(xs, (x) => x / 4);
      const s = Float64Array.from(a).sort(), n = s.length;
      expect(median(a)).toBe((s[(n - 1) >> 1]! + s[n >> 1]!) / 2);
    }), { numRuns: 300 });
  });
});

describe('cumcount and head by a scan over the chunks', () => {
  it('numbers each group\'s rows in row order, over any chunking', async () => {
    await fc.assert(fc.asyncProperty(
      fc.array(fc.option(fc.integer({ min: -2, max: 4 }), { nil: null }), { maxLength: 40 }), fc.integer({ min: 1, max: 9 }), fc.boolean(),
      async (keys, chunkSize, sort) => {
        const df = new md.DataFrame({ k: Float64Array.from(keys, (k) => (k === null ? NaN : k)), v: keys.map((_, i) => i) }, { chunkSize });
        const got = (await df.groupby('k', { sort }).cumcount().to_frame('n').fetch()).get('n');
        const seen = new Map<number, number>();
        const want = keys.map((k) => (k === null ? -1 : (seen.set(k, (seen.get(k) ?? -1) + 1), seen.get(k)!)));
        expect([...got].map(Number)).toEqual(want);
      },
    ), { numRuns: 60 });
  });

  it('gives q8\'s rows: the largest two values of each group after a descending sort', async () => {
    await fc.assert(fc.asyncProperty(
      fc.array(fc.record({ k: fc.integer({ min: 0, max: 6 }), v: fc.option(fc.integer({ min: -9, max: 9 }), { nil: null }) }), { maxLength: 50 }),
      fc.integer({ min: 1, max: 8 }), fc.integer({ min: 1, max: 3 }),
      async (rows, chunkSize, n) => {
        const x = new md.DataFrame({
          id6: Int32Array.from(rows, (r) => r.k), v3: Float64Array.from(rows, (r) => (r.v === null ? NaN : r.v / 2)),
        }, { chunkSize });
        const got = await x.get(x.get('v3').notna()).get(['id6', 'v3']).sort_values('v3', { ascending: false })
          .groupby('id6', { sort: false, as_index: false, dropna: false }).head(n).fetch();
        // the reference: the rows with a value, stably sorted by it (descending), then the first n of each key
        const kept = rows.map((r, i) => [r, i] as const).filter(([r]) => r.v !== null).sort(([a], [b]) => b.v! - a.v!);
        const taken = new Map<number, number>();
        const want = kept.filter(([r]) => { const t = taken.get(r.k) ?? 0; taken.set(r.k, t + 1); return t < n; });
        expect(got.index).toEqual(want.map(([, i]) => i));
        expect([...got.get('id6')]).toEqual(want.map(([r]) => r.k));
        expect([...got.get('v3')]).toEqual(want.map(([r]) => r.v! / 2));
      },
    ), { numRuns: 60 });
  });
});
