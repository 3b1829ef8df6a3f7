// k6-operator manifests for one scenario: a ConfigMap holding the bundled script(s) and one
// TestRun (k6.io/v1alpha1) per bundle. Pure: the CLI reads the bundles and writes the files.
// Credentials are never in the output: the runner pods read them from a Kubernetes Secret that
// the user creates by name (secretKeyRef), so a manifest can be committed or shared.

import { stringify } from 'yaml';
import { SCENARIO_ENV, scenarioEnv, type ScenarioInputs } from '../k6/contract.js';

export interface K8sManifestInputs {
  scenario: string;
  /** Bundle name → bundled k6 script (dist/scenarios/<bundle>.js); a TestRun per bundle. */
  bundles: Record<string, string>;
  /** k6-operator runner pods; each runs one execution segment of the scenario. */
  parallelism: number;
  environment: string;
  /** The Secret with keys client_id and client_secret. */
  secretName: string;
  runId: string;
  /** The scenario inputs except credentials (those are only referenced). */
  inputs: Omit<ScenarioInputs, 'clientId' | 'clientSecret' | 'runId'>;
  /** PEM of an extra CA the target's certificate chains to; mounted from the ConfigMap. */
  caPem?: string;
  /** k6 outputs (config load.outputs), passed as --out. */
  outputs?: string[];
  namespace?: string;
}

export interface K8sManifests {
  configMap: Record<string, unknown>;
  testRuns: Array<Record<string, unknown>>;
}

export const CA_KEY = 'ca.pem';
const CA_DIR = '/etc/ces-harness/ca';

/** A DNS-1123 name (lowercase alphanumerics and '-', at most 63 characters), as Kubernetes wants. */
export function k8sName(...parts: string[]): string {
  const name = parts
    .join('-')
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/-+/g, '-')
    .replace(/^-|-$/g, '');
  return name.slice(0, 63).replace(/-$/, '');
}

/** k6 arguments are one string in a TestRun; quote anything a shell would split. */
const shellWord = (s: string) => (/^[A-Za-z0-9_./:=@%+,-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

export function k8sManifests(m: K8sManifestInputs): K8sManifests {
  if (!Number.isInteger(m.parallelism) || m.parallelism < 1)
    throw new RangeError(`parallelism ${m.parallelism} must be a whole number of pods, 1 or more`);
  const labels = {
    'app.kubernetes.io/name': 'ces-harness',
    'app.kubernetes.io/component': 'load',
    'ces-harness/scenario': k8sName(m.scenario),
    'ces-harness/run-id': k8sName(m.runId),
  };
  const meta = (name: string) => ({ name, ...(m.namespace !== undefined && { namespace: m.namespace }), labels });
  const configMapName = k8sName('ces-harness', m.scenario, 'script');

  // The same CES_* inputs a local run gets, minus the credentials, which come from the Secret.
  const {
    [SCENARIO_ENV.clientId]: _id,
    [SCENARIO_ENV.clientSecret]: _secret,
    ...plain
  } = scenarioEnv({ ...m.inputs, clientId: '', clientSecret: '', runId: m.runId });
  const env: Array<Record<string, unknown>> = [
    ...Object.entries(plain).map(([name, value]) => ({ name, value })),
    { name: SCENARIO_ENV.clientId, valueFrom: { secretKeyRef: { name: m.secretName, key: 'client_id' } } },
    { name: SCENARIO_ENV.clientSecret, valueFrom: { secretKeyRef: { name: m.secretName, key: 'client_secret' } } },
    // k6 has no CA option for HTTP; Go on Linux reads SSL_CERT_FILE.
    ...(m.caPem !== undefined ? [{ name: 'SSL_CERT_FILE', value: `${CA_DIR}/${CA_KEY}` }] : []),
  ];
  const ca =
    m.caPem === undefined
      ? {}
      : {
          volumes: [{ name: 'ces-ca', configMap: { name: configMapName, items: [{ key: CA_KEY, path: CA_KEY }] } }],
          volumeMounts: [{ name: 'ces-ca', mountPath: CA_DIR, readOnly: true }],
        };

  // Every sample carries run_id (the scenarios tag it from CES_RUN_ID too), so the pods' metrics
  // in an output join this run; --no-usage-report as in local runs.
  const args = [
    '--no-usage-report',
    '--tag',
    `run_id=${m.runId}`,
    '--tag',
    `environment=${m.environment}`,
    ...(m.outputs ?? []).flatMap((o) => ['--out', o]),
  ];

  const testRuns = Object.keys(m.bundles).map((bundle) => ({
    apiVersion: 'k6.io/v1alpha1',
    kind: 'TestRun',
    metadata: meta(k8sName('ces-harness', bundle)),
    spec: {
      parallelism: m.parallelism,
      // The operator gives each runner pod its execution segment, as `load --segments` does locally.
      separate: false,
      script: { configMap: { name: configMapName, file: `${bundle}.js` } },
      arguments: args.map(shellWord).join(' '),
      runner: { env, ...ca },
    },
  }));
  const data: Record<string, string> = Object.fromEntries(
    Object.entries(m.bundles).map(([bundle, js]) => [`${bundle}.js`, js]),
  );
  if (m.caPem !== undefined) data[CA_KEY] = m.caPem;
  const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta(configMapName), data };
  return { configMap, testRuns };
}

/** YAML documents separated by `---`, in order; long strings as block literals. */
export function toYaml(...docs: unknown[]): string {
  return docs.map((d) => stringify(d, { lineWidth: 0, blockQuote: 'literal' })).join('---\n');
}
