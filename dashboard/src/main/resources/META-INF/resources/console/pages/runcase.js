// "Save as case" on a finished run's page (docs/replay.md, issue 25): the run's findings and proposed
// actions (GET /api/v1/runs/{id}/case, the recording without expectations) with the operator's
// judgement on them, sent as the expectations of POST /api/v1/runs/{id}/case; the answer is the case
// YAML, to download or to replay at once against the running team. Operators only: a viewer is not
// offered the panel at all.
import { get, post, api } from '../api.js';
import { h, clear, errorBox, esc } from '../ui.js';

/** The panel for run `runId`, or null for a role that cannot record cases. Loads when first opened. */
export function caseSection(runId, ctx) {
  if (!ctx.canOperate) return null;
  const body = h('div', { class: 'case-body' }, h('p', { class: 'muted' }, 'Loading the run\'s findings and actions…'));
  const box = h('details', { class: 'card case-panel', id: 'save-case' },
    h('summary', {}, h('strong', {}, 'Save as case'),
      h('span', { class: 'muted' }, ' — record this run as an incident case with what you judge right, to replay against a changed team')),
    body);
  let loaded = false;
  box.addEventListener('toggle', async () => {
    if (!box.open || loaded) return;
    loaded = true;
    try {
      const recorded = await get(`/api/v1/runs/${esc(runId)}/case`);
      clear(body, caseForm(runId, recorded, ctx));
    } catch (e) {
      loaded = false;
      clear(body, errorBox(e));
    }
  });
  return box;
}

const fieldError = (id) => h('p', { class: 'field-error', id, role: 'alert' });

function describeFinding(f) {
  return [f.severity ? `[${f.severity}]` : null, f.category, f.target ? `on ${f.target}` : null,
    f.description ? `— ${f.description}` : null].filter(Boolean).join(' ');
}

