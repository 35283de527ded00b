// Runs: filter by status, agent and time, search, page; the visible page refreshes itself so
// status changes show up without a reload. Pages go by cursor (the API's nextCursor): "Older"
// continues after the last run shown, "Newer" goes back to the cursor it came from (kept in the
// route as `back`), so no page needs a count or an offset, however long the history.
import { get, qs } from '../api.js';
import { h, clear, statusBadge, categoryBadge, replayBadge, fmtDuration, fmtNum, timeTag, ago, errorBox, every, esc } from '../ui.js';

const STATUSES = ['submitted', 'working', 'input-required', 'completed', 'failed', 'canceled', 'rejected'];
const RANGES = { '': 'Any time', 1: 'Last hour', 6: 'Last 6 hours', 24: 'Last 24 hours', 168: 'Last 7 days' };

export async function render(root, route, ctx) {
  const p = { status: '', agent: '', since: '', q: '', cursor: '', back: '', limit: 50, ...route.params };
  p.limit = Math.min(500, Number(p.limit) || 50);
  // Cursors of the pages before this one, oldest last; '-' stands for the first page.
  const back = p.back ? p.back.split(',') : [];
  let agents = [];
  try { agents = (await get('/api/v1/agents')).map((a) => a.name); } catch { /* the filter still works by text */ }

  const status = h('select', { id: 'f-status', name: 'status' }, h('option', { value: '' }, 'Any status'),
    STATUSES.map((s) => h('option', { value: s, selected: p.status === s }, s)));
  const agent = h('select', { id: 'f-agent', name: 'agent' }, h('option', { value: '' }, 'Any agent'),
    agents.map((a) => h('option', { value: a, selected: p.agent === a }, a)));
  const since = h('select', { id: 'f-since', name: 'since' },
    Object.entries(RANGES).map(([v, l]) => h('option', { value: v, selected: String(p.since) === v }, l)));
  const q = h('input', { id: 'f-q', name: 'q', type: 'search', value: p.q, placeholder: 'input, result or id' });
  const form = h('form', { class: 'toolbar', role: 'search', 'aria-label': 'Filter runs' },
    h('div', { class: 'field' }, h('label', { for: 'f-status' }, 'Status'), status),
    h('div', { class: 'field' }, h('label', { for: 'f-agent' }, 'Agent'), agent),
    h('div', { class: 'field' }, h('label', { for: 'f-since' }, 'Submitted'), since),
    h('div', { class: 'field' }, h('label', { for: 'f-q' }, 'Search'), q),
    h('button', { type: 'submit', class: 'btn primary' }, 'Apply'),
    h('a', { href: '#/runs', class: 'btn ghost' }, 'Clear'));
  const apply = (extra = {}) => {
    ctx.navigate('#/runs' + qs({ status: status.value, agent: agent.value, since: since.value, q: q.value.trim(), ...extra }));
  };
  form.addEventListener('submit', (e) => { e.preventDefault(); apply(); });
  [status, agent, since].forEach((s) => s.addEventListener('change', () => apply()));

  const live = h('span', { class: 'live', 'aria-live': 'off' }, 'live');
  const summary = h('p', { class: 'muted', 'aria-live': 'polite' });
  const body = h('tbody');
  const table = h('div', { class: 'table-wrap' }, h('table', { class: 'grid', id: 'runs-table' },
    h('caption', { class: 'sr-only' }, 'Runs, newest first'),
    h('thead', {}, h('tr', {},
      h('th', { scope: 'col' }, 'Status'), h('th', { scope: 'col' }, 'Agent'), h('th', { scope: 'col' }, 'Input'),
      h('th', { scope: 'col' }, 'Submitted'), h('th', { scope: 'col', class: 'num' }, 'Duration'),
      h('th', { scope: 'col', class: 'num' }, 'Tokens in / out'), h('th', { scope: 'col' }, 'By'))),
    body));
  const pager = h('nav', { class: 'pager', 'aria-label': 'Pages of runs' });
  clear(root, h('div', { class: 'row' }, h('h1', {}, 'Runs'), live, h('span', { class: 'spacer' }),
    ctx.canOperate ? h('a', { class: 'btn primary', href: '#/submit' }, 'Start a run') : null),
    form, summary, table, pager);

  const last = new Map();
  async function load() {
    const from = p.since ? new Date(Date.now() - Number(p.since) * 3600_000).toISOString() : undefined;
    const page = await get('/api/v1/runs' + qs({ status: p.status, agent: p.agent, from, q: p.q, cursor: p.cursor, limit: p.limit }));
    const rows = page.items.map((r) => {
      const changed = last.has(r.id) && last.get(r.id) !== r.status;
      last.set(r.id, r.status);
      return h('tr', { class: changed ? 'changed' : undefined, 'data-run': r.id, 'data-status': r.status },
        h('td', {}, statusBadge(r.status), ' ', categoryBadge(r.error?.category), ' ', replayBadge(r.replay)),
        h('td', {}, h('a', { href: `#/runs/${esc(r.id)}` }, r.agent)),
        h('td', { class: 'clip', title: r.input }, h('a', { href: `#/runs/${esc(r.id)}`, 'aria-label': `Run ${r.id}: ${r.input.slice(0, 80)}` }, r.input)),
        h('td', {}, timeTag(r.createdAt), h('div', { class: 'muted' }, ago(r.createdAt))),
        h('td', { class: 'num' }, fmtDuration(r.durationMs)),
        h('td', { class: 'num' }, `${fmtNum(r.usage.inputTokens)} / ${fmtNum(r.usage.outputTokens)}`),
        h('td', {}, r.submittedBy));
    });
    clear(body, rows.length ? rows : h('tr', {}, h('td', { colspan: 7, class: 'muted' },
      'No runs match. ', h('a', { href: '#/runs' }, 'Clear the filters'), ctx.canOperate ? [' or ', h('a', { href: '#/submit' }, 'start one')] : null, '.')));
    const first = back.length * p.limit + 1;
    summary.textContent = page.items.length === 0 ? '' : `Runs ${first}–${first + page.items.length - 1}${page.hasMore ? ', more older' : ''}`;
    const go = (cursor, stack) => ctx.navigate('#/runs' + qs({ ...route.params, cursor, back: stack.join(',') }));
    const newer = () => {
      const prev = back[back.length - 1];
      go(prev === '-' ? '' : prev, back.slice(0, -1));
    };
    clear(pager,
      h('button', { type: 'button', class: 'btn small', disabled: back.length === 0, onclick: newer }, '← Newer'),
      h('span', { class: 'muted' }, `page ${back.length + 1}`),
      h('button', { type: 'button', class: 'btn small', disabled: !page.hasMore, onclick: () => go(page.nextCursor, [...back, p.cursor || '-']) }, 'Older →'));
  }
  try { await load(); } catch (e) { clear(body, h('tr', {}, h('td', { colspan: 7 }, errorBox(e, load)))); }
  return every(3000, async () => {
    try { await load(); live.classList.remove('off'); live.textContent = 'live'; } catch { live.classList.add('off'); live.textContent = 'updates paused (platform not answering)'; }
  });
}
