// Submit: start a run on any agent or declared workflow and go straight to its live view.
import { get, post } from '../api.js';
import { h, clear, errorBox, guard, viewerNote, esc } from '../ui.js';

export async function render(root, route, ctx) {
  let agents;
  let workflows;
  try {
    [agents, workflows] = await Promise.all([get('/api/v1/agents'), get('/api/v1/workflows')]);
  } catch (e) { clear(root, h('h1', {}, 'Start a run'), errorBox(e)); return null; }
  // Internal agents and workflows are workers and steps only: nobody starts them directly.
  agents = agents.filter((a) => !a.internal);
  workflows = workflows.filter((w) => !w.internal);
  const chosen = route.params.agent || (agents.find((a) => a.workers.length) || agents[0] || workflows[0])?.name;
  const agent = h('select', { id: 'submit-agent', name: 'agent', required: true, 'aria-describedby': 'agent-desc' },
    h('optgroup', { label: 'Agents' },
      agents.map((a) => h('option', { value: a.name, selected: a.name === chosen }, a.workers.length ? `${a.name} (orchestrator)` : a.name))),
    workflows.length ? h('optgroup', { label: 'Workflows', id: 'submit-workflows' },
      workflows.map((w) => h('option', { value: w.name, selected: w.name === chosen, 'data-workflow': w.type }, `${w.name} (${w.type} workflow)`))) : null);
  const desc = h('p', { class: 'help', id: 'agent-desc' });
  const showDesc = () => {
    const w = workflows.find((x) => x.name === agent.value);
    desc.textContent = w ? `${w.description} Steps run: ${w.agents.join(', ')}.` : agents.find((a) => a.name === agent.value)?.description || '';
  };
  agent.addEventListener('change', showDesc);
  showDesc();
  const input = h('textarea', { id: 'submit-input', name: 'input', rows: 5, required: true, 'aria-describedby': 'input-error', placeholder: 'e.g. check host web-1: users report slow pages' });
  // The host the request is about (the host team investigates it in Prometheus): sent as context.host.
  const host = h('input', { id: 'submit-host', name: 'host', type: 'text', maxlength: 253, autocomplete: 'off',
    'aria-describedby': 'host-help', placeholder: 'e.g. db-2 or db-2:9100' });
  const context = h('textarea', { id: 'submit-context', name: 'context', rows: 3, 'aria-describedby': 'context-help' });
  const error = h('p', { class: 'field-error', id: 'input-error', role: 'alert' });
  const submit = guard(h('button', { type: 'submit', class: 'btn primary', id: 'submit-run' }, 'Start run'), ctx, 'start runs');
  const form = h('form', { class: 'card', style: { maxWidth: '48rem' }, novalidate: true },
    h('div', { class: 'field' }, h('label', { for: 'submit-agent' }, 'Agent'), agent, desc),
    h('div', { class: 'field' }, h('label', { for: 'submit-input' }, 'Request'), input, error),
    h('div', { class: 'field' }, h('label', { for: 'submit-host' }, 'Host (optional)'), host,
      h('p', { class: 'help', id: 'host-help' }, 'The host this is about, as Prometheus knows it (name, or instance with its port).')),
    h('div', { class: 'field' }, h('label', { for: 'submit-context' }, 'Context (optional)'), context,
      h('p', { class: 'help', id: 'context-help' }, 'Text, or JSON (sent as JSON when it parses).')),
    h('div', { class: 'row', style: { marginTop: '.6rem' } }, submit, viewerNote(ctx, 'start runs')));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    if (!ctx.canOperate) return;
    error.textContent = '';
    if (!input.value.trim()) { error.textContent = 'Say what the agent should do.'; input.setAttribute('aria-invalid', 'true'); input.focus(); return; }
    input.removeAttribute('aria-invalid');
    let ctxValue = context.value.trim() || undefined;
    if (ctxValue) { try { ctxValue = JSON.parse(ctxValue); } catch { /* plain text context */ } }
    const target = host.value.trim();
    if (target) {
      const instance = /:\d{1,5}$/.test(target) ? target : undefined;
      const given = { name: instance ? target.replace(/:\d{1,5}$/, '') : target, instance, source: 'host field' };
      if (ctxValue === undefined) ctxValue = { host: given };
      else if (typeof ctxValue === 'object' && !Array.isArray(ctxValue)) ctxValue = { ...ctxValue, host: given };
      else ctxValue = { host: given, note: ctxValue };
    }
    submit.disabled = true;
    try {
      const run = await post('/api/v1/runs', { agent: agent.value, input: input.value.trim(), context: ctxValue });
      ctx.navigate(`#/runs/${esc(run.id)}`);
    } catch (err) {
      error.textContent = err.human;
      submit.disabled = false;
    }
  });
  clear(root, h('h1', {}, 'Start a run'), form);
  return null;
}
