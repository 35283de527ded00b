// The call chain as one virtualised tree + waterfall: a row per node (agent, tool, model), its
// status, failure category, tokens, tools and duration at a glance, its bar on a shared time axis.
// Only the rows in view are in the DOM, so a chain of thousands of nodes scrolls as fast as ten.
import { h, clear, fmtDuration, fmtNum, statusBadge, categoryBadge } from './ui.js';

const ROW = 30;
const OVERSCAN = 12;

export function failed(n) {
  return ['failed', 'error', 'timeout', 'budget_exceeded', 'denied'].includes(n.status) || !!n.failureCategory;
}

export class CallTree {
  constructor({ onSelect }) {
    this.onSelect = onSelect;
    this.roots = [];
    this.expanded = new Map();  // key -> bool (absent: default)
    this.selected = null;
    this.focusIndex = 0;
    this.onlyFailures = false;
    this.filter = '';
    this.rows = [];
    this.scroll = h('div', { class: 'tree-scroll', role: 'tree', 'aria-label': 'Call chain', tabindex: '0', id: 'call-tree' });
    this.spacer = h('div', { class: 'tree-spacer' });
    this.scroll.append(this.spacer);
    this.axis = h('span', { class: 'meta' });
    this.head = h('div', { class: 'tree-head', 'aria-hidden': 'true' },
      h('div', {}, 'Node · status · tokens in/out · tools · duration'), h('div', { class: 'row' }, 'Timeline ', this.axis));
    this.el = h('div', { class: 'card', style: { padding: 0 } }, this.head, this.scroll);
    let pending = false;
    this.scroll.addEventListener('scroll', () => {
      if (pending) return;
      pending = true;
      requestAnimationFrame(() => { pending = false; this.paint(); });
    });
    this.scroll.addEventListener('keydown', (e) => this.key(e));
    this.scroll.addEventListener('click', (e) => {
      const row = e.target.closest('.tree-row');
      if (!row) return;
      const i = Number(row.dataset.index);
      if (e.target.closest('.twisty')) this.toggle(i);
      else this.select(i);
    });
    new ResizeObserver(() => this.paint()).observe(this.scroll);
  }

  setData(roots, span) {
    this.roots = roots;
    this.span = span;  // { origin, total } in ms
    this.axis.textContent = `0 → ${fmtDuration(span.total)}`;
    this.flatten();
  }

  isOpen(n, depth) {
    const v = this.expanded.get(n.key);
    if (v !== undefined) return v;
    // Open by default: agents and the worker calls leading to subagents (so every subagent is
    // visible), and anything on a failure's path; plain tool and model calls are leaves anyway.
    return n.kind === 'agent' || n.kind === 'workflow' || n.hasAgentBelow || n.hasFailure || depth < 1;
  }

  flatten() {
    const rows = [];
    const f = this.filter.toLowerCase();
    const filtering = this.onlyFailures || !!f;
    const keep = new Set();
    // A node stays when it matches or leads to a match, so a hit deep in the chain keeps its path.
    const mark = (n) => {
      let k = (!this.onlyFailures || failed(n)) && (!f || n.searchText.includes(f));
      for (const c of n.children) if (mark(c)) k = true;
      if (k) keep.add(n.key);
      return k;
    };
    if (filtering) this.roots.forEach(mark);
    const walk = (n, depth) => {
      if (filtering && !keep.has(n.key)) return;
      const open = filtering ? true : this.isOpen(n, depth);
      rows.push({ n, depth, open });
      if (open) for (const c of n.children) walk(c, depth + 1);
    };
    for (const r of this.roots) walk(r, 0);
    this.rows = rows;
    this.spacer.style.height = `${rows.length * ROW}px`;
    // As tall as the chain up to most of the window: a short chain leaves no empty box.
    this.scroll.style.height = `${Math.min(rows.length * ROW + 2, Math.max(240, window.innerHeight * 0.7))}px`;
    if (this.focusIndex >= rows.length) this.focusIndex = Math.max(0, rows.length - 1);
    this.paint();
  }

  paint() {
    const top = this.scroll.scrollTop;
    const height = this.scroll.clientHeight || 600;
    const first = Math.max(0, Math.floor(top / ROW) - OVERSCAN);
    const last = Math.min(this.rows.length, Math.ceil((top + height) / ROW) + OVERSCAN);
    const frag = document.createDocumentFragment();
    const hadFocus = this.scroll.contains(document.activeElement) && document.activeElement !== this.scroll;
    for (let i = first; i < last; i++) frag.append(this.row(i));
    this.spacer.replaceChildren(frag);
    if (hadFocus) this.spacer.querySelector(`[data-index="${this.focusIndex}"]`)?.focus({ preventScroll: true });
  }

