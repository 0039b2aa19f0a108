import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CityMatcher } from '../../../src/geo/city-mentions.js';
import { Gazetteer } from '../../../src/geo/gazetteer.js';

const m = new CityMatcher(Gazetteer.usTop());

test('text: names as written with capitals, the longest first, with the state written after them', () => {
  const r = m.inText('We moved from Kansas City, Missouri to New York City and then to Denver CO. Later St. Louis.');
  assert.deepEqual(
    r.cities.map((c) => [c.name, c.state]),
    [
      ['kansas city', 'MO'],
      ['new york city', null],
      ['denver', 'CO'],
      ['saint louis', null],
    ],
  );
  assert.equal(r.states.size, 0, 'states right after a city belong to it');
});

test('text: lower-case words are not places; two-letter aliases only in capitals', () => {
  assert.equal(m.inText('the aurora borealis over a mobile home in new york-style pizza').cities.length, 0);
  assert.deepEqual(
    m.inText('Flights to LA and la vida').cities.map((c) => c.name),
    ['la'],
  );
});

test('text: state names anywhere, state codes only after a comma', () => {
  const r = m.inText('Springfield. Made in Illinois, IL and OR IN OK, Ohio.');
  assert.deepEqual(r.cities, []);
  assert.deepEqual([...r.states].sort(), [
    ['IL', 2],
    ['OH', 1],
  ]);
});

test('urls: host labels and path segments, names run together or split by hyphens, no short aliases', () => {
  assert.deepEqual(
    m.inUrl('http://houston-guide.example.com/guide/san-antonio/newyork/la/sf/').map((x) => x.name),
    ['houston', 'san antonio', 'new york'],
  );
  assert.deepEqual(
    m.inUrl('http://www.example.com/Saint%20Louis/x').map((x) => x.name),
    ['saint louis'],
  );
  // The top-level label is never a city, and a malformed escape does not throw.
  assert.deepEqual(m.inUrl('http://example.denver/%zz'), []);
  assert.deepEqual(m.inUrl(''), []);
});
