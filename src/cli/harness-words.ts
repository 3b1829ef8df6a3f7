// The harness's own vocabulary, which redaction must never eat: a user's secret made of words
// (`my-production-password`) shares 12-character pieces with them (`-production-`), and a piece of
// a secret is hidden wherever it stands (src/http/redact.ts) unless it is one of these.

import { CHECKS } from '../../checks/index.js';
import { CLIENT_CHECKS } from '../client/checks/index.js';
import { COMMANDS, FLAGS } from './flags.js';

export function harnessWords(): string[] {
  const checks = [...CHECKS, ...CLIENT_CHECKS].flatMap((c) => [c.id, c.title, c.description]);
  return [...checks, ...Object.keys(FLAGS).map((f) => `--${f}`), ...Object.keys(COMMANDS)];
}
