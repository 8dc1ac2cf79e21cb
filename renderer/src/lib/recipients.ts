/**
 * Recipients for mail and chat: what a typed "to" means (an address, an alias in my project, or a
 * did), the autocomplete list (identities on this node and my contacts), and the request fields
 * a list of recipients becomes. Pure; tested in recipients.test.ts.
 */
import { ADDRESS_NAME, normalizeDomainName } from '../../../contract/core-rules.ts';
import type { Contact } from '../api/contacts.ts';
import type { Identity } from '../api/owner.ts';

export type RecipientKind = 'address' | 'alias' | 'did';

/** One chip in a "to" field. */
export interface Recipient {
  /** What is sent: `example.com/bob`, `bob`, or `did:svc:…` / `did:key:…`. */
  value: string;
  kind: RecipientKind;
  /** A friendlier name shown on the chip (the identity's name or the contact's label). */
  label: string | null;
}

/** An autocomplete entry. */
export interface Suggestion extends Recipient {
  /** Shown under the name: the address, or where the suggestion comes from. */
  detail: string;
  source: 'identity' | 'contact';
}

// An alias and an address's name follow the same rule as the node's address names.
const ALIAS = ADDRESS_NAME;
const DID = /^did:(key|svc):[A-Za-z0-9._:-]+$/;

/** `<domain>/<name>` by the node's own rules (contract/core-rules.ts), `local/bob` included. */
function isAddress(value: string): boolean {
  const slash = value.indexOf('/');
  if (slash <= 0) return false;
  return normalizeDomainName(value.slice(0, slash)) !== null && ADDRESS_NAME.test(value.slice(slash + 1));
}

/** The kind of a typed recipient, or null when it cannot be one. */
export function recipientKind(text: string): RecipientKind | null {
  const value = text.trim();
  if (DID.test(value)) return 'did';
  if (isAddress(value)) return 'address';
  if (ALIAS.test(value)) return 'alias';
  return null;
}

/**
 * The address an e-mail-shaped entry most likely means: `carol@beta.test` (or `mailto:` and
 * `<…>` around it) is `beta.test/carol` here, where the domain comes first. Null when the entry
 * is not of that shape or would not make an address either.
 */
export function addressFromEmail(text: string): string | null {
  const match = /^(?:mailto:)?<?([^@\s<>/]+)@([^@\s<>/]+?)>?$/i.exec(text.trim());
  if (match === null) return null;
  const domain = normalizeDomainName(match[2] ?? '');
  const address = `${domain}/${match[1] ?? ''}`;
  return domain !== null && isAddress(address) ? address : null;
}

/** Why an entry cannot be a recipient, and the address it likely means when there is one. */
export interface RecipientProblem {
  error: string;
  /** A corrected entry the field offers as a one-click fix. */
  suggestion?: string;
}

/**
 * A typed entry as a chip: a known suggestion when it matches one exactly (by value, or by the
 * label or alias of a single suggestion), else whatever its shape says. An error sentence when it
 * cannot be a recipient.
 */
export function parseRecipient(text: string, known: readonly Suggestion[]): Recipient | RecipientProblem {
  const value = text.trim();
  if (value === '') return { error: 'Enter an address, such as example.com/alice.' };
  const exact = known.find((s) => s.value === value);
  if (exact !== undefined) return { value: exact.value, kind: exact.kind, label: exact.label };
  const lower = value.toLowerCase();
  const named = known.filter((s) => s.label?.toLowerCase() === lower);
  if (named.length === 1 && named[0] !== undefined) return { value: named[0].value, kind: named[0].kind, label: named[0].label };
  const kind = recipientKind(value);
  if (kind === null) {
    const meant = addressFromEmail(value);
    if (meant !== null) {
      return { error: `“${value}” is an e-mail address; addresses here put the domain first. Did you mean ${meant}?`, suggestion: meant };
    }
    return { error: `“${value}” is not an address (example.com/alice), an alias in this project, or a did.` };
  }
  return { value, kind, label: null };
}

/**
 * Pasted or typed lists: "a, b; c" or one per line → ["a", "b", "c"]. Spaces do not separate
 * (no recipient has one), so "bob smith" stays one entry and is refused as a whole.
 */
export function splitRecipients(text: string): string[] {
  return text
    .split(/[,;\n]+/)
    .map((part) => part.trim())
    .filter((part) => part !== '');
}

/** The request fields for a list of recipients (each kind in its own list, empty lists left out). */
export function recipientFields(recipients: readonly Recipient[]): {
  to_addresses: string[];
  to_aliases: string[];
  to_dids: string[];
} {
  const pick = (kind: RecipientKind) => recipients.filter((r) => r.kind === kind).map((r) => r.value);
  return { to_addresses: pick('address'), to_aliases: pick('alias'), to_dids: pick('did') };
}

/**
 * How `me` reaches another identity on this node: its address; else its alias when it is in my
 * project (aliases are project-scoped); else its did.
 */
export function selectorFor(me: Identity | null, other: Identity): Recipient {
  if (other.address) return { value: other.address, kind: 'address', label: other.name };
  if (me !== null && me.project_id === other.project_id) return { value: other.alias, kind: 'alias', label: other.name };
  return { value: other.did_aw ?? other.did_key, kind: 'did', label: other.name };
}

/**
 * Everyone `me` can write to that the UI knows of: the other active identities on this node,
 * then my contacts (a contact that is also a local identity appears once, as the identity).
 */
export function buildSuggestions(me: Identity | null, identities: readonly Identity[], contacts: readonly Contact[]): Suggestion[] {
  const out: Suggestion[] = [];
  const seen = new Set<string>();
  for (const identity of identities) {
    if (identity.status !== 'active' || identity.agent_id === me?.agent_id) continue;
    const recipient = selectorFor(me, identity);
    if (seen.has(recipient.value)) continue;
    seen.add(recipient.value);
    const detail = recipient.kind === 'address' ? recipient.value : recipient.kind === 'alias' ? `${recipient.value} · this project` : 'on this node';
    out.push({ ...recipient, detail, source: 'identity' });
  }
  for (const contact of contacts) {
    const kind = recipientKind(contact.contact_address);
    // A bare domain is a contact (it lets a whole domain through) but not a recipient.
    if (kind === null || kind === 'alias' || seen.has(contact.contact_address)) continue;
    seen.add(contact.contact_address);
    out.push({ value: contact.contact_address, kind, label: contact.label || null, detail: 'Contact', source: 'contact' });
  }
  return out;
}

/**
 * The suggestions matching what is typed: names, aliases and addresses that start with it first,
 * then those that contain it; already chosen recipients are left out.
 */
export function filterSuggestions(suggestions: readonly Suggestion[], text: string, chosen: readonly Recipient[], limit = 8): Suggestion[] {
  const needle = text.trim().toLowerCase();
  const taken = new Set(chosen.map((r) => r.value));
  const available = suggestions.filter((s) => !taken.has(s.value));
  if (needle === '') return available.slice(0, limit);
  const haystacks = (s: Suggestion): string[] => [s.value, s.label ?? '', s.value.split('/').pop() ?? ''].map((h) => h.toLowerCase());
  const starts = available.filter((s) => haystacks(s).some((h) => h.startsWith(needle)));
  const contains = available.filter((s) => !starts.includes(s) && haystacks(s).some((h) => h.includes(needle)));
  return [...starts, ...contains].slice(0, limit);
}

/** The chip's text: the label when there is one, else the value. */
export function recipientText(recipient: Recipient): string {
  return recipient.label ?? recipient.value;
}
