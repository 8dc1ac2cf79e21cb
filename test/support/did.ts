/**
 * A self-custodial did:svc client: it builds its own log entries with the node's identity-log
 * module and signs them with a key the node never sees.
 */
import { buildRegisterPayload, buildRotatePayload, signaturePayloadBytes, type LogEntry, type LogEntryPayload } from '../../server/crypto/identity-log.ts';
import { stableIdFromDidKey } from '../../server/crypto/stable-id.ts';
import { timestamp, type TestKey } from './keys.ts';

export function stableIdOf(key: TestKey): string {
  return stableIdFromDidKey(key.didKey) as string;
}

/** The POST /v1/did body: the genesis entry's nine fields plus `proof`. */
export function registerBody(key: TestKey, options: { at?: string; patch?: Partial<LogEntryPayload>; signer?: TestKey } = {}): Record<string, unknown> {
  const payload = { ...buildRegisterPayload({ didAw: stableIdOf(key), didKey: key.didKey, timestamp: options.at ?? timestamp() }), ...options.patch };
  return { ...payload, proof: (options.signer ?? key).sign(signaturePayloadBytes(payload)) };
}

/**
 * The PUT /v1/did/{did_aw} body rotating from `previous` to `next`, signed by the retiring key
 * unless `signer` says otherwise. `patch` changes signed fields (the signature covers them).
 */
export function rotateBody(
  retiring: TestKey,
  previous: LogEntry,
  next: TestKey,
  options: { at?: string; patch?: Partial<LogEntryPayload>; signer?: TestKey } = {},
): Record<string, unknown> {
  const payload = { ...buildRotatePayload({ previous, newDidKey: next.didKey, timestamp: options.at ?? timestamp() }), ...options.patch };
  const { did_aw: _didAw, ...body } = payload;
  return { ...body, signature: (options.signer ?? retiring).sign(signaturePayloadBytes(payload)) };
}
