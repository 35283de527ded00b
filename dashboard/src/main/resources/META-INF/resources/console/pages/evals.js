// Evaluations: start a shipped routing suite, follow it, and read its report — routing accuracy,
// misroute rate per worker, decomposition, consistency across repeats, tokens and cost per case.
import { get, post } from '../api.js';
import { h, clear, errorBox, fmtPct, fmtNum, timeTag, statusBadge, guard, viewerNote, esc, every } from '../ui.js';

export async function render(root, route, ctx) {
  const id = route.parts[1];
  return id ? renderOne(root, id) : renderList(root, ctx);
}

async function renderList(root, ctx) {
  let suites; let page;
  try {
    [suites, page] = await Promise.all([get('/api/v1/evals/suites'), get('/api/v1/evals?limit=50')]);
  } catch (e) { clear(root, h('h1', {}, 'Evaluations'), errorBox(e)); return null; }
  const suite = h('select', { id: 'eval-suite', name: 'suite' }, suites.map((s) => h('option', { value: s.name }, `${s.name} (${s.agent}, ${s.cases} cases)`)));
  const repeat = h('input', { id: 'eval-repeat', name: 'repeat', type: 'number', min: 1, max: 20, value: suites[0]?.repeat ?? 1, style: { width: '5rem' } });
  const error = h('p', { class: 'field-error', id: 'eval-error', role: 'alert' });
  const start = guard(h('button', { type: 'submit', class: 'btn primary', id: 'eval-start' }, 'Run evaluation'), ctx, 'run evaluations');
  const form = h('form', { class: 'card', style: { maxWidth: '48rem' }, novalidate: true },
    h('div', { class: 'row' },
      h('div', { class: 'field' }, h('label', { for: 'eval-suite' }, 'Suite'), suite),
      h('div', { class: 'field' }, h('label', { for: 'eval-repeat' }, 'Runs per case'), repeat)),
    h('p', { class: 'help' }, 'Every case runs as an ordinary run of the suite\'s orchestrator (with its real model and costs). Suites of your own: POST /api/v1/evals or java -jar cadre.jar eval --file (docs/evals.md).'),
    h('div', { class: 'row' }, start, viewerNote(ctx, 'run evaluations')), error);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    if (!ctx.canOperate) return;
    start.disabled = true;
    try {
      const ev = await post('/api/v1/evals', { suite: suite.value, repeat: Number(repeat.value) });
      ctx.navigate(`#/evals/${esc(ev.id)}`);
    } catch (err) { error.textContent = err.human; start.disabled = false; }
  });
  clear(root, h('h1', {}, 'Evaluations'), suites.length ? form : h('p', { class: 'muted' }, 'No suites are shipped.'),
    h('h2', {}, 'Recent evaluations'),
    page.items.length === 0 ? h('p', { class: 'muted' }, 'None yet.') : h('div', { class: 'table-wrap' }, h('table', { class: 'grid', id: 'evals-table' },
      h('thead', {}, h('tr', {}, ['Evaluation', 'Suite', 'Agent', 'Status', 'Runs', 'Routing accuracy', 'Misroute rate', 'Started'].map((t) => h('th', { scope: 'col' }, t)))),
      h('tbody', {}, page.items.map((ev) => h('tr', {},
        h('td', {}, h('a', { href: `#/evals/${esc(ev.id)}`, class: 'mono' }, ev.id.slice(0, 13))),
        h('td', {}, ev.suite), h('td', {}, ev.agent), h('td', {}, statusBadge(ev.status)), h('td', {}, `${ev.runs} (×${ev.repeat})`),
        h('td', {}, fmtPct(ev.routingAccuracy)), h('td', {}, fmtPct(ev.misrouteRate)), h('td', {}, timeTag(ev.createdAt))))))));
  return null;
}

