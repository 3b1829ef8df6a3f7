// Which parts of a message carry a credential or a token, by structure rather than by value: the
// service client hides whatever an answer hands out there from then on, and the redactor hides
// whatever follows these names in text from outside. Never a judgement: a refusal is judged by the
// values it carries (src/runner/expect.ts), not by what its fields are called. The one list of such names.

/** JSON fields (and form fields) that carry a credential or a token, compared case-insensitively. */
export const CREDENTIAL_FIELDS: ReadonlySet<string> = new Set([
  'token',
  'access_token',
  'refresh_token',
  'id_token',
  'bearer',
  'client_secret',
  'secret',
  'password',
  'api_key',
  'apikey',
]);

/** HTTP headers that carry a credential or a token, lower-cased. */
export const CREDENTIAL_HEADERS: ReadonlySet<string> = new Set([
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'x-api-key',
]);

/** Every credential-carrying name, fields and headers: what the redactor looks for after a key. */
export const CREDENTIAL_NAMES: readonly string[] = [...CREDENTIAL_FIELDS, ...CREDENTIAL_HEADERS];

export interface CredentialField {
  /** Dotted path, e.g. `token` or `data.items[0].access_token`. */
  path: string;
  value: unknown;
}

/** The non-empty credential-carrying fields anywhere in a JSON value. */
export function credentialFieldsIn(value: unknown, path = ''): CredentialField[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => credentialFieldsIn(v, `${path}[${i}]`));
  if (!value || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([k, v]) => {
    const here = path ? `${path}.${k}` : k;
    const own = CREDENTIAL_FIELDS.has(k.toLowerCase()) && v !== null && v !== '' ? [{ path: here, value: v }] : [];
    return [...own, ...credentialFieldsIn(v, here)];
  });
}

/** The credential-carrying headers of an answer (names lower-cased), e.g. a Set-Cookie on a 401. */
export function credentialHeadersIn(headers: Record<string, string>): CredentialField[] {
  return Object.entries(headers)
    .filter(([name, value]) => CREDENTIAL_HEADERS.has(name.toLowerCase()) && value !== '')
    .map(([name, value]) => ({ path: `header ${name.toLowerCase()}`, value }));
}

/** The value a credential header carries: the token of `Bearer x`, the value of `name=x; Path=/`. */
export function headerCredential(name: string, value: string): string {
  const scheme = /^\s*(?:Bearer|Token)\s+(\S+)/i.exec(value);
  if (scheme) return scheme[1]!;
  if (/cookie/i.test(name)) return /^\s*[^=;\s]+=([^;]*)/.exec(value)?.[1]?.trim() ?? value;
  return value.trim();
}
