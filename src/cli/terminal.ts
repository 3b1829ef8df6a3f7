// What the terminal shows: a line per check as it finishes, progress while waiting, and a closing
// summary. Colour only on a TTY (and never with NO_COLOR or --no-color). Every line is redacted.

import type { Redactor } from '../http/redact.js';
import { specLabel, type CheckResult, type Report, type Status } from '../report/model.js';

export interface Terminal {
  color: boolean;
  out(line: string): void;
  err(line: string): void;
  progress(line: string): void;
}

export function createTerminal(redactor: Redactor, options: { noColor?: boolean } = {}): Terminal {
  const tty = process.stdout.isTTY === true;
  const color = tty && !options.noColor && !process.env['NO_COLOR'] && process.env['TERM'] !== 'dumb';
  let progressShown = false;
  const clearProgress = () => {
    if (progressShown) process.stderr.write('\r\x1b[2K');
    progressShown = false;
  };
  return {
    color,
    out: (line) => {
      clearProgress();
      process.stdout.write(redactor.text(line) + '\n');
    },
    err: (line) => {
      clearProgress();
      process.stderr.write(redactor.text(line) + '\n');
    },
    progress: (line) => {
      if (process.stderr.isTTY) {
        process.stderr.write(`\r\x1b[2K${dim(redactor.text(line), color)}`);
        progressShown = true;
      } else process.stderr.write(`… ${redactor.text(line)}\n`);
    },
  };
}

const SYMBOL: Record<Status, string> = { pass: '✓', fail: '✗', warn: '!', skip: '-', error: 'E' };
const COLOUR: Record<Status, number> = { pass: 32, fail: 31, warn: 33, skip: 90, error: 35 };

const paint = (text: string, code: number, on: boolean) => (on ? `\x1b[${code}m${text}\x1b[0m` : text);
const dim = (text: string, on: boolean) => paint(text, 2, on);

export function resultLine(r: CheckResult, color: boolean): string {
  const mark = paint(`${SYMBOL[r.status]} ${r.status.padEnd(5)}`, COLOUR[r.status], color);
  return `${mark} ${r.id.padEnd(36)} ${dim(specLabel(r.spec).padEnd(12), color)} ${r.message}`;
}

export function summaryLines(report: Report, folder: string, color: boolean): string[] {
  const s = report.summary;
  const verdict = report.verdict === 'pass' ? paint('PASS', 32, color) : paint('FAIL', 31, color);
  const lines = [
    '',
    `${verdict}  ${report.target.environment} ${report.target.base_url}${report.target.emulated ? ' (built-in emulator)' : ''}`,
    `${s.passed} passed, ${s.failed} failed, ${s.warned} warned, ${s.skipped} skipped, ${s.errored} errored`,
    ...(report.untested ?? []).map((u) => `${paint('not tested', 31, color)} (${u.stage}): ${u.reason}`),
  ];
  if (report.load) {
    const broken = report.load.scenarios.flatMap((sc) => [
      ...(sc.error ? [`${sc.scenario}: ${sc.error}`] : []),
      ...sc.thresholds.filter((t) => !t.ok).map((t) => `${sc.scenario}: ${t.metric} ${t.expression}`),
    ]);
    lines.push(`load: ${report.load.scenarios.length} scenario(s), ${broken.length ? `failed: ${broken.join('; ')}` : 'all thresholds met'}`);
  }
  if (report.rate_limit?.recommendation) {
    const r = report.rate_limit.recommendation;
    lines.push(`rate limit: ~${report.rate_limit.sustained_rps ?? '?'} req/s sustained; recommend ${r.target_rps} req/s, backoff ${r.backoff.base_ms}–${r.backoff.cap_ms} ms ${r.backoff.jitter} jitter, ${r.backoff.max_retries} retries`);
  }
  lines.push(`report: ${folder}`);
  return lines;
}
