// The console's only way to the platform: the public REST/SSE API, with the session cookie and the
// CSRF header Spring Security expects from a browser session.

export class ApiError extends Error {
  constructor(status, problem) {
    const detail = problem?.detail || problem?.title || `HTTP ${status}`;
    super(detail);
    this.status = status;
    this.problem = problem || {};
  }
  /** A sentence for people: title, detail and the field the server blamed. */
  get human() {
    const p = this.problem;
    const parts = [];
    if (p.title) parts.push(p.title);
    if (p.detail && p.detail !== p.title) parts.push(p.detail);
    if (p.field && !(p.detail || '').includes(p.field)) parts.push(`(field: ${p.field})`);
    return parts.join(': ') || this.message;
  }
}

function cookie(name) {
  const m = document.cookie.split('; ').find((c) => c.startsWith(name + '='));
  return m ? decodeURIComponent(m.slice(name.length + 1)) : null;
}

export async function api(path, { method = 'GET', body, headers = {}, signal } = {}) {
  const h = { Accept: 'application/json, application/problem+json', ...headers };
  if (body !== undefined) h['Content-Type'] = 'application/json';
  if (method !== 'GET' && method !== 'HEAD') {
    let token = cookie('XSRF-TOKEN');
    if (!token) {
      // The cookie is issued on a read; make one so the unsafe request carries a token.
      await fetch('/api/v1/session', { credentials: 'same-origin' });
      token = cookie('XSRF-TOKEN');
    }
    if (token) h['X-XSRF-TOKEN'] = token;
  }
  let res;
  try {
    res = await fetch(path, {
      method, headers: h, credentials: 'same-origin', signal,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (e) {
    if (e.name === 'AbortError') throw e;
    throw new ApiError(0, { title: 'Network error', detail: `the platform did not answer (${e.message})` });
  }
  if (res.status === 204) return null;
  const type = res.headers.get('Content-Type') || '';
  const data = type.includes('json') ? await res.json().catch(() => null) : await res.text();
  if (!res.ok) {
    const err = new ApiError(res.status, typeof data === 'object' ? data : { title: `HTTP ${res.status}`, detail: String(data).slice(0, 200) });
    if (res.status === 401 && path !== '/api/v1/session') window.dispatchEvent(new CustomEvent('cadre:unauthenticated'));
    throw err;
  }
  return data;
}

export const get = (path, opts) => api(path, opts);
export const post = (path, body, opts) => api(path, { ...opts, method: 'POST', body: body ?? {} });

export function qs(params) {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') p.set(k, v);
  const s = p.toString();
  return s ? '?' + s : '';
}

/**
 * Follows a run's events. EventSource reconnects by itself with Last-Event-ID; the server ends the
 * stream once the run has ended, so the caller closes it on the root session's done/error.
 */
export function followRun(runId, onEvent, onState) {
  const types = ['run_started', 'text_delta', 'tool_call_start', 'tool_result', 'subagent_started', 'subagent_finished',
    'approval_requested', 'approval_resolved', 'status', 'done', 'error'];
  const es = new EventSource(`/api/v1/runs/${encodeURIComponent(runId)}/events?scope=all`);
  for (const t of types) {
    es.addEventListener(t, (m) => {
      let data;
      try { data = JSON.parse(m.data); } catch { return; }
      data.type = data.type || t;
      data.seq = Number(m.lastEventId);
      onEvent(data);
    });
  }
  es.onopen = () => onState?.('open');
  es.onerror = () => onState?.(es.readyState === EventSource.CLOSED ? 'closed' : 'reconnecting');
  return () => es.close();
}
