/**
 * What a message a client sealed itself carries to another node, mail or chat alike: who sent it
 * and to whom as its envelope says, no text, and no plaintext signature beside it, since the
 * envelope's own signature is the sender's proof (federation/wire.ts takes it on that alone).
 */
import type { EncryptedEnvelope } from '../../../../contract/core/end-to-end.ts';
import { FEDERATION_VERSION } from '../../../../contract/core/federation.ts';
import type { E2eeEnvelope } from '../../../crypto/e2ee/envelope.ts';

export function clientSealedWire(envelope: E2eeEnvelope, to: string) {
  return {
    v: FEDERATION_VERSION as typeof FEDERATION_VERSION,
    message_id: envelope.message_id,
    from: envelope.from.address ?? '',
    from_did: envelope.from.did,
    from_stable_id: envelope.from.stable_id ?? null,
    to,
    body: '',
    timestamp: envelope.created_at,
    signature: '',
    signed_payload: '',
    content_mode: 'encrypted_v2' as const,
    message_version: 2 as const,
    encrypted_envelope: envelope as unknown as EncryptedEnvelope,
  };
}
