// `npm run readme`: regenerates the README's check, fault and number-range tables from the catalogues.
import { readFileSync, writeFileSync } from 'node:fs';
import { CHECKS } from '../checks/index.js';
import { FAULTS } from '../src/emulator/faults/index.js';
import { flagRanges } from '../src/cli/flags.js';
import { configRanges } from '../src/config/schema.js';
import { checksTable, faultsTable, MARKERS, rangesTable, replaceBetween } from '../src/docs/tables.js';

let readme = readFileSync('README.md', 'utf8');
readme = replaceBetween(readme, MARKERS.checks, checksTable(CHECKS));
readme = replaceBetween(readme, MARKERS.faults, faultsTable(FAULTS));
readme = replaceBetween(readme, MARKERS.ranges, rangesTable(flagRanges(), configRanges()));
writeFileSync('README.md', readme);
process.stdout.write(`README.md: ${CHECKS.length} checks, ${FAULTS.length} faults\n`);
