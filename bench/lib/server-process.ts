/**
 * The parent's handle on a forked test-web server child: start it, ask it questions over IPC,
 * stop it (gracefully, so a CPU profile gets written), and kill it whatever happens.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import {
  isChildMessage,
  type ChildMessage,
  type PageQuery,
  type ParentMessage,
  type PageRef,
  type ReadyInfo,
  type ServerStats,
} from './protocol.js';
import type { ServerSpecName } from './scenarios.js';

const READY_TIMEOUT_MS = 60_000;
const ANSWER_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 10_000;
const KILL_GRACE_MS = 2_000;

/** Options of {@link ServerProcess.start}. */
export interface ServerProcessOptions {
  /** Script the child runs (it must call `serveChild` when given `--serve NAME`). */
  readonly script: string;
  /** Write a V8 CPU profile of the child into this folder, or null. */
  readonly profileDir: string | null;
}

type Answer = Extract<ChildMessage, { id: number }>;
type Question = Extract<ParentMessage, { id: number }>;

interface Pending {
  readonly resolve: (msg: Answer) => void;
  readonly reject: (err: Error) => void;
}

/** Every child still running, so that exit and signal handlers can kill them. */
const live = new Set<ChildProcess>();

/** Kills every server child still running (for exit and signal handlers; children exit cleanly on SIGTERM). */
export function killAllServers(): void {
  for (const child of live) child.kill('SIGTERM');
  live.clear();
}

/** A running server child. */
export class ServerProcess {
  private nextId = 1;
  private readonly waiting = new Map<number, Pending>();
  private failure: Error | null = null;

  private constructor(
    private readonly child: ChildProcess,
    readonly info: ReadyInfo,
    readonly spawnToReadyMs: number,
  ) {
    child.on('message', (msg: unknown) => {
      if (!isChildMessage(msg) || !('id' in msg)) return;
      this.waiting.get(msg.id)?.resolve(msg);
      this.waiting.delete(msg.id);
    });
  }

  /** Forks the child for `spec` and waits until it listens. */
  static async start(spec: ServerSpecName, options: ServerProcessOptions): Promise<ServerProcess> {
    // One folder per configuration: each thread (main, module-loader hooks) writes its own profile.
    const profile = options.profileDir === null ? [] : ['--cpu-prof', `--cpu-prof-dir=${join(options.profileDir, spec)}`];
    const t0 = performance.now();
    const child = fork(options.script, ['--serve', spec], {
      execArgv: ['--import', 'tsx', ...profile],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    live.add(child);
    child.once('exit', () => live.delete(child));
    try {
      const info = await waitReady(child);
      const server = new ServerProcess(child, info, performance.now() - t0);
      child.once('exit', (code, signal) => server.fail(new Error(`server child exited (code ${code}, signal ${signal})`)));
      child.on('message', (msg: unknown) => {
        if (isChildMessage(msg) && msg.type === 'error') server.fail(new Error(`server child failed: ${msg.message}`));
      });
      return server;
    } catch (err) {
      child.kill('SIGKILL');
      throw err;
    }
  }

  /** Pages to request (sampled by the child, which has the model). */
  async pages(query: PageQuery): Promise<readonly PageRef[]> {
    const msg = await this.ask((id) => ({ type: 'pages', id, query }));
    if (msg.type !== 'pages') throw new Error(`unexpected answer ${msg.type}`);
    return msg.pages;
  }

  /** The child's CPU time and memory now. */
  async stats(): Promise<ServerStats> {
    const msg = await this.ask((id) => ({ type: 'stats', id }));
    if (msg.type !== 'stats') throw new Error(`unexpected answer ${msg.type}`);
    return msg.stats;
  }

  /** Empties the server's request log (kept records only: counts and statistics stay). */
  async clearLog(): Promise<void> {
    const msg = await this.ask((id) => ({ type: 'clear-log', id }));
    if (msg.type !== 'done') throw new Error(`unexpected answer ${msg.type}`);
  }

  /** Asks the child to close and exit; kills it if it does not within a few seconds. */
  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    try {
      await this.ask((id) => ({ type: 'stop', id }));
      await withTimeout(exited, STOP_TIMEOUT_MS, 'server child did not exit');
    } catch {
      // Killed below.
    } finally {
      this.kill();
    }
  }

  /** Kills the child now (idempotent). */
  kill(): void {
    const child = this.child;
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      // A child stuck in synchronous work never runs its SIGTERM handler.
      setTimeout(() => {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      }, KILL_GRACE_MS).unref();
    }
    live.delete(this.child);
  }

  private fail(err: Error): void {
    this.failure ??= err;
    for (const pending of this.waiting.values()) pending.reject(err);
    this.waiting.clear();
  }

  private ask(make: (id: number) => Question): Promise<Answer> {
    if (this.failure !== null) return Promise.reject(this.failure);
    const id = this.nextId++;
    const answer = new Promise<Answer>((resolve, reject) => this.waiting.set(id, { resolve, reject }));
    this.child.send(make(id));
    return withTimeout(answer, ANSWER_TIMEOUT_MS, 'server child did not answer').finally(() => this.waiting.delete(id));
  }
}

function waitReady(child: ChildProcess): Promise<ReadyInfo> {
  const ready = new Promise<ReadyInfo>((resolve, reject) => {
    child.on('message', (msg: unknown) => {
      if (!isChildMessage(msg)) return;
      if (msg.type === 'ready') resolve(msg.info);
      else if (msg.type === 'error') reject(new Error(`server child failed: ${msg.message}`));
    });
    child.once('exit', (code, signal) => reject(new Error(`server child exited before listening (code ${code}, signal ${signal})`)));
    child.once('error', reject);
  });
  return withTimeout(ready, READY_TIMEOUT_MS, 'server child did not start');
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} within ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}
