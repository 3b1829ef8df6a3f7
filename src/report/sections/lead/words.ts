// What a report leads with after its verdict: everything that made the run fail, one line each,
// saying what failed, why, and what to do. Pure selection and wording; report.md and report.html
// render the same items (md.ts, html.ts beside this file), so the two can never disagree.

import { formatMs, formatPercent, thresholdText } from '../../common/format.js';
import {
  specLabel,
  type CheckResult,
  type LoadScenarioResult,
  type Report,
  type ThresholdResult,
  type Untested,
} from '../../model.js';
import { brokenMusts } from '../../common/select.js';
import type { Change } from '../since/model.js';

export interface LeadItem {
  /** What failed, e.g. `token.bad-secret-401: A wrong client_secret gets 401 unauthorized`. */
  what: string;
  /** Why: what came back, or what stopped the test. May quote bodies in backticks. */
  why: string;
  /** What to do about it, as one instruction. */
  todo: string;
  /** The id of the check, when the item is one, so a page can link to its row. */
  checkId?: string;
}

const firstLine = (text: string): string => text.split('\n')[0] ?? text;

function checkItem(c: CheckResult): LeadItem {
  const what = `${c.id}: ${c.title}`;
  if (c.status === 'error') {
    return {
      what,
      why: firstLine(c.message),
      todo: `the check could not finish: fix what stopped it, then rerun it alone with --only ${c.id}`,
      checkId: c.id,
    };
  }
  return {
    what,
    why: firstLine(c.message),
    todo: `fix the service so that ${lowerFirst(c.title)} (${specLabel(c.spec)})`,
    checkId: c.id,
  };
}

// "A wrong secret…" reads on as "…so that a wrong secret…"; "TLS 1.3…" and "POST /tokens…" stay as they are.
const lowerFirst = (s: string): string => (/^[A-Z][a-z]*(?=\s|$)/.test(s) ? s[0]!.toLowerCase() + s.slice(1) : s);

// The rerun command of each stage, for the stages that can fail to test on their own.
const STAGE_COMMAND: Record<string, string> = {
  checks: 'ces-harness check',
  load: 'ces-harness load',
  rate_limit: 'ces-harness ratelimit',
};

function untestedItem(u: Untested): LeadItem {
  // The reason already says which variables to check; the lead adds the other possibility's step.
  if (u.stage === 'credentials')
    return {
      what: 'the configured credentials were refused',
      why: u.reason,
      todo: "if the credentials are right for this environment, ask the service's owners why POST /tokens refuses them",
    };
  const rerun = STAGE_COMMAND[u.stage];
  // A refusal of the credentials is the commonest cause and has one fix, whatever the stage.
  const credentials = /\b401\b|credential/i.test(u.reason);
  const todo = credentials
    ? 'check the client_id and client_secret configured for this environment, then rerun'
    : `fix what stopped it, then rerun${rerun ? ` ${rerun}` : ''}`;
  return { what: `${u.stage.replace(/_/g, ' ')} was not tested`, why: u.reason, todo };
}

/** The measured value a threshold was judged on, where the scenario's figures hold it. */
export function measuredValue(s: LoadScenarioResult, t: ThresholdResult): string | null {
  const percentile = /^p\((95|99|50)\)/.exec(t.expression)?.[1];
  if (t.metric === 'http_req_duration' && percentile)
    return `p${percentile} was ${formatMs(s.latency_ms[`p${percentile}` as 'p50' | 'p95' | 'p99'])}`;
  if (t.metric === 'http_req_failed') return `${formatPercent(s.error_rate)} of requests failed`;
  if (t.metric === 'checks') {
    const all = s.checks.passed + s.checks.failed;
    return all === 0 ? null : `${s.checks.failed} of ${all} k6 checks failed`;
  }
  const figure = s.extra?.[t.metric];
  return typeof figure === 'number' ? `${t.metric} was ${figure}` : null;
}

function scenarioItems(s: LoadScenarioResult): LeadItem[] {
  if (s.error !== undefined) {
    return [
      {
        what: `load scenario ${s.scenario} did not complete`,
        why: firstLine(s.error),
        todo: `see k6's output in the terminal, fix the cause and rerun ces-harness load --scenario ${s.scenario}`,
      },
    ];
  }
  return s.thresholds
    .filter((t) => !t.ok)
    .map((t) => ({
      what: `load scenario ${s.scenario}: threshold ${thresholdText(t)} crossed`,
      why: measuredValue(s, t) ?? 'k6 judged the threshold crossed',
      todo: 'find the cause in the load findings below; loosen the threshold (load.thresholds) only as far as the service level allows',
    }));
}

// A change the `regressions:` policy fails fails the run (the verdict says so): said here too.
const regressionItem = (c: Change): LeadItem => ({
  what: `since the last run: ${c.text}`,
  why: `regressions: ${c.kind}: fail fails the run on such a change`,
  todo: `find why it changed (see Since the last run); regressions: ${c.kind}: warn reports it without failing the run`,
});

/** Everything that turned the verdict to fail, in the order the verdict's rule names them. */
export function leadItems(report: Report): LeadItem[] {
  // Refused credentials come first: until they are fixed, nothing below them says much.
  const untested = report.untested ?? [];
  const items = [
    ...untested.filter((u) => u.stage === 'credentials').map(untestedItem),
    ...brokenMusts(report.checks).map(checkItem),
    ...(report.load?.scenarios ?? []).flatMap(scenarioItems),
    ...untested.filter((u) => u.stage !== 'credentials').map(untestedItem),
    ...(report.since_last_run?.changes ?? []).filter((c) => c.action === 'fail').map(regressionItem),
  ];
  // k6 can fail a run no scenario explains (the exit code says fail); the lead must still say so.
  if (report.load && !report.load.ok && !items.some((i) => i.what.startsWith('load scenario'))) {
    items.push({
      what: 'the load run failed',
      why: 'k6 reported the run as failed without naming a threshold',
      todo: "see k6's output in the terminal and rerun ces-harness load",
    });
  }
  return items;
}
