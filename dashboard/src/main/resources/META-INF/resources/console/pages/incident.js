// One incident: what it is about, who owns it, what to decide now (its runs' pending approvals,
// inline, with the exact action), what was done and with what verified outcome, and the timeline.
// Acknowledge / assign / comment / resolve / reopen for operators. Live over the incident's stream.
// Similar past incidents (what caused and fixed them) sit beside the evidence.
import { get, post } from '../api.js';
import { h, clear, statusBadge, errorBox, esc, ago, timeTag, toast, guard, viewerNote, pretty } from '../ui.js';
import { approvalCard } from './approvals.js';
import { severityBadge, targetText, followIncidents, liveState } from './incidents.js';
import { similarPanel } from './similar.js';

const KIND_WORD = {
  opened: 'Opened', sighting: 'Seen again', escalated: 'Escalated', run_started: 'Run started', findings: 'Findings',
  approval_requested: 'Approval asked', approval_decided: 'Approval decided', action_executed: 'Action executed',
  action_verified: 'Outcome verified', notification_sent: 'Notified', notification_failed: 'Notification failed',
  acknowledged: 'Acknowledged', assigned: 'Assigned', commented: 'Comment', resolved: 'Resolved', reopened: 'Reopened',
};

const VERDICT_STATUS = { succeeded: 'completed', failed: 'failed', timed_out: 'expired', unchanged: 'rejected', worse: 'failed' };

function timelineItem(e) {
  return h('li', { class: `tl tl-${e.kind}`, 'data-kind': e.kind },
    h('div', { class: 'tl-head' },
      h('span', { class: 'tl-kind' }, KIND_WORD[e.kind] || e.kind),
      e.actor ? h('span', { class: 'muted' }, ` by ${e.actor}`) : null,
      h('span', { class: 'spacer' }), timeTag(e.at)),
    h('div', { class: 'tl-text' }, e.text),
    e.runId ? h('div', { class: 'muted' }, 'run ', h('a', { href: `#/runs/${esc(e.runId)}` }, e.runId)) : null,
    e.data && (e.kind === 'findings' || e.kind === 'action_verified') ? h('details', {}, h('summary', {}, 'Details'), h('pre', {}, pretty(e.data))) : null);
}

/** Consecutive sightings as one entry ("seen again 12 times"), newest time first. */
function collapseSightings(entries) {
  const out = [];
  for (const e of entries) {
    const last = out[out.length - 1];
    if (e.kind === 'sighting' && last && last.kind === 'sighting') {
      last.count = (last.count || 1) + 1;
      last.text = `seen again ${last.count} times (earliest ${new Date(e.at).toLocaleTimeString([], { hour12: false })})`;
    } else {
      out.push({ ...e });
    }
  }
  return out;
}

function remediation(r) {
  const verdict = r.verdict || r.status || 'running';
  return h('li', { class: 'card remediation', 'data-verdict': verdict },
    h('div', { class: 'row' }, h('strong', {}, r.action || r.runbook || 'action'), statusBadge(VERDICT_STATUS[verdict] || verdict, verdict),
      h('span', { class: 'muted' }, verdict.replace('_', ' '))),
    r.summary ? h('p', {}, r.summary) : null,
    h('dl', { class: 'kv' },
      h('dt', {}, 'Approved by'), h('dd', {}, r.approver || '—'),
      h('dt', {}, 'Started'), h('dd', {}, timeTag(r.startedAt)),
      h('dt', {}, 'Verified'), h('dd', {}, timeTag(r.verifiedAt || r.finishedAt))),
    r.arguments ? h('details', {}, h('summary', {}, 'Arguments'), h('pre', {}, pretty(r.arguments))) : null,
    r.evidence ? h('details', {}, h('summary', {}, 'Evidence'), h('pre', {}, pretty(r.evidence))) : null);
}

