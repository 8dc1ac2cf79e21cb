/**
 * The owner's browser sessions. A browser trades a sign-in link's one-time code for a session
 * (`svc_os_` + 64 hex), never for the owner token: the owner token changes at every start and
 * lives in node.json for the CLI, while a session is kept in the database (as the SHA-256 of its
 * secret, so a copy of the database signs nobody in) and so outlives a restart. A session ends
 * when it is revoked (Settings, or signing out), after OWNER_SESSION_IDLE_MS without a request, or
 * OWNER_SESSION_MAX_MS after it was made, whichever comes first; at most MAX_OWNER_SESSIONS are
 * live (signing in once more ends the one used longest ago). The identity keys a session mints
 * for its window stop working when it is signed out.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { OwnerSessionView } from '../../contract/node/sessions.ts';
import type { Clock } from '../clock.ts';
import type { Db } from '../context.ts';
import { sha256Hex } from '../crypto/encoding.ts';
import { notFound, unauthorized } from '../errors.ts';
import { deactivateApiKeys } from './api-key-store.ts';
import {
  bindOwnerSessionKey,
  insertOwnerSession,
  liveOwnerSessions,
  ownerSessionById,
  ownerSessionBySecretHash,
  ownerSessionKeyIds,
  pruneOwnerSessions,
  revokeOwnerSession,
  touchOwnerSession,
  unrevokedOwnerSessionIds,
  type OwnerSessionRow,
} from './owner-session-store.ts';

export const OWNER_SESSION_PREFIX = 'svc_os_';
const DAY_MS = 24 * 60 * 60 * 1000;
/** A session not used for this long ends. */
export const OWNER_SESSION_IDLE_MS = 14 * DAY_MS;
/** A session ends this long after it was made, however often it is used. */
export const OWNER_SESSION_MAX_MS = 90 * DAY_MS;
/** Live sessions kept at most; one more ends the one used longest ago. */
export const MAX_OWNER_SESSIONS = 64;
/** `last_used_at` is written at most this often per session, so reads do not each cost a write. */
const TOUCH_EVERY_MS = 60 * 1000;
const CLIENT_MAX = 200;

/** How a browser gets a new session: the words every refusal ends with. */
export const NEW_SIGN_IN = 'run `svc-node ui` where the node runs for a new sign-in link';

export interface SignedIn {
  token: string;
  session: OwnerSessionView;
}

export const isSessionToken = (token: string): boolean => token.startsWith(OWNER_SESSION_PREFIX);

export class OwnerSessions {
  readonly #db: Db;
  readonly #clock: Clock;
  readonly #ended: () => void;

  /**
   * `ended` is called once sessions have ended and the change has committed (a revoke, or the cap
   * at sign-in), whoever ended them: the node wires it to the bus, so the owner feeds open on an
   * ended session close at once instead of at their next poll.
   */
  constructor(db: Db, clock: Clock, ended: () => void) {
    this.#db = db;
    this.#clock = clock;
    this.#ended = ended;
  }

