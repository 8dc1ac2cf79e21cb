/**
 * The teams this node holds, and the one chosen (remembered per node origin). The Shelf and
 * Documents both act as the chosen team's owner member, so they share this choice.
 */
import { defineStore } from 'pinia';
import { computed, ref, watch } from 'vue';
import type { CreateTeamInput, Team } from '../api/owner.ts';
import { errorMessage } from '../lib/format.ts';
import { newestRead } from '../lib/newest-read.ts';
import { useLiveStore } from './live.ts';
import { useSessionStore } from './session.ts';

function teamStorageKey(): string {
  return `svc-node.current-team@${window.location.origin}`;
}

export const useTeamsStore = defineStore('teams', () => {
  const session = useSessionStore();

  const teams = ref<Team[]>([]);
  const loaded = ref(false);
  const error = ref<string | null>(null);
  const chosenTeamId = ref<string | null>(window.localStorage.getItem(teamStorageKey()));
  const team = computed<Team | null>(() => teams.value.find((t) => t.team_id === chosenTeamId.value) ?? teams.value[0] ?? null);
  const teamId = computed(() => team.value?.team_id ?? null);

  watch(chosenTeamId, (id) => {
    if (id === null) window.localStorage.removeItem(teamStorageKey());
    else window.localStorage.setItem(teamStorageKey(), id);
  });

  /** An answer older than one asked for since (a nudge's) is dropped; its caller waits for the newest. */
  const load = newestRead(async (newest) => {
    try {
      const list = await session.api().teams();
      if (!newest()) return;
      teams.value = list;
      error.value = null;
    } catch (failure) {
      if (newest()) error.value = errorMessage(failure);
    } finally {
      if (newest()) loaded.value = true;
    }
  });

  async function create(input: CreateTeamInput): Promise<Team> {
    const created = await session.api().createTeam(input);
    await load();
    chosenTeamId.value = created.team_id;
    return created;
  }

  function choose(id: string): void {
    chosenTeamId.value = id;
  }

  // Teams made or changed elsewhere (`svc-node team create`, another window) show up live; after a
  // reconnect nothing is replayed, so the list is read again then too.
  const live = useLiveStore();
  live.onChange((change) => {
    if (change.kind === 'teams_changed') void load();
  });
  live.onOpen(() => {
    if (loaded.value) void load();
  });

  return { teams, loaded, error, team, teamId, load, create, choose };
});