function caseForm(runId, recorded, ctx) {
  const errors = [];   // every error element shown by the last save, cleared before the next
  const name = h('input', { id: 'case-name', name: 'name', value: `run-${runId}`, required: true, spellcheck: 'false',
    'aria-describedby': 'case-name-error', class: 'case-name' });
  const nameError = fieldError('case-name-error');
  const matchBy = h('select', { id: 'case-match' },
    h('option', { value: 'category,target' }, 'category and target'),
    h('option', { value: 'id' }, 'finding id'),
    h('option', { value: 'category' }, 'category'),
    h('option', { value: 'id,category,target' }, 'id, category and target'));

  // Findings: one root cause (a radio, "none" allowed), must find, must NOT find.
  const findings = recorded.findings.map((f, i) => ({
    f,
    root: h('input', { type: 'radio', name: 'case-root', value: String(i), class: 'root-cause', 'aria-label': `root cause: ${describeFinding(f)}` }),
    must: h('input', { type: 'checkbox', class: 'must-find', 'aria-label': `must find: ${describeFinding(f)}` }),
    not: h('input', { type: 'checkbox', class: 'must-not-find', 'aria-label': `must NOT find (red herring): ${describeFinding(f)}` }),
    error: h('p', { class: 'field-error' }),
  }));
  for (const row of findings) {
    // A finding cannot be both expected and a red herring.
    row.must.addEventListener('change', () => { if (row.must.checked) row.not.checked = false; });
    row.not.addEventListener('change', () => { if (row.not.checked) { row.must.checked = false; if (row.root.checked) noRoot.checked = true; } });
    row.root.addEventListener('change', () => { if (row.root.checked) row.not.checked = false; });
  }
  const noRoot = h('input', { type: 'radio', name: 'case-root', value: '', checked: true, id: 'case-root-none' });
  const findingsError = fieldError('case-findings-error');
  const findingsPart = h('fieldset', { class: 'case-part' },
    h('legend', {}, 'Findings'),
    findings.length === 0
      ? h('p', { class: 'muted' }, 'This run reported no findings (no findings_aggregate result).')
      : h('div', { class: 'table-wrap' }, h('table', { class: 'grid', id: 'case-findings' },
        h('thead', {}, h('tr', {}, ['Finding', 'Root cause', 'Must find', 'Must NOT find (red herring)'].map((t) => h('th', { scope: 'col' }, t)))),
        h('tbody', {}, findings.map((r, i) => h('tr', { 'data-finding': String(i), 'data-category': r.f.category || '', 'data-id': r.f.id || '' },
          h('td', {}, h('span', { class: 'mono' }, r.f.id || ''), ' ', describeFinding(r.f), r.error),
          h('td', {}, r.root), h('td', {}, r.must), h('td', {}, r.not)))))),
    findings.length ? h('label', { class: 'row inline' }, noRoot, 'No root cause expected') : null,
    findings.length ? h('div', { class: 'field' }, h('label', { for: 'case-match' }, 'Name each finding by'), matchBy) : null,
    findingsError);

  // The run's proposed actions: expected or forbidden (or neither).
  const actions = recorded.actions.map((a) => ({
    a,
    expected: h('input', { type: 'checkbox', class: 'action-expected', 'aria-label': `expected: ${a.tool}` }),
    forbidden: h('input', { type: 'checkbox', class: 'action-forbidden', 'aria-label': `forbidden: ${a.tool}` }),
    error: h('p', { class: 'field-error' }),
  }));
  for (const row of actions) {
    row.expected.addEventListener('change', () => { if (row.expected.checked) row.forbidden.checked = false; });
    row.forbidden.addEventListener('change', () => { if (row.forbidden.checked) row.expected.checked = false; });
  }
  // Forbidden actions the run did not propose: tool + JSON arguments, as many as wanted.
  const extraRows = h('div', { id: 'case-forbidden-extra' });
  const extras = [];
  const addExtra = () => {
    const n = extras.length;
    const row = {
      tool: h('input', { class: 'forbidden-tool', id: `case-forbidden-tool-${n}`, placeholder: 'tool, e.g. runbook_execute', spellcheck: 'false' }),
      args: h('textarea', { class: 'forbidden-args', id: `case-forbidden-args-${n}`, rows: 2, placeholder: '{"runbook": "restart-db"}', spellcheck: 'false' }),
      toolError: h('p', { class: 'field-error' }),
      argsError: h('p', { class: 'field-error' }),
    };
    extras.push(row);
    extraRows.append(h('div', { class: 'row case-extra', 'data-extra': String(n) },
      h('div', { class: 'field' }, h('label', { for: row.tool.id }, 'Forbidden tool'), row.tool, row.toolError),
      h('div', { class: 'field grow' }, h('label', { for: row.args.id }, 'Arguments that must be among the call\'s (JSON object)'), row.args, row.argsError)));
  };
  addExtra();
  const actionsPart = h('fieldset', { class: 'case-part' },
    h('legend', {}, 'Actions'),
    actions.length === 0
      ? h('p', { class: 'muted' }, 'This run proposed no side-effecting action.')
      : h('div', { class: 'table-wrap' }, h('table', { class: 'grid', id: 'case-actions' },
        h('thead', {}, h('tr', {}, ['Tool', 'Arguments', 'Expected', 'Forbidden'].map((t) => h('th', { scope: 'col' }, t)))),
        h('tbody', {}, actions.map((r, i) => h('tr', { 'data-action': String(i), 'data-tool': r.a.tool },
          h('td', {}, h('span', { class: 'mono' }, r.a.tool), r.error),
          h('td', {}, h('code', { class: 'case-args' }, JSON.stringify(r.a.arguments))),
          h('td', {}, r.expected), h('td', {}, r.forbidden)))))),
    h('p', { class: 'help' }, 'An expected or forbidden action matches a proposed call of the same tool whose arguments include these. Add actions the team must never propose:'),
    extraRows,
    h('button', { type: 'button', class: 'btn small', id: 'case-add-forbidden', onclick: addExtra }, 'Add a forbidden action'));

  // ignoreArguments: per tool the run called (and * for all), argument names a replay ignores when matching.
  const tools = ['*', ...new Set(recorded.calls.map((c) => c.tool))];
  const ignores = tools.map((tool, i) => ({
    tool,
    input: h('input', { class: 'ignore-args', id: `case-ignore-${i}`, 'data-tool': tool, placeholder: tool === '*' ? 'e.g. requestId' : 'e.g. tailLines, since', spellcheck: 'false' }),
    error: h('p', { class: 'field-error' }),
  }));
  const ignorePart = h('fieldset', { class: 'case-part' },
    h('legend', {}, 'Arguments a replay ignores when matching a call to its recording'),
    h('div', { class: 'case-ignore' }, ignores.map((r) => h('div', { class: 'field' },
      h('label', { for: r.input.id }, r.tool === '*' ? 'every tool (*)' : r.tool), r.input, r.error))));

  const formError = fieldError('case-error');
  const save = h('button', { type: 'submit', class: 'btn primary', id: 'case-save' }, 'Save case');
  const result = h('div', { id: 'case-result', 'aria-live': 'polite' });
  const form = h('form', { id: 'case-form', novalidate: true },
    h('div', { class: 'field' }, h('label', { for: 'case-name' }, 'Case name (the file is <name>.yaml)'), name, nameError),
    findingsPart, actionsPart, ignorePart,
    h('div', { class: 'row' }, save), formError, result);

  const ref = (f) => {
    const out = {};
    for (const k of matchBy.value.split(',')) if (f[k]) out[k] = f[k];
    return out;
  };
  const show = (el, input, message, field) => {
    el.textContent = message;
    if (field) el.dataset.field = field;
    input?.setAttribute('aria-invalid', 'true');
    errors.push([el, input]);
  };
  const reset = () => {
    for (const [el, input] of errors.splice(0)) {
      el.textContent = '';
      delete el.dataset.field;
      input?.removeAttribute('aria-invalid');
    }
  };

  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    reset();
    clear(result);
    // Build the expectations, remembering which row each list entry came from so that a 400 naming
    // e.g. expect.forbiddenActions[2].arguments is shown beside that row's field.
    const targets = new Map();
    const expect = { mustFind: [], mustNotFind: [], actions: [], forbiddenActions: [], ignoreArguments: {} };
    const root = findings.find((r) => r.root.checked);
    if (root) { expect.rootCause = ref(root.f); targets.set('expect.rootCause', [root.error, root.root]); }
    for (const r of findings) {
      if (r.must.checked) { targets.set(`expect.mustFind[${expect.mustFind.length}]`, [r.error, r.must]); expect.mustFind.push(ref(r.f)); }
      if (r.not.checked) { targets.set(`expect.mustNotFind[${expect.mustNotFind.length}]`, [r.error, r.not]); expect.mustNotFind.push(ref(r.f)); }
    }
    for (const r of actions) {
      const list = r.expected.checked ? 'actions' : r.forbidden.checked ? 'forbiddenActions' : null;
      if (!list) continue;
      const p = `expect.${list}[${expect[list].length}]`;
      targets.set(p, [r.error, r.expected.checked ? r.expected : r.forbidden]);
      expect[list].push({ tool: r.a.tool, arguments: r.a.arguments });
    }
    let invalid = false;
    for (const r of extras) {
      const tool = r.tool.value.trim();
      const text = r.args.value.trim();
      if (!tool && !text) continue;
      const p = `expect.forbiddenActions[${expect.forbiddenActions.length}]`;
      let args = {};
      if (text) {
        try { args = JSON.parse(text); } catch (e) {
          show(r.argsError, r.args, `Not valid JSON: ${e.message}.`, `${p}.arguments`);
          invalid = true;
        }
      }
      targets.set(`${p}.tool`, [r.toolError, r.tool]);
      targets.set(`${p}.arguments`, [r.argsError, r.args]);
      targets.set(p, [r.toolError, r.tool]);
      expect.forbiddenActions.push({ tool, arguments: args });
    }
    for (const r of ignores) {
      const names = r.input.value.split(',').map((s) => s.trim()).filter(Boolean);
      if (!names.length) continue;
      targets.set(`expect.ignoreArguments.${r.tool}`, [r.error, r.input]);
      expect.ignoreArguments[r.tool] = names;
    }
    const caseName = name.value.trim();
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/.test(caseName)) {
      show(nameError, name, 'Use letters, digits, ".", "_" and "-" (it names the file and the replay\'s case).', 'name');
      invalid = true;
    }
    if (invalid) { form.querySelector('[aria-invalid=true]')?.focus(); return; }

    save.disabled = true;
    try {
      const yaml = await api(`/api/v1/runs/${esc(runId)}/case?name=${esc(caseName)}`, {
        method: 'POST', body: expect, headers: { Accept: 'application/yaml, application/problem+json' },
      });
      showYaml(result, caseName, yaml, ctx);
    } catch (e) {
      const list = Array.isArray(e.problem?.errors) && e.problem.errors.length ? e.problem.errors : null;
      if (e.status === 400 && list) {
        for (const raw of list) {
          const text = raw.startsWith('body: ') ? raw.slice('body: '.length) : raw;
          const at = text.indexOf(': ');
          const field = at < 0 ? 'body' : text.slice(0, at);
          const message = at < 0 ? text : text.slice(at + 2);
          // The most precise row that owns the field, e.g. expect.actions[1] for expect.actions[1].tool.
          let key = field;
          while (key && !targets.has(key)) key = key.includes('.') || key.includes('[') ? key.replace(/(\.[^.[\]]*|\[\d+\])$/, '') : '';
          const [el, input] = targets.get(key) || [formError, null];
          show(el, input, (el.textContent ? el.textContent + ' ' : '') + message, field);
        }
      } else {
        show(formError, null, e.human || e.message);
      }
    } finally {
      save.disabled = false;
    }
  });
  return form;
}

