// The environment the user's client runs with: the connection to the emulator under the names the
// harness documents, and the CA under the names common stacks read on their own (Node, OpenSSL and
// Python's ssl, requests, curl), so most clients need no code to trust it. The harness' own CES_*
// variables (real credentials of a real environment) are not handed to a program under test.

/** How long a client should keep working, seconds: long enough for a 2 s token to expire mid-run. */
export const CLIENT_RUN_SECONDS = 5;

/** CES_RUN_SECONDS: the usual run, or half the time limit when that is shorter, so a client that obeys it ends in time. */
export const runSecondsWithin = (timeLimitS: number): number =>
  Math.min(CLIENT_RUN_SECONDS, Math.max(1, Math.floor(timeLimitS / 2)));

export interface Connection {
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  caFile: string;
  runSeconds: number;
}

export const CONNECTION_VARIABLES = [
  'CES_BASE_URL',
  'CES_CLIENT_ID',
  'CES_CLIENT_SECRET',
  'CES_CA_FILE',
  'CES_RUN_SECONDS',
  'NODE_EXTRA_CA_CERTS',
  'SSL_CERT_FILE',
  'REQUESTS_CA_BUNDLE',
  'CURL_CA_BUNDLE',
] as const;

export function clientEnvironment(parent: NodeJS.ProcessEnv, c: Connection): NodeJS.ProcessEnv {
  const kept = Object.fromEntries(Object.entries(parent).filter(([name]) => !name.startsWith('CES_')));
  const given: Record<(typeof CONNECTION_VARIABLES)[number], string> = {
    CES_BASE_URL: c.baseUrl,
    CES_CLIENT_ID: c.clientId,
    CES_CLIENT_SECRET: c.clientSecret,
    CES_CA_FILE: c.caFile,
    CES_RUN_SECONDS: String(c.runSeconds),
    NODE_EXTRA_CA_CERTS: c.caFile,
    SSL_CERT_FILE: c.caFile,
    REQUESTS_CA_BUNDLE: c.caFile,
    CURL_CA_BUNDLE: c.caFile,
  };
  return { ...kept, ...given };
}
