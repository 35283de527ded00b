// Approvals: the queue of actions waiting for a human — the action in one sentence, its details, why,
// confidence, plan and time left, and the exact bound arguments below; approve (arguments may be edited
// as JSON, checked here before sending), reject with a comment, or abort the whole run (it ends
// rejected; asked to confirm first, like cancelling a run). Every decision names the hashes of what the
// card shows; when the approval changed since (someone proposed other edits), the server answers 409 and
// the card is drawn again from the approval as it is now, to be decided again.
import { get, post } from '../api.js';
import { h, clear, statusBadge, timeTag, errorBox, toast, guard, pretty, readable, every, esc, ago, viewerNote } from '../ui.js';

function left(seconds) {
  if (seconds <= 0) return 'expired';
  const m = Math.floor(seconds / 60);
  const s = seconds % 60;
  return m >= 60 ? `${Math.floor(m / 60)} h ${m % 60} m left` : m ? `${m} m ${s} s left` : `${s} s left`;
}

/** Validates edited arguments: empty means "as proposed"; otherwise a JSON object. */
export function checkArguments(text) {
  const t = text.trim();
  if (!t) return { ok: true, value: undefined };
  try {
    const v = JSON.parse(t);
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return { ok: false, message: 'Arguments must be a JSON object, like {"service": "api"}.' };
    return { ok: true, value: v };
  } catch (e) {
    return { ok: false, message: `Not valid JSON: ${e.message}. Fix it, or clear the box to approve the arguments as proposed.` };
  }
}

/** The hashes of what a card shows: an approval covers exactly that (409 when it changed since). */
export function seenHashes(a) {
  return { argumentsHash: a.argumentsHash || undefined, editedArgumentsHash: a.editedArgumentsHash || undefined };
}

/**
 * Bound arguments one line each ("host: web-7"), as the server wrote them; the exact JSON, which is
 * what an edit starts from, folded below.
 */
function argumentList(lines, json, kind) {
  const items = Array.isArray(lines) ? lines : null;
  return h('div', { class: `arguments ${kind}` },
    items ? h('ul', { class: `argument-lines ${kind}-lines` }, items.length ? items.map((l) => h('li', {}, l)) : h('li', { class: 'muted' }, 'no arguments'))
      : readable(json),
    h('details', { class: 'as-json' }, h('summary', {}, 'As JSON'), h('pre', { class: kind }, pretty(json))));
}

