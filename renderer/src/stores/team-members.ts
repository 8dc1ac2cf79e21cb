/**
 * The members and pending invites of the team the Teams view shows, kept live while it shows
 * them: presence frames on the owner feed move a member's dot in place, `teams_changed` (a member
 * joined or was revoked, an invite was made, used or cancelled, here or by the CLI) reads both
 * lists again, and so does a reconnect, after which nothing is replayed.
 */
import { defineStore } from 'pinia';
import { computed, ref, shallowRef } from 'vue';
import type { InviteInput, ListedMember, PendingInvite, Revoked, TeamInvite } from '../api/owner.ts';
import { coalesce } from '../lib/coalesce.ts';
import { errorMessage } from '../lib/format.ts';
import { applyPresence, mayBeNewlyConnected, sortInvites, splitMembers } from '../lib/team-members.ts';
import { useLiveStore } from './live.ts';
import { useSessionStore } from './session.ts';

/** A burst of nudges (a join publishes, then its connect, then its stream) reads the lists once. */
const RELOAD_DELAY_MS = 150;

export const useTeamMembersStore = defineStore('team-members', () => {
  const session = useSessionStore();

  /** The team shown; null while the view is closed (then nothing is read or kept live). */
  const teamId = ref<string | null>(null);
  const members = shallowRef<ListedMember[]>([]);
  const invites = shallowRef<PendingInvite[]>([]);
  const loaded = ref(false);
  const error = ref<string | null>(null);
  /** Each read is numbered: an answer for a team no longer shown, or older than one since, is dropped. */
  let generation = 0;

  const split = computed(() => splitMembers(members.value));
  const active = computed(() => split.value.active);
  const revoked = computed(() => split.value.revoked);

  async function load(): Promise<void> {
    const id = teamId.value;
    if (id === null) return;
    const mine = ++generation;
    try {
      const [memberList, inviteList] = await Promise.all([session.api().members(id), session.api().invites(id)]);
      if (mine !== generation) return;
      members.value = memberList.members;
      invites.value = sortInvites(inviteList.invites);
      error.value = null;
    } catch (failure) {
      if (mine === generation) error.value = errorMessage(failure);
    } finally {
      if (mine === generation) loaded.value = true;
    }
  }
  const reload = coalesce(load, RELOAD_DELAY_MS);

  /** Shows `id` (the view opened, or another team was chosen); null stops. */
  async function show(id: string | null): Promise<void> {
    if (id === teamId.value && loaded.value) return load();
    generation++;
    teamId.value = id;
    members.value = [];
    invites.value = [];
    loaded.value = false;
    error.value = null;
    if (id !== null) await load();
  }

  /** The view closed: stop following the feed, keep nothing stale for next time. */
  function hide(): void {
    void show(null);
  }

  /** A join code for an agent; the code is in the answer only, for the dialog to show once. */
  async function invite(input: InviteInput): Promise<TeamInvite> {
    const id = requireTeam();
    const made = await session.api().invite(id, input);
    reload();
    return made;
  }

  async function cancelInvite(inviteId: string): Promise<void> {
    const id = requireTeam();
    await session.api().cancelInvite(id, inviteId);
    // Gone from the list at once; the read after it confirms.
    invites.value = invites.value.filter((i) => i.invite_id !== inviteId);
    reload();
  }

  async function revoke(certificateId: string): Promise<Revoked> {
    const id = requireTeam();
    const revoked = await session.api().revokeMember(id, certificateId);
    members.value = members.value.map((m) => (m.certificate_id === certificateId ? { ...m, revoked_at: revoked.revoked_at, online: false } : m));
    reload();
    return revoked;
  }

  function requireTeam(): string {
    if (teamId.value === null) throw new Error('No team is shown.');
    return teamId.value;
  }

  const live = useLiveStore();
  live.onPresence((presence) => {
    if (teamId.value === null) return;
    const next = applyPresence(members.value, presence);
    if (next !== null) members.value = next;
    else if (mayBeNewlyConnected(members.value)) reload();
  });
  live.onChange((change) => {
    if (change.kind === 'teams_changed' && teamId.value !== null) reload();
  });
  live.onOpen(() => {
    if (teamId.value !== null && loaded.value) reload();
  });

  return { teamId, members, invites, active, revoked, loaded, error, load, show, hide, invite, cancelInvite, revoke };
});
