/**
 * Small pieces the NATS test helper and the benchmarks share (no node:test here, so benchmarks
 * may import it): a free loopback port, and where the nats-server executable is.
 */
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { delimiter, join } from 'node:path';

/** The nats-server executable, from PATH or the sbin directories Debian installs it in; null when there is none. */
export function findNatsServer(): string | null {
  const dirs = [...(process.env['PATH'] ?? '').split(delimiter), '/usr/sbin', '/usr/local/sbin', '/usr/local/bin', '/usr/bin'];
  for (const dir of dirs) {
    if (dir === '') continue;
    const candidate = join(dir, 'nats-server');
    if (existsSync(candidate)) return candidate;
  }
  return null;
}

/** A loopback port nobody listens on right now (the kernel picks it; it is released at once). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error('no free port'))));
    });
  });
}
