// history.js: the grader's history, read for the page. The playground's /api/state carries the session's
// history as History::to_json events (the grammar is at the top of grader/record/history.cc): an "invoke" and its
// completion ("ok", "fail", "unknown") share an op; "ended" is the server finishing an op the client gave up
// on. These helpers pair them up and put them in words; they touch no DOM. docs/teach/grader.md "The history format".
//
// Loaded first (index.html); render.js, reveal.js and playground.js use these names.
'use strict';

// "201 Created": the status line as a person reads it (grader/demo/demo_scene.cc:status_line says the same).
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

// Enough to tell whether the log already shows an event (the history only grows within a session).
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

// A JSON body pretty-printed (it is easier to compare two answers that way); anything else as it came.
function prettyBody(text) {
  const json = parseJson(text);
  return (json === undefined ? text : JSON.stringify(json, null, 2)).split('\n');
}

// A request as curl -v shows it, and as the narration does: "> " for every line sent.
function wireRequest(r) {
  const lines = [`> ${r.method || 'POST'} ${r.target || ''}`];
  for (const [n, v] of r.headers || []) lines.push(`> ${n}: ${v}`);
  if (r.body) lines.push('>', ...prettyBody(r.body).map((l) => `> ${l}`));
  return lines.join('\n');
}

// What a 2xx answer names ("transfer:5"): a rebuilt answer names an earlier transfer, a new debit a new one.
function idOf(response) {
  const body = response && parseJson(response.body);
  return body && body.id !== undefined ? `${body.kind}:${body.id}` : undefined;
}

// Bodies compared roughly as the stage 3 fingerprint compares them: by meaning, not by bytes (here: member
// order and spacing aside), to tell "another body" from "the same body, spelled differently".
function canonical(text) {
  const sort = (v) => (Array.isArray(v) ? v.map(sort) : v && typeof v === 'object'
    ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sort(v[k])])) : v);
  const json = parseJson(text);
  return json === undefined ? text : JSON.stringify(sort(json));
}
