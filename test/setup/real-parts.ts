// vitest globalSetup: after the whole run, name every real part that was missing and the tests
// that skipped for it, with how to get it (test/helpers/real-parts.ts). Printed last, under the
// summary, where someone looking at "N skipped" reads on.

import { missingParts, missingPartsReport } from '../helpers/real-parts.js';

export default async function setup(): Promise<() => void> {
  const missing = await missingParts();
  return () => {
    const lines = missingPartsReport(missing);
    if (lines.length) process.stdout.write(`\n${lines.join('\n')}\n`);
  };
}
