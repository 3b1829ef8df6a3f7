// Benches 3 and 4: the request rate k6 reaches through the harness against the emulator's cheapest
// endpoint, beside wrk against the same endpoint in the same run; and the emulator's own ceiling
// (wrk with more connections, on health_check and on /v1/evaluation with a valid token). The
// emulator runs in its own process (bench/serve.ts); each row says how busy each side was.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { ServiceClient } from '../src/http/service-client.js';
import { Redactor } from '../src/http/redact.js';
import { runScenario, type LocatedK6 } from '../src/k6/index.js';
import { scenarioEnv } from '../src/k6/contract.js';
import { requestsOf } from '../src/k6/summary.js';
import { dashboardEnv } from '../src/k6/scenarios.js';
import { readTimeline } from '../src/k6/timeline.js';
import { cpuSeconds, delta, reapedChildrenCpuSeconds, runCommand, which } from './proc.js';
import type { ServedEmulator } from './serve.js';
import { cores, rate, ratio, type Section } from './stats.js';

export interface LoadBenchOptions {
  projectRoot: string;
  emulator: ServedEmulator;
  /** undefined when k6 was not found; `k6Problem` says why. */
  k6: LocatedK6 | undefined;
  k6Problem?: string;
  durationS: number;
  /** Cores of this machine: wrk gets one thread per core. */
  cpus: number;
  /** Concurrency levels: k6 VUs and wrk connections alike. */
  concurrency: number[];
  progress: (message: string) => void;
}

export interface LoadRow {
  tool: 'k6' | 'wrk';
  endpoint: string;
  concurrency: number;
  requests: number | undefined;
  rps: number | undefined;
  failed: number | undefined;
  p50Ms: number | undefined;
  p99Ms: number | undefined;
  /** CPU seconds per wall second: 1.00 is one core kept busy. */
  serverCores: number | undefined;
  generatorCores: number | undefined;
  /** CPU microseconds per request: what each side pays per request, busy machine or not. */
  serverUsPerReq: number | undefined;
  generatorUsPerReq: number | undefined;
  problem?: string;
}

export interface LoadBenchResult {
  durationS: number;
  cpus: number;
  k6Version: string | undefined;
  rows: LoadRow[];
  notes: string[];
}

export const HEALTH = 'POST /tokens/health_check';
/**
 * The same bare script with what the harness adds to every k6 process: k6's web dashboard, exported
 * (src/k6/scenarios.ts's dashboardEnv), from which the per-second timeline is read
 * (src/k6/timeline.ts). The difference to the bare row is the harness's own cost per request,
 * apart from k6's.
 */
export const HEALTH_AS_HARNESS = `${HEALTH}, + the web dashboard (the timeline's source)`;
/**
 * The same endpoint through the scenarios' own wrapper (scenarios/lib/endpoints.ts's healthCheck,
 * as the tls scenario calls it) with the web dashboard: what a harness scenario adds to each
 * request besides the dashboard (its headers and Idempotency-Key, tags, timeout, the body kept).
 */
export const HEALTH_THROUGH_WRAPPER = `${HEALTH}, the scenarios' wrapper + the web dashboard`;
/**
 * The same endpoint sent and judged as a load scenario does each call (bench/k6/health-check.ts's
 * CES_BENCH_SCENARIO: the wrapper, the retry loop, a check, a duration trend, the thresholds and
 * summary handler of a scenario) with the web dashboard: k6 as the harness runs it.
 */
export const HEALTH_AS_SCENARIO = `${HEALTH}, as a scenario (checks, metrics, thresholds) + the web dashboard`;
const EVALUATION = 'POST /v1/evaluation (valid token)';
/** k6 starts, runs durationS plus a graceful stop, and writes its summary; this bounds a hang. */
const EXTRA_TIMEOUT_S = 30;

/** Bundles the bench's k6 script the way scripts/build.mjs bundles the scenarios. */
async function bundleK6Script(projectRoot: string, outdir: string): Promise<string> {
  const outfile = join(outdir, 'health-check.js');
  await build({
    entryPoints: [join(projectRoot, 'bench', 'k6', 'health-check.ts')],
    outfile,
    // k6 resolves imports itself and knows neither TypeScript nor node_modules: one file.
    bundle: true,
    // k6 runs ES modules natively, and `export const options` must stay visible to it.
    format: 'esm',
    // k6's runtime (Sobek) is neither Node nor a browser: no shims, no defines.
    platform: 'neutral',
    // What Sobek implements; anything newer is rewritten.
    target: 'es2020',
    // The k6 modules live inside the k6 binary.
    external: ['k6', 'k6/*'],
    // Errors in k6 then point at bench/k6/health-check.ts.
    sourcemap: 'inline',
    logLevel: 'warning',
  });
  return outfile;
}

