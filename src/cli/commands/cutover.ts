// `ces-harness cutover`: a production-safe `check` pass on production and a full one on sandbox,
// through the same stage `check` uses, then their facts side by side and a readiness verdict that
// leads with what would break a client integrated against sandbox. One report folder.

import { setMaxListeners } from 'node:events';
import { CHECKS } from '../../../checks/index.js';
import { resolveSettings, type Settings } from '../../config/resolve.js';
import { isProduction, type Target } from '../../config/target.js';
import { environmentFacts, type EnvironmentFacts } from '../../cutover/facts.js';
import { recentSandboxPass, recentSandboxRecommendation, type StoredPass } from '../../cutover/sandbox-history.js';
import {
  announcedLimit,
  probedLimit,
  storedLimit,
  withRateLimit,
  type RateLimitFacts,
} from '../../cutover/rate-limit-facts.js';
import type { Advertisement } from '../../spec/ratelimit-fields.js';
import { makeRateLimitStage } from '../../stages/rate-limit.js';
import { RUN_HORIZON_S } from '../../ratelimit/horizon.js';
import type { RateLimitResult } from '../../report/model.js';
import { HistoryStore } from '../../history/store.js';
import { cutoverVerdict, type ConformanceEntry } from '../../cutover/verdict.js';
import { sandboxTrust } from '../../cutover/sandbox-trust.js';
import { HarnessError, usageError } from '../../errors.js';
import { removeEmptyDirs } from '../../fs/writable.js';
import {
  budgetReachedLine,
  heldBackByBudget,
  ProductionBudgetReached,
  type ProductionGate,
} from '../../http/production-gate.js';
import { Redactor } from '../../http/redact.js';
import { RateLimitedError } from '../../http/rate-limit-wait.js';
import { CUTOVER_SCHEMA, type CutoverReport } from '../../cutover/report-model.js';
import { renderCutoverHtml } from '../../cutover/report-html.js';
import { renderCutoverJunit } from '../../cutover/report-junit.js';
import { renderCutoverMarkdown } from '../../cutover/report-md.js';
import { printableDeep } from '../../report/common/printable.js';
import { productionGateFor } from '../../runner/context.js';
import { auditPreflight } from '../../runner/preflight.js';
import { UntrustedCertificate } from '../../runner/preflight.js';
import { explainAuthorizationError } from '../../tls/certificate.js';
import { VERSION } from '../../version.js';
import { flagValue, type Options } from '../flags.js';
import { harnessWords } from '../harness-words.js';
import { prepareTarget } from '../prepare-target.js';
import { writeFiles } from '../report-folder.js';
import { prepareReportPlace } from '../report-place.js';
import { handleStopSignals } from '../stop-signals.js';
import { createTerminal, type Terminal } from '../terminal.js';
import type { CliIo } from '../io.js';
import { conformanceStage } from './check.js';
import { productionAudit } from './target-job.js';
import { runIo, type RunIo, type Stage } from '../../stages/run-io.js';

interface Pass {
  facts: EnvironmentFacts;
  checks: CutoverReport['environments'][string]['checks'];
  /** The same checks with their level and clause, for the conformance gate. */
  conformance: ConformanceEntry[];
  untested: string[];
  /** The tightest rate limit the environment's answers announced during its checks. */
  advertised?: Advertisement;
}

