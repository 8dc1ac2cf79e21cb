/**
 * Agents name a recipient with one string; the HTTP API takes it by kind. An address has a `/`,
 * a did starts with `did:`, anything else is an alias.
 */
export type SelectorKind = 'alias' | 'address' | 'did';

export function selectorKind(to: string): SelectorKind {
  if (to.startsWith('did:')) return 'did';
  return to.includes('/') ? 'address' : 'alias';
}
