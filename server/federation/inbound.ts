/**
 * Mail and chat arriving from another node (`POST /v1/federation/messages`, DESIGN §8). A message
 * is stored only when every check passes, in this order:
 *
 * 1. the message is what its sender signed (wire.ts: rebuilt envelope, signature by from_did);
 * 2. the recipient is an address this node hosts, and the one the sender signed for when its
 *    signature names the recipient's keys (a self-custodial client's may);
 * 3. the sender's address is real: its domain is not one of ours, the node the directory names
 *    for that domain (peer table or DNS, never the message) says the address holds from_did, and
 *    when that node reports the namespace DNS-verified, DNS names the same controller here too.
 *    Mail signed before a key change still counts (it may have waited in an outbox): a key the
 *    sender's did:svc log shows it held when it signed (rotation), or the address's key before a
 *    replacement its namespace controller signed;
 * 4. the recipient accepts the sender (contacts-only identities need a matching contact, or, for
 *    chat, to have answered the sender in their session before);
 * 5. an end-to-end encrypted mail's or chat message's envelope says what the signed fields say, is
 *    fresh, sealed to a key the recipient published, and intact (the core checks it: core-port.ts);
 *    a plaintext message is for a recipient that accepts plaintext.
 *
 * A sender (address and key) that passed step 3 is not asked about again for 5 minutes
 * (checked-senders.ts), so a busy sender's messages cost its node two questions, not two each.
 *
 * Messages come one per request or many (inbound-batch.ts, which also charges their cost).
 * A refusal is a 4xx whose detail the sending node reports back to its sender as a bounce; a
 * sender node that cannot be reached is a 503, so the message is retried rather than bounced.
 * A message_id already stored from the same key is acknowledged again (retries are safe), before
 * any other check, so copies cost nobody a question; an id another message holds is refused only
 * once step 3 proved the sender, so an unproven peer cannot probe which ids exist.
 *
 * The caller is unauthenticated, and it chooses which node gets asked (the sender domain's), so
 * those questions go through the outbound client (server/net/remote-client.ts: public addresses
 * only for DNS-found nodes, no redirects, capped answers, timeouts), and what the caller hears
 * back about them is in our words only: never the other node's status, body or socket error,
 * which would make this endpoint a port and status scanner.
 */
import { isIP } from 'node:net';
import type { NodeContext } from '../context.ts';
import { verifyReplacementAnnouncement, type ReplacementAnnouncement } from '../crypto/announcements.ts';
import { verifyLog, type LogHead } from '../crypto/identity-log.ts';
import { checkNamespaceDns } from '../dns/namespace-verification.ts';
import { forbidden, invalid, ServiceError, unavailable } from '../errors.ts';
import { identityTopic } from '../events/bus.ts';
import { answerJson, type RemoteClient } from '../net/remote-client.ts';
import { httpStatus, RemoteError } from '../net/remote-error.ts';
import { splitAddress } from '../../contract/core-rules.ts';
import { CheckedSenders } from './checked-senders.ts';
import type { ArrivedEnvelope, CheckedSender, FederationCore, HostedRecipient, SenderKeys } from './core-port.ts';
import { addressPathOf, CHECK_ANSWER_MAX_BYTES, didLogPathOf, namespacePathOf } from './lookup-paths.ts';
import { SenderLookups } from './sender-lookups.ts';
import type { ClientBudget } from '../http/rate-limit.ts';
import type { NodeDirectory, NodeLocation } from './directory.ts';
import type { FederatedChat, FederatedMail, FederatedMessage, InboundResult } from '../../contract/core/federation.ts';
import { recipientProblem } from './wire.ts';

/**
 * A did:svc log grows by one entry (about 700 bytes) per key rotation: 256 KiB holds some 350
 * rotations, far more than an identity makes, and is still small.
 */
export const DID_LOG_MAX_BYTES = 256 * 1024;

