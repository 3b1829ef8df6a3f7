import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CHECKS } from '../../checks/index.js';
import { FAULTS } from '../../src/emulator/faults/index.js';
import { flagRanges } from '../../src/cli/flags.js';
import { configRanges } from '../../src/config/schema.js';
import { checksTable, faultsTable, MARKERS, rangesTable, replaceBetween } from '../../src/docs/tables.js';

describe('README', () => {
  const readme = readFileSync('README.md', 'utf8');

  it('lists exactly the checks, faults and number ranges of the code (run `npm run readme` after changing them)', () => {
    const regenerated = replaceBetween(
      replaceBetween(replaceBetween(readme, MARKERS.checks, checksTable(CHECKS)), MARKERS.faults, faultsTable(FAULTS)),
      MARKERS.ranges,
      rangesTable(flagRanges(), configRanges()),
    );
    expect(readme).toBe(regenerated);
  });

  it('keeps the quick start that a new user runs', () => {
    expect(readme).toContain('npm ci && npm start');
    expect(readme).toContain('npm test');
  });
});

describe('check catalogue', () => {
  it('has unique ids that match their file names, with a spec section and a description', () => {
    const ids = CHECKS.map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const c of CHECKS) {
      expect(readFileSync(`checks/${c.id}.ts`, 'utf8')).toContain(`id: '${c.id}'`);
      expect(c.spec).not.toBe('');
      expect(c.description.length).toBeGreaterThan(20);
    }
  });
});
