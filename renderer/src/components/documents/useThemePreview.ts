/**
 * The theme dialog's live preview (ThemeDialog.vue): the node's present page for the form's
 * draft, with its contrast check and base palettes, asked for again once editing pauses. Only
 * the latest request's answer is shown; an edit the node would not see (the form just loaded, a
 * half-typed colour) asks for nothing.
 */
import { onBeforeUnmount, ref, shallowRef, type Ref } from 'vue';
import type { PaletteContrast, Preview, ThemeDraft } from '../../api/docs.ts';
import { errorMessage } from '../../lib/format.ts';
import { draftFromForm, type ThemeForm } from '../../lib/theme-form.ts';

/** How long editing may pause before the preview is asked for again. */
const DELAY_MS = 300;

export function useThemePreview(form: Ref<ThemeForm>, read: (draft: ThemeDraft) => Promise<Preview>) {
  const html = ref<string | null>(null);
  const contrast = shallowRef<PaletteContrast[]>([]);
  /** The node's base palettes, from its latest preview (the swatches of unset colours). */
  const basePalettes = ref<Preview['base_palettes'] | null>(null);
  const error = ref<string | null>(null);
  /** A change is waiting for its preview (the contrast shown may be out of date). */
  const pending = ref(false);

  /** Bumped on every request and every reset: answers to older ones are dropped. */
  let generation = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  /** The draft of the latest preview asked for. */
  let requestedDraft = '';
  /** The latest preview asked for has not answered yet; a change waits for editing to pause. */
  let inFlight = false;
  let scheduled = false;

  /** Drops a preview waiting for editing to pause. */
  function cancel(): void {
    clearTimeout(timer);
    scheduled = false;
    pending.value = inFlight;
  }

  /** A fresh start (the dialog opens): nothing shown, nothing asked for. */
  function reset(): void {
    generation++;
    requestedDraft = '';
    inFlight = false;
    cancel();
    html.value = null;
    contrast.value = [];
    error.value = null;
  }

  /** The draft as the node would see it, to tell whether a change needs a new preview. */
  function draftKey(): string {
    return JSON.stringify(draftFromForm(form.value));
  }

  /** The form changed: a fresh preview once editing pauses. */
  function schedule(): void {
    cancel();
    if (draftKey() === requestedDraft && error.value === null) return;
    scheduled = true;
    pending.value = true;
    timer = setTimeout(() => void refresh(), DELAY_MS);
  }

  async function refresh(): Promise<void> {
    const mine = ++generation;
    const draft = draftFromForm(form.value);
    requestedDraft = JSON.stringify(draft);
    inFlight = true;
    cancel();
    try {
      const result = await read(draft);
      if (mine !== generation) return;
      html.value = result.html;
      contrast.value = result.contrast;
      basePalettes.value = result.base_palettes;
      error.value = null;
    } catch (caught) {
      if (mine !== generation) return;
      // Without an answer there is nothing to check against: the node checks again on save.
      contrast.value = [];
      error.value = errorMessage(caught);
    } finally {
      if (mine === generation) {
        inFlight = false;
        pending.value = scheduled;
      }
    }
  }

  onBeforeUnmount(() => clearTimeout(timer));

  return { html, contrast, basePalettes, error, pending, cancel, reset, schedule, refresh };
}
