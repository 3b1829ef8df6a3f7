// One rate limit shared by the requests of a run's checks. Each check waiting out its own 429s
// beside fifteen others, all woken by the same Retry-After, lets one through and sends the rest
// back: against a conformant 1 req/s, checks ran out of tries (30 Nov). Once the limit has refused
// one of them, the pacer lets them through one at a time, in the order they came, so the limit's
// every opening goes to the request whose turn it is and each waits about its queue's length.
// Before the first refusal nothing waits: a service with room for them all answers them together.

interface Waiter {
  /** Clock ms past which the request has waited its whole budget. */
  deadline: number;
  wake(turn: boolean): void;
}

export class LimitPacer {
  private pacing = false;
  private held = false;
  private readonly waiters: Waiter[] = [];

  /** True once the limit has refused a request that waits out 429s: from then on they queue. */
  get engaged(): boolean {
    return this.pacing;
  }

  /**
   * Resolves true when it is this request's turn (it then holds it until `release`), or false
   * when its deadline passed first, found at a release: it has waited its whole budget in the queue.
   */
  turn(deadline: number): Promise<boolean> {
    this.pacing = true;
    if (!this.held) {
      this.held = true;
      return Promise.resolve(true);
    }
    return new Promise((wake) => this.waiters.push({ deadline, wake }));
  }

  /** The holder is done (answered, or gave up); `now` is the clock's. */
  release(now: number): void {
    // Those past their budget are told so now, not when their turn comes: the run's wait stays bounded.
    for (const late of this.waiters.filter((w) => w.deadline <= now)) {
      this.waiters.splice(this.waiters.indexOf(late), 1);
      late.wake(false);
    }
    const next = this.waiters.shift();
    if (next) next.wake(true);
    else this.held = false;
  }
}
