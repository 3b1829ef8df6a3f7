// `ces-harness serve`: the reference emulator in the foreground until SIGINT/SIGTERM.

import { join, relative, resolve } from 'node:path';
import { HarnessError, usageError } from '../../errors.js';
import { createEmulator } from '../../emulator/index.js';
import { existingCertificates } from '../../emulator/certs/reuse.js';
import { environmentDifferences } from '../../emulator/env-option.js';
import { limitsFromFlags } from '../../emulator/limiter-choice.js';
import { ensureWritableDir } from '../../fs/writable.js';
import { flagValue, type Options } from '../flags.js';
import { validFaults, validProfiles } from '../prepare-target.js';
import type { CliIo } from '../io.js';

export async function serveCommand(options: Options, io: Pick<CliIo, 'stdout' | 'signals' | 'cwd'>): Promise<number> {
  const faults = validFaults(options.fault ?? []);
  const profiles = validProfiles(options.profile ?? []);
  const environments = flagValue(options, 'environments')
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  if (environments.length === 0 || new Set(environments).size !== environments.length) {
    throw usageError('--environments wants distinct names separated by commas, e.g. sandbox,production');
  }
  const port = flagValue(options, 'port');
  const rps = flagValue(options, 'rate-limit');
  const limiter = limitsFromFlags(options.limiter ?? ['bucket'], {
    rps,
    burst: flagValue(options, 'burst'),
    windowS: flagValue(options, 'window'),
    countsRefused: options['counts-refused'] === true,
    fillIntervalS: options['fill-interval'],
    queueDelay: options['queue-delay'],
  });
  const tlsFlag = options['tls-dir'];
  // From the run's folder, which is the process's only for the bin; ca_file is still shown as given.
  const tlsDir = tlsFlag === undefined ? undefined : resolve(io.cwd, tlsFlag);
  if (tlsDir !== undefined)
    ensureWritableDir(tlsDir, {
      what: '--tls-dir',
      fix: 'give a folder you can write to, or leave --tls-dir out for a temp folder',
    });
  const host = flagValue(options, 'host');
  // A restart keeps its certificate, so a history built against this emulator sees no CA change.
  const certificates = tlsDir !== undefined ? existingCertificates(tlsDir, host) : undefined;
  const emulator = await createEmulator({
    host,
    port,
    environments,
    ...(options['token-lifetime'] !== undefined ? { tokenTtlS: options['token-lifetime'] } : {}),
    rateLimit: { rps, burst: flagValue(options, 'burst') },
    limiter,
    clients: flagValue(options, 'clients'),
    faults,
    profiles,
    businessLatencyMs: flagValue(options, 'business-latency'),
    perEnvironment: environmentDifferences(options['env-option'] ?? [], {
      rateLimit: { rps, burst: flagValue(options, 'burst') },
    }),
    ...(tlsDir !== undefined ? { tlsDir } : {}),
    ...(certificates !== undefined ? { certificates } : {}),
  }).catch((err: unknown) => {
    throw portInUse(err) ?? err;
  });
  // Listening for the stop signals before the lines go out: a caller that reads its line and stops
  // it at once (a test, a script) must get a clean stop, not the default death by SIGTERM.
  const stopped = new Promise<void>((resolve) => {
    const stop = () => {
      io.signals.off('SIGINT', stop);
      io.signals.off('SIGTERM', stop);
      resolve();
    };
    io.signals.on('SIGINT', stop);
    io.signals.on('SIGTERM', stop);
  });
  for (const env of emulator.environments) {
    // The contract: one JSON line per environment, demo credentials generated for this start.
    // Further clients (--clients) only when asked for, so the line stays as it was by default.
    const others = env.clients.slice(1).map((c) => ({ client_id: c.clientId, client_secret: c.clientSecret }));
    io.stdout.write(
      JSON.stringify({
        environment: env.name,
        base_url: env.url,
        ca_file: tlsFlag === undefined ? env.caFile : join(tlsFlag, relative(tlsDir!, env.caFile)),
        client_id: env.credentials.clientId,
        client_secret: env.credentials.clientSecret,
        ...(others.length > 0 ? { other_clients: others } : {}),
      }) + '\n',
    );
  }
  await stopped;
  await emulator.close();
  return 0;
}

/** EADDRINUSE as the one line a user needs; anything else stays as it is. */
function portInUse(err: unknown): HarnessError | undefined {
  const e = err as NodeJS.ErrnoException & { address?: string; port?: number };
  if (e?.code !== 'EADDRINUSE') return undefined;
  return new HarnessError(
    'PORT_IN_USE',
    `port ${e.port ?? '?'} on ${e.address ?? 'this host'} is in use; pick another with --port, or --port 0 for a free one`,
  );
}
