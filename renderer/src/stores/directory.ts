/**
 * What the node holds that the Identities view shows: identities (with their encryption keys'
 * health, rotated through useEncryptionKeys, and whether each accepts plaintext mail,
 * usePlaintextSetting), projects and namespaces, plus the identity
 * currently chosen in the sidebar switcher.
 */
import { defineStore } from 'pinia';
import { computed, ref, watch } from 'vue';
import type {
  CreatedIdentity,
  CreatedProject,
  CreateIdentityInput,
  CreateProjectInput,
  Identity,
  Namespace,
  NodeIdentity,
  ProjectListItem,
  SetupInput,
  SetupResult,
} from '../api/owner.ts';
import { useEncryptionKeys } from '../composables/useEncryptionKeys.ts';
import { usePlaintextSetting } from '../composables/usePlaintextSetting.ts';
import { errorMessage } from '../lib/format.ts';
import { newestRead } from '../lib/newest-read.ts';
import { useSessionStore } from './session.ts';

function currentIdentityKey(): string {
  return `svc-node.current-identity@${window.location.origin}`;
}

/**
 * Who this tab acts as. Each tab keeps its own choice (sessionStorage: it survives a reload of
 * that tab, and no other tab sees it), so reloading a tab no longer switches it to whatever was
 * last chosen in another one; the last choice anywhere (localStorage) only starts a new tab.
 */
function storedIdentity(): string | null {
  return window.sessionStorage.getItem(currentIdentityKey()) ?? window.localStorage.getItem(currentIdentityKey());
}

function storeIdentity(id: string | null): void {
  for (const storage of [window.sessionStorage, window.localStorage]) {
    if (id === null) storage.removeItem(currentIdentityKey());
    else storage.setItem(currentIdentityKey(), id);
  }
}

export const useDirectoryStore = defineStore('directory', () => {
  const session = useSessionStore();

  const identities = ref<NodeIdentity[]>([]);
  const projects = ref<ProjectListItem[]>([]);
  const namespaces = ref<Namespace[]>([]);
  /** False until the first load finished (so empty states do not flash before data arrives). */
  const loaded = ref(false);
  const loading = ref(false);
  /** The last load failure, in words. */
  const loadError = ref<string | null>(null);
  const currentIdentityId = ref<string | null>(storedIdentity());

  watch(currentIdentityId, storeIdentity);

  /** Identities that can act (the switcher offers only these). */
  const activeIdentities = computed(() => identities.value.filter((identity) => identity.status === 'active'));

  const currentIdentity = computed<Identity | null>(() => {
    const list = activeIdentities.value;
    return list.find((identity) => identity.identity_id === currentIdentityId.value) ?? list[0] ?? null;
  });

  /** Namespaces whose controller key this node holds: the ones a project can be bound to. */
  const nodeNamespaces = computed(() => namespaces.value.filter((namespace) => namespace.node_controlled));

  /** An answer older than one asked for since (after a create) is dropped; its caller waits for the newest. */
  const { nodeHoldsKeys, rotateEncryptionKey } = useEncryptionKeys(identities, () => session.api());
  const { setAcceptsPlaintext } = usePlaintextSetting(identities, () => session.api());

  const load = newestRead(async (newest) => {
    loading.value = true;
    try {
      const api = session.api();
      const [nextIdentities, nextProjects, nextNamespaces] = await Promise.all([api.identities(), api.projects(), api.namespaces()]);
      if (!newest()) return;
      identities.value = nextIdentities;
      projects.value = nextProjects;
      namespaces.value = nextNamespaces;
      loadError.value = null;
    } catch (error) {
      if (newest()) loadError.value = errorMessage(error);
    } finally {
      if (newest()) {
        loading.value = false;
        loaded.value = true;
      }
    }
  });

  async function createProject(input: CreateProjectInput): Promise<CreatedProject> {
    const created = await session.api().createProject(input);
    await load();
    return created;
  }

  async function createIdentity(input: CreateIdentityInput): Promise<CreatedIdentity> {
    const created = await session.api().createIdentity(input);
    await load();
    if (currentIdentityId.value === null) currentIdentityId.value = created.identity_id;
    return created;
  }

  async function createNamespace(domain: string, controllerDid?: string): Promise<Namespace> {
    const created = await session.api().createNamespace(domain, controllerDid);
    await load();
    return created;
  }

  function selectIdentity(id: string): void {
    currentIdentityId.value = id;
  }

  /** The first-run flow's one step (SetupView): then this tab acts as the new identity. */
  async function setUp(input: SetupInput): Promise<SetupResult> {
    const result = await session.api().setup(input);
    await load();
    currentIdentityId.value = result.identity.identity_id;
    return result;
  }

  return {
    identities,
    projects,
    namespaces,
    loaded,
    loading,
    loadError,
    activeIdentities,
    currentIdentity,
    nodeNamespaces,
    nodeHoldsKeys,
    load,
    createProject,
    createIdentity,
    createNamespace,
    selectIdentity,
    rotateEncryptionKey,
    setAcceptsPlaintext,
    setUp,
  };
});
