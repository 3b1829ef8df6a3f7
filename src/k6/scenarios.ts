// The k6 scenarios `ces-harness load` knows, one map (names are the keys, and `--scenario`
// values), and running one of them to a LoadScenarioResult. A scenario is usually one bundle;
// `tls` is two, because k6 fixes TLS versions per run and the TLS 1.2-only probe needs its own.

import { join } from 'node:path';
import type { Redactor } from '../http/redact.js';
import type { LoadScenarioResult } from '../report/model.js';
import { BUSINESS_ENDPOINTS } from '../spec/endpoints.js';
import { SCENARIO_DEFAULTS, scenarioEnv, type ScenarioInputs } from './contract.js';
import { dashboardFileName, writtenDashboards } from './dashboards.js';
import { inheritedOutputArgs } from './k6-env.js';
import { K6_EXIT, runScenario, type RunScenarioResult } from './run.js';
import { mergeK6Summaries, segmentArgs } from './segments.js';
import { mergeLoadScenarioResults, requestsOf, toLoadScenarioResult } from './summary.js';
import { mergeTimelines, privateDashboardExport, readTimeline, TIMELINE_PERIOD_MS, type Timeline } from './timeline.js';

/**
 * `light`: see below. `requestsPerArrival`: a scenario driven by an arrival rate (CES_RATE) sends at
 * most this many requests per arrival; absent for those driven by their VUs.
 */
interface ScenarioInfo {
  title: string;
  spec: string;
  bundles: readonly string[];
  light: boolean;
  requestsPerArrival?: number;
}

// `light`: the scenario judges behaviour, not speed, and sends little with the client's
// credentials (TLS handshakes to the health check, a few token fetches a second), so the light ones
// share their time (loadWaves). The others drive the client's limiter or measure its pace: each
// has the target (its limit) to itself, or they would disturb each other's figures.
export const K6_SCENARIOS = {
  'token-lifecycle': {
    title: 'Concurrent token fetches get one token until expiry; wrong credentials 401; expired tokens 401',
    spec: '3, 4.1, 4.3, 7',
    bundles: ['token-lifecycle'],
    light: true,
  },
  tls: {
    title: 'Every connection is TLS 1.3 with one of the three suites; a TLS 1.2-only client is refused',
    spec: '5.8',
    bundles: ['tls', 'tls12-refused'],
    light: true,
  },
  'rate-limit': {
    title: 'Over the rate limit, 429s with a JSON error are waited out and no call is lost',
    spec: '7, 8',
    bundles: ['rate-limit'],
    light: false,
    requestsPerArrival: 1,
  },
  throughput: {
    title: 'Business calls at a constant rate, with a cached token and with a token per call',
    spec: '4.4, 5.5',
    bundles: ['throughput'],
    light: false,
    // Its token-per-call half: a token fetch and a call for each business endpoint.
    requestsPerArrival: 2 * BUSINESS_ENDPOINTS.length,
  },
} as const satisfies Record<string, ScenarioInfo>;

export type K6ScenarioName = keyof typeof K6_SCENARIOS;

export const K6_SCENARIO_NAMES = Object.keys(K6_SCENARIOS) as K6ScenarioName[];

export const isK6ScenarioName = (s: string): s is K6ScenarioName => Object.hasOwn(K6_SCENARIOS, s);

/**
 * The scenarios in the groups that may share one target at once: the light ones together first,
 * then each of the others alone, in the order given. Against one service the groups take turns;
 * on instances of the built-in emulator of their own, all run at once (stages/load.ts).
 */
export function loadWaves(names: readonly K6ScenarioName[]): K6ScenarioName[][] {
  const light = names.filter((n) => K6_SCENARIOS[n].light);
  const alone = names.filter((n) => !K6_SCENARIOS[n].light).map((n) => [n]);
  return light.length > 0 ? [light, ...alone] : alone;
}

