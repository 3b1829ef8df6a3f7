// What a client check is: like checks/ for the service, one file each with its id, title, the
// spec section it enforces and a pure judgement of one client run (a ClientRunRecord).

import type { Evidence, Level } from '../../report/model.js';
import type { RecordedRequest, ClientRunRecord } from '../record.js';

export interface Judgement {
  status: 'pass' | 'fail' | 'warn' | 'skip';
  message: string;
  evidence: Evidence[];
}

export interface ClientCheck {
  id: string;
  title: string;
  spec: string;
  level: Level;
  /** One line for the README and the docs. */
  description: string;
  /**
   * Whether it judges a run in which the client made no request (it exited at once, never called,
   * printed its secret first): only checks of how the process behaved have anything to say then.
   */
  judgesSilentRuns?: boolean;
  judge(record: ClientRunRecord): Judgement;
}

/** A client sends a token a little before expiry on its clock and it arrives just after on ours: not its fault. */
export const CLOCK_GRACE_MS = 250;

export const isBusiness = (r: RecordedRequest): boolean => r.path.startsWith('/v1/');
export const isTokenFetch = (r: RecordedRequest): boolean => r.path === '/tokens';

const seconds = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;

/** One request as evidence: "+1.20 s POST /v1/evaluation", its status, and a note. */
export function evidenceOf(r: RecordedRequest, note?: string): Evidence {
  return { request: `+${seconds(r.atMs)} ${r.method} ${r.path}`, status: r.status, ...(note ? { note } : {}) };
}

export const at = (ms: number): string => `+${seconds(ms)}`;

export const judged = (status: Judgement['status'], message: string, evidence: Evidence[] = []): Judgement => ({
  status,
  message,
  evidence: evidence.slice(0, 5),
});
