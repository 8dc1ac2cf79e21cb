/**
 * What Mail and Chat share: load the view's store for the identity the switcher has chosen, and
 * apply a link into the view (from a notification or a search hit: `?identity=<agent_id>&<item>=<id>`,
 * and whatever else the view reads, Mail's `folder`) once, switching identity first when the link
 * is for another one.
 */
import { computed, ref, watch } from 'vue';
import { useRoute, useRouter } from 'vue-router';
import { useDirectoryStore } from '../stores/directory.ts';

export interface IdentityViewStore {
  loaded: boolean;
  agentId: string | null;
  show(agentId: string | null): Promise<void>;
}

export function useIdentityView(store: IdentityViewStore, itemParam: string, openItem: (id: string, params: Readonly<Record<string, string>>) => void) {
  const directory = useDirectoryStore();
  const route = useRoute();
  const router = useRouter();
  const me = computed(() => directory.currentIdentity);

  watch(
    [() => directory.loaded, () => me.value?.agent_id ?? null],
    ([loaded, agentId]) => {
      if (loaded) void store.show(agentId);
    },
    { immediate: true },
  );

  const intent = ref<{ identity: string | null; item: string | null; params: Record<string, string> } | null>(null);
  watch(
    () => route.query,
    (query) => {
      const identity = typeof query['identity'] === 'string' ? query['identity'] : null;
      const item = typeof query[itemParam] === 'string' ? query[itemParam] : null;
      if (identity === null && item === null) return;
      const params = Object.fromEntries(Object.entries(query).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
      intent.value = { identity, item, params };
      void router.replace({ query: {} });
    },
    { immediate: true },
  );
  watch(
    [intent, () => directory.loaded, () => store.loaded, () => store.agentId],
    () => {
      const wanted = intent.value;
      if (wanted === null || !directory.loaded) return;
      if (wanted.identity !== null && wanted.identity !== me.value?.agent_id) {
        const target = directory.activeIdentities.find((identity) => identity.agent_id === wanted.identity);
        if (target === undefined) {
          intent.value = null;
          return;
        }
        directory.selectIdentity(target.identity_id);
        return; // applied once that identity's view is loaded
      }
      if (!store.loaded || store.agentId !== (me.value?.agent_id ?? null)) return;
      intent.value = null;
      if (wanted.item !== null) openItem(wanted.item, wanted.params);
    },
    { immediate: true },
  );

  return { me };
}
