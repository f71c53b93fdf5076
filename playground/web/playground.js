// playground.js: the playground page's behaviour. LAB.md "The day" (the show), in a browser.
//
// The page holds no truth of its own: the playground server (playground/*.cc) runs the real stage servers
// and the `grader demo` stories, and publishes everything in one JSON document, GET /api/state. This file
//   1. polls that state (a long poll: /api/state?since=V answers when the version moves, or after 10 s),
//   2. renders it: narration, the predict-then-reveal panel, the server's timeline SVG (inserted as is), the
//      key table, ledger and accounts, the text log and the table of attempts,
//   3. turns clicks and keys into POSTs (/api/tour, /api/next, /api/predict, /api/send, ...), whose effect
//      arrives, like everything else, through the next state.
// The one thing computed here is the reveal: which kind of answer a predicted repeat actually got, and the
// stage whose lesson explains it ("Outcomes of a repeat" below).
//
// After each render, document.body.dataset.{version,waiting,mode,step} mirror the state: the browser tests
// (tests/browser) wait on them. Plain JavaScript, no framework, no build step, no external asset.
'use strict';

// ---------------------------------------------------------------------------------------------------------
// Tuning
// ---------------------------------------------------------------------------------------------------------

const kPollFloorMs = 300;          // a server that answers a long poll at once is asked again this much later
const kPollRetryMs = [500, 1000, 2000, 5000];  // back-off after a failed poll (the server may be restarting)
// A repeat whose reply was dropped ends on the server later (Lab-Delay-Ms 600 in the stories and in free
// mode): the reveal waits this long for that "ended" event before judging by the ledger alone.
const kEndedPatienceMs = 3000;

// ---------------------------------------------------------------------------------------------------------
// Small DOM helpers
// ---------------------------------------------------------------------------------------------------------

const $ = (id) => document.getElementById(id);

// el('li', {class: 'x', 'data-op': 3}, 'text', childNode): an element; null and undefined children skipped.
function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    node.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

const prefersReducedMotion = () => window.matchMedia('(prefers-reduced-motion: reduce)').matches;

// "201 Created": the status line as a person reads it (grader/demo_scene.cc:status_line says the same).
const kStatusText = {
  200: 'OK', 201: 'Created', 400: 'Bad Request', 401: 'Unauthorized', 402: 'Payment Required',
  404: 'Not Found', 405: 'Method Not Allowed', 409: 'Conflict', 413: 'Content Too Large',
  415: 'Unsupported Media Type', 422: 'Unprocessable Content', 428: 'Precondition Required',
  500: 'Internal Server Error', 503: 'Service Unavailable',
};
const statusLine = (status) => (status ? `${status} ${kStatusText[status] || ''}`.trim() : 'no answer');

function parseJson(text) {
  try { return JSON.parse(text); } catch { return undefined; }
}

// Header lookup in the history's [[name, value], ...] lists; names are case-insensitive (RFC 9110).
function header(message, name) {
  const wanted = name.toLowerCase();
  for (const [n, v] of (message && message.headers) || []) if (n.toLowerCase() === wanted) return v;
  return undefined;
}

// The history writes a key as sent, quotes included ("\"rent-1\""); the free-mode form holds it bare.
const bareKey = (key) => (typeof key === 'string' && key.length >= 2 && key.startsWith('"') && key.endsWith('"')
  ? key.slice(1, -1) : key);
const sameKey = (a, b) => a !== null && a !== undefined && b !== null && b !== undefined && bareKey(a) === bareKey(b);

// ---------------------------------------------------------------------------------------------------------
// The API: JSON in, JSON out, errors as problem+json shown in #error (never swallowed)
// ---------------------------------------------------------------------------------------------------------

class ApiError extends Error {}

async function api(method, path, body) {
  const init = { method, headers: { Accept: 'application/json, application/problem+json' } };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (e) {
    throw new ApiError(`${method} ${path}: the playground server did not answer (${e.message})`);
  }
  const text = await response.text();
  const json = parseJson(text);
  if (!response.ok) {
    // RFC 9457 problem details: title says what, detail says why. Anything else is shown as it came.
    const what = json && (json.title || json.detail)
      ? [json.title, json.detail].filter(Boolean).join(': ')
      : text.trim() || response.statusText;
    throw new ApiError(`${method} ${path}: ${response.status} ${what}`);
  }
  return json === undefined ? null : json;  // undefined is kept for "it failed" (see attempt())
}

function showError(message) {
  $('error-text').textContent = message;
  $('error').hidden = false;
}
function clearError() {
  $('error').hidden = true;
  $('error-text').textContent = '';
}

// Runs an action; its failure is shown, not thrown into the console, and returns undefined.
async function attempt(action) {
  try {
    clearError();
    return await action();
  } catch (e) {
    showError(e.message);
    return undefined;
  }
}

// ---------------------------------------------------------------------------------------------------------
// Page state: what the page remembers between two renders. Everything else comes from the server.
// ---------------------------------------------------------------------------------------------------------

const page = {
  state: null,              // the last /api/state rendered
  scenarios: [],            // GET /api/scenarios
  stands: [],               // GET /api/stands
  selectedOp: null,         // the attempt shown in #details
  pending: null,            // a prediction waiting for its answer (see "Outcomes of a repeat")
  predictionSent: false,    // the tour's prediction was POSTed; hide the panel until the state moves on
  freeAsk: null,            // free mode: the send waiting for the learner's prediction
  queued: [],               // actions pressed while the server was busy: run in order when it is ready
  inFlight: 0,              // POSTs not answered yet
  notice: '',               // a one-off line for #session-status ("the story is over")
  urlApplied: false,        // the URL's moment was started (or there was none): from now on, write the URL
};

// ---------------------------------------------------------------------------------------------------------
// Polling: one long poll at a time, rendering only a new version
// ---------------------------------------------------------------------------------------------------------

