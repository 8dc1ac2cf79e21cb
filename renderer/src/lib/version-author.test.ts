import { describe, expect, it } from 'vitest';
import { authorLine } from './version-author.ts';

const base = { created_by_alias: 'owner', created_by_address: null, created_by_editor_name: null };

describe('authorLine', () => {
  it('names the identity the app acted as, not the owner member it signed with', () => {
    const line = authorLine({ ...base, source: 'api', author: { kind: 'identity', name: 'bob', address: 'acme.test/bob' } });
    expect(line).toEqual({ who: 'bob', how: 'saved', hint: 'Saved in this app as acme.test/bob' });
  });

  it('names an agent by its certificate', () => {
    const line = authorLine({ ...base, source: 'template', author: { kind: 'member', name: 'planner', address: 'acme.test/planner' } });
    expect(line).toEqual({ who: 'planner', how: 'from a template', hint: 'acme.test/planner' });
  });

  it('names a link visitor by what they typed, and an anonymous one as such, never the minter', () => {
    expect(authorLine({ ...base, source: 'present-link', author: { kind: 'link-editor', name: 'Zoë', address: null } }).who).toBe('Zoë');
    const anonymous = authorLine({ ...base, source: 'present-link', author: { kind: 'link-editor', name: null, address: null } });
    expect(anonymous).toMatchObject({ who: 'Someone with the link', how: 'through an editable link' });
    // A node without `author`: the same words from the older fields.
    expect(authorLine({ ...base, source: 'present-link' }).who).toBe('Someone with the link');
    expect(authorLine({ ...base, source: 'api', created_by_alias: 'alice' }).who).toBe('alice');
  });
});