type K6Mode = 'bare' | 'harness' | 'wrapper' | 'scenario';

const ENDPOINT_OF: Record<K6Mode, string> = {
  bare: HEALTH,
  harness: HEALTH_AS_HARNESS,
  wrapper: HEALTH_THROUGH_WRAPPER,
  scenario: HEALTH_AS_SCENARIO,
};

async function k6Run(
  opts: LoadBenchOptions,
  k6: LocatedK6,
  bundle: string,
  dir: string,
  vus: number,
  mode: K6Mode = 'bare',
): Promise<LoadRow> {
  const summaryFile = join(dir, `summary-${mode}-${vus}.json`);
  // As src/k6/scenarios.ts gives it to every k6 process of a harness run.
  const dashboard = mode !== 'bare' ? join(dir, `dashboard-${mode}-${vus}.html`) : undefined;
  const serverBefore = cpuSeconds(opts.emulator.pid);
  const childrenBefore = reapedChildrenCpuSeconds();
  const r = await runScenario({
    k6Path: k6.path,
    bundle,
    env: {
      CES_BASE_URL: opts.emulator.target.baseUrl,
      CES_BENCH_VUS: String(vus),
      CES_BENCH_DURATION_S: String(opts.durationS),
      ...(mode === 'wrapper' || mode === 'scenario' ? wrapperEnv(opts, mode) : {}),
      ...(dashboard !== undefined ? dashboardEnv(dashboard) : {}),
    },
    summaryFile,
    // As the harness does it: the emulator's CA joins the system roots (SSL_CERT_FILE), verification on.
    caFile: opts.emulator.caFile,
    timeoutMs: (opts.durationS + EXTRA_TIMEOUT_S) * 1000,
  });
  const serverCpu = delta(cpuSeconds(opts.emulator.pid), serverBefore);
  const generatorCpu = delta(reapedChildrenCpuSeconds(), childrenBefore);
  // Read as the harness reads it (after the CPU is counted, as the harness's reading is Node's work):
  // an export that does not add up to k6's count of requests would leave the report without a chart.
  const charted = dashboard !== undefined ? await readTimeline(dashboard, requestsOf(r.summary)) : undefined;
  const summary = r.summary as
    | { metrics?: Record<string, { values?: Record<string, number> }>; state?: { testRunDurationMs?: number } }
    | undefined;
  const metrics = summary?.metrics;
  // The emulator is busy only while the VUs run; k6 also burns CPU starting up and summarising.
  const testRunS = (summary?.state?.testRunDurationMs ?? r.durationMs) / 1000;
  const reqs = metrics?.http_reqs?.values;
  const failedRate = metrics?.http_req_failed?.values?.rate;
  const dur = metrics?.http_req_duration?.values;
  const row: LoadRow = {
    tool: 'k6',
    endpoint: ENDPOINT_OF[mode],
    concurrency: vus,
    requests: reqs?.count,
    // k6's own rate: requests over the test run's duration (VU start to stop), not k6's start-up.
    rps: reqs?.rate,
    failed: reqs?.count !== undefined && failedRate !== undefined ? Math.round(reqs.count * failedRate) : undefined,
    p50Ms: dur?.med,
    p99Ms: dur?.['p(99)'],
    serverCores: perWall(serverCpu, testRunS),
    generatorCores: perWall(generatorCpu, r.durationMs / 1000),
    serverUsPerReq: perRequest(serverCpu, reqs?.count),
    generatorUsPerReq: perRequest(generatorCpu, reqs?.count),
  };
  if (dashboard !== undefined && charted === undefined && reqs !== undefined)
    row.problem = `no timeline adding up to k6's ${reqs.count} requests in the dashboard export: no chart`;
  if (r.exitCode !== 0 || reqs === undefined) {
    const tail = (r.stderrTail || r.stdoutTail).trim().split('\n').slice(-2).join(' | ');
    row.problem = `k6 exit ${String(r.exitCode)}${r.timedOut ? ' (timed out)' : ''}${tail ? `: ${tail}` : ''}`;
  }
  return row;
}

