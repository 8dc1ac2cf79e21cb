/** What a chat message may hold, and how it is shown in one line. */
import { MAX_CHAT_MESSAGE_BYTES } from '../../../../../contract/core/chat.ts';
import { tooLarge } from '../../../../errors.ts';

/** How many characters of a body a preview shows. */
export const PREVIEW_CHARS = 200;

/** A chat message holds at most 64 KiB of UTF-8; `field` names the text in the refusal. */
export function assertMessageSize(text: string, field: string): void {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > MAX_CHAT_MESSAGE_BYTES)
    throw tooLarge('SVC_ERR_MESSAGE_TOO_LARGE', `${field} is ${bytes} bytes; a chat message holds at most ${MAX_CHAT_MESSAGE_BYTES} bytes (64 KiB)`);
}

/** The first {@link PREVIEW_CHARS} characters of a body. */
export function preview(body: string): string {
  return body.length > PREVIEW_CHARS ? body.slice(0, PREVIEW_CHARS) : body;
}

/** A string field of a signed payload (the canonical envelope); null when it has none or the payload is not JSON. */
export function signedField(signedPayload: string, field: string): string | null {
  if (signedPayload === '') return null;
  try {
    const value = (JSON.parse(signedPayload) as Record<string, unknown>)[field];
    return typeof value === 'string' && value !== '' ? value : null;
  } catch {
    return null;
  }
}
