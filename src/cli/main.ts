// Entry point of the `ces-harness` bin. Only this layer touches process streams and exit codes.

import { HarnessError } from '../errors.js';
import { printable } from '../report/printable.js';
import { Redactor } from '../http/redact.js';
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
    const redactor = environmentSecrets(process.env);
    if (err instanceof HarnessError) {
      // A message may quote a value the user or the service gave: redacted, then shown, never
      // obeyed by the terminal.
      process.stderr.write(`ces-harness: ${printable(redactor.text(err.message))}\n`);
      return err.exitCode;
    }
    const message = printable(redactor.text(err instanceof Error ? err.message : String(err)));
    process.stderr.write(`ces-harness: unexpected error: ${message}${process.env['CES_DEBUG'] ? `\n${(err as Error).stack}` : ' (CES_DEBUG=1 shows where)'}\n`);
    return 1;
  }
}

/**
 * An error that ends the run has no run's redactor to pass through: this one knows the secrets
 * the environment holds (CES_CLIENT_SECRET, the config's ${VAR}s) and finds the rest by structure.
 */
function environmentSecrets(env: NodeJS.ProcessEnv): Redactor {
  const redactor = new Redactor();
  for (const [name, value] of Object.entries(env)) if (/SECRET|PASSWORD/i.test(name)) redactor.addSecret(value);
  return redactor;
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