/** The scenario inputs the wrapper's config reader (scenarios/lib/config.ts) needs; CES_BENCH_WRAPPER or _SCENARIO picks the shape. */
const wrapperEnv = (opts: LoadBenchOptions, mode: 'wrapper' | 'scenario'): Record<string, string> => ({
  ...scenarioEnv({
    baseUrl: opts.emulator.target.baseUrl,
    clientId: opts.emulator.target.credentials.clientId,
    clientSecret: opts.emulator.target.credentials.clientSecret,
    tokenLifetimeS: 86_400,
    clockToleranceS: 2,
    rate: 1,
    durationS: opts.durationS,
    vus: 1,
    runId: 'bench',
  }),
  [mode === 'wrapper' ? 'CES_BENCH_WRAPPER' : 'CES_BENCH_SCENARIO']: '1',
});

interface WrkSummary {
  requests: number;
  duration_us: number;
  connect: number;
  read: number;
  write: number;
  status: number;
  timeout: number;
  p50_us: number;
  p99_us: number;
}

async function wrkRun(
  opts: LoadBenchOptions,
  wrk: string,
  endpoint: string,
  path: string,
  connections: number,
  extraEnv: Record<string, string>,
  durationS = opts.durationS,
): Promise<LoadRow> {
  const lua = join(opts.projectRoot, 'bench', 'wrk', 'post.lua');
  const serverBefore = cpuSeconds(opts.emulator.pid);
  const childrenBefore = reapedChildrenCpuSeconds();
  // One wrk thread per core: wrk's own recommendation, and what k6 (GOMAXPROCS = cores) uses too.
  const threads = Math.max(1, Math.min(connections, opts.cpus));
  const r = await runCommand(
    wrk,
    [
      `-t${threads}`,
      `-c${connections}`,
      `-d${durationS}s`,
      '--timeout',
      '5s',
      '-s',
      lua,
      `${opts.emulator.target.baseUrl}${path}`,
    ],
    {
      timeoutMs: (durationS + EXTRA_TIMEOUT_S) * 1000,
      env: { ...process.env, ...extraEnv },
    },
  );
  const serverCpu = delta(cpuSeconds(opts.emulator.pid), serverBefore);
  const generatorCpu = delta(reapedChildrenCpuSeconds(), childrenBefore);
  const wallS = r.wallMs / 1000;
  const line = r.stdout.split('\n').find((l) => l.startsWith('BENCH_JSON '));
  let s: WrkSummary | undefined;
  try {
    s = line ? (JSON.parse(line.slice('BENCH_JSON '.length)) as WrkSummary) : undefined;
  } catch {
    s = undefined;
  }
  const row: LoadRow = {
    tool: 'wrk',
    endpoint,
    concurrency: connections,
    requests: s?.requests,
    rps: s ? s.requests / (s.duration_us / 1e6) : undefined,
    // wrk's "status" errors are non-2xx/3xx answers; the others are socket errors.
    failed: s ? s.status + s.connect + s.read + s.write + s.timeout : undefined,
    p50Ms: s ? s.p50_us / 1000 : undefined,
    p99Ms: s ? s.p99_us / 1000 : undefined,
    serverCores: perWall(serverCpu, wallS),
    generatorCores: perWall(generatorCpu, wallS),
    serverUsPerReq: perRequest(serverCpu, s?.requests),
    generatorUsPerReq: perRequest(generatorCpu, s?.requests),
  };
  if (r.code !== 0 || s === undefined)
    row.problem = `wrk exit ${String(r.code)}${r.timedOut ? ' (timed out)' : ''}: ${(r.stderr || r.stdout).trim().split('\n').slice(-1)[0] ?? ''}`;
  return row;
}

const perWall = (cpu: number | undefined, wallS: number): number | undefined =>
  cpu === undefined || wallS <= 0 ? undefined : cpu / wallS;
const perRequest = (cpu: number | undefined, requests: number | undefined): number | undefined =>
  cpu === undefined || requests === undefined || requests === 0 ? undefined : (cpu * 1e6) / requests;

