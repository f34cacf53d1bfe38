// `tessera knn`: the seed's KNN program on a CSV from the command line, with
// its progress bar, against scikit-learn's neighbours (test/fixtures/learn.json):
// queried with the indexed rows themselves, each row is its own nearest
// (distance 0), then its neighbours as scikit-learn's kneighbors() lists them.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import * as mt from '../src/api/tensor.js';

const CLI = fileURLToPath(new URL('../dist/cli/tessera.js', import.meta.url));
const F = JSON.parse(readFileSync(new URL('./fixtures/learn.json', import.meta.url), 'utf8')).neighbors;
afterAll(() => mt.shutdown());

describe('tessera knn', () => {
  it("prints a progress bar and writes scikit-learn's neighbours", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tessera-knn-'));
    const X = F.X as number[][];
    writeFileSync(join(dir, 'data.csv'), `${X[0]!.map((_, j) => `f${j}`).join(',')}\n${X.map((r) => r.map((v) => v.toPrecision(17)).join(',')).join('\n')}\n`);
    const r = spawnSync(process.execPath, [CLI, 'knn', '--csv', join(dir, 'data.csv'), '--k', '5', '--out', join(dir, 'nn')], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/\[#+\] \d+\/\d+ tasks/);
    expect(r.stdout).toMatch(/read .*data\.csv: 150 rows x 4 columns/);
    const ind = (await (await mt.load(join(dir, 'nn_indices.npy')) as mt.Tensor).tolist()) as number[][];
    const dist = (await (await mt.load(join(dir, 'nn_distances.npy')) as mt.Tensor).tolist()) as number[][];
    const euclid = F.nn.find((c: { metric: string }) => c.metric === 'euclidean');
    ind.forEach((row, i) => expect(row).toEqual([i, ...euclid.self_ind[i].slice(0, 4)]));
    dist.forEach((row, i) => {
      expect(row[0]).toBe(0);
      row.slice(1).forEach((v, j) => expect(Math.abs(v - euclid.self_dist[i][j])).toBeLessThan(1e-12));
    });
  }, 60_000);

  it('names what is wrong: no --csv, a bad --k, a string column', () => {
    const none = spawnSync(process.execPath, [CLI, 'knn'], { encoding: 'utf8' });
    expect(none.status).toBe(2);
    expect(none.stderr).toMatch(/--csv is required/);
    const dir = mkdtempSync(join(tmpdir(), 'tessera-knn-'));
    writeFileSync(join(dir, 's.csv'), 'a,b\n1,x\n2,y\n3,z\n');
    const badK = spawnSync(process.execPath, [CLI, 'knn', '--csv', join(dir, 's.csv'), '--k', '0'], { encoding: 'utf8' });
    expect(badK.status).toBe(2);
    expect(badK.stderr).toMatch(/--k must be a positive integer/);
    const str = spawnSync(process.execPath, [CLI, 'knn', '--csv', join(dir, 's.csv'), '--k', '1'], { encoding: 'utf8' });
    expect(str.status).toBe(1);
    expect(str.stderr).toMatch(/column "b" holds strings/);
  }, 60_000);
});
