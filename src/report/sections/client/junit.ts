// junit.xml's share of the client section: properties of the conformance suite (the command and
// how each scenario run ended). The judgements are already testcases: they are checks.

import { clientRunCells, CLIENT_RUN_COLUMNS } from './words.js';
import type { ClientSection } from './model.js';

export function clientProperties(client: ClientSection | null | undefined): Array<[string, string]> {
  if (!client) return [];
  return [
    ['client.command', client.command],
    ...client.runs.map((run): [string, string] => {
      const cells = clientRunCells(run);
      return [
        `client.run.${run.scenario}`,
        CLIENT_RUN_COLUMNS.slice(1)
          .map((c, i) => `${c.toLowerCase()}: ${cells[i + 1] ?? ''}`)
          .join('; '),
      ];
    }),
  ];
}
