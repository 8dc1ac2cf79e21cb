/**
 * Mail between identities in API tests over real HTTP: a send as one identity, its inbox, and
 * waiting for one message to arrive there (on its node, another node, or a linked device).
 */
import { expect } from 'vitest';
import { expectOk } from './expect.ts';
import type { NodeEndpoint } from './node.ts';

/** How long a message may take to arrive (a federation hop, a device's sync), polled every 25 ms. */
export const ARRIVAL = { timeout: 15_000, interval: 25 };

/** Sends mail as the identity of `token`; the message id. */
export async function sendMail(from: NodeEndpoint, token: string, body: Record<string, unknown>): Promise<string> {
  return expectOk(await from.request('POST', '/v1/messages', { token, body })).message_id as string;
}

/** The identity's inbox, newest first (up to 100). */
export async function inboxOf(t: NodeEndpoint, token: string): Promise<any[]> {
  return expectOk(await t.request('GET', '/v1/messages/inbox?limit=100', { token })).messages as any[];
}

/** The message `id` in the inbox, or undefined. */
export async function inInbox(t: NodeEndpoint, token: string, id: string): Promise<any> {
  return (await inboxOf(t, token)).find((m) => m.message_id === id);
}

/** The message `id` once it is in the inbox (the test fails when it does not arrive in time). */
export async function arrivedMail(t: NodeEndpoint, token: string, id: string, wait = ARRIVAL): Promise<any> {
  await expect.poll(() => inInbox(t, token, id), wait).toBeDefined();
  return inInbox(t, token, id);
}
