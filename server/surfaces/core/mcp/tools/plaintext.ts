/**
 * Plaintext by name, for the tools that send: an agent reaches a recipient that publishes no
 * encryption key only by saying so, as the HTTP API's `content_mode: "legacy_plaintext_v1"` and
 * upstream's `--plaintext` do. Never a fallback: where every recipient can decrypt, the node
 * refuses it (messaging/end-to-end.ts).
 */

export const PLAINTEXT_PARAMETER =
  'Send it readable by the nodes it crosses, to a recipient that publishes no encryption key (the refusal says so). Marked "not end-to-end encrypted" for its reader; refused where every recipient can decrypt.';

/** The send's content mode when the agent named plaintext; nothing otherwise (encrypted wherever it can be). */
export function plaintextBy(plaintext: boolean): { content_mode?: 'legacy_plaintext_v1' } {
  return plaintext ? { content_mode: 'legacy_plaintext_v1' } : {};
}
