// A stage target (the prepared built-in emulator's settings) pointed at another emulator: a test's
// own limiter behind the stage, as the CLI would reach it with --base-url.

import type { Emulator } from '../../src/emulator/index.js';
import type { PreparedTarget } from '../../src/cli/prepare-target.js';
import type { StageTarget } from '../../src/stages/run-io.js';

export async function stageTargetOn(
  prepared: PreparedTarget,
  emulator: Emulator,
  reportDir: string,
  over: Partial<StageTarget> = {},
): Promise<StageTarget> {
  const { target } = await prepared.probeTarget();
  return {
    ...prepared,
    ...over,
    probeTarget: async () => ({
      target: {
        ...target,
        baseUrl: emulator.url,
        credentials: emulator.credentials,
        caPem: emulator.caPem,
        caFile: emulator.caFile,
      },
    }),
    reportDir,
  };
}
