/** The dashboard page's style sheet (`/app.css`). */
export const PAGE_STYLE = `
:root { --fg: #1d2433; --muted: #6b7489; --bg: #f4f6fa; --panel: #ffffff; --line: #dde2ec; --accent: #2563eb; --bad: #c2410c; --ok: #15803d; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
header { display: flex; justify-content: space-between; align-items: baseline; flex-wrap: wrap; gap: 8px; padding: 12px 20px;
  background: var(--panel); border-bottom: 1px solid var(--line); }
h1 { font-size: 20px; margin: 0; }
h2 { font-size: 15px; margin: 0 0 8px; }
h3 { font-size: 13px; margin: 14px 0 6px; color: var(--muted); font-weight: 600; }
main { padding: 16px 20px; display: flex; flex-direction: column; gap: 16px; }
footer { padding: 8px 20px 20px; font-size: 12px; }
.muted { color: var(--muted); font-weight: normal; }
.badge { display: inline-block; padding: 2px 10px; border-radius: 10px; font-weight: 600; font-size: 12px; background: #e5e7eb; }
.badge[data-status="live"] { background: #dcfce7; color: var(--ok); }
.badge[data-status="stopped"] { background: #e0e7ff; color: #3730a3; }
.badge[data-status="disconnected"] { background: #ffedd5; color: var(--bad); }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(140px, 1fr)); gap: 10px; }
.card { background: var(--panel); border: 1px solid var(--line); border-radius: 8px; padding: 10px 12px; }
.card .label { color: var(--muted); font-size: 12px; }
.card .value { font-size: 21px; font-weight: 600; font-variant-numeric: tabular-nums; white-space: nowrap; }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(460px, 1fr)); gap: 16px; }
.grid2 { display: grid; grid-template-columns: repeat(auto-fit, minmax(460px, 1fr)); gap: 16px; }
.panel { background: var(--panel); border: 1px solid var(--line); border-radius: 8px; padding: 12px 14px; overflow-x: auto; }
.chart { min-height: 220px; }
.chart .empty { color: var(--muted); padding: 90px 0; text-align: center; }
table { border-collapse: collapse; width: 100%; font-variant-numeric: tabular-nums; }
th, td { text-align: right; padding: 3px 8px; border-bottom: 1px solid var(--line); white-space: nowrap; }
th:first-child, td:first-child { text-align: left; }
th { color: var(--muted); font-weight: 600; font-size: 12px; }
td.url { text-align: left; max-width: 360px; overflow: hidden; text-overflow: ellipsis; }
td.text { text-align: left; }
.matrix td.self { color: var(--muted); }
.swatch { display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin-right: 6px; }
.bar { display: inline-block; height: 8px; background: var(--accent); border-radius: 2px; vertical-align: middle; margin-left: 6px; }
`;
