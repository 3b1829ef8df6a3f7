// docs/other-ci.md's GitLab job script and cron script, taken from the page by their `tested:`
// markers and run as written, with this checkout's built bin on PATH as `ces-harness`, against the
// emulator on 127.0.0.1 port 0: twice each, so the second run compares with the history the first
// left in the folder the page says to keep. The page's install step (`npm install -g` of the packed
// tarball) is not part of the script; that the packed harness installs and runs is
// test/package/install.test.ts's (real tier: npm pack and npm ci cost some 10 CPU seconds).

import { existsSync, readlinkSync } from 'node:fs';
import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmulator } from '../../src/emulator/index.js';
import { projectRoot } from '../k6/support.js';
import { expectValidHistory, expectValidReport } from '../report/schema.js';
import { runScript } from './action-steps.js';

const page = await readFile(join(projectRoot, 'docs', 'other-ci.md'), 'utf8');
/** The fenced block right after `<!-- tested: NAME … -->`. */
const block = (name: string) =>
  new RegExp(`<!-- tested: ${name}\\b[^>]*-->\\n\`\`\`\\w+\\n([\\s\\S]*?)\`\`\``).exec(page)?.[1] ??
  expect.fail(`docs/other-ci.md has no block marked tested: ${name}`);

const gitlabJob = (
  parse(block('gitlab')) as Record<
    string,
    { script: string[]; cache: { paths: string[] }; artifacts: { when: string; paths: string[] } }
  >
)['ces-harness']!;
const scripts: Record<string, { script: string; report: (dir: string) => string }> = {
  gitlab: { script: gitlabJob.script.join('\n'), report: (dir) => join(dir, 'reports', 'ces-harness') },
  cron: { script: block('cron'), report: (dir) => join(dir, 'reports', readlinkSync(join(dir, 'reports', 'latest'))) },
};

describe('docs/other-ci.md', () => {
  it('the GitLab job keeps the folders the runs need and the report whatever the verdict', () => {
    expect(gitlabJob.cache.paths).toContain('.ces-harness/');
    expect(gitlabJob.artifacts).toMatchObject({ when: 'always', paths: ['reports/ces-harness/'] });
  });
});

describe.skipIf(!existsSync(join(projectRoot, 'dist', 'cli.js')))('docs/other-ci.md, run as written', () => {
  // A folder holding `ces-harness`, a link to the built bin, as an install puts it on PATH.
  let binDir: string;
  beforeAll(async () => {
    binDir = await mkdtemp(join(tmpdir(), 'ces-bin-'));
    await symlink(join(projectRoot, 'bin', 'ces-harness.js'), join(binDir, 'ces-harness'));
  });
  afterAll(async () => rm(binDir, { recursive: true, force: true }));

  // Side by side, each on an emulator and in a folder of its own: the runs mostly wait on their bins.
  it.concurrent.for(Object.keys(scripts))(
    '%s: exit 0 twice, the second run compared with the first',
    { timeout: 180_000 },
    async (name, { expect, onTestFinished }) => {
      const { script, report } = scripts[name]!;
      // An emulator of its own: the checks' rate-limit burst must not meet the other script's.
      const emulator = await createEmulator({ port: 0 });
      onTestFinished(() => emulator.close());
      const dir = await mkdtemp(join(tmpdir(), `ces-${name}-`));
      await writeFile(join(dir, 'ca.pem'), emulator.caPem);
      await writeFile(
        join(dir, 'ces-harness.yaml'),
        [
          'environments:',
          '  sandbox:',
          `    base_url: ${emulator.url}`,
          '    client_id: ${CES_SANDBOX_CLIENT_ID}',
          '    client_secret: ${CES_SANDBOX_CLIENT_SECRET}',
          '    ca_file: ca.pem',
          '',
        ].join('\n'),
      );
      const env = {
        PATH: `${binDir}:${process.env.PATH}`,
        CES_SANDBOX_CLIENT_ID: emulator.credentials.clientId,
        CES_SANDBOX_CLIENT_SECRET: emulator.credentials.clientSecret,
      };
      for (const run of [1, 2]) {
        const r = await runScript(script, env, dir);
        expect(r.code, r.out).toBe(0);
        expect(r.out).not.toContain(emulator.credentials.clientSecret);
        expectValidReport(report(dir));
        const since = (
          JSON.parse(await readFile(join(report(dir), 'report.json'), 'utf8')) as {
            since_last_run: { history: string };
          }
        ).since_last_run;
        expect(since.history, `run ${run}`).toBe(run === 1 ? 'none' : 'compared');
        // The cron script's second run within a second would reuse the folder name: let the stamp move.
        if (run === 1 && name === 'cron') await new Promise((r) => setTimeout(r, 1_100));
      }
      expectValidHistory(join(dir, '.ces-harness', 'history.jsonl'));
    },
  );
});
