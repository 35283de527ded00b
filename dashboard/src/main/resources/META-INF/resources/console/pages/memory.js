// Memory: namespaces → keys → the value with its version and writer, and the history of versions
// with a line diff of each against the one before, and who wrote it.
import { get, qs } from '../api.js';
import { h, clear, timeTag, errorBox, pretty, esc, ago } from '../ui.js';

function writer(w) {
  if (!w) return '—';
  return [h('strong', {}, w.id), ` (${w.kind})`, w.run ? [' in run ', h('a', { href: `#/runs/${esc(w.run)}` }, w.run.slice(0, 12) + '…')] : null];
}

/** Line diff by longest common subsequence; values are small documents, so O(n·m) is fine up to a cap. */
export function diffLines(a, b) {
  const x = a.split('\n');
  const y = b.split('\n');
  if (x.length * y.length > 250_000) return [...x.map((t) => ['del', t]), ...y.map((t) => ['add', t])];
  const dp = Array.from({ length: x.length + 1 }, () => new Uint32Array(y.length + 1));
  for (let i = x.length - 1; i >= 0; i--) for (let j = y.length - 1; j >= 0; j--)
    dp[i][j] = x[i] === y[j] ? dp[i + 1][j + 1] + 1 : Math.max(dp[i + 1][j], dp[i][j + 1]);
  const out = [];
  let i = 0; let j = 0;
  while (i < x.length && j < y.length) {
    if (x[i] === y[j]) { out.push(['same', x[i]]); i++; j++; }
    else if (dp[i + 1][j] >= dp[i][j + 1]) out.push(['del', x[i++]]);
    else out.push(['add', y[j++]]);
  }
  while (i < x.length) out.push(['del', x[i++]]);
  while (j < y.length) out.push(['add', y[j++]]);
  return out;
}

function diffView(before, after) {
  const lines = diffLines(before, after);
  const changed = lines.filter(([k]) => k !== 'same').length;
  // Unchanged stretches far from a change fold into one line, so the change is what you see first.
  const near = new Uint8Array(lines.length);
  lines.forEach(([k], i) => { if (k !== 'same') for (let j = Math.max(0, i - 2); j <= Math.min(lines.length - 1, i + 2); j++) near[j] = 1; });
  const out = [];
  for (let i = 0; i < lines.length;) {
    if (near[i] || lines.length <= 8) {
      const [k, t] = lines[i++];
      out.push(h('div', { class: k }, h('span', { class: 'sr-only' }, k === 'add' ? 'added: ' : k === 'del' ? 'removed: ' : ''), t));
    } else {
      let j = i;
      while (j < lines.length && !near[j]) j++;
      if (j - i < 3) {
        for (; i < j; i++) out.push(h('div', { class: 'same' }, lines[i][1]));
      } else {
        out.push(h('div', { class: 'gap' }, `… ${j - i} unchanged lines …`));
        i = j;
      }
    }
  }
  return h('div', { class: 'diff', role: 'group', 'aria-label': `${changed} changed lines` },
    changed ? null : h('div', { class: 'gap' }, 'No change in the value (same content written again).'), out);
}