async function pollForever() {
  let failures = 0;
  for (;;) {
    const since = page.state ? page.state.version : null;
    const started = performance.now();
    try {
      const state = await api('GET', since === null ? '/api/state' : `/api/state?since=${since}`);
      if (failures > 0) clearError();
      failures = 0;
      // A restarted playground starts counting again, so any other version is new, not only a higher one.
      if (state && (!page.state || state.version !== page.state.version)) render(state);
    } catch (e) {
      showError(e.message);
      await sleep(kPollRetryMs[Math.min(failures++, kPollRetryMs.length - 1)]);
      continue;
    }
    const elapsed = performance.now() - started;
    if (elapsed < kPollFloorMs) await sleep(kPollFloorMs - elapsed);
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------------------------------------
// Rendering one state
// ---------------------------------------------------------------------------------------------------------

function render(state) {
  const previous = page.state;
  page.state = state;
  const session = state.session || {};
  if (session.waiting !== 'prediction') page.predictionSent = false;

  renderSession(session);
  renderNarration(state.narration || []);
  renderTimeline(state.timeline_svg || '');
  renderTable($('keys'), state.keys, previous && previous.keys, 'idempotency_keys: this stand keeps no key table');
  renderTable($('ledger'), state.ledger, previous && previous.ledger, 'ledger');
  renderTable($('accounts'), state.accounts, previous && previous.accounts, 'accounts');
  renderLog(state.history || []);
  renderAttempts(state.history || []);
  renderDetails();
  renderPrediction(state);
  resolvePending(state);
  renderLinks(session);

  // Last, so that a test waiting on these sees a page that is already drawn.
  document.body.dataset.version = String(state.version);
  document.body.dataset.waiting = session.waiting || '';
  document.body.dataset.mode = session.mode || 'none';
  document.body.dataset.step = String(session.step ?? 0);

  runQueuedAction();
}

// The session line: where we are and what the page waits for, in words.
function renderSession(session) {
  const mode = session.mode || 'none';
  const stand = session.stand ? `${session.stand.label} (${session.stand.binary})` : '';
  let where = 'No session yet: choose a scenario and start a tour, or pick a stand and start free mode.';
  if (mode === 'tour') {
    const total = session.steps_total ? ` of ${session.steps_total}` : '';
    where = `Guided tour "${session.scenario}" on ${stand}, seed ${session.seed}: step ${session.step ?? 0}${total}.`;
  } else if (mode === 'free') {
    where = `Free mode on ${stand}, seed ${session.seed}.`;
  }
  const waiting = mode === 'none' ? '' : {
    step: mode === 'tour' ? 'Press Next (n) for the next step.' : 'Ready: send a request (s).',
    prediction: 'Waiting for your prediction: what will the repeat get?',
    busy: 'The server is working...',
    finished: 'The story is over.',
  }[session.waiting] || '';
  const line = [where, waiting, page.notice].filter(Boolean).join(' ');
  page.notice = '';
  if ($('session-status').textContent !== line) $('session-status').textContent = line;
  document.body.classList.toggle('busy', session.waiting === 'busy');

  const verdict = $('verdict');
  verdict.hidden = !session.verdict;
  verdict.textContent = session.verdict ? `Verdict: ${session.verdict}` : '';
  if (session.error) showError(`session: ${session.error}`);

  // Controls that do nothing in this mode say so to assistive technology; they stay focusable, and a press
  // explains why nothing happens (see act()).
  const tour = mode === 'tour';
  setAvailable($('next'), tour && session.waiting !== 'finished');
  setAvailable($('back'), tour && (session.step ?? 0) > 0);
  for (const id of ['send', 'restart', 'clock']) setAvailable($(id), mode === 'free');
  $('free-controls').classList.toggle('inactive', mode !== 'free');

  const scenario = page.scenarios.find((s) => s.name === session.scenario);
  $('tell-fixing').hidden = !(tour && session.waiting === 'finished' && session.role === 'flawed' &&
                              scenario && scenario.fixing);
  if (!$('tell-fixing').hidden) $('tell-fixing').textContent = `Tell the same story on ${scenario.fixing.label}, which fixes it`;
  $('clock-line').textContent = clockLine();
}

function setAvailable(button, available) {
  if (available) button.removeAttribute('aria-disabled');
  else button.setAttribute('aria-disabled', 'true');
}

function clockLine() {
  const ms = page.state && page.state.clock_ms;
  return ms ? `Lab clock: moved ${Math.round(ms / 1000)} s ahead of real time.` : 'Lab clock: real time.';
}

// Narration: appended, never redrawn, so a screen reader (aria-live) hears each new line once.
function renderNarration(items) {
  const list = $('narration');
  const same = (li, item) => li.dataset.step === String(item.step) && li.dataset.kind === item.kind &&
                             li.dataset.text === item.text;
  let kept = 0;
  while (kept < list.children.length && kept < items.length && same(list.children[kept], items[kept])) kept++;
  while (list.children.length > kept) list.lastChild.remove();
  const fresh = items.slice(kept);
  for (const item of fresh) list.append(narrationItem(item));
  if (fresh.length > 0) list.scrollTop = list.scrollHeight;  // the newest line is the one being told
  $('narration-empty').hidden = items.length > 0;
  $('narration-empty').textContent = page.state && page.state.session && page.state.session.mode === 'free'
    ? 'Free mode tells no story: you do. Send a key twice and you will be asked to predict the answer.'
    : "A tour's narration appears here, one step at a time.";
}

// One line of the story. Damage and the fix carry a word, not only a colour; request and answer lines
// ("> POST ...", "< 201 Created") are shown as the wire shows them.
function narrationItem(item) {
  const li = el('li', { 'data-step': item.step, 'data-kind': item.kind, 'data-text': item.text });
  const label = { step: `Step ${item.step}.`, damage: 'Damage:', good: 'Fixed:' }[item.kind];
  if (label) li.append(el('span', { class: 'kind-label' }, label), ' ');
  // The terminal numbers its steps itself ("1. Alice pays ..."); here the label does.
  const text = item.kind === 'step' ? item.text.replace(/^\d+\.\s+/, '') : item.text;
  const wire = /^[<>] /.test(text);
  if (/^\s+\S/.test(text)) li.classList.add('aside');  // an indented line: a remark on the line above
  li.append(el(wire ? 'code' : 'span', { class: 'narration-text' }, text.trim()));
  return li;
}

// The timeline is the server's SVG (grader/timeline_svg.cc), inserted as is; redrawn only when it changed,
// and the attempt that had the focus gets it back.
function renderTimeline(svg) {
  const box = $('timeline');
  if (box.dataset.svg !== svg) {
    const focused = document.activeElement && document.activeElement.closest &&
                    document.activeElement.closest('#timeline g.attempt');
    const focusedOp = focused ? focused.dataset.op : null;
    box.innerHTML = svg || '<p class="hint">No attempts yet.</p>';
    box.dataset.svg = svg;
    // Scaled to the column by CSS, which needs a viewBox; a fixed-size SVG without one would be cropped.
    const drawing = box.querySelector('svg');
    if (drawing && !drawing.hasAttribute('viewBox')) {
      const width = parseFloat(drawing.getAttribute('width'));
      const height = parseFloat(drawing.getAttribute('height'));
      if (width > 0 && height > 0) drawing.setAttribute('viewBox', `0 0 ${width} ${height}`);
    }
    for (const g of box.querySelectorAll('g.attempt')) {
      // The contract has the SVG make its attempts focusable buttons; a page that cannot be used without a
      // mouse is a bug, so make sure.
      if (!g.hasAttribute('tabindex')) g.setAttribute('tabindex', '0');
      if (!g.hasAttribute('role')) g.setAttribute('role', 'button');
    }
    if (focusedOp !== null) {
      const again = box.querySelector(`g.attempt[data-op="${CSS.escape(focusedOp)}"]`);
      if (again) again.focus({ preventScroll: true });
    }
  }
  for (const g of box.querySelectorAll('g.attempt')) {
    const selected = g.dataset.op === String(page.selectedOp);
    g.classList.toggle('selected', selected);
    if (selected) g.setAttribute('aria-pressed', 'true'); else g.removeAttribute('aria-pressed');
  }
  $('jump-first-violation').hidden = !box.querySelector('#first-violation');
}

// A table from {columns, rows}: thead from the columns, one tbody row per row. Rows not in the previous
// state are marked new (a bar at their left edge: a shape, not only a colour).
function renderTable(table, data, before, what) {
  const columns = (data && data.columns) || [];
  const rows = (data && data.rows) || [];
  const signature = JSON.stringify([columns, rows]);
  if (table.dataset.signature === signature) return;
  table.dataset.signature = signature;
  const seen = new Set(((before && before.rows) || []).map((r) => JSON.stringify(r)));
  const firstRender = !before;

  table.tHead.replaceChildren(el('tr', null, ...columns.map((c) => el('th', { scope: 'col' }, c))));
  table.tBodies[0].replaceChildren(...rows.map((row) => {
    const isNew = !firstRender && !seen.has(JSON.stringify(row));
    return el('tr', { class: isNew ? 'new' : null },
      ...row.map((cell) => el('td', { class: cell === null ? 'null' : null }, cell === null ? 'NULL' : cellText(cell))));
  }));
  const caption = table.caption || table.createCaption();
  caption.textContent = columns.length === 0 ? `No such table: ${what}.`
    : `${rows.length} ${rows.length === 1 ? 'row' : 'rows'}`;
}

const cellText = (cell) => (typeof cell === 'object' ? JSON.stringify(cell) : String(cell));

// The text log: one li per event, appended while the history only grows.
function renderLog(history) {
  const log = $('log');
  const rendered = log.children.length;
  const extends_ = rendered <= history.length &&
                   (rendered === 0 || log.children[rendered - 1].dataset.signature === eventSignature(history[rendered - 1]));
  if (!extends_) log.replaceChildren();
  const fresh = history.slice(log.children.length).map((event) => {
    return el('li', { 'data-op': event.op ?? '', 'data-type': event.type, 'data-signature': eventSignature(event) },
      logLine(event), ' ', el('span', { class: 't' }, `at ${formatMs(event.t)}`));
  });
  log.append(...fresh);
}

const eventSignature = (e) => `${e.type}|${e.op ?? ''}|${e.t}`;
const formatMs = (t) => (typeof t === 'number' ? `${Math.round(t)} ms` : '?');

// "op 3 invoke POST /transfers key "rent-1"", "op 3 ok 201 Created, replayed: transfer 5".
function logLine(e) {
  const op = `op ${e.op}`;
  switch (e.type) {
    case 'invoke':
      return `${op} invoke ${e.request.method} ${e.request.target} key ${e.key ?? 'none'}`;
    case 'ok':
    case 'fail':
      return `${op} ${e.type} ${statusLine(e.status)}${replayed(e) ? ', replayed' : ''}${answerGist(e.response)}`;
    case 'unknown':
      return `${op} unknown: no answer reached the client${e.error ? ` (${e.error})` : ''}`;
    case 'ended':
      return e.status ? `${op} ended: the server answered ${statusLine(e.status)}, after the client stopped listening`
                      : `${op} ended: ${e.error || 'the connection closed'}`;
    case 'fault':
      return `fault ${e.fault}: ${e.detail}`;
    case 'observe':
      return `observe: the ledger holds ${e.ledger_entries} ${e.ledger_entries === 1 ? 'entry' : 'entries'} for intent ${e.intent}`;
    default:
      return `${e.type}`;
  }
}

const replayed = (completion) => header(completion && completion.response, 'Idempotent-Replayed') === 'true';

// ": transfer 5", ": "already processed"", ": request-in-progress": what an answer's body says, briefly.
function answerGist(response) {
  const body = response && parseJson(response.body);
  if (!body || typeof body !== 'object') return '';
  if (body.kind && body.id !== undefined) return `: ${body.kind} ${body.id}`;
  if (typeof body.status === 'string') return `: "${body.status}"`;
  if (typeof body.type === 'string') return `: ${body.type.replace(/^\/problems\//, '')}`;
  return '';
}

// The ops of a history: op -> {invoke, completion, ended}.
function opsOf(history) {
  const ops = new Map();
  for (const e of history) {
    if (e.op === undefined || e.op === null) continue;
    const op = ops.get(e.op) || { op: e.op, invoke: null, completion: null, ended: null };
    if (e.type === 'invoke') op.invoke = e;
    else if (e.type === 'ended') op.ended = e;
    else op.completion = e;
    ops.set(e.op, op);
  }
  return ops;
}

// The table view beside the drawing: the same attempts, one row each, with the findings the SVG marks.
function renderAttempts(history) {
  const marks = new Map();
  for (const g of $('timeline').querySelectorAll('g.attempt[data-anomaly]')) marks.set(g.dataset.op, g.dataset.anomaly);
  const rows = [];
  for (const { op, invoke, completion, ended } of opsOf(history).values()) {
    if (!invoke) continue;
    const status = completion ? (completion.type === 'unknown' ? 'unknown' : statusLine(completion.status)) : 'waiting';
    const tail = completion && completion.type === 'unknown' && ended && ended.status
      ? ` (the server answered ${ended.status} later)` : '';
    rows.push(el('tr', { 'data-op': op, class: String(op) === String(page.selectedOp) ? 'selected' : null },
      el('td', null, el('button', { type: 'button', class: 'link', 'data-show-op': op, 'aria-label': `show op ${op}` }, op)),
      el('td', null, invoke.key ?? 'none'),
      el('td', null, formatMs(invoke.t)),
      el('td', { 'data-status': completion ? (completion.status ?? 'unknown') : 'waiting' }, status + tail),
      el('td', null, completion && completion.response ? (replayed(completion) ? 'yes' : 'no') : ''),
      el('td', null, completion ? String(Math.round(completion.t - invoke.t)) : ''),
      el('td', { class: marks.has(String(op)) ? 'finding' : null }, marks.has(String(op)) ? `! ${marks.get(String(op))}` : '')));
  }
  const body = $('attempts').tBodies[0];
  const signature = rows.map((r) => r.outerHTML).join('');
  if (body.dataset.signature !== signature) {
    body.replaceChildren(...rows);
    body.dataset.signature = signature;
  }
}

// #details: the selected attempt's request and answer, as curl -v shows them (> sent, < received).
function renderDetails() {
  const box = $('details');
  const op = page.selectedOp;
  const ops = opsOf((page.state && page.state.history) || []);
  const found = op === null ? null : ops.get(Number(op)) || ops.get(op);
  if (!found || !found.invoke) {
    markKeyRow(null);
    box.replaceChildren(el('p', { class: 'hint' }, 'No attempt selected: click one, or Tab to it and press Enter.'));
    return;
  }
  const { invoke, completion, ended } = found;
  markKeyRow(invoke.key);
  const lines = [`> ${invoke.request.method} ${invoke.request.target}`];
  for (const [n, v] of invoke.request.headers || []) lines.push(`> ${n}: ${v}`);
  if (invoke.request.body) lines.push('>', ...prettyBody(invoke.request.body).map((l) => `> ${l}`));
  lines.push('');
  if (!completion) {
    lines.push('  (no answer yet)');
  } else if (!completion.response) {
    lines.push(`  no answer reached the client${completion.error ? `: ${completion.error}` : ''}`);
  } else {
    lines.push(`< ${statusLine(completion.response.status)}`);
    for (const [n, v] of completion.response.headers || []) lines.push(`< ${n}: ${v}`);
    if (completion.response.body) lines.push('<', ...prettyBody(completion.response.body).map((l) => `< ${l}`));
  }
  if (ended) {
    lines.push('', ended.status ? `  then the server answered ${statusLine(ended.status)}, but nobody was listening`
                                : `  then: ${ended.error || 'the connection closed'}`);
  }
  const took = completion ? `, answered after ${Math.round(completion.t - invoke.t)} ms` : '';
  box.replaceChildren(
    el('h3', null, `op ${invoke.op}: ${invoke.request.method} ${invoke.request.target}, key ${invoke.key ?? 'none'}`),
    el('p', { class: 'hint' }, `sent at ${formatMs(invoke.t)}${took}${invoke.check ? `; ${invoke.check}` : ''}` +
                               `${invoke.intent ? `, intent ${invoke.intent}` : ''}`),
    el('pre', { class: 'wire', tabindex: 0, 'aria-label': `request and response of op ${invoke.op}` }, lines.join('\n')));
}

// The selected attempt's row in the key table: what the server remembers about that key.
function markKeyRow(key) {
  const table = $('keys');
  const column = [...table.tHead.querySelectorAll('th')].findIndex((th) => th.textContent === 'key');
  for (const tr of table.tBodies[0].rows) {
    const cell = column >= 0 ? tr.cells[column] : null;
    tr.classList.toggle('selected', key !== null && !!cell && sameKey(cell.textContent, key));
  }
}

// A JSON body pretty-printed (it is easier to compare two answers that way); anything else as it came.
function prettyBody(text) {
  const json = parseJson(text);
  return (json === undefined ? text : JSON.stringify(json, null, 2)).split('\n');
}

function selectOp(op) {
  page.selectedOp = op === null ? null : String(op);
  renderTimeline(page.state ? page.state.timeline_svg || '' : '');
  renderAttempts((page.state && page.state.history) || []);
  renderDetails();
  // The details are long; a screen reader hears only that they are there (the panel itself is not live).
  const heading = $('details').querySelector('h3');
  $('details-announcer').textContent = heading ? `Details shown: ${heading.textContent}` : '';
}

// The share link and the address bar: this exact moment, as a URL that starts it again.
function renderLinks(session) {
  const params = new URLSearchParams();
  if (session.mode === 'tour') {
    params.set('scenario', session.scenario);
    params.set('role', session.role || 'flawed');
    params.set('seed', session.seed ?? 1);
    params.set('step', session.step ?? 0);
  } else if (session.mode === 'free' && session.stand) {
    params.set('stand', session.stand.binary);
    params.set('seed', session.seed ?? 1);
  }
  const query = params.toString();
  const url = new URL(`/${query ? `?${query}` : ''}`, window.location.origin).href;
  $('share-link').href = url;
  // While the URL's own moment is still being reached (a tour running to its step), the address bar keeps
  // it: a reload then starts the same moment again, not a step on the way.
  if (page.urlApplied && session.waiting !== 'busy' && window.location.href !== url) {
    history.replaceState(null, '', url);
  }
}

// ---------------------------------------------------------------------------------------------------------
// Predict, then reveal
// ---------------------------------------------------------------------------------------------------------

// The panel is shown when the tour waits for a prediction (session.waiting == "prediction"), or in free mode
// when the learner sends a key that was sent before (page.freeAsk).
function renderPrediction(state) {
  const session = state.session || {};
  const panel = $('prediction');
  const tourAsks = session.waiting === 'prediction' && !page.predictionSent;
  // Free mode whose server also waits for a prediction: the learner already chose, before the send.
  if (tourAsks && session.mode === 'free' && page.pending && !page.pending.forwarded) {
    page.pending.forwarded = true;
    page.predictionSent = true;
    attempt(() => api('POST', '/api/predict', { choice: page.pending.choice }));
    panel.hidden = true;
    return;
  }
  const ask = tourAsks ? tourQuestion(state) : page.freeAsk ? freeQuestion(page.freeAsk, state) : null;
  const wasHidden = panel.hidden;
  panel.hidden = !ask;
  if (!ask) return;
  $('prediction-context').textContent = ask.context;
  $('prediction-request').textContent = ask.request;
  $('prediction-cancel').hidden = !page.freeAsk;
  if (wasHidden) {
    $('reveal').hidden = true;
    // Nothing goes on without an answer: bring the choices to the keyboard. A free-mode send was just asked
    // for; a tour's question arrives on its own, so a learner typing in a field keeps the field.
    if (page.freeAsk || !isTyping(document.activeElement)) panel.querySelector('[data-choice]').focus();
  }
}

function tourQuestion(state) {
  const p = state.prediction || {};
  const earlier = (p.previous || []).map((x) => `op ${x.op} got ${x.status ? statusLine(x.status) : 'no answer'}`);
  return {
    context: `This request carries the key ${p.op_key ?? '(none)'}, which was sent before` +
             (earlier.length ? `: ${earlier.join(', ')}.` : '.') + ' What will it get?',
    request: p.request ? wireRequest(p.request) : '',
  };
}

function freeQuestion(ask, state) {
  const ops = [...opsOf(state.history || []).values()].filter((o) => o.invoke && sameKey(o.invoke.key, ask.form.key));
  const earlier = ops.map((o) => `op ${o.op} got ${o.completion && o.completion.status ? statusLine(o.completion.status) : 'no answer'}`);
  const f = ask.form;
  return {
    context: `The key "${f.key}" was sent before in this session: ${earlier.join(', ')}. What will this send get?`,
    request: `> POST /transfers (as ${f.client})\n> Idempotency-Key: "${f.key}"\n> amount ${f.amount}` +
             `${f.copies > 1 ? `, ${f.copies} copies at once` : ''}${f.crash ? `, Lab-Crash: ${f.crash}` : ''}` +
             `${f.drop ? ', reply dropped' : ''}`,
  };
}

function wireRequest(r) {
  const lines = [`> ${r.method || 'POST'} ${r.target || ''}`];
  for (const [n, v] of r.headers || []) lines.push(`> ${n}: ${v}`);
  if (r.body) lines.push('>', ...prettyBody(r.body).map((l) => `> ${l}`));
  return lines.join('\n');
}

// Free mode: the learner would rather not send the repeat after all.
function cancelFreeAsk() {
  if (!page.freeAsk) return;
  page.freeAsk = null;
  $('prediction').hidden = true;
  $('send').focus();
}

// The learner chose. Remember what the world looked like, so that the answer can be judged against it.
async function predict(choice) {
  const state = page.state;
  if (!state) return;
  const session = state.session || {};
  const snapshot = {
    choice,
    afterOp: Math.max(0, ...[...opsOf(state.history || []).keys()].map(Number).filter(Number.isFinite)),
    ledgerBefore: state.ledger || { columns: [], rows: [] },
    since: performance.now(),
  };
  $('prediction').hidden = true;
  if (page.freeAsk) {
    const form = page.freeAsk.form;
    page.freeAsk = null;
    page.pending = { ...snapshot, key: form.key, copies: form.copies, forwarded: false };
    await run(async () => {
      try {
        await api('POST', '/api/send', form);
      } catch (e) {
        page.pending = null;  // nothing was sent: nothing to reveal
        throw e;
      }
    });
  } else if (session.waiting === 'prediction') {
    page.pending = { ...snapshot, key: state.prediction && state.prediction.op_key, copies: 1, forwarded: true };
    page.predictionSent = true;
    const answered = await attempt(() => api('POST', '/api/predict', { choice }));
    if (answered === undefined) {  // refused: ask again
      page.predictionSent = false;
      page.pending = null;
      renderPrediction(page.state);
    }
  }
}

// ---------------------------------------------------------------------------------------------------------
// Outcomes of a repeat: what a repeated key was actually answered, and whose lesson that is
// ---------------------------------------------------------------------------------------------------------
//
//   replay     2xx with Idempotent-Replayed: true (stage 5 on), or stage 4's rebuilt answer naming the
//              same transfer
//   409        the first request still holds the key (stage 4 on)
//   422        the key was first used with another body, or by another client (stage 3 on)
//   new-debit  a 2xx without replay while the ledger grew for this request: the money moved again
//   other      anything else: stage 2's 200 {"status":"already processed"}, no answer at all, a refusal
//              that is not about the key

// Judges the pending prediction once its answer has arrived; shows #reveal.
function resolvePending(state) {
  const pending = page.pending;
  if (!pending) return;
  const ops = [...opsOf(state.history || []).values()]
    .filter((o) => o.invoke && o.op > pending.afterOp && sameKey(o.invoke.key, pending.key));
  if (ops.length < pending.copies || ops.some((o) => !o.completion)) return;
  // A dropped reply: wait (a little) for the server to end the request, so the ledger can tell.
  const waitingForEnd = ops.some((o) => o.completion.type === 'unknown' && !o.ended);
  if (waitingForEnd && performance.now() - pending.since < kEndedPatienceMs) {
    clearTimeout(pending.timer);
    pending.timer = setTimeout(() => resolvePending(page.state), 250);
    return;
  }
  page.pending = null;
  showReveal(pending, judge(ops, pending, state));
}

// The outcome of a repeat's ops: {outcome, why, answer}.
function judge(ops, pending, state) {
  const stand = (state.session && state.session.stand && state.session.stand.binary) || '';
  const first = ops[0].invoke.request;
  const memo = (parseJson(first.body) || {}).memo;
  const moved = ledgerCount(state.ledger, memo) - ledgerCount(pending.ledgerBefore, memo);
  const history = state.history || [];
  const earlier = [...opsOf(history).values()].filter((o) => o.invoke && o.op <= pending.afterOp && sameKey(o.invoke.key, pending.key));
  const sameClient = earlier.length === 0 ||
    earlier.some((o) => header(o.invoke.request, 'Authorization') === header(first, 'Authorization'));
  const sameBody = earlier.some((o) => canonical(o.invoke.request.body) === canonical(first.body));
  const earlierIds = new Set(earlier.map((o) => idOf(o.completion && o.completion.response)).filter((x) => x !== undefined));

  // Each op's answer as the client saw it, by kind. A dropped reply is no answer, whatever the server ended
  // it with: the prediction is about what the client learns (the ledger still tells what the server did).
  const kinds = ops.map((o) => {
    const response = o.completion.response;
    if (!response) return 'none';
    const status = response.status;
    if (status === 409) return '409';
    if (status === 422) return '422';
    if (status >= 200 && status < 300) {
      if (response && replayed(o.completion)) return 'replay';
      const body = parseJson(response.body);
      if (body && body.status === 'already processed') return 'already-processed';
      return earlierIds.has(idOf(response)) ? 'rebuilt' : '2xx';
    }
    return 'refused';
  });
  const count = (k) => kinds.filter((x) => x === k).length;
  const tally = [...new Set(kinds)].map((k) => `${kKindWords[k]} x${count(k)}`).join(', ');
  const statuses = ops.map((o) => (o.completion.response ? statusLine(o.completion.response.status) + answerGist(o.completion.response)
    : `no answer reached the client${o.ended && o.ended.status ? ` (the server ended it with ${statusLine(o.ended.status)})` : ''}`));
  const answer = (ops.length === 1 ? `op ${ops[0].op}: ${statuses[0]}` : `${ops.length} copies: ${tally}`) +
                 `${ops.length === 1 && replayed(ops[0].completion) ? ', Idempotent-Replayed: true' : ''}; ` +
                 `the ledger gained ${Math.max(moved, 0)} ${moved === 1 ? 'entry' : 'entries'}` +
                 `${memo ? ` for "${memo}"` : ''}.`;

  const ctx = { stand, sameClient, sameBody, moved, kinds, status: ops[0].completion.status };
  let outcome;
  if (moved > 0 && (count('2xx') > 0 || count('none') > 0)) outcome = 'new-debit';
  else if (count('replay') + count('rebuilt') === kinds.length) outcome = 'replay';
  else if (count('409') > 0) outcome = '409';
  else if (count('422') > 0) outcome = '422';
  else outcome = 'other';
  return { outcome, answer, why: why(outcome, ctx) };
}

const kKindWords = { replay: 'replayed', rebuilt: 'rebuilt answer', '2xx': 'success', 'already-processed':
  '"already processed"', none: 'no answer', refused: 'refused', 409: '409', 422: '422' };

// Ledger entries carrying the memo (the stories give every intent its own), or all entries without one.
function ledgerCount(table, memo) {
  const rows = (table && table.rows) || [];
  const at = ((table && table.columns) || []).indexOf('memo');
  if (!memo || at < 0) return rows.length;
  return rows.filter((r) => r[at] === memo).length;
}

const idOf = (response) => { const b = response && parseJson(response.body); return b && b.id !== undefined ? `${b.kind}:${b.id}` : undefined; };

// Bodies compared as the stage 3 fingerprint compares them: by meaning, not by bytes (member order aside).
function canonical(text) {
  const sort = (v) => (Array.isArray(v) ? v.map(sort) : v && typeof v === 'object'
    ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sort(v[k])])) : v);
  const json = parseJson(text);
  return json === undefined ? text : JSON.stringify(sort(json));
}