function showYaml(result, caseName, yaml, ctx) {
  const url = URL.createObjectURL(new Blob([yaml], { type: 'application/yaml' }));
  const replayState = h('p', { id: 'case-replay-state', 'aria-live': 'polite' });
  const replay = h('button', { type: 'button', class: 'btn', id: 'case-replay' }, 'Replay now against the running team');
  replay.addEventListener('click', async () => {
    replay.disabled = true;
    clear(replayState, 'Starting…');
    try {
      const r = await post('/api/v1/replays', { name: 'console', suite: [yaml], team: 'running' });
      clear(replayState, 'Replay started: ', h('a', { href: `#/replays/${esc(r.id)}`, id: 'case-replay-link' }, `open replay ${r.id}`),
        ' · ', h('a', { href: '#/replays' }, 'all replays'));
    } catch (e) {
      clear(replayState, h('span', { class: 'field-error' }, e.human || e.message));
      replay.disabled = !ctx.canOperate;
    }
  });
  clear(result,
    h('h3', {}, `Case ${caseName}`),
    h('p', { class: 'row' },
      h('a', { href: url, download: `${caseName}.yaml`, id: 'case-download', class: 'btn' }, `Download ${caseName}.yaml`),
      replay),
    h('p', { class: 'help' }, 'Save it under cases/ and read it before committing it: outputs were redacted when stored, but a case is the run\'s data (docs/replay.md).'),
    replayState,
    h('pre', { id: 'case-yaml', class: 'answer' }, yaml));
}
