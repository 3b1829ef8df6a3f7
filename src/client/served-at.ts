// The address a `client` report names as its target: the emulators the client was pointed at,
// port included (each scenario listens on its own port 0, so "https://127.0.0.1" alone says
// nothing a user could reach or match against the client's own log).

import type { ClientRunRecord } from './record.js';

export function servedAt(records: readonly Pick<ClientRunRecord, 'baseUrl'>[]): string {
  const urls = [...new Set(records.flatMap((r) => (r.baseUrl === undefined ? [] : [r.baseUrl])))];
  return urls.length > 0 ? urls.join(', ') : 'https://127.0.0.1 (no scenario ran)';
}
