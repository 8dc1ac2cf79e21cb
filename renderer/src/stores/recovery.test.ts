// @vitest-environment jsdom
/** The recovery store: a kit is due while none was made or a key changed since, not before the node was asked, and not once a kit holds every key. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RecoveryKitStatus } from '../api/owner.ts';
import { useRecoveryStore } from './recovery.ts';
import { connectFakeNode, type FakeNode } from './test-client.ts';

let node: FakeNode;
let answer: RecoveryKitStatus;

beforeEach(() => {
  window.localStorage.clear();
  node = connectFakeNode();
  answer = { last_created_at: null, keys_changed_since: true };
  node.owner.recoveryKitStatus = async () => answer;
});
afterEach(() => useRecoveryStore().stop());

describe('recovery store', () => {
  it('says a kit is due only once the node said so, and no longer once a kit holds every key', async () => {
    const recovery = useRecoveryStore();
    expect(recovery.kitDue).toBe(false);
    recovery.start();
    await expect.poll(() => recovery.kitDue).toBe(true);
    answer = { last_created_at: '2026-12-07T20:00:00Z', keys_changed_since: false };
    await recovery.refresh();
    expect(recovery.kitDue).toBe(false);
    answer = { last_created_at: '2026-12-07T20:00:00Z', keys_changed_since: true };
    await recovery.refresh();
    expect(recovery.kitDue).toBe(true);
    expect(node.callsTo('owner', 'recoveryKitStatus')).toHaveLength(3);
  });

  it('keeps what it knew when the node cannot be asked', async () => {
    const recovery = useRecoveryStore();
    await recovery.refresh();
    expect(recovery.kitDue).toBe(true);
    node.owner.recoveryKitStatus = async () => {
      throw new Error('the node does not answer');
    };
    await recovery.refresh();
    expect(recovery.kitDue).toBe(true);
  });
});
