/**
 * Messaging's lookups on a real encrypted database: the newest live identity a selector names
 * (deleted ones never, a reused alias the newest), and contact entries admitting a sender.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hasContactAmong, liveIdentityByAlias, liveIdentityByDidKey, liveIdentityByStableId } from './recipients.ts';
import { addIdentity, useStoreDatabase } from '../../../../../test/support/store-database.ts';

const db = useStoreDatabase();

describe('the messaging store', () => {
  it('finds the newest identity that is not deleted, by alias in a project, did:key or did:svc', () => {
    const project = randomUUID();
    const gone = addIdentity(db(), { alias: 'ann', project_id: project, status: 'deleted', created_at: '2026-01-01T00:00:00.000Z' });
    const ann = addIdentity(db(), { alias: 'ann', project_id: project, did_aw: `did:svc:${randomUUID()}`, created_at: '2026-01-02T00:00:00.000Z' });
    expect(liveIdentityByAlias(db(), project, 'ann')?.agent_id).toBe(ann.agent_id);
    expect(liveIdentityByAlias(db(), randomUUID(), 'ann')).toBeUndefined();
    expect(liveIdentityByDidKey(db(), ann.did_key)?.agent_id).toBe(ann.agent_id);
    expect(liveIdentityByDidKey(db(), gone.did_key)).toBeUndefined();
    expect(liveIdentityByStableId(db(), ann.did_aw!)?.agent_id).toBe(ann.agent_id);

    // A replaced identity is still live, so its key finds the newest holder of it.
    const older = addIdentity(db(), { alias: 'old', status: 'archived', created_at: '2026-01-01T00:00:00.000Z' });
    const newer = addIdentity(db(), { alias: 'new', did_key: older.did_key, created_at: '2026-01-03T00:00:00.000Z' });
    expect(liveIdentityByDidKey(db(), older.did_key)?.agent_id).toBe(newer.agent_id);
  });

  it('says whether one of the owner contact entries is among the keys', () => {
    const [owner, other] = [addIdentity(db(), { alias: 'own' }), addIdentity(db(), { alias: 'oth' })];
    db()
      .prepare(`INSERT INTO contacts (contact_id, owner_agent_id, contact_address, created_at) VALUES (?, ?, ?, ?)`)
      .run(randomUUID(), owner.agent_id, 'b.test', '2026-01-01T00:00:00.000Z');
    expect(hasContactAmong(db(), owner.agent_id, ['did:key:zX', 'b.test/carol', 'b.test'])).toBe(true);
    expect(hasContactAmong(db(), owner.agent_id, ['did:key:zX'])).toBe(false);
    expect(hasContactAmong(db(), other.agent_id, ['b.test'])).toBe(false);
  });
});
