/**
 * The crawl's metrics as plain values, for code that reads them rather than Prometheus (the
 * dashboard, tests): every metric with its samples, each sample as the text format would print it
 * (a histogram as its `_bucket`, `_sum` and `_count` samples).
 */
import type { MetricObjectWithValues, MetricValue } from 'prom-client';

/** One sample: a line of the text format. */
export interface MetricSample {
  /** The sample's name: the metric's, or for a histogram `<name>_bucket`, `<name>_sum`, `<name>_count`. */
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** One metric and its samples. */
export interface MetricFamily {
  readonly name: string;
  readonly help: string;
  readonly type: 'counter' | 'gauge' | 'histogram';
  readonly samples: readonly MetricSample[];
}

/** Every metric of a registry, at one moment. */
export type MetricsSnapshot = readonly MetricFamily[];

/** A snapshot from prom-client's JSON form of a registry. */
export function snapshotOf(metrics: readonly MetricObjectWithValues<MetricValue<string>>[]): MetricsSnapshot {
  return metrics.map((m) => ({
    name: m.name,
    help: m.help,
    type: String(m.type) as MetricFamily['type'],
    samples: m.values.map((v) => ({
      name: (v as { metricName?: string }).metricName ?? m.name,
      labels: Object.fromEntries(Object.entries(v.labels).map(([k, x]) => [k, String(x)])),
      value: v.value,
    })),
  }));
}

/**
 * The sum of the samples named `name` whose labels include `labels`: `sampleValue(s,
 * 'shoal_pages_total', { outcome: 'ok' })` adds every node's; 0 when none matches.
 */
export function sampleValue(snapshot: MetricsSnapshot, name: string, labels: Readonly<Record<string, string>> = {}): number {
  let sum = 0;
  for (const family of snapshot)
    for (const s of family.samples) if (s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)) sum += s.value;
  return sum;
}
