// "Seen this before?": the past incidents most like one incident, with what caused and fixed them.
// A self-contained panel for the incident page: similarPanel(incidentId) returns a <section> that loads
// GET /api/v1/incidents/{id}/similar and renders each match (link, where, when resolved and by whom,
// root cause, fix, the actions with their verified outcome, how alike it reads). Read-only: a past
// fix is evidence for the person deciding, never an action taken from here.
import { get } from '../api.js';
import { h, clear, timeTag, errorBox, esc, fmtDuration } from '../ui.js';

/** One match as a list item; exported for tests and for other pages that show a single match. */
export function similarItem(s) {
  const alike = Math.round((s.similarity || 0) * 100);
  const actions = (s.actions || []).map((a) =>
    h('li', {}, h('code', {}, a.action), ' — ', h('span', { class: `badge verdict-${(a.verdict || '').toLowerCase()}` }, (a.verdict || 'unknown').toLowerCase()),
      a.summary ? h('span', { class: 'muted' }, ` ${a.summary}`) : null));
  return h('li', { class: 'similar-item', 'data-incident': s.incident },
    h('div', {},
      h('a', { href: `#/incidents/${esc(s.incident)}` }, s.title || s.incident), ' ',
      h('span', { class: 'muted', title: 'cosine similarity of the symptoms' }, `${alike}% alike`)),
    h('div', { class: 'muted' },
      `${s.targetKind || 'unknown'} ${s.target || ''}`.trim(),
      s.resolvedAt ? [' · resolved ', timeTag(s.resolvedAt)] : null,
      s.resolvedBy ? ` by ${s.resolvedBy}` : null,
      s.timeToResolveSeconds != null ? ` · took ${fmtDuration(s.timeToResolveSeconds * 1000)}` : null),
    h('dl', { class: 'similar-resolution' },
      h('dt', {}, 'Root cause'), h('dd', {}, s.rootCause || h('span', { class: 'muted' }, 'not recorded')),
      h('dt', {}, 'Fix'), h('dd', {}, s.fix || h('span', { class: 'muted' }, 'not recorded'))),
    actions.length ? h('ul', { class: 'similar-actions', 'aria-label': 'actions taken' }, ...actions) : null);
}

/** The panel; `limit` past incidents at most (default 5). */
export function similarPanel(incidentId, { limit = 5 } = {}) {
  const body = h('div', { 'aria-live': 'polite' }, h('p', { class: 'muted' }, 'Looking for similar past incidents…'));
  const section = h('section', { class: 'card similar-panel', id: 'similar-incidents', 'aria-labelledby': 'similar-title' },
    h('h3', { id: 'similar-title' }, 'Seen this before?'), body);
  const load = async () => {
    try {
      const r = await get(`/api/v1/incidents/${esc(incidentId)}/similar?limit=${limit}`);
      if (!r.items || r.items.length === 0) {
        clear(body, h('p', { class: 'muted' }, r.remembered
          ? `Nothing like it among ${r.remembered} resolved incidents.`
          : 'No resolved incidents are remembered yet.'));
        return;
      }
      clear(body,
        h('p', { class: 'muted' }, `Best of ${r.remembered} resolved incidents. A past fix is evidence, not an action taken.`),
        h('ol', { class: 'similar-list' }, ...r.items.map(similarItem)));
    } catch (e) {
      clear(body, errorBox(e, load));
    }
  };
  load();
  return section;
}