/** A message that passed every check, and what storing it takes: its recipient is the core's record (core-port.ts). */
interface Checked<M extends FederatedMessage, Recipient extends HostedRecipient> {
  message: M;
  recipient: Recipient;
  sender: CheckedSender;
  /** An end-to-end encrypted mail's envelope, as the core checked (and, for a recipient whose keys it holds, opened) it. */
  encrypted?: ArrivedEnvelope;
}
export type CheckedMail<Recipient extends HostedRecipient = HostedRecipient> = Checked<FederatedMail, Recipient>;
export type CheckedChat<Recipient extends HostedRecipient = HostedRecipient> = Checked<FederatedChat, Recipient>;
export type CheckedMessage<Recipient extends HostedRecipient = HostedRecipient> = CheckedMail<Recipient> | CheckedChat<Recipient>;

export class FederationInbound<Recipient extends HostedRecipient = HostedRecipient> {
  readonly #ctx: NodeContext;
  readonly #directory: NodeDirectory;
  readonly #remote: RemoteClient;
  readonly #core: FederationCore<Recipient>;
  readonly #checked = new CheckedSenders();

  constructor(ctx: NodeContext, directory: NodeDirectory, remote: RemoteClient, core: FederationCore<Recipient>) {
    this.#ctx = ctx;
    this.#directory = directory;
    this.#remote = remote;
    this.#core = core;
  }

