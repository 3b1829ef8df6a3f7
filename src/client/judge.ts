// From the runs' records to the report: each client check judges every scenario's run, and the
// judgements of one check fold into one CheckResult (the worst status, its message, evidence
// labelled by scenario), so junit keeps one testcase per check however many scenarios ran. A run in
// which the client made no request is judged only by the checks of how its process behaved.

import type { CheckResult, Status } from '../report/model.js';
import { CLIENT_EXCHANGES_SHOWN, type ClientRun } from '../report/sections/client/model.js';
import { CLIENT_CHECKS, type ClientCheck, type Judgement } from './checks/index.js';
import type { ClientRunRecord } from './record.js';
import { quietAtStop, workingAtStop } from './stall.js';

/** The client never reached the emulator in this run: no request, not even a TLS connection. */
export const madeNoRequest = (record: ClientRunRecord): boolean =>
  record.requests.length === 0 && record.hellos.length === 0;

/** Which judgement speaks for the check: a failure over a warning over a pass; skip only when all skip. */
const RANK: Record<Judgement['status'], number> = { fail: 3, warn: 2, pass: 1, skip: 0 };

/**
 * A failure or warning speaks for every run that has it; a pass or skip over several runs names
 * them and gives one run's words, so a clean report stays short.
 */
function messageOf(
  status: Judgement['status'],
  speaking: ReadonlyArray<{ scenario: string; j: Judgement }>,
  total: number,
): string {
  if (total === 1) return speaking[0]!.j.message;
  if (status === 'fail' || status === 'warn' || speaking.length === 1)
    return speaking.map(({ scenario, j }) => `${scenario}: ${j.message}`).join('; ');
  const names =
    speaking.length === total ? `all ${total} scenarios` : speaking.map(({ scenario }) => scenario).join(', ');
  const shown = speaking[0]!;
  return `${status === 'pass' ? 'passed' : 'skipped'} in ${names}; ${shown.scenario}: ${shown.j.message}`;
}

function fold(
  check: ClientCheck,
  judgements: ReadonlyArray<{ scenario: string; j: Judgement }>,
  durationMs: number,
): CheckResult {
  const worst = Math.max(...judgements.map(({ j }) => RANK[j.status]));
  const speaking = judgements.filter(({ j }) => RANK[j.status] === worst);
  const raw = speaking[0]!.j.status;
  const { id, title, spec, level } = check;
  const several = judgements.length > 1;
  return {
    id,
    title,
    spec,
    level,
    // A failed `should` is reported as a warn (contract).
    status: raw === 'fail' && level === 'should' ? 'warn' : (raw satisfies Status),
    message: messageOf(raw, speaking, judgements.length),
    duration_ms: durationMs,
    evidence: speaking.flatMap(({ scenario, j }) =>
      j.evidence.map((e) => (several ? { ...e, request: `[${scenario}] ${e.request}` } : e)),
    ),
  };
}

const NOTHING_TO_JUDGE: Judgement = {
  status: 'skip',
  message: 'the client made no request in any scenario: nothing to judge',
  evidence: [],
};

export function judgeClient(
  records: readonly ClientRunRecord[],
  checks: readonly ClientCheck[] = CLIENT_CHECKS,
): CheckResult[] {
  const durationMs = records.reduce((sum, r) => sum + r.process.durationMs, 0);
  return checks.map((check) => {
    const judgeable = records.filter((record) => check.judgesSilentRuns === true || !madeNoRequest(record));
    const judgements = judgeable.map((record) => ({ scenario: record.scenario, j: check.judge(record) }));
    return fold(check, judgements.length > 0 ? judgements : [{ scenario: '', j: NOTHING_TO_JUDGE }], durationMs);
  });
}

const union = (lists: string[][]): string[] => [...new Set(lists.flat())];

/** The report's account of one run: how it ended, what it sent, the first exchanges. */
export function clientRun(record: ClientRunRecord, description: string): ClientRun {
  const p = record.process;
  const tls = record.hellos.filter((h) => h.tls);
  return {
    scenario: record.scenario,
    description,
    exit_code: p.exitCode,
    signal: p.signal,
    stopped: p.stopped,
    still_working: workingAtStop(record),
    quiet_ms: quietAtStop(record),
    stall_after_ms: record.limits.stallAfterMs,
    duration_ms: p.durationMs,
    requests: record.requests.length,
    token_fetches: record.requests.filter((r) => r.path === '/tokens').length,
    business_calls: record.requests.filter((r) => r.path.startsWith('/v1/')).length,
    connections: record.hellos.length,
    tls_offered: { versions: union(tls.map((h) => h.versions)), suites: union(tls.map((h) => h.suites)) },
    exchanges: record.requests.slice(0, CLIENT_EXCHANGES_SHOWN).map((r) => ({
      t_ms: r.atMs,
      method: r.method,
      path: r.path,
      status: r.status,
      duration_ms: r.answeredMs - r.atMs,
      ...(r.headers.authorization !== undefined ? { authorization: r.headers.authorization } : {}),
      headers: r.headers,
      body: r.bodyShape,
      ...(r.retryAfter !== undefined ? { retry_after: r.retryAfter } : {}),
    })),
  };
}
