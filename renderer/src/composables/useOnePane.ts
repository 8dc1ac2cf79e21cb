/**
 * Whether the window is narrow enough that a list/detail view shows one pane at a time: the width
 * at which styles/shared.css `.one-pane` hides one of the two panes (keep the two in step). For
 * what a view does differently then beyond its looks: Mail marks a message read only once the
 * message is on screen, and the list hides it while it is only selected there.
 */
import { getCurrentInstance, inject, nextTick, onBeforeUnmount, provide, readonly, ref, type InjectionKey, type Ref } from 'vue';

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

/** What a one-pane view lets the parts inside it do: bring its list back on screen. */
interface OnePaneView {
  /** True while the open item hides the list (below 1000 px). */
  listHidden: () => boolean;
  /** Shows the list again; resolves once it is on screen, so it can take the keyboard. */
  showList: () => Promise<void>;
}

const ONE_PANE_VIEW: InjectionKey<OnePaneView> = Symbol('one-pane view');

/**
 * Called by a list/detail view (Documents, the Shelf): the list inside it (Esc, a list key
 * pressed in the open item) can bring the list back on screen before it takes the keyboard, so
 * the keys never move a list that cannot be seen.
 */
export function provideOnePaneView(listHidden: () => boolean, show: () => void): void {
  provide(ONE_PANE_VIEW, {
    listHidden,
    showList: async () => {
      show();
      await nextTick();
    },
  });
}

/** The view's list-showing, for a part inside it; outside such a view the list is always on screen. */
export function useOnePaneView(): OnePaneView {
  return inject(ONE_PANE_VIEW, { listHidden: () => false, showList: () => Promise.resolve() });
}
