// One run, as the history keeps it: what a later run compares, nothing else. Built from the
// report (so it holds only what the report already redacted), and never a message, an evidence
// line, a secret or a token: statuses, the checks' facts, and figures.

import type { Report, Status, SustainedAnnounced } from '../report/model.js';
import type { RegressionKind } from '../report/sections/since/model.js';
import { ruleFor } from './figures.js';

export const HISTORY_SCHEMA = 'ces-harness/history@1';
/** Any version of the history format: a line of another version is a newer harness's, not corruption. */
export const HISTORY_SCHEMA_PREFIX = 'ces-harness/history@';
/** The record's file in the report folder when the history file could not take it (step.ts). */
export const UNSAVED_RECORD_FILE = 'history-record.jsonl';

export type FactValue = string | number;

export interface HistoryRecord {
  schema: typeof HISTORY_SCHEMA;
  started_at: string;
  tool_version: string;
  k6_version?: string;
  target: { environment: string; base_url: string };
  verdict: string;
  checks: Record<string, { status: Status; facts?: Record<string, FactValue> }>;
  /** Per k6 scenario: its percentiles, error rate and rate. */
  load?: Record<string, Record<string, number>>;
  /** The rate-limit command's figures and facts. */
  rate_limit?: Record<string, FactValue>;
}

export function toRecord(report: Report): HistoryRecord {
  const checks: HistoryRecord['checks'] = {};
  for (const c of report.checks)
    checks[c.id] = { status: c.status, ...(c.facts && Object.keys(c.facts).length ? { facts: c.facts } : {}) };
  const load = report.load?.scenarios.filter((s) => s.error === undefined);
  const rl = report.rate_limit;
  return {
    schema: HISTORY_SCHEMA,
    started_at: report.started_at,
    tool_version: report.tool.version,
    ...(report.load ? { k6_version: report.load.k6_version } : {}),
    target: { environment: report.target.environment, base_url: report.target.base_url },
    verdict: report.verdict,
    checks,
    ...(load?.length
      ? {
          load: Object.fromEntries(
            load.map((s) => [
              s.scenario,
              {
                p50_ms: s.latency_ms.p50,
                p95_ms: s.latency_ms.p95,
                p99_ms: s.latency_ms.p99,
                error_rate: s.error_rate,
                rate_per_s: s.rate_per_s,
              },
            ]),
          ),
        }
      : {}),
    ...(rl && !rl.partial
      ? {
          rate_limit: withoutNulls({
            // Measured only: when an announced limit the probe did not prove sets the headline
            // (sustained_announced), its rate is the service's word, not a figure of this run, and
            // is kept as that fact instead. A run that proves it next is then no change of rate.
            sustained_rps: rl.sustained_announced || rl.sustained_held ? null : rl.sustained_rps,
            sustained_announced: rl.sustained_announced ? announcedFact(rl.sustained_announced) : null,
            // The highest rate paced k6 rounds held (no kind explained the evidence): a floor found
            // by bisection, up to half the limit (refuted.ts HELD_BRACKET_RATIO), so compared only
            // with runs whose rate was held too, and so is the rate recommended below it. Beside
            // measured runs, a held 26 req/s against a measured 50 would read as a limit halved on
            // a service that changed nothing.
            // An announced limit binding below the hold heads the report instead (the fact above);
            // the recommendation is still sized below the hold, so it is recorded as held.
            sustained_held_rps: rl.sustained_held && !rl.sustained_announced ? rl.sustained_rps : null,
            // The client rate recommended (the one a proof held, when a proof ran): cutover sets
            // production's limit against it (sandbox-history.ts reads either).
            [rl.sustained_held ? 'target_held_rps' : 'target_rps']: rl.recommendation?.target_rps ?? null,
            burst: rl.burst,
            recovery_s: rl.recovery_s,
            scope: rl.scope,
            retry_after: rl.retry_after_header,
            limiting_status:
              rl.limiting_status === undefined || rl.limiting_status === null ? null : String(rl.limiting_status),
          }),
        }
      : {}),
  };
}

/** The announced limit that set the headline, as a fact: its quota and window, and what the probe made of it. */
const announcedFact = (a: SustainedAnnounced): string =>
  `${a.limit} per ${a.window_s} s (${a.source_header}), ${a.agrees === false ? 'disagreeing' : 'announced, not proven'}`;

/** One comparable value of a record: a fact (string) or a figure (number), where it belongs. */
export interface Observation {
  kind: RegressionKind;
  subject: string;
  name: string;
  value: FactValue;
}

/** Every fact and figure of a record, flat; check statuses are compared on their own. */
export function observations(record: HistoryRecord): Observation[] {
  const out: Observation[] = [];
  const add = (subject: string, name: string, value: FactValue) =>
    out.push({ kind: typeof value === 'number' ? ruleFor(name).kind : 'fact', subject, name, value });
  for (const [id, c] of Object.entries(record.checks))
    for (const [name, value] of Object.entries(c.facts ?? {})) add(id, name, value);
  for (const [scenario, figures] of Object.entries(record.load ?? {}))
    for (const [name, value] of Object.entries(figures)) add(`k6 ${scenario}`, name, value);
  for (const [name, value] of Object.entries(record.rate_limit ?? {})) add('rate limit', name, value);
  // The versions are facts of the run: a new harness or k6 can move every figure.
  add('run', 'ces-harness version', record.tool_version);
  if (record.k6_version) add('run', 'k6 version', record.k6_version);
  return out.filter((o) => typeof o.value === 'string' || Number.isFinite(o.value));
}

// `unknown` (a scope or Retry-After the probe could not tell) is no fact: a run that could tell is not a change.
const withoutNulls = (o: Record<string, FactValue | null>): Record<string, FactValue> =>
  Object.fromEntries(Object.entries(o).filter((e): e is [string, FactValue] => e[1] !== null && e[1] !== 'unknown'));

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);
const isValue = (x: unknown): x is FactValue => typeof x === 'string' || (typeof x === 'number' && Number.isFinite(x));
const allOf = (o: unknown, test: (v: unknown) => boolean): boolean => isObject(o) && Object.values(o).every(test);

/**
 * A line of the file that is one of ours, down to every value the comparison reads: a file is
 * anyone's to edit, and a record that passed here must never make the comparison throw.
 */
export function isRecord(x: unknown): x is HistoryRecord {
  if (!isObject(x) || x['schema'] !== HISTORY_SCHEMA) return false;
  const target = x['target'];
  return (
    typeof x['started_at'] === 'string' &&
    typeof x['verdict'] === 'string' &&
    typeof x['tool_version'] === 'string' &&
    (x['k6_version'] === undefined || typeof x['k6_version'] === 'string') &&
    isObject(target) &&
    typeof target['base_url'] === 'string' &&
    typeof target['environment'] === 'string' &&
    allOf(
      x['checks'],
      (c) => isObject(c) && typeof c['status'] === 'string' && (c['facts'] === undefined || allOf(c['facts'], isValue)),
    ) &&
    (x['load'] === undefined || allOf(x['load'], (s) => allOf(s, (v) => typeof v === 'number'))) &&
    (x['rate_limit'] === undefined || allOf(x['rate_limit'], isValue))
  );
}
