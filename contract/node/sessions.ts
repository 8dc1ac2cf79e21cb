/**
 * The owner's browser sessions (`/v1/node/session`, `/v1/node/sessions`, loopback listener only).
 * A browser trades a sign-in link's one-time code for a session: a credential of its own, never
 * the owner token, that the node keeps across restarts until it is revoked or expires (idle time,
 * or an absolute limit). The owner token (node.json, for the CLI and headless clients) and a
 * session are both owner credentials on every `/v1/node/` route.
 */
import { z } from 'zod';

/** `POST /v1/node/session`: a one-time code (from a sign-in link). */
export const SessionBody = z.strictObject({ code: z.string().min(1).max(128) });

/** One session as the owner sees it (never its secret). */
export const OwnerSessionView = z.object({
  session_id: z.string(),
  created_at: z.string(),
  last_used_at: z.string(),
  /** When it ends unless used again: the idle limit after `last_used_at`, or `expires_at` if sooner. */
  ends_at: z.string(),
  /** The absolute end, however often it is used. */
  expires_at: z.string(),
  /** The browser's User-Agent when it signed in. */
  client: z.string().nullable(),
  /** The session this request was made with. */
  current: z.boolean(),
});
export type OwnerSessionView = z.output<typeof OwnerSessionView>;

/** `POST /v1/node/session`: the session's secret, shown once, and the session. */
export const SignedInSession = z.object({ session_token: z.string(), session: OwnerSessionView });
export type SignedInSession = z.output<typeof SignedInSession>;

/** `GET /v1/node/sessions`: the live sessions, newest first, with the limits they run under. */
export const OwnerSessionList = z.object({
  sessions: z.array(OwnerSessionView),
  idle_days: z.number().int(),
  max_days: z.number().int(),
});
export type OwnerSessionList = z.output<typeof OwnerSessionList>;

export const SessionIdParams = z.strictObject({ session_id: z.uuid() });

/** `DELETE /v1/node/sessions/{session_id}`, `POST /v1/node/sessions/revoke-others`. */
export const RevokedSessions = z.object({ revoked: z.number().int() });
export type RevokedSessions = z.output<typeof RevokedSessions>;
