// report.md's Client section (`ces-harness client`): the command, then one row per scenario run.
// The request log stays in report.json and report.html; a CI step summary has no room for it.

import { CLIENT_RUN_COLUMNS, clientRunCells } from './words.js';
import type { ClientSection } from './model.js';
import { mdCode, mdEscape, mdTable } from '../../common/md-text.js';

export function clientSectionMd(client: ClientSection): string {
  const head = `Command ${mdCode(client.command)} · time limit ${client.time_limit_s} s per scenario`;
  const rows = client.runs.map((run) =>
    clientRunCells(run).map((cell, i) => (i === 0 ? mdCode(cell) : mdEscape(cell))),
  );
  const table = mdTable([...CLIENT_RUN_COLUMNS], ['l', 'l', 'r', 'r', 'r', 'r', 'l'], rows);
  return `### Client\n\n${head}\n\n${table}`;
}
