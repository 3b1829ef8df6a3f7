// Phase 6, when a second client is configured: drain the configured client's limit once more, and
// right then let the second client send a few requests. They pass on a per-client limit and are
// refused on a shared one.

import type { Scope } from '../types.js';
import type { Probe } from './probe.js';

export interface ScopeFindings {
  scope: Scope;
  notes: string[];
}

export async function scopePhase(probe: Probe, burst: number | null): Promise<ScopeFindings> {
  const { calls } = probe;
  if (!calls.second) {
    return {
      scope: 'unknown',
      notes: [
        calls.secondProblem
          ? `scope not measured: ${calls.secondProblem}`
          : 'scope not measured: configure rate_limit.second_client (client_id, client_secret through ${VAR}) to tell a per-client limit from a shared one',
      ],
    };
  }
  if (probe.outOfBudget()) return { scope: 'unknown', notes: [] };
  const { samples: drained } = await probe.burstRun('scope', Math.max(50, 3 * (burst ?? 1) + 20));
  if (!drained.some((x) => x.answer === 'limited'))
    return { scope: 'unknown', notes: ['scope not measured: the configured client could not be limited again'] };

  // As many as the second client's own limit surely admits (the same size, if it has its own),
  // sent at max_rps: a shared limit, drained a moment ago and refilling slower than max_rps, cannot
  // let them all through.
  const tries = Math.min(3, Math.max(1, burst ?? 1));
  let passed = 0;
  let refused = false;
  for (let i = 0; i < tries && !refused && !probe.outOfBudget(); i++) {
    if (i > 0) await probe.clock.sleep(Math.ceil(1000 / probe.maxRps), probe.signal);
    const s = await probe.send('scope', 'second');
    if (s.answer === 'accepted') passed++;
    else if (s.answer === 'limited') refused = true;
  }
  const scope: Scope = refused ? 'shared' : passed === tries ? 'per-client' : 'unknown';
  const note =
    scope === 'unknown'
      ? 'scope not settled: the second client got no clear answer'
      : `scope ${scope}: right after the configured client was limited, the second client's ${refused ? `request ${passed + 1} was refused` : `${tries} requests passed`}` +
        (scope === 'per-client' ? ' (per client or per token: a client holds one token at a time, §3)' : '');
  return { scope, notes: [note] };
}
