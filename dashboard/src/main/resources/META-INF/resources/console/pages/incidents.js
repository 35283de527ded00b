// Incidents: on-call's home. Active incidents first (severity, target, age, owner, last event), then
// the recently resolved; filters in the URL; live over the incident event stream.
import { get, qs } from '../api.js';
import { h, clear, statusBadge, errorBox, esc, ago, timeTag } from '../ui.js';

const SEVERITY_ORDER = { critical: 0, high: 1, warning: 2, medium: 3, low: 4, info: 5 };

export function severityBadge(severity) {
  const s = (severity || 'unknown').toLowerCase();
  return h('span', { class: `badge sev sev-${s}`, 'data-severity': s }, s);
}

export function targetText(t) {
  if (!t) return null;
  return t.namespace ? `${t.namespace}/${t.name}` : t.name;
}

/** One incident as a row of the list: everything on-call scans, as words. */
function item(i) {
  const target = targetText(i.target);
  return h('li', {},
    h('a', { class: 'incident-item', href: `#/incidents/${esc(i.id)}`, 'data-incident': i.id },
      h('div', { class: 'incident-line' },
        severityBadge(i.severity), statusBadge(i.status),
        h('strong', { class: 'incident-title' }, i.title || i.id)),
      h('div', { class: 'incident-facts' },
        h('span', {}, h('span', { class: 'l' }, 'Target '), target || '—'),
        h('span', {}, h('span', { class: 'l' }, 'Age '), i.openedAt ? ago(i.openedAt).replace(' ago', '') : '—'),
        h('span', {}, h('span', { class: 'l' }, 'Owner '), i.owner || h('em', {}, 'nobody yet')),
        h('span', {}, h('span', { class: 'l' }, 'Seen '), `${i.occurrences}×`)),
      i.lastEvent ? h('div', { class: 'incident-last muted' },
        timeTag(i.lastEvent.at), ' ', i.lastEvent.text) : null));
}

/** Follows every incident's timeline; calls onChange (debounced by the caller) on each entry. */
export function followIncidents(incidentId, onEvent, onState) {
  const es = new EventSource(`/api/v1/incidents/events${incidentId ? `?incident=${esc(incidentId)}` : ''}`);
  es.addEventListener('timeline', (m) => {
    try { onEvent(JSON.parse(m.data)); } catch { /* ignore a malformed event */ }
  });
  es.addEventListener('ready', () => onState?.('open'));
  es.onerror = () => onState?.(es.readyState === EventSource.CLOSED ? 'closed' : 'reconnecting');
  return () => es.close();
}

export function liveState(live) {
  return (state) => {
    live.className = state === 'open' ? 'live' : 'live off';
    live.textContent = state === 'open' ? 'live' : 'reconnecting…';
  };
}

export async function render(root, route, ctx) {
  const p = route.params;
  const live = h('span', { class: 'live off', id: 'incidents-live' }, 'connecting…');
  const active = h('ul', { class: 'incident-list', id: 'active-incidents' });
  const resolved = h('ul', { class: 'incident-list', id: 'resolved-incidents' });
  const severity = h('select', { id: 'f-severity', name: 'severity' },
    h('option', { value: '' }, 'any'), ['critical', 'high', 'warning', 'low', 'info'].map((s) => h('option', { value: s, selected: p.severity === s }, s)));
  const target = h('input', { id: 'f-target', name: 'target', type: 'search', value: p.target || '', placeholder: 'host, pod, service' });
  const form = h('form', { class: 'toolbar', role: 'search' },
    h('div', { class: 'field' }, h('label', { for: 'f-severity' }, 'Severity'), severity),
    h('div', { class: 'field' }, h('label', { for: 'f-target' }, 'Target'), target),
    h('button', { type: 'submit', class: 'btn' }, 'Filter'));
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    ctx.navigate(`#/incidents${qs({ severity: severity.value, target: target.value.trim() })}`);
  });
  clear(root,
    h('div', { class: 'row' }, h('h1', {}, 'Incidents'), live),
    form,
    h('h2', {}, 'Open'), active,
    h('h2', {}, 'Recently resolved'), resolved);

  const filters = { severity: p.severity, target: p.target };
  async function load() {
    const [open, done] = await Promise.all([
      get(`/api/v1/incidents${qs({ ...filters, status: 'active', limit: 200 })}`),
      get(`/api/v1/incidents${qs({ ...filters, status: 'resolved', limit: 20 })}`),
    ]);
    // Open first: escalated before open, then by severity, then the newest.
    const items = open.items.slice().sort((a, b) =>
      (a.status === 'escalated' ? 0 : 1) - (b.status === 'escalated' ? 0 : 1)
      || (SEVERITY_ORDER[a.severity] ?? 9) - (SEVERITY_ORDER[b.severity] ?? 9)
      || Date.parse(b.openedAt || 0) - Date.parse(a.openedAt || 0));
    clear(active, items.length ? items.map(item) : h('li', { class: 'card muted', id: 'no-open' }, 'No open incidents. Quiet night.'));
    clear(resolved, done.items.length ? done.items.map(item) : h('li', { class: 'muted' }, 'Nothing resolved yet.'));
  }
  try { await load(); } catch (e) { clear(active, errorBox(e, load)); }
  let pending = null;
  const stop = followIncidents(null, () => {
    clearTimeout(pending);
    pending = setTimeout(() => load().catch(() => {}), 300);
  }, liveState(live));
  return () => { stop(); clearTimeout(pending); };
}
