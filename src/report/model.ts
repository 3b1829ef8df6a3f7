// The one result model of a run. Every renderer (json, md, junit, html) is a pure function of a
// Report; checks and the k6/rate-limit stages only ever produce these plain objects.

import type { ClientSection } from './sections/client/model.js';

export type { ClientSection } from './sections/client/model.js';
import type { SinceLastRun, Trends } from './sections/since/model.js';
import type { LimiterModel } from '../spec/limiter-model.js';

export const REPORT_SCHEMA = 'ces-harness/report@1';

/**
 * The report folder's files, one per renderer (index.ts, whose map must have exactly these). Named
 * here, apart from the renderers, so the folder can be checked before the first request without
 * loading them: they load while the checks run (cli/commands/target-job.ts).
 */
export const REPORT_FILE_NAMES = ['report.json', 'report.md', 'junit.xml', 'report.html'] as const;
export type ReportFile = (typeof REPORT_FILE_NAMES)[number];

export type Level = 'must' | 'should';
export type Status = 'pass' | 'fail' | 'warn' | 'skip' | 'error';
export type Verdict = 'pass' | 'fail';

/** One request/response a check relied on. Never holds a secret or a whole token. */
export interface Evidence {
  request: string;
  status?: number;
  note?: string;
}

export interface CheckResult {
  id: string;
  title: string;
  spec: string;
  level: Level;
  status: Status;
  message: string;
  duration_ms: number;
  evidence: Evidence[];
  /**
   * What the check saw, for the run history to compare with the next run (token_type, the
   * certificate's issuer, a latency in ms). Strings compare exactly; numbers against their noise.
   */
  facts?: Record<string, string | number>;
}

export interface ThresholdResult {
  metric: string;
  expression: string;
  ok: boolean;
}

export interface LoadScenarioResult {
  scenario: string;
  requests: number;
  rate_per_s: number;
  latency_ms: { p50: number; p95: number; p99: number; max: number; avg?: number };
  error_rate: number;
  checks: { passed: number; failed: number };
  thresholds: ThresholdResult[];
  dropped_iterations: number;
  /**
   * How long its arrivals were scheduled to run, seconds (--duration, load.duration_s): the span its
   * verdict covers. Absent in a report written before it was recorded.
   */
  duration_s?: number;
  /** Per-second series for charts, from k6's samples: t is whole seconds since the first request. */
  timeline?: Array<{ t: number; requests: number; p95_ms?: number }>;
  /** k6's web-dashboard exports of this scenario, file names in the report folder (report.html links them). */
  dashboards?: string[];
  /** Free-form figures a scenario adds (e.g. the latency cost of a token per call). */
  extra?: Record<string, number | string>;
  /** Present when the scenario could not run at all. */
  error?: string;
  /**
   * Why the scenario is not tested rather than failed: its only failure was calls lost to the
   * service's rate limit (src/stages/load-limited.ts). Absent otherwise.
   */
  not_tested?: string;
  /**
   * Present when `run` ran the scenario again at a rate sized from the rate limit it measured, the
   * default rate having met a lower limit (src/stages/load-sized.ts): its figures are that run's.
   */
  sized?: SizedLoad;
}

/** A load scenario's rate, sized again from the limit `run` measured (LoadScenarioResult.sized). */
export interface SizedLoad {
  /** The default arrival rate that met the limit, per second. */
  default_rps: number;
  /** The arrival rate it ran at instead, per second. */
  rps: number;
  /** The policy it was sized from, the sizing's recommendation, requests per second. */
  policy_rps: number;
  /**
   * Whether the sizing's k6 proof held that policy. Either way the scenario's verdict is its own run's:
   * a rate too high for the limit leaves it not tested again, never passed.
   */
  policy_proven: boolean;
}

export interface LoadResult {
  k6_version: string;
  run_id: string;
  scenarios: LoadScenarioResult[];
  ok: boolean;
}

export interface BackoffPolicy {
  base_ms: number;
  cap_ms: number;
  jitter: 'full' | 'equal' | 'none';
  max_retries: number;
}