export async function cutoverCommand(options: Options, cli: CliIo): Promise<number> {
  const redactor = new Redactor({ keep: harnessWords() });
  const terminal = createTerminal(redactor, cli, { noColor: options['no-color'] === true });
  const { production, productionUrl, sandbox, productionSettings, pair } = await environmentPair(options, cli);
  const { stored, storedRate, source } = await sandboxSource(options, sandbox, cli);
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  const removeStopHandlers = handleStopSignals(controller, terminal.err, cli);
  const place = prepareReportPlace(options['report-dir'], cli.cwd);
  try {
    const startedAt = new Date();
    // Production first: its pass is the smaller one, and a production that is unreachable (exit 3)
    // should stop the run before sandbox is exercised for nothing. A production certificate that
    // does not verify is the finding itself, not a reason to stop: a client would refuse it too.
    // One gate for both passes: sandbox's isolation probe sends to production too, and every
    // request production receives is in one audit, under one production.max_requests.
    const gate = productionGateFor(productionSettings);
    // Claimed now: a search of sandbox's limit keeps its k6 rounds' files here (removed if left empty).
    const dir = place.claim('cutover', startedAt);
    const io = { redactor, terminal, signal: controller.signal, cli, reportDir: dir };
    const prod = await checkPass(options, production, gate, io).catch((err: unknown) => {
      if (!(err instanceof UntrustedCertificate)) throw err;
      return untrustedPass(production, productionUrl, err, terminal);
    });
    const sand = stored ? storedPass(sandbox, stored) : await checkPass(options, sandbox, gate, io);
    // One handshake, no request: does production's chain verify against what the client trusts for sandbox?
    if (prod.facts.certificate_untrusted === undefined && !controller.signal.aborted) {
      const { missing, ...trust } = await sandboxTrust(pair.production, pair.sandbox, controller.signal);
      Object.assign(prod.facts, trust);
      Object.assign(prod.facts.missing, missing);
    }
    const productionLoadAllowed = options['allow-production-load'] === true;
    const { production: productionFacts, sandbox: sandboxFacts } = await rateLimits({
      options,
      gate,
      io,
      production: prod,
      sandbox: sand,
      sandboxName: sandbox,
      productionLoadAllowed,
      storedRate,
    });
    const interrupted = controller.signal.aborted;
    const passesUntested = [
      ...prod.untested.map((u) => `${production}: ${u}`),
      ...sand.untested.map((u) => `${sandbox}: ${u}`),
      ...(gate.budgetReached ? [budgetReachedLine(gate, heldBack({ [production]: prod, [sandbox]: sand }))] : []),
      ...(interrupted ? ['interrupted before it finished: this report is partial'] : []),
    ];
    const windowDays = flagValue(options, 'cutover-window');
    const verdict = cutoverVerdict(productionFacts, sandboxFacts, {
      windowDays,
      nowMs: Date.now(),
      productionLoadAllowed,
      passesUntested,
      checks: { production: prod.conformance, sandbox: sand.conformance },
    });
    const report = printableDeep<CutoverReport>({
      schema: CUTOVER_SCHEMA,
      tool: { name: 'ces-harness', version: VERSION },
      started_at: startedAt.toISOString(),
      finished_at: new Date().toISOString(),
      cutover: {
        ...verdict,
        window_days: windowDays,
        sandbox_source: source,
        facts: { production: productionFacts, sandbox: sandboxFacts },
      },
      environments: {
        [production]: { base_url: prod.facts.base_url, checks: prod.checks, untested: prod.untested },
        [sandbox]: { base_url: sand.facts.base_url, checks: sand.checks, untested: sand.untested },
      },
      production: productionAudit(gate),
    });
    const safe = redactor.deep(report);
    writeFiles(
      dir,
      {
        'report.json': JSON.stringify(safe, null, 2) + '\n',
        'report.md': renderCutoverMarkdown(safe),
        'report.html': renderCutoverHtml(safe),
        'junit.xml': renderCutoverJunit(safe),
      },
      redactor,
    );
    for (const line of [
      verdict.summary,
      ...verdict.breaking.map((l) => `  will break: ${l}`),
      ...verdict.sandbox_deviations.map((l) => `  sandbox deviates: ${l}`),
      ...verdict.not_tested.map((l) => `  not tested: ${l}`),
      ...verdict.differences.map((l) => `  differs: ${l}`),
      ...verdict.not_compared.map((l) => `  ${l}`),
      `report: ${dir}`,
    ]) {
      terminal.out(line);
    }
    // An interruption is among passesUntested: the verdict is then not READY.
    return verdict.verdict === 'READY' ? 0 : 1;
  } finally {
    removeStopHandlers();
    removeEmptyDirs(place.created);
  }
}

