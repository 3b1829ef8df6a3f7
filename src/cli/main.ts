// Entry point of the `ces-harness` bin. Only this layer touches process streams and exit codes, and
// only through the io it is given (io.ts): the bin's is the real process, a test's its own.

import { HarnessError } from '../errors.js';
import { printable } from '../report/common/printable.js';
import type { Redactor } from '../http/redact.js';
import { VERSION } from '../version.js';
import { helpText, parseCommandLine, type Command, type Options } from './flags.js';
import { processIo, type CliIo } from './io.js';
import { emulatorSpare } from './emulator-spare.js';

export async function main(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  try {
    const { command, options, clientArgv } = parseCommandLine(argv);
    if (command === 'help') return print(helpText(), io);
    if (command === 'version') return print(VERSION, io);
    if (options.version) return print(VERSION, io);
    if (options.help)
      return print(helpText(command, await (await import('./help-choices.js')).helpChoices(command)), io);
    if (command === 'client')
      return await (await import('./commands/client.js')).clientCommand(options, clientArgv ?? [], io);
    return await dispatch(command, options, io);
  } catch (err) {
    const redactor = await environmentSecrets(io.env);
    if (err instanceof HarnessError) {
      // A message may quote a value the user or the service gave: redacted, then shown, never
      // obeyed by the terminal.
      io.stderr.write(`ces-harness: ${printable(redactor.foreign(err.message))}\n`);
      return err.exitCode;
    }
    const message = printable(redactor.foreign(err instanceof Error ? err.message : String(err)));
    io.stderr.write(
      `ces-harness: unexpected error: ${message}${io.env['CES_DEBUG'] ? `\n${(err as Error).stack}` : ' (CES_DEBUG=1 shows where)'}\n`,
    );
    return 1;
  }
}

/**
 * An error that ends the run has no run's redactor to pass through: this one knows the secrets
 * the environment holds (CES_CLIENT_SECRET, the config's ${VAR}s) and finds the rest by structure.
 */
async function environmentSecrets(env: NodeJS.ProcessEnv): Promise<Redactor> {
  // Loaded here, not with the bin: the harness's words are every check's text (the whole check
  // catalogue, ~250 KB of bundle), which would otherwise load before the emulator's thread starts.
  const [{ Redactor }, { harnessWords }] = await Promise.all([
    import('../http/redact.js'),
    import('./harness-words.js'),
  ]);
  const redactor = new Redactor({ keep: harnessWords() });
  for (const [name, value] of Object.entries(env)) if (/SECRET|PASSWORD/i.test(name)) redactor.addSecret(value);
  return redactor;
}

/**
 * Each command loads only the modules it uses (`await import`, which esbuild splits into chunks):
 * `--help` and `serve` do not pay for the checks, k6 or the rate-limit probe, nor `check` for the
 * emulator when a target is configured.
 */
async function dispatch(command: Command, options: Options, io: CliIo): Promise<number> {
  switch (command) {
    case 'check': {
      const spare = await emulatorSpare(options, io);
      try {
        const [{ targetJob }, { conformanceStage, selectedChecks, checksLeftOut }] = await Promise.all([
          import('./commands/target-job.js'),
          import('./commands/check.js'),
        ]);
        const leftOut = checksLeftOut(options);
        const stages = {
          checks: conformanceStage(selectedChecks(options)),
          ...(leftOut ? { checksLeftOut: leftOut } : {}),
        };
        return await targetJob(options, stages, io, spare);
      } finally {
        await spare?.discard();
      }
    }
    case 'run': {
      const spare = await emulatorSpare(options, io);
      try {
        const [
          { targetJob },
          { conformanceStage, selectedChecks, checksLeftOut },
          { selectedScenarios },
          { loadStage },
          { runRateLimitStage },
        ] = await Promise.all([
          import('./commands/target-job.js'),
          import('./commands/check.js'),
          import('./commands/load.js'),
          import('../stages/load.js'),
          import('../stages/rate-limit.js'),
        ]);
        return await targetJob(
          options,
          {
            checks: conformanceStage(selectedChecks(options)),
            ...(checksLeftOut(options) ? { checksLeftOut: checksLeftOut(options)! } : {}),
            load: loadStage(selectedScenarios(options), { short: true, sizesAgain: true }),
            // The main job keeps the sizing short: a bounded probe and a brief proof of the policy.
            rateLimit: runRateLimitStage,
            probingOptional: true,
          },
          io,
          spare,
        );
      } finally {
        await spare?.discard();
      }
    }
    case 'load': {
      const [{ targetJob }, { selectedScenarios }, { loadStage }] = await Promise.all([
        import('./commands/target-job.js'),
        import('./commands/load.js'),
        import('../stages/load.js'),
      ]);
      return targetJob(options, { load: loadStage(selectedScenarios(options)) }, io);
    }
    case 'ratelimit': {
      const [{ targetJob }, { rateLimitStage }] = await Promise.all([
        import('./commands/target-job.js'),
        import('../stages/rate-limit.js'),
      ]);
      return targetJob(options, { rateLimit: rateLimitStage }, io);
    }
    case 'cutover':
      return (await import('./commands/cutover.js')).cutoverCommand(options, io);
    case 'serve':
      return (await import('./commands/serve.js')).serveCommand(options, io);
    case 'k8s':
      return (await import('./commands/k8s.js')).k8sCommand(options, {
        cwd: io.cwd,
        env: io.env,
        out: (line) => io.stdout.write(line + '\n'),
        err: (line) => io.stderr.write(line + '\n'),
      });
    case 'checks':
      return print((await import('./commands/checks.js')).checksListing(options), io);
    case 'client':
      throw new Error('client is dispatched with its command line in main()');
  }
}

function print(text: string, io: CliIo): number {
  io.stdout.write(text + '\n');
  return 0;
}