// Why the repeat got what it got: one or two sentences naming the stage whose lesson it is
// (LAB.md "Stage 2" .. "Stage 6", "What it still gets wrong", and "Wrong turns").
function why(outcome, c) {
  const is = (prefix) => c.stand.startsWith(prefix);
  switch (outcome) {
    case 'replay':
      if (c.kinds.includes('rebuilt')) {
        return 'No money moved, but the answer was rebuilt from what the key recorded: the same transfer with ' +
               "today's balance and a new created_at, and no Idempotent-Replayed header. That is stage 4; stage 5 " +
               'stores the first answer and replays it byte for byte (LAB.md "Stage 4: What it still gets wrong").';
      }
      if (!c.sameClient && !is('stage6')) {
        return 'The server replayed the stored answer to a client who did not send it: keys are global until ' +
               "stage 6, so one client reads another's receipt. Stage 6 scopes keys per client " +
               '(LAB.md "Stage 5: What it still gets wrong").';
      }
      return 'The key was completed, so the server sent the first answer again, byte for byte, marked ' +
             'Idempotent-Replayed: true, and moved no money. That is stage 5\'s lesson: replay the stored response.';
    case '409':
      return 'The first request with this key has not finished (or it died and its claim still holds its lease), ' +
             'so the server refuses to run the key twice at once and says "try again" instead of "done". ' +
             'That is stage 4\'s lesson: in_progress, then completed.';
    case '422':
      if (!c.sameClient) {
        return 'Another client sent this key string first. Until stage 6 keys are global, so this client\'s own ' +
               'request is refused and its money never moves; stage 6 scopes keys per client ' +
               '(LAB.md "Stage 3: What it still gets wrong").';
      }
      if (c.sameBody) {
        return 'The body means the same but is spelled differently, and a fingerprint of the raw bytes tells ' +
               'them apart (wrong turn 3a). Stage 3 fingerprints the canonical JSON.';
      }
      return 'The key was first used with a different body, so this is not a repeat but another request under ' +
             'a used key: the server refuses rather than answer "done". That is stage 3\'s lesson: the canonical fingerprint.';
    case 'new-debit':
      if (!c.sameClient && is('stage6')) {
        return 'No repeat at all: stage 6 scopes keys per client, so this client\'s key is its own and its ' +
               'transfer ran, once. That is stage 6\'s lesson: scope.';
      }
      if (is('stage6')) {
        return 'Stage 6 keeps a key only as long as it publishes (GET /idempotency-policy); past that the key is ' +
               'forgotten and a retry runs again, as promised. The fix is a policy: keep keys longer than any ' +
               'client retries (LAB.md "Stage 6").';
      }
      if (is('stage1')) {
        return 'Stage 1 ignores the key: every request moves money, a retry too, so one intent paid twice. ' +
               'Stage 2\'s key table with a UNIQUE constraint is the fix.';
      }
      if (is('wrong_select_then_insert')) {
        return 'Copies that arrive together all SELECT the key before any of them INSERTs it, so several run ' +
               '(wrong turn 2a). Stage 2 lets the UNIQUE constraint decide.';
      }
      if (is('wrong_money_first')) {
        return 'The money committed, then the process died before the key recorded it, so the retry found no ' +
               'key and paid again (wrong turn 4b). Stage 4 moves the money and completes the key in one transaction.';
      }
      return 'The server ran the repeat as a new request and the money moved again: one intent, two debits. ' +
             'A key table should prevent this from stage 2 on (LAB.md "Stage 2").';
    default:
      if (c.kinds.includes('already-processed')) {
        return 'Stage 2 answers every repeat 200 {"status":"already processed"}, whatever its body, and even ' +
               'before the first request finished or after it died: the client hears "done" but not what was done. ' +
               'That is stage 2\'s flaw (LAB.md "Stage 2: What it still gets wrong"); stages 3, 4 and 5 fix it.';
      }
      if (c.kinds.includes('none')) {
        return 'No answer reached the client, so it cannot tell what happened; only the ledger can (it gained ' +
               `${Math.max(c.moved, 0)} here). That is the lost response every lesson starts from ` +
               '(LAB.md "Stage 1: the naive server", the incident): the client can only retry, with the same key.';
      }
      if (c.kinds.includes('2xx')) {
        return 'The server said success, yet no money moved and the answer names no earlier transfer: a key that ' +
               'says "completed" before the money moves lies after a crash (wrong turn 4a). Stage 4 completes the ' +
               'key in the money\'s transaction.';
      }
      return `The answer was ${statusLine(c.status)}: a refusal, but not about the key. Read it in the details ` +
             'of the attempt; a stage that remembers outcomes (stage 4 on) gives a repeat the same refusal.';
  }
}

