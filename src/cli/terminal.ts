// What the terminal shows: a line per check as it finishes, progress while waiting, and a closing
// summary. Colour on a TTY or with FORCE_COLOR, never with NO_COLOR or --no-color (color.ts). Every line is redacted,
// and its text made printable: the only escape codes that reach the terminal are the ones painted
// here, never one a service put in a body that a message quotes.

import type { Redactor } from '../http/redact.js';
import {
  specLabel,
  verdictWord,
  type CheckResult,
  type LoadScenarioResult,
  type Report,
  type Status,
} from '../report/model.js';
import { printable } from '../report/common/printable.js';
import { reportTransport } from '../report/sections/transport/words.js';
import { closingSustainedText, scopeClause } from '../report/sections/rate-limit/words.js';
import { loadSpanText } from '../report/sections/load/words.js';
import { leftOutText, skippedText } from '../report/sections/scope/words.js';
import { closingCount } from './closing-count.js';
import { colorWanted } from './color.js';
import type { CliIo } from './io.js';
import type { Line, Span, StageLines } from '../stages/run-io.js';

export type { Line, Span } from '../stages/run-io.js';

export interface Terminal extends StageLines {
  color: boolean;
}

export function createTerminal(
  redactor: Redactor,
  io: Pick<CliIo, 'stdout' | 'stderr' | 'env'>,
  options: { noColor?: boolean } = {},
): Terminal {
  const { stdout, stderr } = io;
  const tty = stdout.isTTY === true;
  const color = colorWanted({ noColorFlag: options.noColor === true, isTTY: tty, env: io.env });
  const show = (line: Line) => renderLine(line, redactor, color);
  let progressShown = false;
  const clearProgress = () => {
    if (progressShown) stderr.write('\r\x1b[2K');
    progressShown = false;
  };
  return {
    color,
    out: (line) => {
      clearProgress();
      stdout.write(show(line) + '\n');
    },
    err: (line) => {
      clearProgress();
      stderr.write(show(line) + '\n');
    },
    progress: (line) => {
      if (stderr.isTTY) {
        stderr.write(`\r\x1b[2K${show([{ text: line, sgr: 2 }])}`);
        progressShown = true;
      } else stderr.write(`… ${show(line)}\n`);
    },
  };
}

/** `line` as printable text without colour, as a test or a log would keep it. */
export const plainText = (line: Line): string => renderLine(line, { text: (t) => t }, false);

/** The characters written for `line`: each span redacted, made printable, then painted. */
export function renderLine(line: Line, redactor: Pick<Redactor, 'text'>, color: boolean): string {
  const spans = typeof line === 'string' ? [line] : line;
  return spans
    .map((span) => {
      const text = printable(redactor.text(typeof span === 'string' ? span : span.text));
      return typeof span === 'string' || !color ? text : `\x1b[${span.sgr}m${text}\x1b[0m`;
    })
    .join('');
}

const SYMBOL: Record<Status, string> = { pass: '✓', fail: '✗', warn: '!', skip: '-', error: 'E' };
const COLOUR: Record<Status, number> = { pass: 32, fail: 31, warn: 33, skip: 90, error: 35 };

const DIM = 2;

export function resultLine(r: CheckResult): Span[] {
  return [
    { text: `${SYMBOL[r.status]} ${r.status.padEnd(5)}`, sgr: COLOUR[r.status] },
    ` ${r.id.padEnd(36)} `,
    { text: specLabel(r.spec).padEnd(12), sgr: DIM },
    // The message as its own span: the very string runCheck redacted, which the redactor remembers.
    ' ',
    r.message,
  ];
}

export function summaryLines(report: Report, folder: string): Line[] {
  const word = verdictWord(report);
  // Yellow for NOT TESTED: no failure of the service was found, yet the run is no pass (exit 1).
  const verdict = { text: word, sgr: word === 'PASS' ? 32 : word === 'FAIL' ? 31 : 33 };
  const lines: Line[] = [
    '',
    [
      verdict,
      `  ${report.target.environment} ${report.target.base_url}${report.target.emulated ? ' (built-in emulator)' : ''}`,
    ],
    closingCount(report),
    ...(report.checks_left_out ? [leftOutText(report.checks_left_out)] : []),
    ...[skippedText(report.checks)].flatMap((t) => (t ? [t] : [])),
    ...[reportTransport(report)].flatMap((t) => (t ? [`transport: ${t}`] : [])),
    ...(report.untested ?? []).map((u): Line => [{ text: 'not tested', sgr: 31 }, ` (${u.stage}): ${u.reason}`]),
  ];
  // Said apart from the not-tested lines: the changes themselves are listed above the summary.
  const failing = report.verdict_reasons.filter((r) => r.kind === 'regression').length;
  if (failing)
    lines.push([
      { text: 'exit 1', sgr: 31 },
      `: ${failing} change${failing === 1 ? '' : 's'} since the last run that the regressions: policy fails (see above)`,
    ]);
  if (report.load) {
    // A scenario only the service's rate limit refused is said under `not tested` above, not as failed.
    const limitedOut = (sc: LoadScenarioResult) => sc.not_tested !== undefined;
    const broken = report.load.scenarios
      .filter((sc) => !limitedOut(sc))
      .flatMap((sc) => [
        ...(sc.error ? [`${sc.scenario}: ${sc.error}`] : []),
        ...sc.thresholds.filter((t) => !t.ok).map((t) => `${sc.scenario}: ${t.metric} ${t.expression}`),
      ]);
    const untestedLoad = report.load.scenarios.filter(limitedOut).map((sc) => sc.scenario);
    const rest = untestedLoad.length
      ? `${untestedLoad.join(', ')} not tested (the rate limit), the rest met their thresholds`
      : 'all thresholds met';
    const span = loadSpanText(report.load);
    lines.push(
      `load: ${report.load.scenarios.length} scenario(s)${span === null ? '' : ` of ${span}`}, ${broken.length ? `failed: ${broken.join('; ')}` : rest}`,
    );
  }
  if (report.rate_limit?.recommendation) {
    const r = report.rate_limit.recommendation;
    // A recommendation the proof could not reach past the burst is said to be unproven here too.
    const unproven =
      report.rate_limit.proof_verdict === 'not proven within horizon' ? ' (not proven within the horizon)' : '';
    lines.push(
      `rate limit: ${closingSustainedText(report.rate_limit)}; recommend ${r.target_rps} req/s${unproven}, backoff ${r.backoff.base_ms}–${r.backoff.cap_ms} ms ${r.backoff.jitter} jitter, ${r.backoff.max_retries} retries${scopeClause(report.rate_limit)}`,
    );
  }
  lines.push(`report: ${folder}`);
  return lines;
}
