// The k6-operator manifests, validated the way an API server would: the TestRun against the
// CRD's openAPIV3Schema (the pinned fixture test/fixtures/k6-operator/k6.io_testruns.yaml), the ConfigMap against a
// hand-written core/v1 schema. And never a secret value anywhere in the output.

import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import { parse, parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { k8sCommand } from '../../src/cli/commands/k8s.js';
import { k8sManifests, k8sName, toYaml, type K8sManifestInputs } from '../../src/k8s/manifests.js';

// Kept in the repo (source, version and licence in its README): a clone must test itself alone.
const CRD = resolve('test/fixtures/k6-operator/k6.io_testruns.yaml');

/**
 * The API server prunes (or, with kubectl --validate=strict, rejects) fields a structural schema
 * does not declare; JSON Schema allows them. Closing every object that lists its properties makes
 * a misspelt field a validation error here, as it is on a cluster.
 */
function closed(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closed);
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: Record<string, unknown> = Object.fromEntries(
    Object.entries(schema).map(([k, v]) => [
      k,
      k === 'properties' ? Object.fromEntries(Object.entries(v as object).map(([p, s]) => [p, closed(s)])) : closed(v),
    ]),
  );
  if (out.type === 'object' && out.properties !== undefined && out.additionalProperties === undefined)
    out.additionalProperties = false;
  return out;
}

async function testRunValidator(): Promise<ValidateFunction> {
  const crd = parse(await readFile(CRD, 'utf8')) as {
    spec: { versions: Array<{ name: string; schema: { openAPIV3Schema: object } }> };
  };
  const version = crd.spec.versions.find((v) => v.name === 'v1alpha1');
  if (!version) throw new Error(`${CRD} has no v1alpha1`);
  // strict: false lets the x-kubernetes-* vocabulary through (it guides the API server, not the shape).
  const ajv = new Ajv({ strict: false, allErrors: true });
  for (const f of ['int32', 'int64', 'byte', 'date-time', 'double', 'float']) ajv.addFormat(f, true);
  return ajv.compile(closed(version.schema.openAPIV3Schema) as object);
}

