// A scenario's own k6 figures (`extra`: custom metrics by their k6 names, e.g.
// `tls_seen_suite_TLS_AES_128_GCM_SHA256: 76`) said as the findings they are: "a logical call took
// p95 1,125 ms with a token fetched per call, against 8 ms with a cached token". Each rule reads
// the figures it knows and claims them; what no rule claims is still shown, as a plain table
// behind the findings, so nothing k6 measured is lost. Pure; report.md and report.html say the same.

import { formatMs, formatNumber, formatPercent } from '../../common/format.js';
import type { LoadResult, LoadScenarioResult } from '../../model.js';
import { sizedNote } from '../load/words.js';

export interface Finding {
  scenario: string;
  /** One sentence, ending in a full stop. May quote names in backticks. */
  text: string;
}

export interface TokenCost {
  scenario: string;
  cached: { p50: number; p95: number };
  perCall: { p50: number; p95: number };
}

/** A scenario's figures by metric name, with the part prefix a merged scenario adds ("tls12-refused: …") kept apart. */
class Figures {
  private readonly used = new Set<string>();
  constructor(private readonly extra: Record<string, number | string>) {}

  num(key: string): number | undefined {
    const v = this.extra[key];
    if (typeof v !== 'number' || !Number.isFinite(v)) return undefined;
    this.used.add(key);
    return v;
  }

  text(key: string): string | undefined {
    const v = this.extra[key];
    if (typeof v !== 'string') return undefined;
    this.used.add(key);
    return v;
  }

  /** The keys matching `pattern` (by name without a part prefix), with the first capture as label. */
  matching(pattern: RegExp): Array<{ label: string; value: number }> {
    const out: Array<{ label: string; value: number }> = [];
    for (const key of Object.keys(this.extra)) {
      const m = pattern.exec(key);
      const value = m ? this.num(key) : undefined;
      if (m && value !== undefined) out.push({ label: m[1] ?? key, value });
    }
    return out;
  }

  /** Marks figures as said elsewhere (the per-mode raw HTTP durations the token-cost finding covers). */
  claim(pattern: RegExp): void {
    for (const key of Object.keys(this.extra)) if (pattern.test(key)) this.used.add(key);
  }

  rest(): Array<[string, number | string]> {
    return Object.entries(this.extra).filter(([key]) => !this.used.has(key));
  }
}

const capitalise = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);
const times = (n: number): string => `${formatNumber(n)} time${n === 1 ? '' : 's'}`;
const plural = (n: number, one: string, many = `${one}s`): string => `${formatNumber(n)} ${n === 1 ? one : many}`;

/** Cached token against a token fetched per call, from the throughput scenario's logical-call trends. */
function tokenCostOf(scenario: string, f: Figures): TokenCost | null {
  const cached = {
    p50: f.num('logical_call_duration_cached p50_ms'),
    p95: f.num('logical_call_duration_cached p95_ms'),
  };
  const perCall = {
    p50: f.num('logical_call_duration_token_per_call p50_ms'),
    p95: f.num('logical_call_duration_token_per_call p95_ms'),
  };
  if (cached.p50 === undefined || cached.p95 === undefined || perCall.p50 === undefined || perCall.p95 === undefined)
    return null;
  return { scenario, cached: { p50: cached.p50, p95: cached.p95 }, perCall: { p50: perCall.p50, p95: perCall.p95 } };
}

