// Which page of the documentation holds which generated table: `npm run readme` writes them and
// test/docs/readme.test.ts fails when a page differs from what the code would generate.

import { CHECKS } from '../../checks/index.js';
import { FAULTS } from '../emulator/faults/index.js';
import { PROFILES } from '../emulator/profiles/index.js';
import { flagRanges } from '../cli/flags.js';
import { configRanges } from '../config/schema.js';
import { checksTable, faultsTable, MARKERS, profilesTable, rangesTable, replaceBetween } from './tables.js';
import { CLIENT_CHECKS } from '../client/checks/index.js';
import { CLIENT_SCENARIOS } from '../emulator/scenarios/index.js';
import { CLIENT_DOC, CLIENT_MARKERS, clientChecksTable, clientScenariosTable } from './client-tables.js';

export interface GeneratedPage {
  /** Relative to the project root. */
  file: string;
  tables: Array<{ markers: readonly [string, string]; content: () => string }>;
}

export const GENERATED_PAGES: GeneratedPage[] = [
  {
    file: 'docs/checks.md',
    tables: [
      { markers: MARKERS.checks, content: () => checksTable(CHECKS) },
      { markers: MARKERS.faults, content: () => faultsTable(FAULTS) },
      { markers: MARKERS.profiles, content: () => profilesTable(PROFILES) },
    ],
  },
  {
    file: 'docs/configuration.md',
    tables: [{ markers: MARKERS.ranges, content: () => rangesTable(flagRanges(), configRanges()) }],
  },
  {
    file: CLIENT_DOC,
    tables: [
      { markers: CLIENT_MARKERS.checks, content: () => clientChecksTable(CLIENT_CHECKS) },
      { markers: CLIENT_MARKERS.scenarios, content: () => clientScenariosTable(CLIENT_SCENARIOS) },
    ],
  },
];

/** The page's text with every generated table in it replaced by what the code generates now. */
export const regenerated = (page: GeneratedPage, text: string): string =>
  page.tables.reduce((t, table) => replaceBetween(t, table.markers, table.content()), text);
