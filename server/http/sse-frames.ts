/**
 * What of a frame its contract lets out: every SSE frame is written as the schema its stream
 * declares for its event name parses it (contract/core/events.ts, contract/core/chat.ts), the way
 * a JSON answer is written as its route's response schema parses it (route-schemas.ts), so a
 * column spread into a frame stays on the node until the contract declares it.
 *
 * With `strict` (the test suites) a frame outside its schema, an undeclared key included, is not
 * written: the writer answers why, and the stream ends with an `error` frame saying so, so the
 * test reading it fails. In production a frame that does not parse is logged and sent as its
 * declared part (response-filter.ts): a stream is never ended for a drifted frame, since its
 * reader would only reconnect into the same frame. A frame under an event name its stream does
 * not declare has no declared part: it is logged and left out.
 *
 * Each frame is parsed once, where it is written; nothing is parsed per keepalive.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { z } from 'zod';
import { issuesOf } from './route-schemas.ts';
import { declaredPart, undeclaredPaths } from './response-filter.ts';

/** A stream's frames, each by its SSE event name. */
export type FrameSchemas = Readonly<Record<string, z.ZodType>>;

/** A frame, ready to write: its `data:` line's JSON; or, when it must not leave, why. */
export type WrittenFrame = { json: string } | { refused: string };

/**
 * Writes the frames of a stream declaring `frames`: strict (tests) refuses a frame outside its
 * schema, otherwise it is logged to `log` and cut to its declared part.
 */
export function frameWriter(frames: FrameSchemas, strict: boolean, log: Pick<FastifyBaseLogger, 'error'>): (event: string, data: unknown) => WrittenFrame {
  return (event, data) => {
    const schema = Object.hasOwn(frames, event) ? frames[event] : undefined;
    if (schema === undefined) {
      const refused = `frame "${event}" is not one this stream declares`;
      log.error({ event }, 'SSE frame outside its contract: not sent');
      return { refused };
    }
    const result = schema.safeParse(data);
    if (result.success) {
      if (!strict) return { json: JSON.stringify(result.data) };
      const undeclared = undeclaredPaths(data, result.data);
      if (undeclared.length === 0) return { json: JSON.stringify(result.data) };
      return refuse(
        log,
        event,
        undeclared.map((path) => `${path}: not declared`),
      );
    }
    // Issue paths and messages only: the values could be anything the stream's source held.
    const problems = issuesOf(result.error, 'body').map((issue) => `${issue.loc.slice(1).join('.')}: ${issue.msg}`);
    if (strict) return refuse(log, event, problems);
    log.error({ event, problems }, 'SSE frame outside its contract: sent its declared part');
    return { json: JSON.stringify(declaredPart(schema, data)) };
  };
}

function refuse(log: Pick<FastifyBaseLogger, 'error'>, event: string, problems: string[]): WrittenFrame {
  log.error({ event, problems }, 'SSE frame outside its contract: not sent (strict)');
  return { refused: `frame "${event}" outside its contract: ${problems.join('; ')}` };
}
