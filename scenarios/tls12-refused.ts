// §5.8 "TLS 1.3 is required": a client that can speak at most TLS 1.2 must not get a connection.
// k6 sets TLS versions per test run (options.tlsVersion), not per request or per scenario, so
// this probe is its own script; the harness runs it as part of the `tls` scenario
// (src/k6/scenarios.ts).
//
// Outcomes of a TLS 1.2-capped request:
// - an HTTP answer, or a certificate error (the server got as far as sending its certificate,
//   which in TLS 1.2 comes after it agreed to 1.2): accepted, the finding this probe exists for;
// - a TLS alert or the connection closed during the handshake: refused, as the spec wants;
// - no TCP connection at all: inconclusive; the check fails so an unreachable target never passes.

import { check, sleep } from 'k6';
import http from 'k6/http';
import { readConfig } from './lib/config';
import { healthCheck, type Res } from './lib/endpoints';
import { rate } from './lib/metrics';
import { scenarioOptions, secs } from './lib/options';
import { summaryHandler } from './lib/summary';

const cfg = readConfig();

// The refused handshakes are the expected outcome (status 0); an HTTP answer of any kind is not.
http.setResponseCallback(http.expectedStatuses(0));

const accepted = rate('tls12_connection_accepted');

export const options = scenarioOptions(
  cfg,
  {
    tls12_probe: {
      executor: 'per-vu-iterations',
      vus: 1,
      iterations: 3,
      maxDuration: secs(Math.min(cfg.durationS, 10) + 20),
    },
  },
  {
    tls12_connection_accepted: ['rate==0'],
    checks: ['rate==1'],
  },
  {
    tlsVersion: { min: 'tls1.2', max: 'tls1.2' },
    // Every attempt is a new handshake; a reused connection would prove nothing.
    noVUConnectionReuse: true,
    noConnectionReuse: true,
  },
);

type ProbeOutcome = 'accepted' | 'refused' | 'unreachable';

// k6 error codes (lib/netext/httpext/error_codes.go): 1310/1311 are certificate verification
// failures, 11xx DNS, 1210-1213 dial errors, 1050 request timeout.
function classify(res: Res): ProbeOutcome {
  if (res.status !== 0) return 'accepted';
  const code = res.error_code;
  if (code === 1310 || code === 1311) return 'accepted';
  if ((code >= 1100 && code < 1200) || (code >= 1210 && code <= 1213) || code === 1050) return 'unreachable';
  return /tls|EOF|reset/i.test(res.error) ? 'refused' : 'unreachable';
}

export default function (): void {
  const res = healthCheck(cfg, { tags: { probe: 'tls1.2-only' } });
  const outcome = classify(res);
  accepted.add(outcome === 'accepted');
  check(res, {
    'A client limited to TLS 1.2 cannot complete a handshake (§5.8)': () => outcome !== 'accepted',
    "The TLS 1.2 probe reached the service's TLS layer (else the result is inconclusive)": () =>
      outcome !== 'unreachable',
  });
  sleep(0.1);
}

export const handleSummary = summaryHandler('tls12-refused', cfg);
