// The environment k6 starts with. Built from the parent's, minus whatever would change the run
// or send it elsewhere: k6 reads many options from K6_* variables, and the scenarios read their
// inputs from CES_*, so an inherited one would silently make the run something the user did not ask.

/**
 * k6's own output settings: where its metrics go and how (InfluxDB, Prometheus remote write,
 * StatsD, OpenTelemetry, CSV, JSON, the web dashboard…). They change where the figures land, never
 * the load, and the README's dashboards depend on them reaching k6 (`--out experimental-prometheus-rw`
 * reads its server from K6_PROMETHEUS_RW_SERVER_URL). The harness's own dashboard settings
 * (dashboardEnv) still win over an inherited K6_WEB_DASHBOARD_*.
 */
export const K6_OUTPUT_SETTINGS =
  /^K6_(OUT|(INFLUXDB|PROMETHEUS_RW|STATSD|DATADOG|OTEL|CSV|JSON|KAFKA|WEB_DASHBOARD|DYNATRACE|TIMESCALEDB|XK6_OUTPUT)_[A-Z0-9_]+|WEB_DASHBOARD)$/;

/**
 * The parent environment for k6: without CES_* (only the scenario's own inputs may reach it, so a
 * secret from the user's shell for another environment never does), and of K6_* only the output
 * settings above. Any other K6_* is k6 options that would silently change the run (an inherited
 * K6_VUS, K6_DURATION or K6_ADDRESS) or send it elsewhere (K6_CLOUD_TOKEN, K6_CLOUD_*). K6_OUT
 * itself is not passed: it becomes `--out` arguments (inheritedOutputArgs).
 */
export function scrubbedEnv(base: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(base)) {
    if (v === undefined || /^CES_/i.test(k)) continue;
    if (/^K6_/i.test(k) && !K6_OUTPUT_SETTINGS.test(k)) continue;
    if (k === 'K6_OUT') continue;
    out[k] = v;
  }
  return out;
}

/**
 * The outputs of an inherited K6_OUT (comma-separated, as k6 reads it) as `--out` arguments. k6
 * ignores K6_OUT whenever one `--out` is given, and the harness gives the config's outputs so:
 * left in the environment, the user's outputs would silently get nothing.
 * An inherited `cloud` output is dropped: it would stream the run to Grafana Cloud (or fail it
 * without a token).
 */
export function inheritedOutputArgs(base: NodeJS.ProcessEnv): string[] {
  const outputs = (base['K6_OUT'] ?? '').split(',').map((o) => o.trim());
  return outputs.filter((o) => o !== '' && !/^cloud\b/i.test(o)).flatMap((o) => ['--out', o]);
}

/**
 * Go's garbage collector target for k6 (GOGC). k6 allocates for every request (its samples and
 * their tags), and at Go's default (100) it collects several times a second of load: 400 cut k6's
 * CPU per request by about 12 % on the bench's health_check load (bench/k6-vs-wrk.ts, 16 VUs, runs
 * side by side), for some 20 MB more memory (k6 at 16 VUs: 51 → 71 MB resident).
 */
export const K6_GOGC = '400';
/** The share of the machine's (or container's) memory past which Go collects as often as it must (GOMEMLIMIT). */
const K6_MEMORY_SHARE = 4;
const MIB = 1024 * 1024;

/**
 * GOGC and a soft memory limit for k6, unless the user set either (theirs then stands, unchanged):
 * the limit keeps a long run whose live heap grows from holding five
 * times that heap; below it, the CPU is what counts on a machine where k6 and the target share cores.
 */
export function goRuntimeEnv(base: NodeJS.ProcessEnv, totalMemoryBytes: number): Record<string, string> {
  if (base['GOGC'] !== undefined || base['GOMEMLIMIT'] !== undefined) return {};
  const limitMiB = Math.max(64, Math.floor(totalMemoryBytes / K6_MEMORY_SHARE / MIB));
  return { GOGC: K6_GOGC, GOMEMLIMIT: `${limitMiB}MiB` };
}

/**
 * The memory k6 may use: the machine's, or the container's limit when lower (Node's
 * process.constrainedMemory(): 0, undefined or 2^64 when there is none).
 */
export const usableMemory = (totalBytes: number, constrainedBytes: number | undefined): number =>
  Math.min(totalBytes, constrainedBytes || Infinity);