  /** What answering one request may make this node do, and who pays (`client`: null on the loopback listener). */
  lookupsFor(client: ClientBudget | null): SenderLookups {
    return new SenderLookups(client, this.#ctx.dns);
  }

  /**
   * Whether `message`'s sender (its address holding from_did) was checked with its node moments
   * ago, so receiving it asks no other node. Meaningful once its signature verified.
   */
  provenSender(message: FederatedMessage): boolean {
    const from = splitAddress(message.from);
    return from !== null && this.#checked.get(`${from.domain}/${from.name}`, message.from_did, this.#ctx.clock.now().getTime()) !== null;
  }

  /**
   * Asks the node of `domain` for several senders' addresses in one request (`?names=`), so their
   * checks ask it nothing more. Best effort: whatever the answer lacks, or a node that cannot
   * answer so (an older node's whole list over the cap, say), is asked address by address.
   */
  async prefetchAddresses(domain: string, names: string[], lookups: SenderLookups): Promise<void> {
    if (this.#core.isLocal(domain)) return;
    let answer: unknown;
    let node: NodeLocation | null;
    try {
      node = await this.#nodeOf(domain, lookups);
      if (node === null) return;
      answer = await this.#ask(node, `${namespacePathOf(domain)}/addresses?names=${names.map(encodeURIComponent).join(',')}`, domain, lookups);
    } catch {
      return;
    }
    const listed = (answer as { addresses?: unknown } | null)?.addresses;
    if (!Array.isArray(listed)) return;
    const wanted = new Set(names);
    for (const address of listed as unknown[]) {
      if (typeof address === 'object' && address !== null && 'name' in address && typeof address.name === 'string' && wanted.has(address.name)) {
        lookups.prime(`${node.url}${addressPathOf(domain, address.name)}`, address);
      }
    }
  }

  /**
   * Steps 2 to 4 for `message` as the route's schema parsed it (contract/core/federation.ts), whose
   * signature the caller has checked (step 1: wire.ts's signatureProblem, refused with forgedRefusal):
   * what storing it takes, or 'duplicate' when this very message (its id, from its key) arrived
   * before. Throws the refusal.
   *
   * A duplicate is known before any other check: copies of a message cost no question to anyone.
   * An id another message holds is refused only once the sender is proven (step 3): before that,
   * a peer signing with a key of its own could learn from the refusal which message_ids exist
   * here, so it hears what an unproven sender hears for a fresh id.
   */
  async check(message: FederatedMessage, lookups: SenderLookups): Promise<CheckedMessage<Recipient> | 'duplicate'> {
    const held = this.#held(message);
    if (held === 'duplicate') return held;
    const recipient = this.#hostedRecipient(message);
    const sender = await this.#checkSender(message, lookups);
    if (held instanceof ServiceError) throw held;
    if (message.kind === 'mail' && recipient.address_reachability === 'contacts-only' && !this.#core.isContact(recipient.agent_id, senderKeys(message))) {
      throw forbidden('SVC_ERR_RECIPIENT_CONTACTS_ONLY', `Refused: ${message.to} only accepts messages from contacts`);
    }
    // 5. An encrypted mail's envelope: checked against what the proven sender signed, for the recipient's published key.
    if (message.kind === 'mail' && message.encrypted_envelope !== undefined) {
      return { message, recipient, sender, encrypted: this.#core.checkArrivedEnvelope(message, recipient) };
    }
    if (message.kind === 'chat' && message.encrypted_envelope !== undefined) {
      return { message, recipient, sender, encrypted: this.#core.checkArrivedChatEnvelope(message, recipient) };
    }
    // Plaintext, from a node or client that does not encrypt: only to a recipient that takes it.
    this.#core.checkArrivedPlaintext(recipient);
    return { message, recipient, sender } as CheckedMessage<Recipient>;
  }

  /**
   * Stores checked mail in one transaction, so a batch costs one commit rather than one each, then
   * wakes the recipients. A result per mail, in order: a mail stored meanwhile is a duplicate, and
   * one whose id another key took meanwhile gets that refusal.
   */
  storeMail(checked: CheckedMail<Recipient>[]): (InboundResult | ServiceError)[] {
    const { db, clock, bus } = this.#ctx;
    const now = clock.now().toISOString();
    const results = db
      .transaction(() =>
        checked.map(({ message, recipient, sender, encrypted }): InboundResult | ServiceError => {
          if (this.#core.storeArrivedMail(message, recipient, sender, now, encrypted)) return { message_id: message.message_id, status: 'delivered' };
          try {
            // Stored first by another delivery: this message again, or (refused there) another under its id.
            this.#core.arrivedBefore(message);
            return { message_id: message.message_id, status: 'duplicate' };
          } catch (error) {
            if (error instanceof ServiceError) return error;
            throw error;
          }
        }),
      )
      .immediate();
    const woken = new Set<string>();
    for (const [i, result] of results.entries())
      if (!(result instanceof ServiceError) && result.status === 'delivered') woken.add(checked[i]!.recipient.agent_id);
    for (const agentId of woken) bus.publish(identityTopic(agentId));
    return results;
  }

  /**
   * Stores a checked chat message at once (a chat session is written message by message). One
   * stored by another delivery since it was checked (two raced) is a duplicate, and another under
   * its id that refusal, as for mail.
   */
  storeChat({ message, recipient, sender, encrypted }: CheckedChat<Recipient>): InboundResult {
    if (this.#core.arrivedBefore(message)) return { message_id: message.message_id, status: 'duplicate' };
    const contact = this.#core.isContact(recipient.agent_id, senderKeys(message));
    this.#core.storeArrivedChat(message, recipient, { contact, namespaceTrust: sender.namespaceTrust }, encrypted);
    return { message_id: message.message_id, status: 'delivered' };
  }

  /**
   * What this node holds under `message`'s id: nothing (null), this message from the same key
   * ('duplicate'), or another message (the refusal to give once the sender is proven).
   */
  #held(message: FederatedMessage): 'duplicate' | ServiceError | null {
    try {
      return this.#core.arrivedBefore(message) ? 'duplicate' : null;
    } catch (error) {
      if (error instanceof ServiceError) return error;
      throw error;
    }
  }

  /** The identity `message.to` names here, when it is the one the sender signed for. */
  #hostedRecipient(message: FederatedMessage): Recipient {
    const recipient = this.#core.hostedRecipient(message.to);
    const wrong = recipientProblem(message, recipient);
    if (wrong !== null) throw forbidden('SVC_ERR_FEDERATION_RECIPIENT_MISMATCH', `Refused: ${wrong}`);
    return recipient;
  }

  /**
   * Checks that the sender's address holds from_did on its own node. Returns that node's origin,
   * and whether the sender's namespace is DNS-verified as checked here (the reader's badge).
   */
  async #checkSender(mail: FederatedMessage, lookups: SenderLookups): Promise<CheckedSender> {
    const from = splitAddress(mail.from);
    if (from === null) throw invalid('SVC_ERR_VALIDATION', [{ loc: ['body', 'from'], msg: 'must be an address <domain>/<name>', type: 'value_error' }]);
    if (this.#core.isLocal(from.domain)) {
      throw forbidden('SVC_ERR_SENDER_NAMESPACE_LOCAL', `Refused: ${from.domain} is a namespace of this node, so ${mail.from} cannot send from another node`);
    }
    const address = `${from.domain}/${from.name}`;
    const now = this.#ctx.clock.now().getTime();
    const checked = this.#checked.get(address, mail.from_did, now);
    if (checked !== null) return checked;
    const sender = await this.#askSenderNode(mail, from, lookups);
    if (sender.heldKey) this.#checked.remember(address, mail.from_did, sender.checked, now);
    return sender.checked;
  }

  /** Step 3 with the sender's node: the address, its namespace, and when it is verified, DNS. */
  async #askSenderNode(
    mail: FederatedMessage,
    from: { domain: string; name: string },
    lookups: SenderLookups,
  ): Promise<{ checked: CheckedSender; heldKey: boolean }> {
    const node = await this.#nodeOf(from.domain, lookups);
    if (node === null)
      throw forbidden(
        'SVC_ERR_SENDER_NODE_UNKNOWN',
        `Refused: no node is known for ${from.domain} (no peer entry and no node= in DNS), so ${mail.from} cannot be checked`,
      );
    const addressPath = addressPathOf(from.domain, from.name);
    const address = await this.#lookupObject(node, addressPath, mail.from, lookups);
    // The node's URL stays out of these details: the caller need not learn the owner's peer table.
    if (address === null) throw forbidden('SVC_ERR_SENDER_NOT_FOUND', `Refused: ${mail.from} does not exist on its node`);
    const namespace = await this.#lookupObject(node, namespacePathOf(from.domain), from.domain, lookups);
    const heldKey = address.current_did_key === mail.from_did;
    if (!heldKey) {
      const earlier = await this.#earlierKey(mail, node, address, namespace, addressPath, lookups);
      if (earlier !== null) throw forbidden('SVC_ERR_SENDER_KEY_MISMATCH', `Refused: ${mail.from} resolves to another key on its node (${earlier})`);
    }
    if (namespace?.verification_status === 'verified' && typeof namespace.controller_did === 'string') {
      const dns = await checkNamespaceDns(lookups.dns, from.domain, namespace.controller_did);
      // A lookup that failed proved nothing: the message waits, it is not refused.
      if (dns.status === 'unverified' && dns.lookupFailed === true) throw dnsFailed(from.domain);
      if (dns.status !== 'verified')
        throw forbidden('SVC_ERR_SENDER_DNS_UNVERIFIED', `Refused: ${from.domain} claims DNS verification, but DNS here does not name its controller`);
      return { checked: { nodeUrl: node.url, namespaceTrust: 'verified' }, heldKey };
    }
    return { checked: { nodeUrl: node.url, namespaceTrust: 'unverified' }, heldKey };
  }

  /**
   * Null when from_did was the sender's key when it signed: an earlier key of its did:svc (the log
   * verifies from genesis and ends at the address's key; the message predates the rotation), or the
   * address's key before a replacement signed by the namespace controller. Else why not.
   */
  async #earlierKey(
    mail: FederatedMessage,
    node: NodeLocation,
    address: Record<string, unknown>,
    namespace: Record<string, unknown> | null,
    addressPath: string,
    lookups: SenderLookups,
  ): Promise<string | null> {
    const signedAt = Date.parse(mail.timestamp);
    const stableId = mail.from_stable_id;
    if (stableId !== null && address.did_aw === stableId) {
      const log = await this.#ask(node, didLogPathOf(stableId), stableId, lookups, DID_LOG_MAX_BYTES);
      const entries = Array.isArray(log) ? (log as LogHead[]) : [];
      const verified = verifyLog(entries, { didAw: stableId });
      if (!verified.ok) return `its did:svc log does not verify: ${verified.error}`;
      if (verified.currentDidKey !== address.current_did_key) return 'its did:svc log ends at another key';
      const held = entries.findIndex((entry) => entry.new_did_key === mail.from_did);
      if (held < 0) return 'that key was never its key';
      const retired = entries[held + 1];
      if (retired !== undefined && signedAt > Date.parse(retired.timestamp)) return 'signed after that key was retired';
      return null;
    }
    const controllerDid = typeof namespace?.controller_did === 'string' ? namespace.controller_did : '';
    const replacements = await this.#lookupObject(node, `${addressPath}/replacements`, mail.from, lookups);
    const listed = replacements?.replacement_announcements;
    const announcements = Array.isArray(listed) ? (listed as ReplacementAnnouncement[]) : [];
    const replaced = announcements.find((a) => a.old_did === mail.from_did && a.new_did === address.current_did_key);
    if (replaced === undefined) return 'no rotation or replacement vouches for the key it was signed with';
    const check = verifyReplacementAnnouncement(
      replaced,
      { controllerDid, address: mail.from, oldDid: mail.from_did, newDid: String(address.current_did_key) },
      { now: this.#ctx.clock.now() },
    );
    if (!check.ok) return `its replacement announcement does not verify: ${check.error}`;
    if (signedAt > Date.parse(replaced.timestamp)) return 'signed after the address was replaced';
    return null;
  }

  /**
   * The node for `domain` (the peer table, then DNS through the request's lookups): null when
   * neither names one; a 503 when DNS could not be asked, so the sending node retries rather than
   * bounces.
   */
  async #nodeOf(domain: string, lookups: SenderLookups): Promise<NodeLocation | null> {
    try {
      return await this.#directory.find(domain, lookups.dns);
    } catch (error) {
      if (error instanceof ServiceError) throw error;
      throw dnsFailed(domain);
    }
  }

  /**
   * GET a JSON value from the sender's node through the outbound client, within the request's
   * time: null when it answers 404, a 503 when it cannot be asked (so the sending node retries
   * rather than bounces). That 503 says the same whatever went wrong: the caller chose which node
   * is asked, and whether its name resolved to a private address, did not connect, timed out or
   * answered something odd would map this node's network (its split DNS, its open ports) for it.
   * A node DNS named by host name costs the request a DNS query, made as the outbound client connects.
   */
  #ask(node: NodeLocation, path: string, what: string, lookups: SenderLookups, maxBytes = CHECK_ANSWER_MAX_BYTES): Promise<unknown> {
    const host = URL.parse(node.url)?.hostname ?? '';
    if (node.via === 'dns' && isIP(host.replace(/^\[|\]$/g, '')) === 0) {
      const refusal = lookups.queryElsewhere(`A ${host.toLowerCase()}`);
      if (refusal !== null) return Promise.reject(refusal);
    }
    return lookups.answer(`${node.url}${path}`, async (timeoutMs) => {
      try {
        const answer = await this.#remote.request(node, { method: 'GET', path, maxBytes, timeoutMs: Math.min(timeoutMs, this.#remote.timeoutMs) });
        if (answer.status === 404) return null;
        if (answer.status < 200 || answer.status > 299) throw httpStatus(answer.status);
        return answerJson(answer);
      } catch (error) {
        if (error instanceof RemoteError) throw uncheckable(what);
        throw error;
      }
    });
  }

