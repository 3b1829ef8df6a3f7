// The words of the "Since the last run" section, shared by report.md, report.html and junit.xml so
// the three say the same thing.

import type { Change, SinceLastRun } from './model.js';

export const SINCE_TITLE = 'Since the last run';

export const KIND_LABEL: Record<Change['kind'], string> = {
  check: 'check status',
  fact: 'fact changed',
  latency: 'latency',
  rate_limit: 'rate limit',
};

export const ACTION_LABEL: Record<Change['action'], string> = { fail: '❌ fail', warn: '⚠️ warn', info: '✅ better' };

/** The one sentence that leads the section. */
export function sinceHeadline(since: SinceLastRun): string {
  if (since.history === 'none')
    return 'No history yet: this is the first stored run of this target, so there is nothing to compare.';
  const last = since.last_run ? ` (last run ${since.last_run.started_at}, ${since.last_run.verdict})` : '';
  const regressions = since.changes.filter((c) => c.action !== 'info').length;
  const judged = `judged against ${since.runs_compared} stored run${since.runs_compared === 1 ? '' : 's'}${last}`;
  // A figure left unjudged is no "nothing changed": the sentence says what it does not cover.
  const unjudged = since.not_compared?.length ?? 0;
  const scope = unjudged ? `; ${unjudged} figure${unjudged === 1 ? '' : 's'} not compared` : '';
  if (since.changes.length === 0)
    return `Nothing changed${unjudged ? ' in what was compared' : ''}, ${judged}${scope}.`;
  const verdict = since.outcome === 'fail' ? '; the regressions: policy fails this run' : '';
  return `${regressions} regression${regressions === 1 ? '' : 's'} and ${since.changes.length - regressions} change${since.changes.length - regressions === 1 ? '' : 's'} for the better, ${judged}${scope}${verdict}.`;
}

/** One line per figure the history could not judge (history/comparable.ts says why in each). */
export const notComparedLines = (since: SinceLastRun): string[] =>
  (since.not_compared ?? []).map((n) => `not compared: ${n.text}`);
