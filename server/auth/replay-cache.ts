/**
 * What a signature already did inside the timestamp window (DESIGN §5). Ed25519 is deterministic
 * and timestamps have second precision, so an honest client that repeats a request inside a
 * second, or retries one after a timeout, sends identical bytes (upstream's clients add no nonce).
 * So:
 *
 * - reads (GET, HEAD) are not tracked at all: they may repeat;
 * - a signed write is claimed before it runs (`claim`) and its first answer recorded before that
 *   answer is sent (`settle`). The identical write again inside the window runs no second time and
 *   gets the first answer (status, content type, body); while the first still runs, it waits for
 *   it. The same signature over another request (what the signature does not cover differs: the
 *   body of a DIDKey operation, the content type, the certificate) is refused as a replay;
 *
 * The claims and answers live in a ReplayStore: the node's database (replay-store.ts,
 * replay_signatures), so a restart does not reopen the window and a retry after a crash never
 * runs a write twice: a write claimed but never answered (the node stopped in between) is
 * answered 409 instead, since whether it took effect is not known. Memory holds only what is
 * running now. Answers are bounded (ANSWER_LIMITS): one too large, or evicted, is not repeated.
 *
 * The alternative, refusing writes signed before the node started, was not taken: a client clock
 * running ahead of the node's gives a capture made before the restart a timestamp after the
 * start, so the window would stay open by up to the allowed skew (300 s). It would also refuse
 * an honest retry of a write sent just before a restart.
 */
/** The first answer to a signed write, as sent. */
export interface SignedAnswer {
  status: number;
  contentType: string | null;
  body: Buffer;
}

/** The first answer as sent; `body` null when it cannot be kept (a streamed body). */
export interface FirstAnswer {
  status: number;
  contentType: string | null;
  body: Buffer | null;
}

/** A signed write as recorded: its fingerprint, and its answer once it has one. */
export interface SignedWriteRecord {
  /** Null only for a row an older node wrote (single-use, nothing to repeat): refused. */
  fingerprint: string | null;
  /** Null while the write runs, or when the node stopped before answering it. */
  status: number | null;
  contentType: string | null;
  /** Null when the answer was too large to keep, or has been evicted. */
  body: Buffer | null;
}

/** Where signatures and first answers are kept: the database (replay-store.ts) or memory. */
export interface ReplayStore {
  /** Claims a signed write: null when claimed now, else what is recorded under `key`. */
  claim(key: string, fingerprint: string, expiresMs: number, nowMs: number): SignedWriteRecord | null;
  /** Records the first answer of a claimed write; `body` null when it is not to be kept. */
  answer(key: string, answer: FirstAnswer, nowMs: number): void;
}

/** Bounds on the answers kept; beyond them the oldest bodies go (their signatures stay claimed). */
export const ANSWER_LIMITS = {
  /** A larger answer is never kept: its repeat is a 409 (the write still runs once). */
  maxAnswerBytes: 256 * 1024,
  /** Answers kept at once... */
  maxKeptAnswers: 1000,
  /** ...and their bytes in all. */
  maxKeptBytes: 16 * 1024 * 1024,
};

/** What a repeat of a claimed write gets. */
export type RepeatOutcome =
  | { kind: 'answer'; answer: SignedAnswer }
  /** Answered, but its body was too large to keep or has been evicted. */
  | { kind: 'not_kept'; status: number }
  /** Claimed by a run of the node that stopped before answering: the outcome is unknown. */
  | { kind: 'unanswered' };

/** A write claimed now; `settle` it with its answer. */
export interface WriteTicket {
  readonly key: string;
}

export type WriteClaim =
  | { kind: 'first'; ticket: WriteTicket }
  | { kind: 'repeat'; outcome: Promise<RepeatOutcome> }
  /** The signature was used by another request. */
  | { kind: 'replayed' };

interface Running {
  fingerprint: string;
  settled: Promise<RepeatOutcome>;
  resolve: (outcome: RepeatOutcome) => void;
}

export class ReplayCache {
  readonly #windowMs: number;
  readonly #store: ReplayStore;
  /** Writes claimed by this process and not yet answered, by key. */
  readonly #running = new Map<string, Running>();

  /** Without a store, everything is kept in memory (tests, tools); the node passes its database's. */
  constructor(windowMs: number, store: ReplayStore | null = null) {
    this.#windowMs = windowMs;
    this.#store = store ?? new MemoryReplayStore();
  }

