/**
 * Words for mail and chat between nodes, peers and the tunnel: the tunnel state badge, delivery
 * states of mail and chat sent to other nodes, where an inbox mail came from, which chat
 * participants are on another node, what the outbox strip says after a send, and the tunnel
 * form's fields to and from the node's shape. Pure; tested in federation.test.ts.
 */
import type { ChatSession } from '../api/chat.ts';
import type { MailMessage, OutboundMail, OutboundStatus, SendMailResult } from '../api/mail.ts';
import type { TunnelConfig, TunnelConfigInput, TunnelState } from '../api/owner.ts';
import { hostKeyProblem, portProblem, publicUrlProblem, tunnelHostProblem, tunnelUserProblem } from '../../../contract/core-rules.ts';
import { plural } from './format.ts';
import type { BadgeLabel } from './labels.ts';

// ------------------------------------------------------------------ tunnel

/**
 * The tunnel's state in words. `configured`: whether it has settings; a tunnel that was never set
 * up is "Not set up", not "Stopped" since whenever the node started.
 */
export function tunnelStateBadge(state: TunnelState | string, configured = true): BadgeLabel {
  if (state === 'stopped' && !configured) {
    return {
      text: 'Not set up',
      tone: 'neutral',
      hint: 'No tunnel settings yet: fill in the SSH host below to let other nodes reach this one through a tunnel.',
    };
  }
  switch (state) {
    case 'up':
      return { text: 'Up', tone: 'ok', hint: 'Other nodes can reach this node through the tunnel.' };
    case 'connecting':
      return { text: 'Connecting', tone: 'accent', hint: 'The node is opening the SSH connection.' };
    case 'reconnecting':
      return { text: 'Reconnecting', tone: 'warn', hint: 'The connection dropped; the node is trying again by itself.' };
    case 'failed':
      return { text: 'Failed', tone: 'danger', hint: 'The node gave up; fix the settings or the SSH host and start it again.' };
    case 'stopped':
      return { text: 'Stopped', tone: 'neutral', hint: 'No tunnel is running: other nodes cannot reach this one through it.' };
    default:
      return { text: state, tone: 'neutral', hint: '' };
  }
}

/** The node is working on the connection: the panel polls, and Stop cancels. */
export function tunnelIsBusy(state: TunnelState | string): boolean {
  return state === 'connecting' || state === 'reconnecting';
}

/** The tunnel form as the inputs hold it (text, so half-typed numbers survive). */
export interface TunnelForm {
  host: string;
  port: string;
  username: string;
  remotePort: string;
  publicUrl: string;
  hostKey: string;
}

export function emptyTunnelForm(): TunnelForm {
  return { host: '', port: '22', username: '', remotePort: '', publicUrl: '', hostKey: '' };
}

export function tunnelFormFrom(config: TunnelConfig | null): TunnelForm {
  if (config === null) return emptyTunnelForm();
  return {
    host: config.host,
    port: String(config.port),
    username: config.username,
    remotePort: String(config.remote_port),
    publicUrl: config.public_url ?? '',
    hostKey: config.host_key_sha256 ?? '',
  };
}

/** The tunnel settings' wire fields, by the labels the form shows. */
export const TUNNEL_LABELS = {
  host: 'SSH host',
  port: 'Port',
  username: 'User name',
  remote_port: 'Remote port',
  public_url: 'Public URL',
  host_key_sha256: 'Host key fingerprint',
} as const;
export type TunnelField = keyof typeof TUNNEL_LABELS;

/**
 * Each wire field's value in the form and the node's own rule for it (contract/core-rules.ts):
 * the SSH port may be left empty (22); the remote port may be 0 (the SSH host picks one).
 */
export const TUNNEL_RULES: Record<TunnelField, { value: (form: TunnelForm) => string; check: (value: string) => string | null }> = {
  host: { value: (form) => form.host, check: tunnelHostProblem },
  port: { value: (form) => form.port, check: (value) => (value.trim() === '' ? null : portProblem(value, 1)) },
  username: { value: (form) => form.username, check: tunnelUserProblem },
  remote_port: { value: (form) => form.remotePort, check: (value) => portProblem(value, 0) },
  public_url: { value: (form) => form.publicUrl, check: publicUrlProblem },
  host_key_sha256: { value: (form) => form.hostKey, check: hostKeyProblem },
};