/** A small form with one or more text fields and a submit button; `send` gets the values. */
function actionForm(id, label, fields, ctx, send, what) {
  const inputs = fields.map((f) => f.long
    ? h('textarea', { id: `${id}-${f.name}`, name: f.name, rows: 2, maxlength: 2000, required: true })
    : h('input', { id: `${id}-${f.name}`, name: f.name, type: 'text', maxlength: 2000, required: true }));
  const error = h('p', { class: 'field-error', id: `${id}-error`, role: 'alert' });
  const button = guard(h('button', { type: 'submit', class: 'btn', id: `${id}-submit` }, label), ctx, what);
  const form = h('form', { class: 'action-form', id, novalidate: true },
    fields.map((f, i) => h('div', { class: 'field' }, h('label', { for: inputs[i].id }, f.label), inputs[i])),
    error, button);
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    error.textContent = '';
    const values = {};
    for (let i = 0; i < fields.length; i++) {
      const v = inputs[i].value.trim();
      inputs[i].setAttribute('aria-invalid', String(!v));
      if (!v) { error.textContent = `${fields[i].label} is needed.`; inputs[i].focus(); return; }
      values[fields[i].name] = v;
    }
    button.disabled = true;
    try {
      await send(values);
      inputs.forEach((x) => { x.value = ''; });
    } catch (e) {
      error.textContent = e.human || e.message;
    } finally {
      button.disabled = !ctx.canOperate;
    }
  });
  return form;
}