const kChoiceWords = { replay: 'a replay', 409: '409 in progress', 422: '422 key reused', 'new-debit': 'a new debit',
                       other: 'none of the four' };

function showReveal(pending, judged) {
  const reveal = $('reveal');
  const correct = pending.choice === judged.outcome;
  reveal.dataset.outcome = judged.outcome;
  reveal.dataset.correct = String(correct);
  reveal.hidden = false;
  $('reveal-verdict').textContent = `${correct ? 'Right.' : 'Not this time.'} You predicted ${kChoiceWords[pending.choice]}; ` +
                                     `it was ${kChoiceWords[judged.outcome]}.`;
  $('reveal-answer').textContent = judged.answer;
  $('reveal-why').textContent = judged.why;
}

// ---------------------------------------------------------------------------------------------------------
// Actions
// ---------------------------------------------------------------------------------------------------------

const seed = () => Math.max(0, parseInt($('seed').value, 10) || 0);
const mode = () => (page.state && page.state.session && page.state.session.mode) || 'none';
const waiting = () => (page.state && page.state.session && page.state.session.waiting) || '';

// A press while the server is busy is kept and run when the server is ready again, in order, so pressing n
// twice quickly tells two steps, and a test need not time its clicks. A few at most: a held-down key is not
// a plan.
const kMaxQueued = 4;

