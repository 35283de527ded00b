// Replays (docs/replay.md): recorded incident cases replayed against a team, their tools answering
// from the recording. Start one from case names in cadre.replay.cases-dir, follow it, read each case's
// score (root cause, recall, red herrings, forbidden actions, deviations, turns, tokens, cost).
import { get, post } from '../api.js';
import { h, clear, errorBox, fmtPct, fmtNum, timeTag, statusBadge, guard, viewerNote, esc, every } from '../ui.js';

export async function render(root, route, ctx) {
  const id = route.parts[1];
  return id ? renderOne(root, id) : renderList(root, ctx);
}

async function renderList(root, ctx) {
  let page;
  let known;
  try {
    [page, known] = await Promise.all([get('/api/v1/replays?limit=50'), get('/api/v1/replays/cases')]);
  } catch (e) { clear(root, h('h1', {}, 'Replays'), errorBox(e)); return null; }
  // The placeholder and the list name cases that exist (cadre.replay.cases-dir), never made-up ones.
  const cases = h('input', { id: 'replay-cases', name: 'suite', placeholder: known.items.slice(0, 2).join(', ') || 'no case files yet', style: { width: '24rem' } });
  const add = (n) => { cases.value = [...cases.value.split(',').map((x) => x.trim()).filter(Boolean), n].join(', '); };
  const available = known.items.length
    ? h('p', { class: 'help', id: 'replay-known-cases' }, `Cases in ${known.dir}: `,
      known.items.map((n, i) => [i ? ', ' : '', h('button', { type: 'button', class: 'linkish mono', 'data-case': n, onclick: () => add(n) }, n)]))
    : h('p', { class: 'help', id: 'replay-known-cases' }, `No case files in ${known.dir} (cadre.replay.cases-dir): export one from a finished run's page.`);
  const team = h('input', { id: 'replay-team', name: 'team', value: 'running', style: { width: '18rem' } });
  const name = h('input', { id: 'replay-name', name: 'name', value: 'console', style: { width: '10rem' } });
  const error = h('p', { class: 'field-error', id: 'replay-error', role: 'alert' });
  const start = guard(h('button', { type: 'submit', class: 'btn primary', id: 'replay-start' }, 'Replay'), ctx, 'start replays');
  const form = h('form', { class: 'card', style: { maxWidth: '60rem' }, novalidate: true },
    h('div', { class: 'row' },
      h('div', { class: 'field' }, h('label', { for: 'replay-cases' }, 'Cases (names, comma-separated)'), cases),
      h('div', { class: 'field' }, h('label', { for: 'replay-team' }, 'Team (running, or a team YAML path)'), team),
      h('div', { class: 'field' }, h('label', { for: 'replay-name' }, 'Suite name'), name)),
    available,
    h('p', { class: 'help' }, 'Each case runs as a run marked replay: tools answer from the recording, approvals from its recorded decisions, nothing leaves the platform; replay runs are not counted in the overview. Baseline against candidate on the command line, after ',
      h('code', {}, './mvnw -B -q -pl platform-api -am package -DskipTests'), ': ',
      h('code', {}, 'java -jar platform-api/target/platform-api-*.jar replay --suite cases/ --candidate my-team.yaml'), ' (docs/replay.md).'),
    h('div', { class: 'row' }, start, viewerNote(ctx, 'start replays')), error);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    if (!ctx.canOperate) return;
    start.disabled = true;
    try {
      const suite = cases.value.split(',').map((s) => s.trim()).filter(Boolean);
      const r = await post('/api/v1/replays', { suite, team: team.value.trim() || 'running', name: name.value.trim() || 'console' });
      ctx.navigate(`#/replays/${esc(r.id)}`);
    } catch (err) { error.textContent = err.human; start.disabled = false; }
  });
  clear(root, h('h1', {}, 'Replays'), form, h('h2', {}, 'Recent replays'),
    page.items.length === 0 ? h('p', { class: 'muted' }, 'None yet.') : h('div', { class: 'table-wrap' }, h('table', { class: 'grid', id: 'replays-table' },
      h('thead', {}, h('tr', {}, ['Replay', 'Suite', 'Label', 'Team', 'Status', 'Passed', 'Root cause', 'Recall', 'Started'].map((t) => h('th', { scope: 'col' }, t)))),
      h('tbody', {}, page.items.map((r) => h('tr', {},
        h('td', {}, h('a', { href: `#/replays/${esc(r.id)}`, class: 'mono' }, r.id.slice(0, 14))),
        h('td', {}, r.suite), h('td', {}, r.label || '—'), h('td', { class: 'clip', title: r.team }, r.team), h('td', {}, statusBadge(r.status)),
        h('td', {}, r.summary ? `${r.summary.passed} of ${r.summary.cases}` : '—'),
        h('td', {}, r.summary ? `${r.summary.rootCauseFound} of ${r.summary.cases}` : '—'),
        h('td', {}, r.summary ? fmtPct(r.summary.recall) : '—'), h('td', {}, timeTag(r.createdAt))))))));
  return null;
}

