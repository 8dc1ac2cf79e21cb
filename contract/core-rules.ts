/**
 * The core's rules that the node and the UI must apply alike (DESIGN §3: `contract/` is where a
 * rule both sides need is written once): a project slug, an address name, a namespace domain, a
 * peer's URL, the tunnel's fields and an RFC 3339 time. The owner API's schemas are built from them
 * (server/surfaces/node/), and the UI checks its forms with the very same functions, so it never
 * accepts what the node refuses, nor words it differently. contract/core-rules.test.ts pins them
 * to the deeper checks the node's services make. An address's grammar, as the node reads addresses
 * off the wire, is written here too (splitAddress): federation and the core's aggregates both
 * parse addresses with it, and federation sits below the core.
 *
 * Each `…Problem` function says, in words that fit after the field's label ("Slug: use …"), why a
 * value cannot be used, or null when it can. Values are checked as typed, trimmed.
 *
 * Pure: no imports, no Node or DOM APIs (lint keeps it so), so both builds can take it.
 */

// ------------------------------------------------------------------ projects and addresses

/** A project slug (server/surfaces/core/projects/service.ts). */
export const PROJECT_SLUG = /^[a-zA-Z0-9][a-zA-Z0-9._-]{0,63}$/;
export const PROJECT_SLUG_RULE = 'use 1-64 letters, digits, ".", "-" or "_", starting with a letter or digit';

/** An address name: what fits in `<domain>/<name>` without ambiguity (no `/`, `.`, `~`). */
export const ADDRESS_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
export const ADDRESS_NAME_RULE = 'use 1-64 letters, digits, "-" or "_", starting with a letter or digit (no spaces or dots)';

/** Why `value` cannot be a project slug; null when it can. */
export function slugProblem(value: string): string | null {
  const slug = value.trim();
  if (slug === '') return 'enter a slug, for example acme';
  if (slug.length > 64) return `use at most 64 characters (this one has ${slug.length})`;
  return PROJECT_SLUG.test(slug) ? null : PROJECT_SLUG_RULE;
}

/** Why `value` cannot be an address name (an identity's name); null when it can. */
export function addressNameProblem(value: string): string | null {
  const name = value.trim();
  if (name === '') return 'enter a name, for example alice';
  if (name.length > 64) return `use at most 64 characters (this one has ${name.length})`;
  return ADDRESS_NAME.test(name) ? null : ADDRESS_NAME_RULE;
}

// ------------------------------------------------------------------ team members

/** A team member's alias (a certificate's name in its team): wider than an address name, `.` allowed. */
export const MEMBER_ALIAS = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
export const MEMBER_ALIAS_RULE = 'use 1-128 letters, digits, ".", "-" or "_", starting with a letter or digit (no spaces)';

/** Why `value` cannot be a member's alias; null when it can. */
export function memberAliasProblem(value: string): string | null {
  const alias = value.trim();
  if (alias === '') return 'enter an alias, for example scout';
  if (alias.length > 128) return `use at most 128 characters (this one has ${alias.length})`;
  return MEMBER_ALIAS.test(alias) ? null : MEMBER_ALIAS_RULE;
}

/** Why `value` cannot be an address `<domain>/<name>`; null when it can. */
export function addressProblem(value: string): string | null {
  const text = value.trim();
  const slash = text.indexOf('/');
  if (slash === -1) return 'enter an address as domain/name, for example example.com/scout';
  const domainText = text.slice(0, slash);
  const domain = domainProblem(domainText);
  if (domain !== null) return `the domain: ${domain}`;
  if (normalizeDomainName(domainText) !== domainText) return 'write the domain in lower case, without a trailing dot';
  const name = addressNameProblem(text.slice(slash + 1));
  return name === null ? null : `the name: ${name}`;
}

/** An address's two parts. */
export interface AddressParts {
  domain: string;
  name: string;
}

/**
 * An address `<domain>/<name>` as the node reads it off the wire, split into its parts with the
 * domain as the node stores it (namespaceDomain: any case, a trailing dot allowed); null when it
 * is not an address. Unlike addressProblem, which asks a form for the domain exactly as stored,
 * this takes what other nodes and clients send and finds the namespace it names.
 */
export function splitAddress(address: string): AddressParts | null {
  const slash = address.indexOf('/');
  if (slash < 0) return null;
  const domain = namespaceDomain(address.slice(0, slash));
  const name = address.slice(slash + 1);
  return domain === null || !ADDRESS_NAME.test(name) ? null : { domain, name };
}

// ------------------------------------------------------------------ domains