  row(i) {
    const { n, depth, open } = this.rows[i];
    const total = Math.max(1, this.span.total);
    const left = Math.max(0, ((n.startMs - this.span.origin) / total) * 100);
    const width = Math.max(0.2, (n.durationMs / total) * 100);
    const isFailed = failed(n);
    const running = n.status === 'running';
    const tokens = n.inputTokens != null || n.outputTokens != null ? `${fmtNum(n.inputTokens ?? 0)}↓ ${fmtNum(n.outputTokens ?? 0)}↑` : '';
    // An agent's own tokens, and, when its workers spent some too, the whole subtree's apart.
    const withWorkers = n.treeInputTokens != null
      && (n.treeInputTokens !== n.inputTokens || (n.treeOutputTokens ?? 0) !== (n.outputTokens ?? 0));
    const tree = withWorkers ? `tree ${fmtNum(n.treeInputTokens)}↓ ${fmtNum(n.treeOutputTokens ?? 0)}↑` : '';
    const tools = n.toolsCalled?.length ? `${n.toolsCalled.length} tool${n.toolsCalled.length > 1 ? 's' : ''}` : '';
    const label = [n.kind, n.label, n.status, n.failureCategory, tokens && `tokens in ${n.inputTokens ?? 0} out ${n.outputTokens ?? 0}`,
      tree && `tree tokens in ${n.treeInputTokens} out ${n.treeOutputTokens ?? 0}`,
      n.toolsCalled?.length && `tools ${n.toolsCalled.join(', ')}`, fmtDuration(n.durationMs)].filter(Boolean).join(', ');
    return h('div', {
      class: `tree-row${isFailed ? ' failed' : ''}`, role: 'treeitem', 'aria-level': depth + 1,
      'aria-expanded': n.children.length ? String(open) : undefined, 'aria-selected': String(this.selected === n.key),
      'aria-label': label, tabindex: i === this.focusIndex ? '0' : '-1', 'data-index': i, 'data-kind': n.kind,
      'data-key': n.key, 'data-status': n.status, style: { top: `${i * ROW}px` },
    },
    h('div', { class: 'cell', style: { paddingLeft: `${depth * 16 + 4}px` } },
      h('span', { class: 'twisty', 'aria-hidden': 'true' }, n.children.length ? (open ? '▾' : '▸') : ''),
      h('span', { class: `kind kind-${n.kind}`, 'aria-hidden': 'true' }, n.kind),
      h('span', { class: 'name', title: n.label }, n.label),
      (isFailed || running) ? statusBadge(n.status) : null,
      categoryBadge(n.failureCategory),
      tokens ? h('span', { class: 'meta', title: 'own tokens in ↓ / out ↑ (this node\'s model calls)', 'data-role': 'tokens' }, tokens) : null,
      tree ? h('span', { class: 'meta opt', title: 'tokens in ↓ / out ↑ of the whole subtree (own + workers)', 'data-role': 'tree-tokens' }, tree) : null,
      tools ? h('span', { class: 'meta opt', title: `tools called: ${n.toolsCalled.join(', ')}`, 'data-role': 'tools' }, tools) : null,
      h('span', { class: 'meta' }, running ? `${fmtDuration(n.durationMs)}…` : fmtDuration(n.durationMs))),
    h('div', { class: 'wf', 'aria-hidden': 'true' },
      h('div', { class: `bar ${n.kind}${isFailed ? ' failed' : ''}${running ? ' running' : ''}`, style: { left: `${left}%`, width: `${Math.min(width, 100 - left)}%` } })));
  }

  toggle(i, force) {
    const r = this.rows[i];
    if (!r || !r.n.children.length) return;
    this.expanded.set(r.n.key, force ?? !r.open);
    this.focusIndex = i;
    this.flatten();
  }

  setAll(open) {
    const walk = (n) => { if (n.children.length) this.expanded.set(n.key, open); n.children.forEach(walk); };
    this.roots.forEach(walk);
    this.flatten();
  }

  select(i) {
    const r = this.rows[i];
    if (!r) return;
    this.selected = r.n.key;
    this.focusIndex = i;
    this.paint();
    this.onSelect(r.n);
  }

  selectKey(key) {
    const i = this.rows.findIndex((r) => r.n.key === key);
    if (i >= 0) { this.ensureVisible(i); this.select(i); }
  }

  ensureVisible(i) {
    const top = i * ROW;
    if (top < this.scroll.scrollTop) this.scroll.scrollTop = top;
    else if (top + ROW > this.scroll.scrollTop + this.scroll.clientHeight) this.scroll.scrollTop = top + ROW - this.scroll.clientHeight;
  }

  key(e) {
    const i = this.focusIndex;
    const r = this.rows[i];
    let next = null;
    switch (e.key) {
      case 'ArrowDown': next = Math.min(this.rows.length - 1, i + 1); break;
      case 'ArrowUp': next = Math.max(0, i - 1); break;
      case 'Home': next = 0; break;
      case 'End': next = this.rows.length - 1; break;
      case 'PageDown': next = Math.min(this.rows.length - 1, i + 15); break;
      case 'PageUp': next = Math.max(0, i - 15); break;
      case 'ArrowRight':
        if (r?.n.children.length && !r.open) this.toggle(i, true); else next = Math.min(this.rows.length - 1, i + 1);
        break;
      case 'ArrowLeft':
        if (r?.n.children.length && r.open) this.toggle(i, false);
        else { for (let j = i - 1; j >= 0; j--) if (this.rows[j].depth < r.depth) { next = j; break; } }
        break;
      case 'Enter': case ' ': this.select(i); break;
      default: return;
    }
    e.preventDefault();
    if (next !== null) {
      this.focusIndex = next;
      this.ensureVisible(next);
      this.paint();
      this.spacer.querySelector(`[data-index="${next}"]`)?.focus({ preventScroll: true });
    }
  }
}
