// The readiness verdict: production's own conformance first, then a pure comparison of the two
// environments' facts. Any must check failing or erroring on production is NOT READY by itself
// (a client built against the spec, or a sandbox that keeps it, trips over it), named with its
// clause and evidence; then what WILL break a client that was built and tuned against sandbox,
// then what merely differs. A rule that lacks a fact on either side is "not tested" with the
// reason, never a guess. A sandbox that itself fails a must check is said plainly: the client was
// built against a service that deviates, and the comparison runs all the same.

import type { EnvironmentFacts } from './facts.js';
import { notComparedFacts } from './not-compared.js';
import type { Level, Status } from '../report/model.js';

export type Readiness = 'READY' | 'NOT READY' | 'NOT TESTED';

export interface Finding {
  /** Stable id, the junit testcase name. */
  id: string;
  status: 'ok' | 'breaking' | 'different' | 'not_tested' | 'sandbox_deviates';
  line: string;
}

/** One check of a pass, as the gate reads it: status, level, clause and its message (the evidence in words). */
export interface ConformanceEntry {
  id: string;
  status: Status;
  level: Level;
  spec: string;
  message: string;
}

export interface CutoverVerdict {
  verdict: Readiness;
  /** The verdict in one line, for the terminal and the top of every format. */
  summary: string;
  breaking: string[];
  differences: string[];
  not_tested: string[];
  /** Must checks sandbox itself failed: the client was built against a sandbox that deviates. */
  sandbox_deviations: string[];
  /**
   * Figures shown side by side but read under conditions too far apart to compare (a burst count
   * at two offered rates, not-compared.ts). No rule reads them, so they leave the verdict as it is.
   */
  not_compared: string[];
  findings: Finding[];
}

export interface VerdictContext {
  /** A production certificate expiring within this many days breaks the cutover. */
  windowDays: number;
  nowMs: number;
  /** Whether production's rate limit could be measured (--allow-production-load): what a missing one's line suggests. */
  productionLoadAllowed: boolean;
  /** What stopped a pass from testing everything (the production budget reached, a stage that threw), `environment: reason`. */
  passesUntested: readonly string[];
  /** Each pass's checks, for the conformance gate; none when a pass did not run (its reason is in passesUntested). */
  checks?: { production: readonly ConformanceEntry[]; sandbox: readonly ConformanceEntry[] };
}

const failed = (c: ConformanceEntry) => c.level === 'must' && (c.status === 'fail' || c.status === 'error');
const clause = (c: ConformanceEntry) => `${c.id} (§${c.spec}, ${c.level})`;

/**
 * The first gate: production's failing must checks (breaking) and warnings (differences), and
 * sandbox's failing must checks (said plainly, not breaking: production is what is judged).
 */
function conformanceFindings(ctx: VerdictContext, production: string, sandbox: string): Finding[] {
  const p = ctx.checks?.production ?? [];
  const s = ctx.checks?.sandbox ?? [];
  const verb = (c: ConformanceEntry) => (c.status === 'error' ? 'could not complete' : 'fails');
  // READY says production passed its must checks: with none run there, that is not known.
  const noneRan = !p.some((c) => c.level === 'must' && c.status !== 'skip');
  return [
    ...(noneRan
      ? [
          {
            id: `${production}:conformance`,
            status: 'not_tested',
            line: `${production}'s own conformance: no must check ran there, so none of its failures could be seen`,
          } satisfies Finding,
        ]
      : []),
    ...p.filter(failed).map((c): Finding => ({
      id: `${production}:${c.id}`,
      status: 'breaking',
      line: `${production} ${verb(c)} ${clause(c)}: ${c.message}`,
    })),
    ...p
      .filter((c) => c.status === 'warn')
      .map((c): Finding => ({
        id: `${production}:${c.id}`,
        status: 'different',
        line: `${production} warns on ${clause(c)}: ${c.message}`,
      })),
    // A check that errored on sandbox proved nothing either way: its facts are missing, and the
    // comparisons that need them say "not tested"; only a failure is a deviation.
    ...s
      .filter((c) => c.level === 'must' && c.status === 'fail')
      .map((c): Finding => ({
        id: `${sandbox}:${c.id}`,
        status: 'sandbox_deviates',
        line: `${sandbox} itself fails ${clause(c)}: ${c.message}; the client was built against a sandbox that deviates from the spec`,
      })),
  ];
}

