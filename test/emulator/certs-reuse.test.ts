// `serve --tls-dir DIR` restarted keeps its CA and certificate, so a run history built against it
// reports no certificate change; what cannot be served again is replaced, as before.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeCertificates } from '../../src/emulator/certs/files.js';
import { generateCertificates } from '../../src/emulator/certs/generate.js';
import { existingCertificates } from '../../src/emulator/certs/reuse.js';
import { startCli } from '../helpers/cli.js';

const dirs: string[] = [];
const freshDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'ces-reuse-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('existingCertificates', () => {
  it('gives back the set an earlier start wrote', async () => {
    const dir = freshDir();
    const set = generateCertificates('127.0.0.1');
    await writeCertificates(set, dir);
    expect(existingCertificates(dir, '127.0.0.1')).toEqual(set);
  });

  it.each([
    ['an empty folder', (_dir: string) => undefined, '127.0.0.1'],
    [
      'a key of another certificate',
      (dir: string) => writeFileSync(join(dir, 'server-key.pem'), generateCertificates('127.0.0.1').keyPem),
      '127.0.0.1',
    ],
    [
      'a CA that did not sign the certificate',
      (dir: string) => writeFileSync(join(dir, 'ca.pem'), generateCertificates('127.0.0.1').caPem),
      '127.0.0.1',
    ],
    ['text that is not PEM', (dir: string) => writeFileSync(join(dir, 'server.pem'), 'not a certificate'), '127.0.0.1'],
    ['a listen host the certificate does not name', (_dir: string) => undefined, 'ces.test'],
  ])('none with %s: new ones are made', async (_name, spoil, host) => {
    const dir = freshDir();
    if (_name !== 'an empty folder') await writeCertificates(generateCertificates('127.0.0.1'), dir);
    spoil(dir);
    expect(existingCertificates(dir, host)).toBeUndefined();
  });

  it('none a day before the certificate expires', async () => {
    const dir = freshDir();
    await writeCertificates(generateCertificates('127.0.0.1'), dir);
    const validTo = Date.parse(
      new (await import('node:crypto')).X509Certificate(readFileSync(join(dir, 'server.pem'))).validTo,
    );
    expect(existingCertificates(dir, '127.0.0.1', validTo - 3600_000)).toBeUndefined();
  });
});

describe('serve --tls-dir restarted', () => {
  it('serves the same CA as before, while its credentials are new', async () => {
    const dir = freshDir();
    const start = async () => {
      const serve = startCli(['serve', '--port', '0', '--tls-dir', dir], { timeoutMs: 20_000 });
      await serve.waitFor(/"client_secret":"[^"]*"\}\n/);
      const line = JSON.parse(serve.stdout().trim().split('\n')[0]!) as { client_id: string };
      const ca = readFileSync(join(dir, 'ca.pem'), 'utf8');
      serve.child.kill('SIGTERM');
      const end = await serve.done;
      expect(end.code, end.stderr).toBe(0);
      return { ca, clientId: line.client_id };
    };
    const first = await start();
    const second = await start();
    expect(second.ca).toBe(first.ca);
    expect(second.clientId).not.toBe(first.clientId);
  });
});
