// `npm run readme`: regenerates the README's check, fault and number-range tables from the catalogues.
import { readFileSync, writeFileSync } from 'node:fs';
import { CHECKS } from '../checks/index.js';
import { FAULTS } from '../src/emulator/faults/index.js';
import { flagRanges } from '../src/cli/flags.js';
import { configRanges } from '../src/config/schema.js';
import { checksTable, faultsTable, MARKERS, rangesTable, replaceBetween } from '../src/docs/tables.js';
import { CLIENT_CHECKS } from '../src/client/checks/index.js';
import { CLIENT_SCENARIOS } from '../src/emulator/scenarios/index.js';
import { CLIENT_DOC, CLIENT_MARKERS, clientChecksTable, clientScenariosTable } from '../src/docs/client-tables.js';

let readme = readFileSync('README.md', 'utf8');
readme = replaceBetween(readme, MARKERS.checks, checksTable(CHECKS));
readme = replaceBetween(readme, MARKERS.faults, faultsTable(FAULTS));
readme = replaceBetween(readme, MARKERS.ranges, rangesTable(flagRanges(), configRanges()));
writeFileSync('README.md', readme);
let clientDoc = readFileSync(CLIENT_DOC, 'utf8');
clientDoc = replaceBetween(clientDoc, CLIENT_MARKERS.checks, clientChecksTable(CLIENT_CHECKS));
clientDoc = replaceBetween(clientDoc, CLIENT_MARKERS.scenarios, clientScenariosTable(CLIENT_SCENARIOS));
writeFileSync(CLIENT_DOC, clientDoc);
process.stdout.write(`README.md: ${CHECKS.length} checks, ${FAULTS.length} faults\n`);
