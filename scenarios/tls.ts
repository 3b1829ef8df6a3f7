// What the service negotiates (§5.8): every response's TLS version must be 1.3 and its cipher
// suite one of the three the spec lists. k6 offers TLS 1.2 and 1.3 here (its defaults), so a
// service that prefers 1.2 is caught. New connection per iteration, so each iteration is a fresh
// handshake rather than one reused connection. The TLS 1.2-only probe needs a different k6 TLS
// configuration, which is per test run, so it lives in tls12-refused.ts.

import { check, sleep } from 'k6';
import http from 'k6/http';
import { readConfig } from './lib/config';
import { healthCheck } from './lib/endpoints';
import { rate } from './lib/metrics';
import { scenarioOptions, secs, withinRequestTimeout } from './lib/options';
import { withRetry } from './lib/retry';
import { summaryHandler } from './lib/summary';
import { ALLOWED_SUITES, REQUIRED_TLS_VERSION, recordNegotiated } from './lib/tls';

const cfg = readConfig();

http.setResponseCallback(http.expectedStatuses({ min: 200, max: 399 }, 429));

const versionOk = rate('tls_version_1_3');
const suiteOk = rate('tls_cipher_suite_allowed');

export const options = scenarioOptions(
  cfg,
  {
    handshakes: {
      executor: 'constant-vus',
      vus: Math.min(cfg.vus, 4),
      duration: secs(cfg.durationS),
      gracefulStop: secs(cfg.retryBudgetS + 5),
    },
  },
  {
    tls_version_1_3: ['rate==1'],
    tls_cipher_suite_allowed: ['rate==1'],
    checks: ['rate==1'],
    http_req_failed: ['rate<0.01'],
    // The spec sets no latency: the run's request timeout bounds it (withinRequestTimeout).
    http_req_duration: [withinRequestTimeout(cfg)],
  },
  {
    // Offer both 1.2 and 1.3 explicitly: the point is to see what the service picks.
    tlsVersion: { min: 'tls1.2', max: 'tls1.3' },
    noVUConnectionReuse: true,
  },
);

export default function (): void {
  // §4.2 needs no credentials, so the TLS check costs no token and no secret on the wire.
  const { res } = withRetry(cfg, () => healthCheck(cfg));
  const connected = res.status !== 0;
  check(res, { 'An HTTPS connection to the service succeeds with the trusted CA': () => connected });
  if (connected) {
    recordNegotiated(res.tls_version, res.tls_cipher_suite);
    versionOk.add(res.tls_version === REQUIRED_TLS_VERSION);
    suiteOk.add(ALLOWED_SUITES.includes(res.tls_cipher_suite));
    check(res, {
      'The connection uses TLS 1.3 (§5.8)': (r) => r.tls_version === REQUIRED_TLS_VERSION,
      'The cipher suite is one of the three of §5.8': (r) => ALLOWED_SUITES.includes(r.tls_cipher_suite),
    });
  }
  sleep(0.2 + Math.random() * 0.1);
}

export const handleSummary = summaryHandler('tls', cfg);
