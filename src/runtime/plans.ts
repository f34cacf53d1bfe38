// Plans by the shape of their graph. Code that runs the same expression again
// (a loop of iterations, a benchmark, a page redrawing) builds new nodes each
// time, but the graph has the same structure: the same operations, shapes,
// dtypes and chunk grids over stored tensors of the same layout. Fusion and
// tiling are a function of that structure alone, so their plan is kept under a
// key that spells it out, and a later run of an equal graph binds the kept plan
// to its own nodes, stored inputs included (an iteration's new estimate is a
// new stored tensor each time). The cache holds no node: a stored node's data
// is freed when the node is collected, and a plan must not keep it alive.
// In: the nodes to compute and which nodes are stored. Out: a Plan.

import type { Node } from '../graph/node.js';
import type { Plan, TensorSpec } from '../tile/tile.js';

/** Plans kept at most (the least recently used goes first). */
const PLANS = 64;
/** A plan of more tasks than this is not kept (planning it is small beside running it). */
const PLAN_TASKS = 4096;

interface Template {
  /** The plan with its tensors' nodes taken out. */
  readonly plan: Omit<Plan, 'outputs'>;
  /** Per tensor: the index in the graph's node list of the node it materialises, or -1. */
  readonly nodeOf: readonly number[];
  /** [index in the node list, tensor id] per requested node. */
  readonly outputs: readonly (readonly [number, number])[];
}

/** The key of the graph behind `todo` and its nodes in key order (stored nodes are leaves, named by their layout). */
export function graphKey(todo: readonly Node[], stored: (n: Node) => { readonly chunk: readonly number[] } | undefined): { key: string; nodes: Node[] } {
  const index = new Map<Node, number>();
  const nodes: Node[] = [];
  const parts: string[] = [];
  const ref = (n: Node): string => `#${index.get(n)}`;
  // iterative post-order: chains can be thousands of nodes long
  for (const root of todo) {
    const stack: [Node, boolean][] = [[root, false]];
    while (stack.length) {
      const [n, expanded] = stack.pop()!;
      if (index.has(n)) continue;
      const s = stored(n);
      if (s) {
        index.set(n, nodes.length);
        nodes.push(n);
        parts.push(`s:${n.dtype}:${n.shape}:${s.chunk}`);
        continue;
      }
      if (!expanded) {
        stack.push([n, true]);
        for (let i = n.inputs.length - 1; i >= 0; i--) if (!index.has(n.inputs[i]!)) stack.push([n.inputs[i]!, false]);
        continue;
      }
      index.set(n, nodes.length);
      nodes.push(n);
      parts.push(`${n.op}:${n.dtype}:${n.shape}:${n.chunk}:${JSON.stringify(n.attrs, exact)}(${n.inputs.map(ref).join(',')})`);
    }
  }
  return { key: `${parts.join(';')}|${todo.map(ref).join(',')}`, nodes };
}

/** JSON that tells apart what JSON merges: NaN, ±Infinity and -0 (all would be null or 0), and numbers from strings. */
function exact(_k: string, v: unknown): unknown {
  if (typeof v === 'number') return Number.isFinite(v) && !Object.is(v, -0) ? v : `n${String(Object.is(v, -0) ? '-0' : v)}`;
  if (typeof v === 'string') return `s${v}`;
  if (typeof v === 'bigint') return `b${v}`;
  return v;
}

export class PlanCache {
  private readonly kept = new Map<string, Template>();

  /** The plan for `todo`, from the cache (`reused`) or from `make` (which fuses and tiles). */
  plan(todo: readonly Node[], stored: (n: Node) => { readonly chunk: readonly number[] } | undefined, make: () => Plan): { plan: Plan; reused: boolean } {
    const { key, nodes } = graphKey(todo, stored);
    const t = this.kept.get(key);
    if (t) {
      this.kept.delete(key);
      this.kept.set(key, t); // most recently used last
      const plan: Plan = {
        ...t.plan,
        tensors: t.plan.tensors.map((s, i): TensorSpec => (t.nodeOf[i]! >= 0 ? { ...s, node: nodes[t.nodeOf[i]!]! } : s)),
        outputs: new Map(t.outputs.map(([n, id]) => [nodes[n]!, id])),
      };
      return { plan, reused: true };
    }
    const plan = make();
    const made = template(plan, nodes);
    if (made && plan.tasks.length <= PLAN_TASKS) {
      this.kept.set(key, made);
      if (this.kept.size > PLANS) this.kept.delete(this.kept.keys().next().value!);
    }
    return { plan, reused: false };
  }
}

/** `plan` with its nodes replaced by their index in `nodes`, or undefined if it names a node outside them. */
function template(plan: Plan, nodes: readonly Node[]): Template | undefined {
  const at = new Map(nodes.map((n, i) => [n, i]));
  const nodeOf = plan.tensors.map((s) => (s.node ? at.get(s.node) ?? NaN : -1));
  const outputs = [...plan.outputs].map(([n, id]) => [at.get(n) ?? NaN, id] as const);
  if (nodeOf.some(Number.isNaN) || outputs.some(([n]) => Number.isNaN(n))) return undefined;
  return {
    plan: { tensors: plan.tensors.map(({ node: _, ...s }) => s), kernels: plan.kernels, tasks: plan.tasks },
    nodeOf,
    outputs,
  };
}
