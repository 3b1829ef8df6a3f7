// Whether the terminal output is painted. The conventions CI systems and tools share, in the order
// Node itself applies them: --no-color always wins; FORCE_COLOR asks for colour even where output
// is not a terminal (GitHub Actions and GitLab logs show colour, but are pipes), and FORCE_COLOR=0
// or false turns it off; then NO_COLOR (https://no-color.org: set and not empty) and TERM=dumb
// turn it off; otherwise colour exactly when stdout is a terminal.

export interface ColorInputs {
  noColorFlag: boolean;
  isTTY: boolean;
  env: NodeJS.ProcessEnv;
}

export function colorWanted({ noColorFlag, isTTY, env }: ColorInputs): boolean {
  if (noColorFlag) return false;
  const force = env['FORCE_COLOR'];
  if (force !== undefined) return !['0', 'false'].includes(force.trim().toLowerCase());
  if (env['NO_COLOR']) return false;
  if (env['TERM'] === 'dumb') return false;
  return isTTY;
}
