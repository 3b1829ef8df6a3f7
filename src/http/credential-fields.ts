// Which parts of a message carry a credential or a token, by structure rather than by value: the
// service client fingerprints whatever stands there, and a refusal (401/403/429) must carry none.

/** JSON fields that carry a credential or a token, compared case-insensitively. */
export const CREDENTIAL_FIELDS: ReadonlySet<string> = new Set(['token', 'access_token', 'refresh_token', 'id_token', 'bearer', 'client_secret', 'secret', 'password', 'api_key', 'apikey']);

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

/** The first string in a token-carrying field, e.g. of a refusal, to find out whether it works. */
export function tokenIn(value: unknown): string | undefined {
  const found = credentialFieldsIn(value).find((f) => typeof f.value === 'string' && /token|bearer/i.test(f.path.split('.').pop() ?? ''));
  return found?.value as string | undefined;
}
