/**
 * Control signals (spec §4.5): queued for an identity of the caller's project by alias and
 * stored until one event stream takes them (test/api/events.test.ts covers delivery).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openNodeDatabase } from '../support/database.ts';
import { expectOk, expectRefusal, expectValidation } from '../support/expect.ts';
import { createIdentity, createProject, type Project } from '../support/identities.ts';
import { startTestNode, type TestNode } from '../support/node.ts';

let t: TestNode;
let alpha: Project;
let beta: Project;
let lead: any;
let worker: any;
const sent: { signal_id: string; signal: string }[] = [];

beforeAll(async () => {
  t = await startTestNode();
  alpha = await createProject(t, 'control-alpha');
  beta = await createProject(t, 'control-beta');
  lead = await createIdentity(t, alpha.api_key, { alias: 'lead' });
  worker = await createIdentity(t, alpha.api_key, { alias: 'worker' });
  await createIdentity(t, beta.api_key, { alias: 'stranger' });
});
afterAll(async () => {
  await t.stop({ keepData: true });
  // What was stored, as the database holds it.
  const { db, close } = await openNodeDatabase(t.dataDir);
  try {
    const rows = db.prepare(`SELECT signal_id, signal, target_agent_id, from_agent_id, consumed_at FROM control_signals ORDER BY id`).all();
    expect(rows).toEqual(sent.map((s) => ({ ...s, target_agent_id: worker.agent_id, from_agent_id: lead.agent_id, consumed_at: null })));
  } finally {
    close();
    t.removeData();
  }
});

const control = (token: string | undefined, alias: string, body: unknown) =>
  t.request('POST', `/v1/agents/${alias}/control`, { ...(token ? { token } : {}), body });

describe('POST /v1/agents/{alias}/control', () => {
  it('queues pause, resume and interrupt for an identity of the same project', async () => {
    for (const signal of ['pause', 'resume', 'interrupt']) {
      const queued = expectOk(await control(lead.api_key, 'worker', { signal }));
      expect(queued).toEqual({ signal_id: expect.stringMatching(/^[0-9a-f-]{36}$/), signal, target_alias: 'worker', created_at: expect.any(String) });
      sent.push({ signal_id: queued.signal_id, signal });
    }
    expect(new Set(sent.map((s) => s.signal_id)).size).toBe(3);
  });

  it('refuses a signal outside pause|resume|interrupt, a missing one, extra fields (422)', async () => {
    expectValidation(await control(lead.api_key, 'worker', { signal: 'stop' }), 'signal');
    expectValidation(await control(lead.api_key, 'worker', { signal: 'PAUSE' }), 'signal');
    expectValidation(await control(lead.api_key, 'worker', {}), 'signal');
    expectValidation(await control(lead.api_key, 'worker', { signal: 'pause', reason: 'x' }), 'reason');
    expectValidation(await control(lead.api_key, 'bad alias!', { signal: 'pause' }), 'alias');
  });

  it("answers 404 for an unknown alias or another project's identity", async () => {
    expectRefusal(await control(lead.api_key, 'nobody', { signal: 'pause' }), 404, /alias nobody/, 'SVC_ERR_RECIPIENT_NOT_FOUND');
    expectRefusal(await control(lead.api_key, 'stranger', { signal: 'pause' }), 404, /alias stranger/, 'SVC_ERR_RECIPIENT_NOT_FOUND');
  });

  it('refuses no key or a bad key (401) and a project key (403)', async () => {
    expectRefusal(await control(undefined, 'worker', { signal: 'pause' }), 401);
    expectRefusal(await control(`svc_sk_${'b'.repeat(64)}`, 'worker', { signal: 'pause' }), 401);
    expectRefusal(await control(alpha.api_key, 'worker', { signal: 'pause' }), 403);
  });
});
