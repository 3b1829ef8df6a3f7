// This run against the stored runs of the same target: checks that changed status, facts that
// changed, figures outside the noise of the last N runs. Pure: records in, changes out (the policy
// decides what each change does to the run, policy.ts).

import type { Change, NoiseBand, NotCompared } from '../report/sections/since/model.js';
import type { Status } from '../report/model.js';
import { comparableValues } from './comparable.js';
import { formatFigure, ruleFor, type FigureRule } from './figures.js';
import { noiseBand, outside } from './noise.js';
import { observations, type FactValue, type HistoryRecord, type Observation } from './record.js';

/** A change before the policy: a regression, or a change for the better. */
export type Finding = Omit<Change, 'action'> & { regression: boolean };

/** The stored runs this run is compared with: same environment and base URL, oldest first. */
export function sameTarget(past: readonly HistoryRecord[], current: HistoryRecord): HistoryRecord[] {
  return past.filter(
    (r) => r.target.base_url === current.target.base_url && r.target.environment === current.target.environment,
  );
}

// How bad a status is: a change up is a regression, down an improvement; a skip judges nothing.
const SEVERITY: Record<Status, number | undefined> = { pass: 0, warn: 1, fail: 2, error: 2, skip: undefined };

/** What the comparison found, and the figures it could not judge. */
export interface Comparison {
  findings: Finding[];
  notCompared: NotCompared[];
}

/** `past` is this target's runs, oldest first; figures are judged from the last `runs` of them. */
export function compareRuns(current: HistoryRecord, past: readonly HistoryRecord[], runs: number): Finding[] {
  return comparison(current, past, runs).findings;
}

export function comparison(current: HistoryRecord, past: readonly HistoryRecord[], runs: number): Comparison {
  const statuses = statusChanges(current, past);
  // A fact that changed as its check recovered (token_type "bearer" → "Bearer" while
  // token.type-bearer went fail → pass) is the fix itself: with `fact: fail` it failed the run
  // that showed the service repaired.
  const recovered = new Set(statuses.filter((f) => !f.regression).map((f) => f.subject));
  const observed = observationChanges(current, past.slice(-runs));
  const findings = observed.findings.map((f) =>
    f.kind === 'fact' && recovered.has(f.subject) ? { ...f, regression: false } : f,
  );
  return { findings: [...statuses, ...findings], notCompared: observed.notCompared };
}

function statusChanges(current: HistoryRecord, past: readonly HistoryRecord[]): Finding[] {
  const out: Finding[] = [];
  for (const [id, { status }] of Object.entries(current.checks)) {
    const before = lastWith(past, (r) => {
      const s = r.checks[id]?.status;
      return s !== undefined && SEVERITY[s] !== undefined ? s : undefined;
    });
    const now = SEVERITY[status];
    if (before === undefined || now === undefined || SEVERITY[before] === now) continue;
    const regression = now > SEVERITY[before]!;
    out.push({
      kind: 'check',
      subject: id,
      name: 'status',
      before,
      after: status,
      regression,
      text: `${id}: ${before} → ${status}`,
    });
  }
  return out;
}

function observationChanges(current: HistoryRecord, window: readonly HistoryRecord[]): Comparison {
  const stored = window.map(observations);
  const now = observations(current);
  const out: Finding[] = [];
  const notCompared: NotCompared[] = [];
  for (const o of now) {
    const same = (p: Observation) => p.subject === o.subject && p.name === o.name;
    if (typeof o.value === 'string') {
      const before = lastWith(stored, (obs) => obs.find(same)?.value);
      if (before !== undefined && before !== o.value) out.push(factChange(o, before));
      continue;
    }
    const rule = ruleFor(o.name);
    if (rule.context) continue;
    const { values, side: bounded, basis, notCompared: unjudged } = comparableValues(o, now, stored);
    if (unjudged) notCompared.push(unjudged);
    const band = noiseBand(values, rule);
    const side = band && outside(o.value, band, bounded ?? rule.worse);
    if (band && side) out.push(figureChange(o, band, side, rule, basis));
  }
  return { findings: out, notCompared };
}

function factChange(o: Observation, before: FactValue): Finding {
  return {
    kind: 'fact',
    subject: o.subject,
    name: o.name,
    before,
    after: o.value,
    regression: true,
    text: `${o.subject}: ${o.name} ${String(before)} → ${String(o.value)}`,
  };
}

function figureChange(
  o: Observation,
  band: NoiseBand,
  side: 'up' | 'down',
  { kind, unit }: FigureRule,
  basis: string | undefined,
): Finding {
  const v = o.value as number;
  const fmt = (n: number) => formatFigure(n, unit);
  const ratio = band.median !== 0 ? ` (×${Number((v / band.median).toPrecision(2))})` : '';
  const text = `${o.subject}: ${o.name} ${fmt(v)}${ratio}, ${side === 'up' ? 'above' : 'below'} the band ${fmt(Math.max(0, band.low))}–${fmt(band.high)} of the last ${band.runs} runs${basis ? ` ${basis}` : ''}`;
  return { kind, subject: o.subject, name: o.name, before: band.median, after: v, band, regression: true, text };
}

/** The newest stored value the picker finds, or undefined. */
function lastWith<T, V>(items: readonly T[], pick: (item: T) => V | undefined): V | undefined {
  for (let i = items.length - 1; i >= 0; i--) {
    const v = pick(items[i]!);
    if (v !== undefined) return v;
  }
  return undefined;
}
