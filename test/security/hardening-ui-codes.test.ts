/**
 * One-time UI codes: the code printed at start never expired while the process ran,
 * and every `svc-node ui` (POST /v1/node/ui-link) added another that stayed good, so a link left in
 * a terminal's scrollback or a shell history opened the owner's UI hours later. Codes now expire
 * after UI_CODE_TTL_MS (5 minutes) on the node's clock, and at most MAX_UI_CODES (32) are
 * outstanding; the oldest is dropped. The node runs on a clock the test moves.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_UI_CODES, UI_CODE_TTL_MS } from '../../server/auth/owner.ts';
import { expectOk, expectRefusal } from '../support/expect.ts';
import { startTestNode, type TestNode } from '../support/node.ts';

let offsetMs = 0;
const clock = { now: () => new Date(Date.now() + offsetMs) };
let t: TestNode;
let startCode: string;

const SESSION = /^svc_os_[0-9a-f]{64}$/;
const codeOf = (url: string): string => new URL(url).hash.replace(/^#code=/, '');
const newCode = async (): Promise<string> => codeOf(expectOk(await t.owner('POST', '/v1/node/ui-link')).ui_url);
const redeem = (code: string) => t.request('POST', '/v1/node/session', { body: { code } });

beforeAll(async () => {
  t = await startTestNode({ clock });
  startCode = codeOf(t.node.info.ui_url);
});
afterAll(async () => {
  await t.stop();
});

describe('one-time UI codes', () => {
  it('expire after 5 minutes, the one printed at start included, with a refusal that says what to do', async () => {
    expect(UI_CODE_TTL_MS).toBe(5 * 60 * 1000);
    const fresh = await newCode();
    offsetMs += UI_CODE_TTL_MS - 1000;
    expect(expectOk(await redeem(fresh)).session_token).toMatch(SESSION);
    const late = await newCode();
    offsetMs += 2000;
    expectRefusal(await redeem(startCode), 401, /expired.*svc-node ui/, 'SVC_ERR_UI_LINK_EXPIRED');
    // Once refused, it is gone like a used one.
    expectRefusal(await redeem(startCode), 401, /already used or is unknown/, 'SVC_ERR_UI_LINK_INVALID');
    // A code issued later than the start's is still good.
    expect(expectOk(await redeem(late)).session_token).toMatch(SESSION);

    const stale = await newCode();
    offsetMs += UI_CODE_TTL_MS;
    expectRefusal(await redeem(stale), 401, /expired.*svc-node ui/, 'SVC_ERR_UI_LINK_EXPIRED');
  });

  it('are used once', async () => {
    const code = await newCode();
    expectOk(await redeem(code));
    expectRefusal(await redeem(code), 401, /already used or is unknown/, 'SVC_ERR_UI_LINK_INVALID');
  });

  it(`are at most ${MAX_UI_CODES} outstanding: issuing more forgets the oldest`, async () => {
    expect(MAX_UI_CODES).toBe(32);
    const codes: string[] = [];
    for (let i = 0; i < MAX_UI_CODES + 8; i++) codes.push(t.node.uiLink());
    const issued = codes.map((url) => codeOf(url));
    for (const dropped of issued.slice(0, 8)) expectRefusal(await redeem(dropped), 401, /already used or is unknown/, 'SVC_ERR_UI_LINK_INVALID');
    for (const kept of issued.slice(8)) expect(expectOk(await redeem(kept)).session_token).toMatch(SESSION);
  });
});