/**
 * A limit the service announced (RateLimit-Policy, X-RateLimit-Limit…), taken as a hypothesis and
 * tested: `agrees` true when the probe measured the same limit and window, false when it measured
 * otherwise, null when it could not verify it (the note says why).
 */
export interface AdvertisedLimit {
  limit: number;
  window_s: number | null;
  source_header: string;
  agrees: boolean | null;
  note: string;
}

/**
 * How far a probe that met no limit tested for one: its requests' rate as they actually went out
 * (a loaded machine or slow answers send slower than max_rps asks), and over how long.
 */
export interface NoLimitReach {
  /** Requests per second the probe's stream went out at, first request to last. */
  rps: number;
  /** Over how long, seconds. */
  over_s: number;
  /** The rate it aimed at (rate_limit.max_rps). */
  max_rps: number;
  /** False when it reached under half of max_rps: "no limit" is then not tested, not observed. */
  tested: boolean;
}

/**
 * What the rate-limit probe measured: the part of `rate_limit` it fills in, declared once. The probe's
 * own Estimate (src/ratelimit/types.ts) is this with its working figures; the report's
 * RateLimitResult is this with the recommendation, its proof and the fleet.
 */
export interface RateLimitMeasurement {
  endpoint: string;
  sustained_rps: number | null;
  /**
   * The rate the service answered what its limit admitted at, req/s, when that was below
   * `sustained_rps` and the admitted requests waited in line for it (a gateway's limit in front of a
   * slower service): a client paced above it builds that line, so the recommendation is sized by it.
   * With nothing refused (`limiting_status` null), the steady pace the service answered at while its
   * answers waited longer and longer: a limit that delays instead of refusing, deeper than the
   * probe's requests in flight, or the service's own pace. Absent when the service kept up.
   */
  served_rps?: number;
  burst: number | null;
  scope: 'per-client' | 'per-token' | 'shared' | 'unknown';
  retry_after_header: 'truthful' | 'untruthful' | 'absent' | 'unknown';
  recovery_s: number | null;
  requests_sent: number;
  requests_limited: number;
  /**
   * The probe over time, at any resolution: each point counts the requests sent (offered),
   * let through (accepted) and refused by the limit (limited) from its t (s since the probe
   * started) to the next point's t. `phase` names the part of the probe that sent them (drain,
   * sustained, wait, burst…); the report shades each run of one phase.
   */
  timeline?: Array<{ t: number; offered: number; accepted: number; limited: number; phase?: string }>;
  notes?: string[];
  /** The status the limit refused with: 429, or a non-conformant one (503…); null when nothing was refused. */
  limiting_status?: number | null;
  /** When nothing was refused: what "no limit" covers (the rate the probe reached, over how long). Absent when a limit was met. */
  no_limit_up_to?: NoLimitReach;
  /** Seconds a drained limit needs to hold its whole burst again. */
  refill_s?: number | null;
  /** What the service announced of its limit in RateLimit / X-RateLimit-* headers, and whether the probe's measurement agreed. */
  advertised?: AdvertisedLimit;
  /**
   * Every limit announced, when there were several (each policy of a RateLimit-Policy list, each of
   * Kong's units): each a hypothesis, `agrees` null for one the probe did not verify ("announced,
   * not proven"). The recommendation never exceeds the rate of any of them.
   */
  announced?: AdvertisedLimit[];
  /** How long the probe ran, seconds. */
  duration_s?: number;
  /** True when the probe was interrupted or ran out of budget before it knew everything. */
  partial?: boolean;
  /** The limiter the probe identified: its kind and parameters (src/ratelimit/limiters); null when it could not tell. */
  limiter?: LimiterModel | null;
  /**
   * When the limiter is a set of limits (a per-second bucket and a per-minute window), every one of
   * them, `limiter` then being the one that paces a steady client; absent for a single limit.
   */
  limiters?: LimiterModel[];
  /** Why the probe reads the limiter so, one sentence each. */
  limiter_evidence?: string[];
}

