/**
 * Frame ids of the live streams. Every frame a stream writes carries `id: <position>`: where the
 * stream stands once the client has that frame (its cursors: the highest row id of each source
 * it has been sent). A client that reconnects with that id as `Last-Event-ID` (EventSource does
 * it by itself) gets what came after it: nothing it already saw, nothing written in between.
 *
 * Ids are opaque to clients (docs/http-api.md: "Event streams"): a kind prefix naming the stream they
 * belong to, a dot, and the position as base64url JSON. An id the stream did not send, or one of
 * another kind of stream, is a 422 on `header.last-event-id` before the stream opens (a longer one
 * than contract's MAX_EVENT_ID_LENGTH is refused by the routes' header schema).
 */
import { z } from 'zod';
import { invalid } from '../errors.ts';

export interface StreamIds<T> {
  encode(position: T): string;
  /** The position a `Last-Event-ID` names; null when there is none (a fresh connection). */
  decode(lastEventId: unknown): T | null;
}

/** A cursor: a row id, or null while the source's connect snapshot has not been sent. */
export const Cursor = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER).nullable();

/** The ids of one kind of stream, `kind` its prefix (letters and digits: it names the version too). */
export function streamIds<T>(kind: string, schema: z.ZodType<T>): StreamIds<T> {
  const prefix = `${kind}.`;
  const refuse = (msg: string) => invalid('SVC_ERR_VALIDATION', [{ loc: ['header', 'last-event-id'], msg, type: 'value_error' }]);
  return {
    encode: (position) => prefix + Buffer.from(JSON.stringify(position)).toString('base64url'),
    decode(lastEventId) {
      if (lastEventId === undefined || lastEventId === '') return null;
      if (typeof lastEventId !== 'string') throw refuse('Last-Event-ID must be sent once');
      if (!lastEventId.startsWith(prefix)) throw refuse('Last-Event-ID is not an id of this stream: send the id of the last frame this stream sent you');
      let json: unknown;
      try {
        json = JSON.parse(Buffer.from(lastEventId.slice(prefix.length), 'base64url').toString('utf8'));
      } catch {
        throw refuse('Last-Event-ID is damaged: send the id exactly as the stream sent it');
      }
      const parsed = schema.safeParse(json);
      if (!parsed.success) throw refuse('Last-Event-ID is damaged: send the id exactly as the stream sent it');
      return parsed.data;
    },
  };
}
