// The pipeline's layering (src/README.md): a module imports only from its own
// stage or stages listed before it, and no two files import each other, even
// through others. The file graph follows static imports and re-exports,
// dynamic `import('…')` (also in types), and `#host`/`#peer-thread`, which
// package.json's "imports" map to files in src/host/.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { expect, it } from 'vitest';

const ORDER = ['host', 'graph', 'ir', 'numerics', 'fuse', 'tile', 'wasm', 'wgsl', 'runtime', 'api', 'dataframe', 'learn', 'mesh', 'cli'];
const ROOT = join(__dirname, '..');
const SRC = join(ROOT, 'src');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** `#name` -> the src/ files it resolves to (every condition: browser and Node). */
function subpathImports(): Map<string, string[]> {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { imports: Record<string, Record<string, string>> };
  const out = new Map<string, string[]>();
  for (const [name, conds] of Object.entries(pkg.imports)) {
    out.set(name, Object.values(conds).map((p) => join(ROOT, p.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts'))));
  }
  return out;
}

/** Each src/ file -> the src/ files it imports. */
function importGraph(): Map<string, string[]> {
  const subpaths = subpathImports();
  const SPEC = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)'([^']+)'/gm;
  const graph = new Map<string, string[]>();
  for (const f of files(SRC)) {
    const deps: string[] = [];
    for (const m of readFileSync(f, 'utf8').matchAll(SPEC)) {
      const spec = m[1]!;
      if (spec.startsWith('#')) {
        const to = subpaths.get(spec);
        if (!to) throw new Error(`${relative(SRC, f)}: ${spec} is not in package.json's "imports"`);
        deps.push(...to);
      } else if (spec.startsWith('.')) {
        const to = resolve(dirname(f), spec).replace(/\.js$/, '.ts');
        if (relative(SRC, to).startsWith('..')) continue; // outside src/ (the signaling server's build)
        if (!existsSync(to)) throw new Error(`${relative(SRC, f)}: ${spec} does not resolve`);
        deps.push(to);
      }
    }
    graph.set(f, [...new Set(deps)]);
  }
  return graph;
}

/** One cycle per strongly connected component of more than one file (or a file importing itself), as a path a -> b -> … -> a. */
function cycles(graph: Map<string, string[]>): string[][] {
  // Tarjan's algorithm, iteration order fixed by the sorted file list so the report is stable.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const comps: string[][] = [];
  let next = 0;
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const comp: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        comp.push(w);
      } while (w !== v);
      if (comp.length > 1 || (graph.get(v) ?? []).includes(v)) comps.push(comp);
    }
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  // Within a component, the shortest path from its first file back to itself.
  return comps.map((comp) => {
    const inComp = new Set(comp);
    const start = comp.sort()[0]!;
    const prev = new Map<string, string>();
    const queue = [start];
    for (let i = 0; i < queue.length; i++) {
      for (const w of graph.get(queue[i]!) ?? []) {
        if (!inComp.has(w)) continue;
        if (w === start) {
          const path = [start];
          for (let at = queue[i]!; at !== start; at = prev.get(at)!) path.splice(1, 0, at);
          const shown = [...path, start].map((p) => relative(SRC, p));
          if (comp.length > path.length) shown.push(`${shown.pop()!} (one of ${comp.length} files that import each other: ${comp.map((p) => relative(SRC, p)).join(', ')})`);
          return shown;
        }
        if (!prev.has(w)) {
          prev.set(w, queue[i]!);
          queue.push(w);
        }
      }
    }
    return comp.map((p) => relative(SRC, p));
  });
}

const stageOf = (f: string): string => relative(SRC, f).split('/')[0]!;

it('lists every folder of src/ in the stage order', () => {
  const folders = readdirSync(SRC).filter((f) => statSync(join(SRC, f)).isDirectory());
  expect(folders.filter((f) => !ORDER.includes(f))).toEqual([]);
  const readme = readFileSync(join(SRC, 'README.md'), 'utf8');
  const listed = [...readme.matchAll(/^\| [^|]+ \| `([a-z]+)\/` \|/gm)].map((m) => m[1]);
  expect(listed).toEqual(ORDER);
});

it('has no import that points back to a later stage', () => {
  const bad: string[] = [];
  for (const [f, deps] of importGraph()) {
    const mine = ORDER.indexOf(stageOf(f));
    if (mine < 0) continue;
    for (const d of deps) {
      const theirs = ORDER.indexOf(stageOf(d));
      if (theirs > mine) bad.push(`${relative(SRC, f)} imports ${relative(SRC, d)}`);
    }
  }
  expect(bad).toEqual([]);
});

it('has no import cycle between files', () => {
  const found = cycles(importGraph()).map((c) => c.join(' -> '));
  expect(found, `import cycles:\n${found.join('\n')}`).toEqual([]);
});

// The `mt` namespace gathers every api module (jax-js keeps its namespace in
// a file nothing inside imports): an api module that imported it back would
// close a cycle through all of them, and a new collection would drag in
// every name to get the Tensor (api/core.ts).
it('keeps the mt namespace (api/tensor.ts) out of the api modules and the mesh', () => {
  const NAMESPACE = join(SRC, 'api', 'tensor.ts');
  const importers = [...importGraph()].filter(([, deps]) => deps.includes(NAMESPACE)).map(([f]) => relative(SRC, f));
  expect(importers.filter((f) => f.startsWith('api/') || f.startsWith('mesh/'))).toEqual([]);
});
