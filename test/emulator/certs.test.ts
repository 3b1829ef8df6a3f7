// Certificate names and the tls folder option.

import { readFile, rm, stat, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { subjectAltNames } from '../../src/emulator/certs/generate.js';
import { createEmulator } from '../../src/emulator/index.js';

describe('subjectAltNames', () => {
  const extra = (host: string) => subjectAltNames(host).slice(3);

  it('always names localhost, 127.0.0.1 and ::1', () => {
    expect(subjectAltNames('127.0.0.1').map((n) => n.value)).toEqual(['localhost', '127.0.0.1', '::1']);
  });

  it.each([
    ['ces.test', [{ type: 'dns', value: 'ces.test' }]],
    ['10.1.2.3', [{ type: 'ip', value: '10.1.2.3' }]],
    ['fd00::5', [{ type: 'ip', value: 'fd00::5' }]],
    ['0.0.0.0', []],
    ['::', []],
    ['localhost', []],
  ])('adds the listen host %s when it names one machine', (host, added) => {
    expect(extra(host)).toEqual(added);
  });
});

describe('tlsDir', () => {
  it('writes the files where asked and leaves them after close', async () => {
    const dir = join(await mkdtemp(join(tmpdir(), 'ces-test-')), 'nested', 'tls');
    const emu = await createEmulator({ port: 0, tlsDir: dir });
    expect(emu.caFile).toBe(join(dir, 'ca.pem'));
    await emu.close();
    expect(await readFile(join(dir, 'ca.pem'), 'utf8')).toBe(emu.caPem);
    expect((await stat(join(dir, 'server-key.pem'))).mode & 0o777).toBe(0o600);
    await rm(dir, { recursive: true, force: true });
  });
});
