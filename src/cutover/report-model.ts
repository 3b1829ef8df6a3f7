// The cutover report: both environments' facts side by side, the readiness verdict, each
// environment's check statuses and the audit of what was sent to production. Plain data; the
// renderers next to this file turn it into report.json, report.md, report.html and junit.xml.

import type { EnvironmentFacts } from './facts.js';
import type { CutoverVerdict } from './verdict.js';
import type { ProductionAudit, Status } from '../report/model.js';

export const CUTOVER_SCHEMA = 'ces-harness/cutover/v1';

export interface CutoverReport {
  schema: typeof CUTOVER_SCHEMA;
  tool: { name: 'ces-harness'; version: string };
  started_at: string;
  finished_at: string;
  cutover: CutoverVerdict & {
    window_days: number;
    /** Where sandbox's facts come from: this run's own check pass. */
    sandbox_source: string;
    facts: { production: EnvironmentFacts; sandbox: EnvironmentFacts };
  };
  /** Each pass's checks, by environment name, and what stopped a pass from testing everything. */
  environments: Record<
    string,
    { base_url: string; checks: Array<{ id: string; status: Status; message: string }>; untested: string[] }
  >;
  production?: ProductionAudit;
}
