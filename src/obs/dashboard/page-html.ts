/**
 * The dashboard's page: a fixed skeleton that page-script.ts fills from the snapshots. Every figure
 * sits in an element with `data-figure="<path in the snapshot>"` and its raw value in `data-value`,
 * so a test or a scraper reads the page as it reads `/api/state`. No inline script or style (the
 * server's Content-Security-Policy allows only its own files).
 */

/** One headline figure. */
function card(label: string, figure: string, format: string): string {
  return `<div class="card"><div class="label">${label}</div><div class="value" data-figure="${figure}" data-format="${format}" data-value="">–</div></div>`;
}

/** A chart's box; page-script.ts puts a uPlot chart in `#chart-<id>`. */
function chart(id: string, title: string): string {
  return `<section class="panel chart-panel"><h2>${title}</h2><div class="chart" id="chart-${id}" data-chart="${id}"></div></section>`;
}

/** The page; `tokenQuery` (`?token=...` or empty) is appended to the URLs of its own files. */
export function pageHtml(tokenQuery: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="data:,">
<title>shoal dashboard</title>
<link rel="stylesheet" href="/static/uPlot.min.css${tokenQuery}">
<link rel="stylesheet" href="/app.css${tokenQuery}">
</head>
<body>
<header>
  <h1>shoal <span class="muted">dashboard</span> · <span id="crawl-id" data-figure="crawl.id">–</span></h1>
  <div class="status"><span id="status" class="badge" data-status="connecting">connecting</span>
  <span class="muted">elapsed</span> <span data-figure="crawl.elapsedMs" data-format="duration" data-value="">–</span>
  <span class="muted" id="source"></span></div>
</header>
<main>
<section class="cards">
  ${card('pages', 'totals.pages', 'int')}
  ${card('URLs done', 'totals.urls', 'int')}
  ${card('pages/s', 'totals.pagesPerSecond', 'rate')}
  ${card('received', 'totals.bytes', 'bytes')}
  ${card('bytes/s', 'totals.bytesPerSecond', 'bytes')}
  ${card('hosts', 'totals.hosts', 'int')}
  ${card('queued', 'totals.frontier.queued', 'int')}
  ${card('in flight', 'totals.frontier.inFlight', 'int')}
  ${card('not ok', 'totals.notOk', 'int')}
  ${card('nodes', 'nodes.length', 'int')}
</section>
<section class="charts">
  ${chart('pps', 'pages per second, per node')}
  ${chart('bps', 'bytes per second, per node')}
  ${chart('queued', 'frontier: URLs queued, per node')}
  ${chart('quality', 'partition metrics and coverage over time')}
</section>
<section class="panel"><h2>nodes</h2><table id="nodes"><thead><tr>
  <th>node</th><th>pages</th><th>URLs</th><th>pages/s</th><th>bytes/s</th><th>received</th><th>queued</th><th>in flight</th>
  <th>hosts</th><th>not ok</th><th>URLs sent</th><th>URLs received</th><th>state</th></tr></thead><tbody></tbody></table></section>
<section class="grid2">
  <section class="panel"><h2>partition metrics <span class="muted" id="partition-from"></span></h2><table id="partition"><tbody></tbody></table></section>
  <section class="panel"><h2>outcomes</h2><table id="outcomes"><tbody></tbody></table></section>
</section>
<section class="grid2">
  <section class="panel"><h2>exchange between nodes</h2><table id="exchange"><thead><tr>
    <th>node</th><th>URLs out</th><th>URLs in</th><th>pages out</th><th>pages in</th><th>bytes out</th><th>bytes in</th></tr></thead><tbody></tbody></table>
    <h3>pages crawled by node (columns) found on pages of node (rows)</h3><table id="matrix" class="matrix"><tbody></tbody></table></section>
  <section class="panel"><h2>coverage against the truth</h2><table id="truth"><tbody></tbody></table></section>
</section>
<section class="grid2">
  <section class="panel"><h2>slowest hosts <span class="muted">(mean fetch time)</span></h2><table id="slow-hosts"><thead><tr>
    <th>host</th><th>mean</th><th>max</th><th>fetches</th><th>node</th></tr></thead><tbody></tbody></table></section>
  <section class="panel"><h2>recent errors <span class="muted">(failures; robots and budget decisions are in the outcomes)</span></h2><table id="errors"><thead><tr>
    <th>node</th><th>outcome</th><th>status</th><th>URL</th><th>reason</th></tr></thead><tbody></tbody></table>
    <p id="unreachable" class="muted"></p></section>
</section>
</main>
<footer class="muted">read-only view · snapshots every second on <code>/events</code>, the same as <code>/api/state</code></footer>
<script src="/static/uPlot.iife.min.js${tokenQuery}"></script>
<script src="/app.js${tokenQuery}"></script>
</body>
</html>
`;
}