  /** A new session for a browser that presented a good sign-in code. */
  create(client: string | null): SignedIn {
    const now = this.#clock.now();
    const nowIso = now.toISOString();
    const token = `${OWNER_SESSION_PREFIX}${randomBytes(32).toString('hex')}`;
    const row = {
      session_id: randomUUID(),
      secret_sha256: sha256Hex(token),
      created_at: nowIso,
      last_used_at: nowIso,
      expires_at: new Date(now.getTime() + OWNER_SESSION_MAX_MS).toISOString(),
      client: client === null ? null : client.slice(0, CLIENT_MAX),
    };
    const capped = this.#db.transaction(() => {
      pruneOwnerSessions(this.#db, nowIso);
      insertOwnerSession(this.#db, row);
      const live = liveOwnerSessions(this.#db, nowIso, this.#idleSince(now));
      // Newest first: whatever lies past the cap was used longest ago.
      const surplus = [...live].sort((a, b) => b.last_used_at.localeCompare(a.last_used_at)).slice(MAX_OWNER_SESSIONS);
      for (const old of surplus) this.#end(old.session_id, nowIso);
      return surplus.length;
    })();
    if (capped > 0) this.#ended();
    return { token, session: this.#view({ ...row, revoked_at: null }, row.session_id) };
  }

  /**
   * The session `token` names, when it is live (and noted as used); otherwise a 401 that says
   * what ended it and how to sign in again.
   */
  authenticate(token: string): string {
    return this.#live(ownerSessionBySecretHash(this.#db, sha256Hex(token)));
  }

  /** The same check by id, for a long request (the owner feed) made with the session. */
  check(sessionId: string): void {
    this.#live(ownerSessionById(this.#db, sessionId));
  }

  #live(row: OwnerSessionRow | null): string {
    const now = this.#clock.now();
    if (row === null) {
      throw unauthorized(
        'SVC_ERR_OWNER_SESSION_UNKNOWN',
        `This node does not know this session (its data was reset, or the session ended long ago); ${NEW_SIGN_IN}`,
      );
    }
    if (row.revoked_at !== null) {
      throw unauthorized('SVC_ERR_OWNER_SESSION_REVOKED', `This session was signed out at ${row.revoked_at}; ${NEW_SIGN_IN}`);
    }
    const end = this.#endOf(row);
    if (now.getTime() >= end) {
      const why = end === Date.parse(row.expires_at) ? `its ${OWNER_SESSION_MAX_MS / DAY_MS}-day limit` : `${OWNER_SESSION_IDLE_MS / DAY_MS} days without use`;
      throw unauthorized('SVC_ERR_OWNER_SESSION_EXPIRED', `This session expired (${why}); ${NEW_SIGN_IN}`);
    }
    if (now.getTime() - Date.parse(row.last_used_at) >= TOUCH_EVERY_MS) touchOwnerSession(this.#db, row.session_id, now.toISOString());
    return row.session_id;
  }

  /** The live sessions, newest first; `currentId` is marked. */
  list(currentId: string | null): OwnerSessionView[] {
    const now = this.#clock.now();
    return liveOwnerSessions(this.#db, now.toISOString(), this.#idleSince(now)).map((row) => this.#view(row, currentId));
  }

  /** Ends one session at once (its next request is a 401), and its identity keys. Revoking it again answers the same. */
  revoke(sessionId: string): void {
    const row = ownerSessionById(this.#db, sessionId);
    if (row === null) throw notFound('SVC_ERR_OWNER_SESSION_NOT_FOUND', `No session ${sessionId} on this node`);
    this.#db.transaction(() => this.#end(sessionId, this.#clock.now().toISOString()))();
    this.#ended();
  }

  /** Ends every session but `keepId` (null: every one), and their identity keys; how many ended. */
  revokeOthers(keepId: string | null): number {
    const nowIso = this.#clock.now().toISOString();
    const revoked = this.#db.transaction(() => {
      const ids = unrevokedOwnerSessionIds(this.#db, keepId);
      for (const id of ids) this.#end(id, nowIso);
      return ids.length;
    })();
    if (revoked > 0) this.#ended();
    return revoked;
  }

  /** A day-long identity key minted with the session: it stops working when the session is signed out. */
  bindKey(sessionId: string, apiKeyId: string): void {
    bindOwnerSessionKey(this.#db, sessionId, apiKeyId);
  }

  #end(sessionId: string, nowIso: string): void {
    revokeOwnerSession(this.#db, sessionId, nowIso);
    deactivateApiKeys(this.#db, ownerSessionKeyIds(this.#db, sessionId));
  }

  #idleSince(now: Date): string {
    return new Date(now.getTime() - OWNER_SESSION_IDLE_MS).toISOString();
  }

  /** When the session ends unless used again: idle time or the absolute end, the earlier. */
  #endOf(row: OwnerSessionRow): number {
    return Math.min(Date.parse(row.last_used_at) + OWNER_SESSION_IDLE_MS, Date.parse(row.expires_at));
  }

  #view(row: OwnerSessionRow, currentId: string | null): OwnerSessionView {
    return {
      session_id: row.session_id,
      created_at: row.created_at,
      last_used_at: row.last_used_at,
      ends_at: new Date(this.#endOf(row)).toISOString(),
      expires_at: row.expires_at,
      client: row.client,
      current: row.session_id === currentId,
    };
  }
}
