/**
 * The behaviours that stall crawlers, over real sockets: slow-drip pages (the body at a few bytes a
 * second, cut off when the client leaves, dropped when the server closes), the endless pagination
 * chain, and hosts whose address refuses connections; what the request log records of each.
 *
 * No timing assertions: a drip is checked against an upper bound that cannot fail by accident
 * (the server cannot have sent more than the rate allows since the client started its clock).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WebConfigInput } from '../../../src/web/config.js';
import { addressPool } from '../../../src/web/hosts.js';
import { hostileParts } from '../../../src/web/hostile.js';
import { pageLinks } from '../../../src/web/links.js';
import { PageKind } from '../../../src/web/model.js';
import { WEB_PRESETS } from '../../../src/web/presets.js';
import type { RequestRecord } from '../../../src/web/request-log.js';
import { encodePage } from '../../../src/web/respond.js';
import { startTestWeb, type TestWeb } from '../../../src/web/start.js';
import { exportTruth } from '../../../src/web/truth/export.js';
import { Reach } from '../../../src/web/truth/format.js';
import { readTruth } from '../../../src/web/truth/read.js';
import { get } from '../../helpers/http.js';
import { anchorHrefs, fetchPage, fetchPath } from './support.js';

/** A GET over a raw socket: the head, then every body byte as it arrives, with its arrival time. */
class RawDrip {
  readonly socket: Socket;
  /** When the client started (before connecting): the server cannot have started its drip earlier. */
  readonly startMs = performance.now();
  head = '';
  body = Buffer.alloc(0);
  /** [ms since startMs, body bytes so far] at each chunk. */
  readonly arrivals: [number, number][] = [];
  readonly closed: Promise<void>;
  private buf = Buffer.alloc(0);
  private waiters: (() => void)[] = [];

  constructor(ip: string, port: number, host: string, path: string) {
    this.socket = connect({ host: ip, port });
    this.socket.on('connect', () => this.socket.write(`GET ${path} HTTP/1.1\r\nHost: ${host}:${port}\r\nConnection: close\r\n\r\n`));
    this.socket.on('data', (chunk: Buffer) => {
      if (this.head === '') {
        this.buf = Buffer.concat([this.buf, chunk]);
        const end = this.buf.indexOf('\r\n\r\n');
        if (end < 0) return;
        this.head = this.buf.subarray(0, end).toString('latin1');
        this.body = this.buf.subarray(end + 4);
      } else {
        this.body = Buffer.concat([this.body, chunk]);
      }
      this.arrivals.push([performance.now() - this.startMs, this.body.length]);
      for (const w of this.waiters.splice(0)) w();
    });
    this.socket.on('error', () => {});
    this.closed = new Promise((resolve) => this.socket.on('close', () => resolve()));
  }