export function approvalCard(a, ctx, onDone, notice) {
  const uid = `ap-${a.id}`;
  const deadline = Date.now() + a.expiresInSeconds * 1000;
  const expiry = h('span', { class: 'expiry', id: `${uid}-expiry` });
  const tick = () => {
    const s = Math.max(0, Math.round((deadline - Date.now()) / 1000));
    expiry.textContent = left(s);
    expiry.classList.toggle('soon', s < 120);
    return s;
  };
  tick();
  const timer = setInterval(() => { if (!expiry.isConnected) clearInterval(timer); else tick(); }, 1000);

  const args = h('textarea', { id: `${uid}-args`, rows: 5, 'aria-describedby': `${uid}-args-help ${uid}-args-error`, spellcheck: 'false', class: 'edited-args' });
  const argsError = h('p', { class: 'field-error', id: `${uid}-args-error`, role: 'alert' });
  const comment = h('input', { id: `${uid}-comment`, type: 'text', maxlength: 2000, class: 'comment', placeholder: 'why you decided (kept in the audit log)' });
  const approve = guard(h('button', { type: 'button', class: 'btn ok approve' }, 'Approve'), ctx, 'approve actions');
  const reject = guard(h('button', { type: 'button', class: 'btn danger reject' }, 'Reject'), ctx, 'reject actions');
  const abort = guard(h('button', { type: 'button', class: 'btn danger abort', title: 'Stop the whole run: it ends rejected' }, 'Abort run'), ctx, 'abort runs');
  const validate = () => {
    const r = checkArguments(args.value);
    argsError.textContent = r.ok ? '' : r.message;
    args.setAttribute('aria-invalid', String(!r.ok));
    if (ctx.canOperate) approve.disabled = !r.ok;
    return r;
  };
  args.addEventListener('input', validate);
  const decide = async (kind) => {
    const r = validate();
    if (kind === 'approve' && !r.ok) { args.focus(); return; }
    if (kind === 'abort' && !confirm(`Abort run ${a.runId} (${a.agent})? The whole run stops and ends rejected.`)) return;
    approve.disabled = reject.disabled = abort.disabled = true;
    try {
      const body = { ...seenHashes(a), comment: comment.value || undefined };
      if (kind === 'approve') body.editedArguments = r.value;
      const res = await post(`/api/v1/approvals/${esc(a.id)}/${kind}`, body);
      toast(kind === 'abort' ? `Run ${a.runId} aborted: it ends rejected.`
        : res.status === 'pending' ? `Edits proposed for ${a.tool}: another operator must approve them.`
          : `${a.tool} ${res.status}. The run continues.`, 'ok');
      onDone?.(res);
    } catch (e) {
      if (e.status === 409 && String(e.problem?.type || '').endsWith('approval-changed')) {
        // Someone changed what this card shows: draw it again as it is now, and ask again.
        try {
          const fresh = await get(`/api/v1/approvals/${esc(a.id)}`);
          card.replaceWith(approvalCard(fresh, ctx, onDone,
            `This approval changed since you read it (${e.problem.detail || 'other edits were proposed'}). Nothing was decided. Read it again below and decide.`));
          return;
        } catch { /* fall through to the message */ }
      }
      toast(e.human, 'error');
      approve.disabled = reject.disabled = abort.disabled = !ctx.canOperate;
    }
  };
  approve.addEventListener('click', () => decide('approve'));
  reject.addEventListener('click', () => decide('reject'));
  abort.addEventListener('click', () => decide('abort'));

  const details = Array.isArray(a.details) ? a.details : [];
  // The plan in words (each call a sentence); the structured plan stays in the API beside it.
  const plan = Array.isArray(a.planText) ? a.planText : Array.isArray(a.plan) ? a.plan : [];
  const card = h('article', { class: 'card approval', 'data-approval': a.id, 'data-arguments-hash': a.argumentsHash || '', 'aria-labelledby': `${uid}-h` },
    notice ? h('p', { class: 'field-error approval-changed', role: 'alert' }, notice) : null,
    h('div', { class: 'row' },
      h('h2', { id: `${uid}-h`, class: 'headline' }, a.headline || a.what || `${a.agent} wants to run ${a.tool}`),
      statusBadge(a.status), h('span', { class: 'spacer' }), expiry),
    details.length ? h('ul', { class: 'approval-details' }, details.map((d) => h('li', {}, d))) : null,
    h('dl', { class: 'kv' },
      h('dt', {}, 'Tool'), h('dd', {}, h('code', {}, a.tool), ' by ', h('strong', {}, a.agent)),
      h('dt', {}, 'Why'), h('dd', {}, a.why || h('span', { class: 'muted' }, 'no reason given')),
      h('dt', {}, 'Confidence'), h('dd', {}, a.confidence == null ? '—'
        : [h('span', { class: 'confidence', role: 'img', 'aria-label': `${Math.round(a.confidence * 100)} percent` }, h('span', { style: { width: `${a.confidence * 100}%` } })), ` ${Math.round(a.confidence * 100)} %`]),
      h('dt', {}, 'Plan'), h('dd', {}, plan.length ? h('ol', { class: 'plan', style: { margin: 0, paddingLeft: '1.2rem' } }, plan.map((s) => h('li', {}, typeof s === 'string' ? s : readable(s)))) : '—'),
      h('dt', {}, 'Run'), h('dd', {}, h('a', { href: `#/runs/${esc(a.runId)}` }, a.runId), ' · session ', h('code', {}, a.sessionId)),
      h('dt', {}, 'Asked'), h('dd', {}, timeTag(a.createdAt), ` (${ago(a.createdAt)}), expires `, timeTag(a.expiresAt))),
    h('h3', {}, a.status === 'pending' ? 'Bound arguments: what runs if you approve as proposed' : 'Proposed arguments'),
    argumentList(a.argumentsText, a.arguments, 'proposed'),
    a.editedArguments ? [h('h3', {}, a.status === 'pending'
      ? `Edits proposed by ${a.proposedBy || '—'}: what runs once another operator approves`
      : 'Edited arguments (what ran instead)'), argumentList(a.editedArgumentsText, a.editedArguments, 'edited')] : null,
    a.status === 'pending' ? [
      h('div', { class: 'field' },
        h('label', { for: `${uid}-args` }, 'Edited arguments (optional)'),
        h('p', { class: 'help', id: `${uid}-args-help` }, 'Leave empty to approve as proposed, or paste a JSON object to run with instead. ',
          h('button', { type: 'button', class: 'btn small', onclick: () => { args.value = pretty(a.arguments); validate(); args.focus(); } }, 'Copy proposed to edit')),
        args, argsError),
      h('div', { class: 'field' }, h('label', { for: `${uid}-comment` }, 'Comment (optional)'), comment),
      h('div', { class: 'row', style: { marginTop: '.5rem' } }, approve, reject, abort, viewerNote(ctx, 'decide approvals')),
    ] : h('p', {}, `Decided by ${a.decidedBy || '—'}`, a.comment ? `: “${a.comment}”` : ''),
    a.status === 'superseded' && a.supersededBy ? h('p', { class: 'muted' }, 'The run asked for another action here after a restart; this decision does not cover it. See approval ', h('code', {}, a.supersededBy), '.') : null);
  return card;
}

