-- wrk script of bench/http_appends.py: one connection per wrk thread (-t N -c N), so each thread is one
-- client with its own games. Its requests are precomputed, one line each in `<dir>/requests-<thread>.txt`
-- ("<path>\t<json body>"): the next legal event of the thread's game, one event a request, in order.
--
--   wrk -t16 -c16 -d10s -s bench/http_appends.lua http://127.0.0.1:PORT -- <dir> <bearer key or -> [cycle]
--
-- `cycle`: send the lines again and again (the bare endpoint, which keeps no state). Otherwise a thread
-- whose lines run out sends GET / (counted as `exhausted`: the run was too short of events, redo it).
-- `done` prints one line for the Python side:
--   RESULT <requests> <duration us> <p50 us> <p99 us> <not 201> <exhausted threads> <socket errors>
-- and the first unexpected answer (`FIRST <status> <body>`), to say why a run failed.

local threads = {}
local counter = 1

function setup(thread)
  thread:set("id", counter)
  counter = counter + 1
  table.insert(threads, thread)
end

function init(args)
  local dir, key = args[1], args[2]
  cycle = args[3] == "cycle"
  local headers = { ["Content-Type"] = "application/json" }
  if key ~= "-" then
    headers["Authorization"] = "Bearer " .. key
  end
  reqs = {}
  for line in io.lines(dir .. "/requests-" .. id .. ".txt") do
    local tab = line:find("\t", 1, true)
    reqs[#reqs + 1] = wrk.format("POST", line:sub(1, tab - 1), headers, line:sub(tab + 1))
  end
  fallback = wrk.format("GET", "/")
  -- wrk calls the first thread's request() once before the run, to check what it returns (wrk.c,
  -- script_verify_request): that call must not use up an event, or every event after it is off by one
  probe = id == 1
  sent = 0
  bad = 0
  exhausted = 0
  first = ""
end

function request()
  if probe then
    probe = false
    return reqs[1] or fallback
  end
  sent = sent + 1
  if cycle then
    return reqs[(sent - 1) % #reqs + 1]
  end
  if sent > #reqs then
    exhausted = 1
    return fallback
  end
  return reqs[sent]
end

function response(status, headers, body)
  if status ~= 201 then
    bad = bad + 1
    if first == "" then
      first = status .. " " .. (body or ""):sub(1, 300):gsub("%s", " ")
    end
  end
end

function done(summary, latency, requests)
  local bad_total, exhausted_total, first_seen = 0, 0, ""
  for _, thread in ipairs(threads) do
    bad_total = bad_total + (thread:get("bad") or 0)
    exhausted_total = exhausted_total + (thread:get("exhausted") or 0)
    local f = thread:get("first")
    if first_seen == "" and f then
      first_seen = f
    end
  end
  local e = summary.errors
  io.write(string.format("RESULT %d %d %d %d %d %d %d\n", summary.requests, summary.duration,
    latency:percentile(50), latency:percentile(99), bad_total, exhausted_total,
    e.connect + e.read + e.write + e.timeout))
  io.write("FIRST " .. first_seen .. "\n")
end
