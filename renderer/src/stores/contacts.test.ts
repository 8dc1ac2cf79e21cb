// @vitest-environment jsdom
/**
 * Contacts: each identity's, loaded when needed, kept on a failed read, the latest read shown
 * whatever order the answers come in (with what was added meanwhile), and the suggestions they make.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { ApiError } from '../api/errors.ts';
import { useContactsStore } from './contacts.ts';
import { useDirectoryStore } from './directory.ts';
import type { Contact } from '../api/contacts.ts';
import { connectFakeNode, contact, deferred, identity, type FakeNode } from './test-client.ts';

let node: FakeNode;

beforeEach(async () => {
  window.localStorage.clear();
  window.sessionStorage.clear();
  node = connectFakeNode();
  node.holdsIdentities(identity('ada'), identity('bo'));
  await useDirectoryStore().load();
});

describe('contacts store', () => {
  it('keeps each identity’s contacts apart', async () => {
    node.contacts.list = async () => [contact('far.example/cy')];
    const contacts = useContactsStore();
    await contacts.load('agent-ada');
    node.contacts.list = async () => [contact('far.example/dee')];
    await contacts.load('agent-bo');
    expect(contacts.byAgent['agent-ada']?.map((c) => c.contact_address)).toEqual(['far.example/cy']);
    expect(contacts.byAgent['agent-bo']?.map((c) => c.contact_address)).toEqual(['far.example/dee']);
    expect(node.callsTo('contacts', 'list').map((c) => c.as)).toEqual(['agent-ada', 'agent-bo']);
  });

  it('keeps the contacts it had when a read fails', async () => {
    node.contacts.list = async () => [contact('far.example/cy')];
    const contacts = useContactsStore();
    await contacts.load('agent-ada');
    node.contacts.list = async () => {
      throw new ApiError(0, 'The node can’t be reached.');
    };
    expect((await contacts.load('agent-ada')).map((c) => c.contact_address)).toEqual(['far.example/cy']);
    expect(await contacts.load('agent-new')).toEqual([]);
  });

  it('shows the contacts read last, whatever order the answers come in', async () => {
    const slow = deferred<Contact[]>();
    node.contacts.list = () => slow.promise;
    const contacts = useContactsStore();
    const first = contacts.load('agent-ada');
    node.contacts.list = async () => [contact('far.example/cy'), contact('far.example/dee')];
    await contacts.load('agent-ada');
    slow.resolve([contact('far.example/cy')]);
    await first;
    expect(contacts.byAgent['agent-ada']?.map((c) => c.contact_address)).toEqual(['far.example/cy', 'far.example/dee']);
  });

  it('keeps a contact added while the contacts were being read', async () => {
    const slow = deferred<Contact[]>();
    node.contacts.list = () => slow.promise;
    node.contacts.add = async (address) => contact(address);
    const contacts = useContactsStore();
    const reading = contacts.load('agent-ada');
    await contacts.add('agent-ada', 'far.example/dee');
    // The read left the node before the contact was added: it does not have it.
    slow.resolve([contact('far.example/cy')]);
    expect((await reading).map((c) => c.contact_address)).toEqual(['far.example/cy', 'far.example/dee']);
    expect(contacts.byAgent['agent-ada']?.map((c) => c.contact_address)).toEqual(['far.example/cy', 'far.example/dee']);
  });

  it('adds a contact as the node stored it, and suggests it beside the other identities', async () => {
    node.contacts.list = async () => [];
    node.contacts.add = async (address, label) => contact(address.toLowerCase(), { label });
    const contacts = useContactsStore();
    await contacts.load('agent-ada');
    const added = await contacts.add('agent-ada', 'Far.example/cy', 'Cy');
    expect(added.contact_address).toBe('far.example/cy');
    expect(node.callsTo('contacts', 'add')[0]).toMatchObject({ args: ['Far.example/cy', 'Cy'], as: 'agent-ada' });
    expect(contacts.suggestions.map((s) => [s.value, s.source])).toEqual([
      ['example.com/bo', 'identity'],
      ['far.example/cy', 'contact'],
    ]);
  });

  it('leaves the contacts as they were when the node refuses one', async () => {
    node.contacts.list = async () => [contact('far.example/cy')];
    node.contacts.add = async () => {
      throw new ApiError(409, 'far.example/cy is already a contact', [], 'SVC_ERR_CONTACT_EXISTS');
    };
    const contacts = useContactsStore();
    await contacts.load('agent-ada');
    await expect(contacts.add('agent-ada', 'far.example/cy')).rejects.toThrow('far.example/cy is already a contact');
    expect(contacts.byAgent['agent-ada']).toHaveLength(1);
  });
});
