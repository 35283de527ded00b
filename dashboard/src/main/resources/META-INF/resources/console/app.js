// The console shell: who is signed in, the navigation and a hash router (#/runs/<id>) that mounts
// one page module at a time and unmounts it (closing its streams and timers) on the way out.
import { api, get, ApiError } from './api.js';
import { h, clear, every } from './ui.js';

const PAGES = {
  incidents: () => import('./pages/incidents.js'),
  incident: () => import('./pages/incident.js'),
  overview: () => import('./pages/overview.js'),
  runs: () => import('./pages/runs.js'),
  run: () => import('./pages/run.js'),
  approvals: () => import('./pages/approvals.js'),
  approval: () => import('./pages/approval.js'),
  memory: () => import('./pages/memory.js'),
  agents: () => import('./pages/agents.js'),
  submit: () => import('./pages/submit.js'),
  evals: () => import('./pages/evals.js'),
  replays: () => import('./pages/replays.js'),
};

const main = document.getElementById('main');
let ctx = null;
let unmount = null;
let stopBadge = null;
let refreshBadge = null;

function parseHash() {
  const raw = location.hash.replace(/^#\/?/, '');
  const [path, query = ''] = raw.split('?');
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  const params = Object.fromEntries(new URLSearchParams(query));
  let page = parts[0] || 'incidents';
  if (page === 'runs' && parts[1]) page = 'run';
  if (page === 'incidents' && parts[1]) page = 'incident';
  // Notifications link here (cadre.public-url + /#/approvals/<id>): the one approval they are about.
  if (page === 'approvals' && parts[1]) page = 'approval';
  return { page, parts, params };
}

async function route() {
  if (!ctx) return;
  const r = parseHash();
  const load = PAGES[r.page];
  if (unmount) { try { unmount(); } catch { /* ignore */ } unmount = null; }
  refreshBadge?.().catch(() => {});
  setMenu(false);
  document.querySelectorAll('#nav a').forEach((a) => {
    const active = a.dataset.page === r.page || (r.page === 'run' && a.dataset.page === 'runs')
      || (r.page === 'incident' && a.dataset.page === 'incidents')
      || (r.page === 'approval' && a.dataset.page === 'approvals');
    if (active) a.setAttribute('aria-current', 'page'); else a.removeAttribute('aria-current');
  });
  if (!load) {
    clear(main, h('h1', {}, 'Not found'), h('p', {}, 'No page here. ', h('a', { href: '#/overview' }, 'Go to the overview')));
    return;
  }
  clear(main, h('p', { class: 'muted' }, 'Loading…'));
  try {
    const mod = await load();
    const root = h('div', { class: `page page-${r.page}` });
    clear(main, root);
    unmount = (await mod.render(root, r, ctx)) || null;
    main.focus({ preventScroll: true });
  } catch (e) {
    clear(main, h('div', { class: 'error-box', role: 'alert' }, 'This page failed to load: ', e.message || String(e)));
  }
}

function showShell(session) {
  ctx = {
    session,
    canOperate: session.can.includes('operate'),
    isAdmin: session.can.includes('admin'),
    navigate: (hash) => { location.hash = hash; },
  };
  document.getElementById('top').hidden = false;
  document.getElementById('viewer-banner').hidden = ctx.canOperate;
  clear(document.getElementById('who'),
    h('span', { class: 'user', 'data-testid': 'whoami' },
      h('span', { class: 'sr-only' }, 'Signed in as '), h('strong', {}, session.name), ' ',
      h('span', { class: `role role-${session.role}` }, session.role)),
    h('button', { type: 'button', class: 'btn small ghost', id: 'logout', onclick: logout }, 'Sign out'));
  stopBadge?.();
  refreshBadge = async () => {
    const page = await get('/api/v1/approvals?status=pending&limit=500');
    const n = page.items.length;
    const badge = document.getElementById('pending-count');
    badge.hidden = n === 0;
    badge.textContent = n >= 500 ? '500+' : String(n);
    badge.setAttribute('aria-label', `${n} pending`);
  };
  refreshBadge().catch(() => {});
  stopBadge = every(5000, refreshBadge);
  route();
}

async function logout() {
  try { await api('/api/v1/session', { method: 'DELETE' }); } catch { /* the session may be gone already */ }
  showLogin('You are signed out.');
}

function showLogin(message) {
  ctx = null;
  stopBadge?.();
  if (unmount) { try { unmount(); } catch { /* ignore */ } unmount = null; }
  document.getElementById('top').hidden = true;
  document.getElementById('viewer-banner').hidden = true;
  const errorEl = h('p', { class: 'field-error', id: 'login-error', role: 'alert' });
  const input = h('input', {
    id: 'api-key', name: 'apiKey', type: 'password', autocomplete: 'current-password', required: true,
    'aria-describedby': 'api-key-help login-error', spellcheck: 'false',
  });
  const form = h('form', { class: 'login card', id: 'login-form', novalidate: true },
    h('h1', {}, 'Cadre console'),
    message ? h('p', { class: 'note' }, message) : null,
    h('label', { for: 'api-key' }, 'API key'),
    input,
    h('p', { class: 'help', id: 'api-key-help' },
      'Your key is exchanged for a session cookie; the browser does not keep it. Viewers can look; operators and admins can act.'),
    errorEl,
    h('button', { type: 'submit', class: 'btn primary', id: 'login' }, 'Sign in'));
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    errorEl.textContent = '';
    if (!input.value.trim()) {
      errorEl.textContent = 'Enter an API key.';
      input.setAttribute('aria-invalid', 'true');
      input.focus();
      return;
    }
    try {
      const s = await api('/api/v1/session', { method: 'POST', body: { apiKey: input.value.trim() } });
      input.value = '';
      if (!location.hash || location.hash === '#/' || location.hash === '#') location.hash = '#/incidents';
      showShell(s);
    } catch (e) {
      errorEl.textContent = e instanceof ApiError && e.status === 401 ? 'That key is unknown or revoked.' : (e.human || e.message);
      input.setAttribute('aria-invalid', 'true');
      input.focus();
    }
  });
  clear(main, form);
  input.focus();
}

// Phones: the navigation folds into a menu button (one column of full-width links when open).
function setMenu(open) {
  const button = document.getElementById('nav-toggle');
  document.getElementById('top').classList.toggle('menu-open', open);
  button.setAttribute('aria-expanded', String(open));
}
document.getElementById('nav-toggle').addEventListener('click', () => {
  setMenu(document.getElementById('nav-toggle').getAttribute('aria-expanded') !== 'true');
});
document.addEventListener('keydown', (ev) => { if (ev.key === 'Escape') setMenu(false); });

window.addEventListener('hashchange', route);
window.addEventListener('cadre:unauthenticated', () => { if (ctx) showLogin('Your session ended; sign in again.'); });

(async () => {
  try {
    showShell(await get('/api/v1/session'));
  } catch (e) {
    showLogin(e instanceof ApiError && e.status === 401 ? null : `The platform did not answer: ${e.message}`);
  }
})();