function tokenCostSentence(c: TokenCost, f: Figures): string {
  f.num('token_per_call_cost_p50_ms');
  f.claim(/^http_req_duration\{mode:/);
  const ratio = c.cached.p95 > 0 ? c.perCall.p95 / c.cached.p95 : 0;
  const howMuch = ratio >= 1.5 ? ` (${formatNumber(ratio, ratio < 10 ? 1 : 0)}× as long)` : '';
  return (
    `A logical business call took p95 ${formatMs(c.perCall.p95)} with a token fetched per call, against ${formatMs(c.cached.p95)} with a cached token${howMuch}; ` +
    `medians ${formatMs(c.perCall.p50)} and ${formatMs(c.cached.p50)}.`
  );
}

function rateLimitSentence(f: Figures): string | null {
  const limited = f.num('rate_limited_responses');
  const waits = f.num('retry_after_waits');
  const retries = f.num('retries');
  const lost = f.num('logical_calls_lost');
  const ok = f.num('logical_calls_ok');
  const serverErrors = f.num('server_errors');
  if (limited === undefined && lost === undefined && ok === undefined) return null;
  const parts: string[] = [];
  if (limited !== undefined) {
    parts.push(limited === 0 ? 'No answer was 429' : `The service answered 429 ${times(limited)}`);
    if (limited > 0 && waits !== undefined) parts.push(`${plural(waits, 'wait')} followed its Retry-After`);
    if (limited > 0 && retries !== undefined) parts.push(`${plural(retries, 'retry', 'retries')} in all`);
  }
  if (ok !== undefined) parts.push(`${plural(ok, 'logical call')} completed`);
  if (serverErrors !== undefined && serverErrors > 0) parts.push(`${plural(serverErrors, 'answer')} were 5xx`);
  if (lost !== undefined)
    parts.push(
      lost === 0 ? 'no logical call was lost' : `${plural(lost, 'logical call was', 'logical calls were')} lost`,
    );
  const [first = '', ...others] = parts;
  return `${capitalise(first)}${others.length > 0 ? `; ${others.join(', ')}` : ''}.`;
}

function tokenSentences(f: Figures): string[] {
  const out: string[] = [];
  const fetched = f.num('token_fetches');
  const turnovers = f.num('token_turnovers');
  // A turnover is a 401 at a token's expiry, got a new token and retried: normal life, worth a count only when it happened.
  const turned = turnovers ? `; ${plural(turnovers, 'call')} met a token at its expiry and retried with a new one` : '';
  if (fetched !== undefined)
    out.push(`${plural(fetched, 'token')} ${fetched === 1 ? 'was' : 'were'} fetched${turned}.`);
  else if (turnovers) out.push(`${plural(turnovers, 'call')} met a token at its expiry and retried with a new one.`);
  const refused = f.num('token_refused_before_expiry');
  if (refused !== undefined)
    out.push(
      refused === 0
        ? 'No token was refused before its expires_at.'
        : `${plural(refused, 'token was', 'tokens were')} refused before their expires_at (§4.3 wants them accepted until then).`,
    );
  const changed = f.num('token_changed_before_expiry');
  if (changed !== undefined)
    out.push(
      changed === 0
        ? 'Repeated token requests got the same token until its expires_at.'
        : `The token changed ${times(changed)} before its expires_at (§3 wants the same token until then).`,
    );
  const renewals = f.num('token_renewals_after_expiry');
  if (renewals !== undefined) out.push(`A new token was issued after expiry ${times(renewals)}.`);
  return out;
}

function tlsSentences(f: Figures): string[] {
  const out: string[] = [];
  const versions = f.matching(/^tls_seen_version_(.+)$/).filter((v) => v.value > 0);
  const suites = f.matching(/^tls_seen_suite_(.+)$/).filter((s) => s.value > 0);
  const other = f.num('tls_seen_other');
  if (versions.length > 0 || suites.length > 0) {
    const list = (xs: Array<{ label: string; value: number }>, name: (l: string) => string) =>
      xs.map((x) => `${name(x.label)} (${formatNumber(x.value)})`).join(', ');
    const v =
      versions.length > 0
        ? `negotiated ${list(versions, (l) => `TLS ${l.replace(/^tls_?/i, '').replace(/_/g, '.')}`)}`
        : '';
    const s = suites.length > 0 ? `with ${list(suites, (l) => l)}` : '';
    out.push(
      `Connections ${[v, s].filter((x) => x !== '').join(' ')}${other ? `; ${plural(other, 'other')} seen` : ''}.`,
    );
  }
  const v13 = f.num('tls_version_1_3');
  const allowed = f.num('tls_cipher_suite_allowed');
  if (v13 === 1 && allowed === 1) out.push('Every answer came over TLS 1.3 with an allowed suite.');
  else if (v13 !== undefined || allowed !== undefined) {
    const parts = [
      v13 === undefined ? null : `${formatPercent(v13)} over TLS 1.3`,
      allowed === undefined ? null : `${formatPercent(allowed)} with an allowed suite`,
    ];
    out.push(`Of the answers, ${parts.filter((p) => p !== null).join(' and ')}.`);
  }
  const tls12 = f.matching(/^(?:.*: )?(tls12_connection_accepted)$/)[0];
  if (tls12 !== undefined)
    out.push(
      tls12.value === 0
        ? 'A TLS 1.2-only client was refused every time.'
        : `A TLS 1.2-only client got through on ${formatPercent(tls12.value)} of its attempts (§5.8 allows TLS 1.3 only).`,
    );
  return out;
}

export interface ScenarioFindings {
  scenario: string;
  findings: Finding[];
  /** The figures no finding says, by their k6 names. */
  rest: Array<[string, number | string]>;
  tokenCost: TokenCost | null;
}

export function scenarioFindings(s: LoadScenarioResult): ScenarioFindings {
  const f = new Figures(s.extra ?? {});
  const tokenCost = tokenCostOf(s.scenario, f);
  const sentences = [
    ...(tokenCost ? [tokenCostSentence(tokenCost, f)] : []),
    rateLimitSentence(f),
    ...tokenSentences(f),
    ...tlsSentences(f),
  ].filter((t): t is string => t !== null);
  const notes = f.text('notes');
  if (notes !== undefined) sentences.push(`k6 noted: ${notes}.`);
  // What the figures are of: a rate sized from the limit, or a scenario only the limit kept from a verdict.
  if (s.sized) sentences.unshift(`${capitalise(sizedNote(s.sized))}.`);
  if (s.not_tested !== undefined) sentences.unshift(`Not tested: ${s.not_tested}.`);
  return {
    scenario: s.scenario,
    findings: sentences.map((text) => ({ scenario: s.scenario, text })),
    rest: f.rest(),
    tokenCost,
  };
}

/** The findings of every scenario that ran, in scenario order. */
export const loadFindings = (load: LoadResult): ScenarioFindings[] =>
  load.scenarios.filter((s) => s.error === undefined).map(scenarioFindings);
