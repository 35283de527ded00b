// One approval, where a notification's link lands (#/approvals/<id>): the action in one sentence, its
// details and bound arguments, and the decision — on a phone at 3 a.m. as on a desk. Decided, expired
// or superseded approvals show who decided what; the card follows the approval while it is open.
import { get } from '../api.js';
import { h, clear, errorBox, esc, every } from '../ui.js';
import { approvalCard } from './approvals.js';

export async function render(root, route, ctx) {
  const id = route.parts[1];
  const body = h('div', { class: 'approvals', id: 'approval-one' }, h('p', { class: 'muted' }, 'Loading…'));
  clear(root,
    h('p', {}, h('a', { href: '#/approvals' }, '← All approvals')),
    h('h1', {}, 'Approval'),
    body);
  let shown = '';
  async function load() {
    const a = await get(`/api/v1/approvals/${esc(id)}`);
    // Redraw only when what the card shows changed: a half-typed edit or comment is kept.
    const key = `${a.status}:${a.argumentsHash || ''}:${a.editedArgumentsHash || ''}`;
    if (key === shown) return;
    shown = key;
    clear(body, approvalCard(a, ctx, () => load().catch(() => {})),
      h('p', {}, h('a', { href: `#/runs/${esc(a.runId)}`, id: 'approval-run' }, 'Open the run'), ' to watch it continue.'));
  }
  try {
    await load();
  } catch (e) {
    clear(body, e.status === 404
      ? h('p', { class: 'card', id: 'approval-missing' }, `No approval ${id} here: it may belong to another tenant, or the link is wrong. `, h('a', { href: '#/approvals' }, 'See the queue'))
      : errorBox(e, load));
    return null;
  }
  return every(3000, async () => { await load(); });
}
