/**
 * The Shelf's sidebar badge: the open proposals of every team, refreshed when the app connects,
 * when the window comes back into view, every minute, after each decision and on every nudge
 * about a team's library. It also holds the chosen team's open proposals, for the shelf's
 * per-profile counts. The team whose shelf is shown (stores/shelf.ts, `show`) re-reads its
 * proposals with the rest of its shelf, once per burst of nudges; the others' are read here.
 */
import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import type { Proposal } from '../api/library.ts';
import { useLibrary } from '../composables/useLibrary.ts';
import { useLiveStore } from './live.ts';
import { useTeamsStore } from './teams.ts';

const POLL_MS = 60_000;

export const useProposalBadgeStore = defineStore('proposal-badge', () => {
  const teams = useTeamsStore();
  const library = useLibrary();

  /** team_id → its open proposals (the badge); `openProposals` holds the chosen team's. */
  const openCounts = ref<Record<string, number>>({});
  const openTotal = computed(() => Object.values(openCounts.value).reduce((sum, count) => sum + count, 0));
  const openProposals = ref<Proposal[]>([]);
  let shown: string | null = null;

  /** The shelf shows `id` now (a new team starts with no open proposals until they are read). */
  function show(id: string | null): void {
    shown = id;
    openProposals.value = [];
  }

  /** Open proposals of one team (and the chosen team's list, for the per-profile counts). */
  async function refresh(id: string): Promise<void> {
    try {
      const open = await library(id).proposals({ status: 'open' });
      openCounts.value = { ...openCounts.value, [id]: open.length };
      if (id === teams.teamId) openProposals.value = open;
    } catch {
      // The badge is a hint; the Proposals tab says what failed.
    }
  }

  async function refreshAll(): Promise<void> {
    await teams.load();
    const known = new Set(teams.teams.map((t) => t.team_id));
    openCounts.value = Object.fromEntries(Object.entries(openCounts.value).filter(([id]) => known.has(id)));
    await Promise.all(teams.teams.map((t) => refresh(t.team_id)));
  }

  let timer: ReturnType<typeof setInterval> | undefined;
  const onVisible = (): void => {
    if (document.visibilityState === 'visible') void refreshAll();
  };

  function start(): void {
    stop();
    void refreshAll();
    timer = setInterval(() => {
      if (document.visibilityState === 'visible') void refreshAll();
    }, POLL_MS);
    document.addEventListener('visibilitychange', onVisible);
  }

  function stop(): void {
    clearInterval(timer);
    timer = undefined;
    document.removeEventListener('visibilitychange', onVisible);
  }

  useLiveStore().onChange((change) => {
    if (change.kind !== 'library_changed' || change.teamId === null || change.teamId === shown) return;
    if (teams.teams.some((t) => t.team_id === change.teamId)) void refresh(change.teamId);
  });

  return { openCounts, openTotal, openProposals, show, refresh, start, stop };
});