export interface RateLimitResult extends RateLimitMeasurement {
  observed_429: boolean;
  /**
   * Set when a limit the service announced binds below the rate the probe measured and was not
   * verified (`run`'s short probe, a budget too short for its window) or disagreed with what was
   * seen: `sustained_rps` is then that limit's rate, the most a client may rely on, and this says
   * so, with the rate the probe measured (one limit of several) beside it. Absent otherwise.
   */
  sustained_announced?: SustainedAnnounced;
  /**
   * Set when no kind explains the evidence (`limiter` null: the probe named none and paced k6 rounds
   * searched for the rate, or the proof rounds refuted the kind it read and no set of limits took
   * its place): `sustained_rps` is then the highest rate a round held over its whole
   * length within the proof's promise (at most 1 % 429, no call lost), and this says over how long
   * and where a round was refused beyond it. Absent otherwise.
   */
  sustained_held?: SustainedHeld;
  /**
   * How many k6 proof rounds were replayed beside the probe to identify `limiter` (and `limiters`):
   * the probe's reading alone was refuted, and a set of limits explains every round and the probe
   * (ratelimit/refuted.ts withoutRefuted). Absent when the probe alone identified it, or none was.
   */
  identified_with_rounds?: number;
  /**
   * How far the probe's own reading of `sustained_rps` may be off, a fraction (0.02: ± 2 %): from its
   * saturated points' spread and pacing, or the resolution of the edges or counts it rests on.
   * Absent when the rate is not the probe's reading (a search held it, an announced limit set it).
   */
  sustained_precision?: number;
  recommendation: {
    target_rps: number;
    max_concurrency: number;
    backoff: BackoffPolicy;
  } | null;
  /** The proof run of the recommendation, and per-second series for the chart (the last round's, when there were several). */
  proof?: {
    rate_429: number;
    goodput_rps: number;
    lost_requests: number;
    /** Seconds into the proof when the first call that met a 429 started; absent when none did. */
    refusals_began_s?: number;
    /**
     * Calls let through per second from the first refusal to the proof's end, when refusals began
     * late (a quota spent): the rate the limit admits once its burst or quota is gone, which no
     * client running longer than the proof can beat. Absent when refusals began at once or not at all.
     */
    after_quota_rps?: number;
    /**
     * Seconds into the proof when a call first succeeded again after the refusals began (k6's
     * earliest, over its VUs, first success after that VU's own first refusal): a bucket refills
     * continuously and lets one through within a second or so; a fixed window lets nothing through
     * until its edge on the clock. Absent when none did, or k6 did not say.
     */
    admitted_again_s?: number;
    /**
     * Arrivals k6 dropped for want of a free VU (each held by a call waiting out its backoff): the
     * round sent fewer than its rate, and a call let through again may have waited for a VU. Absent when none.
     */
    dropped_arrivals?: number;
    /** Arrivals the proof was to send: its rate over the seconds it ran (dropped ones among them). */
    arrivals?: number;
    /**
     * Seconds of arrivals the proof ran before it was cut short: it had certainly broken its promise,
     * and its refusals had run long enough to tell what the limit lets through after (proof-loop.ts).
     * Its figures are over these seconds. Absent when it ran its whole length.
     */
    cut_at_s?: number;
  } | null;
  /**
   * Whether a k6 proof held the recommendation to its promise (src/ratelimit/proof-loop.ts):
   * `proven` (then `recommendation` is the policy that held), `not proven` (no round held:
   * `recommendation` is null and `proof_rounds` shows what was tried), `not proven within horizon`
   * (a round offered no more than the burst, so it could not fail, and the rounds may not run long
   * enough to outlast it: the recommendation stands, unproven, `proof_unproven` says why; not a
   * failure), `not run` (no proof was asked for or k6 could not run: the recommendation is unproven).
   */
  proof_verdict?: 'proven' | 'not proven' | 'not proven within horizon' | 'not run';
  /** Why the recommendation is `not proven within horizon` (src/ratelimit/proof-reach.ts); absent otherwise. */
  proof_unproven?: ProofUnproven;
  /** Each proof round in order: the policy tried and what k6 measured at it. */
  proof_rounds?: ProofRound[];
  /** How long a client's life the proof covers (src/ratelimit/horizon.ts); absent when no proof ran. */
  proof_horizon?: ProofHorizon;
  /** RateLimit / X-RateLimit-* headers the limited answers carried. */
  ratelimit_headers?: string[];
  /** Lines a chart of the timeline draws, requests per second: the identified limit and the recommended rate. */
  reference_lines?: Array<{ label: string; rps: number }>;
  /** `--fleet N` / rate_limit.fleet: the policy for N instances sharing the limit (src/ratelimit/fleet/). */
  fleet?: FleetResult | null;
}