/**
 * The PUT body for a form, or its first problem in words ("Remote port: use a whole number from
 * 0 to 65535"), by the node's rules. Empty optionals are left out (the PUT replaces the settings,
 * so clearing a field clears it at the node).
 */
export function tunnelInput(form: TunnelForm): { input: TunnelConfigInput } | { error: string } {
  for (const field of Object.keys(TUNNEL_RULES) as TunnelField[]) {
    const rule = TUNNEL_RULES[field];
    const problem = rule.check(rule.value(form));
    if (problem !== null) return { error: `${TUNNEL_LABELS[field]}: ${problem}` };
  }
  const publicUrl = form.publicUrl.trim();
  const hostKey = form.hostKey.trim();
  const input: TunnelConfigInput = {
    host: form.host.trim(),
    port: form.port.trim() === '' ? 22 : Number(form.port.trim()),
    username: form.username.trim(),
    remote_port: Number(form.remotePort.trim()),
  };
  if (publicUrl !== '') input.public_url = publicUrl;
  if (hostKey !== '') input.host_key_sha256 = hostKey;
  return { input };
}

// ------------------------------------------------------------------ mail to other nodes

/** The host of a node origin ("https://node.example.com:8443" → "node.example.com:8443"); the text itself when it is no URL. */
export function nodeHost(origin: string | null): string | null {
  if (origin === null || origin === '') return null;
  try {
    return new URL(origin).host || origin;
  } catch {
    return origin;
  }
}

/** "1 attempt", "3 attempts". */
function attempts(count: number): string {
  return plural(count, 'attempt');
}

/** The badge for one mail to another node, its tooltip the details behind the state. */
export function outboundBadge(mail: Pick<OutboundMail, 'status' | 'attempts' | 'last_error' | 'delivered_to' | 'to_domain'>): BadgeLabel {
  switch (mail.status) {
    case 'delivered':
      return {
        text: 'Delivered',
        tone: 'ok',
        hint: mail.delivered_to ? `Taken by the node at ${mail.delivered_to}.` : 'Taken by the recipient’s node.',
      };
    case 'bounced':
      return {
        text: 'Bounced',
        tone: 'danger',
        hint: mail.last_error ? `Not delivered: ${mail.last_error}` : 'Not delivered: the recipient’s node refused it.',
      };
    default:
      return {
        text: 'Queued',
        tone: 'warn',
        hint:
          mail.attempts === 0
            ? `Waiting for its first attempt to reach the node for ${mail.to_domain}.`
            : `${attempts(mail.attempts)} so far; the node keeps trying.${mail.last_error ? ` Last error: ${mail.last_error}` : ''}`,
      };
  }
}

/** The line under a row: what happened, in words. */
export function outboundDetail(mail: Pick<OutboundMail, 'status' | 'attempts' | 'last_error' | 'delivered_to'>): string {
  switch (mail.status) {
    case 'delivered':
      return mail.delivered_to ? `Delivered to ${nodeHost(mail.delivered_to)}` : 'Delivered';
    case 'bounced':
      return mail.last_error ?? 'The recipient’s node refused it.';
    default:
      if (mail.attempts === 0) return 'Waiting for the first attempt';
      return `${attempts(mail.attempts)}${mail.last_error ? ` · ${mail.last_error}` : ''}`;
  }
}

/** Where an inbox mail came from, for the list and the reading pane; null for mail from this node's identities. */
export function mailOrigin(message: Pick<MailMessage, 'origin' | 'from_node'>): { text: string; short: string; hint: string } | null {
  if (message.origin === 'bounce') {
    return {
      text: 'From this node (postmaster)',
      short: 'this node',
      hint: 'This node wrote this to tell you a delivery to another node failed.',
    };
  }
  if (message.origin === 'remote') {
    const host = nodeHost(message.from_node);
    const via = host ? `via ${host}` : 'via another node';
    return {
      text: via,
      short: via,
      hint: `From ${message.from_node ?? 'another node'}. This node checked the sender’s address and signature when it arrived.`,
    };
  }
  return null;
}

