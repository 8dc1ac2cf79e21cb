/**
 * Each identity's contacts (`/v1/contacts`), loaded when a "to" field first needs them, and the
 * recipient suggestions built from them and from the identities on this node. Of two reads on
 * their way for one identity (the compose and the chat dialog opened one after the other), the
 * later one is shown whatever order they answer in, and a contact added while a read was on its
 * way stays: the read left the node before the contact was there.
 */
import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import type { Contact } from '../api/contacts.ts';
import { buildSuggestions } from '../lib/recipients.ts';
import type { Suggestion } from '../lib/recipients.ts';
import { useDirectoryStore } from './directory.ts';
import { useSessionStore } from './session.ts';

/** One read of an identity's contacts, and what was added after it left. */
interface ContactsRead {
  added: Contact[];
}

export const useContactsStore = defineStore('contacts', () => {
  const session = useSessionStore();
  const directory = useDirectoryStore();
  const byAgent = ref<Record<string, Contact[]>>({});
  /** Each identity's latest read: only its answer is shown. */
  const reads = new Map<string, ContactsRead>();

  async function load(agentId: string): Promise<Contact[]> {
    const read: ContactsRead = { added: [] };
    reads.set(agentId, read);
    try {
      const answer = await session.asIdentity(agentId).contacts.list();
      // A later read is on its way: its answer is the one shown.
      if (reads.get(agentId) !== read) return byAgent.value[agentId] ?? answer;
      const contacts = [...answer, ...read.added.filter((added) => !answer.some((c) => c.contact_id === added.contact_id))];
      byAgent.value = { ...byAgent.value, [agentId]: contacts };
      return contacts;
    } catch {
      // Suggestions still come from this node's identities; typing an address always works.
      return byAgent.value[agentId] ?? [];
    }
  }

  async function add(agentId: string, address: string, label = ''): Promise<Contact> {
    const contact = await session.asIdentity(agentId).contacts.add(address, label);
    reads.get(agentId)?.added.push(contact);
    byAgent.value = { ...byAgent.value, [agentId]: [...(byAgent.value[agentId] ?? []), contact] };
    return contact;
  }

  /** Who the current identity can write to, for autocomplete. */
  const suggestions = computed<Suggestion[]>(() => {
    const me = directory.currentIdentity;
    const contacts = me === null ? [] : (byAgent.value[me.agent_id] ?? []);
    return buildSuggestions(me, directory.identities, contacts);
  });

  return { byAgent, load, add, suggestions };
});
