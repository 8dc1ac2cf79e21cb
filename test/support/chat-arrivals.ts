/** Waiting for a chat message to arrive in one of an identity's sessions, over the HTTP API. */
import { expect } from 'vitest';
import { expectOk } from './expect.ts';
import type { TestNode } from './node.ts';

export const sessionsOf = async (t: TestNode, token: string) => expectOk(await t.request('GET', '/v1/chat/sessions', { token })).sessions as any[];
export const historyOf = async (t: TestNode, token: string, sessionId: string) =>
  expectOk(await t.request('GET', `/v1/chat/sessions/${sessionId}/messages`, { token })).messages as any[];

/** The message `id` once it has arrived in one of `token`'s sessions (polled up to `wait`), with that session. */
export async function arrived(t: TestNode, token: string, id: string, wait = { timeout: 15_000, interval: 25 }): Promise<{ sessionId: string; message: any }> {
  let found: { sessionId: string; message: any } | undefined;
  await expect
    .poll(async () => {
      for (const session of await sessionsOf(t, token)) {
        const message = (await historyOf(t, token, session.session_id)).find((m) => m.message_id === id);
        if (message !== undefined) found = { sessionId: session.session_id, message };
      }
      return found;
    }, wait)
    .toBeDefined();
  return found!;
}
