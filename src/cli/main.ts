// Entry point of the `ces-harness` bin. Only this layer touches process streams and exit codes.

import { HarnessError } from '../errors.js';
import { printable } from '../report/printable.js';
import { VERSION } from '../version.js';
import { conformanceStage, selectedChecks } from './commands/check.js';
import { k8sCommand } from './commands/k8s.js';
import { loadStage, selectedScenarios } from './commands/load.js';
import { makeRateLimitStage, rateLimitStage } from './commands/ratelimit.js';
import { serveCommand } from './commands/serve.js';
import { targetJob } from './commands/target-job.js';
import { helpText, parseCommandLine, type Command, type Options } from './flags.js';

export async function main(argv: readonly string[]): Promise<number> {
  try {
    const { command, options } = parseCommandLine(argv);
    if (command === 'help') return print(helpText());
    if (command === 'version') return print(VERSION);
    if (options.help) return print(helpText(command));
    return await dispatch(command, options);
  } catch (err) {
    if (err instanceof HarnessError) {
      // A message may quote a value the user or the service gave: shown, never obeyed by the terminal.
      process.stderr.write(`ces-harness: ${printable(err.message)}\n`);
      return err.exitCode;
    }
    const message = err instanceof Error ? err.message : String(err);
    process.stderr.write(`ces-harness: unexpected error: ${printable(message)}${process.env['CES_DEBUG'] ? `\n${(err as Error).stack}` : ' (CES_DEBUG=1 shows where)'}\n`);
    return 1;
  }
}

async function dispatch(command: Command, options: Options): Promise<number> {
  switch (command) {
    case 'check':
      return targetJob(options, { checks: conformanceStage(selectedChecks(options)) });
    case 'run':
      return targetJob(options, {
        checks: conformanceStage(selectedChecks(options)),
        load: loadStage(selectedScenarios(options), { short: true }),
        // The main job keeps the sizing short: a bounded probe and a brief proof of the policy.
        rateLimit: makeRateLimitStage({ proofS: 5, maxDurationS: 30 }),
        probingOptional: true,
      });
    case 'load':
      return targetJob(options, { load: loadStage(selectedScenarios(options)) });
    case 'ratelimit':
      return targetJob(options, { rateLimit: rateLimitStage });
    case 'serve':
      return serveCommand(options);
    case 'k8s':
      return k8sCommand(options);
  }
}

function print(text: string): number {
  process.stdout.write(text + '\n');
  return 0;
}