/** The checks production's budget held back, `environment: id` (sandbox's isolation probe sends to production too). */
function heldBack(passes: Record<string, Pass>): string[] {
  return Object.entries(passes).flatMap(([environment, pass]) =>
    pass.checks.filter((c) => c.status === 'skip' && heldBackByBudget(c.message)).map((c) => `${environment}: ${c.id}`),
  );
}

/**
 * Both environments must be configured: which one is production, which sandbox. Refused (exit 2)
 * before the first request when the config names fewer than both.
 */
async function environmentPair(
  options: Options,
  cli: Pick<CliIo, 'env' | 'cwd'>,
): Promise<{
  production: string;
  productionUrl: string;
  sandbox: string;
  productionSettings: Settings['production'];
  pair: { production: Target; sandbox: Target };
}> {
  const settings = await resolveSettings(options, cli.env, cli.cwd);
  if (!settings.target)
    throw usageError(
      'cutover needs both environments configured: a config (--config) whose environments: name sandbox and production',
    );
  const all = [settings.target, ...settings.others];
  const production = all.find(isProduction);
  const sandbox = all.find((t) => !isProduction(t));
  if (!production || !sandbox) {
    throw usageError(
      `cutover needs a production and a sandbox environment under environments:; the config has ${all.map((t) => t.environment).join(', ')}`,
    );
  }
  return {
    production: production.environment,
    productionUrl: production.baseUrl,
    sandbox: sandbox.environment,
    productionSettings: settings.production,
    pair: { production, sandbox },
  };
}

/**
 * With --sandbox-from-history H: sandbox's last stored check or run, when at most H hours old;
 * else (or without the flag) a fresh pass. Decided before the first request.
 */
async function sandboxSource(
  options: Options,
  sandbox: string,
  cli: Pick<CliIo, 'env' | 'cwd'>,
): Promise<{ stored?: Stored; storedRate?: RateLimitFacts; source: string }> {
  const fresh = `a full check pass on ${sandbox} in this run`;
  const maxAgeH = options['sandbox-from-history'];
  if (maxAgeH === undefined) return { source: fresh };
  const settings = await resolveSettings({ ...options, env: sandbox }, cli.env, cli.cwd);
  if (settings.historyPath === null)
    throw usageError(
      '--sandbox-from-history needs the run history; history is off (drop --history off / history: off, or drop --sandbox-from-history)',
    );
  const baseUrl = settings.target!.baseUrl;
  const { records } = HistoryStore.open(settings.historyPath);
  const rate = recentSandboxRecommendation(records, baseUrl, maxAgeH, Date.now());
  const storedRate = rate
    ? storedLimit(
        rate.target_rps,
        `${sandbox}'s rate limit run stored in ${settings.historyPath}, started ${rate.started_at}`,
      )
    : undefined;
  const pass = recentSandboxPass(records, baseUrl, maxAgeH, Date.now());
  if (!pass)
    return {
      ...(storedRate ? { storedRate } : {}),
      source: `${fresh} (no run of ${sandbox} stored in ${settings.historyPath} within ${maxAgeH} h)`,
    };
  return {
    ...(storedRate ? { storedRate } : {}),
    stored: { pass, baseUrl },
    source: `${sandbox}'s last check stored in ${settings.historyPath}, started ${pass.started_at} (within ${maxAgeH} h); no check pass on ${sandbox}`,
  };
}

interface Stored {
  pass: StoredPass;
  baseUrl: string;
}

