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
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/inspector.css">
</head>
<body>
<header>
  <h1>sms-webhooks inspector</h1>
  <span id="status">connecting…</span>
  <span class="trigger"><select id="trigger-type" aria-label="event type to trigger"></select>
  <button id="trigger" type="button">Trigger</button></span>
</header>
<nav id="filters" aria-label="filters">
  <input id="search" type="search" placeholder="Search by event id" aria-label="search by event id" autocomplete="off">
  <select id="filter-type" aria-label="filter by type"><option value="">all types</option></select>
  <select id="filter-status" aria-label="filter by status">
    <option value="">any status</option><option>delivered</option><option>duplicate</option><option>ignored</option>
    <option>stale</option><option>retrying</option><option>failed</option>
  </select>
  <span id="count"></span>
</nav>
<p id="message" role="status"></p>
<main>
  <section id="list-pane" aria-label="deliveries">
    <button id="new-events" type="button" hidden></button>
    <ol id="events"></ol>
    <p id="empty">No delivery yet: press Trigger, or run <code>sms-webhooks trigger …</code>.</p>
  </section>
  <section id="detail" aria-label="selected delivery"><p class="placeholder">Select a delivery to see its attempts.</p></section>
</main>
<script src="/inspector.js"></script>
</body>
</html>
`;

/** The tab's icon: a speech bubble with a check, so the tab is found among many (and no 404 for it). */
export const INSPECTOR_ICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect x="2" y="4" width="28" height="20" rx="5" fill="#1a56db"/><path d="M9 24 L9 30 L16 24 Z" fill="#1a56db"/><path d="M10 14 l4 4 l8 -8" stroke="#fff" stroke-width="3" fill="none" stroke-linecap="round" stroke-linejoin="round"/></svg>
`;

