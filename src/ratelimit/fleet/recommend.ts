// Which candidate a fleet of N should run, from the simulated rows at size N. A policy that loses
// calls or keeps more than 5 % of its requests refused is not one to recommend while another does
// better; among those that qualify, the most goodput wins, and within 2 % of it the shorter p99.
// Pure: the same rows always give the same choice, and the reasons are written out.

import type { FleetRow } from '../../report/model.js';

/** A 429 share above this is a client leaning on the limit, not living under it. */
export const MAX_RATE_429 = 0.05;
/** Goodputs this close are equal for the choice; latency decides then. */
export const GOODPUT_TIE = 0.02;

const pct = (x: number) => `${(x * 100).toFixed(1)} %`;

export interface FleetChoice {
  row: FleetRow;
  why: string[];
}

export function chooseFleetPolicy(rows: readonly FleetRow[], instances: number): FleetChoice | null {
  const atN = rows.filter((r) => r.instances === instances);
  if (atN.length === 0) return null;
  const qualifies = (r: FleetRow) =>
    r.lost === 0 && r.drain_lost === 0 && r.drained_s !== null && r.rate_429 <= MAX_RATE_429;
  const good = atN.filter(qualifies);
  const why: string[] = [];
  let row: FleetRow;
  if (good.length > 0) {
    const best = Math.max(...good.map((r) => r.goodput_rps));
    const close = good.filter((r) => r.goodput_rps >= best * (1 - GOODPUT_TIE));
    row = [...close].sort((a, b) => (a.p99_ms ?? Infinity) - (b.p99_ms ?? Infinity) || a.rate_429 - b.rate_429)[0]!;
    why.push(
      `${row.policy}: of the ${good.length} of ${atN.length} policies that lost no call and kept 429s at or below ${pct(MAX_RATE_429)} at ${instances} instances, ` +
        `it had the most goodput (${row.goodput_rps} req/s${close.length > 1 ? `, within ${pct(GOODPUT_TIE)} of the best, then the shortest p99 ${row.p99_ms ?? '?'} ms` : ''})`,
    );
  } else {
    row = [...atN].sort((a, b) => a.lost + a.drain_lost - (b.lost + b.drain_lost) || a.rate_429 - b.rate_429)[0]!;
    why.push(
      `${row.policy}: no policy lost no call with 429s at or below ${pct(MAX_RATE_429)} at ${instances} instances; this one lost the fewest ` +
        `(${row.lost + row.drain_lost}) with ${pct(row.rate_429)} refused`,
    );
  }
  for (const r of atN) {
    if (r === row) continue;
    const fault =
      r.lost + r.drain_lost > 0
        ? `lost ${r.lost + r.drain_lost} calls`
        : r.rate_429 > MAX_RATE_429
          ? `${pct(r.rate_429)} of requests refused`
          : r.drained_s === null
            ? 'did not drain the backlog'
            : `${r.goodput_rps} req/s goodput, p99 ${r.p99_ms ?? '?'} ms`;
    why.push(`not ${r.policy}: ${fault}`);
  }
  return { row, why };
}