/** Long enough for the longest part of any scenario (token-lifecycle may wait out a token's life). */
export function defaultTimeoutMs(i: ScenarioInputs): number {
  const budget = i.retryBudgetS ?? SCENARIO_DEFAULTS.retryBudgetS;
  const expiry = i.tokenLifetimeS <= i.durationS ? i.tokenLifetimeS + 2 * i.clockToleranceS : 0;
  return (i.durationS + 2 * budget + expiry + 60) * 1000;
}

export interface LoadRunOptions {
  k6Path: string;
  /** Folder of the bundles; default <projectRoot>/dist/scenarios. */
  bundleDir: string;
  /** Where the k6 summaries go (<bundle>.summary.json): the report folder or a temp folder. */
  workDir: string;
  inputs: ScenarioInputs;
  /** Extra trusted CA (PEM file), e.g. the emulator's or --ca. */
  caFile?: string;
  timeoutMs?: number;
  signal?: AbortSignal;
  extraArgs?: string[];
  baseEnv?: NodeJS.ProcessEnv;
  /** Where k6's web dashboard exports its self-contained HTML report (k6-dashboard-<bundle>.html). */
  dashboardDir?: string;
  /**
   * Split each bundle across this many concurrent k6 processes (execution segments, as
   * k6-operator does across pods) and merge their summaries; 1 or absent: one process.
   */
  segments?: number;
  /** The run's redactor, for k6's output. */
  redactor?: Redactor;
}

/**
 * k6's built-in web dashboard, with its HTTP server off (port -1: a harness run must exit on its
 * own, and must not open a port) and its report exported as one offline HTML file: the report
 * folder's k6-dashboard-<bundle>.html, or a private one. Every k6 process the harness starts has
 * it: the per-second timeline is read from the export (timeline.ts).
 */
export function dashboardEnv(exportFile: string): Record<string, string> {
  // One snapshot a second: the timeline's resolution. (The default 10 s period also left a short
  // run with no data point, and then k6 writes no export at all.)
  return {
    K6_WEB_DASHBOARD: 'true',
    K6_WEB_DASHBOARD_PORT: '-1',
    K6_WEB_DASHBOARD_PERIOD: `${TIMELINE_PERIOD_MS / 1000}s`,
    K6_WEB_DASHBOARD_EXPORT: exportFile,
  };
}

const EXIT_MEANING: Record<number, string> = {
  [K6_EXIT.SETUP_TIMEOUT]: 'setup() timed out',
  [K6_EXIT.TEARDOWN_TIMEOUT]: 'teardown() timed out',
  [K6_EXIT.GENERIC_TIMEOUT]: 'timed out',
  [K6_EXIT.ENGINE_ERROR]: 'engine error',
  [K6_EXIT.INVALID_CONFIG]: 'invalid options',
  [K6_EXIT.EXTERNAL_ABORT]: 'stopped from outside',
  [K6_EXIT.CANNOT_START_API]: 'could not start its REST API',
  [K6_EXIT.SCRIPT_EXCEPTION]: 'the script threw',
  [K6_EXIT.SCRIPT_ABORTED]: 'the script aborted the test',
  [K6_EXIT.GO_PANIC]: 'Go panic',
  [K6_EXIT.MARKED_FAILED]: 'the script marked the test failed',
};

/** The line of k6's stderr that says what went wrong, without logfmt noise. */
function lastErrorLine(stderr: string): string | undefined {
  const lines = stderr
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  const line = [...lines].reverse().find((l) => /level=(error|fatal)/.test(l)) ?? lines.at(-1);
  if (line === undefined) return undefined;
  const msg = /msg="((?:[^"\\]|\\.)*)"/.exec(line)?.[1];
  // k6 logs a script exception's stack in the same message, after a literal "\n".
  return (msg ?? line).split('\\n')[0]!.replace(/\\"/g, '"').slice(0, 300);
}

