// `ces-harness k8s`: k6-operator manifests for the selected scenarios, written to --out-dir as
// <scenario>.yaml (the ConfigMap with the bundled script, then its TestRun(s)), and the kubectl
// lines to run. Credentials are only referenced: the pods read them from a Secret the user
// creates from their own environment variables, so no secret value is ever read here.

import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';
import { DEFAULT_CONFIG_FILE, resolveSettings, type Overrides } from '../../config/resolve.js';
import { HarnessError, usageError } from '../../errors.js';
import { FILE_LIMITS, readUserFile } from '../../fs/user-file.js';
import { ensureWritableDir } from '../../fs/writable.js';
import { K6_SCENARIOS } from '../../k6/scenarios.js';
import { findProjectRoot } from '../../fs/project-root.js';
import { k8sManifests, k8sName, toYaml } from '../../k8s/manifests.js';
import type { Options } from '../flags.js';
import { selectedScenarios } from './load.js';

export interface K8sCommandIo {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  out?: (line: string) => void;
  /** Folder of the bundles; default <projectRoot>/dist/scenarios. */
  bundleDir?: string;
}

const VAR = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$/;

const readConfigText = (path: string) => readUserFile(path, { what: 'config', maxBytes: FILE_LIMITS.config, fix: 'check the --config path' });

/**
 * The names of the variables the config takes the credentials from (`${CES_SANDBOX_CLIENT_ID}`),
 * read from the raw YAML: the values are never needed, and must not be read into a manifest.
 */
export function credentialVariables(configPath: string | null, environment: string, byBaseUrl: boolean): { clientId: string; clientSecret: string } {
  const fallback = { clientId: 'CES_CLIENT_ID', clientSecret: 'CES_CLIENT_SECRET' };
  if (configPath === null || byBaseUrl) return fallback;
  const raw = parse(readConfigText(configPath)) as { environments?: Record<string, { client_id?: unknown; client_secret?: unknown }> } | null;
  const e = raw?.environments?.[environment];
  const name = (v: unknown, d: string) => (typeof v === 'string' ? (VAR.exec(v)?.[1] ?? d) : d);
  return { clientId: name(e?.client_id, fallback.clientId), clientSecret: name(e?.client_secret, fallback.clientSecret) };
}

/** The ${VAR}s the config's environments take their credentials (client_id/client_secret) from. */
function configVariables(path: string): { credentials: string[] } {
  const text = readConfigText(path);
  const raw = parse(text) as { environments?: Record<string, { client_id?: unknown; client_secret?: unknown }> } | null;
  const credentials = Object.values(raw?.environments ?? {}).flatMap((e) =>
    [e?.client_id, e?.client_secret].flatMap((v) => (typeof v === 'string' ? [...v.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g)].map((m) => m[1]!) : [])),
  );
  return { credentials };
}

export async function k8sCommand(options: Options, io: K8sCommandIo = {}): Promise<number> {
  const cwd = io.cwd ?? process.cwd();
  const env = io.env ?? process.env;
  const out = io.out ?? ((line: string) => process.stdout.write(line + '\n'));
  const parallelism = options.parallelism ?? 2;
  const scenarios = selectedScenarios(options);

  // The manifests only reference the credentials, so they must not be required: the credential
  // variables (and CES_CLIENT_ID/SECRET for --base-url) get a placeholder, overriding any real
  // value, so no secret even reaches the settings.
  const configPath = options.config ?? (existsSync(resolve(cwd, DEFAULT_CONFIG_FILE)) ? DEFAULT_CONFIG_FILE : undefined);
  const placeholders: Record<string, string> = { CES_CLIENT_ID: 'referenced-from-secret', CES_CLIENT_SECRET: 'referenced-from-secret' };
  if (configPath !== undefined && existsSync(resolve(cwd, configPath))) {
    const vars = configVariables(resolve(cwd, configPath));
    for (const name of vars.credentials) placeholders[name] = 'referenced-from-secret';
  }
  const overrides: Overrides = {
    ...(configPath !== undefined ? { config: configPath } : {}),
    ...(options.env !== undefined ? { env: options.env } : {}),
    ...(options['base-url'] !== undefined ? { baseUrl: options['base-url'] } : {}),
  };
  const settings = resolveSettings(overrides, { ...env, ...placeholders }, cwd);
  for (const warning of settings.warnings) process.stderr.write(`ces-harness: warning: ${warning}\n`);
  const target = settings.target;
  if (target === null) {
    throw usageError('k8s needs a target the cluster can reach: name an environment in the config or pass --base-url (the built-in emulator runs only on loopback)');
  }
  const vars = credentialVariables(settings.configPath, target.environment, options['base-url'] !== undefined && settings.configPath === null);

  const bundleDir = io.bundleDir ?? join(findProjectRoot(), 'dist', 'scenarios');
  const outDir = resolve(cwd, options['out-dir'] ?? 'k8s');
  ensureWritableDir(outDir, { what: '--out-dir', fix: 'give a folder you can write to' });
  const runId = randomUUID();
  const secretName = k8sName('ces-harness', target.environment, 'credentials');
  const load = settings.load;
  const files: string[] = [];
  for (const scenario of scenarios) {
    const bundles: Record<string, string> = {};
    for (const b of K6_SCENARIOS[scenario].bundles) {
      try {
        bundles[b] = await readFile(join(bundleDir, `${b}.js`), 'utf8');
      } catch {
        throw new HarnessError('USAGE', `the k6 scenario bundle ${b}.js is not built; run \`npm run build\` in the ces-harness folder`);
      }
    }
    const { configMap, testRuns } = k8sManifests({
      scenario,
      bundles,
      parallelism,
      environment: target.environment,
      secretName,
      runId,
      inputs: {
        baseUrl: target.baseUrl,
        tokenLifetimeS: settings.expect.tokenLifetimeS,
        clockToleranceS: settings.expect.clockToleranceS,
        rate: load.rate ?? 20,
        durationS: load.duration_s ?? 60,
        vus: load.vus ?? 5,
        business: settings.business,
        rateLimitEndpoint: settings.rateLimit.endpoint,
        ...(load.thresholds ? { thresholds: load.thresholds } : {}),
      },
      ...(target.caPem !== undefined ? { caPem: target.caPem } : {}),
      ...(load.outputs ? { outputs: load.outputs } : {}),
    });
    const file = join(outDir, `${scenario}.yaml`);
    await writeFile(file, toYaml(configMap, ...testRuns));
    files.push(file);
  }

  out(`wrote ${files.length} manifest file(s) to ${outDir} (run id ${runId}, ${parallelism} runner pods each)`);
  out('create the credentials Secret from your environment (values never appear in the manifests):');
  out(`  kubectl create secret generic ${secretName} --from-literal=client_id="$${vars.clientId}" --from-literal=client_secret="$${vars.clientSecret}"`);
  out('then start the test runs:');
  for (const f of files) out(`  kubectl apply -f ${f}`);
  return 0;
}
