// One client run: a fresh emulator shaped by the scenario (loopback, TLS 1.3 only, its own CA), the
// client started with the connection in its environment, every request and ClientHello recorded,
// and the client stopped if it runs past the time limit, floods the emulator or prints its secret.

import { createEmulator } from '../emulator/index.js';
import { HarnessError } from '../errors.js';
import type { ClientScenario } from '../emulator/scenarios/index.js';
import type { Redactor } from '../http/redact.js';
import { readClientHello, type OfferedTls } from './client-hello.js';
import { clientEnvironment, runSecondsWithin } from './client-env.js';
import { Recorder } from './recorder.js';
import type { ClientRunRecord } from './record.js';
import { stallAfterMs } from './stall.js';
import { supervise } from './supervise.js';

/** Lines of the client's output echoed per run, and characters per line. */
const MAX_ECHOED_LINES = 200;
const MAX_ECHOED_CHARS = 1_000;
const cut = (line: string, max: number): string => (line.length > max ? `${line.slice(0, max)}…` : line);

export interface ClientRunSetup {
  argv: readonly string[];
  /**
   * The harness's own environment and folder, which the client inherits (the CLI's io: the process's
   * for the bin, a test's own for an in-process run).
   */
  env: NodeJS.ProcessEnv;
  cwd: string;
  scenario: ClientScenario;
  timeLimitS: number;
  /** Past this many requests in one run the client is flooding and is stopped. */
  maxRequests: number;
  /** Learns the run's secret and tokens, so the client's echoed output is redacted of them. */
  redactor: Redactor;
  /** Each line the client writes, redacted. */
  onLine(line: string): void;
  signal: AbortSignal;
}

export async function recordClientRun(run: ClientRunSetup): Promise<ClientRunRecord> {
  const hellos: OfferedTls[] = [];
  let recorder: Recorder | undefined;
  let flooded: (() => void) | undefined;
  const emulator = await createEmulator({
    port: 0,
    ...(run.scenario.tokenTtlS !== undefined ? { tokenTtlS: run.scenario.tokenTtlS } : {}),
    overrides: run.scenario.override ? [run.scenario.override] : [],
    onClientHello: (first) => {
      if (hellos.length < run.maxRequests) hellos.push(readClientHello(first));
    },
    observe: (observed) => {
      if (recorder === undefined) return;
      if (recorder.requests.length >= run.maxRequests) return flooded?.();
      recorder.add(observed);
    },
  });
  try {
    const { clientId, clientSecret } = emulator.credentials;
    run.redactor.addSecret(clientSecret, clientId);
    const runSeconds = runSecondsWithin(run.timeLimitS);
    const startMs = Date.now();
    recorder = new Recorder(startMs, clientSecret, clientId, (token) => run.redactor.addToken(token));
    let secretPrinted = false;
    // The tail of the previous chunk, so a secret split across two writes is still seen.
    let tail = '';
    const lines = { stdout: '', stderr: '' };
    // A chatty client must not drown the harness' own output: the first lines are shown, then a note.
    let echoed = 0;
    const echo = (line: string) => {
      // Redacted whole, then cut: a cut first could leave most of a secret standing after it.
      if (echoed < MAX_ECHOED_LINES) run.onLine(cut(run.redactor.foreign(line), MAX_ECHOED_CHARS));
      else if (echoed === MAX_ECHOED_LINES)
        run.onLine(`… more output not shown (first ${MAX_ECHOED_LINES} lines only)`);
      echoed++;
    };
    const client = supervise({
      argv: run.argv,
      env: clientEnvironment(run.env, {
        baseUrl: emulator.url,
        clientId,
        clientSecret,
        caFile: emulator.caFile,
        runSeconds,
      }),
      cwd: run.cwd,
      timeLimitMs: run.timeLimitS * 1000,
      onOutput: (chunk, stream) => {
        const text = chunk.toString('utf8');
        if (run.redactor.containsSecret(tail + text)) {
          secretPrinted = true;
          client.stop('secret-printed');
        }
        tail = text.slice(-256);
        const parts = (lines[stream] + text).split('\n');
        lines[stream] = (parts.pop() ?? '').slice(-4096);
        for (const line of parts) echo(line);
      },
    });
    flooded = () => client.stop('flood');
    const onAbort = () => client.stop('interrupted');
    run.signal.addEventListener('abort', onAbort, { once: true });
    const outcome = await client.done
      .catch((err: NodeJS.ErrnoException) => {
        // Found runnable before the emulator started, gone or unreadable by now: still the user's to fix.
        throw new HarnessError(
          'CLIENT_COMMAND_UNUSABLE',
          `client command ${run.argv[0] ?? ''} could not be started (${err.code ?? err.message}): check it runs on its own`,
        );
      })
      .finally(() => run.signal.removeEventListener('abort', onAbort));
    for (const rest of [lines.stdout, lines.stderr]) if (rest !== '') echo(rest);
    return {
      scenario: run.scenario.name,
      baseUrl: emulator.url,
      requests: recorder.requests,
      hellos,
      process: outcome,
      secretPrinted,
      limits: {
        timeLimitS: run.timeLimitS,
        maxRequests: run.maxRequests,
        stallAfterMs: stallAfterMs(runSeconds, run.scenario),
      },
    };
  } finally {
    await emulator.close();
  }
}
