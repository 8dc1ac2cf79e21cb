/**
 * A message body as the reading panes show it: the node's rendering of its Markdown (sanitised
 * there: the renderer never parses Markdown or cleans HTML itself), or the text as written when
 * the person prefers plain text. The preference is remembered in this window's storage; renders
 * are kept for the last few messages, so moving back and forth through the list does not ask
 * again. A render the node refuses (too complex, busy) falls back to plain text, saying so.
 */
import { ref, watch, type Ref } from 'vue';
import { errorMessage } from '../../lib/format.ts';
import { useSessionStore } from '../../stores/session.ts';

const PLAIN_KEY = 'svc-node.mail.plain-text';
const CACHE_MAX = 100;

/** Shared by every pane: one choice for all mail. */
const plainText = ref(window.localStorage.getItem(PLAIN_KEY) === '1');
watch(plainText, (plain) => {
  if (plain) window.localStorage.setItem(PLAIN_KEY, '1');
  else window.localStorage.removeItem(PLAIN_KEY);
});

/** message_id → HTML, oldest first (a Map keeps insertion order). */
const rendered = new Map<string, string>();

function remember(messageId: string, html: string): void {
  rendered.delete(messageId);
  rendered.set(messageId, html);
  if (rendered.size > CACHE_MAX) rendered.delete(rendered.keys().next().value as string);
}

export function usePlainText(): Ref<boolean> {
  return plainText;
}

/** The HTML of `messageId` as `agentId` may read it; null while it loads, or when it failed (`failure` says why). */
export function useRenderedBody(agentId: Ref<string | null>, messageId: Ref<string>) {
  const session = useSessionStore();
  const html = ref<string | null>(null);
  const failure = ref<string | null>(null);

  watch(
    [agentId, messageId, plainText],
    async ([owner, id, plain]) => {
      failure.value = null;
      html.value = rendered.get(id) ?? null;
      if (html.value !== null || plain || owner === null) return;
      try {
        const body = await session.asIdentity(owner).mail.renderedBody(id);
        remember(id, body);
        if (messageId.value === id) html.value = body;
      } catch (error) {
        if (messageId.value === id) failure.value = errorMessage(error);
      }
    },
    { immediate: true },
  );

  return { html, failure };
}
