// What the user gives to name a target, checked before any request: the base URL (https, no
// user:password@) and the CA file (readable, PEM). A flag's problem is a usage error, a config
// key's a config error; either names where the value came from.

import { HarnessError } from '../errors.js';
import { FILE_LIMITS, readUserFile } from '../fs/user-file.js';
import { parseCaPem } from './ca-pem.js';

export function readCa(path: string, from: string): { caPem: string; caFile: string } {
  let pem: string;
  try {
    pem = readUserFile(path, { what: from, maxBytes: FILE_LIMITS.ca, fix: 'give the CA certificate in PEM form' });
  } catch (err) {
    if (err instanceof HarnessError) throw err;
    throw new HarnessError(
      'CONFIG_INVALID',
      `${from}: cannot read CA file ${path} (${(err as NodeJS.ErrnoException).code ?? 'error'}); give a readable PEM file`,
    );
  }
  const parsed = parseCaPem(pem);
  if ('problem' in parsed)
    throw new HarnessError(from === '--ca' ? 'USAGE' : 'CONFIG_INVALID', `${from}: ${path} ${parsed.problem}`);
  return { caPem: pem, caFile: path };
}

export function validUrl(url: string, from = '--base-url'): string {
  const code = from === '--base-url' ? 'USAGE' : 'CONFIG_INVALID';
  const shown = withoutUserinfo(url);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new HarnessError(code, `${from} ${shown} is not a URL; give one like https://sandbox.example.test`);
  }
  // Refused before any request: a password in a URL lands in every log, report and ledger entry
  // that names the target, and the service takes its credentials in the POST /tokens body anyway.
  if (parsed.username !== '' || parsed.password !== '') {
    throw new HarnessError(
      code,
      `${from} ${shown} has a user name or password in it; drop the user:password@ part (credentials come from CES_CLIENT_ID/CES_CLIENT_SECRET or the config's \${VAR}s)`,
    );
  }
  if (parsed.protocol !== 'https:') {
    throw new HarnessError(
      code,
      `${from} ${shown} is not https: the service speaks TLS 1.3 only (§5.8); use an https:// URL`,
    );
  }
  // Every path is appended to the base URL as text: https://host/?q=1 would send /?q=1/tokens, each
  // check would get a 404 and the verdict would blame the service. A bare `?` or `#` counts too. The
  // line shows the URL only up to it: a query may carry a key the user would not want in a CI log.
  const cut = url.search(/[?#]/);
  if (cut >= 0) {
    const what = url[cut] === '?' ? 'a query (?…)' : 'a fragment (#…)';
    throw new HarnessError(
      code,
      `${from} ${withoutUserinfo(url.slice(0, cut))} has ${what} after it; give the service's base URL alone, like https://sandbox.example.test/ces`,
    );
  }
  return url;
}

/** The URL as an error may show it: whatever stands before an `@` in the authority is hidden. */
export const withoutUserinfo = (url: string): string => url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#]*@/i, '$1***@');

export const trimSlash = (url: string) => url.replace(/\/+$/, '');

/**
 * The service a base URL names, for telling two environments apart: scheme, host in lower case,
 * port without the default 443, path without a trailing slash (URL does all but the last).
 */
export function serviceKey(url: string): string {
  const u = new URL(url);
  return `${u.origin}${trimSlash(u.pathname)}`;
}

/**
 * Two environments on one URL are one service: its credential isolation would fail, blamed on the
 * service, and the "sandbox" probed for rate limits would be production. Refused before any request.
 */
export function refuseSharedUrl(targets: ReadonlyArray<{ environment: string; baseUrl: string }>): void {
  const seen = new Map<string, string>();
  for (const t of targets) {
    const key = serviceKey(t.baseUrl);
    const other = seen.get(key);
    if (other !== undefined) {
      throw new HarnessError(
        'CONFIG_INVALID',
        `environments ${other} and ${t.environment} have the same base URL (${key}), so they are one service and cannot be tested apart; give each environment its own base URL`,
      );
    }
    seen.set(key, t.environment);
  }
}
