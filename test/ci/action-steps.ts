// Runs action.yml's own `run:` steps locally, in order, the way the runner would: each in bash -e
// with its `env:` (the `${{ inputs.* }}`, `${{ steps.*.outputs.* }}` and `${{ github.action_path }}`
// expressions evaluated), GITHUB_OUTPUT per step, `if: always()` steps after a failure. The
// `uses:` steps (setup-node, caches, upload) are GitHub's, and `install` is `npm ci` of this
// checkout, which is already built: those are skipped.

import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'yaml';
import { projectRoot } from '../k6/support.js';
import { spawnBounded } from '../helpers/bounded-child.js';

export const ACTION_FILE = join(projectRoot, 'action.yml');

export interface ActionStep {
  id?: string;
  uses?: string;
  run?: string;
  if?: string;
  env?: Record<string, string>;
  with?: Record<string, string>;
  'working-directory'?: string;
  shell?: string;
}
export interface Action {
  inputs: Record<string, { default?: string }>;
  outputs: Record<string, { value: string }>;
  runs: { using: string; steps: ActionStep[] };
}

export const action = parse(await readFile(ACTION_FILE, 'utf8')) as Action;

/** One step's script in bash, with the runner's variables it reads; killed with all it started past `timeoutMs`. */
export async function runScript(
  script: string,
  env: Record<string, string>,
  cwd: string,
  timeoutMs = 280_000,
): Promise<{ code: number | null; out: string }> {
  let out = '';
  const { code } = await spawnBounded('bash', ['-e', '-c', script], {
    cwd,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', ...env },
    timeoutMs,
    onOutput: (chunk) => (out += chunk),
  }).done;
  return { code, out };
}

export interface ActionRun {
  /** The action's exit code: its last step's. */
  code: number | null;
  out: string;
  outputs: Record<string, Record<string, string>>;
}

/**
 * The action with `inputs` (unset ones take their default), in `workspace` (GITHUB_WORKSPACE, the
 * steps' folder), `env` standing for the calling step's env (secrets) and the runner's variables
 * (GITHUB_JOB, GITHUB_RUN_ID, GITHUB_RUN_ATTEMPT; STRATEGY_JOB_INDEX stands for the matrix leg's
 * `strategy.job-index`, 0 outside a matrix as on the runner). `until` stops after that step.
 */
export async function runAction(
  inputs: Record<string, string>,
  workspace: string,
  env: Record<string, string>,
  until?: string,
): Promise<ActionRun> {
  const values = Object.fromEntries(Object.entries(action.inputs).map(([k, v]) => [k, inputs[k] ?? v.default ?? '']));
  const outputs: Record<string, Record<string, string>> = {};
  const evaluate = (text: string) =>
    text.replace(/\$\{\{\s*([^}]+?)\s*\}\}/g, (_, expr: string) => {
      let m: RegExpExecArray | null;
      if ((m = /^inputs\.([\w-]+)$/.exec(expr))) return values[m[1]!] ?? '';
      if ((m = /^steps\.([\w-]+)\.outputs\.([\w-]+)$/.exec(expr))) return outputs[m[1]!]?.[m[2]!] ?? '';
      if (expr === 'github.action_path') return projectRoot;
      if (expr === 'strategy.job-index') return env.STRATEGY_JOB_INDEX ?? '0';
      throw new Error(`action.yml: no local value for \${{ ${expr} }}`);
    });
  let failed = false;
  let code: number | null = 0;
  let out = '';
  for (const [i, step] of action.runs.steps.entries()) {
    if (step.run === undefined || step.id === 'install') continue;
    if (failed && step.if !== 'always()') continue;
    const output = join(env.RUNNER_TEMP!, `output-${i}`);
    await writeFile(output, '');
    const stepEnv = Object.fromEntries(Object.entries(step.env ?? {}).map(([k, v]) => [k, evaluate(v)]));
    const r = await runScript(
      step.run,
      { ...env, ...stepEnv, GITHUB_WORKSPACE: workspace, GITHUB_ACTION_PATH: projectRoot, GITHUB_OUTPUT: output },
      step['working-directory'] ? evaluate(step['working-directory']) : workspace,
    );
    out += r.out;
    if (step.id)
      outputs[step.id] = Object.fromEntries(
        [...(await readFile(output, 'utf8')).matchAll(/^([\w-]+)=(.*)$/gm)].map((m) => [m[1]!, m[2]!]),
      );
    code = r.code;
    if (r.code !== 0) failed = true;
    if (step.id !== undefined && step.id === until) break;
  }
  return { code, out, outputs };
}
