// The load stage of `ces-harness load` (and the middle one of `run`): the k6 scenarios against the
// target, each a k6 run of its bundle, folded into the report's `load` section. k6's exit 99
// (thresholds) becomes our exit 1 via the verdict.

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { HarnessError } from '../errors.js';
import { locateK6 } from '../k6/locate.js';
import { redactArtefacts } from '../k6/artefacts.js';
import { findProjectRoot } from '../fs/project-root.js';
import type { ScenarioInputs } from '../k6/contract.js';
import { K6_SCENARIOS, loadWaves, runLoadScenario, type K6ScenarioName } from '../k6/scenarios.js';
import { scenarioOk } from '../k6/summary.js';
import { lostToTheLimit } from './load-limited.js';
import type { SizedScenario } from './load-sized.js';
import { sizedNote } from '../report/sections/load/words.js';
import type { LoadResult, LoadScenarioResult, SizedLoad } from '../report/model.js';
import { businessForLoad, businessNeededBy, refuseProductionLoad } from '../runner/production-load.js';
import { isProduction, type Target } from '../config/target.js';
import { ServiceClient } from '../http/service-client.js';
import { productionGateFor } from '../runner/context.js';
import type { RunIo, Stage, StageTarget } from './run-io.js';
import type { TargetSettings } from '../config/resolve.js';

export interface LoadStageOptions {
  /** `run` includes a short load run; `load` itself runs the configured duration. */
  short?: boolean;
  /**
   * `run`, which sizes the rate limit after the load: the scenarios only the limit kept from a
   * verdict at the default rates run again at rates sized from it (loadSizedAgain).
   */
  sizesAgain?: boolean;
}

/** The load stage, and whether its job runs the limited scenarios again once the limit is sized. */
export type LoadStage = Stage<{ result: LoadResult }> & { sizesAgain?: boolean };

export function loadStage(scenarios: K6ScenarioName[], stageOptions: LoadStageOptions = {}): LoadStage {
  const allowed = (settings: TargetSettings) => {
    refuseProductionLoad(settings, 'load');
    return businessForLoad(settings, 'load', businessNeededBy(scenarios, settings.rateLimit.endpoint));
  };
  const stage = async (on: StageTarget, io: RunIo): Promise<{ result: LoadResult }> => {
    const { settings, reportDir, productionGate } = on;
    const { signal, redactor } = io;
    const business = allowed(settings);
    const { k6, bundleDir } = await k6AndBundleDir();
    const missing = scenarios
      .flatMap((s) => K6_SCENARIOS[s].bundles)
      .filter((b) => !existsSync(join(bundleDir, `${b}.js`)));
    if (missing.length)
      throw new HarnessError(
        'USAGE',
        `the k6 scenario bundles are not built (${missing.join(', ')}); run \`npm run build\` in the ces-harness folder`,
      );

    const load = settings.load;
    const runId = randomUUID();
    const results = new Map<K6ScenarioName, LoadScenarioResult>();
    const runOne = scenarioRunner(on, io, { k6, bundleDir, business, runId, short: stageOptions.short === true });
    const runOneInto = async (name: K6ScenarioName, target: Target) => {
      const result = await runOne(name, target, name === 'rate-limit' ? load.overLimitRate : load.rate);
      results.set(name, result);
    };
    const runGroup = (group: K6ScenarioName[], target: Target) =>
      allEnded(group.map((name) => runOneInto(name, target)));
    const groups = loadWaves(scenarios);
    try {
      if (on.isolatedTarget) {
        // The built-in emulator: each group on an instance of its own, so no group spends another's
        // limit or turns its tokens over, and all run at once.
        const isolated = on.isolatedTarget;
        await allEnded(groups.map(async (g) => runGroup(g, (await isolated()).target)));
      } else {
        // One service, one limit: the groups take turns (loadWaves says which scenarios may share it).
        const { target } = await on.probeTarget();
        if (on.ledger.enabled)
          await recordLoadToken(
            on,
            io,
            target,
            new ServiceClient(target, {
              redactor,
              clock: io.clock,
              production: productionGate ?? productionGateFor(settings.production),
            }),
          );
        for (const group of groups) {
          if (signal.aborted) break;
          await runGroup(group, target);
        }
      }
    } finally {
      // k6 wrote into the report folder (summaries, dashboard exports): redacted in place before
      // the run ends, an interrupted one included. Seconds of work on this event loop: beside the
      // checks, after them.
      await io.beforeBlocking?.();
      redactArtefacts(reportDir, redactor);
    }
    // The report lists them in the order asked for, whichever finished first.
    const ran = scenarios.flatMap((name) => results.get(name) ?? []);
    return {
      result: {
        k6_version: k6.version,
        run_id: runId,
        scenarios: ran,
        ok: loadOk(ran, signal),
      },
    };
  };
  return Object.assign(stage, {
    refusesBeforeRequests: (settings: TargetSettings) => void allowed(settings),
    sizesAgain: stageOptions.sizesAgain === true,
  });
}

