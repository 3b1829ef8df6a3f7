#!/usr/bin/env node
// The GitHub Action's `fail-on` input (action.yml): the config with `regressions: <kind>: fail` for
// each kind listed, written beside the given config (so its relative paths still hold), path on
// stdout. Without kinds it prints the config's own path: its `regressions:` policy decides.
//
//   node scripts/action-config.mjs CONFIG "check,rate_limit"

import { readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { parse, stringify } from 'yaml';

const KINDS = ['check', 'fact', 'latency', 'rate_limit'];
const [config = '', failOn = ''] = process.argv.slice(2);
const kinds = failOn.split(/[\s,]+/).filter(Boolean);
const refuse = (line) => {
  process.stderr.write(`ces-harness: ${line}\n`);
  process.exit(2);
};

const unknown = kinds.filter((k) => !KINDS.includes(k));
if (unknown.length) refuse(`fail-on: unknown kind ${unknown.join(', ')}; known: ${KINDS.join(', ')}`);
if (kinds.length === 0) {
  process.stdout.write(`${config}\n`);
} else {
  // The built-in emulator keeps no history, so a policy on changes has nothing to judge there.
  if (config === '') refuse('fail-on needs a config: the built-in emulator keeps no run history to compare');
  let parsed;
  try {
    parsed = parse(readFileSync(config, 'utf8')) ?? {};
  } catch (err) {
    refuse(`config ${config}: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
  }
  const regressions = { ...(parsed.regressions ?? {}) };
  for (const kind of kinds) regressions[kind] = 'fail';
  const derived = join(dirname(config), `.${basename(config, '.yaml')}.fail-on.yaml`);
  writeFileSync(derived, stringify({ ...parsed, regressions }), { mode: 0o600 });
  process.stdout.write(`${derived}\n`);
}
