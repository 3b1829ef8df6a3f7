// docs/client.md's tables come from the catalogues, and the README's "Test your client" names a
// command for each reference client that exists.

import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CLIENT_CHECKS } from '../../src/client/checks/index.js';
import { CLIENT_DOC, CLIENT_MARKERS, clientChecksTable, clientScenariosTable } from '../../src/docs/client-tables.js';
import { CLIENT_SCENARIOS } from '../../src/emulator/scenarios/index.js';

const between = (text: string, [start, end]: readonly [string, string]) =>
  text.slice(text.indexOf(start) + start.length, text.indexOf(end)).trim();

describe('client docs', () => {
  const doc = readFileSync(CLIENT_DOC, 'utf8');

  it('lists exactly the client checks and scenarios of the code (run `npm run readme` after changing them)', () => {
    expect(between(doc, CLIENT_MARKERS.checks)).toBe(clientChecksTable(CLIENT_CHECKS));
    expect(between(doc, CLIENT_MARKERS.scenarios)).toBe(clientScenariosTable(CLIENT_SCENARIOS));
  });

  it('README: a "Test your client" section with a command per reference client, linking the page', () => {
    const readme = readFileSync('README.md', 'utf8');
    const section = readme.slice(
      readme.indexOf('## Test your client'),
      readme.indexOf('\n## ', readme.indexOf('## Test your client') + 1),
    );
    expect(section).toContain('[docs/client.md](docs/client.md)');
    const commands = [...section.matchAll(/ces-harness client -- \S+ (examples\/clients\/\S+)/g)].map((m) => m[1]!);
    expect(commands).toEqual(['examples/clients/node-undici.mjs', 'examples/clients/python_client.py']);
    for (const file of commands) expect(existsSync(file)).toBe(true);
  });
});
