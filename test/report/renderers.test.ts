import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderers, type ReportFile } from '../../src/report/index.js';
import { FIXTURES, deepFreeze, loadFixture } from './helpers.js';

const FILES = Object.keys(renderers) as ReportFile[];

afterEach(() => {
  vi.useRealTimers();
});

it('maps the four report files of the contract', () => {
  expect(FILES).toEqual(['report.json', 'report.md', 'junit.xml', 'report.html']);
});

describe.each(FILES)('%s', (file) => {
  const render = renderers[file];

  it.each(FIXTURES)('renders report-%s the same way every time, whatever the clock says', (name) => {
    vi.useFakeTimers();
    vi.setSystemTime(new Date('2030-01-01T00:00:00Z'));
    const first = render(loadFixture(name));
    vi.setSystemTime(new Date('1999-06-15T12:34:56Z'));
    expect(render(loadFixture(name))).toBe(first);
    expect(render(structuredClone(loadFixture(name)))).toBe(first);
  });

  it.each(FIXTURES)('does not modify report-%s', (name) => {
    const report = deepFreeze(loadFixture(name));
    expect(() => render(report)).not.toThrow();
    expect(report).toStrictEqual(loadFixture(name));
  });

  it('ends with a newline, as a text file should', () => {
    expect(render(loadFixture('fail')).endsWith('\n')).toBe(true);
  });
});
