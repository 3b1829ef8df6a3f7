// Turns the handshakes of a set of cases into a check outcome. The rules the TLS checks share:
// - an accepted handshake is proof by itself (no calibration needed to show the server said yes);
// - a refusal counts only when this machine's calibration for that case succeeded;
// - a handshake that never reached the server, or got no answer, judges nothing.

import { fail, notTested, pass, type Outcome } from '../runner/check.js';
import type { Evidence } from '../report/model.js';
import { negotiatedAsOffered, type HandshakeCase } from './cases.js';
import type { TlsEndpoint } from './endpoint.js';
import { describeHandshake, refusalText, refused } from './handshake-outcome.js';
import type { CaseResult } from './matrix.js';

const error = (message: string, evidence: Evidence[] = []): Outcome => ({ status: 'error', message, evidence });

export const handshakeLabel = (c: HandshakeCase): string =>
  c.suite ? `TLS 1.3 handshake offering only ${c.suite}` : `${c.label} handshake`;

/** What one case's offer stands for in a sentence: "TLS 1.2", or the suite's name. */
const offerName = (c: HandshakeCase): string => c.suite ?? c.label;

export function evidenceOf(results: readonly CaseResult[]): Evidence[] {
  return results.map(({ case: c, result, calibration }) => ({
    request: handshakeLabel(c),
    note: describeHandshake(result) + (calibration && !calibration.ok ? `; not calibrated: ${calibration.detail}` : ''),
  }));
}

const list = (items: string[]): string =>
  items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;

const unique = (items: string[]) => [...new Set(items)];

const refusalReason = (r: CaseResult): string => (r.result.error ? refusalText(r.result.error) : 'failed');

/** The inconclusive results, as an error outcome, or undefined when every case was judged. */
function inconclusive(
  endpoint: TlsEndpoint,
  results: readonly CaseResult[],
  evidence: Evidence[],
): Outcome | undefined {
  const cannotOffer = (r: CaseResult) =>
    r.result.error?.stage === 'client' || (refused(r.result) && r.calibration?.ok !== true);
  const unreached = results.filter((r) => !r.result.ok && !refused(r.result) && !cannotOffer(r));
  if (unreached.length > 0) {
    const first = unreached[0]!;
    return error(
      `no TLS answer from ${endpoint.where} for ${list(unreached.map((r) => offerName(r.case)))}: ${describeHandshake(first.result)}; §5.8 cannot be judged`,
      evidence,
    );
  }
  const uncalibrated = results.filter(cannotOffer);
  // A calibration that ran out of time says nothing of OpenSSL: the machine was busy, not unable.
  const unable = uncalibrated.filter((r) => r.calibration?.timedOut !== true);
  if (unable.length === 0 && uncalibrated.length > 0) {
    const names = list(uncalibrated.map((r) => offerName(r.case)));
    const bound = uncalibrated[0]!.calibration?.bound;
    const raise = bound?.capped ? ", or raise --request-timeout (the bound's ceiling)" : '';
    return notTested(
      `${endpoint.where} refused ${names}, but the loopback calibration that proves this machine can offer ${names} did not finish within its bound, ${bound?.why ?? 'not recorded'}: this machine was too busy, so the refusal proves nothing yet; run again when the machine is less busy${raise}`,
      evidence,
    );
  }
  if (unable.length > 0) {
    const names = list(unable.map((r) => offerName(r.case)));
    const first = unable[0]!;
    if (first.result.error?.stage === 'client')
      return error(
        `this machine's OpenSSL cannot offer ${names} (${describeHandshake(first.result)}), so ${endpoint.where} was not asked`,
        evidence,
      );
    return error(
      `${endpoint.where} refused ${names}, but this machine's OpenSSL cannot offer ${names} (${first.calibration?.detail ?? 'not calibrated'}), so its refusal proves nothing`,
      evidence,
    );
  }
  return undefined;
}

/** For the run history: which of the offers the server took (a version or suite that starts or stops being accepted). */
function withAccepted(outcome: Outcome, results: readonly CaseResult[]): Outcome {
  const accepted = results.filter((r) => r.result.ok).map((r) => offerName(r.case));
  return { ...outcome, facts: { accepted: accepted.length ? accepted.join(', ') : 'none' } };
}

/** Every case must be refused. `wants` is the spec's side of the message. */
export function mustRefuse(endpoint: TlsEndpoint, results: readonly CaseResult[], wants: string): Outcome {
  return withAccepted(judgeRefusals(endpoint, results, wants), results);
}

function judgeRefusals(endpoint: TlsEndpoint, results: readonly CaseResult[], wants: string): Outcome {
  const evidence = evidenceOf(results);
  const accepted = results.filter((r) => r.result.ok);
  if (accepted.length > 0) {
    const what = accepted.map((r) =>
      r.case.suite ? r.case.suite : `${r.case.label} (with ${r.result.cipher ?? 'an unknown cipher'})`,
    );
    return fail(`${endpoint.where} accepted ${list(what)} offered alone; ${wants}`, evidence);
  }
  const notJudged = inconclusive(endpoint, results, evidence);
  if (notJudged) return notJudged;
  const reasons = unique(results.map(refusalReason));
  return pass(
    `${endpoint.where} refused ${list(results.map((r) => offerName(r.case)))}, each offered alone (${reasons.join('; ')})`,
    evidence,
  );
}

/** Every case must be accepted, negotiating exactly what was offered. */
export function mustAccept(endpoint: TlsEndpoint, results: readonly CaseResult[], wants: string): Outcome {
  return withAccepted(judgeAcceptance(endpoint, results, wants), results);
}

function judgeAcceptance(endpoint: TlsEndpoint, results: readonly CaseResult[], wants: string): Outcome {
  const evidence = evidenceOf(results);
  const problems: string[] = [];
  for (const r of results) {
    if (r.result.ok && !negotiatedAsOffered(r.case, r.result)) {
      problems.push(
        `negotiated ${r.result.cipher ?? 'an unknown cipher'} over ${r.result.protocol ?? 'an unknown version'} when offered ${r.case.label}`,
      );
    }
  }
  // Refusals grouped by reason, so three suites refused alike read as one sentence.
  const refusals = new Map<string, string[]>();
  for (const r of results.filter((x) => refused(x.result) && x.calibration?.ok === true)) {
    const reason = refusalReason(r);
    refusals.set(reason, [...(refusals.get(reason) ?? []), offerName(r.case)]);
  }
  for (const [reason, names] of refusals)
    problems.push(`refused ${list(names)} offered alone with TLS 1.3 (${reason})`);
  if (problems.length > 0) return fail(`${endpoint.where} ${problems.join('; ')}; ${wants}`, evidence);
  const notJudged = inconclusive(endpoint, results, evidence);
  if (notJudged) return notJudged;
  const suites = results.map((r) => offerName(r.case));
  return pass(`${endpoint.where} negotiated TLSv1.3 with each of ${list(suites)} offered alone`, evidence);
}

/** For an http:// base URL: nothing to probe, and §5.8 is already broken. */
export const notTls = (baseUrl: string): Outcome =>
  fail(`base URL ${baseUrl} is plain http://, so no connection to it uses TLS; §5.8 wants TLS 1.3 for all connections`);