/** Checks a selection left out (Report.checks_left_out): the flags that did, and the ids. */
export interface ChecksLeftOut {
  /** The selection as given, e.g. `--skip tls.*`. */
  by: string;
  ids: string[];
}

/** The announced limit that sets `sustained_rps` (RateLimitResult.sustained_announced). */
export interface SustainedAnnounced {
  limit: number;
  window_s: number;
  source_header: string;
  /** null: announced, not proven; false: the probe saw otherwise (its note in `announced` says what). */
  agrees: boolean | null;
  /** The sustained rate the probe measured, of the limit it reached: not what a client may rely on. */
  measured_rps: number;
}

/**
 * The rate k6 rounds held when no kind explains the evidence (RateLimitResult.sustained_held): the
 * probe named none and a search ran, or the proof rounds refuted the kind it read (refuted.ts
 * refutedHeld). A k6 round paced at `sustained_rps` ran `held_s` seconds within the proof's promise
 * (at most 1 % 429, no call lost); `refused_rps` is the lowest rate a round was refused at beyond it
 * (a client paced there is refused), null when no round was. The limiter's kind stays unidentified.
 */
export interface SustainedHeld {
  held_s: number;
  refused_rps: number | null;
  /**
   * The lowest rate beyond the hold, below any refusing one, at which a round met 429s and failed
   * though fewer than the promise allows (it fell behind its rate or lost calls waiting them out):
   * a client paced there is not served either (ratelimit/refuted.ts lowestFailedOn429). Absent when none did.
   */
  met_429_rps?: number;
  /**
   * The refused rounds' quotas lie on a line below the rate that held (ratelimit/quota-line.ts):
   * a round at `held_rps` held `held_s` on what the limit stored (`stored` requests), and refills
   * at `refill_rps`, the rate a client running longer meets; `sustained_rps` is then the refill,
   * read to ± `refill_error_rps` (the points' timing slack over their span).
   */
  quota_line?: { held_rps: number; stored: number; refill_rps: number; refill_error_rps: number };
  /**
   * No line read the refill, and the hold offered less than ten times what the probe's drain found
   * stored (`stored` requests, as much as the limit holds at rest): it may have lived on them, so a
   * client running longer is sure of `sure_rps` only (the hold less the store over its own round,
   * or over `probe_hold`, the probe's own run let through whole when it proves more), and the policy
   * is given no higher (ratelimit/search-loop.ts surePastStore).
   */
  past_store?: { stored: number; sure_rps: number; probe_hold?: { requests: number; s: number } };
}

/**
 * The proof's horizon: each round ran `proven_s` seconds, so a limit on a window up to
 * `covers_window_s` (half of it) was tested; `not_tested` says what a longer one leaves open.
 */
export interface ProofHorizon {
  proven_s: number;
  covers_window_s: number;
  /**
   * The longest window the probe measured or the service announced, or a bucket's or a queue's refill
   * time (burst / rate) when longer, or how long a limit not identified stayed shut in the probe (a
   * lower bound of its window, `not_tested` says so) when longer still, seconds; null when none is known.
   */
  longest_window_s: number | null;
  /** Why a known limit is outside the horizon, or why the horizon was kept short (`run`). */
  not_tested?: string;
}

