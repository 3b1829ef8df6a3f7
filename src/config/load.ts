// Reads the YAML config once into a typed object. Every error names the file and the key path
// and says how to fix it; secrets are referenced as ${VAR} and taken from the environment.

import { LineCounter, parseDocument, visit, type Document } from 'yaml';
import type { z } from 'zod';
import { HarnessError } from '../errors.js';
import { FILE_LIMITS, readUserFile } from '../fs/user-file.js';
import { configSchema, type ConfigFile } from './schema.js';

const VAR = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** The validated config, and what the user should hear about it (one line each) without it being an error. */
export interface LoadedConfig {
  config: ConfigFile;
  warnings: string[];
  /** Per environment, the variables its credentials are taken from (`${CES_SANDBOX_CLIENT_ID}` → the name). */
  credentialVariables: Record<string, CredentialVariables>;
}

/** The variable a credential names as its whole value; null where the file writes something else. */
export interface CredentialVariables {
  clientId: string | null;
  clientSecret: string | null;
}

export interface LoadOptions {
  /**
   * Credentials referenced, never read (`k8s`: the pods take them from a Secret): every ${VAR} of
   * a client_id/client_secret stands for this placeholder, so an unset variable is no error and
   * no secret value reaches the settings.
   */
  credentialPlaceholder?: string;
}

export function readConfigFile(path: string, env: NodeJS.ProcessEnv, options: LoadOptions = {}): LoadedConfig {
  let text: string;
  try {
    text = readUserFile(path, { what: 'config', maxBytes: FILE_LIMITS.config, fix: 'check the --config path' });
  } catch (err) {
    if (err instanceof HarnessError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    throw new HarnessError(
      'CONFIG_NOT_FOUND',
      `config ${path}: cannot read it (${code ?? 'error'}); check the --config path`,
    );
  }
  return loadConfig(text, path, env, options);
}

export const parseConfig = (text: string, source: string, env: NodeJS.ProcessEnv): ConfigFile =>
  loadConfig(text, source, env).config;

export function loadConfig(
  text: string,
  source: string,
  env: NodeJS.ProcessEnv,
  options: LoadOptions = {},
): LoadedConfig {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { prettyErrors: true, uniqueKeys: true, lineCounter });
  const yamlError = doc.errors[0];
  if (yamlError) {
    const line = yamlError.linePos?.[0];
    const where = line ? ` line ${line.line}, column ${line.col}` : '';
    const what = (yamlError.message.split('\n')[0] ?? 'invalid YAML').replace(/ at line \d+, column \d+:?/, '');
    throw new HarnessError('CONFIG_INVALID', `config ${source}:${where}: ${what}; fix the YAML syntax`);
  }
  const raw = toPlainData(doc, source, lineCounter);
  // An empty file is not "nothing configured": the user pointed at a config, so running the
  // built-in emulator instead would report a PASS for a target nobody asked about.
  if (raw === null || raw === undefined) {
    throw new HarnessError(
      'CONFIG_INVALID',
      `config ${source} is empty; describe the target under environments: (see README, "Test your sandbox"), or drop --config to test the built-in emulator`,
    );
  }
  const placeholder = options.credentialPlaceholder;
  const interpolated = interpolate(
    raw,
    [],
    source,
    placeholder === undefined ? env : { ...env, ...credentialPlaceholders(raw, placeholder) },
  );
  // reportInput lets an error say what type it got; only the type name is ever printed, never the value.
  const parsed = configSchema.safeParse(interpolated, { reportInput: true });
  if (!parsed.success)
    throw new HarnessError('CONFIG_INVALID', `config ${source}: ${describeIssue(parsed.error.issues[0])}`);
  const warnings =
    parsed.data.allow_literal_secrets === true
      ? []
      : [...literalSecrets(raw).map((name) => literalSecretWarning(source, name)), ...literalSecondSecret(raw, source)];
  return { config: parsed.data, warnings, credentialVariables: credentialVariablesOf(raw) };
}

/**
 * The document as plain data. Aliases are resolved only here, so their problems surface here: an
 * alias to no anchor (`*b`), and one expanding past the library's count (100 nodes, a "billion
 * laughs" bomb). The library throws them with no position; each alias notes its own before
 * passing the error on, the innermost first, so the line names the alias at fault.
 */
function toPlainData(doc: Document, source: string, lineCounter: LineCounter): unknown {
  let at: number | undefined;
  visit(doc, {
    Alias(_key, node) {
      const toJSON = node.toJSON.bind(node);
      node.toJSON = (...args: Parameters<typeof toJSON>) => {
        try {
          return toJSON(...args);
        } catch (err) {
          at ??= node.range?.[0];
          throw err;
        }
      };
    },
  });
  try {
    return doc.toJS();
  } catch (err) {
    if (!(err instanceof ReferenceError)) throw err;
    const pos = at === undefined ? undefined : lineCounter.linePos(at);
    const where = pos ? ` line ${pos.line}, column ${pos.col}` : '';
    const what = /^Unresolved alias/.test(err.message)
      ? 'an alias (*name) with no anchor (&name) before it; define the anchor first, or write the value out'
      : 'aliases that expand to too many nodes (a "billion laughs" bomb?); write the values out, or use fewer nested aliases';
    throw new HarnessError('CONFIG_INVALID', `config ${source}:${where}: ${what}`);
  }
}

