/**
 * Duplicate detection on the test web's own duplicates (docs/test-web.md §5.14), on the rendered
 * pages with their tags stripped:
 *
 * - exact mirror hosts serve their original's bytes: same payload digest, same text digest;
 * - a near-duplicate repeats an earlier page of its host with 5 body words changed: its SimHash is
 *   within NEAR_DUPLICATE_MAX_DISTANCE (16) of its original's;
 * - unrelated pages, on any host or on the same host, are farther than that.
 *
 * Measured on this model: near-duplicates at 0 to 15 bits (mean 5.1); unrelated pages at 21 bits
 * and more (mean 31.9), on the same host at 20 and more (mean 31.1); so 16 separates them. In larger
 * throwaway runs the near-duplicates of nine seeds reached 16, and 5,500 unrelated pairs of this
 * model stayed at 18 and more. Short pages are off (`content.shortPageRate: 0`): a near-copy of a
 * 10- to 40-word page has 12–50% of its words changed, which is no near-duplicate (such copies
 * measured 7 to 19 bits).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { payloadDigest, textDigest } from '../../../src/dedup/content-digest.js';
import { NEAR_DUPLICATE_MAX_DISTANCE, hammingDistance, isNearDuplicate, simhash } from '../../../src/dedup/simhash.js';
import { PageKind, WebModel } from '../../../src/web/model.js';
import { Rng } from '../../../src/core/prng.js';
import { renderPage } from '../../../src/web/render.js';

const model = new WebModel({
  seed: 21,
  hosts: 40,
  pages: 4000,
  server: { addressCount: 4 },
  duplicates: { mirrorHostRate: 0.2, nearDuplicateRate: 0.1 },
  content: { shortPageRate: 0 },
});
const PORT = 8080;
const utf8 = new TextEncoder();

const htmlOf = (g: number): string => renderPage(model, g, PORT).html;
/** Visible text, roughly: tags out (a crawler's parser does better; SimHash only needs the words). */
const textOf = (g: number): string => htmlOf(g).replace(/<[^>]*>/g, ' ');
const fingerprints = new Map<number, bigint>();
function fingerprint(g: number): bigint {
  let h = fingerprints.get(g);
  if (h === undefined) {
    h = simhash(textOf(g));
    fingerprints.set(g, h);
  }
  return h;
}

const allPages = Array.from({ length: model.pageCount }, (_, g) => g);
const isMirrorCopy = (g: number): boolean => model.contentId(g) !== g;
/** Pages of the original hosts that serve their own content (not copies of another page). */
const originals = allPages.filter((g) => !isMirrorCopy(g) && model.pageKind[g] === PageKind.ok);
const mirrorPages = allPages.filter((g) => isMirrorCopy(g) && model.pageKind[g] === PageKind.ok);
const nearDuplicates = allPages.filter((g) => !isMirrorCopy(g) && model.pageKind[g] === PageKind.nearDuplicate);

const summary = (xs: readonly number[]): string =>
  `min ${Math.min(...xs)}, mean ${(xs.reduce((a, b) => a + b, 0) / xs.length).toFixed(2)}, max ${Math.max(...xs)} over ${xs.length}`;

describe('duplicates of the test web', () => {
  test('the model has what this test needs', () => {
    assert.ok(mirrorPages.length >= 200, `${mirrorPages.length} mirror pages`);
    assert.ok(nearDuplicates.length >= 100, `${nearDuplicates.length} near-duplicates`);
    assert.ok(originals.length >= 1000, `${originals.length} original ok pages`);
  });

  test("an exact mirror page has its original's payload and text digests", () => {
    const seen = new Map<string, number>();
    for (const g of mirrorPages) {
      const src = model.contentId(g);
      const html = htmlOf(g);
      const original = htmlOf(src);
      assert.equal(payloadDigest(utf8.encode(html)), payloadDigest(utf8.encode(original)), `page ${g} mirrors ${src}`);
      assert.equal(textDigest(textOf(g)), textDigest(textOf(src)));
      assert.equal(hammingDistance(fingerprint(g), fingerprint(src)), 0);
    }
    // ... while distinct original pages have distinct digests, so the equalities above mean something.
    for (const g of originals.slice(0, 500)) {
      const digest = payloadDigest(utf8.encode(htmlOf(g)));
      assert.equal(seen.get(digest), undefined, `pages ${seen.get(digest)} and ${g} share ${digest}`);
      seen.set(digest, g);
    }
  });

  test('every near-duplicate is within the threshold of its original, and not an exact copy', (t) => {
    const distances: number[] = [];
    for (const g of nearDuplicates) {
      const src = model.pageRef[g] as number;
      assert.equal(model.pageKind[src], PageKind.ok);
      const d = hammingDistance(fingerprint(g), fingerprint(src));
      distances.push(d);
      assert.ok(isNearDuplicate(fingerprint(g), fingerprint(src)), `page ${g} is ${d} bits from its original ${src}`);
      assert.notEqual(textDigest(textOf(g)), textDigest(textOf(src)), `page ${g} differs from ${src} in a few words`);
    }
    t.diagnostic(`near-duplicates: ${summary(distances)} (threshold ${NEAR_DUPLICATE_MAX_DISTANCE})`);
  });

  test('unrelated pages are never within the threshold, on other hosts or on the same one', (t) => {
    const rng = new Rng(21, 0xd0d0, 1);
    const anywhere: number[] = [];
    const sameHost: number[] = [];
    const check = (a: number, b: number, into: number[]): void => {
      const d = hammingDistance(fingerprint(a), fingerprint(b));
      into.push(d);
      assert.ok(!isNearDuplicate(fingerprint(a), fingerprint(b)), `unrelated pages ${a} and ${b} are ${d} bits apart`);
    };
    while (anywhere.length < 400) {
      const a = rng.pick(originals);
      const b = rng.pick(originals);
      if (a !== b) check(a, b, anywhere);
    }
    while (sameHost.length < 300) {
      const a = rng.pick(originals);
      const h = model.hostOf(a);
      const b = h.firstPage + rng.int(h.pageCount);
      if (b !== a && model.pageKind[b] === PageKind.ok) check(a, b, sameHost);
    }
    t.diagnostic(`unrelated pages: ${summary(anywhere)}; same host: ${summary(sameHost)}`);
  });
});
