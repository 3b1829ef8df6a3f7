// Assembles the Report from the stages' results. Pure: the caller supplies times and version.

import { REPORT_SCHEMA, summarize, verdictOf, type CheckResult, type LoadResult, type RateLimitResult, type Report } from './model.js';

export interface ReportParts {
  version: string;
  target: Report['target'];
  startedAt: Date;
  finishedAt: Date;
  checks: CheckResult[];
  load?: LoadResult | null;
  rateLimit?: RateLimitResult | null;
}

export function buildReport(parts: ReportParts): Report {
  const load = parts.load ?? null;
  return {
    schema: REPORT_SCHEMA,
    tool: { name: 'ces-harness', version: parts.version },
    target: parts.target,
    started_at: isoSeconds(parts.startedAt),
    finished_at: isoSeconds(parts.finishedAt),
    verdict: verdictOf(parts.checks, load),
    summary: summarize(parts.checks),
    checks: parts.checks,
    load,
    rate_limit: parts.rateLimit ?? null,
  };
}

const isoSeconds = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');
