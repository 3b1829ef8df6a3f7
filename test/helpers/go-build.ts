// The real parts the tests build from the Go module proxy (toxiproxy, the go-chi/httprate front):
// one binary per pinned module, built once per test process into a git-ignored folder.

import { execFile, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';

/** Why `binary` can be neither found nor built here, or undefined when it can. */
export function goBinaryMissing(binary: string): string | undefined {
  if (existsSync(binary)) return undefined;
  return spawnSync('go', ['version']).error ? `not built at ${binary}, and Go is not on PATH to build it` : undefined;
}

const building = new Map<string, Promise<string>>();

/** `go build -o binary <args>` in `moduleDir` (its go.mod and go.sum only), once; the binary's path. */
export function goBuilt(binary: string, moduleDir: string, args: string[], timeoutMs: number): Promise<string> {
  if (existsSync(binary)) return Promise.resolve(binary);
  let build = building.get(binary);
  if (!build) {
    build = promisify(execFile)('go', ['build', '-o', binary, ...args], {
      cwd: moduleDir,
      timeout: timeoutMs,
      env: {
        ...process.env,
        GOTOOLCHAIN: 'local',
        GOFLAGS: [process.env['GOFLAGS'], '-mod=readonly', '-buildvcs=false'].filter(Boolean).join(' '),
      },
    }).then(() => binary);
    building.set(binary, build);
  }
  return build;
}
