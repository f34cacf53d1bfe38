// What Tessera needs from its platform. One implementation per host
// (./node.ts, ./browser.ts); the rest of the code imports "#host" and runs
// unchanged in Node, a page and a Web Worker.

/** A compute thread of the local pool, as the pool sees it. */
export interface Thread {
  /** Sends `m`; the buffers in `transfer` move to the thread (the sender's views of them become empty). */
  post(m: unknown, transfer?: Transferable[]): void;
  onMessage(f: (m: any) => void): void;
  onError(f: (e: Error) => void): void;
  terminate(): Promise<void>;
  /** Whether the thread keeps the process alive (Node: while it has work; a browser has no such notion). */
  hold?(on: boolean): void;
}

/** The pool's end of a compute thread, as the thread sees it. */
export interface ThreadPort {
  post(m: unknown, transfer?: Transferable[]): void;
  onMessage(f: (m: any) => void): void;
}

/** A WebSocket as the mesh uses it (the page's, or the `ws` package's). */
export interface WebSocketLike {
  readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((e: unknown) => void) | null;
  onmessage: ((e: { data: unknown }) => void) | null;
  onclose: ((e: { code: number; reason: string }) => void) | null;
  onerror: ((e: unknown) => void) | null;
}

/** The network: a WebSocket constructor and, outside browsers, a WebRTC implementation for simple-peer. */
export interface Net {
  readonly WebSocket: new (url: string) => WebSocketLike;
  readonly wrtc?: unknown;
}

/** A file system as the array readers and writers use it (api/io.ts, dataframe/read.ts). */
export interface Files {
  read(path: string | URL): Promise<Uint8Array>;
  write(path: string | URL, bytes: Uint8Array): Promise<void>;
  /** The file's length in bytes. */
  size(path: string | URL): Promise<number>;
  /** Bytes [from, to) of the file (fewer past its end), read without reading the rest. */
  readRange(path: string | URL, from: number, to: number): Promise<Uint8Array>;
}

/** A small text record kept across sessions (a coordinator's record of its peers, mesh/trust.ts). */
export interface TextStore {
  read(): string | undefined;
  /** Best effort: a record that cannot be written stays in memory. */
  write(text: string): void;
}

export interface Host {
  readonly name: 'node' | 'browser';
  /** Compute threads the local pool starts by default (0: run tasks inline). */
  cores(): number;
  /** Engine flags, set once before the first kernel compiles. */
  tuneEngine(): void;
  /**
   * Starts a thread running `script`, a module of the package named by its path under dist/ (default
   * 'runtime/worker.js', the compute pool's worker; read_csv's is 'dataframe/parse-thread.js').
   */
  spawnThread(script?: string): Thread;
  threadPort(): ThreadPort;
  /** The WebGPU entry point, or undefined where there is none. */
  gpu(): Promise<GPU | undefined>;
  /** A text file of the package (the WGSL shaders), by URL. */
  readText(url: URL): Promise<string>;
  net(): Promise<Net>;
  /** Whole-file reads and writes by path, where the host has files (Node); undefined in a browser. */
  files(): Files | undefined;
  /** An environment variable, where the host has them (Node); undefined in a browser. */
  env(name: string): string | undefined;
  /** A coordinator's journal in a directory, where the host has files (Node). */
  fileJournal(dir: string): Promise<Journal | undefined>;
  /**
   * The text record `name`: a file under `dir` in Node (none without a dir),
   * the page's localStorage in a browser (none with a dir, or without storage).
   */
  textStore(name: string, dir?: string): TextStore | undefined;
  /**
   * Where this machine keeps what Tessera learns across runs (a room's trust
   * records) when no directory is given: TESSERA_CACHE, else
   * $XDG_CACHE_HOME/tessera or ~/.cache/tessera (Node); undefined in a browser.
   */
  cacheDir(): string | undefined;
}

// What a coordinator writes down so that a job outlives it (mesh/journal.ts);
// here because a host may keep it in a file (node-journal.ts).
export interface Commit {
  readonly peer: string;
  readonly digests: string;
  /** The result came from a GPU (its re-runs compare within a tolerance). */
  readonly gpu?: boolean;
}

export interface JournalRecord {
  /** The coordinator that wrote it. */
  readonly owner: string;
  readonly commits: Map<number, Commit>;
}

export interface Journal {
  load(job: string): Promise<JournalRecord | undefined>;
  begin(job: string, owner: string): void;
  commit(job: string, task: number, c: Commit): void;
  uncommit(job: string, task: number): void;
  /** The job finished: forget it. */
  end(job: string): void;
}
