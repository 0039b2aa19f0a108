/**
 * The dashboard page's script (`/app.js`): plain browser JavaScript, no build step. It listens on
 * `/events` (passing the page's `?token=` on), and on each snapshot fills the figures, the tables and
 * four uPlot charts. Crawled text (URLs, hosts, reasons) only ever goes into `textContent`, never
 * into markup. Written without template literals so that it can sit in this TypeScript string.
 */
export const PAGE_SCRIPT = String.raw`
(function () {
  'use strict';
  var token = new URLSearchParams(location.search).get('token');
  var query = token ? '?token=' + encodeURIComponent(token) : '';
  var COLORS = ['#2563eb', '#dc2626', '#16a34a', '#d97706', '#7c3aed', '#0891b2', '#db2777', '#65a30d', '#ea580c', '#475569'];
  var CHART_HEIGHT = 220;
  var charts = {};
  var last = null;
  var nodeColors = {};

  function fmtInt(n) { return n == null ? '–' : Math.round(n).toLocaleString('en-US'); }
  function fmtRate(n) { return n == null ? '–' : n >= 100 ? n.toFixed(0) : n.toFixed(1); }
  function fmtBytes(n) {
    if (n == null) return '–';
    var units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
    var i = 0;
    while (Math.abs(n) >= 1024 && i < units.length - 1) { n /= 1024; i++; }
    return (i === 0 ? n.toFixed(0) : n.toFixed(1)) + ' ' + units[i];
  }
  function fmtPct(n) { return n == null ? '–' : (n * 100).toFixed(1) + ' %'; }
  function fmtRatio(n) { return n == null ? '–' : n.toFixed(3); }
  function fmtMs(n) { return n == null ? '–' : n >= 1000 ? (n / 1000).toFixed(2) + ' s' : n.toFixed(0) + ' ms'; }
  function fmtDuration(ms) {
    if (ms == null) return '–';
    var s = Math.floor(ms / 1000);
    var h = Math.floor(s / 3600);
    var m = Math.floor((s % 3600) / 60);
    var r = s % 60;
    return (h > 0 ? h + ' h ' : '') + (h > 0 || m > 0 ? m + ' min ' : '') + r + ' s';
  }
  function fmtText(v) { return v == null ? '–' : String(v); }
  var FORMATS = { int: fmtInt, rate: fmtRate, bytes: fmtBytes, pct: fmtPct, ratio: fmtRatio, ms: fmtMs, duration: fmtDuration, text: fmtText };

  /** Writes a figure: the raw value in data-value, the formatted one as text. */
  function setFigure(el, value, format) {
    el.dataset.value = value == null ? '' : String(value);
    el.textContent = FORMATS[format || 'text'](value);
  }

  function notOk(outcomes) {
    var n = 0;
    Object.keys(outcomes || {}).forEach(function (k) { if (k !== 'ok') n += outcomes[k]; });
    return n;
  }

  /** The value of a figure path in a snapshot (plus two derived ones: totals.notOk, nodes.length). */
  function valueAt(s, path) {
    if (path === 'totals.notOk') return notOk(s.totals.outcomes);
    if (path === 'nodes.length') return s.nodes.length;
    return path.split('.').reduce(function (o, k) { return o == null ? undefined : o[k]; }, s);
  }

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text != null) e.textContent = text;
    return e;
  }

  /** Appends a cell holding a figure. */
  function cell(tr, value, format, figure, cls) {
    var td = el('td', cls);
    if (figure) td.dataset.figure = figure;
    setFigure(td, value, format);
    tr.appendChild(td);
    return td;
  }

  function colorOf(node) {
    if (!(node in nodeColors)) nodeColors[node] = COLORS[Object.keys(nodeColors).length % COLORS.length];
    return nodeColors[node];
  }

  function nodeCell(tr, id) {
    var td = el('td', 'text');
    var sw = el('span', 'swatch');
    sw.style.background = colorOf(id);
    td.appendChild(sw);
    td.appendChild(document.createTextNode(id));
    tr.appendChild(td);
  }

  function setStatus(state, text) {
    var badge = document.getElementById('status');
    badge.dataset.status = state;
    badge.textContent = text;
  }

  function renderFigures(s) {
    document.querySelectorAll('header [data-figure], .cards [data-figure]').forEach(function (e) {
      var v = valueAt(s, e.dataset.figure);
      setFigure(e, v === undefined ? null : v, e.dataset.format);
    });
    document.getElementById('source').textContent = s.crawl.source === 'nats' ? '· over NATS' : s.crawl.outDir ? '· ' + s.crawl.outDir : '';
    if (s.crawl.stopReason) setStatus('stopped', 'stopped: ' + s.crawl.stopReason);
    else setStatus('live', 'live');
  }

  function renderNodes(s) {
    var rows = s.nodes.map(function (n) {
      var tr = el('tr');
      tr.dataset.node = n.id;
      var f = 'nodes.' + n.id + '.';
      nodeCell(tr, n.id);
      cell(tr, n.pages, 'int', f + 'pages');
      cell(tr, n.urls, 'int', f + 'urls');
      cell(tr, n.pagesPerSecond, 'rate', f + 'pagesPerSecond');
      cell(tr, n.bytesPerSecond, 'bytes', f + 'bytesPerSecond');
      cell(tr, n.bytes, 'bytes', f + 'bytes');
      cell(tr, n.frontier.queued, 'int', f + 'frontier.queued');
      cell(tr, n.frontier.inFlight, 'int', f + 'frontier.inFlight');
      cell(tr, n.hosts, 'int', f + 'hosts');
      cell(tr, notOk(n.outcomes), 'int', f + 'notOk');
      cell(tr, n.exchange ? n.exchange.urlsSent : null, 'int', f + 'exchange.urlsSent');
      cell(tr, n.exchange ? n.exchange.urlsReceived : null, 'int', f + 'exchange.urlsReceived');
      var state = n.stopReason ? 'stopped: ' + n.stopReason : n.isIdle === true ? 'idle' : 'crawling';
      if (n.partitions) state += ' · partitions ' + n.partitions.join(',');
      cell(tr, state, 'text', f + 'state', 'text');
      return tr;
    });
    document.querySelector('#nodes tbody').replaceChildren.apply(document.querySelector('#nodes tbody'), rows);
  }

  var PARTITION_ROWS = [
    ['downloads', 'downloads', 'int'],
    ['unique pages', 'uniquePages', 'int'],
    ['overlap (N − I)/N', 'overlap', 'ratio'],
    ['diversity S/N', 'diversity', 'ratio'],
    ['load balance max/mean pages', 'loadMaxOverMean', 'ratio'],
    ['communication: URLs sent per page', 'urlsPerPage', 'ratio'],
    ['topic locality', 'topicLocality', 'pct'],
    ['geo coverage', 'geoCoverage', 'pct'],
    ['geo focus', 'geoFocus', 'pct'],
    ['community cohesion', 'community.cohesion', 'ratio'],
    ['community precision', 'community.precision', 'ratio'],
    ['community recall', 'community.recall', 'ratio']
  ];

  function rowsOf(table, rows) {
    var body = document.querySelector(table + ' tbody');
    body.replaceChildren.apply(body, rows);
  }

  function textRow(text) {
    var tr = el('tr');
    var td = el('td', 'text muted', text);
    td.colSpan = 8;
    tr.appendChild(td);
    return tr;
  }

  function renderPartition(s) {
    var p = s.partition;
    document.getElementById('partition-from').textContent = p ? (p.from === 'crawl' ? '(the crawl’s live figures)' : '(from the nodes’ counts)') : '';
    if (!p) return rowsOf('#partition', [textRow('one node: nothing is partitioned')]);
    rowsOf('#partition', PARTITION_ROWS.filter(function (r) {
      var v = valueAt(p, r[1]);
      return v != null || r[1] === 'overlap' || r[1] === 'loadMaxOverMean' || r[1] === 'urlsPerPage';
    }).map(function (r) {
      var tr = el('tr');
      tr.appendChild(el('td', null, r[0]));
      var v = valueAt(p, r[1]);
      cell(tr, v === undefined ? null : v, r[2], 'partition.' + r[1]);
      return tr;
    }));
  }

  function renderOutcomes(s) {
    var o = s.totals.outcomes;
    var kinds = Object.keys(o).sort(function (a, b) { return o[b] - o[a]; });
    var total = kinds.reduce(function (a, k) { return a + o[k]; }, 0);
    rowsOf('#outcomes', kinds.map(function (k) {
      var tr = el('tr');
      tr.appendChild(el('td', null, k));
      var td = cell(tr, o[k], 'int', 'totals.outcomes.' + k);
      var bar = el('span', 'bar');
      bar.style.width = (total > 0 ? Math.max(1, Math.round((120 * o[k]) / total)) : 0) + 'px';
      td.appendChild(bar);
      return tr;
    }));
  }

  function renderExchange(s) {
    var rows = s.exchange.nodes.map(function (x) {
      var tr = el('tr');
      var f = 'exchange.' + x.id + '.';
      nodeCell(tr, x.id);
      cell(tr, x.urlsSent, 'int', f + 'urlsSent');
      cell(tr, x.urlsReceived, 'int', f + 'urlsReceived');
      cell(tr, x.pagesSent, 'int', f + 'pagesSent');
      cell(tr, x.pagesReceived, 'int', f + 'pagesReceived');
      cell(tr, x.bytesSent, 'bytes', f + 'bytesSent');
      cell(tr, x.bytesReceived, 'bytes', f + 'bytesReceived');
      return tr;
    });
    rowsOf('#exchange', rows.length ? rows : [textRow('no exchange: one node')]);
    var m = s.exchange.matrix;
    if (!m) return rowsOf('#matrix', [textRow(s.crawl.source === 'nats' ? 'per pair: only in this process’s crawls (fetch records)' : 'no pair yet')]);
    var head = el('tr');
    head.appendChild(el('th', null, 'from \\ to'));
    m.nodes.forEach(function (n) { head.appendChild(el('th', null, n)); });
    rowsOf('#matrix', [head].concat(m.nodes.map(function (from, i) {
      var tr = el('tr');
      nodeCell(tr, from);
      m.nodes.forEach(function (to, j) {
        cell(tr, i === j ? null : m.counts[i][j], 'int', 'exchange.matrix.' + from + '.' + to, i === j ? 'self' : null);
      });
      return tr;
    })));
  }

  function renderTruth(s) {
    var t = s.truth;
    if (!t) return rowsOf('#truth', [textRow('no truth named (cluster.truthDir)')]);
    rowsOf('#truth', [
      ['truth pages a polite crawler reaches', 'reachable', 'int'],
      ['of those, downloaded', 'downloaded', 'int'],
      ['coverage', 'coverage', 'pct'],
      ['PageRank-weighted coverage', 'weightedCoverage', 'pct']
    ].map(function (r) {
      var tr = el('tr');
      tr.appendChild(el('td', null, r[0]));
      cell(tr, t[r[1]], r[2], 'truth.' + r[1]);
      return tr;
    }));
  }

  function renderSlowHosts(s) {
    var rows = s.slowHosts.map(function (h, i) {
      var tr = el('tr');
      var f = 'slowHosts.' + i + '.';
      cell(tr, h.host, 'text', f + 'host', 'text');
      cell(tr, h.meanMs, 'ms', f + 'meanMs');
      cell(tr, h.maxMs, 'ms', f + 'maxMs');
      cell(tr, h.fetches, 'int', f + 'fetches');
      cell(tr, h.node, 'text', f + 'node', 'text');
      return tr;
    });
    rowsOf('#slow-hosts', rows.length ? rows : [textRow(s.crawl.source === 'nats' ? 'fetch times are seen only in this process' : 'no fetch yet')]);
  }

  function renderErrors(s) {
    var rows = s.recentErrors.map(function (e) {
      var tr = el('tr');
      tr.appendChild(el('td', 'text', e.node));
      tr.appendChild(el('td', 'text', e.kind));
      cell(tr, e.status, 'text');
      var url = el('td', 'url', e.url);
      url.title = e.url;
      tr.appendChild(url);
      tr.appendChild(el('td', 'text', e.reason || ''));
      return tr;
    });
    rowsOf('#errors', rows.length ? rows : [textRow(s.crawl.source === 'nats' ? 'errors by URL are seen only in this process' : 'none so far')]);
    var u = s.totals.unreachable;
    document.getElementById('unreachable').textContent = u.failing + u.givenUp > 0
      ? 'unreachable hosts: ' + u.failing + ' failing, ' + u.givenUp + ' given up' + (u.hosts.length ? ': ' + u.hosts.join('; ') : '')
      : '';
  }

  /** A chart of some columns of the series; rebuilt when its set of lines changes. */
  function drawChart(id, s, lines) {
    var box = document.getElementById('chart-' + id);
    var cols = s.series.columns;
    lines = lines.filter(function (l) { return (cols[l.column] || []).some(function (v) { return v != null; }); });
    var key = lines.map(function (l) { return l.column; }).join('|');
    var old = charts[id];
    if (lines.length === 0 || s.series.t.length === 0) {
      if (old) { old.plot.destroy(); delete charts[id]; }
      if (!box.querySelector('.empty')) box.replaceChildren(el('div', 'empty', 'waiting for figures'));
      return;
    }
    var data = [s.series.t.map(function (t) { return t / 1000; })].concat(lines.map(function (l) { return cols[l.column]; }));
    if (old && old.key === key) return old.plot.setData(data);
    if (old) old.plot.destroy();
    box.replaceChildren();
    var scales = { x: { time: true } };
    var axes = [{}];
    var units = [];
    lines.forEach(function (l) { if (units.indexOf(l.scale) < 0) units.push(l.scale); });
    units.forEach(function (u, i) {
      scales[u] = { auto: true };
      var fmt = FORMATS[lines.filter(function (l) { return l.scale === u; })[0].format];
      axes.push({ scale: u, side: i === 0 ? 3 : 1, size: 70, grid: { show: i === 0 }, values: function (_u, vals) { return vals.map(fmt); } });
    });
    var opts = {
      width: Math.max(300, box.clientWidth),
      height: CHART_HEIGHT,
      scales: scales,
      axes: axes,
      series: [{}].concat(lines.map(function (l) {
        var fmt = FORMATS[l.format];
        return { label: l.label, scale: l.scale, stroke: l.color, width: l.width || 1.5, dash: l.dash, points: { show: false },
          value: function (_u, v) { return fmt(v); } };
      }))
    };
    charts[id] = { key: key, plot: new uPlot(opts, data, box) };
  }

  function perNode(s, prefix, format) {
    var lines = s.nodes.map(function (n) { return { column: prefix + ':' + n.id, label: n.id, color: colorOf(n.id), scale: prefix, format: format }; });
    if (s.nodes.length > 1) lines.push({ column: prefix, label: 'all nodes', color: '#111827', scale: prefix, format: format, width: 2, dash: [6, 4] });
    return lines;
  }

  var QUALITY = [
    ['coverage', 'truth coverage', '#111827'],
    ['overlap', 'overlap', '#dc2626'],
    ['topicLocality', 'topic locality', '#16a34a'],
    ['geoCoverage', 'geo coverage', '#d97706'],
    ['geoFocus', 'geo focus', '#7c3aed'],
    ['cohesion', 'cohesion', '#0891b2'],
    ['precision', 'precision', '#db2777'],
    ['recall', 'recall', '#65a30d']
  ];

  function renderCharts(s) {
    drawChart('pps', s, perNode(s, 'pps', 'rate'));
    drawChart('bps', s, perNode(s, 'bps', 'bytes'));
    drawChart('queued', s, perNode(s, 'queued', 'int'));
    var quality = QUALITY.map(function (q) { return { column: q[0], label: q[1], color: q[2], scale: 'share', format: 'pct' }; });
    quality.push({ column: 'urlsPerPage', label: 'URLs sent per page', color: '#475569', scale: 'per', format: 'ratio', dash: [4, 3] });
    quality.push({ column: 'loadMaxOverMean', label: 'load max/mean', color: '#ea580c', scale: 'per', format: 'ratio', dash: [4, 3] });
    drawChart('quality', s, quality);
  }

  function render(s) {
    last = s;
    document.title = 'shoal · ' + s.crawl.id + ' · ' + fmtInt(s.totals.pages) + ' pages';
    renderFigures(s);
    renderNodes(s);
    renderPartition(s);
    renderOutcomes(s);
    renderExchange(s);
    renderTruth(s);
    renderSlowHosts(s);
    renderErrors(s);
    renderCharts(s);
    document.body.dataset.snapshotAt = String(s.atMs);
  }

  window.addEventListener('resize', function () {
    Object.keys(charts).forEach(function (id) {
      var box = document.getElementById('chart-' + id);
      charts[id].plot.setSize({ width: Math.max(300, box.clientWidth), height: CHART_HEIGHT });
    });
  });

  var events = new EventSource('/events' + query);
  events.addEventListener('snapshot', function (e) { render(JSON.parse(e.data)); });
  events.addEventListener('error', function () {
    if (last && last.crawl.stopReason) setStatus('stopped', 'stopped: ' + last.crawl.stopReason + ' · dashboard closed');
    else setStatus('disconnected', 'disconnected, retrying');
  });
})();
`;
