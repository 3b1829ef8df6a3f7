// Redaction by structure must not touch what only looks like a credential: every renderer's output
// of the committed fixtures (HTML with its script and styles included) passes through unchanged.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Redactor } from '../../src/http/redact.js';
import { renderers } from '../../src/report/index.js';
import type { Report } from '../../src/report/model.js';

describe.each(['report-pass.json', 'report-fail.json'])('the fixture %s', (fixture) => {
  const report = JSON.parse(readFileSync(`test/fixtures/${fixture}`, 'utf8')) as Report;

  it.each(Object.keys(renderers))('rendered as %s comes through redaction unchanged', (file) => {
    const out = renderers[file as keyof typeof renderers](report);
    expect(new Redactor().text(out)).toBe(out);
  });

  it('as data comes through unchanged', () => {
    expect(new Redactor().deep(report)).toEqual(report);
  });
});
