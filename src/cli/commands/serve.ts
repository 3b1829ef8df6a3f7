// `ces-harness serve`: the reference emulator in the foreground until SIGINT/SIGTERM.

import { HarnessError, usageError } from '../../errors.js';
import { createEmulator } from '../../emulator/index.js';
import { FAULTS, isFaultName } from '../../emulator/faults/index.js';
import { ensureWritableDir } from '../../fs/writable.js';
import type { Options } from '../flags.js';

export async function serveCommand(options: Options): Promise<number> {
  const faults = options.fault ?? [];
  const unknown = faults.find((f) => !isFaultName(f));
  if (unknown) throw usageError(`unknown fault "${unknown}"; known: ${FAULTS.map((f) => f.name).join(', ')}`);
  const environments = (options.environments ?? 'sandbox').split(',').map((e) => e.trim()).filter(Boolean);
  if (environments.length === 0 || new Set(environments).size !== environments.length) {
    throw usageError('--environments wants distinct names separated by commas, e.g. sandbox,production');
  }
  const port = options.port ?? 8443;
  const rps = options['rate-limit'] ?? 50;
  const tlsDir = options['tls-dir'];
  if (tlsDir !== undefined) ensureWritableDir(tlsDir, { what: '--tls-dir', fix: 'give a folder you can write to, or leave --tls-dir out for a temp folder' });
  const emulator = await createEmulator({
    host: options.host ?? '127.0.0.1',
    port,
    environments,
    tokenTtlS: options['token-ttl'] ?? 86_400,
    rateLimit: { rps, burst: options.burst ?? 50 },
    faults: faults.filter(isFaultName),
    ...(tlsDir !== undefined ? { tlsDir } : {}),
  }).catch((err: unknown) => {
    throw portInUse(err) ?? err;
  });
  for (const env of emulator.environments) {
    // The contract: one JSON line per environment, demo credentials generated for this start.
    process.stdout.write(
      JSON.stringify({ environment: env.name, base_url: env.url, ca_file: emulator.caFile, client_id: env.credentials.clientId, client_secret: env.credentials.clientSecret }) + '\n',
    );
  }
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await emulator.close();
  return 0;
}

/** EADDRINUSE as the one line a user needs; anything else stays as it is. */
function portInUse(err: unknown): HarnessError | undefined {
  const e = err as NodeJS.ErrnoException & { address?: string; port?: number };
  if (e?.code !== 'EADDRINUSE') return undefined;
  return new HarnessError('PORT_IN_USE', `port ${e.port ?? '?'} on ${e.address ?? 'this host'} is in use; pick another with --port, or --port 0 for a free one`);
}
