// What k6 leaves in the report folder is rewritten through the redactor before the run ends.

import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { redactArtefacts } from '../../src/k6/artefacts.js';
import { fingerprint, Redactor } from '../../src/http/redact.js';

const SECRET = 'k6"sec\\ret/+%';
const TOKEN = 'k6-fetched-token-0123456789abcdef';

describe('redactArtefacts', () => {
  it('hides the secret in any form and tokens found by structure, in every file under the folder', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ces-artefacts-'));
    mkdirSync(join(dir, 'k6'));
    const summary = join(dir, 'k6', 'throughput.summary.json');
    const dashboard = join(dir, 'k6-dashboard-throughput.html');
    const binary = join(dir, 'points.gz');
    writeFileSync(
      summary,
      JSON.stringify({
        ces: { notes: [`body {"access_token":"${TOKEN}"}`, `sent ${JSON.stringify({ client_secret: SECRET })}`] },
      }),
    );
    writeFileSync(
      dashboard,
      `<html><script>const log = ${JSON.stringify(`Authorization: Bearer ${TOKEN}`)};</script></html>`,
    );
    const bytes = Buffer.from([0x1f, 0x8b, 0, 1, ...Buffer.from(SECRET)]);
    writeFileSync(binary, bytes);
    const redactor = new Redactor();
    redactor.addSecret(SECRET, 'client-k6');

    const changed = redactArtefacts(dir, redactor).sort();

    expect(changed).toEqual([dashboard, summary].sort());
    for (const file of [summary, dashboard]) {
      const text = readFileSync(file, 'utf8');
      expect(text).not.toContain(TOKEN);
      expect(text).not.toContain(JSON.stringify(SECRET).slice(1, -1));
      expect(text).toContain(fingerprint(TOKEN));
    }
    // Still the JSON it was.
    expect(() => JSON.parse(readFileSync(summary, 'utf8'))).not.toThrow();
    // Binary output is left as it is rather than corrupted.
    expect(readFileSync(binary)).toEqual(bytes);
  });
});