function act(name, action, { needs, unavailable } = {}) {
  if (needs && mode() !== needs) {
    page.notice = unavailable;
    if (page.state) renderSession(page.state.session || {}); else $('session-status').textContent = unavailable;
    return;
  }
  if (page.inFlight > 0 || waiting() === 'busy' || page.queued.length > 0) {
    if (page.queued.length < kMaxQueued) page.queued.push({ name, action });
    $('session-status').textContent = `The server is working; then: ${page.queued.map((q) => q.name).join(', ')}.`;
    return;
  }
  run(action);
}

async function run(action) {
  page.inFlight++;
  try {
    await attempt(action);
  } finally {
    page.inFlight--;
  }
  runQueuedAction();
}

function runQueuedAction() {
  if (page.queued.length === 0 || page.inFlight > 0 || waiting() === 'busy') return;
  run(page.queued.shift().action);
}

// Every new session starts with a clean slate: nothing predicted, nothing selected.
function forgetSession() {
  page.queued = [];
  page.pending = null;
  page.freeAsk = null;
  page.selectedOp = null;
  page.predictionSent = false;
  $('reveal').hidden = true;
  $('prediction').hidden = true;
}

function startTour(role = $('role').value, step = 0) {
  const scenario = $('scenario').value;
  if (!scenario) { showError('Choose a scenario first.'); return; }
  forgetSession();
  run(() => api('POST', '/api/tour', { scenario, role, seed: seed(), step }));
}