/**
 * Why a finished k6 run does not count as a measured result, or undefined when it does. Only exit
 * 99 is k6 judging the service (thresholds); any other non-zero exit is k6 itself failing, and is
 * called a crash so that nobody reads it as the service missing a threshold.
 */
export function runProblem(run: RunScenarioResult, timeoutMs: number): string | undefined {
  if (run.aborted) return 'k6 run aborted';
  if (run.timedOut) return `k6 did not finish within ${Math.round(timeoutMs / 1000)} s`;
  if (run.memoryCappedAt !== undefined)
    return `k6 stopped: its memory passed its cap of ${Math.round(run.memoryCappedAt / 2 ** 20)} MiB (k6 reads each answer whole: a body without end?)`;
  if (run.exitCode === K6_EXIT.OK || run.exitCode === K6_EXIT.THRESHOLDS_FAILED) return undefined;
  const meaning = run.exitCode === null ? undefined : EXIT_MEANING[run.exitCode];
  const how = run.exitCode === null ? 'killed by a signal' : `exit ${run.exitCode}${meaning ? `: ${meaning}` : ''}`;
  const detail = lastErrorLine(run.stderrTail);
  return `k6 crashed (${how})${detail ? `: ${detail}` : ''}`;
}

/** Runs every bundle of a named scenario, one after the other, into one LoadScenarioResult. */
export async function runLoadScenario(name: K6ScenarioName, opts: LoadRunOptions): Promise<LoadScenarioResult> {
  const timeoutMs = opts.timeoutMs ?? defaultTimeoutMs(opts.inputs);
  const parts: LoadScenarioResult[] = [];
  for (const bundle of K6_SCENARIOS[name].bundles) {
    if (opts.signal?.aborted) break;
    parts.push(await runK6Bundle(bundle, opts, timeoutMs));
  }
  if (parts.length === 0) return { ...toLoadScenarioResult(name, undefined), error: 'k6 run aborted' };
  return mergeLoadScenarioResults(name, parts);
}

/** Runs one bundle (<bundleDir>/<bundle>.js), in segments when opts.segments > 1, to its result. */
export async function runK6Bundle(
  bundle: string,
  opts: LoadRunOptions,
  timeoutMs = opts.timeoutMs ?? defaultTimeoutMs(opts.inputs),
): Promise<LoadScenarioResult> {
  const { run, summary, timeline } = await runBundle(bundle, opts, timeoutMs);
  const result = toLoadScenarioResult(bundle, summary);
  if (timeline !== undefined && result.error === undefined) result.timeline = timeline;
  const count = opts.segments ?? 1;
  const dashboards = writtenDashboards(
    opts.dashboardDir,
    count <= 1 ? [bundle] : Array.from({ length: count }, (_, i) => segmentName(bundle, i, count)),
  );
  if (dashboards.length > 0) result.dashboards = dashboards;
  const problem = runProblem(run, timeoutMs);
  if (problem !== undefined) result.error = problem;
  else if (run.exitCode === K6_EXIT.THRESHOLDS_FAILED && result.thresholds.every((t) => t.ok)) {
    // k6 says a threshold failed but the summary shows none: never report that as a pass.
    result.error = 'k6 reported failed thresholds that its summary does not show';
  }
  return result;
}

/** The name of one segment's k6 process: its summary and dashboard files are named after it. */
const segmentName = (bundle: string, index: number, count: number): string =>
  `${bundle}.segment-${index + 1}-of-${count}`;

