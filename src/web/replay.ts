/**
 * Replay mode: folders of real files (documentation packages, saved sites) served as virtual
 * hosts of the test web, so crawls and the simulator can run on real interlinked HTML.
 */
import { createReadStream } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, resolve, sep } from 'node:path';
import { ConfigError } from '../core/errors.js';
import { decodeTarget } from './respond.js';

/** A folder served as a host. */
export interface ReplayHost {
  readonly name: string;
  /** Absolute, symlink-free path of the folder. */
  readonly root: string;
  readonly ip: string;
}

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.htm': 'text/html; charset=utf-8',
  '.xhtml': 'application/xhtml+xml',
  '.css': 'text/css',
  '.js': 'text/javascript',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
  '.xml': 'application/xml',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.ico': 'image/x-icon',
  '.pdf': 'application/pdf',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.gz': 'application/gzip',
  '.zip': 'application/zip',
};

/** Checks each replay folder and assigns it an address (round-robin over `addresses`). */
export async function resolveReplayHosts(
  entries: readonly { readonly host: string; readonly root: string }[],
  addresses: readonly string[],
  taken: (name: string) => boolean,
): Promise<ReplayHost[]> {
  const out: ReplayHost[] = [];
  const problems: { path: string; message: string }[] = [];
  for (const [i, e] of entries.entries()) {
    if (taken(e.host) || out.some((r) => r.name === e.host)) {
      problems.push({ path: `replay.${i}.host`, message: `host ${e.host} is already served` });
      continue;
    }
    try {
      const root = await realpath(resolve(e.root));
      if (!(await stat(root)).isDirectory()) throw new Error('not a directory');
      out.push({ name: e.host, root, ip: addresses[i % addresses.length] as string });
    } catch (err) {
      problems.push({ path: `replay.${i}.root`, message: `${e.root}: ${(err as Error).message}` });
    }
  }
  if (problems.length > 0) throw new ConfigError(problems, { code: 'REPLAY_ROOT' });
  return out;
}

/** Serves one request from a replay folder; never leaves the folder (symlinks included). */
export async function serveReplay(
  host: ReplayHost,
  rawTarget: string,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<{ status: number; bytes: number }> {
  const fail = (status: number, msg: string): { status: number; bytes: number } => {
    res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(msg) });
    res.end(req.method === 'HEAD' ? undefined : msg);
    return { status, bytes: Buffer.byteLength(msg) };
  };
  const target = decodeTarget(rawTarget);
  if (target === null || target.path.includes('\0')) return fail(400, 'bad request target\n');
  let file = join(host.root, target.path);
  try {
    file = await realpath(file);
    if (file !== host.root && !file.startsWith(host.root + sep)) return fail(404, 'not found\n');
    let info = await stat(file);
    if (info.isDirectory()) {
      if (!target.path.endsWith('/')) {
        // The path as the client encoded it: a decoded one may hold characters a header cannot carry.
        const encodedPath = new URL(rawTarget, 'http://x').pathname;
        res.writeHead(301, { location: `${encodedPath}/${target.query}`, 'content-length': 0 });
        res.end();
        return { status: 301, bytes: 0 };
      }
      file = join(file, 'index.html');
      info = await stat(file);
    }
    if (!info.isFile()) return fail(404, 'not found\n');
    res.writeHead(200, {
      'content-type': TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream',
      'content-length': info.size,
      'last-modified': info.mtime.toUTCString(),
    });
    if (req.method === 'HEAD') {
      res.end();
      return { status: 200, bytes: 0 };
    }
    await new Promise<void>((done) => {
      const stream = createReadStream(file);
      stream.on('error', () => {
        res.destroy();
        done();
      });
      stream.on('end', done);
      stream.pipe(res);
    });
    return { status: 200, bytes: info.size };
  } catch {
    return fail(404, 'not found\n');
  }
}
