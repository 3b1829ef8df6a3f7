// A cold k6 build is minutes long: `npm ci` must show it moving. A fake `go` on PATH stands in for
// the real one (the real build is far too slow for a test): it prints what `go install -v` prints,
// pauses, and leaves a k6 of the pinned version in GOBIN. Progress lines come when the downloads
// start, when compiling starts, and on a heartbeat; go's raw lines stay in the log.

import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PINNED_K6_VERSION } from '../../src/k6/version.js';
import { isolatedProject, provision } from './provision-support.js';

const FAKE_GO = `#!/bin/sh
case "$1" in
  version) echo "go version go1.99.0 linux/amd64" ;;
  install)
    echo "$@" > "$GOBIN/../go-args"
    echo "go: downloading go.k6.io/k6/v2 v${PINNED_K6_VERSION}" >&2
    echo "go: downloading github.com/grafana/sobek v0.0.0" >&2
    sleep 1
    echo "github.com/grafana/sobek/ast" >&2
    echo "go.k6.io/k6/v2" >&2
    sleep 1
    printf '#!/bin/sh\\necho "k6 v${PINNED_K6_VERSION} (go1.99.0, linux/amd64)"\\n' > "$GOBIN/k6"
    chmod +x "$GOBIN/k6" ;;
esac
`;

describe.skipIf(process.platform === 'win32')('provision-k6.mjs while building', () => {
  it('says when downloading and compiling start, beats every CES_K6_PROGRESS_EVERY_S, and sums up', async () => {
    const root = await isolatedProject();
    const bin = join(root, 'fake-bin');
    await mkdir(bin);
    await writeFile(join(bin, 'go'), FAKE_GO);
    await chmod(join(bin, 'go'), 0o755);
    // 0.2 s beats over a 2 s build: several, however late a busy machine fires them.
    const { stdout, stderr } = await provision(root, { PATH: `${bin}:/usr/bin:/bin`, CES_K6_PROGRESS_EVERY_S: '0.2' });
    expect(stderr).toBe('');
    const lines = stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ces-harness: building k6 v[\d.]+ from the Go module proxy/);
    expect(lines).toContain('ces-harness: k6 build: downloading Go modules…');
    expect(lines).toContain('ces-harness: k6 build: compiling…');
    expect(lines.indexOf('ces-harness: k6 build: downloading Go modules…')).toBeLessThan(
      lines.indexOf('ces-harness: k6 build: compiling…'),
    );
    expect(
      lines.filter((l) => /^ces-harness: k6 build: \d+ s: \d+ modules? downloaded, \d+ packages? compiled/.test(l))
        .length,
    ).toBeGreaterThan(0);
    expect(lines.at(-1)).toMatch(
      new RegExp(
        `^ces-harness: built k6 v${PINNED_K6_VERSION.replace(/\./g, '\\.')} at \\.tools/k6/bin/k6 in \\d+ s \\(2 modules downloaded, 2 packages compiled\\)$`,
      ),
    );
    // go's own lines are in the log, not on the terminal (a heartbeat may name the last package, in its own words).
    expect(lines).not.toContain('github.com/grafana/sobek/ast');
    expect(stdout).not.toContain('go: downloading');
    expect(await readFile(join(root, '.tools', 'k6', 'build.log'), 'utf8')).toContain('github.com/grafana/sobek/ast');
    expect((await readFile(join(root, '.tools', 'k6', 'go-args'), 'utf8')).trim()).toBe('install -v go.k6.io/k6/v2');
  });
});
