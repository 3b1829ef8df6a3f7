import type { Check } from '../src/runner/check.js';
import { OTHER_SUITE_CASES } from '../src/tls/cases.js';
import { tlsEndpoint } from '../src/tls/endpoint.js';
import { runCases } from '../src/tls/matrix.js';
import { mustRefuse, notTls } from '../src/tls/verdict.js';

export const check: Check = {
  id: 'tls.other-suites-refused',
  title: 'TLS 1.3 suites outside §5.8 are refused',
  spec: '5.8',
  level: 'must',
  description:
    'Offers TLS 1.3 with only TLS_AES_128_CCM_SHA256, then only TLS_AES_128_CCM_8_SHA256; each handshake must fail, counted only where a loopback calibration proved this machine can offer that suite.',
  async run({ target, signal }) {
    const endpoint = tlsEndpoint(target);
    if (!endpoint.https) return notTls(target.baseUrl);
    const results = await runCases(endpoint, OTHER_SUITE_CASES, { signal });
    return mustRefuse(
      endpoint,
      results,
      '§5.8 allows only TLS_AES_128_GCM_SHA256, TLS_AES_256_GCM_SHA384 and TLS_CHACHA20_POLY1305_SHA256',
    );
  },
};
