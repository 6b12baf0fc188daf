/**
 * The inspector page: plain HTML and one script, served by `listen --ui` from these strings (nothing to
 * build). Every value from a delivery is set as text, never as HTML.
 */
export const INSPECTOR_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>sms-webhooks inspector</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/inspector.css">
</head>
<body>
<header>
  <h1>sms-webhooks inspector</h1>
  <span id="status">connecting…</span>
  <select id="trigger-type" aria-label="event type"></select>
  <button id="trigger" type="button">Trigger</button>
</header>
<main>
  <p id="message" role="status"></p>
  <div id="events"><p id="empty">No delivery yet: press Trigger, or run <code>sms-webhooks trigger …</code>.</p></div>
</main>
<script src="/inspector.js"></script>
</body>
</html>
`;

/** Served as a file of its own: the page's Content-Security-Policy allows no inline style or script. */
export const INSPECTOR_STYLE = `  body { font: 14px/1.4 system-ui, sans-serif; margin: 0; color: #1d1d1f; background: #f5f5f7; }
  header { display: flex; gap: 1em; align-items: center; padding: .8em 1.2em; background: #fff; border-bottom: 1px solid #ddd; position: sticky; top: 0; }
  header h1 { font-size: 1.1em; margin: 0; flex: 1; }
  main { padding: 1em 1.2em; max-width: 1100px; }
  .event { background: #fff; border: 1px solid #ddd; border-radius: 8px; margin-bottom: 1em; padding: .8em 1em; }
  .event h2 { font-size: 1em; margin: 0 0 .4em; display: flex; gap: .8em; align-items: center; }
  .event h2 .id { font-family: ui-monospace, monospace; font-weight: normal; color: #555; flex: 1; }
  table { border-collapse: collapse; width: 100%; }
  td, th { text-align: left; padding: .25em .6em .25em 0; vertical-align: top; }
  .ok { color: #137333; } .bad { color: #b3261e; }
  pre { background: #f5f5f7; padding: .5em; overflow-x: auto; margin: .3em 0; white-space: pre-wrap; word-break: break-all; }
  details summary { cursor: pointer; color: #555; }
  .hint { color: #8a5a00; }
  #status.live { color: #137333; } #status.down { color: #b3261e; }
  button, select { font: inherit; }
`;

export const INSPECTOR_SCRIPT = `'use strict';
const $ = (id) => document.getElementById(id);
const el = (tag, props = {}, ...children) => {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === 'text') node.textContent = v;
    else if (k === 'class') node.className = v;
    else node.setAttribute(k, v);
  }
  for (const c of children) if (c) node.append(c);
  return node;
};
const time = (iso) => new Date(iso).toLocaleTimeString();
const span = (ms) => ms >= 3600000 ? ms / 3600000 + ' h' : ms >= 60000 ? ms / 60000 + ' min' : ms >= 1000 ? ms / 1000 + ' s' : ms + ' ms';
const say = (text, bad) => { const m = $('message'); m.textContent = text; m.className = bad ? 'bad' : ''; };

async function post(path, body) {
  const res = await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body ?? {}) });
  const answer = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error((answer.error && answer.error.message) || 'HTTP ' + res.status);
  return answer;
}

function headersText(headers) {
  return Object.entries(headers).map(([k, v]) => k + ': ' + v).join('\\n');
}

function attemptRow(a) {
  const answer = a.status === null ? (a.error || 'no answer') : a.status + (a.code ? ' ' + a.code : '');
  const next = a.delivered ? 'delivered' : a.next_attempt_at ? 'next retry ' + time(a.next_attempt_at) : 'no more retries';
  const row = el('tr', { 'data-attempt': String(a.attempt), 'data-status': String(a.status) },
    el('td', { text: '#' + a.attempt }),
    el('td', { text: time(a.started_at) }),
    el('td', { class: a.delivered ? 'ok' : 'bad', text: '→ ' + answer }),
    el('td', { text: a.duration_ms + ' ms' }),
    el('td', { class: 'next', text: next }));
  const details = el('details', {},
    el('summary', { text: 'request headers, response' }),
    el('pre', { class: 'request-headers', text: headersText(a.request_headers) }),
    el('pre', { class: 'response-body', text: a.response_body || '(empty answer)' }));
  const extra = el('tr', {}, el('td', { colspan: '5' }, a.hint ? el('div', { class: 'hint', text: '↳ ' + a.hint }) : null, details));
  return [row, extra];
}

function render(event) {
  const key = event.webhook_id + ' ' + event.id;
  const resend = el('button', { type: 'button', class: 'resend', text: 'Resend' });
  resend.addEventListener('click', async () => {
    resend.disabled = true;
    try {
      const answer = await post('/api/events/' + encodeURIComponent(event.id) + '/resend');
      say('Resent ' + event.id + ' as attempt ' + answer.data.map((d) => d.attempts).join(', ') + '.');
    } catch (e) { say('Resend failed: ' + e.message, true); }
    finally { resend.disabled = false; }
  });
  const last = event.attempts[event.attempts.length - 1];
  const table = el('table', {}, el('thead', {}, el('tr', {}, ...['attempt', 'time', 'app answered', 'took', ''].map((h) => el('th', { text: h })))));
  const body = el('tbody');
  for (const a of event.attempts) body.append(...attemptRow(a));
  table.append(body);
  const schedule = event.schedule_left_ms.length
    ? el('p', { class: 'schedule', text: 'If it keeps failing: then ' + event.schedule_left_ms.map((ms) => '+' + span(ms)).join(', ') + ' (6 attempts in all).' })
    : null;
  const card = el('section', { class: 'event', 'data-event-id': event.id, 'data-key': key },
    el('h2', {}, el('span', { text: event.type }), el('span', { class: 'id', text: event.id }),
      el('span', { class: last && last.delivered ? 'ok' : 'bad', text: last && last.delivered ? 'delivered' : 'failing' }), resend),
    el('div', { class: 'url', text: '→ ' + event.url }),
    table, schedule,
    el('details', {}, el('summary', { text: 'body' }), el('pre', { class: 'body', text: event.body })));
  const old = document.querySelector('[data-key="' + CSS.escape(key) + '"]');
  if (old) old.replaceWith(card); else $('events').prepend(card);
  const empty = $('empty'); if (empty) empty.remove();
}

async function start() {
  const info = await (await fetch('/api/events')).json();
  for (const type of info.types) $('trigger-type').append(el('option', { value: type, text: type }));
  $('trigger').addEventListener('click', async () => {
    const type = $('trigger-type').value;
    try {
      const answer = await post('/api/trigger', { type });
      say('Triggered ' + type + ': ' + answer.events.map((e) => e.type + ' ' + e.id).join(', ') + '.');
    } catch (e) { say('Trigger failed: ' + e.message, true); }
  });
  const source = new EventSource('/api/stream');
  source.addEventListener('snapshot', (m) => { for (const e of JSON.parse(m.data).reverse()) render(e); });
  source.addEventListener('update', (m) => render(JSON.parse(m.data)));
  source.onopen = () => { $('status').textContent = 'live'; $('status').className = 'live'; };
  source.onerror = () => { $('status').textContent = 'disconnected (is listen still running?)'; $('status').className = 'down'; };
}
start();
`;
