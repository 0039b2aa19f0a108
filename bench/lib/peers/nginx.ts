/**
 * The peers bench's web server: a private nginx serving a documentation folder on loopback, started
 * from a configuration written into a temporary directory and stopped with the bench.
 *
 * One worker, so that its CPU time is easy to read and the crawlers share one server process alike;
 * no access log (the server's disk writes are not the crawlers'); sendfile; keep-alive connections
 * that are never closed by a request count, so that each crawler keeps its 8 connections for the
 * whole crawl. The documentation packages are symlink farms (OpenJDK's `api` is a link into
 * `openjdk-17-jre-headless`), hence `disable_symlinks off`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** A running nginx. */
export interface Nginx {
  /** `http://127.0.0.1:PORT`. */
  readonly origin: string;
  /** CPU time (user + system) of the master and worker processes so far, ms. */
  cpuMs(): number;
  /** Stops nginx and removes its directory; idempotent. */
  stop(): Promise<void>;
  /** The same, synchronously, for an exit handler: kills nginx without waiting. */
  kill(): void;
}

const MIME_TYPES = '/etc/nginx/mime.types';
const READY_TIMEOUT_MS = 10_000;
/** Clock ticks per second of /proc/PID/stat's times (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** A free TCP port on 127.0.0.1 (free when asked: nginx binds it a moment later). */
async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

function config(dir: string, root: string, port: number): string {
  // mime.types gives text/html to .html; without the Debian file, the few types a docs site needs.
  const types = existsSync(MIME_TYPES)
    ? `include ${MIME_TYPES};`
    : 'types { text/html html htm; text/css css; application/javascript js; image/png png; image/gif gif; image/svg+xml svg; }';
  const temp = join(dir, 'temp');
  return `daemon off;
worker_processes 1;
pid ${join(dir, 'nginx.pid')};
error_log ${join(dir, 'error.log')} warn;
events { worker_connections 1024; }
http {
  ${types}
  default_type application/octet-stream;
  access_log off;
  sendfile on;
  tcp_nopush on;
  keepalive_requests 10000000;
  keepalive_timeout 120s;
  client_body_temp_path ${temp}/body;
  proxy_temp_path ${temp}/proxy;
  fastcgi_temp_path ${temp}/fastcgi;
  uwsgi_temp_path ${temp}/uwsgi;
  scgi_temp_path ${temp}/scgi;
  server {
    listen 127.0.0.1:${port};
    root ${root};
    disable_symlinks off;
  }
}
`;
}

/** Process ids of nginx's workers: the children of the master. */
function childPids(parent: number): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === parent) pids.push(Number(name));
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return pids;
}

function processCpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(f[11]) + Number(f[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/** Waits until nginx answers `probePath` with a 200, or fails with its error log. */
async function waitReady(child: ChildProcess, origin: string, probePath: string, errorLog: string): Promise<void> {
  // nginx in the foreground says nothing when it is listening: ask it, a few times a second.
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let lastError = '';
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) break;
    try {
      const res = await fetch(origin + probePath);
      await res.arrayBuffer();
      if (res.status === 200) return;
      lastError = `${probePath} answered ${res.status}`;
    } catch (err) {
      lastError = (err as Error).message;
    }
    await sleep(50);
  }
  const log = existsSync(errorLog) ? readFileSync(errorLog, 'utf8').trim() : '';
  throw new Error(`nginx did not serve ${origin}${probePath} (${lastError})${log === '' ? '' : `:\n${log}`}`);
}

/** Starts nginx on a free loopback port with `root` as its document root; resolves once `probePath` answers 200. */
export async function startNginx(nginx: string, root: string, probePath: string): Promise<Nginx> {
  const dir = mkdtempSync(join(tmpdir(), 'shoal-bench-peers-nginx-'));
  mkdirSync(join(dir, 'temp'));
  const port = await freePort();
  const conf = join(dir, 'nginx.conf');
  const errorLog = join(dir, 'error.log');
  writeFileSync(conf, config(dir, root, port));
  // `-e` sets the error log nginx uses before it has read the configuration (else /var/log/nginx).
  const child = spawn(nginx, ['-p', dir, '-c', conf, '-e', errorLog], { stdio: ['ignore', 'ignore', 'inherit'] });
  const origin = `http://127.0.0.1:${port}`;
  let isStopped = false;
  const signal = (): void => {
    if (!isStopped && child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    isStopped = true;
  };
  const kill = (): void => {
    signal();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitReady(child, origin, probePath, errorLog);
  } catch (err) {
    kill();
    throw err;
  }
  const pid = child.pid as number;
  const workers = childPids(pid);
  return {
    origin,
    cpuMs: () => processCpuMs(pid) + workers.reduce((sum, w) => sum + processCpuMs(w), 0),
    async stop() {
      const exited = child.exitCode === null && child.signalCode === null ? once(child, 'exit') : Promise.resolve();
      signal();
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
    kill,
  };
}