/** Which of a send's recipients (as the sender named them) went to another node's queue. */
export function queuedRecipients(result: { messages: readonly Pick<SendMailResult['messages'][number], 'status' | 'to'>[] }): string[] {
  return result.messages.filter((entry) => entry.status === 'queued').map((entry) => entry.to);
}

/**
 * What the outbox strip says once the node took a send: "Sent to a, b" for mail delivered here,
 * "Queued for x (another node)" for the rest (by address: that is what the other node is asked
 * for). `names` maps a recipient delivered here to how it is shown.
 */
export function sentSummary(recipients: readonly string[], queued: readonly string[], names: (value: string) => string = (v) => v): string {
  const waiting = new Set(queued);
  const here = recipients.filter((r) => !waiting.has(r)).map(names);
  const away = recipients.filter((r) => waiting.has(r));
  const parts: string[] = [];
  if (here.length > 0) parts.push(`Sent to ${here.join(', ')}`);
  if (away.length > 0) parts.push(`Queued for ${away.join(', ')} (another node)`);
  return parts.length > 0 ? parts.join('; ') : 'Sent';
}

// ------------------------------------------------------------------ chat with other nodes

/** What the remote-participant marker says on hover. */
export const REMOTE_PARTICIPANT_HINT = 'Messages go through federation: queued until that node takes them';

/** The domain of an address (`<domain>/<name>`), lowercase; null for an alias or anything else. */
export function addressDomain(address: string): string | null {
  const slash = address.indexOf('/');
  if (slash <= 0 || slash === address.length - 1) return null;
  return address.slice(0, slash).toLowerCase();
}

/** Whether `address` is on a domain this node does not host (`hosted`: the node's namespace domains). */
export function isRemoteAddress(address: string, hosted: readonly string[]): boolean {
  const domain = addressDomain(address);
  if (domain === null) return false;
  return !hosted.some((d) => d.toLowerCase() === domain);
}

/** The other participants of a session that are on another node, by address. */
export function remoteParticipants(session: Pick<ChatSession, 'participant_addresses'>, hosted: readonly string[]): string[] {
  return session.participant_addresses.filter((address) => isRemoteAddress(address, hosted));
}

/** The chat rows of `GET /v1/messages/outbound` by message_id (rows without a kind are taken too). */
export function chatOutboundIndex(rows: readonly OutboundMail[]): Map<string, OutboundMail> {
  return new Map(rows.filter((row) => row.kind !== 'mail').map((row) => [row.message_id, row]));
}

/** The delivery state shown under a chat message I sent to another node. */
export interface ChatDeliveryLabel {
  status: OutboundStatus;
  text: string;
  tone: 'ok' | 'warn' | 'danger';
  /** The reason a bounced message was refused, shown next to it. */
  reason: string | null;
  hint: string;
}

/** The delivery state of one chat message to another node; null when the node has no row for it. */
export function chatDelivery(
  row: Pick<OutboundMail, 'status' | 'attempts' | 'last_error' | 'delivered_to' | 'to_domain'> | undefined,
): ChatDeliveryLabel | null {
  if (row === undefined) return null;
  switch (row.status) {
    case 'delivered': {
      const host = nodeHost(row.delivered_to);
      return {
        status: 'delivered',
        text: 'Delivered',
        tone: 'ok',
        reason: null,
        hint: host ? `Taken by the node at ${host}.` : 'Taken by the other node.',
      };
    }
    case 'bounced': {
      const reason = row.last_error ?? 'the other node refused it.';
      return { status: 'bounced', text: 'Not delivered', tone: 'danger', reason, hint: `Not delivered: ${reason}` };
    }
    default:
      return {
        status: 'queued',
        text: 'Queued',
        tone: 'warn',
        reason: null,
        hint:
          row.attempts === 0
            ? `Waiting for its first attempt to reach the node for ${row.to_domain}.`
            : `${attempts(row.attempts)} so far; this node keeps trying.${row.last_error ? ` Last error: ${row.last_error}` : ''}`,
      };
  }
}

/**
 * Whether the delivery states are worth looking at again: some message of mine (by id) is still
 * queued. A message with no row says nothing (the node lists only its newest sends).
 */
export function chatDeliveryPending(myMessageIds: readonly string[], index: ReadonlyMap<string, Pick<OutboundMail, 'status'>>): boolean {
  return myMessageIds.some((id) => index.get(id)?.status === 'queued');
}
