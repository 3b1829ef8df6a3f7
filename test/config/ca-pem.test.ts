// A CA file is read strictly: each way it can be wrong is its own line, instead of a file that
// node:tls and Go skip in silence and a later "pass --ca" for the flag the user did pass.
import { describe, expect, it } from 'vitest';
import { parseCaPem } from '../../src/config/ca-pem.js';
import { createTestPki } from '../tls/pki.js';

const { caPem } = createTestPki();
const lines = caPem.trim().split('\n');
const body = lines.slice(1, -1);

describe('parseCaPem', () => {
  it('reads a CA certificate, and each of a bundle', () => {
    const one = parseCaPem(caPem);
    expect(one).toEqual({ certificates: [expect.objectContaining({ line: 1, subject: 'CN=ces-harness test CA' })] });
    const two = parseCaPem(`# a comment line\n${caPem}\n${createTestPki().caPem.replace(/\n/g, '\r\n')}`);
    expect('certificates' in two && two.certificates.map((c) => c.line)).toEqual([2, 2 + lines.length + 1]);
  });

  it.each([
    [
      'no PEM block at all',
      'hello, I am not a certificate\n',
      /^holds no PEM certificate \(no -----BEGIN CERTIFICATE----- line\)/,
    ],
    [
      'only a private key',
      '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n',
      /^holds no certificate, only PRIVATE KEY; give the CA certificate/,
    ],
    [
      'cut short: no END line',
      lines.slice(0, 6).join('\n'),
      /^is cut short: the CERTIFICATE block at line 1 has no -----END CERTIFICATE----- line/,
    ],
    [
      'cut short, then another block',
      [...lines.slice(0, 4), ...lines].join('\n'),
      /^is cut short: the CERTIFICATE block at line 1/,
    ],
    [
      'a mismatched END marker',
      [lines[0], ...body, '-----END PRIVATE KEY-----'].join('\n'),
      /closed by an END PRIVATE KEY marker/,
    ],
    [
      'garbage inside the markers',
      [lines[0], body[0], 'this is not base64!', ...body.slice(1), lines.at(-1)].join('\n'),
      /^has a certificate block at line 1 that is not valid base64 \(line 3\)/,
    ],
    ['an empty block', [lines[0], lines.at(-1)].join('\n'), /not valid base64/],
    [
      'base64 of something else',
      [lines[0], Buffer.from('just some bytes, not DER').toString('base64'), lines.at(-1)].join('\n'),
      /^has a block at line 1 that decodes to no X\.509 certificate/,
    ],
    [
      'a truncated DER inside whole markers',
      [lines[0], ...body.slice(0, 3), lines.at(-1)].join('\n'),
      /decodes to no X\.509 certificate/,
    ],
  ])('%s', (_name, text, problem) => {
    const result = parseCaPem(text);
    expect('problem' in result && result.problem).toMatch(problem);
  });
});