const DOMAIN_LABEL = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/;
export const DOMAIN_RULE = 'enter a domain name such as example.com: letters, digits and hyphens, with dots between the parts';

/**
 * Labels a namespace domain may have. Its `_svcid` record may sit at the domain or at any
 * ancestor down to two labels, and checking one takes a DNS query per name: eight labels keep a
 * check within seven queries, and no real organisation nests its names deeper.
 */
export const MAX_DOMAIN_LABELS = 8;

/** An address written as one (v4 dotted, v6 with colons, either bracketed). */
function isIpLiteral(name: string): boolean {
  const bare = name.replace(/^\[(.*)\]$/, '$1');
  return /^[0-9a-f:.]+$/.test(bare) && (bare.includes(':') || /^[0-9]{1,3}(\.[0-9]{1,3}){3}$/.test(bare));
}

/**
 * Why `value`, exactly as written (no surrounding spaces are forgiven), is not a namespace domain;
 * null when it is one. A namespace domain, in any case and with or without a trailing dot, has at
 * most 253 characters and 8 labels (1-63 letters, digits or inner hyphens each) and at least two
 * labels, except `local`, the one single-label namespace. A domain is a name, never an address:
 * a last label of digits only is refused, as no top-level domain is all digits (RFC 3696 §2), so
 * `127.0.0.1` is not a domain. Checked before anything asks DNS about it; the node's refusals
 * (server/crypto/dns-txt.ts) carry these words.
 */
export function namespaceDomainError(value: string): string | null {
  const name = value.toLowerCase().replace(/\.$/, '');
  if (isIpLiteral(name)) return 'an IP address is not a domain: a namespace is a DNS name';
  if (name.length < 1 || name.length > 253) return 'a domain has 1 to 253 characters';
  const labels = name.split('.');
  if (labels.length > MAX_DOMAIN_LABELS) return `a domain has at most ${MAX_DOMAIN_LABELS} labels`;
  if (!labels.every((label) => label.length <= 63 && DOMAIN_LABEL.test(label))) return 'each label has 1 to 63 letters, digits or inner hyphens';
  if (/^[0-9]+$/.test(labels[labels.length - 1]!)) return 'the last label of a domain is not all digits (a domain is a name, not an address)';
  if (labels.length < 2 && name !== 'local') return 'a domain has at least two labels';
  return null;
}

/** A namespace domain written exactly, as the node stores it: lower-cased, a trailing dot removed; null when it is not one. */
export function namespaceDomain(value: string): string | null {
  return namespaceDomainError(value) === null ? value.toLowerCase().replace(/\.$/, '') : null;
}

/** A namespace domain as typed in a form (trimmed), as the node stores it; null when it is not one (namespaceDomain). */
export function normalizeDomainName(value: string): string | null {
  return namespaceDomain(value.trim());
}

/** Why `value` cannot be a domain; null when it can. */
export function domainProblem(value: string): string | null {
  const domain = value.trim();
  if (domain === '') return 'enter a domain, for example example.com';
  if (domain.includes('/') || domain.includes(':')) return 'enter just the domain, such as example.com, without https:// or a path';
  if (/^[0-9.]+$/.test(domain)) return 'enter a domain name, not an IP address';
  if (domain.replace(/\.$/, '').split('.').length > MAX_DOMAIN_LABELS) return `use at most ${MAX_DOMAIN_LABELS} parts separated by dots`;
  return normalizeDomainName(domain) === null ? DOMAIN_RULE : null;
}

/**
 * The namespace a node gives identities when their owner has no domain
 * (server/surfaces/node/setup/service.ts says why this shape): `node-<first 8 hex digits of the
 * node id>.local`. The setup form shows the address it will make before it is made.
 */
export function localNamespace(nodeId: string): string {
  return `node-${nodeId
    .replace(/[^0-9a-f]/gi, '')
    .slice(0, 8)
    .toLowerCase()}.local`;
}

// ------------------------------------------------------------------ peers

export const PEER_URL_RULE = 'enter the node’s http(s) origin, such as https://node.example.com, without a path';

/** A peer's URL as the node stores it (its origin), or null when it is not an http(s) origin. */
export function peerOrigin(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (url.username || url.password || url.search || url.hash || (url.pathname !== '/' && url.pathname !== '')) return null;
  return url.origin;
}

/** Why `value` cannot be a peer's URL; null when it can. */
export function peerUrlProblem(value: string): string | null {
  if (value.trim() === '') return 'enter the node’s URL, for example https://node.example.com';
  return peerOrigin(value) === null ? PEER_URL_RULE : null;
}