  /** Resolves once the head and at least `n` body bytes have arrived. */
  async waitFor(n: number): Promise<void> {
    while (this.head === '' || this.body.length < n) await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  get status(): number {
    return Number(/^HTTP\/1\.1 (\d{3})/.exec(this.head)?.[1]);
  }

  get contentLength(): number {
    return Number(/\r\ncontent-length: (\d+)/i.exec(this.head)?.[1]);
  }
}

/** Resolves with the first finished request `pred` accepts (subscribe before sending it). */
function nextRecord(web: TestWeb, pred: (r: RequestRecord) => boolean): Promise<RequestRecord> {
  return new Promise((resolve) => {
    const stop = web.log.subscribe((r) => {
      if (!pred(r)) return;
      stop();
      resolve(r);
    });
  });
}

const BASE = {
  seed: 3,
  hosts: 6,
  pages: 120,
  server: { addressCount: 2 },
  latency: { slowHostRate: 0 },
  duplicates: { mirrorHostRate: 0 },
} satisfies WebConfigInput;

describe('slow drip pages', () => {
  /** 10 bytes a second, for a minute: longer than any of these tests waits. */
  const RATE = 10;
  let web: TestWeb;
  let drips: readonly number[];

  before(async () => {
    web = await startTestWeb({
      ...BASE,
      faults: {
        dripPages: [
          { host: 0, page: 1 },
          { host: 0, page: 9 },
        ],
        dripBytesPerSecond: RATE,
        dripMs: 60_000,
      },
    });
    drips = hostileParts(web.model).dripPages;
  });
  after(async () => {
    await web.close();
  });

  test('the listed pages and only they drip', () => {
    const h = web.model.hosts[0];
    assert.ok(h !== undefined);
    assert.deepEqual(drips, [h.firstPage + 1, h.firstPage + 9]);
  });

  test('send the head at once, then the body no faster than the rate, and stop when the client goes away', async () => {
    const g = drips[0] as number;
    const h = web.model.hostOf(g);
    const full = encodePage(web.model, g, web.port).body;
    const ended = nextRecord(web, (r) => r.page === g);
    const raw = new RawDrip(h.ip, web.port, h.name, web.model.path(g));
    await raw.waitFor(5);
    assert.equal(raw.status, 200);
    assert.equal(raw.contentLength, full.length, 'the head announces the whole body');
    assert.ok(full.length > 100);
    for (const [ms, bytes] of raw.arrivals) {
      assert.ok(bytes <= Math.floor((ms * RATE) / 1000), `${bytes} bytes after ${ms.toFixed(0)} ms: faster than ${RATE} B/s`);
    }
    assert.ok(raw.arrivals.length >= 2, 'the body came in pieces');
    assert.deepEqual(raw.body, full.subarray(0, raw.body.length), 'the bytes are the page, in order');
    raw.socket.destroy();
    const r = await ended;
    assert.deepEqual([r.status, r.outcome, r.isAborted, r.trap], [200, 'drip', true, null]);
    assert.ok(r.bytes >= raw.body.length && r.bytes < full.length, `${r.bytes} bytes sent`);
  });

  test('HEAD gets the head alone', async () => {
    const g = drips[1] as number;
    const ended = nextRecord(web, (r) => r.page === g && r.method === 'HEAD');
    const r = await get(web.url(g), web.hostsMap, { method: 'HEAD' });
    assert.equal(r.status, 200);
    assert.equal(Number(r.headers['content-length']), encodePage(web.model, g, web.port).body.length);
    assert.equal(r.body.length, 0);
    assert.deepEqual([(await ended).outcome, (await ended).isAborted], ['drip', false]);
  });

  test('other pages answer as usual', async () => {
    const h = web.model.hosts[0];
    assert.ok(h !== undefined);
    const r = await fetchPage(web, h.firstPage + 2);
    assert.equal(r.status, 200);
    assert.ok(r.body.length > 100);
  });
});

describe('a drip that runs its course', () => {
  let web: TestWeb;

  before(async () => {
    web = await startTestWeb({ ...BASE, faults: { dripPages: [{ host: 1, page: 1 }], dripBytesPerSecond: 1, dripMs: 300 } });
  });
  after(async () => {
    await web.close();
  });

  test('sends the rest of the body after dripMs: the whole page', async () => {
    const g = (web.model.hosts[1]?.firstPage ?? 0) + 1;
    assert.equal(web.model.pageKind[g], PageKind.drip);
    const ended = nextRecord(web, (r) => r.page === g);
    const r = await fetchPage(web, g);
    const full = encodePage(web.model, g, web.port).body;
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, full);
    const rec = await ended;
    assert.deepEqual([rec.outcome, rec.bytes, rec.isAborted], ['drip', full.length, false]);
  });
});

describe('many drips in flight', () => {
  test('do not keep close() waiting: every drip is cut and logged', { timeout: 30_000 }, async () => {
    // Drips that would last two minutes; the test's timeout is a quarter of that.
    const web = await startTestWeb({ ...BASE, faults: { dripRate: 0.5, dripMs: 120_000 } });
    const drips = hostileParts(web.model).dripPages.slice(0, 40);
    assert.ok(drips.length >= 20, `${drips.length} drip pages`);
    const raws = drips.map((g) => {
      const h = web.model.hostOf(g);
      return new RawDrip(h.ip, web.port, h.name, web.model.path(g));
    });
    await Promise.all(raws.map((r) => r.waitFor(0)));
    await web.close();
    await Promise.all(raws.map((r) => r.closed));
    const records = web.log.entries().filter((r) => r.outcome === 'drip');
    assert.equal(records.length, drips.length);
    assert.ok(
      records.every((r) => r.isAborted && r.status === 200),
      'every drip ended by close()',
    );
    assert.deepEqual(
      records.map((r) => r.page).sort((a, b) => a - b),
      drips,
    );
  });
});

