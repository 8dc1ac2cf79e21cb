import { describe, expect, it } from 'vitest';
import type { Contact } from '../api/contacts.ts';
import type { Identity } from '../api/owner.ts';
import {
  buildSuggestions,
  filterSuggestions,
  addressFromEmail,
  parseRecipient,
  recipientFields,
  recipientKind,
  selectorFor,
  splitRecipients,
} from './recipients.ts';

function identity(name: string, extra: Partial<Identity> = {}): Identity {
  return {
    identity_id: `id-${name}`,
    agent_id: `agent-${name}`,
    project_id: 'p1',
    project_slug: 'acme',
    alias: name,
    name,
    lifetime: 'persistent',
    status: 'active',
    custody: 'custodial',
    did_key: `did:key:z6Mk${name}`,
    did_aw: `did:svc:${name}`,
    address: `acme.test/${name}`,
    address_reachability: 'public',
    accepts_plaintext: true,
    human_name: '',
    role: null,
    program: null,
    context: null,
    successor_agent_id: null,
    created_at: '2026-01-01T00:00:00Z',
    ...extra,
  };
}

const contact = (address: string, label = ''): Contact => ({ contact_id: address, contact_address: address, label, created_at: '' });

describe('recipientKind', () => {
  it('tells addresses, aliases and dids apart, and refuses the rest', () => {
    expect(recipientKind('acme.test/bob')).toBe('address');
    expect(recipientKind(' bob ')).toBe('alias');
    expect(recipientKind('did:svc:3Ht7eW')).toBe('did');
    expect(recipientKind('did:key:z6MkhaXg')).toBe('did');
    expect(recipientKind('bob smith')).toBeNull();
    expect(recipientKind('acme.test/')).toBeNull();
    expect(recipientKind('/bob')).toBeNull();
    expect(recipientKind('did:web:x')).toBeNull();
    // By the node's own rules: `local` is a namespace, a setup's `.local` one too; bad names are not.
    expect(recipientKind('local/bob')).toBe('address');
    expect(recipientKind('node-1f2e3d4c.local/alice')).toBe('address');
    expect(recipientKind('Acme.Test/bob')).toBe('address');
    expect(recipientKind('acme/bob')).toBeNull();
    expect(recipientKind('acme.test/bob.smith')).toBeNull();
    expect(recipientKind('-acme.test/bob')).toBeNull();
  });
});

describe('selectorFor and buildSuggestions', () => {
  const alice = identity('alice');
  const bob = identity('bob');
  const carol = identity('carol', { address: null });
  const dave = identity('dave', { address: null, project_id: 'p2' });
  const old = identity('old', { status: 'archived' });

  it('reaches an identity by address, else alias in my project, else did', () => {
    expect(selectorFor(alice, bob)).toEqual({ value: 'acme.test/bob', kind: 'address', label: 'bob' });
    expect(selectorFor(alice, carol)).toEqual({ value: 'carol', kind: 'alias', label: 'carol' });
    expect(selectorFor(alice, dave)).toEqual({ value: 'did:svc:dave', kind: 'did', label: 'dave' });
  });

  it('offers the other active identities, then contacts not already listed', () => {
    const suggestions = buildSuggestions(alice, [alice, bob, carol, old], [contact('acme.test/bob'), contact('other.test/zed', 'Zed'), contact('other.test')]);
    expect(suggestions.map((s) => [s.value, s.source])).toEqual([
      ['acme.test/bob', 'identity'],
      ['carol', 'identity'],
      ['other.test/zed', 'contact'],
    ]);
    expect(suggestions[2]?.label).toBe('Zed');
  });
});

