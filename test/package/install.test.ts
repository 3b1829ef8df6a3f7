// The packed harness installed into an empty folder works there: `check` against its built-in
// emulator, and `run` (checks, k6 load, rate limit) against `ces-harness serve`, both the installed
// bin, with nothing of this checkout but the k6 binary (K6_BINARY, so no k6 is built here).

import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli, startCli } from '../helpers/cli.js';
import { projectRoot, realK6 } from '../k6/support.js';
import { expectValidReport } from '../report/schema.js';
import { installedForSuite, type Installed } from './installed.js';

const k6 = await realK6();

it('allowScripts covers every locked dependency with an install script, so `npm ci` on npm 11 warns of none', async () => {
  const { readFile } = await import('node:fs/promises');
  const manifest = JSON.parse(await readFile(join(projectRoot, 'package.json'), 'utf8')) as {
    allowScripts?: Record<string, boolean>;
  };
  const lock = JSON.parse(await readFile(join(projectRoot, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { hasInstallScript?: boolean }>;
  };
  const scripted = Object.entries(lock.packages)
    .filter(([, p]) => p.hasInstallScript)
    .map(([path]) => path.split('node_modules/').at(-1)!);
  expect(scripted.length).toBeGreaterThan(0);
  for (const name of scripted) expect(manifest.allowScripts?.[name], name).toBe(true);
});

describe.skipIf(!existsSync(join(projectRoot, 'dist', 'cli.js')))(
  'the npm package, installed into an empty folder',
  () => {
    const get = installedForSuite();
    let installed: Installed;
    beforeAll(() => {
      installed = get();
    });

    it('holds the built CLI, the scenario bundles, the k6 pin and the schemas, and no test', async () => {
      const root = join(installed.dir, 'node_modules', 'ces-harness');
      for (const f of [
        'dist/cli.js',
        'dist/scenarios/throughput.js',
        'tools/k6/go.mod',
        'tools/k6/go.sum',
        'schema/report.schema.json',
        'schema/history.schema.json',
        'schema/cutover.schema.json',
        'scripts/k6-build.mjs',
      ]) {
        expect(existsSync(join(root, f)), f).toBe(true);
      }
      expect(await readdir(root)).not.toContain('test');
      expect(existsSync(join(installed.dir, 'node_modules', '.bin', 'ces-harness'))).toBe(true);
    });

    // One test, two runs side by side, each on its own emulator: `check` first, and `run` once
    // `check` waits out its token (8 s of its 11), so that `check`'s own rate-limit burst, at its end,
    // falls in `run`'s checks and load rather than in `run`'s probe, which begins some 13 s in. One
    // after another they took 11 + 29 s (2026-11-30, load 2-3).
    it.skipIf(!k6)(
      'check: exit 0 against the built-in emulator, and run beside it against `ces-harness serve`, load and rate limit included; both reports meet the schema',
      async () => {
        const checkDir = join(installed.dir, 'check-report');
        const check = startCli(['check', '--report-dir', checkDir], {
          bin: installed.bin,
          cwd: installed.dir,
          env: { XDG_CACHE_HOME: join(installed.dir, 'cache') },
          timeoutMs: 120_000,
        });
        // Its first phase done (or the run over, whatever it printed): the rest is a wait and a burst.
        await check.waitFor(/^… waiting [\d.]+ s .*expire/m).catch(() => undefined);
        const env = { XDG_CACHE_HOME: join(installed.dir, 'cache'), K6_BINARY: k6!.path };
        const serve = startCli(['serve', '--port', '0'], {
          bin: installed.bin,
          cwd: installed.dir,
          timeoutMs: 280_000,
        });
        try {
          await serve.waitFor(/"client_secret":"[^"]*"\}\n/);
          const target = JSON.parse(serve.stdout().trim()) as {
            base_url: string;
            ca_file: string;
            client_id: string;
            client_secret: string;
          };
          const dir = join(installed.dir, 'run-report');
          // k6 for 2 s a scenario, not run's 5: what is proven here is that the installed bin finds
          // and runs k6 and the scenario bundles, which a shorter load proves as well (12 s saved).
          const res = await runCli(
            ['run', '--base-url', target.base_url, '--ca', target.ca_file, '--report-dir', dir, '--duration', '2'],
            {
              bin: installed.bin,
              cwd: installed.dir,
              env: { ...env, CES_CLIENT_ID: target.client_id, CES_CLIENT_SECRET: target.client_secret },
              timeoutMs: 240_000,
            },
          );
          const checked = await check.done;
          expect(checked.code, checked.stdout + checked.stderr).toBe(0);
          expectValidReport(checkDir);
          expect(res.code, res.stdout + res.stderr).toBe(0);
          expectValidReport(dir);
          const report = (await import(join(dir, 'report.json'), { with: { type: 'json' } })).default as {
            load: { scenarios: unknown[] };
            rate_limit: unknown;
          };
          expect(report.load.scenarios.length).toBeGreaterThan(0);
          expect(report.rate_limit).not.toBeNull();
          // Nothing was built: K6_BINARY was used, the per-user cache stays empty.
          expect(existsSync(join(env.XDG_CACHE_HOME, 'ces-harness'))).toBe(false);
        } finally {
          serve.child.kill('SIGTERM');
          await serve.done;
        }
      },
      300_000,
    );
  },
);
