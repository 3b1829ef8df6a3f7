// Issue 21's goal for one bench/ratelimit.ts row, the one-line summary over all rows, and the
// filter that picks rows by word. Plain functions of the rows, so a fast test covers them
// (test/bench/ratelimit-goal.test.ts) without starting a limiter.

export interface Row {
  /** The row's group (nginx, haproxy, flexible, go, emulator, network, minute, advertised): a filter word. */
  group: string;
  limiter: string;
  setting: string;
  true_rps: number;
  estimated_rps: number | null;
  /** |estimated − true| / true, in percent. */
  rel_error_pct: number | null;
  /** The kind and setting read, or why not (the probe's own "not identified" words). */
  identified: string;
  requests_sent: number;
  refused_pct: number;
  /** The probe's seconds, and its cap (--max-duration). */
  seconds: number;
  cap_s: number;
  /** The whole stage's seconds: probe, recommendation, proof rounds and their waits. */
  stage_s: number;
  /** The rate the proven policy recommends; null when none was given. */
  recommended_rps: number | null;
  /** The last proof round's share of 429s, percent; null when no proof ran. */
  proof_429_pct: number | null;
  /** `holds (round N)`, `fails (round N)`, or `not run`. */
  proof: string;
  /** Why the row has no figures (a tool missing, the stage gave no report). */
  note?: string;
}

/** Issue 21: within 2 % of the true rate. */
export const MAX_ERROR_PCT = 2;

/**
 * Why a row misses the goal (within 2 %, no recommendation above the true rate, the proof
 * holding); empty when it meets it. A row with no estimate, no recommendation or no proof misses
 * it: what the run did not show is not counted as shown.
 */
export function goalMisses(r: Row): string[] {
  if (r.note !== undefined) return [r.note];
  const misses: string[] = [];
  if (r.rel_error_pct === null) misses.push('not identified');
  else if (r.rel_error_pct > MAX_ERROR_PCT) misses.push(`error ${r.rel_error_pct} % > ${MAX_ERROR_PCT} %`);
  if (r.recommended_rps === null) misses.push('no recommendation');
  else if (r.recommended_rps > r.true_rps) misses.push(`recommended ${r.recommended_rps} > true ${r.true_rps} r/s`);
  if (!r.proof.startsWith('holds')) misses.push(`proof ${r.proof}`);
  return misses;
}

export const goalCell = (r: Row): string => {
  const misses = goalMisses(r);
  return misses.length === 0 ? 'met' : `missed: ${misses.join('; ')}`;
};

export function goalSummary(rows: readonly Row[]): string {
  const met = rows.filter((r) => goalMisses(r).length === 0).length;
  return `${met} of ${rows.length} rows within ${MAX_ERROR_PCT} %, recommendation ≤ true, proof holding`;
}

/** What a row is found by: its group, limiter and setting. */
export interface Named {
  group: string;
  limiter: string;
  setting: string;
}

/** The rows naming every word (case-insensitive, in the group, limiter or setting); all without words. */
export function selectRows<T extends Named>(rows: readonly T[], words: readonly string[]): T[] {
  const wanted = words.map((w) => w.toLowerCase());
  return rows.filter((r) => {
    const name = `${r.group} ${r.limiter} ${r.setting}`.toLowerCase();
    return wanted.every((w) => name.includes(w));
  });
}

/** The row's folder name under reports/bench/ratelimit/: its limiter and setting, lower case, dashed. */
export const rowSlug = (r: Named): string =>
  `${r.limiter} ${r.setting}`
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
