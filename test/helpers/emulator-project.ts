// A folder with a config for an emulator already running: its CA beside the config, credentials
// from CES_CLIENT_ID/CES_CLIENT_SECRET, the history in the folder and no ledger. Shared by the tests
// that run a target job against a configured target rather than the built-in emulator.

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Emulator } from '../../src/emulator/index.js';

/** The folder and its config file; `sandbox` lines go under the environment, `top` lines after the rest. */
export function emulatorProject(
  emulator: Emulator,
  prefix: string,
  { sandbox = [], top = [] }: { sandbox?: string[]; top?: string[] } = {},
): { dir: string; config: string } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  writeFileSync(join(dir, 'ca.pem'), emulator.caPem);
  const config = join(dir, 'ces-harness.yaml');
  writeFileSync(
    config,
    [
      'environments:',
      '  sandbox:',
      `    base_url: ${emulator.url}`,
      '    client_id: ${CES_CLIENT_ID}',
      '    client_secret: ${CES_CLIENT_SECRET}',
      '    ca_file: ca.pem',
      ...sandbox.map((l) => `    ${l}`),
      'history: history.jsonl',
      'ledger: "off"',
      ...top,
    ].join('\n') + '\n',
  );
  return { dir, config };
}
