/**
 * The scope tokens the indexes hold (migration 0029 writes them in SQL as `'a' || hex(agent_id)`
 * and so on; these are the same, in lower case, which the tokenizer folds to anyway), and the
 * MATCH part that restricts a query to them. The tokens are hex and the node's own: no user text.
 */
const hex = (id: string): string => Buffer.from(id, 'utf8').toString('hex');

/** A mail's recipient and (local) sender. */
export const agentScope = (agentId: string): string => `a${hex(agentId)}`;
/** A chat message's session. */
export const sessionScope = (sessionId: string): string => `s${hex(sessionId)}`;
/** A team's documents and shelf profiles. */
export const teamScope = (teamId: string): string => `t${hex(teamId)}`;
/** The public catalog's blueprints. */
export const PUBLIC_SCOPE = 'public';

/**
 * `match` restricted to rows holding one of `tokens`; null when `tokens` is empty (the caller may
 * see nothing of this kind). `tokens` null: every row (the owner).
 */
export function scopedMatch(tokens: readonly string[] | null, match: string): string | null {
  if (tokens === null) return match;
  if (tokens.length === 0) return null;
  return `scope : (${tokens.map((token) => `"${token}"`).join(' OR ')}) AND (${match})`;
}
