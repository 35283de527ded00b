// Run detail: facts, the live call chain (stored spans merged with the SSE events of work still in
// progress), node details, pending approvals of this run, the answer and each subagent's outcome.
import { get, post, followRun } from '../api.js';
import { h, clear, statusBadge, categoryBadge, replayBadge, fmtDuration, fmtNum, timeTag, errorBox, toast, guard, kv, pretty, markdown, readable, TERMINAL, esc, every } from '../ui.js';
import { CallTree, failed } from '../calltree.js';
import { approvalCard } from './approvals.js';
import { caseSection } from './runcase.js';

const ms = (iso) => (iso ? Date.parse(iso) : null);

export async function render(root, route, ctx) {
  const id = route.parts[1];
  // The call chain does not depend on the run's JSON: ask for both at once, so the chain is not
  // one more round trip late (measured with a 500-node chain: docs/benchmarks/console.md).
  const firstTrace = get(`/api/v1/runs/${esc(id)}/trace`);
  firstTrace.catch(() => {});
  let run;
  try {
    run = await get(`/api/v1/runs/${esc(id)}`);
  } catch (e) {
    clear(root, h('h1', {}, 'Run'), errorBox(e), h('p', {}, h('a', { href: '#/runs' }, '← All runs')));
    return null;
  }
  let trace = null;
  const sessions = new Map();   // live sessions from SSE: id -> {agent, parent, startMs, endMs, status}
  const calls = new Map();      // in-flight tool calls: callId -> {tool, session, startMs, worker}
  const events = [];
  let stopStream = null;
  let stopPoll = null;
  let streamState = 'connecting';

  const head = h('div');
  // Progress where the run knows it: a workflow's steps, an orchestrator's delegations done, or the
  // agent loop's iteration out of its budget (the latest main-stream status event that carries one).
  const progressEl = h('div', { class: 'progress', id: 'run-progress', hidden: true });
  let progress = run.progress || null;
  const renderProgress = () => {
    const p = TERMINAL.includes(run.status) ? null : progress;
    progressEl.hidden = !p;
    if (!p) return;
    const pct = p.fraction == null ? null : Math.round(p.fraction * 100);
    clear(progressEl,
      h('span', { class: 'progress-text' }, p.message || ''),
      pct == null ? null : h('progress', { max: 100, value: pct, 'aria-label': `${pct} percent` }),
      pct == null ? null : h('span', { class: 'muted' }, ` ${pct} %`));
  };
  const liveEl = h('span', { class: 'live', id: 'stream-state' });
  const approvalsEl = h('div', { class: 'approvals', id: 'run-approvals' });
  const outcomeEl = h('div');
  // "Save as case" (operators, finished runs): built once, so the re-renders while the page settles
  // after the run's end do not throw away what the operator is editing.
  const caseEl = h('div', { id: 'run-case' });
  const renderCase = () => {
    if (caseEl.firstChild || !TERMINAL.includes(run.status)) return;
    const panel = caseSection(run.id, ctx);
    if (panel) caseEl.append(panel);
  };
  // The root agent's text as a streaming model produces it: partial pieces grow the current turn,
  // the turn's whole (stored) text then replaces them.
  const liveTextEl = h('pre', { class: 'answer', id: 'live-text', hidden: true });
  const liveTurns = [];
  let liveTurn = '';
  const renderLiveText = () => {
    const text = [...liveTurns, liveTurn].filter(Boolean).join('\n\n');
    liveTextEl.hidden = !text;
    liveTextEl.textContent = text;
  };
  const detail = h('div', { class: 'card panel', id: 'node-detail', 'aria-live': 'polite' },
    h('h2', { style: { marginTop: 0 } }, 'Node details'), h('p', { class: 'muted' }, 'Select a node (click, or arrow keys and Enter) to see its inputs, outputs and error.'));
  const tree = new CallTree({ onSelect: (n) => showNode(n) });
  const search = h('input', { type: 'search', id: 'tree-filter', placeholder: 'agent, tool, model…', 'aria-label': 'Filter the call chain' });
  search.addEventListener('input', () => { tree.filter = search.value.trim(); tree.flatten(); });
  const onlyFail = h('input', { type: 'checkbox', id: 'only-failures' });
  onlyFail.addEventListener('change', () => { tree.onlyFailures = onlyFail.checked; tree.flatten(); });
  const chainInfo = h('span', { class: 'muted', id: 'chain-info' });
  const traceLink = h('span');
  const eventList = h('ol', { class: 'events', id: 'event-log', reversed: true });

  clear(root,
    h('p', {}, h('a', { href: '#/runs' }, '← All runs')),
    head,
    approvalsEl,
    h('section', { 'aria-labelledby': 'chain-h' },
      h('div', { class: 'row' }, h('h2', { id: 'chain-h' }, 'Call chain'), liveEl, chainInfo, h('span', { class: 'spacer' }), traceLink),
      h('div', { class: 'toolbar' },
        search,
        h('label', { class: 'row', style: { fontWeight: 'normal', gap: '.3rem' } }, onlyFail, 'Only failures'),
        h('button', { type: 'button', class: 'btn small', onclick: () => tree.setAll(true) }, 'Expand all'),
        h('button', { type: 'button', class: 'btn small', onclick: () => tree.setAll(false) }, 'Collapse all'),
        h('span', { class: 'legend', 'aria-hidden': 'true' },
          h('span', {}, h('i', { style: { background: 'var(--bar-agent)' } }), 'agent'),
          h('span', {}, h('i', { style: { background: 'var(--bar-tool)' } }), 'tool'),
          h('span', {}, h('i', { style: { background: 'var(--bar-model)' } }), 'model call'),
          h('span', {}, '↓ tokens in · ↑ tokens out (own; "tree" adds the workers\') · N tools called'))),
      h('div', { class: 'chain' }, tree.el, detail)),
    h('h2', {}, 'Model output'), liveTextEl,
    outcomeEl,
    caseEl,
    h('details', {}, h('summary', {}, 'Event stream (newest first)'), eventList));

  function renderHead() {
    const terminal = TERMINAL.includes(run.status);
    if (run.progress) progress = run.progress;
    renderProgress();
    const cancel = h('button', { type: 'button', class: 'btn danger', id: 'cancel-run', disabled: terminal }, 'Cancel run');
    guard(cancel, ctx, 'cancel runs');
    cancel.addEventListener('click', async () => {
      if (!confirm(`Cancel run ${run.id} (${run.agent})?`)) return;
      try { run = await post(`/api/v1/runs/${esc(run.id)}/cancel`); toast('Cancel requested', 'ok'); renderHead(); } catch (e) { toast(e.human, 'error'); }
    });
    // A run that did not complete can be started again: a new run, same agent and input, linked to this one.
    const retryable = ['failed', 'canceled', 'rejected'].includes(run.status);
    const retry = h('button', { type: 'button', class: 'btn', id: 'retry-run' }, 'Retry run');
    guard(retry, ctx, 'retry runs');
    retry.addEventListener('click', async () => {
      if (!confirm(`Start run ${run.agent} again with the same input (a new run, linked to ${run.id})?`)) return;
      try {
        const next = await post(`/api/v1/runs/${esc(run.id)}/retry`);
        toast(`Retry started: ${next.id}`, 'ok');
        location.hash = `#/runs/${next.id}`;
      } catch (e) { toast(e.human, 'error'); }
    });
    clear(head,
      h('div', { class: 'run-head' },
        h('h1', {}, `${run.agent}`), h('span', { id: 'run-status' }, statusBadge(run.status)), categoryBadge(run.error?.category), replayBadge(run.replay),
        h('span', { class: 'muted mono' }, run.id), h('span', { class: 'spacer' }), terminal ? null : cancel, retryable ? retry : null),
      run.retryOf ? h('p', { class: 'muted' }, 'Retry of ', h('a', { href: `#/runs/${esc(run.retryOf)}` }, run.retryOf)) : null,
      progressEl,
      h('div', { class: 'facts' },
        fact('Duration', fmtDuration(run.durationMs) + (terminal ? '' : ' …')),
        fact('Tokens in / out', `${fmtNum(run.usage.inputTokens)} / ${fmtNum(run.usage.outputTokens)}`),
        run.cost && (run.cost.amount > 0 || run.cost.max) ? fact('Cost', `${run.cost.amount.toFixed(6)}${run.cost.max ? ' of ' + run.cost.max : ''} ${run.cost.currency || ''}`) : null,
        fact('Iterations', run.iterations),
        fact('Tools', run.toolsCalled.length ? run.toolsCalled.join(', ') : '—'),
        fact('Subagents', run.subagents.length || '—'),
        fact('Submitted', timeTag(run.createdAt)),
        fact('By', run.submittedBy),
        run.resumeCount ? fact('Resumed', `${run.resumeCount}×`) : null),
      h('h2', {}, 'Input'), h('pre', { class: 'answer' }, run.input),
      run.context ? [h('h3', {}, 'Context'), h('pre', {}, pretty(run.context))] : null);
  }

  function renderOutcome() {
    const subs = run.subagents || [];
    clear(outcomeEl,
      run.error ? [h('h2', {}, 'Error'), h('div', { class: 'error-box', id: 'run-error' },
        h('strong', {}, run.error.category), run.error.code ? ` (${run.error.code})` : '', ': ', run.error.message || '')] : null,
      h('h2', {}, 'Final answer'),
      run.result ? markdown(run.resultText ?? run.result, { class: 'answer', id: 'run-result' })
        : h('p', { class: 'muted', id: 'run-result' }, TERMINAL.includes(run.status) ? 'No answer.' : 'Not yet: the run is still working.'),
      h('h2', {}, 'Subagent outcomes'),
      subs.length ? h('div', { class: 'table-wrap' }, h('table', { class: 'grid', id: 'subagents' },
        h('thead', {}, h('tr', {}, ['Worker', 'Status', 'Summary', 'Tokens in / out', 'Tools', 'Duration'].map((t) => h('th', { scope: 'col' }, t)))),
        h('tbody', {}, flatSubs(subs).map(({ s, depth }) => h('tr', { 'data-worker': s.worker },
          h('td', { style: { paddingLeft: `${0.5 + depth}rem` } }, s.worker),
          h('td', {}, statusBadge(s.status), ' ', categoryBadge(s.error?.category)),
          h('td', {}, s.summary ? markdown(s.summaryText ?? s.summary, { class: 'summary' }) : h('span', { class: 'muted' }, '(empty summary)'), s.error?.message ? h('div', { class: 'muted' }, s.error.message) : null),
          h('td', { class: 'num' }, `${fmtNum(s.usage?.inputTokens)} / ${fmtNum(s.usage?.outputTokens)}`),
          h('td', {}, (s.toolsCalled || []).join(', ') || '—'),
          h('td', { class: 'num' }, fmtDuration(s.durationMs)))))))
        : h('p', { class: 'muted' }, TERMINAL.includes(run.status) ? 'This run delegated to no worker.' : 'Shown when the run ends; live progress is in the call chain above.'));
  }

  async function renderApprovals() {
    try {
      const page = await get(`/api/v1/approvals?status=pending&runId=${esc(run.id)}`);
      clear(approvalsEl, page.items.length ? [h('h2', {}, 'Waiting for a human')] : null,
        page.items.map((a) => approvalCard(a, ctx, () => { renderApprovals(); refresh(); })));
    } catch { /* the run page stays useful without the queue */ }
  }

  function showNode(n) {
    // A subagent's task and answer are the arguments and result of the worker call that spawned it.
    const call = n.kind === 'agent' && n.parent?.kind === 'tool' ? n.parent : null;
    const input = n.inputSummary || call?.inputSummary;
    const output = n.outputSummary || call?.outputSummary;
    clear(detail,
      h('h2', { style: { marginTop: 0 } }, n.label),
      h('div', { class: 'row' }, h('span', { class: `kind kind-${n.kind}` }, n.kind), statusBadge(n.status), categoryBadge(n.failureCategory)),
      kv([
        ['Agent', n.agent], n.tool ? ['Tool', n.tool] : null, n.model ? ['Model', n.model] : null,
        ['Session', n.sessionId ? h('span', { class: 'mono' }, n.sessionId) : null],
        ['Started', timeTag(n.start)], ['Duration', fmtDuration(n.durationMs) + (n.status === 'running' ? ' (running)' : '')],
        [n.kind === 'agent' ? 'Own tokens in / out' : 'Tokens in / out', n.inputTokens != null ? `${n.inputTokens} / ${n.outputTokens ?? 0}` : null],
        n.treeInputTokens != null ? ['Tree tokens in / out (with workers)', `${n.treeInputTokens} / ${n.treeOutputTokens ?? 0}`] : null,
        n.cost != null ? ['Cost', `${n.cost.toFixed(6)} ${run.cost?.currency || ''}`] : null,
        n.fallbackModel ? ['Answered by (fallback)', n.fallbackModel] : null,
        ['Tools called', n.toolsCalled?.length ? n.toolsCalled.join(', ') : null],
        n.iterations != null ? ['Iterations', n.iterations] : null,
        n.depth != null ? ['Depth', n.depth] : null,
        ['Span', n.spanId ? h('span', { class: 'mono' }, n.spanId) : 'not stored yet (live)'],
      ]),
      n.error ? [h('h3', {}, 'Error'), h('div', { class: 'error-box' }, n.error)] : null,
      h('h3', {}, call ? 'Task (redacted)' : 'Input (redacted)'),
      input ? readable(input, { class: 'node-input' })
        : h('p', { class: 'muted' }, n.kind === 'model' ? 'Model calls keep no content in spans.' : 'Not captured (cadre.tracing.capture-content is off).'),
      h('h3', {}, call ? 'Answer to the orchestrator (redacted)' : 'Output (redacted)'),
      output ? readable(output, { class: 'node-output' })
        : h('p', { class: 'muted' }, n.status === 'running' ? 'Still running.' : n.kind === 'model' ? 'Tokens above; no content kept.' : 'Not captured.'),
      n.outputHandle ? fullOutput(n) : null);
  }

  /**
   * The full output behind a capped tool result (tool output budgets): closed until asked for, then
   * read a page at a time from GET /api/v1/runs/{id}/tool-outputs/{handle}, optionally filtered.
   */
  function fullOutput(n) {
    const lines = h('pre', { class: 'full-output-lines' });
    const status = h('p', { class: 'muted' });
    const more = h('button', { type: 'button', class: 'full-output-more', hidden: true }, 'More lines');
    const filter = h('input', { type: 'search', class: 'full-output-grep', placeholder: 'only lines containing…', 'aria-label': 'Filter the full output' });
    let next = 0;
    const load = async (reset) => {
      if (reset) { next = 0; lines.textContent = ''; }
      const grep = filter.value.trim();
      try {
        const page = await get(`/api/v1/runs/${esc(run.id)}/tool-outputs/${esc(n.outputHandle)}?offset=${next}&limit=500${grep ? '&grep=' + esc(grep) : ''}`);
        lines.append(page.lines.map((l) => `${l.number}: ${l.text}\n`).join(''));
        next = page.nextOffset;
        more.hidden = next === null || next === undefined;
        status.textContent = `${fmtNum(page.storedLines)} lines kept of ${fmtNum(page.originalBytes)} bytes`
          + (page.truncated ? ' (the middle was too big to keep)' : '') + ' · redacted'
          + (more.hidden ? ' · end of output' : ` · next line ${next}`);
      } catch (e) {
        status.replaceChildren(errorBox(e));
      }
    };
    more.addEventListener('click', () => load(false));
    filter.addEventListener('change', () => load(true));
    const box = h('details', { class: 'full-output' },
      h('summary', {}, `Show full output (the tool returned ${fmtNum(n.outputOriginalBytes)} bytes; the model read ${fmtNum(n.outputDeliveredBytes)})`),
      filter, status, lines, more);
    box.addEventListener('toggle', () => { if (box.open && !lines.textContent) load(true); });
    return box;
  }

  /** Stored spans first; sessions and tool calls seen on the stream but not stored yet are added as running nodes. */
  function assemble() {
    const now = Date.now();
    const bySession = new Map();
    const roots = [];
    const orphans = [];
    const convert = (node, parent) => {
      const n = {
        ...node, key: node.spanId, label: labelOf(node), startMs: ms(node.start),
        children: [], parent,
      };
      n.children = node.children.map((c) => convert(c, n));
      // A workflow's span stands for the run's session: its steps' sessions hang under it.
      if ((n.kind === 'agent' || n.kind === 'workflow') && n.sessionId) bySession.set(n.sessionId, n);
      return n;
    };
    for (const r of trace?.roots || []) {
      const n = convert(r);
      if (r.parentSpanId) orphans.push(n); else roots.push(n);
    }
    const terminal = TERMINAL.includes(run.status);
    // Synthetic agent nodes for sessions still working (their span is stored only when they end).
    const synth = new Map();
    for (const [sid, s] of sessions) {
      if (bySession.has(sid)) continue;
      const n = {
        key: 'live:' + sid, kind: 'agent', name: 'invoke_agent ' + s.agent, label: s.agent, agent: s.agent, sessionId: sid,
        startMs: s.startMs, start: new Date(s.startMs).toISOString(), durationMs: (s.endMs ?? (terminal ? ms(run.finishedAt) ?? now : now)) - s.startMs,
        status: s.status || (terminal ? run.status : 'running'), failureCategory: s.category,
        // A session's events report the tokens of its whole subtree; its own are known once its span is stored.
        treeInputTokens: s.usage?.inputTokens, treeOutputTokens: s.usage?.outputTokens,
        toolsCalled: [], children: [], live: true,
      };
      synth.set(sid, n);
    }
    const sessionNode = (sid) => bySession.get(sid) || synth.get(sid);
    for (const [sid, n] of synth) {
      const parent = sessions.get(sid).parent;
      const p = parent && sessionNode(parent);
      if (p) p.children.push(n); else roots.push(n);
    }
    for (const o of orphans) {
      // A stored span whose parent is not stored yet hangs under its session's node.
      const sid = o.kind === 'agent' ? sessions.get(o.sessionId)?.parent : o.sessionId;
      const p = sid && sessionNode(sid);
      if (p && p !== o) p.children.push(o); else roots.push(o);
    }
    for (const [callId, c] of calls) {
      if (c.done || c.worker) continue;
      const p = sessionNode(c.session);
      const n = { key: 'call:' + callId, kind: 'tool', name: 'execute_tool ' + c.tool, label: c.tool, tool: c.tool, sessionId: c.session,
        startMs: c.startMs, start: new Date(c.startMs).toISOString(), durationMs: (terminal ? ms(run.finishedAt) ?? now : now) - c.startMs,
        status: c.waiting ? 'input-required' : 'running', toolsCalled: [], children: [], live: true, inputSummary: c.args };
      if (p) p.children.push(n); else roots.push(n);
    }
    let origin = Infinity;
    let end = 0;
    let count = 0;
    const finish = (n) => {
      count++;
      n.children.sort((a, b) => a.startMs - b.startMs);
      n.children.forEach(finish);
      n.hasFailure = failed(n) || n.children.some((c) => c.hasFailure);
      n.hasAgentBelow = n.children.some((c) => c.kind === 'agent' || c.hasAgentBelow);
      n.searchText = [n.label, n.name, n.agent, n.tool, n.model, n.status, n.failureCategory].filter(Boolean).join(' ').toLowerCase();
      origin = Math.min(origin, n.startMs);
      end = Math.max(end, n.startMs + n.durationMs);
    };
    roots.sort((a, b) => a.startMs - b.startMs);
    roots.forEach(finish);
    if (!Number.isFinite(origin)) origin = ms(run.startedAt) || now;
    tree.setData(roots, { origin, total: Math.max(1, end - origin) });
    chainInfo.textContent = `${count} nodes${trace ? ` · ${trace.spanCount} spans stored` : ''}`;
    if (!count) chainInfo.textContent = terminal ? 'No spans were stored for this run.' : 'Waiting for the first step…';
    // The trace answer says whether every span is stored; a tree without its last spans is never
    // shown as the final one (spans reach the store a moment after they end).
    if (terminal && trace && trace.complete === false) {
      chainInfo.append(' · ', h('span', { id: 'trace-arriving', class: 'muted' },
        Date.now() < traceGiveUpAt ? 'trace still arriving…' : 'trace incomplete: some spans were not stored'));
    }
    if (trace?.externalUrl) {
      clear(traceLink, h('a', { href: trace.externalUrl, target: '_blank', rel: 'noopener', id: 'external-trace' }, 'Open in trace UI ↗'));
    } else if (trace?.traceId) {
      clear(traceLink, h('span', { class: 'muted', title: 'Set cadre.tracing.external-url-template to link a tracing UI' }, 'trace ', h('code', {}, trace.traceId)));
    }
  }

  function onEvent(e) {
    if (e.type === 'status' && !e.parentSessionId && e.progress) {
      progress = { ...e.progress, message: e.message };
      renderProgress();
    }
    if (e.type === 'text_delta' && !e.parentSessionId) {
      if (e.partial) { liveTurn += e.text || ''; renderLiveText(); return; }
      liveTurns.push(e.text || ''); liveTurn = ''; renderLiveText();
    } else if (e.type === 'text_delta' && e.partial) {
      return; // a worker's streamed pieces: its whole turn text follows
    }
    const at = ms(e.at) || Date.now();
    events.unshift(e);
    if (events.length > 400) events.length = 400;
    switch (e.type) {
      case 'run_started':
        if (!sessions.has(e.sessionId)) sessions.set(e.sessionId, { agent: e.agent, parent: e.parentSessionId, startMs: at });
        break;
      case 'subagent_started':
        sessions.set(e.childSessionId, { agent: e.worker, parent: e.sessionId, startMs: at });
        break;
      case 'subagent_finished': {
        const s = sessions.get(e.childSessionId);
        if (s) Object.assign(s, { endMs: at, status: e.status, usage: e.usage });
        break;
      }
      case 'tool_call_start':
        calls.set(e.callId + '@' + e.sessionId, { tool: e.tool, session: e.sessionId, startMs: at, worker: !!e.worker, args: JSON.stringify(e.arguments) });
        break;
      case 'approval_requested': {
        const c = calls.get(e.request?.callId + '@' + e.sessionId);
        if (c) c.waiting = true;
        renderApprovals();
        break;
      }
      case 'approval_resolved': {
        const c = calls.get(e.callId + '@' + e.sessionId);
        if (c) c.waiting = false;
        renderApprovals();
        break;
      }
      case 'tool_result': {
        const c = calls.get(e.callId + '@' + e.sessionId);
        if (c) c.done = true;
        break;
      }
      case 'done': case 'error': {
        const s = sessions.get(e.sessionId);
        if (s) Object.assign(s, { endMs: at, status: e.type === 'done' ? 'ok' : e.status, category: e.error?.category, usage: e.usage });
        if (!e.parentSessionId) { stopStream?.(); stopStream = null; setStream('ended'); refresh(); }
        break;
      }
      default: break;
    }
    scheduleEvents();
    scheduleAssemble();
  }

  let eventsQueued = false;
  function scheduleEvents() {
    if (eventsQueued) return;
    eventsQueued = true;
    setTimeout(() => {
      eventsQueued = false;
      clear(eventList, events.slice(0, 200).map((e) => h('li', {}, `#${e.seq} ${e.type} · ${e.agent || ''}${e.tool ? ' · ' + e.tool : ''}${e.worker ? ' → ' + e.worker : ''}${e.status ? ' · ' + e.status : ''}${e.text && e.type !== 'text_delta' ? ' · ' + e.text.slice(0, 120) : ''}`)));
    }, 250);
  }
  let assembleQueued = false;
  function scheduleAssemble() {
    if (assembleQueued) return;
    assembleQueued = true;
    requestAnimationFrame(() => { assembleQueued = false; assemble(); });
  }

  function setStream(state) {
    streamState = state;
    liveEl.className = 'live' + (state === 'open' ? '' : ' off');
    liveEl.textContent = { open: 'live', connecting: 'connecting…', reconnecting: 'reconnecting…', ended: 'run ended', closed: 'stream closed' }[state] || state;
  }

  let settleUntil = 0;
  // How long an ended run's page keeps asking for the spans still missing from its trace.
  let traceGiveUpAt = Date.now() + 60000;
  const traceArriving = () => TERMINAL.includes(run.status) && trace?.complete === false && Date.now() < traceGiveUpAt;
  async function refresh() {
    const wasTerminal = TERMINAL.includes(run.status);
    [run, trace] = await Promise.all([get(`/api/v1/runs/${esc(id)}`), get(`/api/v1/runs/${esc(id)}/trace`)]);
    if (TERMINAL.includes(run.status) && !wasTerminal) settleUntil = Date.now() + 3000;
    renderHead();
    renderOutcome();
    renderCase();
    assemble();
    if (TERMINAL.includes(run.status) && Date.now() > settleUntil && !traceArriving()) {
      // Spans are stored shortly after they end: poll until the trace says it is whole (or a
      // minute has passed), then stop.
      stopPoll?.(); stopPoll = null;
      assemble();
    }
  }

  renderHead();
  renderOutcome();
  renderCase();
  try { trace = await firstTrace; } catch (e) { chainInfo.textContent = 'Call chain unavailable: ' + e.human; }
  assemble();
  renderApprovals();
  if (TERMINAL.includes(run.status)) {
    setStream('ended');
    // Spans are stored a moment after they end: a run that has only just ended (a short workflow
    // opened from the submit page) may still miss its last spans, e.g. its root. Poll a little.
    if (traceArriving() || (run.finishedAt && Date.now() - Date.parse(run.finishedAt) < 15000)) {
      settleUntil = Date.now() + 3000;
      stopPoll = every(1000, refresh);
    }
  } else {
    setStream('connecting');
    stopStream = followRun(run.id, onEvent, async (state) => {
      setStream(state);
      if (state !== 'open') {
        try { await refresh(); if (TERMINAL.includes(run.status)) { stopStream?.(); stopStream = null; setStream('ended'); } } catch { /* keep trying */ }
      }
    });
    settleUntil = Infinity;
    stopPoll = every(1500, async () => {
      if (TERMINAL.includes(run.status) && settleUntil === Infinity) settleUntil = Date.now() + 3000;
      await refresh();
    });
  }
  return () => { stopStream?.(); stopPoll?.(); };
}

function fact(label, value) {
  return h('div', {}, h('span', { class: 'l' }, label), h('span', { class: 'v' }, value ?? '—'));
}

function labelOf(n) {
  if (n.kind === 'agent' || n.kind === 'workflow') return n.agent || n.name;
  if (n.kind === 'tool') return n.tool || n.name;
  if (n.kind === 'model') return n.model || n.name;
  return n.name;
}

function flatSubs(subs, depth = 0, out = []) {
  for (const s of subs) {
    out.push({ s, depth });
    if (s.subagents?.length) flatSubs(s.subagents, depth + 1, out);
  }
  return out;
}
