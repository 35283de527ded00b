// Agents: each spec with how it has been doing — completion rate, misroute rate, average tokens.
import { get } from '../api.js';
import { h, clear, fmtPct, fmtNum, errorBox, esc } from '../ui.js';

export async function render(root, route, ctx) {
  clear(root, h('h1', {}, 'Agents'), h('p', { class: 'muted' }, 'Loading…'));
  let agents; let routing;
  try {
    [agents, routing] = await Promise.all([get('/api/v1/agents'), get('/api/v1/stats/agents?hours=168').catch(() => ({ agents: [] }))]);
  } catch (e) { clear(root, h('h1', {}, 'Agents'), errorBox(e)); return null; }
  const mis = new Map(routing.agents.map((a) => [a.agent, a]));
  const delegatedBy = new Map();
  for (const a of agents) for (const w of a.workers) delegatedBy.set(w, [...(delegatedBy.get(w) || []), a.name]);
  clear(root, h('h1', {}, 'Agents'),
    h('p', { class: 'muted' }, `${agents.length} agents. Rates count finished runs; misroutes count delegations of the last 7 days that failed with ORCHESTRATION_ERROR or came back with an empty summary.`),
    h('div', { class: 'agents' }, agents.map((a) => {
      const m = mis.get(a.name);
      const s = a.stats;
      return h('article', { class: 'card agent', id: `agent-${a.name}`, 'data-agent': a.name, 'aria-labelledby': `agent-h-${a.name}` },
        h('div', { class: 'row' }, h('h2', { id: `agent-h-${a.name}` }, a.name), h('code', { class: 'muted' }, a.model)),
        h('p', {}, a.description),
        h('div', { class: 'facts' },
          s.runs === 0 && delegatedBy.has(a.name) ? stat('Own runs', 'none: works as a subagent')
            : [stat('Runs', s.runs), stat('Completion', fmtPct(s.runs ? s.completionRate : null), s.runs && s.completionRate < 0.9),
              stat('Failed', s.failed, s.failed > 0), stat('Avg tokens / run', fmtNum(s.runs ? Math.round(s.averageTokens) : null))],
          a.workers.length ? stat('Misrouted (as orchestrator)', m?.asOrchestrator.rate == null ? '—' : `${fmtPct(m.asOrchestrator.rate)} of ${m.asOrchestrator.delegations}`, m?.asOrchestrator.misrouted > 0) : null,
          delegatedBy.has(a.name) ? [stat('Delegated to it', m?.asWorker.delegations ?? 0), stat('Misrouted to it', m?.asWorker.rate == null ? '—' : fmtPct(m.asWorker.rate), m?.asWorker.misrouted > 0)] : null),
        h('dl', { class: 'kv' },
          h('dt', {}, 'Tools'), h('dd', {}, a.tools.length ? h('div', { class: 'chips' }, a.tools.map((t) => h('span', { class: `chip risk-${t.risk}`, title: t.description }, t.name, t.risk !== 'auto' ? ` · ${t.risk}` : ''))) : '—'),
          h('dt', {}, 'Workers'), h('dd', {}, a.workers.length ? h('div', { class: 'chips' }, a.workers.map((w) => h('a', { class: 'chip', href: `#/agents`, onclick: (e) => { e.preventDefault(); document.getElementById(`agent-${w}`)?.scrollIntoView({ block: 'center' }); document.getElementById(`agent-${w}`)?.focus?.(); } }, w))) : '—'),
          delegatedBy.has(a.name) ? [h('dt', {}, 'Worker of'), h('dd', {}, delegatedBy.get(a.name).join(', '))] : null,
          h('dt', {}, 'Budget'), h('dd', {}, `${a.budget.maxIterations} iterations · ${fmtNum(a.budget.maxTokens)} tokens · ${a.budget.timeoutSeconds} s`),
          h('dt', {}, 'Review'), h('dd', {}, `${a.review}, max depth ${a.maxDepth}`),
          h('dt', {}, 'Source'), h('dd', { class: 'mono' }, a.source)),
        h('details', {}, h('summary', {}, 'Instructions'), h('pre', {}, a.instructions || '—')),
        h('div', { class: 'row' }, h('a', { href: `#/runs?agent=${esc(a.name)}`, class: 'btn small' }, `Runs of ${a.name}`),
          ctx.canOperate ? h('a', { href: `#/submit?agent=${esc(a.name)}`, class: 'btn small' }, 'Start a run') : null));
    })));
  return null;
}

function stat(label, value, bad) {
  return h('div', {}, h('span', { class: 'l' }, label), h('span', { class: 'v', style: bad ? { color: 'var(--bad)' } : undefined }, value ?? '—'));
}