function renderOne(root, id) {
  const draw = async () => {
    let r;
    try { r = await get(`/api/v1/replays/${esc(id)}`); } catch (e) { clear(root, h('h1', {}, 'Replay'), errorBox(e)); return true; }
    const head = [h('p', {}, h('a', { href: '#/replays' }, '← Replays')),
      h('h1', {}, `Replay of ${r.suite} `, statusBadge(r.status)),
      h('p', { class: 'muted' }, `team ${r.team}${r.label ? ` (${r.label})` : ''} · ${r.cases.length} cases · started `, timeTag(r.createdAt))];
    const s = r.summary;
    clear(root, head,
      s ? h('div', { class: 'facts', id: 'replay-summary' },
        fact('Passed', `${s.passed} of ${s.cases}`, s.passed < s.cases),
        fact('Root cause found', `${s.rootCauseFound} of ${s.cases}`, s.rootCauseFound < s.cases),
        fact('Recall', fmtPct(s.recall), s.recall < 1), fact('Precision', fmtPct(s.precision)),
        fact('Red herrings', s.redHerrings, s.redHerrings > 0), fact('Missed actions', s.missedActions, s.missedActions > 0),
        fact('Forbidden actions', s.forbiddenProposed, s.forbiddenProposed > 0), fact('Deviations', s.deviations, s.deviations > 0),
        fact('Turns', fmtNum(s.turns)), fact('Tokens', fmtNum(s.tokens)), fact('Cost', s.cost.toFixed(6))) : h('p', { class: 'muted', 'aria-live': 'polite' }, r.error || 'Waiting for its runs to end…'),
      h('h2', {}, 'Cases'),
      h('div', { class: 'table-wrap' }, h('table', { class: 'grid', id: 'replay-cases-table' },
        h('thead', {}, h('tr', {}, ['Case', 'Run', 'Passed', 'Root cause', 'Recall', 'Red herrings', 'Missed', 'Forbidden', 'Deviations', 'Turns', 'Tokens'].map((t) => h('th', { scope: 'col' }, t)))),
        h('tbody', {}, r.cases.map((c) => {
          const sc = c.score;
          return h('tr', {},
            h('td', {}, c.name), h('td', {}, h('a', { href: `#/runs/${esc(c.runId)}` }, statusBadge(c.runStatus))),
            h('td', {}, sc ? (c.passed ? 'yes' : h('span', { style: { color: 'var(--bad)' } }, 'no')) : '—'),
            h('td', {}, sc ? (sc.rootCauseFound ? 'found' : 'missed') : '—'), h('td', {}, sc ? fmtPct(sc.recall) : '—'),
            h('td', { title: sc ? sc.redHerrings.join(', ') : '' }, sc ? sc.redHerrings.length : '—'),
            h('td', { title: sc ? sc.missedActions.join(', ') : '' }, sc ? sc.missedActions.length : '—'),
            h('td', { title: sc ? sc.forbiddenProposed.join(', ') : '' }, sc ? sc.forbiddenProposed.length : '—'),
            h('td', { title: sc ? sc.deviations.join('\n') : '' }, sc ? sc.deviations.length : '—'),
            h('td', {}, sc ? sc.turns : '—'), h('td', {}, sc ? fmtNum(sc.tokens) : '—'));
        })))));
    return r.status !== 'running';
  };
  let done = false;
  draw().then((d) => { done = d; });
  const stop = every(2000, async () => { if (!done) done = await draw(); });
  return stop;
}

function fact(label, value, bad) {
  return h('div', {}, h('span', { class: 'l' }, label), h('span', { class: 'v', style: bad ? { color: 'var(--bad)' } : undefined }, value ?? '—'));
}