export async function render(root, route) {
  const [, ns, ...keyParts] = route.parts;
  const key = keyParts.length ? keyParts.join('/') : null;
  const nsList = h('ul', { class: 'list', id: 'namespaces' });
  const keyCol = h('div');
  const valueCol = h('div', { id: 'memory-value' });
  clear(root, h('h1', {}, 'Shared memory'),
    h('div', { class: 'memory' },
      h('section', { class: 'card', 'aria-labelledby': 'ns-h' }, h('h2', { id: 'ns-h', style: { marginTop: 0 } }, 'Namespaces'), nsList),
      h('section', { class: 'card', 'aria-labelledby': 'keys-h' }, keyCol),
      h('section', { class: 'card', 'aria-label': 'Value and history' }, valueCol)));

  try {
    const { namespaces } = await get('/api/v1/memory');
    clear(nsList, namespaces.length ? namespaces.map((n) => h('li', {}, h('a', {
      href: `#/memory/${esc(n.namespace)}`, 'aria-current': String(n.namespace === ns), 'data-ns': n.namespace,
      title: `${n.entries} keys, ${n.deleted} deleted, ${n.versions} versions written; last write ${n.lastUpdatedAt || 'never'}`,
    }, h('span', {}, n.namespace), h('span', { class: 'muted' }, n.entries))))
      : h('li', { class: 'muted' }, 'No memory written yet. Agents write here with memory_update.'));
  } catch (e) { clear(nsList, errorBox(e)); }

  if (!ns) {
    clear(keyCol, h('h2', { id: 'keys-h', style: { marginTop: 0 } }, 'Keys'), h('p', { class: 'muted' }, 'Pick a namespace.'));
    clear(valueCol, h('p', { class: 'muted' }, 'Values, versions and their history show here.'));
    return null;
  }

  // The incidents namespace also holds the platform's pointer keys (fp:…, run:…): internal, not
  // incidents. Its incidents are listed by default; an explicit prefix (even empty) shows the rest.
  const incidents = ns === 'incidents';
  const prefix = h('input', { type: 'search', id: 'key-prefix', value: route.params.prefix ?? (incidents ? 'inc-' : ''), placeholder: 'key prefix' });
  const keyList = h('ul', { class: 'list', id: 'keys' });
  const more = h('div');
  clear(keyCol, h('h2', { id: 'keys-h', style: { marginTop: 0 } }, `Keys in ${ns}`),
    h('form', { class: 'toolbar', onsubmit: (e) => { e.preventDefault(); location.hash = `#/memory/${esc(ns)}` + qs({ prefix: prefix.value }); } },
      h('label', { for: 'key-prefix', class: 'sr-only' }, 'Key prefix'), prefix, h('button', { class: 'btn small', type: 'submit' }, 'Filter')),
    incidents ? h('p', { class: 'help', id: 'incidents-note' }, 'Incidents have their own page: ', h('a', { href: '#/incidents' }, 'Incidents'),
      '. Keys starting fp: and run: are internal pointers (clear the prefix to see them).') : null,
    keyList, more);
  async function page(after) {
    const p = await get(`/api/v1/memory/${esc(ns)}` + qs({ prefix: prefix.value, after, limit: 100 }));
    keyList.append(...p.items.map((e) => h('li', {}, h('a', {
      href: `#/memory/${esc(ns)}/${e.key.split('/').map(esc).join('/')}`, 'aria-current': String(e.key === key), 'data-key': e.key,
    }, h('span', {}, e.key), h('span', { class: 'muted' }, `v${e.version}`)))));
    if (!keyList.children.length) keyList.append(h('li', { class: 'muted' }, 'No keys here.'));
    clear(more, p.nextAfter ? h('button', { type: 'button', class: 'btn small', onclick: () => page(p.nextAfter) }, 'More keys') : null);
  }
  try { await page(); } catch (e) { clear(keyList, errorBox(e)); }

  if (!key) { clear(valueCol, h('p', { class: 'muted' }, 'Pick a key to see its value and history.')); return null; }
  try {
    const [entry, history] = await Promise.all([
      get(`/api/v1/memory/${esc(ns)}/${key.split('/').map(esc).join('/')}`).catch((e) => (e.status === 404 ? null : Promise.reject(e))),
      get(`/api/v1/memory/${esc(ns)}/${key.split('/').map(esc).join('/')}/history`),
    ]);
    const versions = [...history.versions].sort((a, b) => b.version - a.version);
    clear(valueCol,
      h('h2', { style: { marginTop: 0 }, class: 'mono' }, `${ns} / ${key}`),
      entry ? [
        h('dl', { class: 'kv' }, h('dt', {}, 'Version'), h('dd', { id: 'memory-version' }, String(entry.version)),
          h('dt', {}, 'Written'), h('dd', {}, timeTag(entry.updatedAt), ` (${ago(entry.updatedAt)})`),
          h('dt', {}, 'By'), h('dd', {}, writer(entry.updatedBy))),
        h('h3', {}, 'Value'), h('pre', { id: 'memory-current' }, pretty(entry.value))]
        : h('p', { class: 'note' }, 'This key is deleted; its history remains.'),
      h('h3', { id: 'history-h' }, `History (${versions.length} versions, newest first)`),
      h('div', { id: 'memory-history', 'aria-labelledby': 'history-h' }, versions.map((v, i) => {
        const prev = versions[i + 1];
        const now = v.deleted ? '' : pretty(v.value);
        return h('div', { class: 'version', 'data-version': v.version },
          h('div', { class: 'row' }, h('strong', {}, `v${v.version}`), v.deleted ? h('span', { class: 'badge st-failed' }, 'deleted') : null,
            h('span', {}, 'by ', writer(v.updatedBy)), h('span', { class: 'muted' }, timeTag(v.updatedAt))),
          prev ? h('details', { open: i < 3 }, h('summary', {}, `Changes from v${prev.version}`), diffView(prev.deleted ? '' : pretty(prev.value), now))
            : h('details', { open: versions.length === 1 }, h('summary', {}, 'First version'), h('pre', {}, now)));
      })));
  } catch (e) { clear(valueCol, errorBox(e)); }
  return null;
}
