// Which parts of a message carry a credential or a token, by structure rather than by value: the
// service client hides whatever an answer hands out there from then on (handed-out.ts), and the
// redactor hides whatever follows these names in text from outside. Never a judgement: a refusal is judged by the
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
