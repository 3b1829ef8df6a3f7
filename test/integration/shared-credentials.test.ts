// Real sandboxes share credentials: the integrator's app, other jobs, a curl from a terminal all
// get the same token from POST /tokens until it expires (§3, §4.1), so the first token a run sees
// may have been fetched hours ago by someone else. token.lifetime must not call that "too short";
// it judges a short life only where the run bounded the issue time: at a rollover, through the
// token ledger. A token with MORE than the promised life fails at first sight.
//
// The emulator's clock is moved (its `now` option) to play the other client's earlier fetches;
// the run itself happens on the clock the emulator moves from, a virtual one (the 8 s tokens'
// waits are skipped, not slept), against a target that is not the built-in emulator.

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHECKS } from '../../checks/index.js';
import { createEmulator, type FaultName } from '../../src/emulator/index.js';
import { Redactor } from '../../src/http/redact.js';
import { ServiceClient } from '../../src/http/service-client.js';
import { runConformance } from '../../src/runner/conformance.js';
import { Ledger } from '../../src/runner/ledger.js';
import { selectChecks } from '../../src/runner/run-checks.js';
import { epochSeconds } from '../../src/spec/expires-at.js';
import { virtualClock } from '../../src/time/clock.js';
import { targetsOf } from '../helpers/conformance.js';

const DAY = 86_400;

interface Fetch {
  /** How long before the run another client fetched (emulator clock moved back by this much). */
  agoS: number;
  /** An earlier scheduled run of the harness saw this token, so the ledger holds it. */
  ledger?: boolean;
}

interface Case {
  name: string;
  faults?: FaultName[];
  /** The promised lifetime (24 h unless given); one short enough is waited out in-process. */
  ttlS?: number;
  /** The other client's fetches, oldest first. */
  before: Fetch[];
  /** skip: the lifetime was not measured (no rollover pins it), only "not more than the promise". */
  want: 'pass' | 'fail' | 'skip';
  says: RegExp;
}

