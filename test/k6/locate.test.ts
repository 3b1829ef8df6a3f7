import { chmod, copyFile, mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { k6Suits } from '../../scripts/k6-build.mjs';
import { HarnessError } from '../../src/errors.js';
import { locateK6, userK6Dir } from '../../src/k6/locate.js';
import { PINNED_K6_VERSION, parseK6VersionOutput, parsePinnedK6Version } from '../../src/k6/version.js';
import { projectRoot, realK6 } from './support.js';

/** A shell script that answers `version` like a k6 of the given version. */
async function fakeK6(dir: string, version: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  const path = join(dir, 'k6');
  await writeFile(path, `#!/bin/sh\necho "k6 v${version} (go1.26.8, linux/amd64)"\n`);
  await chmod(path, 0o755);
  return path;
}

async function rejection(p: Promise<unknown>): Promise<HarnessError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(HarnessError);
  return err as HarnessError;
}

describe.skipIf(process.platform === 'win32')('locateK6', () => {
  let tmp: string;
  let emptyRoot: string;
  let cache: string;
  let pkgRoot: string;
  beforeAll(async () => {
    tmp = await mkdtemp(join(tmpdir(), 'ces-locate-'));
    emptyRoot = join(tmp, 'project');
    cache = join(tmp, 'cache');
    await mkdir(emptyRoot);
    // An installed package: the k6 pin, and no .tools/ build beside it.
    pkgRoot = join(tmp, 'installed');
    await mkdir(join(pkgRoot, 'tools', 'k6'), { recursive: true });
    await copyFile(join(projectRoot, 'tools', 'k6', 'go.mod'), join(pkgRoot, 'tools', 'k6', 'go.mod'));
  });

  it('refuses a K6_BINARY that reports another major version, with exit code 2', async () => {
    const old = await fakeK6(join(tmp, 'old'), '0.49.0');
    const err = await rejection(locateK6({ K6_BINARY: old, PATH: '', XDG_CACHE_HOME: cache }, emptyRoot));
    expect(err.code).toBe('K6_NOT_FOUND');
    expect(err.exitCode).toBe(2);
    expect(err.message).toContain('v0.49.0');
    expect(err.message).toContain('npm ci');
    expect(err.message).not.toContain('\n');
  });

  it('refuses a K6_BINARY of another minor version, as npm ci does (one rule: the pinned minor)', async () => {
    const [major, minor] = PINNED_K6_VERSION.split('.');
    const other = `${major}.${Number(minor) + 7}.0`;
    const binary = await fakeK6(join(tmp, 'other-minor'), other);
    const err = await rejection(locateK6({ K6_BINARY: binary, PATH: '', XDG_CACHE_HOME: cache }, emptyRoot));
    expect(err.message).toContain(`${binary} is k6 v${other}, not v${major}.${minor}.x`);
  });

  it('does not fall back to PATH when the K6_BINARY the user set is unusable', async () => {
    const good = await fakeK6(join(tmp, 'good'), PINNED_K6_VERSION);
    const err = await rejection(
      locateK6({ K6_BINARY: join(tmp, 'missing', 'k6'), PATH: join(tmp, 'good') }, emptyRoot),
    );
    expect(err.code).toBe('K6_NOT_FOUND');
    expect(good).toBeTruthy();
  });

  it('says in one line how to install when there is no k6 anywhere and no Go to build one', async () => {
    const err = await rejection(locateK6({ PATH: join(tmp, 'nothing-here'), XDG_CACHE_HOME: cache }, pkgRoot));
    expect(err.code).toBe('K6_NOT_FOUND');
    expect(err.exitCode).toBe(2);
    expect(err.message).toBe(
      `k6 v${PINNED_K6_VERSION} is not installed and Go is not on PATH to build it; install Go >= 1.25 (https://go.dev/dl/) and ` +
        `run the command again (it builds k6 v${PINNED_K6_VERSION} once, into the per-user cache), or set K6_BINARY to a k6 v2.2 binary`,
    );
  });

  it('at first use builds k6 into the per-user cache with Go, once for two runs starting together, then reuses it', async () => {
    // A fake `go` that builds a fake k6 into GOBIN in about a second and counts its builds.
    const goDir = join(tmp, 'fake-go');
    const builds = join(tmp, 'builds.txt');
    await mkdir(goDir, { recursive: true });
    await writeFile(
      join(goDir, 'go'),
      [
        '#!/bin/sh',
        'if [ "$1" = version ]; then echo "go version go1.26.0 linux/amd64"; exit 0; fi',
        `echo "$PWD" >> ${builds}`,
        '/usr/bin/sleep 1',
        `printf '#!/bin/sh\necho "k6 v${PINNED_K6_VERSION} (go1.26.0, linux/amd64)"\n' > "$GOBIN/k6"`,
        '/usr/bin/chmod 755 "$GOBIN/k6"',
      ].join('\n') + '\n',
    );
    await chmod(join(goDir, 'go'), 0o755);
    const xdg = join(tmp, 'xdg');
    const env = { PATH: goDir, XDG_CACHE_HOME: xdg };
    const lines: string[] = [];
    const say = (line: string) => lines.push(line);
    const [a, b] = await Promise.all([locateK6(env, pkgRoot, { say }), locateK6(env, pkgRoot, { say })]);
    const expected = { path: join(xdg, 'ces-harness', 'k6', PINNED_K6_VERSION, 'k6'), version: PINNED_K6_VERSION };
    expect(a).toEqual(expected);
    expect(b).toEqual(expected);
    expect(userK6Dir(env)).toBe(join(xdg, 'ces-harness', 'k6', PINNED_K6_VERSION));
    // One build, run in the pinned tools module, and the lock gone afterwards.
    expect((await readFile(builds, 'utf8')).trim().split('\n')).toEqual([join(pkgRoot, 'tools', 'k6')]);
    expect(lines[0]).toContain(`building k6 v${PINNED_K6_VERSION} from the Go module proxy into ${userK6Dir(env)}`);
    expect(await locateK6(env, pkgRoot, { say })).toEqual(expected);
    expect((await readFile(builds, 'utf8')).trim().split('\n')).toHaveLength(1);
    await expect(readFile(`${userK6Dir(env)}.lock`)).rejects.toMatchObject({ code: 'ENOENT' });
  }, 30_000);

  it('a cache folder that cannot be made is one K6_NOT_FOUND line, not a stack trace', async () => {
    const file = join(tmp, 'a-file');
    await writeFile(file, '');
    const err = await rejection(
      locateK6({ PATH: join(tmp, 'nothing-here'), XDG_CACHE_HOME: file }, pkgRoot, { say: () => {} }),
    );
    expect(err.code).toBe('K6_NOT_FOUND');
    expect(err.message).toMatch(
      new RegExp(
        `^could not build k6 v${PINNED_K6_VERSION} into ${file}/ces-harness/k6/${PINNED_K6_VERSION}: ENOTDIR.*; set K6_BINARY to a k6 v2\\.2 binary$`,
      ),
    );
    expect(err.message).not.toContain('\n');
  });

  it('uses an injected builder, and its one-line failure is the error', async () => {
    const env = { PATH: join(tmp, 'nothing-here'), XDG_CACHE_HOME: join(tmp, 'xdg-injected') };
    const err = await rejection(
      locateK6(env, emptyRoot, {
        build: async () => ({ ok: false, line: 'could not build k6 v9: proxy said no; fix that' }),
        say: () => {},
      }),
    );
    expect(err.message).toBe('could not build k6 v9: proxy said no; fix that');
  });

  it('prefers the project build in .tools/k6/bin over PATH, and names a wrong-major k6 on PATH', async () => {
    const root = join(tmp, 'with-tools');
    const tools = await fakeK6(join(root, '.tools', 'k6', 'bin'), '2.2.0');
    await fakeK6(join(tmp, 'path-v2'), '2.9.9');
    expect(await locateK6({ PATH: join(tmp, 'path-v2'), XDG_CACHE_HOME: cache }, root)).toEqual({
      path: tools,
      version: '2.2.0',
    });

    // Like a shell, only the first k6 on PATH counts; a wrong one is named in the error.
    const old = await fakeK6(join(tmp, 'path-old'), '0.50.0');
    const err = await rejection(
      locateK6(
        { PATH: [join(tmp, 'path-old'), join(tmp, 'path-v2')].join(delimiter), XDG_CACHE_HOME: cache },
        emptyRoot,
      ),
    );
    expect(err.message).toContain(`${old} is k6 v0.50.0`);
  });

  it('finds the real k6 v2 (K6_BINARY, .tools/k6/bin from npm ci, or PATH)', async (ctx) => {
    const k6 = await realK6();
    if (k6 === undefined) return ctx.skip();
    expect(k6.version).toMatch(/^2\./);
  });
});

