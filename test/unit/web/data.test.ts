import { test } from 'node:test';
import assert from 'node:assert/strict';
import iconv from 'iconv-lite';
import { GENERIC_ANCHORS, GENERIC_ENGLISH_WORDS, TOPIC_WORDS } from '../../../src/web/data/topic-words.js';
import { LANGUAGE_WORDS } from '../../../src/web/data/language-words.js';
import { STREET_NAMES, STREET_TYPES } from '../../../src/web/data/streets.js';
import { SAME_NAME_CITIES, US_CITIES, US_STATES } from '../../../src/geo/data/us-cities.js';

const TOPICS = [
  'ADULT',
  'ARTS',
  'BUSINESS',
  'COMPUTERS',
  'GAMES',
  'HEALTH',
  'HOME',
  'KIDS',
  'NEWS',
  'RECREATION',
  'REFERENCE',
  'SCIENCE',
  'SHOPPING',
  'SOCIETY',
  'SPORTS',
];
const LANGS = ['en', 'de', 'fr', 'es', 'it', 'pt', 'nl', 'sv', 'pl', 'ru'];
const LETTERS = /^[\p{L}]+$/u;

test('topic words: 15 topics, >= 160 unique lowercase words each, cross-topic overlap <= 5%', () => {
  assert.deepEqual(Object.keys(TOPIC_WORDS).sort(), [...TOPICS].sort());
  const topicsOf = new Map<string, number>();
  for (const topic of TOPICS) {
    const words = TOPIC_WORDS[topic] ?? [];
    const unique = new Set(words);
    assert.ok(unique.size >= 160, `${topic}: ${unique.size} unique words`);
    for (const w of unique) {
      assert.match(w, /^[a-z]+$/, `${topic}: ${w}`);
      topicsOf.set(w, (topicsOf.get(w) ?? 0) + 1);
    }
  }
  const shared = [...topicsOf.values()].filter((n) => n > 1).length;
  assert.ok(shared / topicsOf.size <= 0.05, `${shared} of ${topicsOf.size} words in several topics`);
});

test('topic words avoid generic words and US city and state names', () => {
  const generic = new Set(GENERIC_ENGLISH_WORDS);
  const places = new Set([...US_CITIES.map((c) => c.name), ...Object.values(US_STATES)].map((n) => n.toLowerCase()));
  for (const [topic, words] of Object.entries(TOPIC_WORDS)) {
    for (const w of words) {
      assert.ok(!generic.has(w), `${topic}: ${w} is also a generic word`);
      assert.ok(!places.has(w), `${topic}: ${w} is a US city or state`);
    }
  }
});

test('generic English words: >= 300 unique lowercase words', () => {
  assert.ok(new Set(GENERIC_ENGLISH_WORDS).size >= 300);
  for (const w of GENERIC_ENGLISH_WORDS) assert.match(w, /^[a-z]+$/);
});

test('generic anchors: 8-12 per language, encodable in the language charsets', () => {
  assert.deepEqual(Object.keys(GENERIC_ANCHORS).sort(), [...LANGS].sort());
  for (const code of LANGS) {
    const anchors = GENERIC_ANCHORS[code] ?? [];
    assert.ok(anchors.length >= 8 && anchors.length <= 12, `${code}: ${anchors.length} anchors`);
    assert.equal(new Set(anchors).size, anchors.length, code);
    for (const cs of LANGUAGE_WORDS[code]?.charsets ?? []) {
      for (const a of anchors) assert.equal(iconv.decode(iconv.encode(a, cs), cs), a, `${code} ${cs}: ${a}`);
    }
  }
});

test('languages: >= 100 common and >= 300 unique content words, letters only, lowercase', () => {
  assert.deepEqual(Object.keys(LANGUAGE_WORDS).sort(), [...LANGS].sort());
  for (const code of LANGS) {
    const lang = LANGUAGE_WORDS[code];
    assert.ok(lang, code);
    assert.ok(lang.name.length > 0);
    assert.ok(new Set(lang.common).size >= 100, `${code}: ${new Set(lang.common).size} common words`);
    assert.ok(new Set(lang.content).size >= 300, `${code}: ${new Set(lang.content).size} content words`);
    for (const w of [...lang.common, ...lang.content]) {
      assert.match(w, LETTERS, `${code}: ${w}`);
      assert.equal(w, w.toLowerCase(), `${code}: ${w}`);
    }
  }
});