export async function render(root, route, ctx) {
  const list = h('div', { class: 'approvals', id: 'approval-queue' });
  const recent = h('tbody');
  const live = h('span', { class: 'live' }, 'live');
  clear(root, h('div', { class: 'row' }, h('h1', {}, 'Approvals'), live),
    h('p', { class: 'muted' }, 'Risky tool calls wait here for a decision. The run resumes as soon as you decide; open it to watch.'),
    list,
    h('h2', {}, 'Recent decisions'),
    h('div', { class: 'table-wrap' }, h('table', { class: 'grid' },
      h('thead', {}, h('tr', {}, ['Status', 'Tool', 'Agent', 'Run', 'Decided by', 'Comment', 'When'].map((t) => h('th', { scope: 'col' }, t)))),
      recent)));
  let shown = '';
  async function load() {
    const page = await get('/api/v1/approvals?status=pending&limit=200');
    // What each card shows, by hash: a card whose edits changed is drawn again (its approver must read it
    // again); otherwise re-render only when the queue changed, so a half-typed edit is not wiped.
    const ids = page.items.map((a) => `${a.id}:${a.argumentsHash || ''}:${a.editedArgumentsHash || ''}`).join(',');
    if (ids !== shown) {
      shown = ids;
      clear(list, page.items.length ? page.items.map((a) => approvalCard(a, ctx, () => load()))
        : h('p', { class: 'card', id: 'queue-empty' }, 'Nothing is waiting for a decision.'));
    }
    const done = await Promise.all(['approved', 'rejected', 'expired', 'superseded'].map((s) => get(`/api/v1/approvals?status=${s}&limit=10`)));
    const items = done.flatMap((p) => p.items).sort((x, y) => Date.parse(y.decidedAt || y.expiresAt) - Date.parse(x.decidedAt || x.expiresAt)).slice(0, 15);
    clear(recent, items.length ? items.map((a) => h('tr', {},
      h('td', {}, statusBadge(a.status)), h('td', {}, h('code', {}, a.tool)), h('td', {}, a.agent),
      h('td', {}, h('a', { href: `#/runs/${esc(a.runId)}` }, a.runId.slice(0, 12) + '…')),
      h('td', {}, a.decidedBy || '—'), h('td', {}, a.comment || ''), h('td', {}, timeTag(a.decidedAt || a.expiresAt))))
      : h('tr', {}, h('td', { colspan: 7, class: 'muted' }, 'No decisions yet.')));
  }
  try { await load(); } catch (e) { clear(list, errorBox(e, load)); }
  return every(3000, async () => {
    try { await load(); live.className = 'live'; live.textContent = 'live'; } catch { live.className = 'live off'; live.textContent = 'updates paused'; }
  });
}
