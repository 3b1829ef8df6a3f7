// Assembles the Report from the stages' results. Pure: the caller supplies times and version.

import { printableDeep } from './common/printable.js';
import {
  REPORT_SCHEMA,
  summarize,
  verdictReasonsOf,
  type CheckResult,
  type LoadResult,
  type RateLimitResult,
  type Report,
  type Untested,
} from './model.js';

export interface ReportParts {
  version: string;
  target: Report['target'];
  startedAt: Date;
  finishedAt: Date;
  checks: CheckResult[];
  load?: LoadResult | null;
  rateLimit?: RateLimitResult | null;
  client?: Report['client'];
  /** Stages that could not test what they were asked to; see `untestedOf` for the ones derived here. */
  untested?: Untested[];
  /** Checks --only/--skip left out, said in every format as outside the verdict. */
  checksLeftOut?: Report['checks_left_out'];
  /** Said in every format, changing no verdict (e.g. a secret written in the config file). */
  notes?: string[];
  /** What the run sent to production (target-job.ts), when an environment of the run is production. */
  production?: Report['production'];
}

/**
 * What the parts themselves show was not tested, besides what the stages reported: a run whose
 * selection left no check, or whose checks all skipped, has tested nothing.
 */
export function untestedOf(parts: ReportParts): Untested[] {
  const out = [...(parts.untested ?? [])];
  const ranChecks = parts.checks.length > 0;
  const ranOther = parts.load != null || parts.rateLimit != null;
  if (!ranChecks && !ranOther && out.length === 0)
    out.push({ stage: 'checks', reason: 'no check ran: the selection (--only/--skip) left nothing to test' });
  else if (ranChecks && parts.checks.every((c) => c.status === 'skip'))
    out.push({
      stage: 'checks',
      reason: `all ${parts.checks.length} selected checks were skipped, so nothing was tested`,
    });
  return out;
}

/**
 * The report model, every string in it printable: this is where text from the service (quoted
 * bodies, k6's output, error strings) enters the model, so no renderer and no reader of
 * report.json ever meets a raw ESC or NUL. Line breaks and tabs stay; the renderers show them.
 */
export function buildReport(parts: ReportParts): Report {
  const load = parts.load ?? null;
  const untested = untestedOf(parts);
  const reasons = verdictReasonsOf(parts.checks, load, untested);
  return printableDeep<Report>(
    {
      schema: REPORT_SCHEMA,
      tool: { name: 'ces-harness', version: parts.version },
      target: parts.target,
      started_at: isoSeconds(parts.startedAt),
      finished_at: isoSeconds(parts.finishedAt),
      verdict: reasons.length ? 'fail' : 'pass',
      verdict_reasons: reasons,
      summary: summarize(parts.checks),
      checks: parts.checks,
      load,
      rate_limit: parts.rateLimit ?? null,
      ...(parts.client ? { client: parts.client } : {}),
      untested,
      ...(parts.checksLeftOut?.ids.length ? { checks_left_out: parts.checksLeftOut } : {}),
      ...(parts.notes?.length ? { notes: parts.notes } : {}),
      ...(parts.production ? { production: parts.production } : {}),
    },
    { multiline: true },
  );
}

const isoSeconds = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');
