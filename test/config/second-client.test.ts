// rate_limit.second_client: a second client of the target's environment for the probe's scope
// phase, its credentials through ${VAR} like the target's, validated at the one boundary.

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveSettings } from '../../src/config/resolve.js';
import { HarnessError } from '../../src/errors.js';

const folder = (yaml: string) => {
  const dir = mkdtempSync(join(tmpdir(), 'ces-second-'));
  writeFileSync(join(dir, 'ces-harness.yaml'), yaml);
  return dir;
};

const config = (secondClient: string) => `
target: sandbox
environments:
  sandbox: { base_url: https://sandbox.example.test, client_id: "\${SB_ID}", client_secret: "\${SB_SECRET}" }
rate_limit:
  max_rps: 30
  second_client: ${secondClient}
`;
const ENV = {
  SB_ID: 'sb-id',
  SB_SECRET: 'sb-secret-value',
  SECOND_ID: 'second-id',
  SECOND_SECRET: 'second-secret-value',
};

describe('rate_limit.second_client', () => {
  it('resolves its ${VAR} credentials into the rate-limit settings', async () => {
    const s = await resolveSettings(
      {},
      ENV,
      folder(config('{ client_id: "${SECOND_ID}", client_secret: "${SECOND_SECRET}" }')),
    );
    expect(s.rateLimit.secondClient).toEqual({ clientId: 'second-id', clientSecret: 'second-secret-value' });
    expect(s.warnings).toEqual([]);
  });

  it('is absent when not configured', async () => {
    const s = await resolveSettings(
      {},
      ENV,
      folder(
        config('{ client_id: "${SECOND_ID}", client_secret: "${SECOND_SECRET}" }').replace(/  second_client:.*\n/, ''),
      ),
    );
    expect(s.rateLimit.secondClient).toBeUndefined();
  });

  it('an unset variable is one error naming the key and the variable', async () => {
    const err = await resolveSettings(
      {},
      { SB_ID: 'a', SB_SECRET: 'b', SECOND_ID: 'x' },
      folder(config('{ client_id: "${SECOND_ID}", client_secret: "${SECOND_SECRET}" }')),
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HarnessError);
    expect((err as HarnessError).code).toBe('MISSING_CREDENTIAL');
    expect((err as Error).message).toMatch(
      /rate_limit\.second_client\.client_secret refers to \$\{SECOND_SECRET\}, which is not set; export SECOND_SECRET/,
    );
  });

  it('a misspelt or missing key is a config error naming its path', async () => {
    const err = await resolveSettings(
      {},
      ENV,
      folder(config('{ client_id: "${SECOND_ID}", secret: "${SECOND_SECRET}" }')),
    ).catch((e: unknown) => e);
    expect((err as HarnessError).code).toBe('CONFIG_INVALID');
    expect((err as Error).message).toMatch(/rate_limit\.second_client/);
  });

  it('a secret written in the file is warned about, never echoed', async () => {
    const s = await resolveSettings(
      {},
      ENV,
      folder(config('{ client_id: second-id, client_secret: literal-second-secret }')),
    );
    expect(s.warnings).toHaveLength(1);
    expect(s.warnings[0]).toMatch(/rate_limit\.second_client\.client_secret is written in the file/);
    expect(s.warnings[0]).not.toContain('literal-second-secret');
  });
});
