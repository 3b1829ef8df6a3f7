#!/usr/bin/env node
// The CLI is bundled by scripts/build.mjs (run by `npm ci`); this file only hands over to it.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const bundle = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(fileURLToPath(bundle))) {
  process.stderr.write(
    'ces-harness: the CLI is not built; run `npm ci` (or `npm run build`) in the ces-harness folder\n',
  );
  process.exit(2);
}
const { main } = await import(bundle.href);
process.exitCode = await main(process.argv.slice(2));
// Everything a command started has ended when main returns (`serve` returns only once stopped). A
// handle left open by mistake (a keep-alive socket, a timer) must not keep the process, and the CI
// job waiting on it, alive: unref'd, so a clean exit happens at once and this fires only when
// something lingers. CES_DEBUG=1 names what lingered.
setTimeout(() => {
  if (process.env.CES_DEBUG)
    process.stderr.write(
      `ces-harness: exiting with handles still open: ${process.getActiveResourcesInfo().join(', ')}\n`,
    );
  process.exit();
}, 2_000).unref();
