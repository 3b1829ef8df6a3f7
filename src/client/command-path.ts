// Whether the client command can be run at all, found before the emulator starts: a name is looked
// up on PATH as the shell would, a path must be an executable file.

import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

const runnable = (file: string): boolean => {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
};

/** undefined when the command is runnable; else the one line that says why not. */
export function commandProblem(command: string, path: string | undefined): string | undefined {
  if (command.includes('/')) {
    return runnable(command)
      ? undefined
      : `client command ${command} is not an executable file: check the path and chmod +x it`;
  }
  const found = (path ?? '')
    .split(delimiter)
    .filter(Boolean)
    .some((dir) => runnable(join(dir, command)));
  return found
    ? undefined
    : `client command "${command}" was not found on PATH: install it or give its path (ces-harness client -- ./my-client)`;
}
