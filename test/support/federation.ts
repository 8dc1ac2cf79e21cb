/**
 * Messages as another node would deliver them to `POST /v1/federation/messages`: signed with a
 * key of the test's choosing, whatever address they claim.
 */
import { randomUUID } from 'node:crypto';
import { buildMessageEnvelope, messageSigningBytes } from '../../server/crypto/message-signing.ts';
import type { TestKey } from './keys.ts';
import { json, type RemoteHandler, type RemoteServer } from './remote-server.ts';

/** A federated mail from `from` to `to`, signed by `key` (under `messageId`, or a fresh one). */
export function signedMail(key: TestKey, fields: { from: string; to: string; subject?: string; body?: string; messageId?: string }) {
  const mail = {
    v: 1,
    kind: 'mail',
    message_id: fields.messageId ?? randomUUID(),
    from: fields.from,
    from_did: key.didKey,
    from_stable_id: null,
    to: fields.to,
    subject: fields.subject ?? 'hello',
    body: fields.body ?? 'hi',
    priority: 'normal',
    timestamp: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
  };
  const bytes = messageSigningBytes(buildMessageEnvelope({ ...mail, type: 'mail', to_did: '' } as Parameters<typeof buildMessageEnvelope>[0]));
  return { ...mail, signature: key.sign(bytes), signed_payload: bytes.toString('utf8') };
}

/**
 * A sender's node as a receiver asks it (inbound.ts step 3), answering on loopback: it vouches for
 * `<domain>/<name>` holding `keys[name]` (the address, the namespace as `namespace` says, the
 * `?names=` list), each after `delayMs()` when given, so a test can hold a receiver's question as
 * long as it likes.
 */
export function vouchingNode(
  servers: { start(handler: RemoteHandler): Promise<RemoteServer> },
  domain: string,
  keys: Record<string, TestKey>,
  options: { delayMs?: () => number; namespace?: Record<string, unknown> } = {},
): Promise<RemoteServer> {
  const address = (name: string) => ({ domain, name, address: `${domain}/${name}`, current_did_key: keys[name]!.didKey });
  return servers.start(async (request, response) => {
    const delayMs = options.delayMs?.() ?? 0;
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
    if (response.destroyed) return;
    const url = new URL(request.url ?? '/', 'http://x');
    const name = /\/addresses\/([^/]+)$/.exec(url.pathname)?.[1];
    if (name !== undefined) return keys[name] ? json(response, 200, address(name)) : json(response, 404, { detail: 'no' });
    if (url.pathname.endsWith('/addresses'))
      return json(response, 200, { addresses: (url.searchParams.get('names')?.split(',') ?? []).filter((n) => keys[n]).map(address) });
    return json(response, 200, options.namespace ?? { domain, verification_status: 'unverified' });
  });
}