export async function benchLoad(opts: LoadBenchOptions): Promise<LoadBenchResult> {
  const rows: LoadRow[] = [];
  const notes: string[] = [];
  const wrk = which('wrk');
  const dir = await mkdtemp(join(tmpdir(), 'ces-bench-k6-'));
  try {
    if (wrk !== undefined) {
      // Untimed: lets the emulator's JIT warm up, so whichever tool goes first is not penalised.
      opts.progress('load: warming the emulator up (wrk, 1 s)');
      await wrkRun(opts, wrk, HEALTH, '/tokens/health_check', opts.concurrency[0] ?? 16, {}, 1);
    }
    const bundle = opts.k6 ? await bundleK6Script(opts.projectRoot, dir) : undefined;
    // k6 and wrk alternate per concurrency level, so a drift of the machine hits both alike.
    for (const c of opts.concurrency) {
      if (opts.k6 && bundle) {
        opts.progress(`load: k6, ${c} VUs, ${opts.durationS} s on health_check`);
        rows.push(await k6Run(opts, opts.k6, bundle, dir, c));
        opts.progress(`load: k6 with the harness's web dashboard, ${c} VUs, ${opts.durationS} s on health_check`);
        rows.push(await k6Run(opts, opts.k6, bundle, dir, c, 'harness'));
        opts.progress(`load: k6 through the scenarios' wrapper, ${c} VUs, ${opts.durationS} s on health_check`);
        rows.push(await k6Run(opts, opts.k6, bundle, dir, c, 'wrapper'));
        opts.progress(`load: k6 as a scenario sends and judges a call, ${c} VUs, ${opts.durationS} s on health_check`);
        rows.push(await k6Run(opts, opts.k6, bundle, dir, c, 'scenario'));
      }
      if (wrk !== undefined) {
        opts.progress(`load: wrk, ${c} connections, ${opts.durationS} s on health_check`);
        rows.push(await wrkRun(opts, wrk, HEALTH, '/tokens/health_check', c, {}));
      }
    }
    if (wrk !== undefined) {
      const client = new ServiceClient(opts.emulator.target, { redactor: new Redactor(), connections: 1 });
      let token: string | undefined;
      try {
        token = (await client.issueToken()).issued?.token;
      } finally {
        await client.close();
      }
      if (token === undefined) notes.push('POST /tokens gave no token; /v1/evaluation not measured.');
      else {
        for (const c of opts.concurrency) {
          opts.progress(`load: wrk, ${c} connections, ${opts.durationS} s on /v1/evaluation`);
          rows.push(await wrkRun(opts, wrk, EVALUATION, '/v1/evaluation', c, { BENCH_TOKEN: token, BENCH_BODY: '{}' }));
        }
      }
    } else notes.push('wrk not installed (apt-get install -y wrk): no wrk rates, no ceiling.');
    if (!opts.k6) notes.push(`k6 not found: ${opts.k6Problem ?? 'unknown reason'}`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return { durationS: opts.durationS, cpus: opts.cpus, k6Version: opts.k6?.version, rows, notes };
}

const best = (rows: LoadRow[], tool: 'k6' | 'wrk', endpoint: string): LoadRow | undefined =>
  rows
    .filter((r) => r.tool === tool && r.endpoint === endpoint && r.rps !== undefined && r.problem === undefined)
    .sort((a, b) => b.rps! - a.rps!)[0];

export function loadSection(r: LoadBenchResult): Section {
  const notes = [...r.notes];
  const us = (x: number | undefined) => (x === undefined || !Number.isFinite(x) ? '-' : x.toFixed(0));
  const fmtMs = (x: number | undefined) => (x === undefined ? '-' : x < 10 ? x.toFixed(2) : x.toFixed(1));
  for (const row of r.rows)
    if (row.problem) notes.push(`${row.tool} ${row.endpoint} at ${row.concurrency}: ${row.problem}`);

  // Same concurrency, same endpoint: k6 / wrk.
  const k6Rows = r.rows.filter((x) => x.tool === 'k6' && x.endpoint === HEALTH);
  for (const k of k6Rows) {
    const w = r.rows.find((x) => x.tool === 'wrk' && x.endpoint === HEALTH && x.concurrency === k.concurrency);
    notes.push(`k6 / wrk at ${k.concurrency} VUs / connections on health_check: ${ratio(k.rps, w?.rps)}`);
    const t = r.rows.find((x) => x.endpoint === HEALTH_AS_HARNESS && x.concurrency === k.concurrency);
    if (t)
      notes.push(
        `The harness's own cost at ${k.concurrency} VUs: with the web dashboard k6 spent ${us(t.generatorUsPerReq)} µs of CPU per request, bare ${us(k.generatorUsPerReq)} (${ratio(t.generatorUsPerReq, k.generatorUsPerReq)}); rate ${ratio(t.rps, k.rps)} of the bare one.`,
      );
    const wr = r.rows.find((x) => x.endpoint === HEALTH_THROUGH_WRAPPER && x.concurrency === k.concurrency);
    if (wr)
      notes.push(
        `Through the scenarios' wrapper at ${k.concurrency} VUs (with the dashboard): ${us(wr.generatorUsPerReq)} µs of CPU per request (${ratio(wr.generatorUsPerReq, k.generatorUsPerReq)} the bare script's); rate ${ratio(wr.rps, w?.rps)} of wrk's.`,
      );
    const sc = r.rows.find((x) => x.endpoint === HEALTH_AS_SCENARIO && x.concurrency === k.concurrency);
    if (sc)
      notes.push(
        `As a scenario at ${k.concurrency} VUs (wrapper, retry loop, check, trend, thresholds, summary, dashboard): ${us(sc.generatorUsPerReq)} µs of CPU per request (${ratio(sc.generatorUsPerReq, k.generatorUsPerReq)} the bare script's); rate ${ratio(sc.rps, k.rps)} of bare k6's, ${ratio(sc.rps, w?.rps)} of wrk's.`,
      );
  }
  const k6Best = best(r.rows, 'k6', HEALTH);
  const healthCeiling = best(r.rows, 'wrk', HEALTH);
  const evalCeiling = best(r.rows, 'wrk', EVALUATION);
  notes.push(
    `Emulator ceiling (best wrk rate): health_check ${rate(healthCeiling?.rps)} at ${healthCeiling?.concurrency ?? '-'} connections, /v1/evaluation ${rate(evalCeiling?.rps)} at ${evalCeiling?.concurrency ?? '-'}; best k6 ${rate(k6Best?.rps)} = ${ratio(k6Best?.rps, healthCeiling?.rps)} of the health_check ceiling.`,
  );
  if (k6Best && healthCeiling?.rps !== undefined && k6Best.rps !== undefined) {
    const share = k6Best.rps / healthCeiling.rps;
    const wrkSame = r.rows.find(
      (x) => x.tool === 'wrk' && x.endpoint === HEALTH && x.concurrency === k6Best.concurrency,
    );
    const cost =
      k6Best.generatorUsPerReq !== undefined && wrkSame?.generatorUsPerReq !== undefined
        ? ` k6 spent ${us(k6Best.generatorUsPerReq)} µs of CPU per request, wrk ${us(wrkSame.generatorUsPerReq)} (${ratio(k6Best.generatorUsPerReq, wrkSame.generatorUsPerReq)}), on the same ${r.cpus} cores as the emulator.`
        : '';
    const reading =
      share >= 0.9
        ? `k6 drove the emulator about as hard as wrk did (${ratio(k6Best.rps, healthCeiling.rps)}): the emulator is the bottleneck, not k6.`
        : `in this run the emulator served ${ratio(healthCeiling.rps, k6Best.rps)} as many requests to wrk as to k6, so k6 (not the emulator) limited the k6 rate.`;
    notes.push(`Reading: ${reading}${cost}`);
  }
  notes.push(
    `cores = CPU seconds per wall second (1.00 = one core busy) of the emulator process and of the load generator; µs/req = CPU microseconds per request. The machine has ${r.cpus} cores, shared by both sides (and by anything else running). The emulator is one Node event loop: about 1.00 means it is saturated.`,
    'k6 verifies the emulator certificate (its CA through SSL_CERT_FILE, as the harness passes it); wrk does not verify. Both keep connections alive, speak TLS 1.3 (the emulator accepts nothing else) and send the same request (POST, User-Agent `ces-harness (k6)`, Content-Length: 0, no body).',
    "k6's rate is requests over its test-run time; its generator CPU includes k6's start-up and summary, so its µs/req is a little high. Rows run one after another after a 1 s untimed warm-up.",
  );
  return {
    title: `3-4. Request rate: k6 through the harness vs wrk, and the emulator's ceiling (${r.durationS} s each, emulator in its own process${r.k6Version ? `, k6 v${r.k6Version}` : ''})`,
    headers: [
      'tool',
      'endpoint',
      'conc.',
      'requests',
      'rate',
      'failed',
      'p50 ms',
      'p99 ms',
      'emul. cores',
      'gen. cores',
      'emul. µs/req',
      'gen. µs/req',
    ],
    rows: r.rows.map((x) => [
      x.tool,
      x.endpoint,
      String(x.concurrency),
      x.requests === undefined ? '-' : x.requests.toLocaleString('en-US'),
      rate(x.rps),
      x.failed === undefined ? '-' : String(x.failed),
      fmtMs(x.p50Ms),
      fmtMs(x.p99Ms),
      cores(x.serverCores),
      cores(x.generatorCores),
      us(x.serverUsPerReq),
      us(x.generatorUsPerReq),
    ]),
    notes,
  };
}