/** A lifetime without its measured bounds (a run stored before they were kept): ± this many seconds. */
const LIFETIME_SLACK_S = 5;

const lifetimeBounds = (e: EnvironmentFacts): { min: number; max: number } => ({
  min: e.lifetime_min_s ?? e.lifetime_s! - LIFETIME_SLACK_S,
  max: e.lifetime_max_s ?? e.lifetime_s! + LIFETIME_SLACK_S,
});
const span = (b: { min: number; max: number }) => (b.min === b.max ? `${b.min} s` : `${b.min}–${b.max} s`);

type Rule = (p: EnvironmentFacts, s: EnvironmentFacts, ctx: VerdictContext) => Finding;

const missing = (id: string, what: string, p: EnvironmentFacts, s: EnvironmentFacts, fact: string): Finding => {
  const side = p.missing[fact] !== undefined ? p : s;
  return {
    id,
    status: 'not_tested',
    line: `${what}: not known on ${side.environment} (${side.missing[fact] ?? 'no fact'})`,
  };
};

type TextFact = {
  [K in keyof EnvironmentFacts]-?: EnvironmentFacts[K] extends string | undefined ? K : never;
}[keyof EnvironmentFacts];

/** Facts whose difference breaks no client by itself: id, what the line calls it, the fact. */
const MERELY_DIFFERENT: ReadonlyArray<readonly [string, string, TextFact]> = [
  ['token-format', 'token format', 'token_format'],
  ['token-type', 'token_type', 'token_type'],
  ['tls-negotiated', 'TLS a default client negotiates', 'tls_negotiated'],
  // Outside §5.8 (TLS 1.0–1.2, other suites): production refusing what sandbox wrongly took breaks
  // only a client that is not §5.8's; production taking more breaks no client.
  ['tls-legacy-versions', 'TLS 1.0–1.2 accepted', 'tls_legacy_accepted'],
  ['tls-other-suites', 'other TLS 1.3 suites accepted', 'tls_other_suites_accepted'],
  ['certificate-key', 'certificate key', 'certificate_key'],
  ['health-timestamp-format', 'health timestamp format', 'health_timestamp_format'],
];

