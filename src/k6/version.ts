// The k6 version the harness is built and tested against. tools/k6/go.mod is the one source of
// truth: `npm ci` builds exactly what it pins (scripts/provision-k6.mjs reads the same line), so a
// bump is one edit there plus `go mod tidy`, and this module follows without a second copy.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { findProjectRoot, PROJECT_MARKER } from '../fs/project-root.js';

/** The Go module k6 v2 is published as (the major version is part of the path). */
export const K6_GO_MODULE = 'go.k6.io/k6/v2';

/** The pin's location, relative to the project root (which is found by it). */
export const K6_GO_MOD_PATH = PROJECT_MARKER;

/** The semver of k6 that a go.mod's `require go.k6.io/k6/v2 vX.Y.Z` line pins. */
export function parsePinnedK6Version(goMod: string): string {
  // The require may sit on its own line or inside a require ( … ) block.
  const m = /^\s*(?:require\s+)?go\.k6\.io\/k6\/v2\s+v(\d+\.\d+\.\d+)\s*(?:\/\/.*)?$/m.exec(goMod);
  if (m?.[1] === undefined) throw new Error(`${K6_GO_MOD_PATH} does not require ${K6_GO_MODULE} vX.Y.Z`);
  return m[1];
}

export function readPinnedK6Version(projectRoot: string = findProjectRoot()): string {
  return parsePinnedK6Version(readFileSync(join(projectRoot, K6_GO_MOD_PATH), 'utf8'));
}

/** e.g. "2.2.0". Read once at import: the file is tiny and part of the checkout. */
export const PINNED_K6_VERSION: string = readPinnedK6Version();

/** The major k6 version the bundled scenarios are written for (options, summary shape, exit codes). */
export const REQUIRED_K6_MAJOR = Number(PINNED_K6_VERSION.split('.')[0]);

/** `k6 version` prints e.g. "k6 v2.2.0 (go1.26.8, linux/amd64)"; older ones "k6 v0.50.0 (…)". */
export function parseK6VersionOutput(stdout: string): string | undefined {
  return /\bk6 v(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)/.exec(stdout)?.[1];
}
