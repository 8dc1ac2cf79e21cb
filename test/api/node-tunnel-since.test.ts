/**
 * Settings said "Stopped since just now" for a tunnel stopped 20 minutes earlier: the node
 * answered the moment of asking as `since`. A stopped tunnel's `since` is when it stopped (or
 * when the node started without one), however late it is asked.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../server/clock.ts';
import { expectOk } from '../support/expect.ts';
import { startTestNode, type TestNode } from '../support/node.ts';

let t: TestNode;
let now = Date.parse('2026-11-25T10:00:00Z');
const clock: Clock = { now: () => new Date(now) };

beforeAll(async () => {
  t = await startTestNode({ clock });
});
afterAll(async () => {
  await t.stop();
});

describe('GET /v1/node/tunnel: when a stopped tunnel stopped', () => {
  it('keeps the time it stopped, not the time of asking', async () => {
    const started = expectOk(await t.owner('GET', '/v1/node/tunnel')).status;
    expect(started).toMatchObject({ state: 'stopped', since: '2026-11-25T10:00:00.000Z' });
    now += 20 * 60 * 1000;
    expect(expectOk(await t.owner('GET', '/v1/node/tunnel')).status.since).toBe('2026-11-25T10:00:00.000Z');
    // Saving settings does not start it, nor move the time.
    expectOk(await t.owner('PUT', '/v1/node/tunnel', { host: 'tunnel.invalid', username: 'svc', remote_port: 8080 }));
    now += 60 * 1000;
    expect(expectOk(await t.owner('GET', '/v1/node/tunnel')).status.since).toBe('2026-11-25T10:00:00.000Z');
  });
});
