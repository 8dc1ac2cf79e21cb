/**
 * Words for the node's enum values, so every view says the same thing the same way.
 * Pure and tested in labels.test.ts.
 */

import type { NamespaceAuthority, NamespaceTrust } from '../api/owner.ts';

export type Tone = 'ok' | 'warn' | 'danger' | 'accent' | 'neutral';

export interface BadgeLabel {
  text: string;
  tone: Tone;
  /** A sentence for the tooltip. */
  hint: string;
}

export function verificationBadge(status: string): BadgeLabel {
  switch (status) {
    case 'verified':
      return { text: 'Verified', tone: 'ok', hint: 'The DNS record _svcid.<domain> names this controller key.' };
    case 'revoked':
      return { text: 'Revoked', tone: 'danger', hint: 'The namespace was revoked; its addresses no longer resolve.' };
    case 'unverified':
      return {
        text: 'Unverified',
        tone: 'warn',
        hint: 'Works on this node; other nodes trust it once the DNS record is published.',
      };
    default:
      return { text: status, tone: 'neutral', hint: '' };
  }
}

/**
 * Beside the signature badge: a valid signature proves which key signed, not that the key speaks
 * for the address, so say who vouches for the sender's domain. Null when the sender has no address.
 */
export function senderTrustBadge(trust: NamespaceTrust | null | undefined, address: string | null): BadgeLabel | null {
  if (!trust || !address) return null;
  const domain = address.split('/')[0] ?? address;
  switch (trust) {
    case 'verified':
      return { text: 'Domain verified', tone: 'ok', hint: `DNS for ${domain} names the key that assigns its addresses.` };
    case 'owner':
      return { text: 'Registered by you', tone: 'neutral', hint: `You registered ${domain} on this node; DNS has not confirmed who controls it.` };
    case 'unverified':
      return {
        text: 'Domain unverified',
        tone: 'warn',
        hint: `Nobody has checked that ${domain} belongs to whoever assigned ${address}: the signature proves the key, not the address.`,
      };
  }
}

/** Why a namespace exists on this node. */
export function authorityLabel(authority: NamespaceAuthority): string {
  switch (authority) {
    case 'owner':
      return 'Registered by you';
    case 'dns':
      return 'Proven by DNS';
    case 'unproven':
      return 'Registered without proof';
  }
}

export function identityStatusBadge(status: string): BadgeLabel {
  switch (status) {
    case 'active':
      return { text: 'Active', tone: 'ok', hint: 'Can send and receive.' };
    case 'archived':
      return { text: 'Archived', tone: 'neutral', hint: 'Kept for its history; it no longer sends or receives.' };
    case 'replaced':
      return { text: 'Replaced', tone: 'warn', hint: 'Another identity took over its address.' };
    case 'deleted':
      return { text: 'Deleted', tone: 'danger', hint: 'Its keys were destroyed.' };
    default:
      return { text: status, tone: 'neutral', hint: '' };
  }
}

export function lifetimeLabel(lifetime: string): BadgeLabel {
  return lifetime === 'persistent'
    ? {
        text: 'Persistent',
        tone: 'accent',
        hint: 'Self-custodial: its keys stay on this node and its did:svc survives key rotation.',
      }
    : { text: 'Ephemeral', tone: 'neutral', hint: 'A short-lived identity for one agent run, without a stable did:svc.' };
}

export function reachabilityLabel(reachability: string): string {
  return reachability === 'contacts-only' ? 'Contacts only' : 'Anyone with the address';
}

/** The custody backend in words: where the node's secrets are kept. */
export function custodyLabel(backend: string): { text: string; hint: string } {
  switch (backend) {
    case 'safe-storage':
      return { text: 'System keychain (Electron safeStorage)', hint: 'Secrets are wrapped by the operating system keychain.' };
    case 'keyring':
      return { text: 'System keyring', hint: 'Secrets are wrapped by the OS keyring (Secret Service, Keychain or Credential Manager).' };
    case 'passphrase':
      return { text: 'Passphrase', hint: 'Secrets are wrapped with a key derived from your passphrase (scrypt).' };
    case 'key-file':
      return {
        text: 'Key file in the data folder',
        hint: 'A 0600 key file next to the database: anyone who can read the data folder can read your keys.',
      };
    default:
      return { text: backend, hint: '' };
  }
}

/** The DNS TXT record that verifies a namespace (DESIGN.md §5). */
export function namespaceDnsRecord(domain: string, controllerDid: string): { name: string; value: string } {
  return { name: `_svcid.${domain}`, value: `svcid=v1; controller=${controllerDid};` };
}

// ------------------------------------------------------------------ the node's status (sidebar footer)

/**
 * What the sidebar footer says of the node, from the live feed's state (the one connection that
 * is always open). It used to say "Running" whatever happened, so a node that had stopped read
 * "Running · reconnecting…".
 */
export function nodeStatusLabel(state: string, host: string, detail: string | null): { text: string; tone: 'ok' | 'warn'; hint: string } {
  switch (state) {
    case 'open':
      return { text: `Running · ${host}`, tone: 'ok', hint: `The node at ${host} is running; new mail and chat appear as they arrive.` };
    case 'retrying':
      return {
        text: 'Not answering · reconnecting…',
        tone: 'warn',
        hint: `The node at ${host} does not answer${detail ? ` (${detail})` : ''}; trying again by itself.`,
      };
    default:
      return { text: `Connecting · ${host}`, tone: 'warn', hint: `Connecting to the node at ${host}.` };
  }
}