  /** Twice the window: a timestamp may be up to one window ahead of now and is accepted until one window after it. */
  #expires(nowMs: number): number {
    return nowMs + 2 * this.#windowMs;
  }

  /**
   * Claims the signed write `key` whose unsigned parts hash to `fingerprint`: the first time, a
   * ticket to settle once answered; the identical write again, the first one's outcome (waiting
   * for it while it runs); the signature over another request, `replayed`.
   */
  claim(key: string, fingerprint: string, nowMs: number): WriteClaim {
    const running = this.#running.get(key);
    if (running !== undefined) return running.fingerprint === fingerprint ? { kind: 'repeat', outcome: running.settled } : { kind: 'replayed' };
    const recorded = this.#store.claim(key, fingerprint, this.#expires(nowMs), nowMs);
    if (recorded === null) {
      let resolve: (outcome: RepeatOutcome) => void = () => {};
      const settled = new Promise<RepeatOutcome>((done) => (resolve = done));
      this.#running.set(key, { fingerprint, settled, resolve });
      return { kind: 'first', ticket: { key } };
    }
    if (recorded.fingerprint !== fingerprint) return { kind: 'replayed' };
    return { kind: 'repeat', outcome: Promise.resolve(outcomeOf(recorded)) };
  }

  /**
   * Records the first answer of a claimed write (null: it ended without one) and hands it to the
   * repeats waiting for it. A second settle of the same ticket does nothing.
   */
  settle(ticket: WriteTicket, answer: FirstAnswer | null, nowMs: number): void {
    const running = this.#running.get(ticket.key);
    if (running === undefined) return;
    this.#running.delete(ticket.key);
    if (answer === null) {
      running.resolve({ kind: 'unanswered' });
      return;
    }
    const { status, contentType, body } = answer;
    const kept = body !== null && body.length <= ANSWER_LIMITS.maxAnswerBytes ? body : null;
    try {
      this.#store.answer(ticket.key, { status, contentType, body: kept }, nowMs);
    } finally {
      running.resolve(kept === null ? { kind: 'not_kept', status } : { kind: 'answer', answer: { status, contentType, body: kept } });
    }
  }
}

function outcomeOf(record: SignedWriteRecord): RepeatOutcome {
  if (record.status === null) return { kind: 'unanswered' };
  if (record.body === null) return { kind: 'not_kept', status: record.status };
  return { kind: 'answer', answer: { status: record.status, contentType: record.contentType, body: record.body } };
}

/**
 * The store of a cache made without one: the same rules in memory, forgotten at exit. Expired
 * records go first (insertion order is expiry order); kept bodies beyond ANSWER_LIMITS go oldest
 * first.
 */
class MemoryReplayStore implements ReplayStore {
  readonly #records = new Map<string, { expires: number; record: SignedWriteRecord }>();
  /** Keys whose answer body is kept, oldest answer first. */
  readonly #kept = new Set<string>();
  #keptBytes = 0;

  claim(key: string, fingerprint: string, expiresMs: number, nowMs: number): SignedWriteRecord | null {
    this.#sweep(nowMs);
    const existing = this.#records.get(key);
    if (existing !== undefined) return existing.record;
    this.#records.set(key, { expires: expiresMs, record: { fingerprint, status: null, contentType: null, body: null } });
    return null;
  }

  answer(key: string, answer: FirstAnswer, _nowMs: number): void {
    const entry = this.#records.get(key);
    if (entry === undefined || entry.record.fingerprint === null || entry.record.status !== null) return;
    entry.record = { ...entry.record, ...answer };
    if (answer.body === null) return;
    this.#kept.add(key);
    this.#keptBytes += answer.body.length;
    for (const oldest of this.#kept) {
      if (this.#kept.size <= ANSWER_LIMITS.maxKeptAnswers && this.#keptBytes <= ANSWER_LIMITS.maxKeptBytes) break;
      this.#drop(oldest);
    }
  }

  #drop(key: string): void {
    const entry = this.#records.get(key);
    if (entry !== undefined && entry.record.body !== null) {
      this.#keptBytes -= entry.record.body.length;
      entry.record = { ...entry.record, body: null };
    }
    this.#kept.delete(key);
  }

  #sweep(nowMs: number): void {
    for (const [key, { expires }] of this.#records) {
      if (expires > nowMs) break;
      this.#drop(key);
      this.#records.delete(key);
    }
  }
}