function startFree() {
  const stand = $('stand').value;
  if (!stand) { showError('Choose a stand first.'); return; }
  forgetSession();
  run(() => api('POST', '/api/free', { stand, seed: seed() }));
}

// While the panel asks, the story cannot go on: the answer comes first.
function predictFirst() {
  if ($('prediction').hidden) return false;
  page.notice = 'Predict first: choose one of the four answers (keys 1 to 4).';
  renderSession((page.state && page.state.session) || {});
  $('prediction').querySelector('[data-choice]').focus();
  return true;
}

// The last step told: Next has nowhere to go, and says so rather than ask the server.
function storyOver() {
  if (mode() !== 'tour' || waiting() !== 'finished' || page.inFlight > 0 || page.queued.length > 0) return false;
  page.notice = 'Back (b) steps back; Start tour tells it again' +
                ($('tell-fixing').hidden ? '.' : ', or tell it on the stage that fixes it.');
  renderSession(page.state.session);
  return true;
}

const next = () => predictFirst() || storyOver() || act('next', () => api('POST', '/api/next', {}), { needs: 'tour', unavailable: 'Next and Back step through a guided tour: start one first.' });
const back = () => {
  $('reveal').hidden = true;  // going back undoes the step the reveal was about
  act('back', () => api('POST', '/api/back', {}), { needs: 'tour', unavailable: 'Next and Back step through a guided tour: start one first.' });
};

