// The published schemas (schema/*.schema.json) as the tests hold every report, cutover report and
// history line the suite writes to them: what a CI step reads must be what the contract says it may contain.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { expect } from 'vitest';
import { projectRoot } from '../k6/support.js';

const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
// ajv-formats is no dependency; the one format the schemas use, as the harness writes it (toISOString).
ajv.addFormat('date-time', /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/);

const compile = (name: string): ValidateFunction =>
  ajv.compile(JSON.parse(readFileSync(join(projectRoot, 'schema', name), 'utf8')) as object);
export const validateReport = compile('report.schema.json');
export const validateHistory = compile('history.schema.json');
export const validateCutover = compile('cutover.schema.json');

const problems = (validate: ValidateFunction): string[] =>
  (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`);

/** Fails the test with every schema violation of `report` (a parsed report.json, or its folder). */
export function expectValidReport(report: unknown): void {
  const value = typeof report === 'string' ? JSON.parse(readFileSync(join(report, 'report.json'), 'utf8')) : report;
  validateReport(value);
  expect(problems(validateReport), 'report.json against schema/report.schema.json').toEqual([]);
}

/** Fails the test with every schema violation of a cutover report.json (parsed, or its folder). */
export function expectValidCutover(report: unknown): void {
  const value = typeof report === 'string' ? JSON.parse(readFileSync(join(report, 'report.json'), 'utf8')) : report;
  validateCutover(value);
  expect(problems(validateCutover), 'report.json against schema/cutover.schema.json').toEqual([]);
}

/** Fails the test with every schema violation of any line of a history file. */
export function expectValidHistory(file: string): void {
  const lines = readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '');
  expect(lines.length).toBeGreaterThan(0);
  for (const line of lines) {
    validateHistory(JSON.parse(line));
    expect(problems(validateHistory), 'history line against schema/history.schema.json').toEqual([]);
  }
}