/** Each rule names what a sandbox-built client would trip over. Order is the report's order. */
const RULES: ReadonlyArray<Rule> = [
  function rateLimit(p, s, ctx) {
    const id = 'rate-limit';
    // Measured outranks announced: an announcement is the service's claim, a probe what it did.
    const measured = p.rate_limit_measured_rps;
    const limit = measured ?? p.rate_limit_announced_rps;
    if (limit === undefined) {
      const why = [p.missing['rate_limit_measured_rps'], p.missing['rate_limit_announced_rps']].filter(Boolean);
      const how = ctx.productionLoadAllowed
        ? ''
        : '; pass --allow-production-load to measure it with a rate-limit probe of production';
      return {
        id,
        status: 'not_tested',
        line: `production's rate limit: not known (${why.join('; ') || 'no fact'})${how}`,
      };
    }
    const recommended = s.rate_limit_recommended_rps;
    if (recommended === undefined)
      return {
        id,
        status: 'not_tested',
        line: `sandbox's recommended rate: not known (${s.missing['rate_limit_recommended_rps'] ?? 'no fact'}); run \`ces-harness ratelimit --env ${s.environment}\` with the history on, then cutover with --sandbox-from-history H`,
      };
    const seen =
      measured !== undefined
        ? `measured at ${measured} req/s`
        : `announced as ${p.rate_limit_announced} (${p.rate_limit_announced_rps} req/s; announced, not measured)`;
    if (limit < recommended) {
      return {
        id,
        status: 'breaking',
        line: `production's rate limit, ${seen}, is below the ${recommended} req/s recommended on sandbox: a client paced for sandbox will get 429s on production`,
      };
    }
    return {
      id,
      status: 'ok',
      line: `rate limit: production's ${seen}, at or above the ${recommended} req/s recommended on sandbox`,
    };
  },
  function certificateTrust(p, s) {
    const id = 'certificate-trust';
    if (p.certificate_untrusted === undefined)
      return {
        id,
        status: 'ok',
        line: "certificate chain: production's verifies against the trust its pass was given",
      };
    // The same issuer name on a sandbox leaf that verifies points at the chain, not the CA.
    const issuer = p.certificate_untrusted_issuer;
    const sameIssuer = issuer !== undefined && s.certificate_issuer?.includes(`CN=${issuer}`) === true;
    const cause = sameIssuer
      ? `sandbox's certificate names the same issuer and verifies, so production likely does not send the intermediate certificate sandbox sends`
      : `issued by another CA than sandbox's, or an intermediate not sent`;
    const seen = `${p.certificate_untrusted}${issuer !== undefined ? `; the leaf is issued by ${issuer}` : ''}`;
    return {
      id,
      status: 'breaking',
      line: `production's certificate does not verify (${seen}): a client's trust store may not hold its CA (${cause}); no check ran on production`,
    };
  },
  function certificateAuthority(p, s) {
    const id = 'certificate-ca';
    // An untrusted production is certificate-trust's finding; nothing else was seen of it.
    if (p.certificate_untrusted !== undefined)
      return { id, status: 'not_tested', line: "certificate under sandbox's trust: see certificate-trust" };
    // By trust, not by name: an intermediate of the same root, chain sent, verifies as sandbox's does.
    if (p.certificate_sandbox_trust_verifies === undefined)
      return missing(id, "production's certificate under sandbox's trust", p, p, 'certificate_sandbox_trust');
    if (!p.certificate_sandbox_trust_verifies)
      return {
        id,
        status: 'breaking',
        line: `production's certificate ${p.certificate_sandbox_trust}: a client given only sandbox's trust refuses production`,
      };
    if (
      p.certificate_issuer !== undefined &&
      s.certificate_issuer !== undefined &&
      p.certificate_issuer !== s.certificate_issuer
    )
      return {
        id,
        status: 'different',
        line: `production's certificate is issued by ${p.certificate_issuer}, sandbox's by ${s.certificate_issuer}; production's ${p.certificate_sandbox_trust}, so a client given sandbox's trust accepts it`,
      };
    return { id, status: 'ok', line: `production's certificate ${p.certificate_sandbox_trust}` };
  },
  function certificateExpiry(p, s, ctx) {
    const id = 'certificate-expiry';
    if (p.certificate_expires === undefined)
      return missing(id, "production's certificate expiry", p, p, 'certificate_expires');
    const days = Math.floor((Date.parse(p.certificate_expires) - ctx.nowMs) / 86_400_000);
    if (!(days >= ctx.windowDays)) {
      return {
        id,
        status: 'breaking',
        line: `production's certificate expires on ${p.certificate_expires} (${days} days), within the ${ctx.windowDays}-day cutover window`,
      };
    }
    return {
      id,
      status: 'ok',
      line: `production's certificate expires on ${p.certificate_expires}, after the ${ctx.windowDays}-day cutover window`,
    };
  },
  function tlsSuites(p, s) {
    const id = 'tls-suites';
    if (p.tls_suites_accepted === undefined || s.tls_suites_accepted === undefined)
      return missing(id, 'TLS 1.3 suites of §5.8 accepted', p, s, 'tls_suites_accepted');
    // §5.8 promises each of the three: a client may be built to offer any one of them, and one
    // that sandbox took and production refuses fails that client's handshake.
    const onProduction = new Set(suites(p.tls_suites_accepted));
    const lost = suites(s.tls_suites_accepted).filter((suite) => !onProduction.has(suite));
    if (lost.length > 0)
      return {
        id,
        status: 'breaking',
        line: `production refuses ${lost.join(', ')} offered alone with TLS 1.3, which sandbox accepts and §5.8 promises: a client offering only that suite fails the handshake on production`,
      };
    return differs(id, 'TLS 1.3 suites of §5.8 accepted', p.tls_suites_accepted, s.tls_suites_accepted);
  },
  function tokenLifetime(p, s) {
    const id = 'token-lifetime';
    if (p.lifetime_s === undefined || s.lifetime_s === undefined)
      return missing(id, 'token lifetime', p, s, 'lifetime_s');
    // Only what lies outside both measurements' uncertainty is a difference.
    const pb = lifetimeBounds(p);
    const sb = lifetimeBounds(s);
    const measured = `(measured ${span(pb)} and ${span(sb)})`;
    if (pb.max < sb.min) {
      return {
        id,
        status: 'breaking',
        line: `production's tokens live ${p.lifetime_s} s, sandbox's ${s.lifetime_s} s ${measured}: a client that refreshes on sandbox's schedule sends expired tokens`,
      };
    }
    if (pb.min > sb.max)
      return {
        id,
        status: 'different',
        line: `production's tokens live ${p.lifetime_s} s, longer than sandbox's ${s.lifetime_s} s ${measured}`,
      };
    return {
      id,
      status: 'ok',
      line: `token lifetime: ${p.lifetime_s} s on production, ${s.lifetime_s} s on sandbox, the same within their measured uncertainty ${measured}`,
    };
  },
  function validateMethod(p, s) {
    const id = 'validate-method';
    if (p.validate_methods === undefined || s.validate_methods === undefined)
      return missing(id, 'validate method', p, s, 'validate_methods');
    if (p.validate_methods !== s.validate_methods) {
      return {
        id,
        status: 'breaking',
        line: `validate accepts ${p.validate_methods} on production, ${s.validate_methods} on sandbox: a client using sandbox's method may be refused`,
      };
    }
    return { id, status: 'ok', line: `validate method: ${p.validate_methods} on both` };
  },
  function errorBody(p, s) {
    const id = 'error-body';
    if (p.error_status === undefined || s.error_status === undefined)
      return missing(id, 'error body fields', p, s, 'error_status');
    // As a client's error handling reads it: status, content type, §7's `error`, the keys it parses.
    const lost = keysOf(s.error_keys).filter((k) => !keysOf(p.error_keys).includes(k));
    const added = keysOf(p.error_keys).filter((k) => !keysOf(s.error_keys).includes(k));
    const breaks = [
      p.error_status !== s.error_status && `status ${p.error_status} on production, ${s.error_status} on sandbox`,
      p.error_media_type !== s.error_media_type &&
        `content type ${p.error_media_type} on production, ${s.error_media_type} on sandbox`,
      p.error_code !== s.error_code && `\`error\` ${p.error_code} on production, ${s.error_code} on sandbox`,
      lost.length > 0 && `production's body lacks ${lost.join(', ')}`,
    ].filter((b): b is string => typeof b === 'string');
    if (breaks.length > 0)
      return {
        id,
        status: 'breaking',
        line: `a wrong secret gets ${p.error_body} on production, ${s.error_body} on sandbox (${breaks.join('; ')}): error handling written against sandbox's body misreads production's`,
      };
    if (added.length > 0)
      return {
        id,
        status: 'different',
        line: `error body: production's adds ${added.join(', ')} to the fields sandbox sends (status ${p.error_status}, \`error\` ${p.error_code}, ${p.error_media_type} alike): a client reading sandbox's fields reads production's the same`,
      };
    return {
      id,
      status: 'ok',
      line: `error body: status ${p.error_status}, ${p.error_media_type}, \`error\` ${p.error_code}, keys ${p.error_keys} on both`,
    };
  },
  function credentialIsolation(p, s) {
    const id = 'credential-isolation';
    const lacking = [p, s].find((e) => e.credentials_isolated === undefined);
    if (lacking)
      return {
        id,
        status: 'not_tested',
        line: `credential isolation: not known on ${lacking.environment} (${lacking.missing['credentials_isolated'] ?? 'no result'})`,
      };
    if (p.credentials_isolated === 'no' || s.credentials_isolated === 'no') {
      return {
        id,
        status: 'breaking',
        line: "credentials are not isolated: one environment accepts the other's credentials (env.credentials-isolated failed), so a client misconfigured with sandbox credentials would reach production",
      };
    }
    return {
      id,
      status: 'ok',
      line: "credentials isolated: each environment refuses the other's credentials, both ways",
    };
  },
  ...MERELY_DIFFERENT.map(
    ([id, what, fact]): Rule =>
      (p, s) =>
        differs(id, what, p[fact], s[fact]),
  ),
  function clockSkew(p, s) {
    const id = 'clock-skew';
    if (p.clock_skew_s === undefined || s.clock_skew_s === undefined)
      return missing(id, 'clock skew', p, s, 'clock_skew_s');
    const line = `clock skew from this machine: ${p.clock_skew_s} s on production, ${s.clock_skew_s} s on sandbox`;
    return { id, status: Math.abs(p.clock_skew_s - s.clock_skew_s) > 2 ? 'different' : 'ok', line };
  },
  function latency(p, s) {
    const id = 'latency';
    if (p.latency_ms === undefined || s.latency_ms === undefined)
      return {
        id,
        status: 'ok',
        line: `business latency: ${p.latency_ms ?? 'not measured'} ms on production, ${s.latency_ms ?? 'not measured'} ms on sandbox (production's business calls are opt-in)`,
      };
    const line = `business latency from this network: ${p.latency_ms} ms on production, ${s.latency_ms} ms on sandbox`;
    return { id, status: p.latency_ms > 2 * s.latency_ms + 50 ? 'different' : 'ok', line };
  },
];