type RawEnvironments = Record<string, { client_id?: unknown; client_secret?: unknown } | null>;

// The YAML as written, before ${VAR}s are replaced: where the credentials come from, never their values.
const rawEnvironments = (raw: unknown): RawEnvironments =>
  (raw as { environments?: RawEnvironments | null }).environments ?? {};

function credentialVariablesOf(raw: unknown): Record<string, CredentialVariables> {
  const whole = (v: unknown) => (typeof v === 'string' ? (new RegExp(`^${VAR.source}$`).exec(v)?.[1] ?? null) : null);
  return Object.fromEntries(
    Object.entries(rawEnvironments(raw)).map(([name, e]) => [
      name,
      { clientId: whole(e?.client_id), clientSecret: whole(e?.client_secret) },
    ]),
  );
}

// rate_limit.second_client as written: credentials like an environment's, read and warned about alike.
const rawSecondClient = (raw: unknown): RawEnvironments[string] | undefined =>
  (raw as { rate_limit?: { second_client?: RawEnvironments[string] } | null }).rate_limit?.second_client;

/** Every variable a credential names (as its whole value or part of it), set to the placeholder. */
function credentialPlaceholders(raw: unknown, placeholder: string): Record<string, string> {
  const names = [...Object.values(rawEnvironments(raw)), rawSecondClient(raw)].flatMap((e) =>
    [e?.client_id, e?.client_secret].flatMap((v) =>
      typeof v === 'string' ? [...v.matchAll(VAR)].map((m) => m[1]!) : [],
    ),
  );
  return Object.fromEntries(names.map((name) => [name, placeholder]));
}

/** Environments whose client_secret is written in the file rather than taken from a ${VAR}. */
function literalSecrets(raw: unknown): string[] {
  return Object.entries(rawEnvironments(raw))
    .filter(([, e]) => typeof e?.client_secret === 'string' && !new RegExp(VAR.source).test(e.client_secret))
    .map(([name]) => name);
}

/** The same warning for rate_limit.second_client.client_secret written in the file. */
function literalSecondSecret(raw: unknown, source: string): string[] {
  const secret = rawSecondClient(raw)?.client_secret;
  if (typeof secret !== 'string' || new RegExp(VAR.source).test(secret)) return [];
  return [
    `config ${source}: rate_limit.second_client.client_secret is written in the file; keep secrets out of files: export CES_SECOND_CLIENT_SECRET and write client_secret: \${CES_SECOND_CLIENT_SECRET} (or set allow_literal_secrets: true if this is a throwaway test secret)`,
  ];
}

// The README's rule, said where it is broken: a secret in a file ends up in a commit, a CI log or
// an artifact. Warned, not refused, so a throwaway test secret still works; the opt-in silences it.
function literalSecretWarning(source: string, environment: string): string {
  const variable = `CES_${environment.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_CLIENT_SECRET`;
  return `config ${source}: environments.${environment}.client_secret is written in the file; keep secrets out of files: export ${variable} and write client_secret: \${${variable}} (or set allow_literal_secrets: true if this is a throwaway test secret)`;
}

/** Replaces ${VAR} in every string value; an unset variable is an error naming the key. */
function interpolate(value: unknown, path: Array<string | number>, source: string, env: NodeJS.ProcessEnv): unknown {
  if (typeof value === 'string') {
    return value.replace(VAR, (_, name: string) => {
      const resolved = env[name];
      if (resolved === undefined || resolved === '') {
        throw new HarnessError(
          'MISSING_CREDENTIAL',
          `config ${source}: ${keyPath(path)} refers to \${${name}}, which is not set; export ${name} before running`,
        );
      }
      return resolved;
    });
  }
  if (Array.isArray(value)) return value.map((v, i) => interpolate(v, [...path, i], source, env));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, interpolate(v, [...path, k], source, env)]));
  }
  return value;
}

const keyPath = (path: ReadonlyArray<PropertyKey>) => (path.length ? path.map(String).join('.') : '(top level)');

function describeIssue(issue: z.core.$ZodIssue | undefined): string {
  if (!issue) return 'invalid config';
  const at = keyPath(issue.path);
  switch (issue.code) {
    case 'unrecognized_keys': {
      const keys = issue.keys.map((k) => (issue.path.length ? `${at}.${k}` : k));
      return `unknown key ${keys.join(', ')}; remove it or check its spelling`;
    }
    case 'invalid_type':
      return `${at}: expected ${issue.expected}${issue.input === undefined ? ' (missing)' : `, got ${typeName(issue.input)}`}`;
    case 'invalid_value':
      return `${at}: must be one of ${issue.values.map((v) => String(v)).join(', ')}`;
    case 'invalid_format':
      return `${at}: expected a ${issue.format === 'url' ? 'URL like https://sandbox.example.test' : issue.format}`;
    case 'too_small':
      return `${at}: ${issue.origin === 'string' ? 'must not be empty' : `must be ${issue.inclusive ? 'at least' : 'more than'} ${String(issue.minimum)}`}`;
    default:
      return `${at}: ${issue.message}`;
  }
}

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  return typeof v === 'object' ? 'a mapping' : typeof v;
}
