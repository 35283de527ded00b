// Small DOM and formatting helpers shared by the pages. No framework: h() builds elements, text is
// always set as text (never as HTML), so nothing from the API can inject markup.

export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') el.className = v;
    else if (k === 'text') el.textContent = v;
    else if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'style' && typeof v === 'object') Object.assign(el.style, v);
    else if (v === true) el.setAttribute(k, '');
    else el.setAttribute(k, v);
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

export function clear(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

export const esc = encodeURIComponent;

export function fmtDuration(ms) {
  if (ms === null || ms === undefined || Number.isNaN(ms)) return '—';
  if (ms < 1) return '<1 ms';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  const m = Math.floor(ms / 60_000);
  if (m < 60) return `${m} m ${Math.round((ms % 60_000) / 1000)} s`;
  return `${Math.floor(m / 60)} h ${m % 60} m`;
}

export function fmtNum(n) {
  if (n === null || n === undefined) return '—';
  if (Math.abs(n) >= 1e6) return (n / 1e6).toFixed(1) + 'M';
  if (Math.abs(n) >= 1e4) return (n / 1e3).toFixed(1) + 'k';
  return String(Math.round(n * 100) / 100);
}

export function fmtPct(r) {
  return r === null || r === undefined ? '—' : `${(r * 100).toFixed(r >= 0.995 || r === 0 ? 0 : 1)} %`;
}

export function fmtTime(iso) {
  if (!iso) return '—';
  const d = new Date(iso);
  const today = new Date();
  const sameDay = d.toDateString() === today.toDateString();
  return sameDay ? d.toLocaleTimeString([], { hour12: false }) : d.toLocaleString([], { hour12: false });
}

export function ago(iso) {
  if (!iso) return '';
  const s = Math.round((Date.now() - Date.parse(iso)) / 1000);
  if (s < 5) return 'just now';
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  return `${Math.floor(s / 86400)} d ago`;
}

export function timeTag(iso) {
  return iso ? h('time', { datetime: iso, title: new Date(iso).toISOString() }, fmtTime(iso)) : '—';
}

const STATUS_WORD = {
  'input-required': 'waiting for approval', ok: 'ok', unset: 'ok', error: 'failed', running: 'running',
};

/** A status always shown as a word with a shape, never as colour alone. */
export function statusBadge(status, extra) {
  const s = status || 'unknown';
  return h('span', { class: `badge st-${s}`, 'data-status': s, title: extra || undefined }, STATUS_WORD[s] || s);
}

export function categoryBadge(category) {
  return category ? h('span', { class: 'badge cat', title: 'failure category' }, category) : null;
}

/** A run that is a replay of a recorded incident (docs/replay.md): its tools answered from the recording. */
export function replayBadge(replay) {
  return replay ? h('span', { class: 'badge replay', title: `replay ${replay}: tools answered from a recorded incident` }, 'replay') : null;
}

export const TERMINAL = ['completed', 'failed', 'canceled', 'rejected'];

export function toast(message, kind = 'info') {
  const box = document.getElementById('toasts');
  const t = h('div', { class: `toast ${kind}`, role: kind === 'error' ? 'alert' : undefined }, message);
  box.append(t);
  setTimeout(() => t.remove(), kind === 'error' ? 9000 : 4000);
}

export function errorBox(err, retry) {
  return h('div', { class: 'error-box', role: 'alert' },
    h('strong', {}, 'Could not load: '), err?.human || err?.message || String(err),
    retry ? h('button', { type: 'button', class: 'btn small', onclick: retry }, 'Retry') : null);
}

/**
 * The small Markdown subset agents' answers are rendered in (paragraphs, line breaks, "- " lists
 * nested by indentation, #-headings, **bold**, `code`), built as DOM nodes whose text is always set
 * as text: nothing in an answer can become markup, so no sanitiser is needed.
 */
export function markdown(text, attrs = {}) {
  const root = h('div', { ...attrs, class: `markdown ${attrs.class || ''}`.trim() });
  const lists = []; // open lists, outermost first: { indent, ul, li }
  let para = null;
  for (const line of String(text ?? '').replace(/\r\n?/g, '\n').split('\n')) {
    const item = /^(\s*)[-*] (.*)$/.exec(line);
    if (item) {
      para = null;
      const indent = item[1].length;
      while (lists.length && lists[lists.length - 1].indent > indent) lists.pop();
      let top = lists[lists.length - 1];
      if (!top || indent > top.indent) {
        const ul = h('ul');
        (top?.li || root).append(ul);
        top = { indent, ul, li: null };
        lists.push(top);
      }
      top.li = h('li', {}, inline(item[2]));
      top.ul.append(top.li);
    } else if (!line.trim()) {
      para = null;
      lists.length = 0;
    } else if (lists.length && /^\s+\S/.test(line)) {
      lists[lists.length - 1].li.append(h('br'), ...inline(line.trim()));
    } else {
      lists.length = 0;
      const heading = /^(#{1,4}) (.*)$/.exec(line);
      if (heading) {
        para = null;
        root.append(h(`h${heading[1].length + 2}`, {}, inline(heading[2])));
      } else if (para) {
        para.append(h('br'), ...inline(line));
      } else {
        para = h('p', {}, inline(line));
        root.append(para);
      }
    }
  }
  return root;
}

function inline(text) {
  const out = [];
  const re = /\*\*([^*]+)\*\*|`([^`]+)`/g;
  let last = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m.index > last) out.push(text.slice(last, m.index));
    out.push(m[1] !== undefined ? h('strong', {}, m[1]) : h('code', {}, m[2]));
    last = re.lastIndex;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

export function pretty(value) {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') {
    try { return JSON.stringify(JSON.parse(value), null, 2); } catch { return value; }
  }
  return JSON.stringify(value, null, 2);
}

/**
 * JSON text cut at a budget, closed again so what was captured can still be read: the open string
 * and brackets are closed, a dangling key or comma dropped. Null when it is not JSON at all.
 */
export function lenientJson(text) {
  const t = String(text ?? '').trim();
  if (!/^[[{]/.test(t)) return null;
  try { return { value: JSON.parse(t), cut: false }; } catch { /* maybe cut short */ }
  const stack = [];
  let inString = false;
  let escaped = false;
  for (const c of t) {
    if (inString) {
      if (escaped) escaped = false;
      else if (c === '\\') escaped = true;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') stack.push(c === '{' ? '}' : ']');
    else if (c === '}' || c === ']') stack.pop();
  }
  let body = t.replace(/(\\|\\u[0-9a-fA-F]{0,3})$/, '');
  if (inString) body += '"';
  const close = stack.reverse().join('');
  // A cut inside a value, after a key, or after a comma: try the text as it is, then without its tail.
  for (const candidate of [body, body.replace(/,\s*"[^"]*"\s*:?\s*$/, ''), body.replace(/[,:]\s*$/, ''), body.replace(/,?\s*"[^"]*"?\s*:\s*("[^"]*"?)?\s*$/, ''), body.replace(/,?\s*"[^"]*"\s*:\s*[^,{}[\]"]*$/, ''), body.replace(/,?\s*[^,{}[\]"]*$/, '')]) {
    try { return { value: JSON.parse(candidate + close), cut: true }; } catch { /* next */ }
  }
  return null;
}

function words(key) {
  return String(key).replace(/[_-]/g, ' ').replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
}

function readableValue(v, depth) {
  if (v === null || v === undefined) return h('span', { class: 'muted' }, 'none');
  if (typeof v !== 'object') {
    const s = String(v);
    const inner = typeof v === 'string' && depth < 4 ? lenientJson(s) : null;
    if (inner && typeof inner.value === 'object' && inner.value !== null) return readableValue(inner.value, depth + 1);
    return s.includes('\n') ? markdown(s) : s;
  }
  if (Array.isArray(v)) {
    if (!v.length) return h('span', { class: 'muted' }, 'none');
    if (v.every((x) => x === null || typeof x !== 'object')) return v.map((x) => String(x ?? 'none')).join(', ');
    return h('ol', {}, v.map((x) => h('li', {}, readableValue(x, depth + 1))));
  }
  const entries = Object.entries(v);
  if (!entries.length) return h('span', { class: 'muted' }, 'nothing');
  // A worker's {"status":"ok","summary":…} wrapper reads as its summary.
  if (typeof v.summary === 'string' && typeof v.status === 'string' && entries.every(([k]) => ['status', 'summary', 'degraded'].includes(k))) {
    return v.status === 'ok' ? readableValue(v.summary, depth + 1) : [h('strong', {}, v.status), ' — ', readableValue(v.summary, depth + 1)];
  }
  return h('dl', { class: 'kv readable-kv' }, entries.map(([k, x]) => [h('dt', {}, words(k)), h('dd', {}, readableValue(x, depth + 1))]));
}

/**
 * A value for a person to read — a JSON object or text (JSON text, even cut short at a budget, is
 * read as JSON): objects as name/value lists, lists as lists, text as Markdown; never braces.
 */
export function readable(value, attrs = {}) {
  const root = h('div', { ...attrs, class: `readable ${attrs.class || ''}`.trim() });
  if (typeof value === 'string') {
    const parsed = lenientJson(value);
    if (!parsed) {
      // Not JSON even cut short: text stays text; a broken structure is kept, folded, for who needs it.
      return clear(root, /^\s*[[{]/.test(value)
        ? h('details', {}, h('summary', {}, 'As captured (not readable as a structure)'), h('pre', {}, value))
        : markdown(value));
    }
    clear(root, readableValue(parsed.value, 0), parsed.cut ? h('p', { class: 'muted' }, '… cut short when it was captured') : null);
    return root;
  }
  return clear(root, readableValue(value, 0));
}

/** A disabled action with the reason visible, for roles that may only read. */
export function guard(button, ctx, what = 'this') {
  if (!ctx.canOperate) {
    button.disabled = true;
    button.title = `Your role (${ctx.session.role}) can read but not ${what}; an operator or admin can.`;
    button.classList.add('denied');
  }
  return button;
}

export function viewerNote(ctx, what) {
  return ctx.canOperate ? null
    : h('p', { class: 'note', role: 'note' }, `Read-only: your role (${ctx.session.role}) cannot ${what}. Ask an operator or admin.`);
}

export function kv(pairs) {
  return h('dl', { class: 'kv' }, pairs.filter(Boolean).map(([k, v]) => [h('dt', {}, k), h('dd', {}, v ?? '—')]));
}

/** Runs `fn` every `ms` while the tab is visible; returns a stop function. */
export function every(ms, fn) {
  let stopped = false;
  let timer;
  const tick = async () => {
    if (stopped) return;
    if (!document.hidden) {
      try { await fn(); } catch (e) { /* pages show their own errors */ }
    }
    if (!stopped) timer = setTimeout(tick, ms);
  };
  timer = setTimeout(tick, ms);
  return () => { stopped = true; clearTimeout(timer); };
}