// ------------------------------------------------------------------ the tunnel

/** The SSH host: a host name or an IP address. */
export const TUNNEL_HOST = /^[A-Za-z0-9.-]{1,253}$|^\[?[0-9A-Fa-f:.]{2,45}\]?$/;
export const TUNNEL_HOST_RULE = 'enter a host name or IP address, such as ssh.example.com';
/** The account on the SSH host. */
export const TUNNEL_USER = /^[A-Za-z0-9._-]{1,64}$/;
export const TUNNEL_USER_RULE = 'use an account name of 1-64 letters, digits, ".", "_" or "-"';
/** A host key fingerprint as `ssh-keygen -lf` prints it. */
export const HOST_KEY_SHA256 = /^(SHA256:)?[A-Za-z0-9+/]{43}=?$/;
export const HOST_KEY_RULE = 'paste the SHA256 fingerprint as ssh-keygen -lf prints it (SHA256: and 43 characters)';

export function tunnelHostProblem(value: string): string | null {
  const host = value.trim();
  if (host === '') return 'enter the SSH host';
  return TUNNEL_HOST.test(host) ? null : TUNNEL_HOST_RULE;
}

export function tunnelUserProblem(value: string): string | null {
  const user = value.trim();
  if (user === '') return 'enter the user name on the SSH host';
  return TUNNEL_USER.test(user) ? null : TUNNEL_USER_RULE;
}

/** A port typed as text: a whole number from `min` (1 for the SSH port; 0 lets the SSH host pick the remote one) to 65535. */
export function portProblem(value: string, min = 1): string | null {
  const text = value.trim();
  if (text === '') return 'enter a port number';
  const port = Number(text);
  return /^\d+$/.test(text) && port >= min && port <= 65535 ? null : `use a whole number from ${min} to 65535`;
}

/** An optional public URL: http(s), at most 2048 characters. */
export function publicUrlProblem(value: string): string | null {
  const text = value.trim();
  if (text === '') return null;
  if (text.length > 2048) return 'use at most 2048 characters';
  try {
    const url = new URL(text);
    if (url.protocol === 'http:' || url.protocol === 'https:') return null;
  } catch {
    // not a URL at all: the same words
  }
  return 'enter an http(s) URL, such as https://node.example.com';
}

/** An optional host key fingerprint. */
export function hostKeyProblem(value: string): string | null {
  const text = value.trim();
  if (text === '') return null;
  return HOST_KEY_SHA256.test(text) ? null : HOST_KEY_RULE;
}

// ------------------------------------------------------------------ mail and chat

/** A mail's priority, lowest first (contract/core/mail.ts takes them into its schemas). */
export const PRIORITIES = ['low', 'normal', 'high', 'urgent'] as const;
export type Priority = (typeof PRIORITIES)[number];

/** A chat message body holds at most 64 KiB of UTF-8 (a larger one is a 413). */
export const MAX_CHAT_MESSAGE_BYTES = 64 * 1024;

/**
 * Mail's limits: recipients of one mail over every selector together, the body in UTF-8 bytes (a
 * larger one is a 413), and the subject. Here, beside the other plain rules, so the app can keep
 * drafts within them without loading the wire schemas.
 */
export const MAX_RECIPIENTS = 50;
export const MAX_BODY_BYTES = 64 * 1024;
export const MAX_SUBJECT = 256;

/**
 * Bytes of `text` in UTF-8, as the node counts its limits (Buffer.byteLength's count, where a
 * lone surrogate becomes U+FFFD, 3 bytes), without Node's Buffer, so both builds can take it.
 */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && index + 1 < text.length && (text.charCodeAt(index + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      index += 1;
    } else bytes += 3;
  }
  return bytes;
}

/**
 * Search. A one-letter word matches nearly everything, and the index keeps prefixes of 2 and 3
 * characters only: the node refuses a shorter prefix (`a*`), and the app asks nothing until this
 * many characters are typed.
 */
export const MIN_SEARCH_CHARS = 2;
/** The query text, in characters; longer is a 422. */
export const MAX_SEARCH_QUERY = 500;

// ------------------------------------------------------------------ timestamps

/** RFC 3339 with optional fractional seconds and an explicit offset: what Go's RFC3339/RFC3339Nano parsers accept. */
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

/** Milliseconds since the epoch of an RFC 3339 timestamp, or null when it is not one. */
export function parseRfc3339(value: unknown): number | null {
  if (typeof value !== 'string' || !RFC3339.test(value)) return null;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? ms : null;
}
