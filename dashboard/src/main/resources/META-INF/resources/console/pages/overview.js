// Overview: the last hours at a glance — runs per hour by status, success rate, p50/p95 duration,
// tokens by agent and model, failures by category, approvals waiting. Each chart has its table.
import { get } from '../api.js';
import { h, clear, fmtDuration, fmtNum, fmtPct, fmtTime, errorBox, every } from '../ui.js';

// Version-less thanks to webjars-locator-lite: the dashboard pom alone says which ECharts.
// Vendored from the npm package echarts 6.1.0 (no webjar of a release without the tooltip XSS issues is served).
const ECHARTS = '/console/vendor/echarts-6.1.0/echarts.common.min.js';
let echartsLoading = null;
function loadEcharts() {
  if (window.echarts) return Promise.resolve(window.echarts);
  echartsLoading ??= new Promise((resolve, reject) => {
    const s = document.createElement('script');
    s.src = ECHARTS;
    s.onload = () => resolve(window.echarts);
    s.onerror = () => reject(new Error('chart library did not load'));
    document.head.append(s);
  });
  return echartsLoading;
}

// Axis labels stay inside their chart at every width: the grid makes room for them (containLabel),
// a long category name is cut with an ellipsis rather than at the chart's edge, and value ticks
// are compact ("2K") and dropped rather than drawn over each other.
const COMPACT = new Intl.NumberFormat('en', { notation: 'compact', maximumFractionDigits: 1 });
const grid = (top) => ({ left: 8, right: 24, top, bottom: 8, containLabel: true });
const valueAxis = (extra) => ({ type: 'value', splitNumber: 4, axisLabel: { formatter: (v) => COMPACT.format(v), hideOverlap: true }, ...extra });
const categoryLabels = (width) => ({ width, overflow: 'truncate', hideOverlap: true });

const COLORS = { completed: '#2da44e', failed: '#cf222e', canceled: '#8c959f', rejected: '#bf3989', working: '#0969da', submitted: '#54aeff', 'input-required': '#bf8700' };
const WINDOWS = { 1: 'Last hour', 6: 'Last 6 hours', 24: 'Last 24 hours', 168: 'Last 7 days' };

