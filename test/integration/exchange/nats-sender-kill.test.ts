/**
 * A sender killed with SIGKILL loses nothing it flushed: a child process sends numbered URL batches
 * through a NatsExchange, calling `flush()` and printing the last flushed seq. The broker stops while
 * it sends (so later messages exist only in its outbox), and the child is killed during the outage.
 * Once the broker is back, a new endpoint on the same outbox directory publishes again what the
 * broker had not confirmed, and the receiver ends up with every seq up to the last one printed
 * (copies allowed). The kill follows test/helpers/scratch.ts `killWhileRunning`, with a hook to stop
 * the broker half-way.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { after, it } from 'node:test';
import type { Delivery } from '../../../src/exchange/exchange.js';
import { NatsExchange } from '../../../src/exchange/nats/nats-exchange.js';
import { startNatsServer } from '../../helpers/nats-server.js';

const server = await startNatsServer();
const root = mkdtempSync(join(tmpdir(), 'shoal-nats-kill-'));
after(() => rmSync(root, { recursive: true, force: true }));

const CHILD = `
  const [moduleUrl, url, outboxDir] = process.argv.slice(1);
  const { NatsExchange } = await import(moduleUrl);
  const ex = new NatsExchange({ servers: [url], crawlId: 'kill', nodeId: 'a', outboxDir, publishTimeoutMs: 1000 });
  await ex.start([0], () => {});
  for (let i = 1; ; i++) {
    const seq = ex.send(1, { kind: 'urls', from: 'a', urls: [{ url: 'http://h' + (i % 7) + '.test/' + i, depth: 1, fromUrl: null }] });
    if (i % 100 === 0) {
      await ex.flush();
      process.stdout.write(seq + '\\n');
    }
  }
`;

it('delivers every flushed message of a sender killed with SIGKILL once a new endpoint opens its outbox', { timeout: 50_000 }, async () => {
  const seen = new Set<number>();
  let wanted = Infinity;
  let resolveAll!: () => void;
  const all = new Promise<void>((resolve) => {
    resolveAll = resolve;
  });
  const isComplete = (): boolean => seen.size >= wanted && [...Array(wanted).keys()].every((i) => seen.has(i + 1));
  const deliver = (d: Delivery): void => {
    assert.equal(d.message.from, 'a');
    seen.add(d.message.seq);
    d.ack();
    if (seen.size >= wanted && isComplete()) resolveAll();
  };
  const receiver = new NatsExchange({ servers: [server.url], crawlId: 'kill', nodeId: 'b', outboxDir: join(root, 'b') });
  await receiver.start([1], deliver);

  const outboxDir = join(root, 'a');
  const moduleUrl = new URL('../../../src/exchange/nats/nats-exchange.js', import.meta.url).href;
  const flushed = await killWhileRunning(
    CHILD,
    [moduleUrl, server.url, outboxDir],
    [
      { atFlushed: 1_000, run: () => server.stop() },
      { atFlushed: 3_000, run: 'kill' },
    ],
  );
  assert.ok(flushed >= 3_000);
  await server.restart();

  const restarted = new NatsExchange({ servers: [server.url], crawlId: 'kill', nodeId: 'a', outboxDir, publishTimeoutMs: 1_000 });
  await restarted.start([0], () => {});
  wanted = flushed;
  if (isComplete()) resolveAll();
  await all;
  assert.equal(await restarted.published(10_000), true);
  assert.equal(restarted.stats().unconfirmed, 0);
  await Promise.all([restarted.close(), receiver.close()]);
});

/** What to do once the child reports `atFlushed`: run a step, or SIGKILL it (the last step). */
interface Step {
  readonly atFlushed: number;
  readonly run: (() => Promise<void>) | 'kill';
}

/**
 * Runs `script` in a child that prints its flushed seq per line, performs `steps` as the count passes
 * each threshold (in order, each awaited before the next), and resolves to the last seq printed
 * before the SIGKILL.
 */
function killWhileRunning(script: string, args: readonly string[], steps: readonly Step[]): Promise<number> {
  const proc = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  let flushed = 0;
  let next = 0;
  let isBusy = false;
  const advance = async (): Promise<void> => {
    while (!isBusy && next < steps.length && flushed >= (steps[next]?.atFlushed ?? Infinity)) {
      const step = steps[next++] as Step;
      if (step.run === 'kill') {
        proc.kill('SIGKILL');
        return;
      }
      isBusy = true;
      await step.run();
      isBusy = false;
    }
  };
  return new Promise((resolve, reject) => {
    proc.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const lines = out.split('\n');
      out = lines.pop() ?? '';
      for (const line of lines) flushed = Math.max(flushed, Number(line));
      advance().catch(reject);
    });
    proc.on('close', (_code, signal) => {
      if (signal === 'SIGKILL') resolve(flushed);
      else reject(new Error(`child ended with ${signal ?? 'no signal'}: ${out}`));
    });
  });
}