function storedPass(environment: string, { pass, baseUrl }: Stored): Pass {
  // The history keeps statuses, not levels or clauses: those are the check's own, from the catalogue.
  const known = new Map(CHECKS.map((c) => [c.id, c]));
  return {
    facts: environmentFacts(environment, baseUrl, pass.checks),
    conformance: pass.checks.flatMap((c) => {
      const check = known.get(c.id);
      return check
        ? [
            {
              id: c.id,
              status: c.status,
              level: check.level,
              spec: check.spec,
              message: `${c.status} in the run stored at ${pass.started_at}`,
            },
          ]
        : [];
    }),
    checks: pass.checks.map((c) => ({
      id: c.id,
      status: c.status,
      message: `from the run stored at ${pass.started_at}`,
    })),
    untested: [],
  };
}

/** An environment whose certificate did not verify: no check ran, and what the handshake showed is its one fact. */
function untrustedPass(
  environment: string,
  baseUrl: string,
  err: UntrustedCertificate,
  terminal: Pick<Terminal, 'err'>,
): Pass {
  terminal.err(`${environment}: ${err.message}`);
  const { what } = explainAuthorizationError(err.verifyCode);
  const facts: EnvironmentFacts = {
    ...environmentFacts(environment, baseUrl, []),
    certificate_untrusted: what,
    ...(err.leafIssuer !== undefined ? { certificate_untrusted_issuer: err.leafIssuer } : {}),
  };
  return {
    facts,
    checks: [],
    conformance: [],
    untested: ['every check: its certificate did not verify, so no request was sent'],
  };
}

/** `cli.clock`: what both passes read and wait on (a test's virtual one, shared with its emulator pair); the system clock when absent. */
type PassIo = {
  redactor: Redactor;
  terminal: Terminal;
  signal: AbortSignal;
  cli: Pick<CliIo, 'env' | 'cwd' | 'clock'>;
  /** The cutover's report folder: where a stage's k6 runs keep their files. */
  reportDir: string;
};

/** `check` on one environment, through `check`'s own stage; every request to production goes through `gate`. */
async function checkPass(options: Options, environment: string, gate: ProductionGate, io: PassIo): Promise<Pass> {
  io.terminal.out(`— ${environment} —`);
  let advertised: Advertisement | undefined;
  const { result, untested, target } = await onTarget(options, environment, gate, io, conformanceStage(CHECKS), {
    sawAdvertisedLimit: (ad) => void (advertised = ad),
  });
  return {
    facts: environmentFacts(target.environment, target.baseUrl, result),
    checks: result.map((r) => ({ id: r.id, status: r.status, message: r.message })),
    conformance: result.map((r) => ({ id: r.id, status: r.status, level: r.level, spec: r.spec, message: r.message })),
    untested,
    ...(advertised ? { advertised } : {}),
  };
}

/** One stage on one environment, prepared as `check` would and closed after; what it could not test, collected. */
async function onTarget<T>(
  options: Options,
  environment: string,
  gate: ProductionGate,
  io: PassIo,
  stage: Stage<T>,
  extra: Pick<RunIo, 'sawAdvertisedLimit'> = {},
): Promise<{ result: T; untested: string[]; target: Target }> {
  const prepared = await prepareTarget({ ...options, env: environment }, io.redactor, io.terminal, io.cli);
  auditPreflight(gate, prepared.settings.target, prepared.preflight);
  try {
    const untested: string[] = [];
    const result = await stage(
      { ...prepared, reportDir: io.reportDir, productionGate: gate },
      {
        ...runIo(
          io.terminal,
          io.redactor,
          io.signal,
          (name, reason) => {
            untested.push(`${name}: ${reason}`);
            io.terminal.err(`${environment}: ${name}: not tested: ${reason}`);
          },
          io.cli.clock,
        ),
        ...extra,
      },
    );
    return { result, untested, target: prepared.settings.target };
  } finally {
    await prepared.close();
  }
}

/**
 * Each side's rate limit for the rate-limit rule. Production's: what its answers announced, and
 * with --allow-production-load what a probe measures. Sandbox's recommended rate: the history's
 * (--sandbox-from-history), else a probe of sandbox in this run, run only when production's limit
 * is known (with nothing to set it against, the probe's load on sandbox buys nothing).
 */
