// @vitest-environment jsdom
/**
 * A team surface's requests are signed by the node as the team's owner member, for that surface:
 * a write names the identity chosen in the switcher, a read names nobody, and with no team chosen
 * nothing is signed.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { useDirectoryStore } from '../stores/directory.ts';
import { connectFakeNode, identity, type FakeNode } from '../stores/test-client.ts';
import { useTeamSigner } from './useTeamSigner.ts';

const CREW = 'crew:example.com';

let node: FakeNode;

beforeEach(async () => {
  window.localStorage.clear();
  window.sessionStorage.clear();
  node = connectFakeNode();
  node.holdsIdentities(identity('ada'));
  node.owner.signAsTeam = async () => ({ url: 'http://127.0.0.1:4000/v1/documents', headers: { authorization: 'signed' } });
  await useDirectoryStore().load();
});

describe('useTeamSigner', () => {
  it('has a write signed for the team and its surface, naming the identity chosen; a read names nobody', async () => {
    const sign = useTeamSigner('docs')(CREW);
    expect(await sign({ method: 'POST', path: '/v1/documents', body: '{}' })).toEqual({
      url: 'http://127.0.0.1:4000/v1/documents',
      headers: { authorization: 'signed' },
    });
    await sign({ method: 'GET', path: '/v1/documents' });
    expect(node.callsTo('owner', 'signAsTeam').map((c) => c.args)).toEqual([
      [CREW, { method: 'POST', path: '/v1/documents', body: '{}', acting_as: 'agent-ada' }, 'docs'],
      [CREW, { method: 'GET', path: '/v1/documents' }, 'docs'],
    ]);
  });

  it('signs nothing without a team, and says so', async () => {
    await expect(useTeamSigner('library')(null)({ method: 'GET', path: '/v1/profiles' })).rejects.toThrow('No team is chosen: create one first.');
    expect(node.callsTo('owner', 'signAsTeam')).toEqual([]);
  });
});
