// Types of scripts/k6-build.mjs for the TypeScript that imports it (src/k6/locate.ts).

export declare const EXE: string;
export declare const BUILD_TIMEOUT_MS: number;
export declare function k6Pin(root: string): { pinned: string; pinnedMinor: string; goMin: string } | undefined;
export declare function k6Suits(version: string | undefined, pinned: string): boolean;
export declare function onPath(name: string, env?: NodeJS.ProcessEnv): string | undefined;
export declare function k6Version(path: string, env?: NodeJS.ProcessEnv): Promise<string | undefined>;
export declare function buildK6(options: {
  root: string;
  binDir: string;
  logFile: string;
  fix: string;
  say: (line: string) => void;
  env?: NodeJS.ProcessEnv;
  show?: (path: string) => string;
}): Promise<{ ok: true; path: string; version: string; seconds: number; counts: string } | { ok: false; line: string }>;
