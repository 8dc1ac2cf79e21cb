/**
 * Each identity's contacts (`/v1/contacts`), loaded when a "to" field first needs them, and the
 * recipient suggestions built from them and from the identities on this node.
 */
import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import type { Contact } from '../api/contacts.ts';
import { buildSuggestions } from '../lib/recipients.ts';
import type { Suggestion } from '../lib/recipients.ts';
import { useDirectoryStore } from './directory.ts';
import { useSessionStore } from './session.ts';

export const useContactsStore = defineStore('contacts', () => {
  const session = useSessionStore();
  const directory = useDirectoryStore();
  const byAgent = ref<Record<string, Contact[]>>({});

  async function load(agentId: string): Promise<Contact[]> {
    try {
      const contacts = await session.asIdentity(agentId).contacts.list();
      byAgent.value = { ...byAgent.value, [agentId]: contacts };
      return contacts;
    } catch {
      // Suggestions still come from this node's identities; typing an address always works.
      return byAgent.value[agentId] ?? [];
    }
  }

  async function add(agentId: string, address: string, label = ''): Promise<Contact> {
    const contact = await session.asIdentity(agentId).contacts.add(address, label);
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