describe('the endless pagination chain', () => {
  let web: TestWeb;
  let host: string;

  before(async () => {
    web = await startTestWeb({ ...BASE, traps: { hostRate: 0, robotsDisallowRate: 0, hosts: [{ host: 2, kind: 'pagination' }] } });
    host = web.model.hosts[2]?.name ?? '';
  });
  after(async () => {
    await web.close();
  });

  test('the host’s home page links to /q?p=1, and page N links to N + 1 (and back to N - 1), forever', async () => {
    const parts = hostileParts(web.model);
    assert.deepEqual(parts.trapHosts.pagination, [2]);
    assert.deepEqual(Object.values(parts.trapHosts).flat(), [2], 'no other trap');
    const home = await fetchPath(web, host, '/');
    assert.ok(anchorHrefs(home.body.toString()).includes('/q?p=1'));
    const before = web.log.trapRequests().get(host)?.get('pagination') ?? 0;
    let url = '/q?p=1';
    for (let n = 1; n <= 25; n++) {
      const r = await fetchPath(web, host, url);
      assert.equal(r.status, 200, url);
      const trapLinks = anchorHrefs(r.body.toString()).filter((x) => x.startsWith('/q'));
      assert.deepEqual(trapLinks, n === 1 ? ['/q?p=2'] : [`/q?p=${n - 1}`, `/q?p=${n + 1}`], url);
      url = trapLinks[trapLinks.length - 1] as string;
    }
    assert.equal((web.log.trapRequests().get(host)?.get('pagination') ?? 0) - before, 25);
    const records = web.log.entries().filter((r) => r.host === host && r.path.startsWith('/q?'));
    assert.ok(records.length >= 25 && records.every((r) => r.outcome === 'trap' && r.trap === 'pagination' && r.page === -1));
    const far = await fetchPath(web, host, '/q?p=9007199254740990');
    assert.ok(anchorHrefs(far.body.toString()).includes('/q?p=9007199254740991'), 'valid up to the largest safe integer');
  });

  test('only the canonical form is a trap page; other hosts have none', async () => {
    for (const path of ['/q', '/q?p=0', '/q?p=01', '/q?p=-1', '/q?p=1&x=2', '/q?x=1', '/q/?p=1', '/q?p=9007199254740991']) {
      const r = await fetchPath(web, host, path);
      assert.equal(r.status, 404, path);
    }
    const other = web.model.hosts[0]?.name ?? '';
    assert.equal((await fetchPath(web, other, '/q?p=1')).status, 404);
  });
});

