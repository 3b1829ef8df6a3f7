import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHECKS } from '../../checks/index.js';
import { GENERATED_PAGES, regenerated } from '../../src/docs/generated.js';
import { resolveSettings } from '../../src/config/resolve.js';

const readme = readFileSync('README.md', 'utf8');
const pages = [
  'README.md',
  ...readdirSync('docs')
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
/** The fenced code blocks of a page, in order (of one language, or of any). */
const codeBlocks = (text: string, lang = '\\w*') =>
  [...text.matchAll(new RegExp('^```' + lang + '\\n([\\s\\S]*?)^```$', 'gm'))].map((m) => m[1]!);

describe('generated tables', () => {
  it.each(GENERATED_PAGES.map((p) => [p.file, p] as const))(
    '%s lists exactly the checks, faults and ranges of the code (run `npm run readme` after changing them)',
    (file, page) => {
      const text = readFileSync(file, 'utf8');
      expect(text).toBe(regenerated(page, text));
    },
  );
});

describe('README', () => {
  it('leads with the two commands a new user runs', () => {
    expect(codeBlocks(readme)[0]).toBe('npm ci && npm start\nnpm test\n');
    expect(readme.indexOf('## Quick start')).toBeLessThan(readme.indexOf('## Test your sandbox'));
  });

  it('its first config is a real sandbox in at most 6 lines, and resolves to that target', async () => {
    const yaml = codeBlocks(readme, 'yaml')[0]!;
    expect(yaml.trimEnd().split('\n').length).toBeLessThanOrEqual(6);
    const dir = mkdtempSync(join(tmpdir(), 'ces-readme-'));
    // The CA file it names is optional: leave it out rather than make one up.
    writeFileSync(join(dir, 'ces-harness.yaml'), yaml.replace(/^\s*ca_file:.*\n/m, ''));
    const settings = await resolveSettings(
      {},
      { CES_SANDBOX_CLIENT_ID: 'id', CES_SANDBOX_CLIENT_SECRET: 'secret-value' },
      dir,
    );
    expect(settings.target).toMatchObject({ environment: 'sandbox', baseUrl: 'https://sandbox.example.test' });
    expect(settings.warnings).toEqual([]);
  });

  it('says how to install the package in another pipeline, and that npm test skips what is missing', () => {
    expect(readme).toContain('npm install -g ./ces-harness-<version>.tgz');
    expect(readme).not.toContain('inside this clone only');
    expect(readme).toMatch(/the tests that need it \*\*skip\*\*/);
  });
});

describe('documentation links', () => {
  const slug = (heading: string) =>
    heading
      .toLowerCase()
      .replace(/[`*]/g, '')
      .replace(/[^\w\s-]/g, '')
      .trim()
      .replace(/\s/g, '-');
  const anchors = (file: string) =>
    new Set([...readFileSync(file, 'utf8').matchAll(/^#+ (.+)$/gm)].map((m) => slug(m[1]!)));

  it.each(pages)(
    '%s: every relative link stays in the repository and reaches a file and heading that exist',
    (file) => {
      const text = readFileSync(file, 'utf8');
      const links = [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((l) => !/^[a-z]+:/.test(l));
      for (const link of links) {
        const [path, anchor] = link.split('#') as [string, string | undefined];
        const target = path === '' ? file : normalize(join(dirname(file), path));
        expect({ link, target: relative('.', target).startsWith('..') ? 'outside the repository' : 'inside' }).toEqual({
          link,
          target: 'inside',
        });
        expect({ link, exists: existsSync(target) }).toEqual({ link, exists: true });
        if (anchor) expect({ link, anchor: anchors(target).has(anchor) }).toEqual({ link, anchor: true });
      }
      // Not even as plain text: a path that leaves the repository (a spec beside the clone) is not there for users.
      const mentioned = [...text.matchAll(/(?:^|[\s(`'"])((?:\.\.\/)+[\w./-]+)/gm)].map((m) => m[1]!);
      expect(mentioned.filter((path) => relative('.', normalize(join(dirname(file), path))).startsWith('..'))).toEqual(
        [],
      );
    },
  );
});

describe('docs/rules.md', () => {
  const rules = readFileSync('docs/rules.md', 'utf8');
  const named = new Set(
    [...rules.matchAll(/`([a-z]+\.[a-z0-9.-]+)`/g)]
      .map((m) => m[1]!)
      .filter((id) => /^(token|health|validate|business|env|tls|ratelimit|auth)\./.test(id)),
  );

  it('names only checks that exist, and every must check', () => {
    const ids = new Set(CHECKS.map((c) => c.id));
    expect([...named].filter((id) => !ids.has(id))).toEqual([]);
    expect(CHECKS.filter((c) => c.level === 'must' && !named.has(c.id)).map((c) => c.id)).toEqual([]);
  });

  it('has a section for every section of the specification a check cites', () => {
    // "§4.1, 3" cites §4 and §3; an RFC is not the service's specification.
    const sections = new Set(
      CHECKS.filter((c) => !c.spec.includes('RFC')).flatMap((c) =>
        c.spec.split(/,\s*/).map((part) => part.replace('§', '').split('.')[0]!),
      ),
    );
    expect(sections.size).toBeGreaterThan(5);
    for (const s of sections) expect(rules).toMatch(new RegExp(`^## §${s} `, 'm'));
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