function readSendForm() {
  const int = (id, min, fallback) => Math.max(min, parseInt($(id).value, 10) || fallback);
  return {
    client: $('client').value,
    key: $('key').value.trim(),
    amount: int('amount', 1, 1500),
    copies: int('copies', 1, 1),
    crash: $('crash').value,
    drop: $('drop').checked,
    delay_ms: 0,
  };
}

// Free mode: a key sent before is a repeat, so the learner predicts first (the panel), then it is sent.
function send() {
  if (predictFirst()) return;
  act('send', async () => {
    const form = readSendForm();
    const history = (page.state && page.state.history) || [];
    const usedBefore = form.key !== '' && history.some((e) => e.type === 'invoke' && sameKey(e.key, form.key));
    if (usedBefore) {
      page.freeAsk = { form };
      renderPrediction(page.state);
      return;
    }
    await api('POST', '/api/send', form);
  }, { needs: 'free', unavailable: 'Send works in free mode: pick a stand and start free mode first.' });
}

const restart = () => act('restart', () => api('POST', '/api/restart', {}), { needs: 'free', unavailable: 'Restart works in free mode.' });
const advanceClock = () => act('clock', () => api('POST', '/api/clock', { seconds: Math.max(1, parseInt($('clock-seconds').value, 10) || 1) }),
                               { needs: 'free', unavailable: 'The clock moves in free mode.' });

