// Tessera's root export: the NumPy-like namespace `mt`, the pandas-like `md`, the scikit-learn-like `learn`, session `options`,
// and `session`: this machine's cores, or, given a signaling server, a room
// and a token, a mesh of peers (mesh/session.ts). `volunteer` lends this
// process or tab to a room as a worker; `observe` watches a room (dashboards).

import * as mt from './api/tensor.js';
import * as md from './dataframe/index.js';
import * as learn from './learn/index.js';
import type { Session, SessionOptions } from './mesh/session.js';

export { mt, md, learn };
export const options = mt.options;

export interface LocalSession { execute: typeof mt.execute; close: () => Promise<void> }

/** The local session (every core of this machine), or with `opts` a mesh session joined to a room. */
export async function session(): Promise<LocalSession>;
export async function session(opts: SessionOptions): Promise<Session>;
export async function session(opts?: SessionOptions): Promise<LocalSession | Session> {
  if (!opts) return { execute: mt.execute, close: mt.shutdown };
  const { Session } = await import('./mesh/session.js');
  return Session.open(opts);
}
export { volunteer, Volunteer, type VolunteerOptions, type VolunteerStats } from './mesh/volunteer.js';
export { observe, MeshView, type JobView, type ObserveOptions, type PeerView, type RingView } from './mesh/observe.js';
export type { Tensor, NDArray } from './api/tensor.js';
export type { JobProgress, JobEvent, Caps } from './mesh/state.js';
export type { Session, SessionOptions } from './mesh/session.js';
export type { MeshReport } from './mesh/coordinator.js';
// placement policies for `session({ coordinator: { placement: () => new Lshs() } })` (the locality rule is the default)
export { Locality, type Placement, type TaskView, type WorkerView } from './mesh/placement.js';
export { Lshs } from './mesh/lshs.js';
