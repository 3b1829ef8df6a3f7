// `ces-harness check`: conformance checks only. Also the first stage of `run`.

import { CHECKS } from '../../../checks/index.js';
import { usageError } from '../../errors.js';
import type { Target } from '../../config/target.js';
import type { TransportSeen } from '../../http/exchange.js';
import type { HttpVersion } from '../../http/dispatcher.js';
import type { CheckResult, ChecksLeftOut, TransportFacts } from '../../report/model.js';
import { tlsEndpoint } from '../../tls/endpoint.js';
import { offeredHttpVersions } from '../../tls/http-versions.js';
import type { Check } from '../../runner/check.js';
import { runConformance } from '../../runner/conformance.js';
import { selectChecks } from '../../runner/run-checks.js';
import type { Options } from '../flags.js';
import { resultLine } from '../terminal.js';
import type { Stage } from '../../stages/run-io.js';

/** Validates --only/--skip before anything starts, so a typo costs no emulator (a spare thread is stopped) and no request. */
export function selectedChecks(options: Options): Check[] {
  const { selected, unknown } = selectChecks(CHECKS, options.only ?? [], options.skip ?? []);
  if (unknown.length) throw usageError(`unknown check ${unknown.join(', ')}; ces-harness checks lists the ids`);
  return selected;
}

/** The checks --only/--skip left out, and the flags that did; undefined when none. */
export function checksLeftOut(options: Options): ChecksLeftOut | undefined {
  const only = options.only ?? [];
  const skip = options.skip ?? [];
  const kept = new Set(selectedChecks(options).map((c) => c.id));
  const ids = CHECKS.map((c) => c.id).filter((id) => !kept.has(id));
  if (ids.length === 0) return undefined;
  const by = [...only.map((p) => `--only ${p}`), ...skip.map((p) => `--skip ${p}`)].join(' ');
  return { by, ids };
}

export function conformanceStage(checks: readonly Check[]): Stage<CheckResult[]> {
  return async (
    { settings, ledger, productionGate },
    { clock, redactor, out, progress, signal, untested, sawTransport, sawAdvertisedLimit, untilAlone },
  ) => {
    let seen: TransportSeen | undefined;
    // Which HTTP versions the service offers by ALPN depends on no check: asked beside them, from
    // the first result on (after the run's first token, which it must not delay), not after the last.
    let offered: Promise<HttpVersion[] | undefined> | undefined;
    const askOffered = () => (offered ??= offeredVersions(settings.target, signal));
    const results = await runConformance({
      ...settings,
      ...(productionGate ? { productionGate } : {}),
      ledger,
      checks,
      clock,
      redactor,
      progress,
      onResult: (r) => {
        void askOffered().catch(() => undefined);
        out(resultLine(r));
      },
      onCredentialsRefused: (line) => untested('credentials', line),
      onTransport: (s) => void (seen = s),
      onUntested: (line) => untested('checks', line),
      ...(untilAlone ? { beforeLast: untilAlone } : {}),
      signal,
    });
    if (seen?.advertised && sawAdvertisedLimit) sawAdvertisedLimit(seen.advertised);
    if (seen && sawTransport) sawTransport(transportFacts(seen, await askOffered()));
    return results;
  };
}

/** Which HTTP versions the service offers by ALPN (two handshakes); undefined over plain HTTP or once stopped. */
function offeredVersions(target: Target, signal: AbortSignal): Promise<HttpVersion[] | undefined> {
  const endpoint = tlsEndpoint(target);
  return endpoint.https && !signal.aborted ? offeredHttpVersions(endpoint, signal) : Promise.resolve(undefined);
}

/** The checks' view of the transport, and the versions the service offers. */
function transportFacts(seen: TransportSeen, offered: HttpVersion[] | undefined): TransportFacts {
  return { ...(offered ? { http_offered: offered } : {}), http_used: seen.connections, content_codings: seen.codings };
}