/** One k6 proof of a recommended policy: the rate and backoff tried, what the run measured, and whether that kept the promise. */
export interface ProofRound {
  target_rps: number;
  max_concurrency: number;
  backoff_base_ms: number;
  max_retries: number;
  rate_429: number;
  goodput_rps: number;
  lost_requests: number;
  /** Seconds into the round when refusals began (the first call that met a 429); absent when none did. */
  refusals_began_s?: number;
  /** Calls let through per second once refusals began late (a quota spent): see RateLimitResult.proof. */
  after_quota_rps?: number;
  /** When a call first succeeded again after the refusals began, seconds into the round (RateLimitResult.proof). */
  admitted_again_s?: number;
  /** Arrivals k6 dropped for want of a free VU (RateLimitResult.proof); absent when none. */
  dropped_arrivals?: number;
  /** Requests the round was to offer: its rate over the seconds it ran (RateLimitResult.proof). */
  arrivals?: number;
  /** Seconds of arrivals the round ran before it was cut short, failed (RateLimitResult.proof); absent when it ran whole. */
  cut_at_s?: number;
  /**
   * A search's scouting round (search-loop.ts): it ran this many seconds, shorter than the horizon,
   * to find where the limit lies. Its hold proves no rate over the horizon: never the policy nor the
   * sustained rate. Absent: the round ran the horizon (or was cut short once it failed).
   */
  scout_s?: number;
  /**
   * `inconclusive`: it held, but offered no more than the burst it started with; or it was refused
   * from its start by a window left spent, and ran again after a rest. Either way it proves nothing
   * about the rate.
   */
  verdict: 'holds' | 'fails' | 'inconclusive';
  why: string;
}

/**
 * A recommendation no round could prove within the horizon: its round of `round_s` s at
 * `target_rps` fitted in the burst of `burst` requests; a round of `needed_horizon_s` s outlasts it.
 */
export interface ProofUnproven {
  target_rps: number;
  round_s: number;
  burst: number;
  needed_horizon_s: number;
  /** The probe had no time to measure the burst from idle: `burst` and `needed_horizon_s` are lower bounds. */
  burst_from_idle?: false;
}

/** One candidate policy at one fleet size, as the simulator ran it. */
export interface FleetRow {
  policy: string;
  instances: number;
  goodput_rps: number;
  rate_429: number;
  /** p99 of a logical call's time from arrival to success, queueing included, ms. */
  p99_ms: number | null;
  /** Logical calls given up after the last retry during the surge. */
  lost: number;
  /** Seconds to work off the backlog (every call succeeded or given up); null when not done in the simulated time. */
  drained_s: number | null;
  drain_lost: number;
}

export interface FleetResult {
  instances: number;
  /** The limiter simulated, in words ("token bucket 50 req/s, burst 20"). */
  limiter: string;
  sharing: 'shared' | 'per-instance';
  /** Which scope assumption the sharing rests on, in words. */
  assumption: string;
  /** The surge every candidate met: the fleet's offered rate, its duration, and the backlog drained apart. */
  offered_rps: number;
  duration_s: number;
  backlog: number;
  latency_ms: number;
  seed: number;
  recommendation: {
    policy: string;
    per_instance_rps: number;
    per_instance_burst: number;
    backoff: { base_ms: number; cap_ms: number; max_retries: number };
    honour_retry_after: boolean;
    why: string[];
  } | null;
  rows: FleetRow[];
  /**
   * The k6 fleet run of the chosen policy (src/ratelimit/fleet/prove-fleet.ts): `proven` when it
   * kept the promise; `not proven` when it did not (then `recommendation` is null) or could not
   * run; absent when no proof was asked for (the choice is simulated only).
   */
  proof?: {
    instances: number;
    policy: string;
    offered_rps: number;
    duration_s: number;
    goodput_rps?: number;
    rate_429?: number;
    lost?: number;
    sent?: number;
    verdict: 'proven' | 'not proven';
    why: string;
  };
}

/**
 * How the checks' requests travelled, offered as a usual client offers (ALPN h2 and http/1.1,
 * Accept-Encoding: gzip, deflate, br). Informational: the spec names neither, so nothing here is
 * judged; it says which of the service's ways the run exercised.
 */
