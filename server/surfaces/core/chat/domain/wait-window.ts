/**
 * Send-and-wait, as upstream's CLI uses it: a message with wait_seconds opens its sender's wait
 * window on the session, and the CLI waits on the session stream for a reply, extending its wait
 * on a read receipt or a hang_on message. Each session holds at most one window, kept on its row.
 */

/** What a hang_on message adds to an open wait window, and what a read receipt asks a waiter to add. */
export const HANG_ON_EXTENSION_SECONDS = 300;

/** The session's wait window: who waits, from when, for how long, and how many hang_ons extended it. */
export interface WaitWindow {
  wait_seconds: number | null;
  wait_started_at: string | null;
  /** An identity of this node; the wait of a participant on another node lives on its own node. */
  wait_started_by: string | null;
  hang_on_count: number;
}

/** What a message says about waiting. */
export interface WaitSignals {
  wait_seconds: number | null;
  hang_on: boolean;
  sender_leaving: boolean;
}

const CLOSED: WaitWindow = { wait_seconds: null, wait_started_at: null, wait_started_by: null, hang_on_count: 0 };

/** Seconds left in the window (≥ 0), or null when none was opened. */
export function timeRemaining(window: WaitWindow, nowMs: number): number | null {
  if (window.wait_seconds === null || window.wait_started_at === null) return null;
  const end = Date.parse(window.wait_started_at) + (window.wait_seconds + HANG_ON_EXTENSION_SECONDS * window.hang_on_count) * 1000;
  return Math.max(0, Math.ceil((end - nowMs) / 1000));
}

/**
 * The window after a message from `senderAgentId` (null for a sender on another node), or null
 * when the message leaves it as it is. A send-and-wait opens (or restarts) the sender's window;
 * its sender leaving, or sending wait_seconds 0, closes it; a hang_on from someone else while it
 * is open extends it by {@link HANG_ON_EXTENSION_SECONDS}.
 */
export function nextWaitWindow(window: WaitWindow, senderAgentId: string | null, signals: WaitSignals, now: string): WaitWindow | null {
  // A sender on another node opens its wait window there: here only its goodbye and hang_on count.
  const { wait_seconds, hang_on, sender_leaving } = senderAgentId === null ? { ...signals, wait_seconds: null } : signals;
  const own = window.wait_started_by !== null && window.wait_started_by === senderAgentId;
  if (sender_leaving || wait_seconds === 0) return own ? CLOSED : null;
  if (wait_seconds !== null) return { wait_seconds, wait_started_at: now, wait_started_by: senderAgentId, hang_on_count: 0 };
  if (!hang_on || own || window.wait_started_by === null) return null;
  const remaining = timeRemaining(window, Date.parse(now));
  if (remaining === null || remaining <= 0) return null;
  return {
    wait_seconds: window.wait_seconds,
    wait_started_at: window.wait_started_at,
    wait_started_by: window.wait_started_by,
    hang_on_count: window.hang_on_count + 1,
  };
}

/** Who waits on `agentId`: the identity whose window is still open, when it is someone else. */
export function waiterOtherThan(window: WaitWindow, agentId: string, nowMs: number): string | null {
  const remaining = timeRemaining(window, nowMs);
  if (remaining === null || remaining <= 0 || window.wait_started_by === agentId) return null;
  return window.wait_started_by;
}