const keysOf = (keys: string | undefined): string[] => (keys === undefined || keys === 'none' ? [] : keys.split(', '));

/** The `accepted` fact of a TLS matrix check: "none", or the offers taken, comma-separated. */
const suites = (accepted: string): string[] => (accepted === 'none' ? [] : accepted.split(', '));

function differs(id: string, what: string, p: string | undefined, s: string | undefined): Finding {
  if (p === undefined || s === undefined)
    return { id, status: 'not_tested', line: `${what}: not known on ${p === undefined ? 'production' : 'sandbox'}` };
  if (p !== s) return { id, status: 'different', line: `${what}: ${p} on production, ${s} on sandbox` };
  return { id, status: 'ok', line: `${what}: ${p} on both` };
}

/**
 * What READY covers, in its own line: the must checks production passed, and by name the ones it
 * skipped (no opt-in, a token not yet expired), which lie outside it.
 */
function readyScope(production: string, checks: readonly ConformanceEntry[]): string {
  const must = checks.filter((c) => c.level === 'must');
  const skipped = must.filter((c) => c.status === 'skip').map((c) => c.id);
  const passed = must.length - skipped.length;
  return skipped.length === 0
    ? `${production} passed every must check (${passed})`
    : `${production} passed the ${passed} must checks it ran; not tested there, so outside this verdict: ${skipped.join(', ')}`;
}

