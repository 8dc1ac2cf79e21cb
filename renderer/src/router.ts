/**
 * Routes live in the URL fragment (hash history): the same build works at app://svc-node/ and
 * under /ui/ on the headless node, with no server-side fallback route.
 *
 * Every view is its own chunk, loaded when it is first opened: the first screen loads only what
 * it shows (test/packaging/bundle-size.test.ts holds the entry under its budget), and heavy parts
 * of one view (CodeMirror in Documents, diffs in Shelf) never delay another. Each load goes
 * through `viewCode` (main.ts: lib/view-code.ts), which carries a view over a node that was
 * restarting when it was opened.
 */
import { createRouter, createWebHashHistory } from 'vue-router';
import type { Router } from 'vue-router';

/** Wraps a view's loader (the identity by default, as in tests). */
export type ViewCode = <T>(load: () => Promise<T>) => () => Promise<T>;

declare module 'vue-router' {
  interface RouteMeta {
    title?: string;
  }
}

/**
 * Created on demand, not at import: the hash history rewrites the fragment as soon as it exists,
 * and main.ts must first take a `#code=` sign-in code out of it.
 */
export function createAppRouter(viewCode: ViewCode = (load) => load): Router {
  const router = createRouter({
    history: createWebHashHistory(),
    routes: [
      // The app opens on Mail; on a node without identities App.vue sends the first visit to Set up.
      { path: '/', redirect: '/mail' },
      { path: '/mail', component: viewCode(() => import('./views/MailView.vue')), meta: { title: 'Mail' } },
      { path: '/chat', component: viewCode(() => import('./views/ChatView.vue')), meta: { title: 'Chat' } },
      { path: '/documents', component: viewCode(() => import('./views/DocumentsView.vue')), meta: { title: 'Documents' } },
      { path: '/shelf', component: viewCode(() => import('./views/ShelfView.vue')), meta: { title: 'Shelf' } },
      { path: '/identities', component: viewCode(() => import('./views/IdentitiesView.vue')), meta: { title: 'Identities' } },
      { path: '/teams', component: viewCode(() => import('./views/TeamsView.vue')), meta: { title: 'Teams' } },
      { path: '/settings', component: viewCode(() => import('./views/SettingsView.vue')), meta: { title: 'Settings' } },
      { path: '/setup', component: viewCode(() => import('./views/SetupView.vue')), meta: { title: 'Set up your node' } },
      { path: '/:rest(.*)*', redirect: '/mail' },
    ],
  });
  router.afterEach((to) => {
    document.title = to.meta.title ? `${to.meta.title} · svc-node` : 'svc-node';
  });
  return router;
}
