// render.js: one /api/state, drawn. Each function owns one region of index.html and redraws it only when
// its part of the state changed, so that focus, scroll and screen-reader announcements survive the
// long poll (playground.js:render calls them in order). docs/teach/the-day.md "The day" (the show).
//
// The timeline is the server's SVG (grader/report/timeline_svg.cc), inserted as is; everything else is built here
// from the state's JSON: narration, key table, ledger, accounts, the text log and the attempts table.
'use strict';

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

// A session keeps its newest events only (playground/session.h:kSessionEventsKept): the drawing, the log,
// the attempts table and the export start where the kept history does, and this line says so.
function renderDropped(count) {
  const line = $('history-dropped');
  const text = count > 0
    ? `${count.toLocaleString('en')} older ${count === 1 ? 'event is' : 'events are'} not shown: the playground keeps a session's newest events only.`
    : '';
  line.hidden = count === 0;
  if (line.textContent !== text) line.textContent = text;
}

// The timeline is the server's SVG (grader/report/timeline_svg.cc), inserted as is; redrawn only when it changed,
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
    window.history.replaceState(null, '', url);
  }
}