test('languages: every word round-trips through each of its charsets (iconv-lite and TextDecoder)', () => {
  for (const code of LANGS) {
    const lang = LANGUAGE_WORDS[code];
    assert.ok(lang && lang.charsets.length > 0, code);
    for (const cs of lang.charsets) {
      assert.ok(iconv.encodingExists(cs), `${code}: iconv-lite lacks ${cs}`);
      const decoder = new TextDecoder(cs);
      for (const w of [...lang.common, ...lang.content]) {
        const bytes = iconv.encode(w, cs);
        assert.equal(iconv.decode(bytes, cs), w, `${code} ${cs}: ${w}`);
        assert.equal(decoder.decode(bytes), w, `${code} ${cs} (TextDecoder): ${w}`);
      }
    }
  }
});

test('streets: >= 120 unique single-word title-case names and >= 14 types', () => {
  assert.ok(new Set(STREET_NAMES).size >= 120);
  assert.equal(new Set(STREET_NAMES).size, STREET_NAMES.length);
  for (const n of STREET_NAMES) assert.match(n, /^[A-Z][a-z]+$/, n);
  assert.ok(STREET_TYPES.length >= 14);
  for (const t of STREET_TYPES) {
    assert.match(t.word, /^[A-Z][a-z]+$/);
    assert.match(t.abbrev, /^[A-Z][a-z]*$/);
  }
});

test('US cities: 100, sorted by population, unique (name, state), valid states, ZIP codes', () => {
  assert.equal(Object.keys(US_STATES).length, 51);
  assert.equal(US_CITIES.length, 100);
  const keys = new Set<string>();
  for (let i = 0; i < US_CITIES.length; i++) {
    const c = US_CITIES[i];
    assert.ok(c);
    if (i > 0) assert.ok((US_CITIES[i - 1]?.population ?? 0) >= c.population, `${c.name} out of order`);
    const key = `${c.name}|${c.state}`;
    assert.ok(!keys.has(key), `duplicate ${key}`);
    keys.add(key);
    assert.ok(c.state in US_STATES, `${c.name}: state ${c.state}`);
    assert.equal(c.stateName, US_STATES[c.state]);
    assert.ok(c.population > 0);
    assert.ok(c.zips.length >= 1 && c.zips.length <= 5, `${c.name}: ${c.zips.length} ZIPs`);
    for (const z of c.zips) assert.match(z, /^\d{5}$/);
  }
  for (const n of ['New York', 'Los Angeles', 'Chicago', 'Houston', 'Phoenix', 'Philadelphia', 'San Antonio']) {
    assert.ok(
      US_CITIES.some((c) => c.name === n),
      n,
    );
  }
  for (const n of ['Brooklyn', 'Queens', 'Manhattan', 'The Bronx', 'Staten Island']) {
    assert.ok(!US_CITIES.some((c) => c.name === n), n);
  }
  assert.equal(US_CITIES.find((c) => c.name === 'El Paso')?.timeZone, 'Mountain');
});

test('same-name cities: name of a US_CITIES city, in a different state', () => {
  assert.ok(SAME_NAME_CITIES.length > 0);
  const keys = new Set(US_CITIES.map((c) => `${c.name}|${c.state}`));
  for (const s of SAME_NAME_CITIES) {
    const targets = US_CITIES.filter((c) => c.name === s.name);
    assert.ok(targets.length > 0, `${s.name} not in US_CITIES`);
    assert.ok(
      targets.every((c) => c.state !== s.state),
      `${s.name} ${s.state} is the target city`,
    );
    assert.ok(!keys.has(`${s.name}|${s.state}`));
    assert.ok(s.state in US_STATES, `${s.name}: state ${s.state}`);
    assert.ok(s.population >= 10_000);
  }
  for (const [name, state] of [
    ['Glendale', 'CA'],
    ['Arlington', 'VA'],
    ['Aurora', 'IL'],
    ['Kansas City', 'KS'],
  ]) {
    assert.ok(
      SAME_NAME_CITIES.some((s) => s.name === name && s.state === state),
      `${name} ${state}`,
    );
  }
});
