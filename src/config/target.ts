// A resolved environment of the service under test: where it is, how to trust it, who we are.

import type { Credentials } from '../spec/credentials.js';

export interface Target {
  environment: string;
  /** Without a trailing slash; paths of the spec are appended as they are. */
  baseUrl: string;
  credentials: Credentials;
  /** Extra CA to trust (PEM text) and its file (k6 needs a path, undici and node:tls the text). */
  caPem?: string;
  caFile?: string;
  /** How long one request may take, connect to last byte (request_timeout_s, --request-timeout); 10 s when absent. */
  requestTimeoutS?: number;
  /** --verbose-bodies: reports quote its answers whole (through the redactor), not only the spec's fields. */
  verboseBodies?: boolean;
  /** True when the target is the built-in emulator the harness started itself. */
  emulated?: boolean;
  /** `production: true` in its config entry: production whatever its name. */
  production?: boolean;
}

/** Production is read-only by default (src/http/production-gate.ts): named so, or marked so. */
export const isProduction = (t: Pick<Target, 'environment' | 'production'>) =>
  t.production === true || t.environment.toLowerCase() === 'production';
