/**
 * Pages that change over time (src/web/changes.ts): the share of changing pages, versions that follow
 * from the epoch alone (any order of questions gives the same answers), the truth of change times
 * agreeing with the versions, mean intervals near the drawn ones, and the served body, ETag,
 * Last-Modified and cache key moving with the version.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { PageChanges, versionedBody } from '../../../src/web/changes.js';
import { WebModel } from '../../../src/web/model.js';
import { respond, FaultState, encodePage } from '../../../src/web/respond.js';
import { changeTruth } from '../../../src/web/truth/changes.js';

const ORIGIN = Date.UTC(2025, 0, 1);
const model = new WebModel({
  seed: 5,
  hosts: 4,
  pages: 400,
  changes: { share: 0.5, minIntervalMs: 2000, maxIntervalMs: 20_000, epochMs: 1000, originMs: ORIGIN },
});

describe('page changes', () => {
  test('about the configured share of pages change', () => {
    const changes = new PageChanges(model, ORIGIN);
    let n = 0;
    for (let g = 0; g < model.pageCount; g++) if (changes.isChanging(g)) n++;
    assert.ok(n > 150 && n < 250, `${n} of 400 pages change`);
    const none = new PageChanges(new WebModel({ seed: 5, hosts: 4, pages: 400 }), ORIGIN);
    for (let g = 0; g < 400; g++) assert.equal(none.versionAt(g, ORIGIN + 1e9), 0);
  });

  test('versions follow from the time alone, rise, and agree with the change times', () => {
    const a = new PageChanges(model, ORIGIN);
    const b = new PageChanges(model, ORIGIN);
    const times = [0, 500, 1000, 1999, 2000, 7777, 30_000, 120_000].map((t) => ORIGIN + t);
    for (let g = 0; g < model.pageCount; g++) {
      let last = 0;
      for (const t of times) {
        const v = a.versionAt(g, t);
        assert.ok(v >= last);
        last = v;
        assert.equal(a.changeTimes(g, t).length, v);
      }
      // Asked backwards, a fresh instance gives the same answers.
      for (const t of [...times].reverse()) assert.equal(b.versionAt(g, t), a.changeTimes(g, t).length);
    }
    assert.equal(a.versionAt(0, ORIGIN - 5000), 0, 'nothing changes before the origin');
  });

  test('the mean time between changes is near each page’s drawn mean', () => {
    const changes = new PageChanges(model, ORIGIN);
    const horizonMs = 2_000_000;
    let ratios = 0;
    let n = 0;
    for (const p of changeTruth(model, changes, 80, ORIGIN + horizonMs).pages) {
      const k = p.changedAtMs.length;
      if (k < 20) continue;
      // Geometric gaps in epochs of 1 s: mean gap = epoch / perEpoch.
      ratios += horizonMs / k / (1000 / p.perEpoch);
      n++;
    }
    assert.ok(n > 50);
    assert.ok(Math.abs(ratios / n - 1) < 0.05, `mean observed / expected gap ${ratios / n}`);
  });

  test('a served page carries its version: body, ETag, Last-Modified and cache key', () => {
    const changes = new PageChanges(model, ORIGIN);
    const port = 8080;
    let g = 0;
    while (!(changes.isChanging(g) && changes.versionAt(g, ORIGIN + 60_000) >= 2)) g++;
    const t1 = changes.changeTimes(g, ORIGIN + 60_000)[1] as number;
    let now = t1 - 1;
    const ctx = {
      model,
      port,
      faults: new FaultState(),
      pageBody: (p: number) => encodePage(model, p, port),
      changes: { pages: changes, nowMs: () => now },
    };
    const before = respond(ctx, model.hostOf(g), model.path(g));
    now = t1;
    const after = respond(ctx, model.hostOf(g), model.path(g));
    assert.ok(before.kind === 'body' && after.kind === 'body');
    assert.notDeepEqual(before.body, after.body);
    assert.notEqual(before.headers['etag'], after.headers['etag']);
    assert.equal(after.headers['last-modified'], new Date(t1).toUTCString());
    assert.equal(after.cacheKey, `${g}@2`);
    assert.ok(after.body.toString('latin1').includes('revision 2:'));
    assert.deepEqual(versionedBody(Buffer.from('<html><body>x</body></html>'), 5, g, 0), Buffer.from('<html><body>x</body></html>'));
  });
});