// core/v1 ConfigMap, as much of it as the harness writes.
const configMapSchema = {
  type: 'object',
  required: ['apiVersion', 'kind', 'metadata', 'data'],
  additionalProperties: false,
  properties: {
    apiVersion: { const: 'v1' },
    kind: { const: 'ConfigMap' },
    metadata: {
      type: 'object',
      required: ['name'],
      properties: {
        name: { type: 'string', pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$', maxLength: 253 },
        namespace: { type: 'string' },
        labels: { type: 'object', additionalProperties: { type: 'string', maxLength: 63 } },
      },
    },
    // Keys are file names (a ConfigMap key's pattern); values strings.
    data: { type: 'object', propertyNames: { pattern: '^[-._a-zA-Z0-9]+$' }, additionalProperties: { type: 'string' } },
  },
};
const validateConfigMap = new Ajv({ strict: true }).compile(configMapSchema);
const validateTestRun = await testRunValidator();

const SECRET = 'sekrit-value-never-shown-0123';
const CLIENT_ID = 'client-id-never-shown-4567';

const inputs = (over: Partial<K8sManifestInputs> = {}): K8sManifestInputs => ({
  scenario: 'tls',
  bundles: { tls: 'export default function () {}\n', 'tls12-refused': 'export default function () {}\n' },
  parallelism: 3,
  environment: 'sandbox',
  secretName: 'ces-harness-sandbox-credentials',
  runId: 'run-1234',
  inputs: {
    baseUrl: 'https://sandbox.example.test',
    tokenLifetimeS: 86400,
    clockToleranceS: 2,
    rate: 20,
    durationS: 60,
    vus: 5,
    thresholds: { http_req_duration: ['p(95)<300'] },
  },
  caPem: '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n',
  outputs: ['json=/tmp/out.json'],
  ...over,
});

describe('k8sManifests', () => {
  it('writes TestRuns that the CRD schema accepts and a ConfigMap that core/v1 accepts', () => {
    const { configMap, testRuns } = k8sManifests(inputs());
    expect(testRuns).toHaveLength(2);
    for (const t of testRuns) expect(validateTestRun(t), JSON.stringify(validateTestRun.errors)).toBe(true);
    expect(validateConfigMap(configMap), JSON.stringify(validateConfigMap.errors)).toBe(true);
  });

  it('puts the script, target, thresholds and run id where k6-operator hands them to k6', () => {
    const { configMap, testRuns } = k8sManifests(inputs());
    const spec = testRuns[0]!.spec as {
      parallelism: number;
      script: unknown;
      arguments: string;
      runner: { env: Array<{ name: string; value?: string; valueFrom?: unknown }> };
    };
    expect(spec.parallelism).toBe(3);
    expect(spec.script).toEqual({ configMap: { name: 'ces-harness-tls-script', file: 'tls.js' } });
    expect((configMap.data as Record<string, string>)['tls.js']).toContain('export default');
    expect(spec.arguments).toBe(
      '--no-usage-report --tag run_id=run-1234 --tag environment=sandbox --out json=/tmp/out.json',
    );
    const env = Object.fromEntries(spec.runner.env.map((e) => [e.name, e.value ?? e.valueFrom]));
    expect(env).toMatchObject({
      CES_BASE_URL: 'https://sandbox.example.test',
      CES_RUN_ID: 'run-1234',
      CES_THRESHOLDS_JSON: '{"http_req_duration":["p(95)<300"]}',
      CES_CLIENT_ID: { secretKeyRef: { name: 'ces-harness-sandbox-credentials', key: 'client_id' } },
      CES_CLIENT_SECRET: { secretKeyRef: { name: 'ces-harness-sandbox-credentials', key: 'client_secret' } },
      SSL_CERT_FILE: '/etc/ces-harness/ca/ca.pem',
    });
  });

  it('round-trips through YAML as the same documents', () => {
    const { configMap, testRuns } = k8sManifests(inputs());
    const docs = parseAllDocuments(toYaml(configMap, ...testRuns)).map((d) => d.toJS());
    expect(docs).toEqual([configMap, ...testRuns]);
  });

  it.each([
    ['parallelism as a string', (t: any) => (t.spec.parallelism = '3')],
    ['a misspelt field', (t: any) => (t.spec.paralelism = 3)],
    ['no script', (t: any) => delete t.spec.script],
    ['an env var without a name', (t: any) => t.spec.runner.env.push({ value: 'x' })],
  ])('the schema refuses a TestRun with %s', (_, breakIt) => {
    const t = structuredClone(k8sManifests(inputs()).testRuns[0]!);
    breakIt(t);
    expect(validateTestRun(t)).toBe(false);
  });

  it('the core/v1 schema refuses a ConfigMap with a non-string value', () => {
    const c = structuredClone(k8sManifests(inputs()).configMap) as { data: Record<string, unknown> };
    c.data['tls.js'] = 42;
    expect(validateConfigMap(c)).toBe(false);
  });

  it('names are DNS-1123 and parallelism must be a whole number of pods', () => {
    expect(k8sName('ces-harness', 'Rate_Limit', 'script')).toBe('ces-harness-rate-limit-script');
    expect(() => k8sManifests(inputs({ parallelism: 0 }))).toThrow(RangeError);
  });
});

describe('k8sCommand', () => {
  it('writes valid manifests from the config without needing the credentials, and never a secret', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ces-k8s-'));
    await writeFile(
      join(dir, 'ces-harness.yaml'),
      [
        'target: sandbox',
        'environments:',
        '  sandbox:',
        '    base_url: https://sandbox.example.test',
        '    client_id: ${CES_SANDBOX_CLIENT_ID}',
        '    client_secret: ${CES_SANDBOX_CLIENT_SECRET}',
        'load:',
        '  duration_s: 30',
        '  thresholds: { http_req_duration: ["p(95)<250"] }',
        '  outputs: ["experimental-prometheus-rw"]',
      ].join('\n'),
    );
    const lines: string[] = [];
    const bundleDir = join(dir, 'bundles');
    const { mkdir } = await import('node:fs/promises');
    await mkdir(bundleDir);
    await writeFile(join(bundleDir, 'throughput.js'), 'export default function () {}\n');
    const run = (env: NodeJS.ProcessEnv) =>
      k8sCommand(
        { scenario: ['throughput'], parallelism: 4, 'out-dir': 'manifests' },
        { cwd: dir, env, out: (l) => lines.push(l), bundleDir },
      );

    // With the credentials set, as on a developer's machine: they still must not appear.
    expect(await run({ CES_SANDBOX_CLIENT_ID: CLIENT_ID, CES_SANDBOX_CLIENT_SECRET: SECRET })).toBe(0);
    const files = await readdir(join(dir, 'manifests'));
    expect(files).toEqual(['throughput.yaml']);
    const text = await readFile(join(dir, 'manifests', 'throughput.yaml'), 'utf8');
    const [configMap, testRun, ...rest] = parseAllDocuments(text).map((d) => d.toJS());
    expect(rest).toEqual([]);
    expect(validateConfigMap(configMap), JSON.stringify(validateConfigMap.errors)).toBe(true);
    expect(validateTestRun(testRun), JSON.stringify(validateTestRun.errors)).toBe(true);
    expect(testRun.spec.parallelism).toBe(4);
    expect(testRun.spec.arguments).toContain('--out experimental-prometheus-rw');
    for (const out of [text, lines.join('\n')]) {
      expect(out).not.toContain(SECRET);
      expect(out).not.toContain(CLIENT_ID);
      expect(out).not.toContain('referenced-from-secret');
    }
    expect(lines.join('\n')).toContain(
      'kubectl create secret generic ces-harness-sandbox-credentials --from-literal=client_id="$CES_SANDBOX_CLIENT_ID" --from-literal=client_secret="$CES_SANDBOX_CLIENT_SECRET"',
    );
    expect(lines.join('\n')).toContain(`kubectl apply -f ${join(dir, 'manifests', 'throughput.yaml')}`);

    // And without them, as on a machine that only writes manifests.
    expect(await run({})).toBe(0);
  });
});