export interface TransportFacts {
  /** The HTTP versions the service settled on when each was offered alone by ALPN (`h2`, `http/1.1`); absent when it could not tell. */
  http_offered?: string[];
  /** The checks' connections per HTTP version ALPN settled on. */
  http_used: Record<string, number>;
  /** The checks' answers per Content-Encoding (`identity`: not coded). */
  content_codings: Record<string, number>;
}

/**
 * Something the run was asked to test and could not (a stage that did not run, a probe that got no
 * usable answer, nothing selected). It is never a pass: one entry turns the verdict to fail.
 */
export interface Untested {
  /** `checks`, `load`, `rate_limit`: the part of the run that could not test. */
  stage: string;
  reason: string;
}

export interface Report {
  schema: typeof REPORT_SCHEMA;
  tool: { name: 'ces-harness'; version: string };
  target: { environment: string; base_url: string; emulated?: boolean; transport?: TransportFacts };
  started_at: string;
  finished_at: string;
  verdict: Verdict;
  /**
   * Every reason the verdict is fail, which is every reason the exit code is 1: empty exactly when
   * the verdict is pass. Always there (schema/report.schema.json requires it).
   */
  verdict_reasons: VerdictReason[];
  summary: { passed: number; failed: number; warned: number; skipped: number; errored: number };
  checks: CheckResult[];
  load: LoadResult | null;
  rate_limit: RateLimitResult | null;
  /** `ces-harness client`: the client's runs, one per scenario (its checks are in `checks`). */
  client?: ClientSection | null;
  /** What the run was asked to test and could not; empty when everything asked for was tested. */
  untested: Untested[];
  /**
   * Checks that --only/--skip left out: never run, so outside the verdict (every format says so).
   * Absent when the selection left none out.
   */
  checks_left_out?: ChecksLeftOut;
  /**
   * What the user should know about how the run was set up, which changes no verdict (a client
   * secret written in the config file). Absent when there is nothing to say.
   */
  notes?: string[];
  /**
   * Every request this run sent to a production environment (absent when no environment of the
   * run is production): the change board's evidence. Never a token: `auth` says only its kind.
   */
  production?: ProductionAudit;
  /** What changed since the stored runs of this target (absent when the history is off). */
  since_last_run?: SinceLastRun;
  /** The stored runs' figures and verdicts, for report.html's trend charts. */
  trends?: Trends;
}

export interface ProductionAudit {
  /** production.max_requests: the run never sent more. */
  max_requests: number;
  /** Requests sent by this process (the length of `requests`). */
  sent: number;
  /** True when a request was held back because the budget was spent. */
  budget_reached: boolean;
  /** Requests k6 sent (load, proof), from its summary: only with --allow-production-load. */
  k6_requests?: number;
  requests: ProductionRequest[];
}

/** What stood in the Authorization header, never the token itself. */
export type BearerKind = 'valid' | 'expired' | 'forged' | 'none';

export interface ProductionRequest {
  environment: string;
  method: string;
  path: string;
  /** Null when no answer came (a timeout, a reset). */
  status: number | null;
  /** When it went out (ISO, milliseconds). */
  at: string;
  duration_ms: number;
  /** What the Authorization header held. Not called `bearer`: the redactor hides any value of a credential-named key. */
  auth: BearerKind;
  /** Written in plain text on the TLS port (tls.no-plain-http): a TLS-only service never reads it as a request. */
  plain_text?: true;
}

/**
 * One reason the run fails (exit 1). `check`: a must check failed or errored; `load`: a load
 * scenario did not complete, crossed a threshold, or the load run was cut short; `not_tested`:
 * something the run was asked to test could not be tested (`untested`: an interrupted run and a
 * spent production budget are among them); `regression`: a change since the last run that the
 * `regressions:` policy fails.
 */
export interface VerdictReason {
  kind: 'check' | 'load' | 'not_tested' | 'regression';
  /** The check id, the load scenario (`load` for the run as a whole), the untested stage, or the change's subject. */
  subject: string;
  /** One line why. */
  text: string;
}

