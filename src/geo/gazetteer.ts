/**
 * The gazetteer of a geographically focused crawl (SPEC §4.3; seed 003 §3.5): the target (city,
 * state) pairs with their population, time zone, aliases and ZIP codes, and every other place that
 * carries a target's name, so that an ambiguous name ("Glendale", "Arlington", "Aurora") can be
 * resolved.
 *
 * The default targets are the 100 most populous US cities of `data/us-cities.ts` (GeoNames data,
 * CC-BY 4.0, rebuilt by scripts/gen-us-cities.mjs; origin and licence in data/README.md). Any other
 * list can be given ({@link parseTargetList}): a city of the shipped table needs only its name and
 * state; any other city brings its population and time zone.
 *
 * Names are compared in a normal form ({@link normalName}): case, dots, hyphens and the `St.`/`Saint`,
 * `Ft.`/`Fort` spellings do not matter, so "St. Louis", "Saint Louis" and "saint-louis" are one name.
 * Pure: the caller reads any file.
 */
import { SAME_NAME_CITIES, US_CITIES, US_STATES } from './data/us-cities.js';

/** The time zones targets are grouped by (the paper's grouping of the 100 cities). */
export const TIME_ZONES = ['Eastern', 'Central', 'Mountain', 'Pacific', 'Alaska', 'Hawaii'] as const;
export type TimeZone = (typeof TIME_ZONES)[number];

/** A target (city, state) pair. */
export interface GeoTarget {
  /** Index in {@link Gazetteer.targets}. */
  readonly index: number;
  readonly name: string;
  /** 2-letter USPS code. */
  readonly state: string;
  readonly stateName: string;
  readonly population: number;
  readonly timeZone: TimeZone;
  /** Other names of the city (NYC, Philly, Saint Louis, ...). */
  readonly aliases: readonly string[];
  /** A few of its ZIP codes (may be empty for a custom target). */
  readonly zips: readonly string[];
  /** `"Name, ST"`, how metrics, truth and configuration name it. */
  readonly label: string;
}

/** A place a name may stand for: a target, or a same-name city elsewhere (target −1). */
export interface NamedPlace {
  readonly state: string;
  readonly population: number;
  /** Index of the target, or −1 for a city that is not a target. */
  readonly target: number;
}

/** One entry of a target list as written: a known city by name and state, or a new one with its facts. */
export interface TargetEntry {
  readonly name: string;
  readonly state: string;
  readonly population?: number;
  readonly timeZone?: TimeZone;
  readonly aliases?: readonly string[];
  readonly zips?: readonly string[];
}

/** A target list that cannot be used; the message names the entry. */
export class GazetteerError extends Error {}

/** `"Name, ST"`. */
export function placeLabel(name: string, state: string): string {
  return `${name}, ${state}`;
}

/** The normal form names are compared in: lower case, `saint`/`fort` spelled out, no dots, single spaces. */
export function normalName(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/\./g, ' ')
    .replace(/[-\s,]+/g, ' ')
    .trim()
    .replace(/^st /, 'saint ')
    .replace(/^ft /, 'fort ');
}

/** State code of a USPS code or a state name (any case), or null. */
function stateCodeOfName(): Map<string, string> {
  const m = new Map<string, string>();
  for (const [code, name] of Object.entries(US_STATES)) {
    m.set(normalName(name), code);
    m.set(code.toLowerCase(), code);
  }
  return m;
}

/** Target cities, same-name places and states; see the file comment. */
export class Gazetteer {
  readonly targets: readonly GeoTarget[];
  /** USPS code → state name. */
  readonly states: Readonly<Record<string, string>> = US_STATES;
  readonly #byLabel = new Map<string, number>();
  /** Normal name (city names and aliases) → the places it may stand for, most populous first. */
  readonly #places: ReadonlyMap<string, readonly NamedPlace[]>;
  readonly #stateCodes = stateCodeOfName();

