/**
 * The owner API's team contract agrees with the node: a body the node is asked to sign is bounded
 * by the listeners' own body limit, and the scopes are the ones the node grants.
 */
import { describe, expect, it } from 'vitest';
import { BODY_LIMIT_BYTES } from '../../server/http/limits.ts';
import { DEFAULT_MEMBER_SCOPES, SCOPE_GRANTS } from '../../server/teams/scopes.ts';
import { SIGNED_BODY_MAX_BYTES, SignBody, TEAM_SCOPES } from './teams.ts';

describe('contract/node/teams', () => {
  it('refuses to sign a body no listener would take', () => {
    expect(SIGNED_BODY_MAX_BYTES).toBe(BODY_LIMIT_BYTES);
    expect(SignBody.safeParse({ method: 'POST', path: '/v1/profiles', body: 'x'.repeat(BODY_LIMIT_BYTES) }).success).toBe(true);
    expect(SignBody.safeParse({ method: 'POST', path: '/v1/profiles', body: 'x'.repeat(BODY_LIMIT_BYTES + 1) }).success).toBe(false);
  });

  it('names every scope the node grants, and nothing else', () => {
    expect(Object.keys(SCOPE_GRANTS).sort()).toEqual([...TEAM_SCOPES].sort());
    expect(DEFAULT_MEMBER_SCOPES.every((scope) => TEAM_SCOPES.includes(scope))).toBe(true);
  });
});