/**
 * `verdict` is fail exactly when a must check failed or errored, a load threshold failed, or the
 * run could not test something it was asked to (a PASS must mean "tested and conformant"); the
 * history adds the changes its policy fails (regressionReasons).
 */
export function verdictOf(
  checks: readonly CheckResult[],
  load: LoadResult | null,
  untested: readonly Untested[] = [],
): Verdict {
  return verdictReasonsOf(checks, load, untested).length ? 'fail' : 'pass';
}

export function verdictReasonsOf(
  checks: readonly CheckResult[],
  load: LoadResult | null,
  untested: readonly Untested[] = [],
): VerdictReason[] {
  const reasons: VerdictReason[] = checks
    .filter((c) => c.level === 'must' && (c.status === 'fail' || c.status === 'error'))
    .map((c) => ({
      kind: 'check',
      subject: c.id,
      text: `${c.status === 'error' ? 'errored' : 'failed'}: ${c.message.split('\n')[0]}`,
    }));
  if (load && !load.ok) {
    const broken = load.scenarios.flatMap((sc): VerdictReason[] => {
      const crossed = sc.thresholds.filter((t) => !t.ok).map((t) => `${t.metric} ${t.expression}`);
      if (sc.error !== undefined)
        return [{ kind: 'load', subject: sc.scenario, text: `did not complete: ${sc.error.split('\n')[0]}` }];
      return crossed.length
        ? [{ kind: 'load', subject: sc.scenario, text: `thresholds crossed: ${crossed.join('; ')}` }]
        : [];
    });
    reasons.push(
      ...(broken.length
        ? broken
        : [
            {
              kind: 'load' as const,
              subject: 'load',
              text: 'the load run did not finish every scenario, or k6 reported it failed',
            },
          ]),
    );
  }
  reasons.push(...untested.map((u): VerdictReason => ({ kind: 'not_tested', subject: u.stage, text: u.reason })));
  return reasons;
}

/**
 * The verdict as the summaries word it: NOT TESTED when the run fails only because something it
 * was asked to test could not be tested (no check failed or errored, no load threshold, no
 * regression). The service was not found wanting; the harness reached no verdict on part of it, and
 * a CI log or a cutover reviewer must not read that as the service failing. report.json's `verdict`
 * and the exit code stay `fail` and 1: a PASS must still mean tested and conformant.
 */
export function verdictWord(report: Pick<Report, 'verdict' | 'verdict_reasons'>): 'PASS' | 'FAIL' | 'NOT TESTED' {
  if (report.verdict === 'pass') return 'PASS';
  const reasons = report.verdict_reasons;
  return reasons.length > 0 && reasons.every((r) => r.kind === 'not_tested') ? 'NOT TESTED' : 'FAIL';
}

/** The changes since the last run that the `regressions:` policy fails. */
export const regressionReasons = (since: SinceLastRun | undefined): VerdictReason[] =>
  (since?.changes ?? [])
    .filter((c) => c.action === 'fail')
    .map((c) => ({ kind: 'regression', subject: c.subject, text: c.text }));

/** The process's exit code for a run that wrote this report: read from the verdict, never decided beside it. */
export const exitCodeOf = (report: Pick<Report, 'verdict'>): 0 | 1 => (report.verdict === 'pass' ? 0 : 1);

export function summarize(checks: CheckResult[]): Report['summary'] {
  const summary = { passed: 0, failed: 0, warned: 0, skipped: 0, errored: 0 };
  for (const c of checks) {
    if (c.status === 'pass') summary.passed++;
    else if (c.status === 'fail') summary.failed++;
    else if (c.status === 'warn') summary.warned++;
    else if (c.status === 'skip') summary.skipped++;
    else summary.errored++;
  }
  return summary;
}

/** "§4.1" for a section of the service spec; an RFC reference as it is. */
export function specLabel(spec: string): string {
  return /^\d/.test(spec) ? `§${spec}` : spec;
}