  /** Throws a {@link GazetteerError} on an empty list, a repeated target, or a new city without its facts. */
  constructor(entries: readonly TargetEntry[]) {
    if (entries.length === 0) throw new GazetteerError('the target list is empty');
    const known = new Map(US_CITIES.map((c) => [placeLabel(c.name, c.state), c]));
    const targets: GeoTarget[] = [];
    for (const e of entries) {
      const state = e.state.toUpperCase();
      const stateName = US_STATES[state];
      if (stateName === undefined) throw new GazetteerError(`${e.name}, ${e.state}: unknown state (a USPS code such as TX)`);
      const label = placeLabel(e.name, state);
      if (this.#byLabel.has(label)) throw new GazetteerError(`${label} is listed twice`);
      const k = known.get(label);
      const population = e.population ?? k?.population;
      const timeZone = e.timeZone ?? k?.timeZone;
      if (population === undefined || timeZone === undefined) {
        throw new GazetteerError(`${label} is not in the shipped table: give its population and timeZone`);
      }
      if (!(population > 0)) throw new GazetteerError(`${label}: population must be positive`);
      if (!TIME_ZONES.includes(timeZone)) throw new GazetteerError(`${label}: time zone must be one of ${TIME_ZONES.join(', ')}`);
      const index = targets.length;
      targets.push(
        Object.freeze({
          index,
          name: e.name,
          state,
          stateName,
          population,
          timeZone,
          aliases: Object.freeze([...(e.aliases ?? k?.aliases ?? [])]),
          zips: Object.freeze([...(e.zips ?? k?.zips ?? [])]),
          label,
        }),
      );
      this.#byLabel.set(label, index);
    }
    this.targets = Object.freeze(targets);
    const places = new Map<string, NamedPlace[]>();
    const add = (name: string, p: NamedPlace): void => {
      const key = normalName(name);
      if (key === '') return;
      const list = places.get(key) ?? [];
      if (!list.some((q) => q.state === p.state)) list.push(p);
      places.set(key, list);
    };
    for (const t of targets) {
      add(t.name, { state: t.state, population: t.population, target: t.index });
      for (const a of t.aliases) add(a, { state: t.state, population: t.population, target: t.index });
    }
    for (const s of SAME_NAME_CITIES) {
      if (places.has(normalName(s.name)))
        add(s.name, { state: s.state, population: s.population, target: this.indexOf(placeLabel(s.name, s.state)) });
    }
    for (const c of US_CITIES) {
      // A shipped city left out of a custom list still competes for its name.
      if (places.has(normalName(c.name)))
        add(c.name, { state: c.state, population: c.population, target: this.indexOf(placeLabel(c.name, c.state)) });
    }
    this.#places = new Map([...places].map(([key, list]) => [key, Object.freeze(list.sort((a, b) => b.population - a.population))]));
  }

  /** The default: the `n` most populous US cities (n ≤ 100). */
  static usTop(n = 100): Gazetteer {
    if (!Number.isInteger(n) || n < 1 || n > US_CITIES.length)
      throw new GazetteerError(`the shipped table has 1..${US_CITIES.length} cities, got ${n}`);
    return new Gazetteer(US_CITIES.slice(0, n).map((c) => ({ name: c.name, state: c.state })));
  }

  /** Index of the target labelled `"Name, ST"`, or −1. */
  indexOf(label: string): number {
    return this.#byLabel.get(label) ?? -1;
  }

  /** The places a name (city name or alias, any spelling) may stand for, most populous first; empty when none. */
  placesNamed(name: string): readonly NamedPlace[] {
    return this.#places.get(normalName(name)) ?? [];
  }

  /** Every name the gazetteer knows, in normal form (targets' names and aliases). */
  get names(): IterableIterator<string> {
    return this.#places.keys();
  }

  /**
   * The target a name stands for when nothing else is known: the most populous place of that name
   * (seed 003 §3.5), or −1 when that place is not a target ("Aurora" is Aurora, CO, a target, even though
   * Aurora, IL exists; "Arlington" is Arlington, TX).
   */
  targetOfName(name: string): number {
    return this.placesNamed(name)[0]?.target ?? -1;
  }

  /** USPS code of a state code or name in any case ("ca", "California"), or null. */
  stateCode(word: string): string | null {
    return this.#stateCodes.get(normalName(word)) ?? null;
  }

  /** The target of a name in a given state, or −1. */
  targetIn(name: string, state: string): number {
    return this.placesNamed(name).find((p) => p.state === state)?.target ?? -1;
  }
}

/**
 * Parses a target list file: JSON (an array of {@link TargetEntry} or of `"Name, ST"` strings) or
 * text, one `Name, ST` per line (`#` comments and blank lines skipped). Throws a
 * {@link GazetteerError} naming the line or entry at fault.
 */
export function parseTargetList(text: string, origin: string): TargetEntry[] {
  const trimmed = text.trim();
  if (trimmed.startsWith('[')) {
    let data: unknown;
    try {
      data = JSON.parse(trimmed);
    } catch (err) {
      throw new GazetteerError(`${origin}: not valid JSON (${(err as Error).message})`);
    }
    return (data as unknown[]).map((item, i) => {
      if (typeof item === 'string') return labelEntry(item, `${origin} entry ${i + 1}`);
      const e = item as Partial<TargetEntry> | null;
      if (e === null || typeof e !== 'object' || typeof e.name !== 'string' || typeof e.state !== 'string') {
        throw new GazetteerError(`${origin} entry ${i + 1}: expected "Name, ST" or {"name", "state", ...}`);
      }
      return e as TargetEntry;
    });
  }
  const out: TargetEntry[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    const l = line.replace(/#.*$/, '').trim();
    if (l !== '') out.push(labelEntry(l, `${origin} line ${i + 1}`));
  });
  return out;
}

function labelEntry(label: string, where: string): TargetEntry {
  const comma = label.lastIndexOf(',');
  const name = comma < 0 ? '' : label.slice(0, comma).trim();
  const state = comma < 0 ? '' : label.slice(comma + 1).trim();
  if (name === '' || !/^[A-Za-z]{2}$/.test(state)) throw new GazetteerError(`${where}: expected "Name, ST", got ${JSON.stringify(label)}`);
  return { name, state: state.toUpperCase() };
}
