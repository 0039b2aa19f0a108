/**
 * Reading a `/metrics` scrape as Prometheus would, with parse-prometheus-text-format (prom2json's
 * JSON): the families with their types, and every sample's value by name and labels.
 *
 * That parser folds a histogram's samples into one object per family, which loses the label sets of
 * a histogram with labels (every node's buckets end in one map, their sums and counts are dropped).
 * So samples are read from a second parse in which histograms are declared untyped: each of their
 * `_bucket`, `_sum` and `_count` series is then a family of its own, with its labels.
 */
import parsePrometheusTextFormat, { type ParsedFamily } from 'parse-prometheus-text-format';

/** A parsed scrape. */
export interface Scrape {
  /** The families as the parser gives them (types upper case: `COUNTER`, `GAUGE`, `HISTOGRAM`). */
  readonly families: readonly ParsedFamily[];
  /** The sum of the samples named `name` whose labels include `labels` (a histogram's `<name>_count` too); 0 when none. */
  value(name: string, labels?: Readonly<Record<string, string>>): number;
  /** The values of one label over the samples named `name`, sorted. */
  labelValues(name: string, label: string): string[];
}

/** Parses `text`; throws when it is no valid exposition. */
export function parseScrape(text: string): Scrape {
  const families = parsePrometheusTextFormat(text);
  const samples = parsePrometheusTextFormat(text.replace(/^(# TYPE \S+) histogram$/gm, '$1 untyped')).flatMap((f) =>
    f.metrics.map((m) => ({ name: f.name, labels: m.labels ?? {}, value: Number(m.value) })),
  );
  const matching = (name: string, labels: Readonly<Record<string, string>>) =>
    samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  return {
    families,
    value: (name, labels = {}) => matching(name, labels).reduce((a, s) => a + s.value, 0),
    labelValues: (name, label) =>
      [...new Set(matching(name, {}).flatMap((s) => (s.labels[label] === undefined ? [] : [s.labels[label]])))].sort(),
  };
}