/**
 * What READY's rate-limit comparison rests on: production's limit measured, or only announced (its
 * claim, not what it does), against the rate recommended on sandbox by the source named (a probe
 * without a k6 proof, or a stored run's proven recommendation).
 */
function rateLimitScope(p: EnvironmentFacts, s: EnvironmentFacts): string {
  const limit =
    p.rate_limit_measured_rps !== undefined
      ? `${p.environment}'s measured rate limit`
      : `${p.environment}'s announced rate limit (announced, not measured: --allow-production-load measures it)`;
  const recommended = s.rate_limit_source ? ` (${s.rate_limit_source})` : '';
  return `the rate limit compared is ${limit}, against the rate recommended on ${s.environment}${recommended}`;
}

export function cutoverVerdict(
  production: EnvironmentFacts,
  sandbox: EnvironmentFacts,
  ctx: VerdictContext,
): CutoverVerdict {
  // A pass that tested less than asked leaves every comparison in doubt, not only the one it hit.
  const passes = ctx.passesUntested.map((line, i): Finding => ({ id: `pass-${i + 1}`, status: 'not_tested', line }));
  const findings = [
    ...conformanceFindings(ctx, production.environment, sandbox.environment),
    ...RULES.map((rule) => rule(production, sandbox, ctx)),
    ...passes,
  ];
  const lines = (status: Finding['status']) => findings.filter((f) => f.status === status).map((f) => f.line);
  const breaking = lines('breaking');
  const notTested = lines('not_tested');
  const verdict: Readiness = breaking.length ? 'NOT READY' : notTested.length ? 'NOT TESTED' : 'READY';
  const summary =
    verdict === 'NOT READY'
      ? `NOT READY: ${breaking.length} thing(s) will break a client integrated against sandbox; first: ${breaking[0]!}`
      : verdict === 'NOT TESTED'
        ? `NOT TESTED: ${notTested.length} comparison(s) could not be made; first: ${notTested[0]!}`
        : `READY: ${readyScope(production.environment, ctx.checks?.production ?? [])}, and nothing found that would break a client integrated against sandbox; ${rateLimitScope(production, sandbox)}`;
  const deviations = lines('sandbox_deviates');
  const plainly = deviations.length
    ? `; and ${sandbox.environment} itself fails ${deviations.length} must check(s): the client was built against a sandbox that deviates from the spec`
    : '';
  return {
    verdict,
    summary: summary + plainly,
    breaking,
    differences: lines('different'),
    not_tested: notTested,
    sandbox_deviations: deviations,
    not_compared: notComparedFacts(production, sandbox).map((n) => n.line),
    findings,
  };
}