describe('filterSuggestions', () => {
  const suggestions = buildSuggestions(null, [identity('bob'), identity('robert'), identity('alice')], []);

  it('puts prefix matches first, then substring matches, without chosen ones', () => {
    expect(filterSuggestions(suggestions, 'b', []).map((s) => s.label)).toEqual(['bob', 'robert']);
    expect(filterSuggestions(suggestions, 'ob', []).map((s) => s.label)).toEqual(['bob', 'robert']);
    expect(filterSuggestions(suggestions, 'rob', []).map((s) => s.label)).toEqual(['robert']);
    expect(filterSuggestions(suggestions, '', [{ value: 'acme.test/bob', kind: 'address', label: 'bob' }]).map((s) => s.label)).toEqual(['robert', 'alice']);
  });

  it('matches the address name part too', () => {
    expect(filterSuggestions(suggestions, 'acme.test/al', []).map((s) => s.label)).toEqual(['alice']);
  });
});

describe('parseRecipient', () => {
  const suggestions = buildSuggestions(null, [identity('bob', { name: 'Bob' })], []);

  it('prefers a known suggestion, by value or by its name', () => {
    expect(parseRecipient('acme.test/bob', suggestions)).toEqual({ value: 'acme.test/bob', kind: 'address', label: 'Bob' });
    expect(parseRecipient('bob', suggestions)).toEqual({ value: 'acme.test/bob', kind: 'address', label: 'Bob' });
  });

  it('accepts anything shaped like a recipient, and explains what is not', () => {
    expect(parseRecipient('elsewhere.test/zed', [])).toEqual({ value: 'elsewhere.test/zed', kind: 'address', label: null });
    expect(parseRecipient('carol', [])).toEqual({ value: 'carol', kind: 'alias', label: null });
    expect(parseRecipient('not valid!', [])).toEqual({ error: expect.stringContaining('not an address') });
    expect(parseRecipient('  ', [])).toEqual({ error: expect.stringContaining('Enter an address') });
  });
});

describe('splitRecipients and recipientFields', () => {
  it('splits pasted lists', () => {
    expect(splitRecipients('a.test/x, bob; did:svc:1\n carol ')).toEqual(['a.test/x', 'bob', 'did:svc:1', 'carol']);
    expect(splitRecipients('bob smith')).toEqual(['bob smith']);
  });

  it('puts each recipient in the list for its kind', () => {
    expect(
      recipientFields([
        { value: 'a.test/x', kind: 'address', label: null },
        { value: 'bob', kind: 'alias', label: null },
        { value: 'did:svc:1', kind: 'did', label: null },
        { value: 'b.test/y', kind: 'address', label: 'Y' },
      ]),
    ).toEqual({ to_addresses: ['a.test/x', 'b.test/y'], to_aliases: ['bob'], to_dids: ['did:svc:1'] });
  });
});

describe('addressFromEmail', () => {
  it('reads an e-mail-shaped entry as the address it likely means', () => {
    expect(addressFromEmail('carol@beta.test')).toBe('beta.test/carol');
    expect(addressFromEmail('  Carol@Beta.Test ')).toBe('beta.test/Carol');
    expect(addressFromEmail('mailto:carol@beta.test')).toBe('beta.test/carol');
    expect(addressFromEmail('<carol@beta.test>')).toBe('beta.test/carol');
  });

  it('offers nothing when the entry would not make an address either', () => {
    expect(addressFromEmail('beta.test/carol')).toBeNull();
    expect(addressFromEmail('carol')).toBeNull();
    expect(addressFromEmail('carol.smith@beta.test')).toBeNull(); // no dots in an address name
    expect(addressFromEmail('carol@-bad-.test')).toBeNull();
    expect(addressFromEmail('a@b@c.test')).toBeNull();
    expect(addressFromEmail('@beta.test')).toBeNull();
  });

  it('parseRecipient refuses it with the fix to offer', () => {
    const parsed = parseRecipient('carol@beta.test', []);
    expect(parsed).toMatchObject({ suggestion: 'beta.test/carol' });
    expect('error' in parsed && parsed.error).toContain('Did you mean beta.test/carol?');
    expect(parseRecipient('not an address!', [])).not.toHaveProperty('suggestion');
  });
});
