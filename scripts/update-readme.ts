// `npm run readme`: regenerates the documentation's generated tables (checks and faults in
// docs/checks.md, number ranges in docs/configuration.md) from the catalogues themselves.
import { readFileSync, writeFileSync } from 'node:fs';
import { CHECKS } from '../checks/index.js';
import { FAULTS } from '../src/emulator/faults/index.js';
import { GENERATED_PAGES, regenerated } from '../src/docs/generated.js';

for (const page of GENERATED_PAGES) writeFileSync(page.file, regenerated(page, readFileSync(page.file, 'utf8')));
process.stdout.write(
  `${GENERATED_PAGES.map((p) => p.file).join(', ')}: ${CHECKS.length} checks, ${FAULTS.length} faults\n`,
);