  /** `#ask` for a JSON object (an address, a namespace, a replacements listing). */
  async #lookupObject(node: NodeLocation, path: string, what: string, lookups: SenderLookups): Promise<Record<string, unknown> | null> {
    const value = await this.#ask(node, path, what, lookups);
    if (value === null) return null;
    if (typeof value !== 'object' || Array.isArray(value)) throw uncheckable(what);
    return value as Record<string, unknown>;
  }
}

/** The one answer for a sender's node that could not be asked, or gave no usable answer. */
const uncheckable = (what: string) => unavailable('SVC_ERR_PEER_UNAVAILABLE', `Could not check ${what} with its node; try again later`);

/** How long a message whose sender's DNS failed waits: long enough for a resolver hiccup to pass. */
export const DNS_FAILED_RETRY_AFTER_S = 10;

/** A sender domain whose DNS lookup failed (not one that answered without a record). */
const dnsFailed = (domain: string) =>
  unavailable('SVC_ERR_SENDER_DNS_FAILED', `Could not look up ${domain} in DNS here; try again in ${DNS_FAILED_RETRY_AFTER_S} s`, DNS_FAILED_RETRY_AFTER_S);

/** The refusal of a message that is not what its sender signed (`problem`: wire.ts's signatureProblem). */
export const forgedRefusal = (problem: string) => forbidden('SVC_ERR_FEDERATION_SIGNATURE_INVALID', `Refused: ${problem}`);

/** What a contact entry can name the sender by. */
function senderKeys(message: FederatedMessage): SenderKeys {
  return { didKey: message.from_did, stableId: message.from_stable_id, address: message.from };
}
