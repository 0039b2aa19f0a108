/** The part of `parse-prometheus-text-format` the tests use: the text format as prom2json's JSON. */
declare module 'parse-prometheus-text-format' {
  /** One sample line (counter, gauge, untyped) or one histogram or summary with its labels; values as written. */
  export interface ParsedSample {
    readonly labels?: Readonly<Record<string, string>>;
    readonly value?: string;
    /** Histograms: upper bound (`le`) -> cumulative count. */
    readonly buckets?: Readonly<Record<string, string>>;
    /** Summaries: quantile -> value. */
    readonly quantiles?: Readonly<Record<string, string>>;
    readonly count?: string;
    readonly sum?: string;
  }

  /** One metric family: its `# HELP`, `# TYPE` (upper case) and samples. */
  export interface ParsedFamily {
    readonly name: string;
    readonly help: string;
    readonly type: 'COUNTER' | 'GAUGE' | 'HISTOGRAM' | 'SUMMARY' | 'UNTYPED';
    readonly metrics: readonly ParsedSample[];
  }

  /** Parses a whole exposition; throws on a malformed one. */
  export default function parsePrometheusTextFormat(text: string): ParsedFamily[];
}
