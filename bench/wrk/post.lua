-- wrk script for bench/k6-vs-wrk.ts: POST, with an optional bearer token and JSON body taken from
-- the environment (never the command line), and one machine-readable summary line at the end.
wrk.method = "POST"
-- The request k6 sends (bench/k6/health-check.ts): its User-Agent, and Go's Content-Length: 0 on
-- a POST without a body, so the emulator parses the same bytes from both tools.
wrk.headers["User-Agent"] = "ces-harness (k6)"

local token = os.getenv("BENCH_TOKEN")
if token ~= nil and token ~= "" then
  wrk.headers["Authorization"] = "Bearer " .. token
end

local body = os.getenv("BENCH_BODY")
if body ~= nil and body ~= "" then
  wrk.body = body
  wrk.headers["Content-Type"] = "application/json"
else
  -- wrk writes Content-Length only for a body (of any length, "" too).
  wrk.body = ""
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'BENCH_JSON {"requests":%d,"duration_us":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d,"p50_us":%d,"p99_us":%d}\n',
    summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(99)))
end
