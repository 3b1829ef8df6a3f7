// The real parts some tests need beyond Node (Debian's Chromium, nginx, openssl, stress-ng,
// shellcheck, k6, toxiproxy, actionlint),
// whether each is here, and how to get it. A test that needs a missing part skips on a developer
// machine (and fails on CI, where .ci/run installs them); test/setup/real-parts.ts says so at the
// end of every run, so a skip is never silent.

import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { locateK6 } from '../../src/k6/locate.js';
import { findProjectRoot } from '../../src/fs/project-root.js';
import { STRESS_NG } from '../../bench/saturate.js';
import { nginxMissing } from './nginx.js';
import { toxiproxyMissing } from './toxiproxy.js';
import { actionlintMissing, shellcheckMissing } from './actionlint.js';

export interface MissingPart {
  part: string;
  /** What was looked for and not found. */
  why: string;
  /** How to get it. */
  fix: string;
  /** The tests that skip without it. */
  tests: string;
}

export async function missingParts(env: NodeJS.ProcessEnv = process.env): Promise<MissingPart[]> {
  const missing: MissingPart[] = [];
  const chromium = env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
  if (!existsSync(chromium))
    missing.push({
      part: 'Chromium',
      why: `not found at ${chromium}`,
      fix: 'apt-get install chromium, or set CHROMIUM_PATH',
      tests: 'report.html in a real browser (test/report/browser.test.ts)',
    });
  const nginx = nginxMissing();
  if (nginx)
    missing.push({
      part: 'nginx',
      why: nginx.replace(/ \(.*\)$/, ''),
      fix: 'apt-get install nginx-light, or set NGINX_BINARY',
      tests: 'rate-limit discovery against nginx limit_req (test/ratelimit/nginx.test.ts)',
    });
  const openssl = env['OPENSSL_BINARY'] ?? 'openssl';
  if (spawnSync(openssl, ['version']).error)
    missing.push({
      part: 'openssl',
      why: `${openssl} not found`,
      fix: 'apt-get install openssl, or set OPENSSL_BINARY',
      tests: 'openssl verify of the minted certificates (test/tls/certs/mint.test.ts)',
    });
  if (!existsSync(STRESS_NG))
    missing.push({
      part: 'stress-ng',
      why: `not found at ${STRESS_NG}`,
      fix: 'apt-get install stress-ng',
      tests: 'check with the CPU saturated (test/integration/check-saturated.test.ts)',
    });
  const toxiproxy = toxiproxyMissing();
  if (toxiproxy)
    missing.push({
      part: 'toxiproxy',
      why: toxiproxy,
      fix: 'install Go >= 1.17 (the test builds it from tools/toxiproxy/go.mod into .tools/toxiproxy/bin), or set TOXIPROXY_BINARY',
      tests:
        'check, run and ratelimit across ~100 ms of network latency (test/integration/network.test.ts, test/integration/ratelimit-network.test.ts)',
    });
  const actionlint = actionlintMissing();
  if (actionlint)
    missing.push({
      part: 'actionlint',
      why: actionlint,
      fix: 'install Go >= 1.25 (the test builds it from tools/actionlint/go.mod into .tools/actionlint/bin), or set ACTIONLINT_BINARY',
      tests: 'action.yml and the workflows using it through a workflow linter (test/ci/actionlint.test.ts)',
    });
  const shellcheck = shellcheckMissing();
  if (shellcheck)
    missing.push({
      part: 'shellcheck',
      why: shellcheck,
      fix: 'apt-get install shellcheck, or set SHELLCHECK_BINARY',
      tests: "action.yml's scripts through shellcheck (test/ci/actionlint.test.ts)",
    });
  try {
    await locateK6(env, findProjectRoot());
  } catch (err) {
    missing.push({
      part: 'k6',
      why: (err as Error).message.split(';')[0]!,
      fix: 'npm ci builds it when Go >= 1.25 is on PATH (node scripts/provision-k6.mjs), or set K6_BINARY',
      tests: 'every test that runs k6 (test/k6/, test/cli/load*.test.ts, the rate-limit proofs)',
    });
  }
  return missing;
}

/** The lines a test run ends with when parts are missing; none when everything is here. */
export function missingPartsReport(missing: readonly MissingPart[]): string[] {
  if (missing.length === 0) return [];
  return [
    `ces-harness tests: ${missing.length} real part${missing.length === 1 ? ' is' : 's are'} missing, so the tests that need ${missing.length === 1 ? 'it' : 'them'} SKIP here (on CI they fail instead):`,
    ...missing.map((m) => `  - ${m.part}: ${m.why}; ${m.fix}. Skipped: ${m.tests}`),
  ];
}
