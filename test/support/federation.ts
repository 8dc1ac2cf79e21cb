/**
 * Messages as another node would deliver them to `POST /v1/federation/messages`: signed with a
 * key of the test's choosing, whatever address they claim.
 */
import { randomUUID } from 'node:crypto';
import { buildMessageEnvelope, messageSigningBytes } from '../../server/crypto/message-signing.ts';
import type { TestKey } from './keys.ts';

/** A federated mail from `from` to `to`, signed by `key`. */
export function signedMail(key: TestKey, fields: { from: string; to: string; body?: string }) {
  const mail = {
    v: 1,
    kind: 'mail',
    message_id: randomUUID(),
    from: fields.from,
    from_did: key.didKey,
    from_stable_id: null,
    to: fields.to,
    subject: 'hello',
    body: fields.body ?? 'hi',
    priority: 'normal',
    timestamp: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
  };
  const bytes = messageSigningBytes(buildMessageEnvelope({ ...mail, type: 'mail', to_did: '' } as Parameters<typeof buildMessageEnvelope>[0]));
  return { ...mail, signature: key.sign(bytes), signed_payload: bytes.toString('utf8') };
}
