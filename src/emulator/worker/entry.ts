// The built-in emulator in a worker thread of its own: the CLI's thread then carries only the
// client side of each TLS handshake, not the server's too (with `Connection: close` a handshake per
// request, one thread doing both set the pace of the rate-limit probe, not the limit it measures).
// Bundled to dist/emulator-worker.js (scripts/build.mjs); started by host.ts.

import { parentPort, workerData } from 'node:worker_threads';
import { HarnessError } from '../../errors.js';
import { createEmulator } from '../index.js';
import { certificatesAhead } from './certificates-ahead.js';
import type { Observed } from '../options.js';
import type { CrossedError, FromWorker, ToWorker, WorkerStart } from './protocol.js';

const port = parentPort!;
const say = (message: FromWorker) => port.postMessage(message);
// Started with its options, or as a spare (host.ts) that has loaded this code and waits for them.
const given = workerData as WorkerStart | undefined;
// A spare's wait is idle time beside the CLI's own loading: it makes the certificates a default
// start serves meanwhile, which then leave the path between the options and the first request.
const ahead = given ? undefined : certificatesAhead();
const { options, observe } =
  given ??
  (await new Promise<WorkerStart>((resolve) =>
    port.once('message', (message: ToWorker) => {
      // A spare is only ever told to start, or stopped from outside (terminate).
      if (message.kind === 'start') resolve(message.start);
    }),
  ));

try {
  const certificates = ahead?.for(options);
  const emulator = await createEmulator({
    ...options,
    ...(certificates ? { certificates } : {}),
    onTokenIssued: (token) => say({ kind: 'token', token }),
    ...(observe ? { observe: (observed: Observed) => say({ kind: 'observed', observed: plain(observed) }) } : {}),
  });
  const { issuedTokens: _tokens, close: _close, ...facts } = emulator;
  // The one message a host sends once the emulator runs (ToWorker): close.
  port.once('message', (_close: ToWorker) => {
    void emulator.close().then(
      () => end({ kind: 'closed' }),
      (err: unknown) => end({ kind: 'closed', error: crossed(err) }),
    );
  });
  say({ kind: 'ready', facts });
} catch (err) {
  end({ kind: 'failed', error: crossed(err) });
}

/** The last word: with the port closed nothing keeps the thread, so it ends. */
function end(message: FromWorker): void {
  say(message);
  port.close();
}

function crossed(err: unknown): CrossedError {
  const message = err instanceof Error ? err.message : String(err);
  return err instanceof HarnessError ? { message, code: err.code } : { message };
}

/** An observation as plain data: Node's request headers are copied out of their own object. */
function plain({ req, reply, arrivedMs, answeredMs }: Observed): Observed {
  return { req: { ...req, headers: { ...req.headers } }, reply, arrivedMs, answeredMs };
}
