// The GitHub Action and the workflows that use it, through a real linter: actionlint (built from
// the Go module proxy, test/helpers/actionlint.ts) with Debian's shellcheck.
//
// actionlint lints workflows, not action metadata (rhysd/actionlint#46, open; v1.7.12 run on
// action.yml reports "jobs section is missing"). What it does with an action: a workflow's
// `uses: ./` makes it read action.yml and check the step's inputs against it. So action.yml is
// linted twice over: through every workflow here that uses it (the scheduled one and the
// documented matrix), and its own steps as the job of a reusable workflow whose inputs are the
// action's, where actionlint checks every expression (each `steps.<id>.outputs.*`, each input),
// each action's inputs, and each script through shellcheck. A workflow may read contexts a
// composite step may not (secrets, vars, needs): that part is checked here, against the runner's
// own list of the contexts a composite step has.

import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { parse, stringify } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../k6/support.js';
import { lint, provisionActionlint, SHELLCHECK, shellcheckMissing } from '../helpers/actionlint.js';
import { action, ACTION_FILE } from './action-steps.js';

/** Every workflow of this repository that uses its own action: each is linted against action.yml. */
async function workflowsUsingTheAction(): Promise<string[]> {
  const found: string[] = [];
  for (const dir of ['.github/workflows', 'examples/workflows']) {
    for (const name of await readdir(join(projectRoot, dir))) {
      const file = join(projectRoot, dir, name);
      if (/\.ya?ml$/.test(name) && /^\s*-?\s*uses: \.\/\s*$/m.test(await readFile(file, 'utf8'))) found.push(file);
    }
  }
  return found;
}

/** action.yml's steps as the one job of a reusable workflow taking the action's inputs. */
async function actionAsWorkflow(): Promise<string> {
  const inputs = Object.fromEntries(
    Object.entries(action.inputs).map(([name, input]) => [name, { type: 'string', default: input.default ?? '' }]),
  );
  const workflow = {
    name: 'action.yml steps',
    on: { workflow_call: { inputs } },
    jobs: { action: { 'runs-on': 'ubuntu-latest', steps: action.runs.steps } },
  };
  const file = join(await mkdtemp(join(tmpdir(), 'ces-actionlint-')), 'action-as-workflow.yml');
  await writeFile(file, stringify(workflow));
  return file;
}

// The contexts a composite step's `with`, `env`, `name` and `working-directory` and the action's
// outputs may read: actions/runner, src/Runner.Worker/action_yaml.json ("step-env", "step-with",
// "string-steps-context", "output-value"); the runner's schema for `if` allows the same.
const COMPOSITE_CONTEXTS = ['github', 'inputs', 'strategy', 'matrix', 'steps', 'job', 'runner', 'env'];

describe('action.yml and the workflows that use it, through actionlint', () => {
  let actionlint: string | undefined;
  beforeAll(async () => {
    actionlint = await provisionActionlint();
  }, 300_000);
  const shellcheck = shellcheckMissing() === undefined ? SHELLCHECK : null;

  it('docs/cutover.md shows the matrix workflow as it is in examples/workflows/matrix.yml', async () => {
    const page = await readFile(join(projectRoot, 'docs', 'cutover.md'), 'utf8');
    const shown = /## From GitHub Actions\n[\s\S]*?```yaml\n([\s\S]*?)```/.exec(page)?.[1];
    expect(shown).toBe(await readFile(join(projectRoot, 'examples', 'workflows', 'matrix.yml'), 'utf8'));
  });

  it('finds the scheduled workflow and the documented matrix among the workflows using the action', async () => {
    expect((await workflowsUsingTheAction()).map((f) => relative(projectRoot, f)).sort()).toEqual([
      '.github/workflows/sandbox-conformance.yml',
      'examples/workflows/matrix.yml',
    ]);
  });

  it('passes on every workflow that uses the action (its inputs checked against action.yml)', async (ctx) => {
    if (actionlint === undefined) return ctx.skip();
    const r = await lint(actionlint, await workflowsUsingTheAction(), shellcheck);
    expect(r.out).toBe('');
    expect(r.code).toBe(0);
  });

  it("passes on action.yml's own steps, linted as a reusable workflow's job, shellcheck on each script", async (ctx) => {
    if (actionlint === undefined) return ctx.skip();
    if (shellcheck === null) {
      if (process.env['CI'])
        expect.fail(`${shellcheckMissing()}: apt-get install shellcheck, or set SHELLCHECK_BINARY`);
      return ctx.skip();
    }
    const r = await lint(actionlint, [await actionAsWorkflow()], shellcheck);
    expect(r.out).toBe('');
    expect(r.code).toBe(0);
  });

  // The linter is real: a workflow with an input action.yml lacks, and a step output no step writes,
  // are each one finding naming them.
  it.for<[string, (w: string) => string, RegExp]>([
    [
      'an input the action does not have',
      (w: string) => w.replace('command: cutover', 'command: cutover\n          env: prod'),
      /input "env" is not defined in action "ces-harness"/,
    ],
    [
      'a step output of a step that is not there',
      (w: string) =>
        w.replace(
          '${{ matrix.environment }}\n          command',
          '${{ steps.nowhere.outputs.env }}\n          command',
        ),
      /property "nowhere" is not defined/,
    ],
  ])('reports %s', async ([, breakIt, finding], ctx) => {
    if (actionlint === undefined) return ctx.skip();
    const text = await readFile(join(projectRoot, 'examples', 'workflows', 'matrix.yml'), 'utf8');
    const broken = breakIt(text);
    expect(broken).not.toBe(text);
    // Beside the original, so that `uses: ./` still finds this repository's action.yml.
    const file = join(projectRoot, 'examples', 'workflows', `.broken-${process.pid}.yml`);
    await writeFile(file, broken);
    try {
      const r = await lint(actionlint, [file], null);
      expect(r.code).toBe(1);
      expect(r.out).toMatch(finding);
    } finally {
      await rm(file, { force: true });
    }
  });

  it('action.yml reads only the contexts a composite step has (no secrets, vars or needs)', async () => {
    const text = await readFile(ACTION_FILE, 'utf8');
    const expressions = [
      ...[...text.matchAll(/\$\{\{([^}]*)\}\}/g)].map((m) => m[1]!),
      ...action.runs.steps.flatMap((s) => (s.if ? [s.if] : [])),
    ];
    // A context is the root of a dotted path (a name after no dot or dash), quoted text removed.
    const roots = expressions.flatMap((e) =>
      [...e.replace(/'[^']*'/g, '').matchAll(/(?<![\w.-])([A-Za-z_][\w-]*)(?=\.)/g)].map((r) => r[1]!),
    );
    expect(roots.length).toBeGreaterThan(10);
    expect([...new Set(roots)].filter((r) => !COMPOSITE_CONTEXTS.includes(r))).toEqual([]);
    expect(parse(text)).toMatchObject({ runs: { using: 'composite' } });
  });
});
