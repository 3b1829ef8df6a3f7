// Which target a run tests, from the config's environments or --base-url: the one named (--env,
// the config's target:, else sandbox) and the others of the config (checked for isolation). Every
// production-looking name or URL must be marked one way or the other before a request goes out.

import { HarnessError } from '../errors.js';
import type { ConfigFile } from './schema.js';
import type { Target } from './target.js';
import { productionNameProblem, productionPartOfUrl, readsLikeProduction } from './production-name.js';
import { resolve as resolvePath } from 'node:path';
import { readCa, trimSlash, validUrl, withoutUserinfo } from './target-input.js';

export const DEFAULT_CONFIG_FILE = 'ces-harness.yaml';
/** The built-in emulator's environments; the first is the target unless --env names the other. */
export const EMBEDDED_ENVIRONMENTS: readonly string[] = ['sandbox', 'production'];

type Environment = NonNullable<ConfigFile['environments']>[string];

/** The flags that choose a target (resolve.ts SettingFlags has them all). */
interface TargetFlags {
  env?: string;
  'base-url'?: string;
  'verbose-bodies'?: boolean;
}

/** What every target is built with: the environment named, the flags, where the config is, the CA and timeout given. */
export interface TargetInputs {
  name: string;
  flags: Pick<TargetFlags, 'base-url' | 'verbose-bodies'>;
  configPath: string | undefined;
  configDir: string;
  caFromFlag: { caFile: string; caPem: string } | undefined;
  requestTimeoutS: number;
}

/** Throws when the environment named is in no config and not the built-in emulator's. */
export function refuseUnknownEnvironment(
  name: string,
  flags: Pick<TargetFlags, 'env' | 'base-url'>,
  config: { environments: NonNullable<ConfigFile['environments']>; configPath: string | undefined; fromFile: boolean },
): void {
  const { environments, configPath } = config;
  const configured = environments[name];
  if (!configured && Object.keys(environments).length > 0 && !flags['base-url']) {
    throw new HarnessError(
      'UNKNOWN_ENVIRONMENT',
      `environment "${name}" is not in ${configPath}; known: ${Object.keys(environments).join(', ')} (pass --env NAME)`,
    );
  }
  // Without any config, --env picks one of the built-in emulator's environments (production is read-only there too).
  if (flags.env && !configured && !flags['base-url'] && (config.fromFile || !EMBEDDED_ENVIRONMENTS.includes(name))) {
    throw new HarnessError(
      'UNKNOWN_ENVIRONMENT',
      `environment "${name}" is not configured; add it under environments: in ${DEFAULT_CONFIG_FILE} or pass --base-url`,
    );
  }
}

/** The target of a config's environment (its base URL --base-url's when it is the one named); throws on a production it cannot tell. */
export function configuredTarget(envName: string, e: Environment, inputs: TargetInputs): Target {
  const { name, flags, configPath } = inputs;
  const ambiguous = productionNameProblem(envName, e.production, `environments.${envName}`);
  if (ambiguous) throw new HarnessError('CONFIG_INVALID', `config ${configPath}: ${ambiguous}`);
  const url = envName === name && flags['base-url'] ? flags['base-url'] : e.base_url;
  const part = productionPartOfUrl(url);
  if (part !== undefined && e.production === undefined && envName.toLowerCase() !== 'production')
    throw new HarnessError(
      'CONFIG_INVALID',
      `config ${configPath}: environment "${envName}" has a base URL that reads like production (its "${part}"), but environments.${envName}.production is not set; set environments.${envName}.production: true (read-only: no load, probing or business call without an opt-in) or environments.${envName}.production: false if it is a sandbox`,
    );
  const ca =
    inputs.caFromFlag ??
    (e.ca_file ? readCa(resolvePath(inputs.configDir, e.ca_file), `environments.${envName}.ca_file`) : undefined);
  return {
    environment: envName,
    baseUrl: trimSlash(
      envName === name && flags['base-url']
        ? validUrl(flags['base-url'])
        : validUrl(e.base_url, `environments.${envName}.base_url`),
    ),
    credentials: { clientId: e.client_id, clientSecret: e.client_secret },
    requestTimeoutS: inputs.requestTimeoutS,
    ...(flags['verbose-bodies'] ? { verboseBodies: true } : {}),
    ...(ca ?? {}),
    ...(e.production ? { production: true } : {}),
  };
}

/**
 * The target of --base-url with no config entry, its credentials from CES_CLIENT_ID and
 * CES_CLIENT_SECRET; throws when a production-like name or URL cannot be marked (no config entry
 * to carry `production:`) or a credential is missing.
 */
export function baseUrlTarget(baseUrlFlag: string, env: NodeJS.ProcessEnv, inputs: TargetInputs): Target {
  const { name } = inputs;
  if (name.toLowerCase() !== 'production' && readsLikeProduction(name))
    throw new HarnessError(
      'CONFIG_INVALID',
      `--env ${name} reads like production, and a --base-url target cannot be marked either way; put it in a config under environments: with production: true (or production: false), or pass another --env name`,
    );
  const part = productionPartOfUrl(baseUrlFlag);
  if (name.toLowerCase() !== 'production' && part !== undefined)
    throw new HarnessError(
      'CONFIG_INVALID',
      `--base-url ${withoutUserinfo(baseUrlFlag)} reads like production (its "${part}"), and a --base-url target cannot be marked either way; put it in a config under environments: with production: true (or production: false), or pass --env production`,
    );
  const baseUrl = trimSlash(validUrl(baseUrlFlag));
  const clientId = env['CES_CLIENT_ID'];
  const clientSecret = env['CES_CLIENT_SECRET'];
  if (!clientId || !clientSecret) {
    const missing = [!clientId && 'CES_CLIENT_ID', !clientSecret && 'CES_CLIENT_SECRET'].filter(Boolean).join(' and ');
    throw new HarnessError(
      'MISSING_CREDENTIAL',
      `no client credentials for ${withoutUserinfo(baseUrlFlag)}: export ${missing} (credentials are never taken from flags)`,
    );
  }
  return {
    environment: name,
    baseUrl,
    credentials: { clientId, clientSecret },
    requestTimeoutS: inputs.requestTimeoutS,
    ...(inputs.flags['verbose-bodies'] ? { verboseBodies: true } : {}),
    ...(inputs.caFromFlag ?? {}),
  };
}
