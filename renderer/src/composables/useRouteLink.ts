/**
 * A link into a view that acts as a team (Documents, the Shelf): `?team=…&doc=…`, from a search
 * hit or anywhere else, read when the view opens and whenever the route's query changes while it
 * is shown, then taken out of the address (a reload does not apply it again). Links are applied
 * one after another, in the order they came. Mail and Chat, which act as an identity, have
 * useIdentityView.ts.
 */
import { watch } from 'vue';
import { useRoute, useRouter } from 'vue-router';

export function useRouteLink(names: readonly string[], apply: (link: Readonly<Record<string, string>>) => Promise<void>): void {
  const route = useRoute();
  const router = useRouter();
  let applying: Promise<void> = Promise.resolve();

  watch(
    () => route.query,
    (query) => {
      const link: Record<string, string> = {};
      for (const name of names) {
        const value = query[name];
        if (typeof value === 'string' && value !== '') link[name] = value;
      }
      if (Object.keys(link).length === 0) return;
      void router.replace({ query: {} });
      // A link that fails (the item is gone) leaves the view as it is: the view shows its own errors.
      applying = applying.then(() => apply(link)).catch(() => undefined);
    },
    { immediate: true },
  );
}
