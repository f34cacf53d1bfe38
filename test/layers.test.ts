// The pipeline's layering (src/README.md): a module imports only from its own
// stage or stages listed before it.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect, it } from 'vitest';

const ORDER = ['graph', 'ir', 'fuse', 'tile', 'wasm', 'wgsl', 'runtime', 'api', 'cli'];
const SRC = join(__dirname, '..', 'src');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

it('has no import that points back to a later stage', () => {
  const bad: string[] = [];
  for (const f of files(SRC)) {
    const stage = relative(SRC, f).split('/')[0]!;
    const mine = ORDER.indexOf(stage);
    if (mine < 0) continue;
    for (const m of readFileSync(f, 'utf8').matchAll(/from '\.\.\/([a-z]+)\//g)) {
      const theirs = ORDER.indexOf(m[1]!);
      if (theirs > mine) bad.push(`${relative(SRC, f)} imports ${m[1]}`);
    }
  }
  expect(bad).toEqual([]);
});