export async function render(root, route, ctx) {
  const hours = WINDOWS[route.params.hours] ? Number(route.params.hours) : 24;
  const dark = matchMedia('(prefers-color-scheme: dark)').matches;
  const pick = h('select', { id: 'ov-window', 'aria-label': 'Time window' },
    Object.entries(WINDOWS).map(([v, l]) => h('option', { value: v, selected: Number(v) === hours }, l)));
  pick.addEventListener('change', () => ctx.navigate(`#/overview?hours=${pick.value}`));
  const tiles = h('div', { class: 'tiles', id: 'tiles' });
  const charts = h('div', { class: 'charts' });
  const updated = h('span', { class: 'muted' });
  clear(root, h('div', { class: 'row' }, h('h1', {}, 'Overview'), pick, h('span', { class: 'spacer' }), updated), tiles, charts);

  const boxes = {};
  const box = (id, title) => {
    const chart = h('div', { class: 'chart', id: `chart-${id}`, role: 'img', 'aria-label': title });
    const table = h('div');
    const card = h('section', { class: 'card', 'aria-labelledby': `h-${id}` }, h('h2', { id: `h-${id}`, style: { marginTop: 0 } }, title), chart,
      h('details', {}, h('summary', {}, 'Show as table'), table));
    charts.append(card);
    boxes[id] = { chart, table, instance: null };
  };
  box('per-hour', 'Runs per hour by status');
  box('failures', 'Failures by category');
  box('tokens-agent', 'Tokens by agent');
  box('tokens-model', 'Tokens by agent and model (model calls)');

  let echarts = null;
  try { echarts = await loadEcharts(); } catch (e) { charts.prepend(h('p', { class: 'note' }, 'Charts unavailable (', e.message, '); the tables below still hold the figures.')); }
  const draw = (id, option, rows, cols) => {
    const b = boxes[id];
    if (echarts) {
      b.instance ??= echarts.init(b.chart, dark ? 'dark' : null, { renderer: 'canvas' });
      option.series?.forEach((x) => { x.barMaxWidth = 22; });
      b.instance.setOption({ backgroundColor: 'transparent', animation: false, textStyle: { fontSize: 12 }, aria: { enabled: true }, ...option }, true);
    } else b.chart.hidden = true;
    clear(b.table, h('table', { class: 'grid' }, h('thead', {}, h('tr', {}, cols.map((c) => h('th', { scope: 'col' }, c)))),
      h('tbody', {}, rows.length ? rows.map((r) => h('tr', {}, r.map((v) => h('td', {}, v)))) : h('tr', {}, h('td', { colspan: cols.length, class: 'muted' }, 'Nothing in this window.')))));
  };
  const resize = () => Object.values(boxes).forEach((b) => b.instance?.resize());
  window.addEventListener('resize', resize);

  async function load() {
    const o = await get(`/api/v1/stats/overview?hours=${hours}`);
    updated.textContent = `updated ${new Date().toLocaleTimeString([], { hour12: false })} · refreshes every 30 s`;
    const failedRuns = o.runsByStatus.failed || 0;
    const tile = (label, value, href, cls, id) => h(href ? 'a' : 'div', { class: `tile ${cls || ''}`, href, id }, h('div', { class: 'v' }, value), h('div', { class: 'l' }, label));
    clear(tiles,
      tile(`Runs, ${WINDOWS[hours].toLowerCase()}`, fmtNum(o.runs), '#/runs', '', 'tile-runs'),
      tile('Success rate (finished runs)', fmtPct(o.successRate), null, o.successRate != null && o.successRate < 0.9 ? 'bad' : '', 'tile-success'),
      tile('Duration p50', fmtDuration(o.duration.p50Ms), null, '', 'tile-p50'),
      tile('Duration p95', fmtDuration(o.duration.p95Ms), null, '', 'tile-p95'),
      tile('Failed runs', fmtNum(failedRuns), '#/runs?status=failed', failedRuns ? 'bad' : '', 'tile-failed'),
      tile('Approvals waiting', fmtNum(o.approvalsWaiting), '#/approvals', o.approvalsWaiting ? 'alert' : '', 'tile-approvals'),
      tile('Runs queued', fmtNum(o.runsQueued), '#/runs?status=submitted', '', 'tile-queued'),
      tile('Runs working', fmtNum(o.runsWorking), '#/runs?status=working', '', 'tile-working'));

    const statuses = Object.keys(o.runsByStatus).filter((s) => o.runsPerHour.some((x) => x.byStatus[s] > 0));
    const hourLabel = (iso) => new Date(iso).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', hour12: false });
    draw('per-hour', {
      tooltip: { trigger: 'axis', renderMode: 'richText' }, legend: { top: 0 }, grid: grid(30),
      xAxis: { type: 'category', data: o.runsPerHour.map((x) => hourLabel(x.hour)), axisLabel: { hideOverlap: true } }, yAxis: valueAxis({ minInterval: 1 }),
      series: statuses.map((s) => ({ name: s, type: 'bar', stack: 'runs', color: COLORS[s], data: o.runsPerHour.map((x) => x.byStatus[s]) })),
    }, o.runsPerHour.filter((x) => x.total).map((x) => [new Date(x.hour).toLocaleString([], { hour12: false }), x.total,
      Object.entries(x.byStatus).filter(([, n]) => n).map(([s, n]) => `${s} ${n}`).join(', ')]), ['Hour', 'Runs', 'By status']);

    draw('failures', {
      tooltip: { renderMode: 'richText' }, grid: grid(10),
      xAxis: valueAxis({ minInterval: 1, show: o.failuresByCategory.length > 0 }),
      yAxis: { type: 'category', data: o.failuresByCategory.map((c) => c.category), inverse: true, show: o.failuresByCategory.length > 0, axisLabel: categoryLabels(200) },
      series: [{ type: 'bar', color: '#cf222e', data: o.failuresByCategory.map((c) => c.count), label: { show: true, position: 'right' } }],
      graphic: o.failuresByCategory.length ? [] : [{ type: 'text', left: 'center', top: 'middle', style: { text: 'No failures in this window', fill: dark ? '#9da7b3' : '#57606a', fontSize: 14 } }],
    }, o.failuresByCategory.map((c) => [c.category, c.count]), ['Category', 'Runs']);

    const agents = o.tokensByAgent.slice(0, 15);
    draw('tokens-agent', {
      tooltip: { trigger: 'axis', renderMode: 'richText' }, legend: { top: 0 }, grid: grid(30),
      xAxis: valueAxis(), yAxis: { type: 'category', data: agents.map((a) => a.agent), inverse: true, axisLabel: categoryLabels(160) },
      series: [{ name: 'input', type: 'bar', stack: 't', color: '#0969da', data: agents.map((a) => a.inputTokens) },
        { name: 'output', type: 'bar', stack: 't', color: '#8250df', data: agents.map((a) => a.outputTokens) }],
    }, o.tokensByAgent.map((a) => [a.agent, a.runs, fmtNum(a.inputTokens), fmtNum(a.outputTokens)]), ['Agent', 'Runs', 'Input tokens', 'Output tokens']);

    const models = o.tokensByModel.slice(0, 15);
    draw('tokens-model', {
      tooltip: { trigger: 'axis', renderMode: 'richText' }, legend: { top: 0 }, grid: grid(30),
      xAxis: valueAxis(), yAxis: { type: 'category', data: models.map((m) => `${m.agent} · ${m.model}`), inverse: true, axisLabel: categoryLabels(220) },
      series: [{ name: 'input', type: 'bar', stack: 't', color: '#0969da', data: models.map((m) => m.inputTokens) },
        { name: 'output', type: 'bar', stack: 't', color: '#8250df', data: models.map((m) => m.outputTokens) }],
    }, o.tokensByModel.map((m) => [m.agent, m.model, m.calls, fmtNum(m.inputTokens), fmtNum(m.outputTokens)]), ['Agent', 'Model', 'Calls', 'Input tokens', 'Output tokens']);
  }
  // Storage: what retention keeps per kind, how old the oldest row is, sizes where the database
  // tells (PostgreSQL). Its own request, so the figures above do not wait for it.
  const storageTable = h('div', { id: 'storage-table' });
  const storageNote = h('p', { class: 'muted', id: 'storage-note' });
  charts.append(h('section', { class: 'card', 'aria-labelledby': 'h-storage', id: 'storage' },
    h('h2', { id: 'h-storage', style: { marginTop: 0 } }, 'Storage'), storageNote, storageTable));
  const fmtBytes = (b) => (b == null ? '–' : b >= 1 << 30 ? `${(b / (1 << 30)).toFixed(1)} GiB` : b >= 1 << 20 ? `${(b / (1 << 20)).toFixed(1)} MiB` : `${Math.round(b / 1024)} KiB`);
  const fmtAge = (s) => (s == null ? '–' : s >= 86400 ? `${Math.floor(s / 86400)} d` : s >= 3600 ? `${Math.floor(s / 3600)} h` : `${Math.floor(s / 60)} min`);
  async function loadStorage() {
    const s = await get('/api/v1/stats/storage');
    storageNote.textContent = s.lastRunAt ? `Retention last ran ${fmtTime(s.lastRunAt)}, every ${s.interval}.` : `Retention has not run yet (every ${s.interval}).`;
    // The storage budget (PostgreSQL): the run history on disk against it, and what the last pass
    // removed to stay within it, apart from what the age limits removed.
    const b = s.budget;
    const budgetText = !b || b.budgetBytes == null
      ? `No storage budget set${b && b.usedBytes != null ? `; run history ${fmtBytes(b.usedBytes)} on disk` : ''}.`
      : `Budget ${b.budget}: run history ${fmtBytes(b.usedBytes)} on disk (${b.usedRatio == null ? '–' : `${Math.round(b.usedRatio * 100)} %`})`
        + (b.removedRows == null ? '.' : `; the last pass removed ${fmtNum(b.removedRuns ?? 0)} runs, ${fmtNum(b.removedRows)} rows in all, for the budget.`);
    storageNote.append(h('br'), h('span', { id: 'storage-budget' }, budgetText));
    clear(storageTable, h('table', { class: 'grid' },
      h('thead', {}, h('tr', {}, ['Kind', 'Kept', 'Oldest', 'Size', 'Partitions', 'Removed (last pass)'].map((c) => h('th', { scope: 'col' }, c)))),
      h('tbody', {}, s.kinds.map((k) => h('tr', {}, [k.kind, k.keep, fmtAge(k.oldestAgeSeconds), fmtBytes(k.bytes), k.partitions ? fmtNum(k.partitions) : '–',
        k.removedRows == null ? '–' : fmtNum(k.removedRows)].map((v) => h('td', {}, v)))))));
  }
  try { await load(); } catch (e) { tiles.replaceWith(errorBox(e, load)); }
  loadStorage().catch((e) => clear(storageTable, errorBox(e, loadStorage)));
  const stopStorage = every(60_000, loadStorage);
  const stop = every(30_000, load);
  return () => { stop(); stopStorage(); window.removeEventListener('resize', resize); Object.values(boxes).forEach((b) => b.instance?.dispose()); };
}
