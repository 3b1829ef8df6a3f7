// A client_secret written in the config file is warned about (the README says never to do it),
// unless the file opts in; a ${VAR} anywhere in the value is taken from the environment.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';

const config = (secret: string, optIn = '') =>
  `${optIn}environments:\n  sandbox:\n    base_url: https://sandbox.example.test\n    client_id: id\n    client_secret: ${secret}\n  prod-eu:\n    base_url: https://eu.example.test\n    client_id: id\n    client_secret: \${EU}\n`;

describe('a literal client_secret', () => {
  it.each([
    ['written in the file', 'hunter2-but-longer', '', ['sandbox']],
    ['from a ${VAR}', '${SB}', '', []],
    ['partly from a ${VAR}', 'prefix-${SB}', '', []],
    ['written in the file, opted in', 'hunter2-but-longer', 'allow_literal_secrets: true\n', []],
    ['written in the file, opt-in false', 'hunter2-but-longer', 'allow_literal_secrets: false\n', ['sandbox']],
  ])('%s', (_name, secret, optIn, warned) => {
    const { warnings } = loadConfig(config(secret, optIn), 'ces-harness.yaml', { SB: 'sb-secret', EU: 'eu-secret' });
    expect(warnings.map((w) => /environments\.([\w-]+)\.client_secret/.exec(w)?.[1])).toEqual(warned);
    for (const w of warnings) {
      expect(w).toMatch(
        /^config ces-harness\.yaml: environments\.sandbox\.client_secret is written in the file; .* export CES_SANDBOX_CLIENT_SECRET and write client_secret: \$\{CES_SANDBOX_CLIENT_SECRET\}/,
      );
      expect(w).not.toContain(secret);
    }
  });

  it('names the variable after the environment', () => {
    const text =
      'environments:\n  prod-eu:\n    base_url: https://eu.example.test\n    client_id: id\n    client_secret: literal-secret\n';
    expect(loadConfig(text, 'c.yaml', {}).warnings[0]).toContain('export CES_PROD_EU_CLIENT_SECRET');
  });
});
