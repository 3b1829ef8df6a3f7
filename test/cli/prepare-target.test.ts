// What the commands that talk to a target share: one Settings after resolution, the built-in
// emulator's included (what the checks are told is what the emulator does), and the stop-signal
// handlers gone on every way out of a job, a failed preparation included.

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventEmitter } from 'node:events';
import { afterAll, describe, expect, it } from 'vitest';
import { targetJob } from '../../src/cli/commands/target-job.js';
import { prepareTarget, type PreparedTarget } from '../../src/cli/prepare-target.js';
import { STOP_SIGNALS } from '../../src/cli/stop-signals.js';
import type { Terminal } from '../../src/cli/terminal.js';
import { DEFAULTS, EMBEDDED } from '../../src/config/resolve.js';
import { HarnessError } from '../../src/errors.js';
import { Redactor } from '../../src/http/redact.js';
import { ServiceClient } from '../../src/http/service-client.js';
import { epochSeconds } from '../../src/spec/expires-at.js';
import { testIo } from '../helpers/cli.js';

const quiet = (): Terminal => ({ color: false, out: () => {}, err: () => {}, progress: () => {} });

describe('prepareTarget with no target configured', () => {
  const opened: PreparedTarget[] = [];
  afterAll(async () => {
    for (const p of opened) await p.close();
  });

  it.each([
    ['no flags', {}, EMBEDDED.tokenLifetimeS, EMBEDDED.expiryWaitS, DEFAULTS.tokenLifetimeS],
    ['--token-lifetime 5 --expiry-wait 9', { 'token-lifetime': 5, 'expiry-wait': 9 }, 5, 9, 5],
  ] as const)(
    '%s: the settings the checks get are the lifetime the emulator hands out, and load and sizing theirs',
    async (_, flags, lifetimeS, expiryWaitS, sizingLifetimeS) => {
      const empty = await mkdtemp(join(tmpdir(), 'ces-prepare-'));
      const redactor = new Redactor();
      // An empty folder: no ces-harness.yaml there, so the built-in emulator is the target.
      const prepared = await prepareTarget(flags, redactor, quiet(), { env: {}, cwd: empty });
      opened.push(prepared);
      const { settings } = prepared;
      expect(settings.target.emulated).toBe(true);
      expect(settings.others.map((o) => o.environment)).toEqual(['production']);
      expect(settings.expect.tokenLifetimeS).toBe(lifetimeS);
      expect(settings.expect.expiryWaitS).toBe(expiryWaitS);
      expect(settings.rateLimit.recoveryWaitS).toBe(EMBEDDED.recoveryWaitS);
      expect(prepared.ledger.path).toBeNull();

      const http = new ServiceClient(settings.target, { redactor });
      try {
        const before = Date.now() / 1000;
        const { issued } = await http.issueToken();
        const expiresAt = epochSeconds(issued?.expiresAt);
        expect(expiresAt).toBeDefined();
        // expires_at counts whole seconds: within a second and a bit of the lifetime promised.
        expect(Math.abs(expiresAt! - before - lifetimeS)).toBeLessThanOrEqual(1.5);
      } finally {
        await http.close();
      }
      // Load and rate-limit sizing: the service's 24 h tokens on an instance of their own, unless
      // a lifetime was asked for; resolved before any stage runs, not patched in by one.
      expect(settings.sizing.expect.tokenLifetimeS).toBe(sizingLifetimeS);
      const sized = await prepared.probeTarget();
      expect(sized.target.baseUrl === settings.target.baseUrl).toBe(!settings.sizing.ownEmulator);
      expect(settings.sizing.ownEmulator).toBe(sizingLifetimeS === DEFAULTS.tokenLifetimeS);
      // Instances for load beside the checks: each new, none the checks' or the probe's.
      expect(prepared.isolatedTarget !== undefined).toBe(settings.sizing.ownEmulator);
      if (prepared.isolatedTarget) {
        const urls = [settings.target.baseUrl, sized.target.baseUrl];
        for (const { target } of [await prepared.isolatedTarget(), await prepared.isolatedTarget()]) {
          expect(urls).not.toContain(target.baseUrl);
          expect(target.credentials.clientId).not.toBe(settings.target.credentials.clientId);
          urls.push(target.baseUrl);
        }
        expect((await prepared.probeTarget()).target.baseUrl).toBe(sized.target.baseUrl);
      }
      await rm(empty, { recursive: true, force: true });
    },
  );
});

describe('targetJob and the stop signals', () => {
  // The run's own signal source: what the job left on it is all its own doing.
  const signals = new EventEmitter();
  const listening = () => STOP_SIGNALS.map((s) => signals.listenerCount(s));

  it('a preparation that fails (bad config: exit 2) leaves no handler behind', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ces-prepare-'));
    const config = join(dir, 'bad.yaml');
    await writeFile(config, 'environments: [not, a, mapping]\n');
    const before = listening();
    const io = { ...testIo({ cwd: dir }), signals };
    const err = await targetJob({ config, 'report-dir': join(dir, 'reports'), 'no-color': true }, {}, io).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(HarnessError);
    expect((err as HarnessError).exitCode).toBe(2);
    expect(listening()).toEqual(before);
    await rm(dir, { recursive: true, force: true });
  });
});
