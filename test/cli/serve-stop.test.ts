// `serve` stopped the moment it has printed its line (a script that reads the credentials and is
// done, a test) ends cleanly: exit 0, and the temp folder holding its private key is gone. The
// stop signals were listened for only after the line went out, so a quick SIGTERM killed it with
// the default action about half the time, leaving the key behind.

import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startCli } from '../helpers/cli.js';

describe('serve stopped right after its line', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)(
    '%s: exit 0 every time, its temp certificate folder removed',
    async (signal) => {
      for (let i = 0; i < 5; i++) {
        const serve = startCli(['serve', '--port', '0'], { timeoutMs: 20_000 });
        await serve.waitFor(/"client_secret":"[^"]*"\}\n/);
        const { ca_file: caFile } = JSON.parse(serve.stdout().trim()) as { ca_file: string };
        serve.child.kill(signal);
        const end = await serve.done;
        expect(end.code, `start ${i + 1}: ${serve.child.signalCode ?? ''} ${end.stderr}`).toBe(0);
        expect(existsSync(dirname(caFile))).toBe(false);
      }
    },
  );
});
