// `npm test`'s checks, beside the tests (scripts/test.mjs): the two type-checks (`npm run typecheck`) and the format
// check (`npm run format:check`), run at once instead of one after another. Prettier works on one
// core for about 22 s of CPU and tsc mostly on the other, so on two cores this takes about as long
// as Prettier alone. The commands are read from package.json's scripts, so they stay in one place.
// Each one's output is printed when it ends, under its name; the exit code is 1 if any failed.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { delimiter, resolve } from 'node:path';

const { scripts } = JSON.parse(readFileSync('package.json', 'utf8'));
// `a && b` in a script: each part is a command of its own.
const commands = [scripts.typecheck, scripts['format:check']].flatMap((script) =>
  script.split('&&').map((c) => c.trim()),
);
// What `npm run` puts first on PATH, so the script also runs as `node scripts/static-checks.mjs`.
const env = { ...process.env, PATH: `${resolve('node_modules/.bin')}${delimiter}${process.env.PATH ?? ''}` };

const run = (command) =>
  new Promise((done) => {
    const started = performance.now();
    const child = spawn(command, { shell: true, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', (error) => done({ command, code: 1, output: `${error.message}\n`, ms: 0 }));
    child.on('close', (code) => done({ command, code, output, ms: performance.now() - started }));
  });

const results = await Promise.all(commands.map(run));
for (const { command, code, output, ms } of results) {
  process.stdout.write(`${code === 0 ? 'ok' : `failed (exit ${code})`}: ${command} (${(ms / 1000).toFixed(1)} s)\n`);
  if (output) process.stdout.write(output.endsWith('\n') ? output : `${output}\n`);
}
process.exitCode = results.every((r) => r.code === 0) ? 0 : 1;