/** One bundle as one k6 process, or as `opts.segments` concurrent ones whose summaries are merged. */
async function runBundle(
  bundle: string,
  opts: LoadRunOptions,
  timeoutMs: number,
): Promise<{ run: RunScenarioResult; summary: unknown; timeline?: Timeline }> {
  const count = opts.segments ?? 1;
  // The user's K6_OUT beside the config's outputs, before segmentOutputs gives each process its own file.
  const userArgs = [...(opts.extraArgs ?? []), ...inheritedOutputArgs(opts.baseEnv ?? process.env)];
  // Each k6 process exports its dashboard, kept in the report folder or not, for the timeline.
  const once = (summaryFile: string, extraArgs: string[], dashboardName: string) =>
    withTimeline(
      opts.dashboardDir !== undefined ? join(opts.dashboardDir, dashboardFileName(dashboardName)) : undefined,
      (dashboard) =>
        runScenario({
          k6Path: opts.k6Path,
          bundle: join(opts.bundleDir, `${bundle}.js`),
          env: { ...scenarioEnv(opts.inputs), ...dashboard },
          summaryFile,
          timeoutMs,
          extraArgs,
          ...(opts.caFile !== undefined && { caFile: opts.caFile }),
          ...(opts.signal !== undefined && { signal: opts.signal }),
          ...(opts.baseEnv !== undefined && { baseEnv: opts.baseEnv }),
          ...(opts.redactor !== undefined && { redactor: opts.redactor }),
        }),
    );
  if (count <= 1) {
    const { run, timeline } = await once(join(opts.workDir, `${bundle}.summary.json`), userArgs, bundle);
    return { run, summary: run.summary, ...(timeline !== undefined && { timeline }) };
  }
  const segmentRuns = await Promise.all(
    Array.from({ length: count }, (_, i) => {
      const name = segmentName(bundle, i, count);
      return once(
        join(opts.workDir, `${name}.summary.json`),
        [...segmentOutputs(userArgs, i, count), ...segmentArgs(i, count)],
        name,
      );
    }),
  );
  const runs = segmentRuns.map((r) => r.run);
  const timeline = mergeTimelines(segmentRuns.map((r) => r.timeline));
  // The run that says most about a failure stands for all: a broken process first, then a
  // threshold failure (99), else the first.
  const broken = runs.find(
    (r) =>
      r.timedOut ||
      r.aborted ||
      r.memoryCappedAt !== undefined ||
      (r.exitCode !== K6_EXIT.OK && r.exitCode !== K6_EXIT.THRESHOLDS_FAILED),
  );
  const run = broken ?? runs.find((r) => r.exitCode === K6_EXIT.THRESHOLDS_FAILED) ?? runs[0]!;
  return { run, summary: mergeK6Summaries(runs.map((r) => r.summary)), ...(timeline !== undefined && { timeline }) };
}

/**
 * One k6 process with its web dashboard exported to `exportFile` (the report folder's), or to a
 * private temp folder deleted afterwards, and the per-second timeline read from that export
 * (timeline.ts). No timeline is no error: the chart is left out.
 */
async function withTimeline(
  exportFile: string | undefined,
  start: (dashboardEnv: Record<string, string>) => Promise<RunScenarioResult>,
): Promise<{ run: RunScenarioResult; timeline?: Timeline }> {
  const own = exportFile === undefined ? await privateDashboardExport() : undefined;
  const file = exportFile ?? own!.file;
  try {
    const run = await start(dashboardEnv(file));
    const timeline = await readTimeline(file, requestsOf(run.summary));
    return { run, ...(timeline !== undefined && { timeline }) };
  } finally {
    await own?.dispose();
  }
}

/**
 * File outputs (--out json=F, csv=F) get one file per segment process (F → F.segment-2-of-3.json):
 * two k6 processes writing one file would interleave and corrupt it. Network outputs (Prometheus
 * remote write, InfluxDB) take all processes' points as they are, as from k6-operator's pods.
 */
export function segmentOutputs(args: readonly string[], index: number, count: number): string[] {
  return args.map((a, i) => {
    const m = args[i - 1] === '--out' ? /^(json|csv)=(.+?)(\.[^./]*)?$/.exec(a) : null;
    return m ? `${m[1]}=${m[2]}.segment-${index + 1}-of-${count}${m[3] ?? ''}` : a;
  });
}
