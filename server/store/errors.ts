// What the store throws when it cannot take something now, whichever rule or engine refuses it.
// Handlers answer each with 503 and Retry-After (server/http/errors.ts reads `unavailable`).

/**
 * The store cannot take this now; try again later. Handlers answer 503 with Retry-After and this
 * message (it names no internals), never a 2xx for something not stored.
 */
export class UnavailableError extends Error {
  readonly unavailable = true;
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
    this.name = 'UnavailableError';
  }
}

/** A queue is at its configured size: the new item is refused (503), never dropped silently. */
export class QueueFullError extends UnavailableError {
  constructor(readonly queue: 'outbox' | 'mail') {
    super(
      queue === 'outbox'
        ? 'Too many signups are waiting for the backend; please try again later'
        : 'Too many invitations are waiting to be sent',
      60,
    );
    this.name = 'QueueFullError';
  }
}

/** The database did not answer (PostgreSQL down or unreachable, or too slow). */
export class StoreUnavailableError extends UnavailableError {
  constructor(readonly cause?: unknown) {
    super('The waitlist is unavailable right now; please try again shortly', 5);
    this.name = 'StoreUnavailableError';
  }
}
