// `ces-harness k8s`: k6-operator manifests for the selected scenarios, written to --out-dir as
// <scenario>.yaml (the ConfigMap with the bundled script, then its TestRun(s)), and the kubectl
// lines to run. Credentials are only referenced: the pods read them from a Secret the user
// creates from their own environment variables, so no secret value is ever read here.

import { randomUUID } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { resolveSettings } from '../../config/resolve.js';
import { HarnessError, usageError } from '../../errors.js';
import { ensureWritableDir } from '../../fs/writable.js';
import { K6_SCENARIOS } from '../../k6/scenarios.js';
import { findProjectRoot } from '../../fs/project-root.js';
import { k8sManifests, k8sName, toYaml } from '../../k8s/manifests.js';
import { flagValue, type Options } from '../flags.js';
import { selectedScenarios } from './load.js';
import { businessForLoad, businessNeededBy, refuseProductionLoad } from '../../runner/production-load.js';

export interface K8sCommandIo {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  out?: (line: string) => void;
  /** Where warnings go; default stderr. */
  err?: (line: string) => void;
  /** Folder of the bundles; default <projectRoot>/dist/scenarios. */
  bundleDir?: string;
}

export async function k8sCommand(options: Options, io: K8sCommandIo = {}): Promise<number> {
  const cwd = io.cwd ?? process.cwd();
  const out = io.out ?? ((line: string) => process.stdout.write(line + '\n'));
  const parallelism = flagValue(options, 'parallelism');
  const scenarios = selectedScenarios(options);

  // The manifests only reference the credentials, so they must not be required: every credential
  // variable (and CES_CLIENT_ID/SECRET for --base-url) stands for a placeholder, overriding any
  // real value, so no secret even reaches the settings.
  const settings = await resolveSettings(options, io.env ?? process.env, cwd, {
    credentialPlaceholder: 'referenced-from-secret',
  });
  const err = io.err ?? ((line: string) => process.stderr.write(line + '\n'));
  for (const warning of settings.warnings) err(`ces-harness: warning: ${warning}`);
  const target = settings.target;
  if (target === null) {
    throw usageError(
      'k8s needs a target the cluster can reach: name an environment in the config or pass --base-url (the built-in emulator runs only on loopback)',
    );
  }
  const vars = settings.credentialVariables;
  // The manifests load the target once applied: production is read-only for them too.
  const targetSettings = { ...settings, target };
  refuseProductionLoad(targetSettings, 'k8s load manifests');
  const business = businessForLoad(
    targetSettings,
    'k8s load manifests',
    businessNeededBy(scenarios, settings.rateLimit.endpoint),
  );

  const bundleDir = io.bundleDir ?? join(findProjectRoot(), 'dist', 'scenarios');
  const outDir = resolve(cwd, flagValue(options, 'out-dir'));
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
        throw new HarnessError(
          'USAGE',
          `the k6 scenario bundle ${b}.js is not built; run \`npm run build\` in the ces-harness folder`,
        );
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
        rate: load.rate,
        durationS: load.durationS ?? 60,
        vus: load.vus,
        business,
        rateLimitEndpoint: settings.rateLimit.endpoint,
        thresholds: load.thresholds,
        requestTimeoutS: settings.requestTimeoutS,
      },
      caPem: target.caPem,
      outputs: load.outputs,
    });
    const file = join(outDir, `${scenario}.yaml`);
    await writeFile(file, toYaml(configMap, ...testRuns));
    files.push(file);
  }

  out(`wrote ${files.length} manifest file(s) to ${outDir} (run id ${runId}, ${parallelism} runner pods each)`);
  out('create the credentials Secret from your environment (values never appear in the manifests):');
  out(
    `  kubectl create secret generic ${secretName} --from-literal=client_id="$${vars.clientId}" --from-literal=client_secret="$${vars.clientSecret}"`,
  );
  out('then start the test runs:');
  for (const f of files) out(`  kubectl apply -f ${f}`);
  return 0;
}
