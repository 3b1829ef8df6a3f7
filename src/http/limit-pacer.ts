// One rate limit shared by the requests of a run's checks. Each check waiting out its own 429s
// beside fifteen others, all woken by the same Retry-After, lets one through and sends the rest
// back: against a conformant 1 req/s, checks ran out of tries (30 Nov). Once the limit has refused
// one of them, the pacer lets them through one at a time, in the order they came, so the limit's
// every opening goes to the request whose turn it is. Before the first refusal nothing waits: a
// service with room for them all answers them together.
//
// A request's own wait budget counts only while it holds the turn (the Retry-Afters it is given),
// so a window of a minute is waited out once per turn, not once per request in line. The line's
// bound is its head: when the head gives up (the limit kept it out past its budget), every request
// waiting behind it is told at once, sends once out of turn, and a 429 ends it too. A limit that
// never lifts thus ends the line within one budget, not one budget per request.

export class LimitPacer {
  /** Says a long wait in the limit aloud: a run behind a minute's window is otherwise silent for minutes. */
  constructor(private readonly progress: (line: string) => void = () => {}) {}

  private pacing = false;
  private held = false;
  private readonly waiters: Array<(turn: boolean) => void> = [];

  /** True once the limit has refused a request that waits out 429s: from then on they queue. */
  get engaged(): boolean {
    return this.pacing;
  }

  /**
   * Resolves true when it is this request's turn (it then holds it until `release`), or false when
   * the head of the line gave up on the limit while this one waited.
   */
  turn(): Promise<boolean> {
    this.pacing = true;
    if (!this.held) {
      this.held = true;
      return Promise.resolve(true);
    }
    return new Promise((wake) => this.waiters.push(wake));
  }

  /** The holder is done: answered, or (`gaveUp`) kept out past its budget, which ends the line. */
  release(gaveUp: boolean): void {
    if (gaveUp) for (const wake of this.waiters.splice(0)) wake(false);
    const next = this.waiters.shift();
    if (next) next(true);
    else this.held = false;
  }

  /** The holder waits `waitMs` on the limit before its next try: said when a user would notice it. */
  waiting(request: string, waitMs: number): void {
    if (waitMs < NOTICEABLE_WAIT_MS) return;
    const behind = this.waiters.length;
    this.progress(
      `rate limited (429) on ${request}: waiting ${(waitMs / 1000).toFixed(1)} s before its next try` +
        (behind > 0 ? `, ${behind} more of the checks' requests in line behind it` : ''),
    );
  }
}

/** Shorter waits pass unremarked: the terminal's line per check already shows the run moving. */
const NOTICEABLE_WAIT_MS = 2000;
