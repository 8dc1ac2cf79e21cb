/**
 * The one message main sends the renderer: "open this route" (a clicked notification). Shared by
 * main (which builds routes) and the preload (which checks them before the page sees them), so it
 * imports nothing, Electron included.
 */

/** The single IPC channel, main → renderer. */
export const NAVIGATE_CHANNEL = 'svc:navigate';

const MAX_ROUTE = 512;
/** Routes a notification may open, and the query keys each takes. */
const ROUTES: Record<string, readonly string[]> = {
  '/mail': ['identity', 'message'],
  '/chat': ['identity', 'session'],
};
/** Ids are UUIDs and the like: letters, digits and a few separators. */
const SAFE_VALUE = /^[A-Za-z0-9._:-]{1,200}$/;

/** True for `/mail?identity=…&message=…` and `/chat?identity=…&session=…`, and nothing else. */
export function isAppRoute(route: unknown): route is string {
  if (typeof route !== 'string' || route.length > MAX_ROUTE) return false;
  const [path, search = '', ...rest] = route.split('?');
  if (rest.length > 0 || path === undefined) return false;
  const keys = ROUTES[path];
  if (keys === undefined) return false;
  if (search === '') return true;
  const seen = new Set<string>();
  for (const part of search.split('&')) {
    const [key, value, ...extra] = part.split('=');
    if (extra.length > 0 || key === undefined || value === undefined) return false;
    if (!keys.includes(key) || seen.has(key) || !SAFE_VALUE.test(value)) return false;
    seen.add(key);
  }
  return true;
}

function routeWith(path: '/mail' | '/chat', params: Record<string, string | undefined>): string {
  const parts = Object.entries(params)
    .filter((entry): entry is [string, string] => entry[1] !== undefined && SAFE_VALUE.test(entry[1]))
    .map(([key, value]) => `${key}=${value}`);
  return parts.length === 0 ? path : `${path}?${parts.join('&')}`;
}

/** The route that shows a wake item: the mail in its identity's inbox, or the chat session. */
export function routeFor(item: { agent_id: string; type: 'mail_message' | 'chat_message'; message_id: string; session_id?: string }): string {
  return item.type === 'mail_message'
    ? routeWith('/mail', { identity: item.agent_id, message: item.message_id })
    : routeWith('/chat', { identity: item.agent_id, session: item.session_id });
}

/** The route of an identity's mail or chat list. */
export function listRoute(type: 'mail_message' | 'chat_message', agentId: string): string {
  return routeWith(type === 'mail_message' ? '/mail' : '/chat', { identity: agentId });
}