describe('hosts that refuse connections', () => {
  let web: TestWeb;
  let refusing: readonly number[];
  const CONFIG = {
    ...BASE,
    hosts: 12,
    pages: 600,
    server: { addressCount: 3, proxyPort: 0 },
    faults: { refusingHosts: [2], refusingHostRate: 0.2 },
  } satisfies WebConfigInput;

  before(async () => {
    web = await startTestWeb(CONFIG);
    refusing = hostileParts(web.model).refusingHosts;
  });
  after(async () => {
    await web.close();
  });

  test('map to loopback addresses outside the pool, that no host and not the proxy uses', () => {
    assert.ok(refusing.includes(2) && refusing.length >= 2, `refusing hosts ${refusing.join(', ')}: the listed one and drawn ones`);
    const pool = new Set(addressPool(web.model.config));
    const served = new Set(web.model.hosts.filter((h) => !h.isRefusing).map((h) => h.ip));
    for (const i of refusing) {
      const h = web.model.hosts[i];
      assert.ok(h !== undefined && h.isRefusing);
      const ip = web.hostsMap.get(h.name) ?? '';
      assert.equal(ip, h.ip);
      assert.match(ip, /^127\./);
      assert.ok(!pool.has(ip) && !served.has(ip) && ip !== web.model.config.server.proxyAddress, `${h.name} on ${ip}`);
    }
  });

  test('refuse every connection at once (ECONNREFUSED)', async () => {
    for (const i of refusing) {
      const ip = web.model.hosts[i]?.ip ?? '';
      const code = await new Promise<string>((resolve) => {
        const s = connect({ host: ip, port: web.port });
        s.on('connect', () => {
          s.destroy();
          resolve('connected');
        });
        s.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
      });
      assert.equal(code, 'ECONNREFUSED', ip);
    }
  });

  test('are linked from other hosts’ pages, and are never seeds', async () => {
    const r = refusing[0] as number;
    const linking = [];
    for (let g = 0; g < web.model.pageCount && linking.length < 3; g++) {
      if (web.model.pageHost[g] === r || web.model.pageKind[g] !== PageKind.ok) continue;
      if (pageLinks(web.model, g).some((l) => web.model.pageHost[l.target] === r)) linking.push(g);
    }
    assert.ok(linking.length > 0, 'some page of another host links to the refusing host');
    const name = web.model.hosts[r]?.name ?? '';
    for (const g of linking) {
      const hrefs = anchorHrefs((await fetchPage(web, g)).body.toString());
      assert.ok(
        hrefs.some((x) => x.toLowerCase().includes(name)),
        `${web.url(g)} names ${name}`,
      );
    }
    const seedHosts = web.model.seedPages().map((g) => web.model.pageHost[g]);
    assert.ok(seedHosts.length > 0 && seedHosts.every((i) => !refusing.includes(i as number)));
  });

  test('the forward proxy answers 502 for them', async () => {
    const h = web.model.hosts[refusing[0] as number];
    assert.ok(h !== undefined && web.proxyUrl !== null);
    const ended = nextRecord(web, (r) => r.host === h.name);
    const r = await get(`http://${h.name}:${web.port}/`, web.hostsMap, { proxy: web.proxyUrl });
    assert.equal(r.status, 502);
    assert.equal((await ended).outcome, 'refused');
  });
});

describe('the hostile preset', () => {
  test('says in its truth where each behaviour is, and a polite crawl from the seeds meets each', async () => {
    const web = await startTestWeb(WEB_PRESETS.hostile);
    const dir = await mkdtemp(join(tmpdir(), 'shoal-hostile-'));
    try {
      const m = web.model;
      const parts = hostileParts(m);
      await exportTruth(m, join(dir, 'truth'), { port: web.port });
      const t = await readTruth(join(dir, 'truth'));
      const drip = t.manifest.pageKinds.indexOf('drip');
      assert.deepEqual(
        [...t.kind.keys()].filter((g) => t.kind[g] === drip),
        parts.dripPages,
      );
      assert.deepEqual(
        t.hosts.filter((h) => h.trap === 'pagination').map((h) => [h.index, h.isTrapBlocked]),
        [[2, false]],
      );
      assert.deepEqual(
        t.hosts.filter((h) => h.isRefusing).map((h) => h.index),
        parts.refusingHosts,
      );
      for (const g of parts.dripPages) assert.equal(t.reach[g], Reach.polite, `drip page ${g} is fetched`);
      const trapHost = t.hosts[2];
      const refusing = t.hosts[3];
      assert.ok(trapHost !== undefined && refusing !== undefined);
      assert.equal(t.reach[trapHost.firstPage], Reach.polite, 'the trap host’s home page (with the trap link) is fetched');
      assert.equal(refusing.ip, web.hostsMap.get(refusing.name));
      for (let g = refusing.firstPage; g < refusing.firstPage + refusing.pageCount; g++) {
        assert.equal(t.status[g], 0);
        assert.notEqual(t.reach[g], Reach.polite);
      }
      assert.equal(t.reach[refusing.firstPage], Reach.linked, 'the refusing host is linked');
    } finally {
      await web.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
