import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Gazetteer, GazetteerError, normalName, parseTargetList } from '../../../src/geo/gazetteer.js';

const g = Gazetteer.usTop();
const label = (t: number): string | undefined => g.targets[t]?.label;

test('the default targets are the 100 most populous US cities, most populous first, each with a time zone', () => {
  assert.equal(g.targets.length, 100);
  assert.equal(g.targets[0]?.label, 'New York, NY');
  for (let i = 1; i < g.targets.length; i++) assert.ok((g.targets[i - 1]?.population ?? 0) >= (g.targets[i]?.population ?? 0));
  const zones = new Set(g.targets.map((t) => t.timeZone));
  assert.deepEqual([...zones].sort(), ['Alaska', 'Central', 'Eastern', 'Hawaii', 'Mountain', 'Pacific']);
});

test('names are compared in normal form: case, dots, hyphens, Saint/St., Fort/Ft.', () => {
  assert.equal(normalName('St. Louis'), 'saint louis');
  assert.equal(normalName('Saint-Louis'), 'saint louis');
  assert.equal(normalName('Ft. Worth'), 'fort worth');
  assert.equal(normalName('Winston-Salem'), 'winston salem');
  assert.equal(label(g.targetOfName('saint louis')), 'St. Louis, MO');
  assert.equal(label(g.targetOfName('Philly')), 'Philadelphia, PA');
  assert.equal(label(g.targetOfName('NYC')), 'New York, NY');
});

test('an ambiguous name is its most populous place; a name whose largest place is no target is none', () => {
  assert.equal(label(g.targetOfName('Glendale')), 'Glendale, AZ');
  assert.equal(label(g.targetOfName('Arlington')), 'Arlington, TX');
  assert.equal(g.targetIn('Glendale', 'CA'), -1);
  assert.equal(g.targetIn('Arlington', 'VA'), -1);
  const places = g.placesNamed('Aurora');
  assert.ok(places.length >= 2 && places[0]?.state === 'CO' && places.some((p) => p.state === 'IL' && p.target === -1));
  // With a list of small cities, Aurora IL is a target but Aurora CO (larger, shipped) still wins the bare name.
  const small = new Gazetteer(
    [
      { name: 'Aurora', state: 'IL' },
      { name: 'Denver', state: 'CO' },
    ].map((e) => ({ ...e, population: 1, timeZone: 'Central' as const })),
  );
  assert.equal(small.targetOfName('Aurora'), -1);
  assert.equal(small.targetIn('Aurora', 'IL'), 0);
});

test('states by code or name, in any case', () => {
  assert.equal(g.stateCode('California'), 'CA');
  assert.equal(g.stateCode('tx'), 'TX');
  assert.equal(g.stateCode('District of Columbia'), 'DC');
  assert.equal(g.stateCode('Atlantis'), null);
});

test('a target list file: lines or JSON; shipped cities need only name and state, others their facts', () => {
  const lines = parseTargetList('# my cities\nDenver, CO\n\nSt. Louis, mo  # comment\n', 'list.txt');
  assert.deepEqual(lines, [
    { name: 'Denver', state: 'CO' },
    { name: 'St. Louis', state: 'MO' },
  ]);
  const custom = new Gazetteer([
    ...lines,
    { name: 'Boulder', state: 'CO', population: 108_000, timeZone: 'Mountain', aliases: ['Boulder City'] },
  ]);
  assert.equal(custom.targets.length, 3);
  assert.equal(custom.targets[1]?.label, 'St. Louis, MO');
  assert.equal(custom.targets[2]?.timeZone, 'Mountain');
  assert.equal(custom.targetOfName('Boulder City'), 2);
  assert.deepEqual(parseTargetList('["Denver, CO", {"name": "Mesa", "state": "AZ"}]', 'list.json'), [
    { name: 'Denver', state: 'CO' },
    { name: 'Mesa', state: 'AZ' },
  ]);
  assert.throws(() => parseTargetList('Denver CO\n', 'bad.txt'), /bad\.txt line 1: expected "Name, ST"/);
  assert.throws(() => parseTargetList('[1]', 'bad.json'), /bad\.json entry 1/);
  assert.throws(() => new Gazetteer([{ name: 'Boulder', state: 'CO' }]), /not in the shipped table: give its population and timeZone/);
  assert.throws(() => new Gazetteer([{ name: 'Denver', state: 'XX' }]), /unknown state/);
  assert.throws(
    () =>
      new Gazetteer([
        { name: 'Denver', state: 'CO' },
        { name: 'Denver', state: 'co' },
      ]),
    /listed twice/,
  );
  assert.throws(() => new Gazetteer([]), GazetteerError);
});
