/**
 * Whether the team's present-page theme changed, so open previews repaint (otherwise a preview
 * stays stale after a theme save until reload). A theme save, here or by an agent, nudges the
 * owner feed with `docs_changed`, as document saves do; the documents store then asks for the
 * theme's `updated_at`, and a new one bumps `version`, which previews watch.
 */
import { defineStore } from 'pinia';
import { ref } from 'vue';
import type { DocsClient } from '../api/docs.ts';

export const useDocsThemeStore = defineStore('docs-theme', () => {
  /** Bumped whenever the team's saved theme is seen to change. */
  const version = ref(0);
  let known: { teamId: string; updatedAt: string | null } | null = null;

  /** Records the theme's stamp; a different one (or the first seen) bumps `version`. */
  function note(teamId: string, updatedAt: string | null): void {
    if (known?.teamId === teamId && known.updatedAt === updatedAt) return;
    known = { teamId, updatedAt };
    version.value++;
  }

  /** After a nudge: reads the saved theme's stamp (a failed read changes nothing). */
  async function check(client: DocsClient, teamId: string): Promise<void> {
    try {
      note(teamId, (await client.theme()).updated_at);
    } catch {
      // The next nudge asks again.
    }
  }

  return { version, note, check };
});
