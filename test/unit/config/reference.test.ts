import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { referenceDocs } from '../../../src/cli/reference-docs.js';

describe('generated reference docs', () => {
  for (const [name, text] of referenceDocs()) {
    it(`docs/reference/${name} is up to date (npm run docs:reference)`, () => {
      const committed = readFileSync(new URL(`../../../docs/reference/${name}`, import.meta.url), 'utf8');
      assert.equal(committed, text);
    });
  }

  it('documents every web option with its environment variable', () => {
    const web = referenceDocs().get('web-config.md') ?? '';
    assert.match(web, /\| `links\.topicLocality` \| number \| {2}\| `0\.65` \| `SHOAL_WEB_LINKS_TOPIC_LOCALITY` \|/);
    assert.match(web, /\| `faults\.hangMs` \| integer \| ms \| `30000` \|/);
  });
});
