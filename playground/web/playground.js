// playground.js: the playground page's behaviour. docs/teach/the-day.md "The day" (the show), in a browser.
//
// The page holds no truth of its own: the playground server (playground/*.cc) runs the real stage servers
// and the `grader demo` stories, and publishes everything in one JSON document, GET /api/state. The page
//   1. polls that state (a long poll: /api/state?since=V answers when the version moves, or after 2 s),
//   2. renders it (render.js): narration, the server's timeline SVG, the key table, ledger and accounts,
//      the text log and the table of attempts,
//   3. asks for a prediction before a repeat and reveals what the repeat got (reveal.js),
//   4. turns clicks and keys into POSTs (/api/tour, /api/next, /api/predict, /api/send, ...), whose effect
//      arrives, like everything else, through the next state.
// This file holds 1 and 4; history.js reads the grader's history events for all of them. index.html loads
// history.js, render.js, reveal.js, then this file, as plain scripts sharing one scope: no framework, no
// build step, no external asset.
//
// After each render, document.body.dataset.{version,waiting,mode,step} mirror the state: the browser tests
// (tests/browser) wait on them.
'use strict';

// ---------------------------------------------------------------------------------------------------------
// Tuning
// ---------------------------------------------------------------------------------------------------------

const kPollFloorMs = 300;          // a server that answers a long poll at once is asked again this much later
const kPollRetryMs = [500, 1000, 2000, 5000];  // back-off after a failed poll (the server may be restarting)

// ---------------------------------------------------------------------------------------------------------
// The API: JSON in, JSON out, errors as problem+json shown in #error (never swallowed)
// ---------------------------------------------------------------------------------------------------------

class ApiError extends Error {}

async function api(method, path, body) {
  const init = { method, headers: { Accept: 'application/json, application/problem+json' } };
  // Every POST is JSON, even with nothing to say: the playground refuses any other POST (a cross-site form
  // cannot send application/json), see playground/api.cc.
  if (body !== undefined || method === 'POST') {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body ?? {});
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
  pending: null,            // a prediction waiting for its answer (reveal.js:resolvePending)
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
      // A restarted playground counts from 0 again (its first answer comes when ?since= times out, 2 s), so
      // any other version is new, not only a higher one.
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

  // The tour shown changed (this page's link started it, or another page did): the menu follows it, and
  // with it everything that hangs on the scenario. A render of the same tour leaves the learner's menu alone.
  const before = previous && previous.session;
  if (session.mode === 'tour' && (!before || before.scenario !== session.scenario || before.role !== session.role)) {
    chooseScenario(session.scenario, session.role);
  }
  renderSession(session);
  renderNarration(state.narration || []);
  renderDropped(state.history_dropped || 0);
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
  if (!$('prediction').hidden && /^[1-4]$/.test(event.key)) {  // the choices, in the order shown
    event.preventDefault();
    predict($('prediction').querySelectorAll('[data-choice]')[Number(event.key) - 1].dataset.choice);
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

// Every path that changes the scenario shown comes through here (or through the menu's change event,
// which calls updateRoleChoices itself): setting $('scenario').value alone fires no event, and would leave
// the told-on choices and the Read: link describing the scenario chosen before (issue #56).
function chooseScenario(name, role) {
  $('scenario').value = name;
  if (role) $('role').value = role;
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
  // The chapter that teaches the scenario's fix, in the book the playground serves (GET /api/scenarios).
  const read = scenario && scenario.read;
  $('read-chapter').hidden = !read;
  if (read) {
    $('read-chapter').href = read.href;
    $('read-chapter').textContent = `Read: ${read.text}`;
  }
}

// /?scenario=NAME&role=flawed&seed=1&step=3 starts that tour at that step; /?stand=BINARY&seed=1 free mode.
async function startFromUrl() {
  const params = new URLSearchParams(window.location.search);
  if (params.has('seed')) $('seed').value = params.get('seed');
  if (params.has('scenario')) {
    chooseScenario(params.get('scenario'), params.get('role'));
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

// The page is four scripts; a server that serves only some of them gets a page that says which.
function scriptsMissing() {
  const loaded = { 'history.js': typeof opsOf, 'render.js': typeof renderTable, 'reveal.js': typeof judge };
  const missing = Object.keys(loaded).filter((file) => loaded[file] !== 'function');
  if (missing.length === 0) return false;
  const error = document.getElementById('error');
  document.getElementById('error-text').textContent = `${missing.join(', ')} did not load: the playground ` +
    'server must serve every file of playground/web/.';
  error.hidden = false;
  return true;
}

async function main() {
  if (scriptsMissing()) return;
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

