// Turning model values into the words and figures every renderer shows. Locale-free on purpose:
// a report must read the same on a CI runner as on a laptop, and stay byte-for-byte deterministic.

import type { Evidence, LoadScenarioResult, Report, Status } from '../model.js';

export const STATUS_ICON: Record<Status, string> = {
  pass: '✅',
  fail: '❌',
  warn: '⚠️',
  skip: '⏭️',
  error: '💥',
};

/** Shown wherever a number is missing or not finite, so NaN never reaches a reader. */
export const NO_VALUE = '–';

export function formatNumber(n: number, digits = 0): string {
  if (typeof n !== 'number' || !Number.isFinite(n)) return NO_VALUE;
  const [whole = '', fraction] = n.toFixed(digits).split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return fraction === undefined ? grouped : `${grouped}.${fraction}`;
}

/** A free-form figure of a scenario: whole numbers as counts, others to two decimals, text as it is. */
export const formatFigure = (v: number | string): string =>
  typeof v === 'number' ? formatNumber(v, Number.isInteger(v) ? 0 : 2) : v;

/** Sub-millisecond and small latencies keep their decimals; large ones would only gain noise. */
export function formatMs(ms: number): string {
  if (typeof ms !== 'number' || !Number.isFinite(ms)) return NO_VALUE;
  const digits = Number.isInteger(ms) ? 0 : Math.abs(ms) < 1 ? 2 : Math.abs(ms) < 100 ? 1 : 0;
  return `${formatNumber(ms, digits)} ms`;
}

export function formatRate(perSecond: number): string {
  return typeof perSecond === 'number' && Number.isFinite(perSecond) ? `${formatNumber(perSecond, 1)}/s` : NO_VALUE;
}

/** `fraction` is 0..1, as k6 reports rates. */
export function formatPercent(fraction: number): string {
  return typeof fraction === 'number' && Number.isFinite(fraction) ? `${formatNumber(fraction * 100, 2)}%` : NO_VALUE;
}

export function formatSeconds(seconds: number): string {
  if (typeof seconds !== 'number' || !Number.isFinite(seconds)) return NO_VALUE;
  if (seconds < 60) return `${formatNumber(seconds, seconds < 10 && !Number.isInteger(seconds) ? 1 : 0)} s`;
  const whole = Math.round(seconds);
  return `${Math.floor(whole / 60)} min ${String(whole % 60).padStart(2, '0')} s`;
}

/** Seconds, in milliseconds below one second: a limit's recovery of 0.038 s reads as 38 ms, not "0.0 s". */
export function formatDuration(seconds: number): string {
  return typeof seconds === 'number' && Number.isFinite(seconds) && Math.abs(seconds) < 1
    ? formatMs(Math.round(seconds * 1000))
    : formatSeconds(seconds);
}

/** Wall time of the run from its own timestamps (never the clock), or null when they do not parse. */
export function runSeconds(report: Pick<Report, 'started_at' | 'finished_at'>): number | null {
  const ms = Date.parse(report.finished_at) - Date.parse(report.started_at);
  return Number.isFinite(ms) && ms >= 0 ? ms / 1000 : null;
}

export function evidenceLine(e: Evidence): string {
  const status = e.status === undefined ? '' : ` → ${e.status}`;
  const note = e.note ? ` — ${e.note}` : '';
  return `${e.request}${status}${note}`;
}

export interface TextSegment {
  code: boolean;
  text: string;
}

/**
 * Check messages quote bodies in backticks (style.md: "returned 403 `{"message":…}`"). Paired
 * backticks become code segments; an unpaired one stays literal text rather than swallowing the rest.
 */
export function splitCode(text: string): TextSegment[] {
  const pieces = text.split('`');
  if (pieces.length % 2 === 0) return [{ code: false, text }];
  return pieces.map((piece, i) => ({ code: i % 2 === 1, text: piece })).filter((s) => s.text !== '');
}

export function thresholdText(t: { metric: string; expression: string }): string {
  return `${t.metric} ${t.expression}`;
}

/**
 * A scenario's figures as the load tables show them (report.md and report.html), in their column
 * order: requests, rate, p50, p95, p99, max, errors, checks, dropped iterations.
 */
export function scenarioCells(s: LoadScenarioResult): string[] {
  const l = s.latency_ms;
  return [
    formatNumber(s.requests),
    formatRate(s.rate_per_s),
    formatMs(l.p50),
    formatMs(l.p95),
    formatMs(l.p99),
    formatMs(l.max),
    formatPercent(s.error_rate),
    `${formatNumber(s.checks.passed)} passed, ${formatNumber(s.checks.failed)} failed`,
    formatNumber(s.dropped_iterations),
  ];
}

/** One line per scenario for places without a table (JUnit system-out). */
export function scenarioLine(s: LoadScenarioResult): string {
  if (s.error) return `${s.scenario}: did not run: ${s.error}`;
  const l = s.latency_ms;
  return (
    `${s.scenario}: ${formatNumber(s.requests)} requests at ${formatRate(s.rate_per_s)}, ` +
    `p50 ${formatMs(l.p50)}, p95 ${formatMs(l.p95)}, p99 ${formatMs(l.p99)}, max ${formatMs(l.max)}, ` +
    `errors ${formatPercent(s.error_rate)}, checks ${formatNumber(s.checks.passed)} passed / ${formatNumber(s.checks.failed)} failed, ` +
    `${formatNumber(s.dropped_iterations)} dropped iterations`
  );
}
