// report.html byte for byte against the committed pages rendered from the fixture reports. The
// other HTML tests look at parts; this one catches any change at all, so a refactor of the
// renderer can prove it changed nothing. After an intended change to the page, regenerate with
// UPDATE_GOLDEN=1 npx vitest run test/report/html-golden.test.ts and review the diff.

import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderHtml } from '../../src/report/html.js';
import { FIXTURES, loadFixture } from './helpers.js';

describe.each(FIXTURES)('report-%s.html', (name) => {
  it('is what the committed page says, byte for byte', () => {
    const golden = new URL(`../fixtures/report-${name}.html`, import.meta.url);
    const page = renderHtml(loadFixture(name));
    if (process.env['UPDATE_GOLDEN'] === '1') writeFileSync(golden, page);
    expect(page).toBe(readFileSync(golden, 'utf8'));
  });
});
