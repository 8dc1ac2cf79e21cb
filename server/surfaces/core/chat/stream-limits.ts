/**
 * How many chat session streams one identity keeps open at once, across all its sessions. Each
 * holds a socket, buffers and a poll, like an event stream (events/stream-cap.ts), so one key
 * must not open them without end. A client streams the session it waits on, and the app the one
 * it shows; an agent in several conversations at once may watch a few more, so the cap is twice
 * the event streams'. Beyond it the identity's oldest session stream gets `superseded` and ends.
 */
export const SESSION_STREAMS_PER_IDENTITY = 16;
