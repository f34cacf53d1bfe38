// The order in which the scheduler takes ready tasks (runtime.ts): each
// task's rank in a depth-first post-order of the plan from its last tasks
// (those no task reads), the inputs of a task in id order before it. Taking
// the ready task of least rank first finishes what one output needs before
// starting on the next, so that what a task frees comes soon after what it
// allocated: a split reduction's combine runs as soon as its partials exist
// (a 8192² matmul in 512-tiles would otherwise hold all 4096 K partials, 8
// GiB, past the 4 GiB chunk heap), and a factorization's tile versions are
// read soon after they are written. Ready tasks wait in a binary heap keyed
// by rank. In: a plan's tasks (id, deps). Out: the ranks, and the heap.

/** What the order reads of a task. */
interface Deps { readonly id: number; readonly deps: readonly number[] }

const RANKS = new WeakMap<readonly Deps[], Int32Array>();

/** Each task's rank (0 first) in the depth-first post-order described above; computed once per task list. */
export function taskRanks(tasks: readonly Deps[]): Int32Array {
  const have = RANKS.get(tasks);
  if (have) return have;
  const n = tasks.length;
  const read = new Uint8Array(n);
  for (const t of tasks) for (const d of t.deps) read[d] = 1;
  const rank = new Int32Array(n).fill(-1);
  let next = 0;
  // iterative post-order: a stack of [task, index of its next dep to visit]
  const stack: number[] = [], at: number[] = [];
  const deps = tasks.map((t) => [...t.deps].sort((a, b) => a - b));
  for (let root = 0; root < n; root++) {
    if (read[root] || rank[root]! >= 0) continue;
    stack.push(root); at.push(0);
    rank[root] = -2; // on the stack
    while (stack.length) {
      const top = stack.length - 1, t = stack[top]!, i = at[top]!;
      const ds = deps[t]!;
      if (i < ds.length) {
        at[top] = i + 1;
        const d = ds[i]!;
        if (rank[d] === -1) { rank[d] = -2; stack.push(d); at.push(0); }
        continue;
      }
      rank[t] = next++;
      stack.pop(); at.pop();
    }
  }
  // tasks on a cycle of reads none reaches from a last task (none in a valid plan): after the rest, in id order
  for (let t = 0; t < n; t++) if (rank[t]! < 0) rank[t] = next++;
  RANKS.set(tasks, rank);
  return rank;
}

/** A binary min-heap of task ids keyed by their rank. */
export class ReadyHeap {
  private readonly a: number[] = [];

  constructor(private readonly rank: Int32Array) {}

  get length(): number { return this.a.length; }

  /** The id of least rank, without taking it. */
  peek(): number | undefined { return this.a[0]; }

  push(id: number): void {
    const a = this.a, r = this.rank;
    let i = a.length;
    a.push(id);
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (r[a[p]!]! <= r[id]!) break;
      a[i] = a[p]!;
      i = p;
    }
    a[i] = id;
  }

  /** Takes the id of least rank (the heap must not be empty). */
  pop(): number {
    const a = this.a, r = this.rank;
    const top = a[0]!, last = a.pop()!;
    if (a.length) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= a.length) break;
        const c = l + 1 < a.length && r[a[l + 1]!]! < r[a[l]!]! ? l + 1 : l;
        if (r[a[c]!]! >= r[last]!) break;
        a[i] = a[c]!;
        i = c;
      }
      a[i] = last;
    }
    return top;
  }
}
