#!/usr/bin/env node
// The CLI is bundled by scripts/build.mjs (run by `npm ci`); this file only hands over to it.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const bundle = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(fileURLToPath(bundle))) {
  process.stderr.write('ces-harness: the CLI is not built; run `npm ci` (or `npm run build`) in the ces-harness folder\n');
  process.exit(2);
}
const { main } = await import(bundle.href);
process.exitCode = await main(process.argv.slice(2));