interface RunnerParts {
  k6: { path: string; version: string };
  bundleDir: string;
  business: ScenarioInputs['business'];
  runId: string;
  short: boolean;
}

/**
 * One k6 scenario at a given arrival rate: its result, its line in the terminal, its requests in
 * production's audit trail. A scenario only the rate limit kept from a verdict is marked not tested
 * (load-limited.ts) rather than failed.
 */
function scenarioRunner(on: StageTarget, io: RunIo, parts: RunnerParts) {
  const { settings, reportDir, productionGate } = on;
  const { signal, redactor } = io;
  const { load } = settings;
  const expect = settings.sizing.expect;
  const extraArgs = load.outputs.flatMap((o) => ['--out', o]);
  const { segments } = load;
  return async (name: K6ScenarioName, target: Target, rate: number, sized?: SizedLoad): Promise<LoadScenarioResult> => {
    const inputs: ScenarioInputs = {
      baseUrl: target.baseUrl,
      clientId: target.credentials.clientId,
      clientSecret: target.credentials.clientSecret,
      tokenLifetimeS: expect.tokenLifetimeS,
      clockToleranceS: expect.clockToleranceS,
      rate,
      durationS: load.durationS ?? (parts.short ? 5 : 10),
      vus: load.vus,
      business: parts.business,
      runId: parts.runId,
      rateLimitEndpoint: settings.rateLimit.endpoint,
      thresholds: load.thresholds,
      requestTimeoutS: settings.requestTimeoutS,
    };
    const again = sized ? ` at ${rate}/s, sized from the rate limit` : '';
    io.progress(
      `k6 ${parts.k6.version}: ${name} (${inputs.durationS} s${segments > 1 ? `, ${segments} segments` : ''}${again})…`,
    );
    const started = performance.now();
    const result = await runLoadScenario(name, {
      k6Path: parts.k6.path,
      bundleDir: parts.bundleDir,
      // A scenario run again keeps its own summaries beside the first run's.
      workDir: join(reportDir, 'k6', ...(sized ? ['sized'] : [])),
      dashboardDir: reportDir,
      inputs,
      signal,
      redactor,
      ...(target.caFile ? { caFile: target.caFile } : {}),
      ...(extraArgs.length ? { extraArgs } : {}),
      ...(segments > 1 ? { segments } : {}),
    });
    // k6 sends outside the production gate: its own count goes into the audit trail.
    if (isProduction(target)) productionGate?.addK6Requests(result.requests);
    const limited = lostToTheLimit(result);
    const marked: LoadScenarioResult = {
      ...result,
      duration_s: inputs.durationS,
      ...(limited !== undefined ? { not_tested: limited } : {}),
      ...(sized ? { sized } : {}),
    };
    io.out(scenarioLine(marked, performance.now() - started));
    return marked;
  };
}

/** Every scenario met its thresholds, or only the rate limit kept it from a verdict; and none was stopped. */
const loadOk = (ran: readonly LoadScenarioResult[], signal: AbortSignal): boolean =>
  ran.every((r) => scenarioOk(r) || r.not_tested !== undefined) && !signal.aborted;

/**
 * `run`'s second look, after the sizing: the scenarios only the limit kept from a verdict, at the
 * default rates, run again at rates sized from the policy the sizing proved (load-sized.ts), each
 * group taking its turn as the first time. Their results replace the first ones; the rest stand.
 */