// The share link copies itself (a click would otherwise restart the same moment); the address bar holds it too.
async function copyShareLink(event) {
  if (event.button !== 0 || event.ctrlKey || event.metaKey || event.shiftKey) return;
  event.preventDefault();
  const url = $('share-link').href;
  try {
    await navigator.clipboard.writeText(url);
    page.notice = `Link copied: ${url}`;
  } catch {
    page.notice = `Link to this moment: ${url}`;
  }
  if (page.state) renderSession(page.state.session || {});
}

function jumpToFirstViolation(event) {
  event.preventDefault();
  const target = $('timeline').querySelector('#first-violation');
  if (!target) return;
  target.scrollIntoView({ behavior: prefersReducedMotion() ? 'auto' : 'smooth', block: 'center' });
  target.focus({ preventScroll: true });
  if (target.dataset.op) selectOp(target.dataset.op);
}

// ---------------------------------------------------------------------------------------------------------
// Keyboard: n next, b back, s send, 1-4 predict; never while the learner types in a field
// ---------------------------------------------------------------------------------------------------------

function isTyping(target) {
  return target instanceof Element &&
         (target.matches('input:not([type=checkbox]):not([type=radio]), select, textarea') || target.isContentEditable);
}

function onKey(event) {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  const attemptBar = event.target instanceof Element && event.target.closest('#timeline g.attempt');
  if (attemptBar && (event.key === 'Enter' || event.key === ' ')) {
    event.preventDefault();
    selectOp(attemptBar.dataset.op);
    return;
  }
  if (event.key === 'Escape' && page.freeAsk) {
    cancelFreeAsk();
    return;
  }
  if (isTyping(event.target)) return;
  const choices = ['replay', '409', '422', 'new-debit'];
  if (!$('prediction').hidden && /^[1-4]$/.test(event.key)) {
    event.preventDefault();
    predict(choices[Number(event.key) - 1]);
    return;
  }
  const shortcut = { n: next, b: back, s: send }[event.key];
  if (shortcut) {
    event.preventDefault();
    shortcut();
  }
}

// ---------------------------------------------------------------------------------------------------------
// Start: the lists, the URL's moment, then the poll
// ---------------------------------------------------------------------------------------------------------

function fillSelects() {
  $('scenario').replaceChildren(...page.scenarios.map((s) => el('option', { value: s.name, title: s.title },
    `${s.name}: ${s.title}`)));
  $('stand').replaceChildren(...page.stands.map((s) => el('option', { value: s.binary }, `${s.label} (${s.binary})`)));
  updateRoleChoices();
}

// A scenario told on the last stage has no fixing stage: its second telling cannot be chosen.
function updateRoleChoices() {
  const scenario = page.scenarios.find((s) => s.name === $('scenario').value);
  const fixing = $('role').querySelector('option[value=fixing]');
  fixing.disabled = !!scenario && !scenario.fixing;
  fixing.textContent = scenario && scenario.fixing ? `${scenario.fixing.label}, which fixes it` : 'the stage that fixes it';
  $('role').querySelector('option[value=flawed]').textContent = scenario ? `${scenario.flawed.label}, with the flaw`
                                                                         : 'the stage with the flaw';
  if (fixing.disabled) $('role').value = 'flawed';
}

// /?scenario=NAME&role=flawed&seed=1&step=3 starts that tour at that step; /?stand=BINARY&seed=1 free mode.
async function startFromUrl() {
  const params = new URLSearchParams(window.location.search);
  if (params.has('seed')) $('seed').value = params.get('seed');
  if (params.has('scenario')) {
    $('scenario').value = params.get('scenario');
    if (params.has('role')) $('role').value = params.get('role');
    forgetSession();
    await run(() => api('POST', '/api/tour', {
      scenario: params.get('scenario'), role: params.get('role') || 'flawed', seed: seed(),
      step: Math.max(0, parseInt(params.get('step'), 10) || 0),
    }));
  } else if (params.has('stand')) {
    $('stand').value = params.get('stand');
    forgetSession();
    await run(() => api('POST', '/api/free', { stand: params.get('stand'), seed: seed() }));
  }
  page.urlApplied = true;
}

async function main() {
  $('start-tour').addEventListener('click', () => startTour());
  $('tell-fixing').addEventListener('click', () => { $('role').value = 'fixing'; startTour('fixing'); });
  $('free-mode').addEventListener('click', startFree);
  $('next').addEventListener('click', next);
  $('back').addEventListener('click', back);
  $('send-form').addEventListener('submit', (e) => { e.preventDefault(); send(); });
  $('restart').addEventListener('click', restart);
  $('clock').addEventListener('click', advanceClock);
  $('scenario').addEventListener('change', updateRoleChoices);
  $('share-link').addEventListener('click', copyShareLink);
  $('jump-first-violation').addEventListener('click', jumpToFirstViolation);
  $('error-dismiss').addEventListener('click', clearError);
  $('prediction-cancel').addEventListener('click', cancelFreeAsk);
  $('prediction').addEventListener('click', (e) => {
    const button = e.target.closest('[data-choice]');
    if (button) predict(button.dataset.choice);
  });
  $('timeline').addEventListener('click', (e) => {
    const bar = e.target.closest('g.attempt');
    if (bar) selectOp(bar.dataset.op);
  });
  $('attempts').addEventListener('click', (e) => {
    const button = e.target.closest('[data-show-op]');
    if (button) selectOp(button.dataset.showOp);
  });
  document.addEventListener('keydown', onKey);

  await attempt(async () => {
    [page.stands, page.scenarios] = await Promise.all([api('GET', '/api/stands'), api('GET', '/api/scenarios')]);
    fillSelects();
  });
  const firstPoll = startFromUrl();
  pollForever();
  await firstPoll;
}

main();