function renderOne(root, id) {
  const draw = async () => {
    let ev;
    try { ev = await get(`/api/v1/evals/${esc(id)}`); } catch (e) { clear(root, h('h1', {}, 'Evaluation'), errorBox(e)); return true; }
    const head = [h('p', {}, h('a', { href: '#/evals' }, '← Evaluations')),
      h('h1', {}, `Evaluation of ${ev.suite} `, statusBadge(ev.status)),
      h('p', { class: 'muted' }, `${ev.agent} · ${ev.runs} runs (${ev.repeat} per case) · started `, timeTag(ev.createdAt))];
    if (ev.status === 'running') { clear(root, head, h('p', { class: 'muted', 'aria-live': 'polite' }, 'Waiting for its runs to end…')); return false; }
    if (!ev.report) { clear(root, head, h('div', { class: 'error-box', role: 'alert' }, ev.error || 'No report.')); return true; }
    const s = ev.report.summary;
    clear(root, head,
      h('div', { class: 'facts', id: 'eval-summary' },
        fact('Routing accuracy', fmtPct(s.routingAccuracy), s.routingAccuracy != null && s.routingAccuracy < 0.9),
        fact('Misroute rate', `${fmtPct(s.misrouteRate)} (${s.misroutes} of ${s.delegations})`, s.misroutes > 0),
        fact('Missed workers', s.missed, s.missed > 0),
        fact('Decomposition accuracy', fmtPct(s.decompositionAccuracy)),
        fact('Consistency', fmtPct(s.consistency), s.consistency < 1),
        fact('Fact recall', fmtPct(s.factRecall)),
        fact('Failed runs', s.failedRuns, s.failedRuns > 0),
        fact('Tokens / run', `${fmtNum(Math.round(s.meanInputTokens))} in · ${fmtNum(Math.round(s.meanOutputTokens))} out`),
        fact('Cost / run', s.meanCost == null ? '—' : s.meanCost.toFixed(6))),
      h('h2', {}, 'Workers'),
      h('div', { class: 'table-wrap' }, h('table', { class: 'grid', id: 'eval-workers' },
        h('thead', {}, h('tr', {}, ['Worker', 'Expected', 'Routed', 'Correct', 'Misrouted', 'Missed', 'Misroute rate', 'Recall'].map((t) => h('th', { scope: 'col' }, t)))),
        h('tbody', {}, ev.report.workers.map((w) => h('tr', {},
          h('td', {}, w.worker, w.known ? '' : h('span', { class: 'muted' }, ' (not a worker)')),
          h('td', {}, w.expected), h('td', {}, w.routed), h('td', {}, w.correct),
          h('td', { style: w.misrouted ? { color: 'var(--bad)' } : undefined }, w.misrouted), h('td', {}, w.missed),
          h('td', {}, fmtPct(w.misrouteRate)), h('td', {}, fmtPct(w.recall))))))),
      h('h2', {}, 'Cases'),
      h('div', { class: 'table-wrap' }, h('table', { class: 'grid', id: 'eval-cases' },
        h('thead', {}, h('tr', {}, ['Case', 'Routing', 'Path', 'Consistency', 'Facts', 'Tokens / run', 'Runs'].map((t) => h('th', { scope: 'col' }, t)))),
        h('tbody', {}, ev.report.cases.map((c) => h('tr', {},
          h('td', {}, c.name), h('td', {}, fmtPct(c.routingAccuracy)), h('td', {}, fmtPct(c.decompositionAccuracy)),
          h('td', {}, fmtPct(c.consistency)), h('td', {}, fmtPct(c.factRecall)),
          h('td', {}, `${fmtNum(Math.round(c.meanInputTokens))} / ${fmtNum(Math.round(c.meanOutputTokens))}`),
          h('td', {}, c.attempts.map((a) => h('a', {
            href: `#/runs/${esc(a.runId)}`, class: 'chip', title: `${a.status}; delegated: ${a.delegated.join(', ') || 'nobody'}${a.refused.length ? `; refused: ${a.refused.join(', ')}` : ''}`,
            style: a.routingCorrect === false ? { color: 'var(--bad)' } : undefined,
          }, a.delegated.concat(a.refused).join(' + ') || 'no delegation')))))))));
    return true;
  };
  let done = false;
  draw().then((d) => { done = d; });
  const stop = every(2000, async () => { if (!done) done = await draw(); });
  return stop;
}

function fact(label, value, bad) {
  return h('div', {}, h('span', { class: 'l' }, label), h('span', { class: 'v', style: bad ? { color: 'var(--bad)' } : undefined }, value ?? '—'));
}
