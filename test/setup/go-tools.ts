// Builds the real parts the tests take from the Go module proxy (toxiproxy, the go-chi/httprate
// front, actionlint) before any test runs: `node scripts/run-ts.mjs test/setup/go-tools.ts`.
// .ci/run calls it while apt-get is still installing, so that on a clean clone no Go compile runs
// on the first test that needs one: the fast tier's timed tests and the real tier's precision
// probes (httprate's) would otherwise share the two cores with it. Each helper builds on first
// use anyway, and skips the build when its binary is already there (test/helpers/go-build.ts).

import { provisionActionlint } from '../helpers/actionlint.js';
import { provisionHttprate } from '../helpers/httprate.js';
import { provisionToxiproxy } from '../helpers/toxiproxy.js';

const started = Date.now();
const built = await Promise.allSettled([provisionToxiproxy(), provisionHttprate(), provisionActionlint()]);
const failed = built.flatMap((b) =>
  b.status === 'rejected' ? [String((b.reason as Error).message).split('\n')[0]] : [],
);
for (const line of failed) process.stderr.write(`go tools: ${line}\n`);
process.stdout.write(
  `go tools: toxiproxy, httprate, actionlint ready in ${Math.round((Date.now() - started) / 1000)} s\n`,
);
// A tool that did not build fails its own tests, which say why; CI's log shows it here first.
process.exitCode = failed.length > 0 ? 1 : 0;
