// `ces-harness check`: conformance checks only. Also the first stage of `run`.

import { CHECKS } from '../../../checks/index.js';
import { usageError } from '../../errors.js';
import type { Target } from '../../config/target.js';
import type { TransportSeen } from '../../http/exchange.js';
import type { CheckResult, TransportFacts } from '../../report/model.js';
import { tlsEndpoint } from '../../tls/endpoint.js';
import { offeredHttpVersions } from '../../tls/http-versions.js';
import type { Check } from '../../runner/check.js';
import { runConformance } from '../../runner/conformance.js';
import { selectChecks } from '../../runner/run-checks.js';
import type { Options } from '../flags.js';
import { resultLine } from '../terminal.js';
import type { Stage } from '../../stages/run-io.js';

/** Validates --only/--skip before anything starts, so a typo costs no emulator and no request. */
export function selectedChecks(options: Options): Check[] {
  const { selected, unknown } = selectChecks(CHECKS, options.only ?? [], options.skip ?? []);
  if (unknown.length) throw usageError(`unknown check ${unknown.join(', ')}; ces-harness checks lists the ids`);
  return selected;
}

export function conformanceStage(checks: readonly Check[]): Stage<CheckResult[]> {
  return async (
    { settings, ledger, productionGate },
    { clock, redactor, out, progress, signal, untested, sawTransport, sawAdvertisedLimit, untilAlone },
  ) => {
    let seen: TransportSeen | undefined;
    const results = await runConformance({
      ...settings,
      ...(productionGate ? { productionGate } : {}),
      ledger,
      checks,
      clock,
      redactor,
      progress,
      onResult: (r) => out(resultLine(r)),
      onCredentialsRefused: (line) => untested('credentials', line),
      onTransport: (s) => void (seen = s),
      onUntested: (line) => untested('checks', line),
      ...(untilAlone ? { beforeLast: untilAlone } : {}),
      signal,
    });
    if (seen?.advertised && sawAdvertisedLimit) sawAdvertisedLimit(seen.advertised);
    if (seen && sawTransport) sawTransport(await transportFacts(settings.target, seen, signal));
    return results;
  };
}

/** The checks' view of the transport, and which HTTP versions the service offers by ALPN (two handshakes). */
async function transportFacts(target: Target, seen: TransportSeen, signal: AbortSignal): Promise<TransportFacts> {
  const endpoint = tlsEndpoint(target);
  const offered = endpoint.https && !signal.aborted ? await offeredHttpVersions(endpoint, signal) : undefined;
  return { ...(offered ? { http_offered: offered } : {}), http_used: seen.connections, content_codings: seen.codings };
}