async function rateLimits(a: {
  options: Options;
  gate: ProductionGate;
  io: PassIo;
  production: Pass;
  sandbox: Pass;
  sandboxName: string;
  productionLoadAllowed: boolean;
  storedRate: RateLimitFacts | undefined;
}): Promise<{ production: EnvironmentFacts; sandbox: EnvironmentFacts }> {
  const { options, gate, io, production: prod, sandbox: sand } = a;
  const ranChecks = prod.checks.length > 0;
  // A probe's preflight goes out before its gate is asked (prepare-target.ts): with the budget
  // already spent by the checks, it would be one request past production.max_requests.
  const spent = gate.budgetReached
    ? `not measured: production's checks spent the production request budget (production.max_requests ${gate.maxRequests}); raise it to leave the probe room`
    : undefined;
  const measured: RateLimitFacts =
    a.productionLoadAllowed && ranChecks && !io.signal.aborted && spent === undefined
      ? await probe(options, prod.facts.environment, gate, io, PRODUCTION_PROBE)
      : {
          facts: {},
          missing: {
            rate_limit_measured_rps: !ranChecks
              ? 'not measured: no check ran on production'
              : !a.productionLoadAllowed
                ? 'not measured: production is probed only with --allow-production-load'
                : (spent ?? 'not measured: interrupted'),
          },
        };
  const production = withRateLimit(prod.facts, announcedLimit(prod.advertised), measured);
  const limitKnown = (production.rate_limit_measured_rps ?? production.rate_limit_announced_rps) !== undefined;
  const recommended: RateLimitFacts =
    a.storedRate ??
    (limitKnown && !io.signal.aborted
      ? await probe(options, a.sandboxName, gate, io, SANDBOX_PROBE)
      : {
          facts: {},
          missing: {
            rate_limit_recommended_rps:
              "not probed: production's limit is not known, so there is nothing to set it against",
          },
        });
  const sandbox = withRateLimit(sand.facts, announcedLimit(sand.advertised), recommended);
  return { production, sandbox };
}

/**
 * Production's probe (with --allow-production-load): the probe alone, its requests within the
 * production budget. Sandbox's may also search, as `ratelimit` does, for a limit the probe did not
 * identify (paced k6 rounds of `run`'s horizon, unless rate_limit.horizon_s): the readiness rule needs its
 * rate, and a conformant bucket read loosely on a loaded machine left none (CI land40).
 */
const PRODUCTION_PROBE = makeRateLimitStage({ proofS: 0 });
const SANDBOX_PROBE = makeRateLimitStage({ proofS: RUN_HORIZON_S, searchOnly: true });

/**
 * The `ratelimit` command's own probe, `stage` saying whether it may search (never a proof): the
 * sustained rate and the recommended client rate. What production refuses it (the request budget
 * spent mid-probe, a business endpoint production does not allow) leaves the figure unknown, with
 * that reason, never the report lost.
 */
async function probe(
  options: Options,
  environment: string,
  gate: ProductionGate,
  io: PassIo,
  stage: Stage<RateLimitResult>,
): Promise<RateLimitFacts> {
  io.terminal.out(`— ${environment}: rate limit —`);
  try {
    const { result, untested } = await onTarget(options, environment, gate, io, stage);
    return probedLimit(result, untested, environment);
  } catch (err) {
    // A limit that never lifts keeps the probe's own token request at 429: the limit is then not
    // measured, with that reason, and the report is kept.
    const refused =
      err instanceof ProductionBudgetReached ||
      err instanceof RateLimitedError ||
      (err instanceof HarnessError && err.code === 'PRODUCTION_REFUSED');
    if (!refused) throw err;
    io.terminal.err(`${environment}: rate limit: not tested: ${err.message}`);
    return probedLimit(null, [err.message], environment);
  }
}
