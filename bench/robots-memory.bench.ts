/**
 * `npm run bench:robots` (node --expose-gc --import tsx bench/robots-memory.bench.ts [--hosts N]):
 * what one host's robots.txt rules cost in memory once built (`parseRobotsTxt(...).forAgent()`,
 * what the node's robots cache keeps), against the estimate the cache bounds them by
 * (`RobotsRules.approxBytes`, `robots.cacheBytes`).
 *
 * For each shape (rules per file, pattern length), `--hosts` files (default 2,000) of distinct
 * rules are parsed and their rules kept; the JavaScript heap and ArrayBuffers in use after full
 * collections, before and after, give the bytes per host and per rule. Prints a table and a last
 * line `BENCH_ROBOTS_JSON {...}`.
 */
import { parseArgs } from 'node:util';
import { parseRobotsTxt } from '../src/robots/robots-txt.js';
import type { RobotsRules } from '../src/robots/rules.js';

const { values: args } = parseArgs({ options: { hosts: { type: 'string', default: '2000' } } });
const hosts = Number(args.hosts);
if (!Number.isInteger(hosts) || hosts < 10) throw new Error(`--hosts must be an integer of at least 10, got ${args.hosts}`);

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with node --expose-gc (npm run bench:robots does)');

function heldBytes(): number {
  for (let i = 0; i < 3; i++) gc?.();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

/** A robots.txt for host `h`: `rules` Disallow lines whose patterns are about `chars` long. */
function robotsTxt(h: number, rules: number, chars: number): string {
  const lines = ['User-agent: *'];
  for (let k = 0; k < rules; k++) {
    const head = `/h${h}/s${k}/`;
    lines.push(`Disallow: ${head}${'x'.repeat(Math.max(0, chars - head.length))}`);
  }
  return `${lines.join('\n')}\n`;
}

const SHAPES: readonly { rules: number; chars: number }[] = [
  { rules: 1, chars: 18 },
  { rules: 5, chars: 18 },
  { rules: 20, chars: 18 },
  { rules: 100, chars: 18 },
  { rules: 20, chars: 60 },
];

const rows = SHAPES.map(({ rules, chars }) => {
  const kept: RobotsRules[] = [];
  const before = heldBytes();
  for (let h = 0; h < hosts; h++) kept.push(parseRobotsTxt(robotsTxt(h, rules, chars)).forAgent('shoalbot'));
  const perHost = (heldBytes() - before) / hosts;
  const estimate = kept.reduce((sum, r) => sum + r.approxBytes, 0) / hosts;
  if (kept.length !== hosts) throw new Error('lost rules');
  return { rules, chars, perHost, perRule: perHost / rules, estimate, estimateOverMeasured: estimate / perHost };
});

process.stdout.write(`robots.txt rules kept for ${hosts.toLocaleString('en-US')} hosts per shape; node ${process.version}\n\n`);
process.stdout.write('| rules per host | pattern chars | bytes per host | bytes per rule | approxBytes | estimate ÷ measured |\n');
process.stdout.write('|---:|---:|---:|---:|---:|---:|\n');
for (const r of rows) {
  process.stdout.write(
    `| ${r.rules} | ${r.chars} | ${Math.round(r.perHost).toLocaleString('en-US')} | ${Math.round(r.perRule)} | ` +
      `${Math.round(r.estimate).toLocaleString('en-US')} | ${r.estimateOverMeasured.toFixed(2)} |\n`,
  );
}
process.stdout.write(`BENCH_ROBOTS_JSON ${JSON.stringify({ hosts, node: process.version, rows })}\n`);
