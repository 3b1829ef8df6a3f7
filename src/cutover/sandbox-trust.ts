// Certificates compared by trust, not by issuer name: does production's chain verify against the
// trust a client was given for sandbox? That is sandbox's ca file (besides the system store, as the
// harness and Node's NODE_EXTRA_CA_CERTS trust it), or the system store alone when sandbox has
// none. One TLS handshake to production, no HTTP request: the certificate is read, nothing is sent.

import type { Target } from '../config/target.js';
import type { EnvironmentFacts } from './facts.js';
import { handshake } from '../tls/handshake.js';
import { tlsEndpoint } from '../tls/endpoint.js';
import { explainAuthorizationError } from '../tls/certificate.js';

const TRUST_TIMEOUT_MS = 5_000;

type TrustFacts = Pick<EnvironmentFacts, 'certificate_sandbox_trust_verifies' | 'certificate_sandbox_trust'> & {
  missing?: Record<string, string>;
};

export async function sandboxTrust(production: Target, sandbox: Target, signal: AbortSignal): Promise<TrustFacts> {
  const trust = sandbox.caFile
    ? `${sandbox.environment}'s ca_file ${sandbox.caFile} and the system store`
    : sandbox.caPem
      ? `${sandbox.environment}'s CA (--ca) and the system store`
      : 'the system store (sandbox has no ca_file)';
  const endpoint = tlsEndpoint({ baseUrl: production.baseUrl, ...(sandbox.caPem ? { caPem: sandbox.caPem } : {}) });
  if (!endpoint.https)
    return {
      certificate_sandbox_trust_verifies: false,
      certificate_sandbox_trust: 'is not served: production is plain HTTP',
    };
  const r = await handshake({
    host: endpoint.host,
    port: endpoint.port,
    ...(endpoint.servername ? { servername: endpoint.servername } : {}),
    ...(endpoint.caPem ? { caPem: endpoint.caPem } : {}),
    verify: true,
    readCertificate: false,
    timeoutMs: TRUST_TIMEOUT_MS,
    signal,
  });
  if (!r.ok)
    return {
      missing: {
        certificate_sandbox_trust: `the handshake with ${trust} got no answer: ${r.error?.message ?? 'no answer'}`,
      },
    };
  if (r.authorized === true)
    return { certificate_sandbox_trust_verifies: true, certificate_sandbox_trust: `verifies against ${trust}` };
  const why = r.authorizationError ? explainAuthorizationError(r.authorizationError).what : 'not trusted';
  return {
    certificate_sandbox_trust_verifies: false,
    certificate_sandbox_trust: `does not verify against ${trust} (${why})`,
  };
}