export async function render(root, route, ctx) {
  const id = route.parts[1];
  const live = h('span', { class: 'live off', id: 'incident-live' }, 'connecting…');
  const head = h('div', { class: 'incident-head' });
  const approvals = h('div', { class: 'approvals', id: 'incident-approvals' });
  const actions = h('div', { class: 'incident-actions', id: 'incident-actions' });
  const evidence = h('div', { id: 'incident-evidence' });
  const remediations = h('ul', { class: 'remediations', id: 'incident-remediations' });
  const runs = h('ul', { class: 'plain', id: 'incident-runs' });
  const notifications = h('ul', { class: 'plain', id: 'incident-notifications' });
  const timeline = h('ol', { class: 'timeline', id: 'incident-timeline' });
  clear(root,
    h('p', {}, h('a', { href: '#/incidents' }, '← Incidents')),
    head, actions,
    h('section', { 'aria-labelledby': 'ap-h' }, h('h2', { id: 'ap-h' }, 'Waiting for your decision'), approvals),
    h('div', { class: 'incident-cols' },
      h('section', { 'aria-labelledby': 'tl-h' }, h('div', { class: 'row' }, h('h2', { id: 'tl-h' }, 'Timeline'), live), timeline),
      h('div', {},
        h('section', { 'aria-labelledby': 'ev-h' }, h('h2', { id: 'ev-h' }, 'Evidence'), evidence),
        // Past incidents like this one with their root cause and fix: evidence for whoever decides.
        similarPanel(id),
        h('section', { 'aria-labelledby': 'rm-h' }, h('h2', { id: 'rm-h' }, 'Remediations'), remediations),
        h('section', { 'aria-labelledby': 'rn-h' }, h('h2', { id: 'rn-h' }, 'Runs'), runs),
        h('section', { 'aria-labelledby': 'nt-h' }, h('h2', { id: 'nt-h' }, 'Notifications'), notifications))));

  let shownApprovals = null;
  let actionsFor = null;
  async function act(path, body, done) {
    const res = await post(`/api/v1/incidents/${esc(id)}/${path}`, body);
    toast(done, 'ok');
    await load();
    return res;
  }

  function renderActions(s) {
    const key = `${s.status}|${ctx.canOperate}`;
    if (key === actionsFor) return; // keep half-typed text across live refreshes
    actionsFor = key;
    const resolved = s.status === 'resolved';
    const ack = guard(h('button', { type: 'button', class: 'btn primary', id: 'acknowledge' }, 'Acknowledge'), ctx, 'acknowledge incidents');
    ack.addEventListener('click', () => act('acknowledge', {}, 'Acknowledged: it is yours.').catch((e) => toast(e.human, 'error')));
    clear(actions,
      resolved ? null : h('div', { class: 'row' }, ack),
      h('details', { class: 'action' }, h('summary', {}, 'Assign'),
        actionForm('assign-form', 'Assign', [{ name: 'assignee', label: 'Assign to' }], ctx,
          (v) => act('assign', v, `Assigned to ${v.assignee}.`), 'assign incidents')),
      h('details', { class: 'action' }, h('summary', {}, 'Comment'),
        actionForm('comment-form', 'Add comment', [{ name: 'text', label: 'Comment', long: true }], ctx,
          (v) => act('comments', v, 'Comment added.'), 'comment')),
      resolved
        ? h('details', { class: 'action' }, h('summary', {}, 'Reopen'),
          actionForm('reopen-form', 'Reopen', [{ name: 'reason', label: 'Why' }], ctx,
            (v) => act('reopen', v, 'Reopened.'), 'reopen incidents'))
        : h('details', { class: 'action' }, h('summary', {}, 'Resolve'),
          actionForm('resolve-form', 'Resolve', [{ name: 'rootCause', label: 'Root cause', long: true }, { name: 'fix', label: 'What fixed it', long: true }], ctx,
            (v) => act('resolve', v, 'Resolved.'), 'resolve incidents')),
      viewerNote(ctx, 'act on incidents'));
  }

  async function load() {
    const d = await get(`/api/v1/incidents/${esc(id)}`);
    const s = d.summary;
    const inc = d.incident;
    clear(head,
      h('div', { class: 'row' }, h('h1', { id: 'incident-title' }, s.title || s.id), severityBadge(s.severity), h('span', { id: 'incident-status' }, statusBadge(s.status))),
      h('div', { class: 'facts' },
        h('div', {}, h('span', { class: 'l' }, 'Target'), h('span', { class: 'v', id: 'incident-target' }, targetText(s.target) || '—')),
        h('div', {}, h('span', { class: 'l' }, 'Opened'), h('span', { class: 'v' }, s.openedAt ? ago(s.openedAt) : '—')),
        h('div', {}, h('span', { class: 'l' }, 'Owner'), h('span', { class: 'v', id: 'incident-owner' }, s.owner || 'nobody yet')),
        h('div', {}, h('span', { class: 'l' }, 'Seen'), h('span', { class: 'v' }, `${s.occurrences}×, last ${s.lastSeenAt ? ago(s.lastSeenAt) : '—'}`)),
        h('div', {}, h('span', { class: 'l' }, 'Source'), h('span', { class: 'v' }, s.source || '—'))),
      inc.resolution ? h('p', { class: 'note', id: 'incident-resolution' }, `Root cause: ${inc.resolution.rootCause}. Fixed by: ${inc.resolution.fix}.`) : null);
    renderActions(s);

    const ids = d.pendingApprovals.map((a) => a.id).join(',');
    if (ids !== shownApprovals) {
      shownApprovals = ids;
      const full = await Promise.all(d.pendingApprovals.map((a) => get(`/api/v1/approvals/${esc(a.id)}`)));
      clear(approvals, full.length ? full.map((a) => approvalCard(a, ctx, () => load()))
        : h('p', { class: 'muted', id: 'no-approvals' }, 'Nothing is waiting for a decision on this incident.'));
    }

    const findings = d.timeline.filter((e) => e.kind === 'findings');
    const labels = Object.entries(inc.labels || {});
    clear(evidence,
      inc.summary ? h('p', { class: 'answer' }, inc.summary) : null,
      findings.length ? h('ul', {}, findings.map((f) => h('li', {}, f.text, f.actor ? h('span', { class: 'muted' }, ` (${f.actor})`) : null))) : null,
      labels.length ? h('details', {}, h('summary', {}, `Alert labels (${labels.length})`),
        h('dl', { class: 'kv' }, labels.map(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]))) : null,
      !inc.summary && !findings.length && !labels.length ? h('p', { class: 'muted' }, 'No evidence recorded yet.') : null);
    clear(remediations, d.remediations.length ? d.remediations.map(remediation) : h('li', { class: 'muted' }, 'Nothing done yet.'));
    clear(runs, d.runs.length ? d.runs.map((r) => h('li', {}, statusBadge(r.status), ' ', h('a', { href: `#/runs/${esc(r.id)}` }, r.agent), ' ', h('span', { class: 'muted' }, ago(r.createdAt))))
      : h('li', { class: 'muted' }, 'No runs linked.'));
    clear(notifications, d.notifications.length ? d.notifications.map((n) => h('li', {}, statusBadge(n.status === 'sent' ? 'completed' : 'failed', n.status), ' ', n.text, ' ', h('span', { class: 'muted' }, ago(n.at))))
      : h('li', { class: 'muted' }, 'No notifications yet.'));
    // Newest first: what just happened is what on-call reads first; a run of sightings is one line.
    clear(timeline, collapseSightings(d.timeline.slice().reverse()).map(timelineItem),
      d.timelineTruncated ? h('li', { class: 'muted' }, 'Older entries: GET /api/v1/incidents/', id, '/timeline') : null);
  }
  try { await load(); } catch (e) { clear(head, errorBox(e, load)); return null; }
  let pending = null;
  const stop = followIncidents(id, () => {
    clearTimeout(pending);
    pending = setTimeout(() => load().catch(() => {}), 200);
  }, liveState(live));
  // Approvals of its runs are asked outside the incident's timeline: look for new ones now and then.
  const poll = setInterval(() => { if (document.visibilityState === 'visible') load().catch(() => {}); }, 5000);
  return () => { stop(); clearTimeout(pending); clearInterval(poll); };
}