export async function loadSizedAgain(
  on: StageTarget,
  io: RunIo,
  previous: LoadResult,
  toSize: readonly SizedScenario[],
): Promise<LoadResult> {
  const { settings } = on;
  if (toSize.length === 0 || io.signal.aborted) return previous;
  const { k6, bundleDir } = await k6AndBundleDir();
  const runOne = scenarioRunner(on, io, {
    k6,
    bundleDir,
    business: businessForLoad(
      settings,
      'load',
      businessNeededBy(
        toSize.map((s) => s.scenario),
        settings.rateLimit.endpoint,
      ),
    ),
    runId: previous.run_id,
    short: true,
  });
  const { target } = await (on.isolatedTarget ?? on.probeTarget)();
  const again = new Map<string, LoadScenarioResult>();
  try {
    for (const wave of loadWaves(toSize.map((s) => s.scenario))) {
      if (io.signal.aborted) break;
      await allEnded(
        toSize
          .filter((s) => wave.includes(s.scenario))
          .map(async (s) => void again.set(s.scenario, await runOne(s.scenario, target, s.sized.rps, s.sized))),
      );
    }
  } finally {
    await io.beforeBlocking?.();
    redactArtefacts(on.reportDir, io.redactor);
  }
  const scenarios = previous.scenarios.map((sc) => again.get(sc.scenario) ?? sc);
  return { ...previous, scenarios, ok: loadOk(scenarios, io.signal) };
}

/** The k6 binary and the folder of the bundled scenarios it runs, for the first run and the sized one alike. */
async function k6AndBundleDir() {
  const root = findProjectRoot();
  return { k6: await locateK6(process.env, root), bundleDir: join(root, 'dist', 'scenarios') };
}

/** Every k6 started has ended before the caller goes on (or the artefacts are redacted); then the first failure. */
async function allEnded(work: Array<Promise<void>>): Promise<void> {
  const failed = (await Promise.allSettled(work)).find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
}

/**
 * k6's setup fetches the token every VU starts from with the configured credentials; the service
 * hands the same one to any client until it expires (§3), so fetching it here first puts it in the
 * token ledger, whose later runs prove its expiry and measure the next one's lifetime. One request,
 * and only when there is a ledger to keep it (never for the built-in emulator).
 */
async function recordLoadToken(
  on: StageTarget,
  io: Pick<RunIo, 'clock'>,
  target: Target,
  http: ServiceClient,
): Promise<void> {
  try {
    await http.issueToken();
    on.ledger.recordIssued(target, http.issuedTokens(), io.clock.now());
    on.ledger.save(io.clock.now());
  } finally {
    await http.close();
  }
}

function scenarioLine(r: LoadScenarioResult, tookMs: number): string {
  const ok = scenarioOk(r);
  const failed = r.thresholds.filter((t) => !t.ok).map((t) => `${t.metric} ${t.expression}`);
  const figures = `${r.requests} requests, ${r.rate_per_s.toFixed(1)}/s, p95 ${r.latency_ms.p95.toFixed(1)} ms, errors ${(r.error_rate * 100).toFixed(2)}%`;
  const dropped =
    r.dropped_iterations > 0
      ? // k6 drops an arrival when no VU is free for it: slow answers hold them all, so does a k6 short of CPU.
        `, ${r.dropped_iterations} iterations dropped (no VU free when they were due: answers as slow as p95 ${r.latency_ms.p95.toFixed(0)} ms hold every VU, as does a generator short of CPU)`
      : '';
  const why = r.error ? `: ${r.error}` : failed.length ? `: thresholds failed: ${failed.join('; ')}` : '';
  const sized = r.sized ? ` (${sizedNote(r.sized)})` : '';
  // The k6 process's whole time (start-up, setup, the scenario, summary), beside the scenario's figures.
  const took = ` (${(tookMs / 1000).toFixed(1)} s)`;
  const status = ok ? '✓ pass ' : r.not_tested !== undefined ? '- not tested' : '✗ fail ';
  return `${status} k6 ${r.scenario.padEnd(30)} ${figures}${dropped}${took}${sized}${why}`;
}