const CASES: Case[] = [
  {
    name: 'fetched by another client 1 s earlier',
    before: [{ agoS: 1 }],
    want: 'pass',
    says: /consistent with the promised 86400 s|cannot be told/,
  },
  {
    name: 'fetched by another client 1 h earlier',
    before: [{ agoS: 3_600 }],
    want: 'skip',
    says: /^lifetime not measured: .*issued up to 36\d\d s ago .*next rollover/,
  },
  {
    name: 'fetched by another client 23 h earlier',
    before: [{ agoS: 23 * 3_600 }],
    want: 'skip',
    says: /issued up to 828\d\d s ago .*next rollover/,
  },
  // Fetched while the service's clock ran an hour ahead: now an hour more than a fresh token has.
  {
    name: 'with more than the promised life',
    before: [{ agoS: -3_600 }],
    want: 'fail',
    says: /more than the promised 86400 s/,
  },
  // E1 − E0 + 1 s is 100 s over the promise, or 101 when the two fetches straddle a second.
  {
    name: 'after a rollover the ledger saw: the previous token expired 700 s ago, this one fetched by another client 600 s ago',
    before: [{ agoS: DAY + 700, ledger: true }, { agoS: 600 }],
    want: 'pass',
    says: /lifetime 85\d\d\d\.\d–8650[12]\.\d s measured at a rollover .*token ledger/,
  },
  {
    name: 'half the promised life, after a rollover the ledger saw',
    faults: ['wrong-lifetime'],
    before: [{ agoS: DAY / 2 + 700, ledger: true }, { agoS: 600 }],
    want: 'fail',
    says: /lives 42\d\d\d\.\d–4330[12]\.\d s \(issued after .*token ledger.*less than the promised 86400 s/,
  },
  // Short tokens: the run itself sees the other client's token expire and the next one appear.
  {
    name: 'of 8 s fetched by another client 3 s earlier, a rollover seen in this run',
    ttlS: 8,
    before: [{ agoS: 3 }],
    want: 'pass',
    says: /lifetime \d\.\d–\d+\.\d s measured at a rollover .*this run: tk_[0-9a-f]{8} expired/,
  },
  {
    name: 'of half the promised 8 s, a rollover seen in this run',
    ttlS: 8,
    faults: ['wrong-lifetime'],
    before: [{ agoS: 1 }],
    want: 'fail',
    says: /lives \d\.\d–\d\.\d s \(issued after .*this run.*less than the promised 8 s/,
  },
  // A rollover the ledger saw 13 h before this token was fetched bounds its issue no better than
  // 12.5 h: half the promise fits as well as the promise, so nothing is measured (it passed before).
  {
    name: 'half the promised life, after a rollover the ledger saw 13 h before this token was fetched',
    faults: ['wrong-lifetime'],
    before: [{ agoS: DAY / 2 + 13 * 3_600, ledger: true }, { agoS: 600 }],
    want: 'skip',
    says: /^lifetime not measured: token \S+ \(first seen by this run\) has 42\d{3}\.\d–42\d{3}\.\d s left.*The token ledger.s rollover pins it no better: .* so it lives 42\d{3}\.\d–89\d{3}\.\d s/,
  },
  // The limit of the rule, on purpose: with no rollover known, a short remaining life may be an old
  // token. Not a pass: the lifetime was not measured.
  {
    name: 'half the promised life, no rollover known',
    faults: ['wrong-lifetime'],
    before: [{ agoS: 60 }],
    want: 'skip',
    says: /cannot be told from it\. The token ledger measures it at the next rollover/,
  },
];

async function lifetimeCheck(c: Case) {
  let offsetMs = 0;
  const ttlS = c.ttlS ?? DAY;
  const clock = virtualClock();
  const emulator = await createEmulator({
    port: 0,
    tokenTtlS: ttlS,
    faults: c.faults ?? [],
    now: () => clock.now() + offsetMs,
  });
  const redactor = new Redactor();
  const other = new ServiceClient(targetsOf(emulator)[0]!, { redactor, clock });
  try {
    // A real service: not one this run started, so nobody can be assumed to be its only client.
    const target = { ...targetsOf(emulator)[0]!, emulated: false };
    const ledger = Ledger.open(join(mkdtempSync(join(tmpdir(), 'ces-shared-')), 'ledger.json'));
    for (const fetch of c.before) {
      offsetMs = -fetch.agoS * 1000;
      const ex = await other.issueToken();
      expect(ex.issued, 'the other client got a token').toBeDefined();
      if (fetch.ledger)
        ledger.record(target, ex.issued!.token, epochSeconds(ex.issued!.expiresAt)!, clock.now() + offsetMs);
    }
    offsetMs = 0;
    const results = await runConformance({
      target,
      others: [],
      expect: { tokenLifetimeS: ttlS, expiryWaitS: ttlS < DAY ? ttlS + 4 : 0, clockToleranceS: 2 },
      business: { evaluation: { method: 'POST', body: {} }, ach_transactions: { method: 'POST', body: {} } },
      rateLimit: {
        endpoint: 'tokens.validate',
        maxRps: 50,
        maxRequests: 50,
        recoveryWaitS: 1,
        maxRetryAfterS: 120,
        probingAllowed: true,
      },
      ledger,
      checks: selectChecks(CHECKS, ['token.lifetime'], []).selected,
      redactor,
      clock,
    });
    return results.find((r) => r.id === 'token.lifetime')!;
  } finally {
    await other.close();
    await emulator.close();
  }
}

describe('token.lifetime with credentials other clients share', () => {
  it.concurrent.each(CASES)('a token $name: $want', { timeout: 10_000 }, async (c) => {
    const r = await lifetimeCheck(c);
    expect(`${r.status}: ${r.message}`).toMatch(new RegExp(`^${c.want}: `));
    expect(r.message).toMatch(c.says);
  });
});
