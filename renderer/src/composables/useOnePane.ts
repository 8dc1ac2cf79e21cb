/**
 * Whether the window is narrow enough that a list/detail view shows one pane at a time: the width
 * at which styles/shared.css `.one-pane` hides one of the two panes (keep the two in step). For
 * what a view does differently then beyond its looks: Mail marks a message read only once the
 * message is on screen, and the list hides it while it is only selected there.
 */
import { getCurrentInstance, onBeforeUnmount, readonly, ref, type Ref } from 'vue';

export const ONE_PANE_QUERY = '(max-width: 999px)';

/** True while the window is below the one-pane width; follows the window as it is resized. */
export function useOnePane(): Readonly<Ref<boolean>> {
  const media = window.matchMedia(ONE_PANE_QUERY);
  const narrow = ref(media.matches);
  const follow = (event: MediaQueryListEvent): void => {
    narrow.value = event.matches;
  };
  media.addEventListener('change', follow);
  if (getCurrentInstance() !== null) onBeforeUnmount(() => media.removeEventListener('change', follow));
  return readonly(narrow);
}
