/** The control signals store on a real encrypted database: pending in row order, and consumed by exactly one caller. */
import { beforeAll, describe, expect, it } from 'vitest';
import { agentRow, useStoreDatabase } from '../../../../test/support/store-database.ts';
import { insertIdentity } from '../identities/store/agents.ts';
import { insertProject } from '../projects/store.ts';
import { consumeControlSignal, insertControlSignal, pendingControlSignals } from './store.ts';

const db = useStoreDatabase();

beforeAll(() => {
  insertProject(db(), { project_id: 'p', slug: 'p', name: 'p', namespace: null, created_at: '2026-01-01T00:00:00.000Z' });
  insertIdentity(db(), agentRow('from', 'p'));
  insertIdentity(db(), agentRow('to', 'p'));
});

describe('the control signals store', () => {
  it('keeps signals pending, oldest first, until one caller consumes each', () => {
    insertControlSignal(db(), { signal_id: 's1', target_agent_id: 'to', from_agent_id: 'from', signal: 'pause', created_at: '2026-01-01T00:00:01.000Z' });
    insertControlSignal(db(), { signal_id: 's2', target_agent_id: 'to', from_agent_id: 'from', signal: 'resume', created_at: '2026-01-01T00:00:00.000Z' });
    const pending = pendingControlSignals(db(), 'to');
    expect(pending.map((s) => s.signal_id)).toEqual(['s1', 's2']);
    expect(pending[0]).toMatchObject({ target_agent_id: 'to', from_agent_id: 'from', signal: 'pause', consumed_at: null });
    expect(pendingControlSignals(db(), 'from')).toEqual([]);

    const first = pending[0]!.id;
    expect(consumeControlSignal(db(), first, '2026-01-02T00:00:00.000Z')).toBe(true);
    expect(consumeControlSignal(db(), first, '2026-01-02T00:00:00.000Z')).toBe(false);
    expect(pendingControlSignals(db(), 'to').map((s) => s.signal_id)).toEqual(['s2']);
  });
});