/** Served as a file of its own: the page's Content-Security-Policy allows no inline style or script. */
export const INSPECTOR_STYLE = `* { box-sizing: border-box; }
body { font: 14px/1.4 system-ui, sans-serif; margin: 0; color: #1d1d1f; background: #f5f5f7; }
header { display: flex; flex-wrap: wrap; gap: .5em 1em; align-items: center; padding: .6em 1em; background: #fff; border-bottom: 1px solid #ddd; position: sticky; top: 0; z-index: 2; }
header h1 { font-size: 1.05em; margin: 0; flex: 1 1 auto; white-space: nowrap; }
header .trigger { display: flex; gap: .4em; min-width: 0; }
header select { max-width: 11em; }
#filters { display: flex; flex-wrap: wrap; gap: .5em; align-items: center; padding: .5em 1em; background: #fafafa; border-bottom: 1px solid #ddd; }
#filters input { flex: 1 1 12em; min-width: 0; }
#count { color: #666; font-size: .9em; }
#message { margin: 0; padding: 0 1em; min-height: 0; }
#message:not(:empty) { padding: .4em 1em; }
main { display: grid; grid-template-columns: minmax(18em, 26em) minmax(0, 1fr); gap: 0; height: calc(100vh - 7.2em); }
#list-pane { overflow-y: auto; border-right: 1px solid #ddd; background: #fff; position: relative; }
#detail { overflow-y: auto; padding: .8em 1.2em; min-width: 0; }
#events { list-style: none; margin: 0; padding: 0; }
.row { display: grid; grid-template-columns: 5.8em minmax(0, 1fr) auto; grid-template-rows: auto auto; column-gap: .6em; padding: .45em .8em; border-bottom: 1px solid #eee; cursor: pointer; }
.row[hidden] { display: none; }
.row:hover { background: #f3f6ff; }
.row[aria-selected="true"] { background: #e6edff; box-shadow: inset 3px 0 #1a56db; }
.row .badge { grid-row: 1 / span 2; align-self: center; }
.row .type { font-weight: 600; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.row .time { color: #666; font-size: .85em; text-align: right; }
.row .id { grid-column: 2 / span 2; font: .85em ui-monospace, monospace; color: #555; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.row:has(.mark) .id { grid-column: 2; }
.row .mark { grid-column: 3; font-size: .78em; text-align: right; white-space: nowrap; align-self: center; }
.mark.recovered { color: #8a5a00; } .mark.retried { color: #44546a; }
.badge { display: inline-block; text-align: center; font-size: .78em; font-weight: 600; padding: .1em .45em; border-radius: 1em; background: #e8f5e9; color: #137333; }
.badge.duplicate, .badge.ignored, .badge.stale { background: #eef1f5; color: #44546a; }
.badge.retrying { background: #fff4e0; color: #8a5a00; }
.badge.failed { background: #fdecea; color: #b3261e; }
#new-events { position: sticky; top: .4em; display: block; margin: .4em auto; z-index: 1; border: 0; border-radius: 1em; padding: .3em .9em; background: #1a56db; color: #fff; cursor: pointer; }
#new-events[hidden] { display: none; }
#empty { padding: 1em; color: #666; }
.placeholder { color: #666; }
#detail h2 { font-size: 1.05em; margin: 0 0 .3em; display: flex; flex-wrap: wrap; gap: .4em .8em; align-items: center; }
#detail h2 .id { font: .95em ui-monospace, monospace; color: #555; overflow-wrap: anywhere; }
#detail h2 .resend { margin-left: auto; }
.url { color: #555; overflow-wrap: anywhere; margin-bottom: .6em; }
.attempts { border-collapse: collapse; width: 100%; table-layout: fixed; }
.attempts th, .attempts td { text-align: left; padding: .25em .5em .25em 0; vertical-align: top; overflow-wrap: anywhere; }
.attempts col.n { width: 2.6em; } .attempts col.t { width: 6.5em; } .attempts col.d { width: 4.5em; }
.ok { color: #137333; } .bad { color: #b3261e; } .quiet { color: #44546a; }
pre { background: #f0f0f3; padding: .5em; overflow-x: auto; margin: .3em 0; white-space: pre-wrap; overflow-wrap: anywhere; font-size: .9em; }
details summary { cursor: pointer; color: #555; }
.hint { color: #8a5a00; }
.note { color: #666; font-size: .9em; }
#status.live { color: #137333; } #status.down { color: #b3261e; }
button, select, input { font: inherit; }
@media (max-width: 720px) {
  main { display: block; height: auto; }
  #list-pane { max-height: 42vh; border-right: 0; border-bottom: 1px solid #ddd; }
  #detail { padding: .8em; }
  .attempts col.t { width: 5.5em; }
  .attempts .next { display: none; }
}
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
// JSON as a person reads it; anything else as it came.
const pretty = (text) => { try { return JSON.stringify(JSON.parse(text), null, 2); } catch { return text; } };

const events = new Map();      // key -> event, as the server last sent it
const openDetails = new Set(); // "key|name" of each <details> the reader opened: kept open across updates
let selected = null;
let maxEvents = 200;
let unseen = 0;

async function post(path, body) {
  const res = await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body ?? {}) });
  const answer = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error((answer.error && answer.error.message) || 'HTTP ' + res.status);
  return answer;
}

const keyOf = (event) => event.webhook_id + ' ' + event.id;
function statusOf(event) {
  const last = event.attempts[event.attempts.length - 1];
  if (!last) return 'retrying';
  if (last.outcome !== 'failed') return last.outcome;
  return last.next_attempt_at ? 'retrying' : 'failed';
}

// Refused before it was accepted, or tried more than once: what the list's status alone hides.
function markOf(event) {
  const last = event.attempts[event.attempts.length - 1];
  const refusals = event.attempts.filter((a) => a !== last && a.outcome === 'failed').length;
  if (last && last.outcome !== 'failed' && refusals > 0)
    return { kind: 'recovered', text: 'accepted after ' + refusals + ' refusal' + (refusals === 1 ? '' : 's') };
  if (event.attempt_count > 1) return { kind: 'retried', text: event.attempt_count + ' attempts' };
  return null;
}

function headersText(headers) {
  return Object.entries(headers).map(([k, v]) => k + ': ' + v).join('\\n');
}

/** A <details> whose open state is remembered under name, for this event. */
function details(key, name, summary, ...content) {
  const d = el('details', { 'data-name': name }, el('summary', { text: summary }), ...content);
  d.open = openDetails.has(key + '|' + name);
  d.addEventListener('toggle', () => { if (d.open) openDetails.add(key + '|' + name); else openDetails.delete(key + '|' + name); });
  return d;
}

function attemptRows(key, a) {
  const said = a.outcome === 'delivered' || a.outcome === 'failed' ? '' : ' ' + a.outcome;
  const answer = a.status === null ? (a.error || 'no answer') : a.status + (a.code ? ' ' + a.code : '') + said;
  const next = a.delivered ? '' : a.next_attempt_at ? 'next retry ' + time(a.next_attempt_at) : 'no more retries';
  const tone = a.outcome === 'failed' ? 'bad' : a.outcome === 'delivered' ? 'ok' : 'quiet';
  const row = el('tr', { 'data-attempt': String(a.attempt), 'data-status': String(a.status), 'data-outcome': a.outcome },
    el('td', { text: '#' + a.attempt }),
    el('td', { text: time(a.started_at) }),
    el('td', {}, el('span', { class: 'answer ' + tone, text: '→ ' + answer }), next ? el('div', { class: 'next note', text: next }) : null),
    el('td', { text: a.duration_ms + ' ms' }));
  const extra = el('tr', { class: 'more' }, el('td', { colspan: '4' },
    a.hint ? el('div', { class: 'hint', text: '↳ ' + a.hint }) : null,
    details(key, 'attempt-' + a.attempt, 'request headers, response',
      el('pre', { class: 'request-headers', text: headersText(a.request_headers) }),
      el('pre', { class: 'response-body', text: a.response_body ? pretty(a.response_body) : '(empty answer)' }))));
  return [row, extra];
}

function renderDetail() {
  const pane = $('detail');
  const event = selected && events.get(selected);
  if (!event) { pane.replaceChildren(el('p', { class: 'placeholder', text: 'Select a delivery to see its attempts.' })); return; }
  const key = keyOf(event);
  const status = statusOf(event);
  const resend = el('button', { type: 'button', class: 'resend', text: 'Resend' });
  resend.addEventListener('click', async () => {
    resend.disabled = true;
    try {
      const answer = await post('/api/events/' + encodeURIComponent(event.id) + '/resend');
      say('Resent ' + event.id + ' as attempt ' + answer.data.map((d) => d.attempts).join(', ') + '.');
    } catch (e) { say('Resend failed: ' + e.message, true); }
    finally { resend.disabled = false; }
  });
  const table = el('table', { class: 'attempts' },
    el('colgroup', {}, el('col', { class: 'n' }), el('col', { class: 't' }), el('col'), el('col', { class: 'd' })),
    el('thead', {}, el('tr', {}, ...['', 'time', 'your app answered', 'took'].map((h) => el('th', { text: h })))));
  const body = el('tbody');
  for (const a of event.attempts) body.append(...attemptRows(key, a));
  table.append(body);
  const dropped = event.attempt_count - event.attempts.length;
  const schedule = event.schedule_left_ms.length
    ? el('p', { class: 'schedule note', text: 'If it keeps failing: then ' + event.schedule_left_ms.map((ms) => '+' + span(ms)).join(', ') + ' (6 attempts in all).' })
    : null;
  const card = el('article', { class: 'event', 'data-event-id': event.id, 'data-key': key, 'data-state': status },
    el('h2', {}, el('span', { class: 'badge ' + status, text: status }), el('span', { text: event.type }),
      el('span', { class: 'id', text: event.id }), resend),
    el('div', { class: 'url', text: '→ ' + event.url }),
    dropped > 0 ? el('p', { class: 'note dropped', text: 'The last ' + event.attempts.length + ' of ' + event.attempt_count + ' attempts.' }) : null,
    table, schedule,
    el('h3', { text: 'Body' }),
    el('pre', { class: 'body', text: pretty(event.body) }));
  const scroll = pane.scrollTop;
  pane.replaceChildren(card);
  pane.scrollTop = scroll;
}

function matches(event) {
  const q = $('search').value.trim().toLowerCase();
  const type = $('filter-type').value;
  const status = $('filter-status').value;
  return (!q || event.id.toLowerCase().includes(q)) && (!type || event.type === type) && (!status || statusOf(event) === status);
}

function applyFilters() {
  let shown = 0;
  for (const row of $('events').children) {
    const ok = matches(events.get(row.dataset.key));
    row.hidden = !ok;
    if (ok) shown += 1;
  }
  $('count').textContent = events.size ? shown + ' of ' + events.size + ' shown' : '';
}

function select(key) {
  selected = key;
  for (const row of $('events').children) row.setAttribute('aria-selected', String(row.dataset.key === key));
  renderDetail();
}

function rowFor(event) {
  const key = keyOf(event);
  const status = statusOf(event);
  const mark = markOf(event);
  const row = el('li', { class: 'row', 'data-key': key, 'data-event-id': event.id, 'data-state': status, tabindex: '0', 'aria-selected': String(key === selected) },
    el('span', { class: 'badge ' + status, text: status }),
    el('span', { class: 'type', text: event.type }),
    el('span', { class: 'time', text: time(event.attempts[0] ? event.attempts[0].started_at : new Date().toISOString()) }),
    el('span', { class: 'id', text: event.id }),
    mark ? el('span', { class: 'mark ' + mark.kind, 'data-mark': mark.kind, text: mark.text }) : null);
  row.addEventListener('click', () => select(key));
  row.addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); select(key); } });
  return row;
}

function showUnseen() {
  const note = $('new-events');
  note.hidden = unseen === 0;
  note.textContent = '↑ ' + unseen + ' new event' + (unseen === 1 ? '' : 's');
}

function upsert(event, live) {
  const key = keyOf(event);
  const isNew = !events.has(key);
  events.set(key, event);
  const row = rowFor(event);
  row.hidden = !matches(event);
  const old = document.querySelector('#events [data-key="' + CSS.escape(key) + '"]');
  if (old) old.replaceWith(row);
  else {
    $('events').prepend(row);
    // Bounded, as the server is: the oldest delivery goes.
    while (events.size > maxEvents) {
      const last = $('events').lastElementChild;
      events.delete(last.dataset.key);
      last.remove();
    }
    // Scrolled down the list: say so rather than move what the reader is looking at.
    if (live && $('list-pane').scrollTop > 4) { unseen += 1; showUnseen(); }
  }
  const empty = $('empty'); if (empty) empty.remove();
  // Opened on the newest (the snapshot's handler picks it); after that, the first live one when none is.
  if (selected === null && live) select(key);
  else if (selected === key) renderDetail();
  if (isNew) {
    const types = $('filter-type');
    if (![...types.options].some((o) => o.value === event.type)) types.append(el('option', { value: event.type, text: event.type }));
  }
  applyFilters();
}

async function start() {
  const info = await (await fetch('/api/events')).json();
  maxEvents = info.max_events || maxEvents;
  for (const type of info.types) $('trigger-type').append(el('option', { value: type, text: type }));
  $('trigger').addEventListener('click', async () => {
    const type = $('trigger-type').value;
    try {
      const answer = await post('/api/trigger', { type });
      say('Triggered ' + type + ': ' + answer.events.map((e) => e.type + ' ' + e.id).join(', ') + '.');
    } catch (e) { say('Trigger failed: ' + e.message, true); }
  });
  for (const id of ['search', 'filter-type', 'filter-status']) $(id).addEventListener('input', applyFilters);
  $('new-events').addEventListener('click', () => { $('list-pane').scrollTo({ top: 0 }); unseen = 0; showUnseen(); });
  $('list-pane').addEventListener('scroll', () => { if ($('list-pane').scrollTop <= 4 && unseen) { unseen = 0; showUnseen(); } });
  const source = new EventSource('/api/stream');
  source.addEventListener('snapshot', (m) => {
    const newestFirst = JSON.parse(m.data);
    for (const e of [...newestFirst].reverse()) upsert(e, false);
    if (selected === null && newestFirst.length) select(keyOf(newestFirst[0]));
  });
  source.addEventListener('update', (m) => upsert(JSON.parse(m.data), true));
  source.onopen = () => { $('status').textContent = 'live'; $('status').className = 'live'; };
  source.onerror = () => { $('status').textContent = 'disconnected (is listen still running?)'; $('status').className = 'down'; };
}
start();
`;
