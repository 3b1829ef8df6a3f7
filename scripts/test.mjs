// `npm test` after the build: the static checks (scripts/static-checks.mjs: the type-checks and
// Prettier, ~30 s) beside the fast test tier, rather than before it. The tier waits on real time
// more than it computes (about one core of two busy), so the checks fill the idle core instead of
// adding their 30 s to the wall time. They run at a lower priority than the tests: the tier's
// timing-sensitive tests (a real expiry, a probe's pace) must not lose the CPU to them.
// The tests' output streams as it comes; the checks' is printed, under its name, when both have
// ended, so neither interleaves the other. The exit code is 1 if either failed.
// Arguments go to vitest: `npm test -- test/cli` runs the fast tier's test/cli files beside the checks.
import { spawn } from 'node:child_process';
import { getPriority, setPriority } from 'node:os';
import { delimiter, resolve } from 'node:path';

// What `npm run` puts first on PATH, so the script also runs as `node scripts/test.mjs`.
const env = { ...process.env, PATH: `${resolve('node_modules/.bin')}${delimiter}${process.env.PATH ?? ''}` };

const exitOf = (child) =>
  new Promise((done) => {
    child.on('error', (error) => done({ code: 1, error: error.message }));
    child.on('close', (code, signal) => done({ code: code ?? 1, error: signal ? `killed by ${signal}` : undefined }));
  });

const checks = spawn(process.execPath, ['scripts/static-checks.mjs'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
// Set before Node has started in the child, so the tsc and Prettier it spawns inherit it.
if (checks.pid !== undefined) {
  try {
    // Ten below the tests', wherever they run.
    setPriority(checks.pid, Math.min(19, getPriority() + 10));
  } catch {
    // Not permitted here: the checks run at the tests' priority, as they did before.
  }
}
let checksOutput = '';
checks.stdout.on('data', (d) => (checksOutput += d));
checks.stderr.on('data', (d) => (checksOutput += d));

const tests = spawn(
  process.execPath,
  ['node_modules/vitest/vitest.mjs', 'run', '--project', 'fast', ...process.argv.slice(2)],
  {
    env,
    stdio: 'inherit',
  },
);

// Ctrl-C reaches both children from the terminal; waiting for them lets each say what it stopped.
process.on('SIGINT', () => {});

const [checked, tested] = await Promise.all([exitOf(checks), exitOf(tests)]);
process.stdout.write(`\nstatic checks (scripts/static-checks.mjs), run beside the tests:\n${checksOutput}`);
if (checked.error) process.stdout.write(`static checks: ${checked.error}\n`);
if (tested.error) process.stdout.write(`vitest: ${tested.error}\n`);
const failed = [checked.code !== 0 && 'static checks', tested.code !== 0 && 'tests'].filter(Boolean);
if (failed.length > 0) process.stdout.write(`npm test failed: ${failed.join(' and ')}\n`);
process.exitCode = failed.length > 0 ? 1 : 0;
