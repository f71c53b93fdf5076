// reveal.js: predict, then reveal. Before a repeat is sent (a request whose key was sent before in this
// session) the learner predicts what it will get: a replay, 409, 422 or a new debit. When its answer has
// arrived, the page judges what it actually got and says whose lesson that is. docs/learn/stage-2-unique-key.md "Stage 2: a key table with a UNIQUE constraint" to
// "Stage 6", "What it still gets wrong", and "Wrong turns".
//
// The question comes from the server in a tour (session.waiting == "prediction", state.prediction), or
// from the page in free mode (send() in playground.js finds the key in the history). The answer is judged
// here, from the history and the ledger: the server does not say which outcome a repeat had.
'use strict';

// A repeat whose reply was dropped ends on the server later (Lab-Delay-Ms 600 in the stories and in free
// mode): the reveal waits this long for that "ended" event before judging by the ledger alone.
const kEndedPatienceMs = 3000;

// ---------------------------------------------------------------------------------------------------------
// The question
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
  // Who used the key before: this client, or another one (keys are global until stage 6). The history keeps
  // enough of each bearer token to tell clients apart (grader/record/history.cc:redacted_header_value).
  const token = (request) => header(request, 'Authorization');
  const mine = earlier.filter((o) => token(o.invoke.request) === token(first));
  const others = earlier.filter((o) => token(o.invoke.request) !== token(first));
  const sameBody = mine.some((o) => canonical(o.invoke.request.body) === canonical(first.body));
  // A replay of an answer that was given to another client: its receipt, leaked.
  const theirAnswers = new Set(others.map((o) => o.completion && o.completion.response && o.completion.response.body));
  const leaked = ops.some((o) => o.completion.response && replayed(o.completion) && theirAnswers.has(o.completion.response.body));
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
      if (replayed(o.completion)) return 'replay';
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

  const ctx = { stand, usedByMe: mine.length > 0, usedByOther: others.length > 0, sameBody, leaked, moved, kinds,
                status: ops[0].completion.status };
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

// Why the repeat got what it got: one or two sentences naming the stage whose lesson it is
// (docs/learn/stage-2-unique-key.md "Stage 2: a key table with a UNIQUE constraint" .. "Stage 6", "What it still gets wrong", and "Wrong turns").
function why(outcome, c) {
  const is = (prefix) => c.stand.startsWith(prefix);
  switch (outcome) {
    case 'replay':
      if (c.kinds.includes('rebuilt')) {
        return 'No money moved, but the answer was rebuilt from what the key recorded: the same transfer with ' +
               "today's balance and a new created_at, and no Idempotent-Replayed header. That is stage 4; stage 5 " +
               'stores the first answer and replays it byte for byte (docs/learn/stage-4-two-phase.md "What it still gets wrong").';
      }
      if (c.leaked) {
        return 'The server replayed the stored answer to a client who did not send it: keys are global until ' +
               "stage 6, so one client reads another's receipt. Stage 6 scopes keys per client " +
               '(docs/learn/stage-5-replay.md "What it still gets wrong").';
      }
      return 'The key was completed, so the server sent the first answer again, byte for byte, marked ' +
             'Idempotent-Replayed: true, and moved no money. That is stage 5\'s lesson: replay the stored response.';
    case '409':
      return 'The first request with this key has not finished (or it died and its claim still holds its lease), ' +
             'so the server refuses to run the key twice at once and says "try again" instead of "done". ' +
             'That is stage 4\'s lesson: in_progress, then completed.';
    case '422':
      if (!c.usedByMe && c.usedByOther) {
        return 'Another client sent this key string first. Until stage 6 keys are global, so this client\'s own ' +
               'request is refused and its money never moves; stage 6 scopes keys per client ' +
               '(docs/learn/stage-3-fingerprint.md "What it still gets wrong").';
      }
      if (c.sameBody) {
        return 'The body means the same but is spelled differently, and a fingerprint of the raw bytes tells ' +
               'them apart (wrong turn 3a). Stage 3 fingerprints the canonical JSON.';
      }
      return 'The key was first used with a different body, so this is not a repeat but another request under ' +
             'a used key: the server refuses rather than answer "done". That is stage 3\'s lesson: the canonical fingerprint.';
    case 'new-debit':
      if (!c.usedByMe && c.usedByOther && is('stage6')) {
        return 'No repeat at all: stage 6 scopes keys per client, so this client\'s key is its own and its ' +
               'transfer ran, once. That is stage 6\'s lesson: scope.';
      }
      if (is('stage6')) {
        return 'Stage 6 keeps a key only as long as it publishes (GET /idempotency-policy); past that the key is ' +
               'forgotten and a retry runs again, as promised. The fix is a policy: keep keys longer than any ' +
               'client retries (docs/learn/stage-6-scope-ttl.md "Stage 6: scope and retention").';
      }
      if (is('stage1')) {
        return 'Stage 1 ignores the key: every request moves money, a retry too, so one intent paid twice. ' +
               'Stage 2\'s key table with a UNIQUE constraint is the fix.';
      }
      if (is('wrong_select_then_insert')) {
        return 'Copies that arrive together all SELECT the key before any of them INSERTs it, so several run ' +
               '(wrong turn 2a). Stage 2 lets the UNIQUE constraint decide.';
      }
      if (is('wrong_insert_or_ignore')) {
        return 'INSERT OR IGNORE skipped the key\'s row and reported success, so the handler never learned this ' +
               'was a repeat and ran it (wrong turn 2b). Stage 2 lets the failed INSERT say so.';
      }
      if (is('wrong_money_first')) {
        return 'The money committed, then the process died before the key recorded it, so the retry found no ' +
               'key and paid again (wrong turn 4b). Stage 4 moves the money and completes the key in one transaction.';
      }
      return 'The server ran the repeat as a new request and the money moved again: one intent, two debits. ' +
             'A key table should prevent this from stage 2 on (docs/learn/stage-2-unique-key.md "Stage 2: a key table with a UNIQUE constraint").';
    default:
      if (c.kinds.includes('already-processed') && is('stage3')) {
        return 'Stage 3 checks the body, then answers a repeat 200 {"status":"already processed"}, even while the ' +
               'first request still runs or after it died: "done" before anything is done ' +
               '(docs/learn/stage-3-fingerprint.md "What it still gets wrong"). Stage 4\'s in_progress state fixes it.';
      }
      if (c.kinds.includes('already-processed')) {
        return 'Stage 2 answers every repeat 200 {"status":"already processed"}, whatever its body, and even ' +
               'before the first request finished or after it died: the client hears "done" but not what was done. ' +
               'That is stage 2\'s flaw (docs/learn/stage-2-unique-key.md "What it still gets wrong"); stages 3, 4 and 5 fix it.';
      }
      if (c.kinds.includes('none')) {
        return 'No answer reached the client, so it cannot tell what happened; only the ledger can (it gained ' +
               `${Math.max(c.moved, 0)} here). That is the lost response every lesson starts from ` +
               '(docs/learn/stage-1-naive.md "Stage 1: the naive server", the incident): the client can only retry, with the same key.';
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

// #reveal: right or wrong in words (and a solid or dashed border), what came back, and why.
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
  // The learner just answered where the panel was; the narration may have grown since, pushing this down.
  reveal.scrollIntoView({ block: 'nearest', behavior: prefersReducedMotion() ? 'auto' : 'smooth' });
}
