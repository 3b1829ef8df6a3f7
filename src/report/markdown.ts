// report.md: sized for a GitHub Actions step summary ($GITHUB_STEP_SUMMARY). The verdict and what
// broke come first; everything a reviewer needs to act on a failure is on the page, no artefact download.

import { leftOutText, skippedText } from './sections/scope/words.js';
import { rateLimitSummary } from './sections/rate-limit/words.js';
import { STATUS_ICON, formatSeconds, runSeconds } from './common/format.js';
import { clientSectionMd } from './sections/client/md.js';
import { leadSection } from './sections/lead/md.js';
import { loadSectionMd } from './sections/load/md.js';
import { mdCode, mdEscape, mdInline, mdTable } from './common/md-text.js';
import { productionSectionMd } from './sections/production/md.js';
import { rateLimitSectionMd } from './sections/rate-limit/md.js';
import { specLabel, verdictWord, type CheckResult, type Evidence, type Report, type Untested } from './model.js';
import { sinceLastRunMd } from './sections/since/md.js';
import { reportTransport } from './sections/transport/words.js';
import { brokenMusts, skips, thresholdCount, warnings } from './common/select.js';

function titleLine(report: Report): string {
  const word = verdictWord(report);
  const icon = word === 'PASS' ? '✅' : word === 'FAIL' ? '❌' : '⚠️';
  const seconds = runSeconds(report);
  const duration = seconds === null ? '' : `, ${formatSeconds(seconds)}`;
  const emulated = report.target.emulated ? 'built-in emulator, ' : '';
  return (
    `## ${icon} ces-harness: ${mdEscape(word.toLowerCase())} · ${mdEscape(report.target.environment)} ` +
    `(${emulated}${mdCode(report.target.base_url)}) · ${mdEscape(report.started_at)}${duration}`
  );
}

function summaryLine(report: Report): string {
  const s = report.summary;
  const counts = `**${s.passed + s.failed + s.warned + s.skipped + s.errored} checks:** ${s.passed} passed · ${s.failed} failed · ${s.warned} warned · ${s.skipped} skipped · ${s.errored} errored`;
  const said = reportTransport(report);
  const outside = [report.checks_left_out && leftOutText(report.checks_left_out), skippedText(report.checks)]
    .filter((t) => t)
    .map((t) => `\n\n${mdEscape(t!)}`)
    .join('');
  const transport = (said ? `\n\n**Transport:** ${mdEscape(said)}` : '') + outside;
  // What the verdict covers beside the checks: the load's thresholds, the rate limit's scope.
  const rateLimit = report.rate_limit ? ` · **rate limit:** ${mdEscape(rateLimitSummary(report.rate_limit))}` : '';
  if (!report.load) return counts + rateLimit + transport;
  const t = thresholdCount(report.load);
  return `${counts} · **load:** ${t.met}/${t.total} thresholds met${rateLimit}${transport}`;
}

const statusCell = (c: CheckResult): string => `${STATUS_ICON[c.status] ?? ''} ${mdEscape(c.status)}`;

function checksTable(checks: readonly CheckResult[]): string {
  if (checks.length === 0) return '_No checks ran._';
  const rows = checks.map((c) => [
    statusCell(c),
    mdCode(c.id),
    mdInline(c.title),
    mdEscape(specLabel(c.spec)),
    mdInline(c.message),
  ]);
  return mdTable(['Status', 'Check', 'Title', 'Spec', 'Message'], ['l', 'l', 'l', 'l', 'l'], rows);
}

const evidenceItem = (e: Evidence): string => {
  const status = e.status === undefined ? '' : ` → ${e.status}`;
  const note = e.note ? ` — ${mdInline(e.note)}` : '';
  return `  - ${mdCode(e.request)}${status}${note}`;
};

function checkItem(c: CheckResult, withEvidence: boolean): string {
  const head = `- ${STATUS_ICON[c.status] ?? ''} ${mdCode(c.id)} ${mdInline(c.title)} (${mdEscape(specLabel(c.spec))}): ${mdInline(c.message)}`;
  return withEvidence ? [head, ...c.evidence.map(evidenceItem)].join('\n') : head;
}

function section(title: string, body: string): string {
  return `### ${title}\n\n${body}`;
}

function listSection(title: string, checks: readonly CheckResult[], withEvidence: boolean): string | null {
  return checks.length === 0 ? null : section(title, checks.map((c) => checkItem(c, withEvidence)).join('\n'));
}

function skipsSection(checks: readonly CheckResult[]): string | null {
  const skipped = skips(checks);
  if (skipped.length === 0) return null;
  // A skip is only acceptable with its reason (contract), so the reason is the whole line.
  return section(
    'Skipped',
    skipped.map((c) => `- ${STATUS_ICON.skip} ${mdCode(c.id)}: ${mdInline(c.message)}`).join('\n'),
  );
}

function untestedSection(untested: readonly Untested[]): string | null {
  if (untested.length === 0) return null;
  // Listed before anything else: a run that could not test is a failed run, whatever passed.
  return section('Not tested', untested.map((u) => `- ❌ ${mdCode(u.stage)}: ${mdInline(u.reason)}`).join('\n'));
}

function notesSection(notes: readonly string[]): string | null {
  return notes.length === 0 ? null : section('Notes', notes.map((n) => `- ⚠️ ${mdInline(n)}`).join('\n'));
}

export function renderMarkdown(report: Report): string {
  const blocks = [
    titleLine(report),
    sinceLastRunMd(report),
    summaryLine(report),
    leadSection(report),
    untestedSection(report.untested ?? []),
    notesSection(report.notes ?? []),
    listSection('Failures', brokenMusts(report.checks), true),
    listSection('Warnings', warnings(report.checks), true),
    skipsSection(report.checks),
    checksTable(report.checks),
    report.load ? loadSectionMd(report.load) : null,
    report.rate_limit ? rateLimitSectionMd(report.rate_limit) : null,
    report.client ? clientSectionMd(report.client) : null,
    productionSectionMd(report.production),
  ];
  return `${blocks.filter((b) => b !== null).join('\n\n')}\n`;
}
