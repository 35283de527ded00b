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
    h('span', { id: 'team-slot' }),
    h('button', { type: 'button', class: 'btn small ghost', id: 'logout', onclick: logout }, 'Sign out'));
  showTeams();
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

// A person signed in through single sign-on acts in one of their teams at a time; with several,
// the header offers the others. Switching reloads the console so every page shows the new team.
async function showTeams() {
  let teams;
  try { teams = await get('/api/v1/session/team'); } catch { return; }
  const slot = document.getElementById('team-slot');
  if (!slot || !ctx) return;
  ctx.singleSignOn = teams.singleSignOn;
  // One team, and the one every install starts with: nothing worth a word in the header.
  if (teams.teams.length < 2 && teams.current === 'default') return;
  if (teams.teams.length < 2) {
    clear(slot, h('span', { class: 'team', 'data-testid': 'team' }, h('span', { class: 'sr-only' }, 'Team '), teams.current));
    return;
  }
  const select = h('select', { id: 'team-switch', 'aria-label': 'Team' },
    teams.teams.map((t) => h('option', { value: t.team, selected: t.team === teams.current }, `${t.team} (${t.role})`)));
  select.addEventListener('change', async () => {
    select.disabled = true;
    try {
      await api('/api/v1/session/team', { method: 'POST', body: { team: select.value } });
      location.reload();
    } catch (e) {
      select.disabled = false;
      select.value = teams.current;
      window.alert(e.human || e.message);
    }
  });
  clear(slot, h('label', { class: 'team' }, h('span', { class: 'sr-only' }, 'Team '), select));
}

// Why a single sign-on came back without a session (the server names it in ?sso-error=).
const SSO_ERRORS = {
  'no-team': 'Your account is in no group that Cadre maps to a team. Ask an admin to add you to one.',
  'no-subject': 'The identity provider did not say who you are (no subject claim).',
  access_denied: 'Sign-in was cancelled or refused at the identity provider.',
  authorization_request_not_found: 'The sign-in took too long or was started in another browser; try again.',
};

function ssoError() {
  const code = new URLSearchParams(location.search).get('sso-error');
  if (!code) return null;
  history.replaceState(null, '', location.pathname + location.hash);
  return SSO_ERRORS[code] || `Single sign-on failed (${code}); try again or use an API key.`;
}

function signedOut() {
  if (!new URLSearchParams(location.search).has('signed-out')) return null;
  history.replaceState(null, '', location.pathname + location.hash);
  return 'You are signed out.';
}

async function ssoButton(form) {
  let sso;
  try { sso = await get('/api/v1/session/sso'); } catch { return; }
  if (!sso.enabled || !form.isConnected) return;
  form.querySelector('h1').after(
    h('a', { class: 'btn primary sso', id: 'sso-login', href: sso.signInUrl }, `Sign in with ${sso.displayName}`),
    h('p', { class: 'help or' }, 'or with an API key:'));
}

async function logout() {
  // A person signed in through the identity provider signs out there too (and comes back here).
  if (ctx?.singleSignOn) { location.href = '/sso/logout'; return; }
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
  ssoButton(form);
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
    showLogin(e instanceof ApiError && e.status === 401 ? ssoError() || signedOut() : `The platform did not answer: ${e.message}`);
  }
})();
