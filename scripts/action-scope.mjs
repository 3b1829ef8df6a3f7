#!/usr/bin/env node
// The names the GitHub Action (action.yml) gives what outlives its job: the report artifact and the
// token-ledger cache. Each is unique per leg (the job's id and its index in a matrix), per
// environment and per config (a hash of the config's path and content), so the legs of a matrix
// over environments never collide: upload-artifact refuses a second artifact of one name in a run,
// and a cache key, once saved, is never written again. The restore prefix is per environment and
// config, not per leg: a leg restores the ledger and history the same environment left under the
// same config, whichever leg ran it last time, and never another environment's.
//
//   node scripts/action-scope.mjs COMMAND ENVIRONMENT CONFIG   (reads GITHUB_JOB, GITHUB_RUN_ID,
//   GITHUB_RUN_ATTEMPT and JOB_INDEX, the matrix leg's strategy.job-index; prints name=value lines)

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

const [command = '', environment = '', config = ''] = process.argv.slice(2);
const env = process.env;

// upload-artifact refuses " : < > | * ? \ / and line breaks in a name; cache keys take any text,
// but one spelling for both keeps them readable side by side.
const safe = (text) => text.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 40) || '_';

function configHash() {
  if (config === '') return 'emulator';
  let content = '';
  try {
    content = readFileSync(config, 'utf8');
  } catch {
    // The harness itself says what is wrong with a config it cannot read (exit 2).
  }
  return createHash('sha256').update(config).update('\0').update(content).digest('hex').slice(0, 12);
}

// cutover tests both environments of the config; an empty environment is the config's `target`.
const target = command === 'cutover' ? 'cutover' : environment === '' ? 'target' : safe(environment);
const scope = `${target}-${configHash()}`;
const leg = `${safe(env.GITHUB_JOB || 'job')}-${safe(env.JOB_INDEX || '0')}`;
const run = `${safe(env.GITHUB_RUN_ID || 'local')}-${safe(env.GITHUB_RUN_ATTEMPT || '1')}`;

process.stdout.write(
  [
    `scope=${scope}`,
    `artifact=ces-harness-report-${scope}-${leg}-${run}`,
    `ledger-key=ces-harness-ledger-${scope}-${run}-${leg}`,
    `ledger-restore=ces-harness-ledger-${scope}-`,
    '',
  ].join('\n'),
);
