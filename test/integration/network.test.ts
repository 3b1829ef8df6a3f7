// A service ~100 ms away: the emulator behind Shopify's toxiproxy (test/helpers/toxiproxy.ts)
// with 50 ms ± 10 ms of latency each way, tested as a user tests a remote service (--base-url,
// credentials in the environment, --ca). Every handshake, request and answer crosses the delay,
// so anything that assumed a near-zero round trip (timing checks, the rate-limit probe's pacing,
// k6 thresholds) shows here as a false alarm. Wants exit 0 and PASS from `check` and `run`.

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { describe, expect, it } from 'vitest';
import { createEmulator } from '../../src/emulator/index.js';
import { EMBEDDED } from '../../src/config/resolve.js';
import { runCli } from '../helpers/cli.js';
import { startToxiproxy, toxiproxyMissing } from '../helpers/toxiproxy.js';
import { toxiproxySuite } from '../helpers/toxiproxy-suite.js';

const missing = toxiproxyMissing();
const onCi = Boolean(process.env.CI);
const skipWhy = missing !== undefined && !onCi ? missing : undefined;
if (skipWhy) console.warn(`skipping the network-latency test: toxiproxy ${skipWhy}`);

/** Each way: ~100 ms round trips, as to a service in another region. */
const LATENCY = { latencyMs: 50, jitterMs: 10 };

/** How long a health check on a new connection takes, handshake included. */
async function firstRequestMs(url: string, caPem: string): Promise<number> {
  const agent = new Agent({ connect: { ca: caPem } });
  try {
    const started = performance.now();
    const res = await request(`${url}/tokens/health_check`, {
      method: 'POST',
      dispatcher: agent,
      signal: AbortSignal.timeout(5_000),
    });
    await res.body.text();
    return performance.now() - started;
  } finally {
    await agent.close();
  }
}

/** The CLI's lines that are not a pass (as in profiles.test.ts). */
const notPassed = (out: string) =>
  out.split('\n').filter((l) => /^\s*(✗ fail|! warn|E error|FAIL|NOT TESTED|not tested)/.test(l));

describe.skipIf(skipWhy !== undefined)(
  `check and run across a network with 50 ± 10 ms each way${skipWhy ? ` (skipped: ${skipWhy})` : ''}`,
  () => {
    // Each command gets an emulator of its own: one that had already handed out this client's token
    // (to the other command) is rightly judged by token.lifetime as a token seen before.
    const suite = toxiproxySuite(missing, 'network-latency test', 'ces-network-');

    it.each([
      { command: 'check', extra: [], timeoutMs: 180_000 },
      { command: 'run', extra: ['--duration', '2'], timeoutMs: 300_000 },
    ])(
      '$command passes',
      async ({ command, extra, timeoutMs }) => {
        // Short tokens, as the built-in emulator has, so the expiry checks run within the test.
        const emulator = (suite.emulator = await createEmulator({
          port: 0,
          environments: ['sandbox'],
          tokenTtlS: EMBEDDED.tokenLifetimeS,
        }));
        const proxy = (suite.proxy = await startToxiproxy(suite.binary, emulator.url, LATENCY));
        // The delay is really there: a first request pays a TLS 1.3 handshake and the request itself,
        // two round trips of at least 2 × (50 − 10) ms each.
        expect(await firstRequestMs(proxy.url, emulator.caPem)).toBeGreaterThanOrEqual(
          4 * (LATENCY.latencyMs - LATENCY.jitterMs),
        );
        const target = [
          '--base-url',
          proxy.url,
          '--ca',
          emulator.caFile,
          '--token-lifetime',
          String(EMBEDDED.tokenLifetimeS),
          '--expiry-wait',
          String(EMBEDDED.expiryWaitS),
          '--ledger',
          'off',
          '--history',
          'off',
        ];
        const env = {
          CES_CLIENT_ID: emulator.credentials.clientId,
          CES_CLIENT_SECRET: emulator.credentials.clientSecret,
        };
        const reportDir = join(suite.cwd, command);
        const started = Date.now();
        const r = await runCli([command, ...target, '--report-dir', reportDir, ...extra], {
          cwd: suite.cwd,
          env,
          timeoutMs,
        });
        const out = r.stdout + r.stderr;
        console.info(`${command} through toxiproxy: ${Math.round((Date.now() - started) / 1000)} s`);
        expect({ code: r.code, notPassed: notPassed(out) }).toEqual({ code: 0, notPassed: [] });
        const report = JSON.parse(await readFile(join(reportDir, 'report.json'), 'utf8')) as { verdict: string };
        expect(report.verdict).toBe('pass');
      },
      320_000,
    );
  },
);
