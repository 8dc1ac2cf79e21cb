/**
 * The owner's peer table as a use case (DESIGN §8): the federation directory keeps the rows, and
 * adding one here also keeps the rule that a domain has one place (a namespace of this node is
 * answered here, never by a peer) and retries the mail already waiting for it.
 */
import type { Peer } from '../../../../contract/node/peers.ts';
import { conflict } from '../../../errors.ts';
import type { CoreServices } from '../../core/services.ts';

export class NodePeers {
  readonly #services: Pick<CoreServices, 'directory' | 'namespaces' | 'outbox'>;

  constructor(services: Pick<CoreServices, 'directory' | 'namespaces' | 'outbox'>) {
    this.#services = services;
  }

  /** Adds or replaces the peer for `domain` (as stored: lower case, no trailing dot). */
  add(domain: string, url: string): Peer {
    const { directory, namespaces, outbox } = this.#services;
    if (namespaces.isLocal(domain))
      throw conflict('SVC_ERR_PEER_DOMAIN_LOCAL', `${domain} is a namespace of this node; its mail is delivered here, not to a peer`);
    const peer = directory.set(domain, url);
    outbox.retryNow(peer.domain);
    return peer;
  }
}