describe('k6Suits: the k6 versions both npm ci and the CLI accept', () => {
  it.each([
    { version: '2.2.0', pinned: '2.2.0', want: true },
    { version: '2.2.7', pinned: '2.2.0', want: true },
    { version: '2.3.0', pinned: '2.2.0', want: false },
    { version: '2.1.9', pinned: '2.2.0', want: false },
    { version: '3.2.0', pinned: '2.2.0', want: false },
    { version: '0.50.0', pinned: '2.2.0', want: false },
    { version: '22.0.0', pinned: '2.2.0', want: false },
    { version: undefined, pinned: '2.2.0', want: false },
  ])('k6 v$version against the pin v$pinned: $want', ({ version, pinned, want }) => {
    expect(k6Suits(version, pinned)).toBe(want);
  });
});

describe('the pinned k6 version', () => {
  it('comes from tools/k6/go.mod', async () => {
    const { readFile } = await import('node:fs/promises');
    const goMod = await readFile(join(projectRoot, 'tools', 'k6', 'go.mod'), 'utf8');
    expect(parsePinnedK6Version(goMod)).toBe(PINNED_K6_VERSION);
    expect(PINNED_K6_VERSION).toMatch(/^2\.\d+\.\d+$/);
  });

  it('parses both require forms and k6 version lines', () => {
    expect(parsePinnedK6Version('module x\n\nrequire go.k6.io/k6/v2 v2.2.0\n')).toBe('2.2.0');
    expect(parsePinnedK6Version('require (\n\tgo.k6.io/k6/v2 v2.3.1 // pinned\n)\n')).toBe('2.3.1');
    expect(() => parsePinnedK6Version('module x\n')).toThrow(/go\.k6\.io\/k6\/v2/);
    expect(parseK6VersionOutput('k6 v2.2.0 (go1.26.8, linux/amd64)\n')).toBe('2.2.0');
    expect(parseK6VersionOutput('k6 v0.49.0 (2024-01-01T00:00:00+0000/abc, go1.21, linux/amd64)')).toBe('0.49.0');
    expect(parseK6VersionOutput('something else')).toBeUndefined();
  });
});
