/** `svc-node peer ...` (DESIGN §8): the owner's peer table, thin over `/v1/node/peers`. */
import { CliError, ownerRequest } from './owner-client.ts';
import { print } from './output.ts';
import type { Peer, PeerRemoved } from '../../contract/node/peers.ts';

const USAGE = {
  add: 'usage: svc-node peer add <domain> <url> [--json]',
  remove: 'usage: svc-node peer remove <domain> [--json]',
  any: 'usage: svc-node peer add|list|remove ... (see svc-node --help)',
};

export async function peer(dataDir: string, json: boolean, sub?: string, arg?: string, arg2?: string): Promise<void> {
  switch (sub) {
    case 'add': {
      if (!arg || !arg2) throw new CliError(USAGE.add);
      const added = await ownerRequest<Peer>(dataDir, 'POST', '/v1/node/peers', { domain: arg, url: arg2 });
      return print(added, json, `${added.domain} is answered by ${added.url}`);
    }
    case 'list': {
      const result = await ownerRequest<{ peers: Peer[] }>(dataDir, 'GET', '/v1/node/peers');
      return print(result, json, result.peers.map((p) => `${p.domain}  ${p.url}`).join('\n') || 'no peers');
    }
    case 'remove': {
      if (!arg) throw new CliError(USAGE.remove);
      const removed = await ownerRequest<PeerRemoved>(dataDir, 'DELETE', `/v1/node/peers/${encodeURIComponent(arg)}`);
      return print(removed, json, `removed the peer for ${removed.domain}`);
    }
    default:
      throw new CliError(USAGE.any);
  }
}
