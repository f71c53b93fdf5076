-- transfers.lua: the wrk script of `make bench` (scripts/bench.py; docs/reference/plumbing.md "Performance"). Every request is
-- POST /transfers of 1 cent with an Idempotency-Key; the mode says which key:
--
--   wrk -t2 -c16 -d3s --latency -s bench/transfers.lua http://127.0.0.1:PORT -- \
--       accounts=TOKEN:FROM:TO,TOKEN:FROM:TO mode=new|retries|duplicates [retry_share=0.25]
--
--   new         every request a new key: a new transfer (the first execution)
--   retries     after a warm-up of new keys (kRetryPool), with probability retry_share the key (and so the
--               body) of an earlier request of this thread that has surely been answered: a retry of a
--               completed key, which stage 5 on replays
--   duplicates  two consecutive requests of a thread share a key: two connections carry the same key at about
--               the same moment; one executes, the other gets 409 (in progress) or the replay
--
-- wrk thread i sends from the account of accounts[i] with that client's token, to its TO account. Each
-- thread has its own Lua state; setup() numbers them, done() sums what their response() counted and prints
-- one line for the driver:  BENCH-RESULT {json}
-- A benchmark of errors is not a benchmark: every status but 201 (and 409 where the mode makes one expected)
-- is counted as unexpected, and the driver reports it.

-- Several instances of one server (stage 6 on one PostgreSQL database, docs/reference/beyond-one-process.md "Beyond one process"): with
-- BENCH_ADDRESSES=127.0.0.1:P1,127.0.0.1:P2,... in the environment, thread i sends to address i (round robin),
-- so run as many threads as instances.

-- main state: the threads, numbered in the order wrk creates them
local threads = {}
local addresses = {}
for host, port in string.gmatch(os.getenv("BENCH_ADDRESSES") or "", "([^,:]+):(%d+)") do
  table.insert(addresses, wrk.lookup(host, port)[1])
end

function setup(thread)
  thread:set("thread_number", #threads + 1)
  if #addresses > 0 then thread.addr = addresses[#threads % #addresses + 1] end
  table.insert(threads, thread)
end

-- thread state ------------------------------------------------------------------------------------------

-- A key this many requests old has been answered (a connection holds one request at a time, and requests
-- of one thread finish in about the order they start); a younger one may still be in progress.
local kAnsweredAfter = 256
-- Retries start once this many keys are answered: the keys a retry picks from, so that even with
-- retry_share=1 (replays only) the replays spread over many keys, not one.
local kRetryPool = 1000

local options = {}
local body, headers
local new_keys = 0       -- keys sent for the first time
local sent = 0           -- requests sent
statuses = {}            -- status code -> count (read by done() through thread:get)
replayed = 0             -- responses marked Idempotent-Replayed: true
retries = 0              -- requests that resent an earlier key

function init(args)
  -- args[0] is the URL; ours, after wrk's "--", are args[1] on
  for _, arg in ipairs(args) do
    local name, value = arg:match("^([%w_]+)=(.*)$")
    if not name then error("transfers.lua: arguments are name=value, not '" .. arg .. "'") end
    options[name] = value
  end
  options.mode = options.mode or "new"
  options.retry_share = tonumber(options.retry_share or "0")
  local accounts = {}
  for token, from, to in (options.accounts or ""):gmatch("([^:,]+):(%d+):(%d+)") do
    table.insert(accounts, {token = token, from = from, to = to})
  end
  if #accounts == 0 then error("transfers.lua: accounts=TOKEN:FROM:TO,... is required") end
  local mine = accounts[(thread_number - 1) % #accounts + 1]
  -- The same body for every request of this thread, so that a resent key is a true retry (same body).
  body = string.format('{"from_account":%s,"to_account":%s,"amount":1,"currency":"USD"}', mine.from, mine.to)
  headers = {["Authorization"] = "Bearer " .. mine.token, ["Content-Type"] = "application/json"}
  math.randomseed(thread_number)
end

local function key_text(n)
  return string.format('"bench-%d-%d"', thread_number, n)   -- an RFC 8941 sf-string: quoted
end

local function next_key()
  sent = sent + 1
  if options.mode == "duplicates" then
    return key_text(math.floor((sent + 1) / 2))   -- 1, 1, 2, 2, 3, 3, ...
  end
  if options.mode == "retries" and new_keys >= kAnsweredAfter + kRetryPool and math.random() < options.retry_share then
    retries = retries + 1
    -- From key 2: wrk calls request() once before the run to check it (thread 1's key 1), never sending it.
    return key_text(math.random(2, new_keys - kAnsweredAfter))
  end
  new_keys = new_keys + 1
  return key_text(new_keys)
end

function request()
  headers["Idempotency-Key"] = next_key()
  return wrk.format("POST", "/transfers", headers, body)
end

function response(status, response_headers, _)
  statuses[status] = (statuses[status] or 0) + 1
  if response_headers["Idempotent-Replayed"] == "true" then replayed = replayed + 1 end
end

-- main state again ----------------------------------------------------------------------------------------

function done(summary, latency, _)
  local counts, replays, resent = {}, 0, 0
  for _, thread in ipairs(threads) do
    for status, n in pairs(thread:get("statuses")) do counts[status] = (counts[status] or 0) + n end
    replays = replays + thread:get("replayed")
    resent = resent + thread:get("retries")
  end
  local status_json = {}
  for status, n in pairs(counts) do table.insert(status_json, string.format('"%d":%d', status, n)) end
  local e = summary.errors
  io.write(string.format(
    'BENCH-RESULT {"requests":%d,"duration_us":%d,"p50_us":%d,"p99_us":%d,"max_us":%d,"statuses":{%s},' ..
    '"replayed":%d,"retries_sent":%d,"socket_errors":{"connect":%d,"read":%d,"write":%d,"timeout":%d}}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), latency.max,
    table.concat(status_json, ","), replays, resent, e.connect, e.read, e.write, e.timeout))
end
