/**
 * The figures seed 003 reports for its crawls (about 12.8 million pages per strategy, 5
 * geo-sensitive nodes and 1 general node, Policy A throughout), by strategy id; numbers only.
 * Coverage and focus are the mean over nodes (Tables 3 and 4), the unique-entity ratio the
 * "Average" row of Table 5, the rest one figure per strategy (Tables 6 to 9 and 11). A missing
 * entry is a figure the paper does not give.
 */

/** Table 3, mean over the six nodes, in %. */
export const PAPER_COVERAGE: Readonly<Record<string, number>> = {
  'url-hash': 0.86,
  url: 7.25,
  anchor: 7.88,
  content: 4.89,
  classifier: 1.09,
  ip: 1.71,
};

/** Table 3, mean over the five geo-sensitive nodes, in %. */
export const PAPER_COVERAGE_GEO_NODES: Readonly<Record<string, number>> = {
  'url-hash': 0.86,
  url: 8.63,
  anchor: 8.58,
  content: 5.71,
  classifier: 1.21,
  ip: 2.2,
};

/** Table 4, mean over the geo-sensitive nodes, in % (the text gives 22.7 for classifier and 51.7 for ip). */
export const PAPER_FOCUS: Readonly<Record<string, number>> = {
  url: 91.1,
  anchor: 84.2,
  content: 75.2,
  classifier: 22.1,
  ip: 51.8,
};

/** Table 5, "Average" row. */
export const PAPER_UNIQUE: Readonly<Record<string, number>> = {
  'url-hash': 0.35,
  url: 0.18,
  anchor: 0.16,
  content: 0.19,
  classifier: 0.26,
  ip: 0.27,
};

/** Table 6: mean GC_2, m = 10. */
export const PAPER_CENTRALITY: Readonly<Record<string, number>> = {
  'url-hash': 0.0222,
  url: 0.1754,
  anchor: 0.1519,
  content: 0.0994,
  classifier: 0.0273,
  ip: 0.038,
};

/** Table 7 ("None" is 0). */
export const PAPER_OVERLAP: Readonly<Record<string, number>> = {
  'url-hash': 0,
  url: 0,
  anchor: 0.08461,
  content: 0.173239,
  classifier: 0.34599,
  ip: 0,
};

/** Table 8: distinct hosts / downloads. */
export const PAPER_DIVERSITY: Readonly<Record<string, number>> = {
  'url-hash': 0.0814,
  url: 0.0405,
  anchor: 0.0674,
  content: 0.0688,
  classifier: 0.0564,
  ip: 0.3887,
};

/** Table 9: URLs exchanged per downloaded page. */
export const PAPER_COMMUNICATION: Readonly<Record<string, number>> = {
  'url-hash': 13.89,
  url: 25.72,
  anchor: 61.87,
  content: 46.69,
  classifier: 58.38,
  ip: 0.15,
};

/** Table 11: δ and δ̃. */
export const PAPER_LOCALITY: Readonly<Record<string, { readonly linked: number; readonly unlinked: number }>> = {
  url: { linked: 0.41559, unlinked: 0.02582 },
  content: { linked: 0.26325, unlinked: 0.01157 },
  classifier: { linked: 0.044495, unlinked: 0.008923 },
};
