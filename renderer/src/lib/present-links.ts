/** Present links as the UI shows them: whether a link still opens, and how long it has left. */
import type { PresentLinkSummary } from '../api/docs.ts';
import { plural } from './format.ts';

export type LinkState = 'live' | 'expired' | 'revoked';

/** Whether a present link still opens: revoked wins over expired. */
export function linkState(link: Pick<PresentLinkSummary, 'expires_at' | 'revoked_at'>, now: Date): LinkState {
  if (link.revoked_at !== null) return 'revoked';
  const expires = Date.parse(link.expires_at);
  return Number.isNaN(expires) || expires <= now.getTime() ? 'expired' : 'live';
}

/** How long until a future time, rounded: "in 5 min", "in 3 h", "in 7 days" ("in under a minute" when close). */
export function timeUntil(date: Date, now: Date): string {
  const ms = date.getTime() - now.getTime();
  if (ms < 60_000) return 'in under a minute';
  const minutes = Math.round(ms / 60_000);
  if (minutes < 60) return `in ${minutes} min`;
  const hours = Math.round(minutes / 60);
  if (hours < 24) return `in ${hours} h`;
  const days = Math.round(hours / 24);
  return `in ${plural(days, 'day')}`;
}

/** What a key does to the active row of the links list (moving is the list's own: lib/list-nav.ts). */
export type LinkRowAction = 'copy' | 'open' | 'revoke';

/**
 * The links list's row keys: Enter (or C) copies the address and O opens it, when this dialog
 * knows it (the node keeps only a hash: an address is shown only where it was made); Delete or #
 * asks to revoke a link that still opens. Null: not a row key, or nothing it could do here.
 */
export function linkRowAction(key: string, row: { known: boolean; state: LinkState }): LinkRowAction | null {
  switch (key) {
    case 'Enter':
    case ' ':
    case 'c':
      return row.known ? 'copy' : null;
    case 'o':
      return row.known ? 'open' : null;
    case 'Delete':
    case '#':
      return row.state === 'live' ? 'revoke' : null;
    default:
      return null;
  }
}
