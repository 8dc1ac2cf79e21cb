/**
 * Routes live in the URL fragment (hash history): the same build works at app://svc-node/ and
 * under /ui/ on the headless node, with no server-side fallback route.
 */
import { createRouter, createWebHashHistory } from 'vue-router';
import type { Router } from 'vue-router';
import IdentitiesView from './views/IdentitiesView.vue';
import SettingsView from './views/SettingsView.vue';

/**
 * Created on demand, not at import: the hash history rewrites the fragment as soon as it exists,
 * and main.ts must first take a `#code=` sign-in code out of it.
 */
export function createAppRouter(): Router {
  const router = createRouter({
    history: createWebHashHistory(),
    routes: [
      { path: '/', redirect: '/identities' },
      { path: '/identities', component: IdentitiesView, meta: { title: 'Identities' } },
      { path: '/settings', component: SettingsView, meta: { title: 'Settings' } },
      { path: '/:rest(.*)*', redirect: '/identities' },
    ],
  });
  router.afterEach((to) => {
    const title = typeof to.meta['title'] === 'string' ? to.meta['title'] : null;
    document.title = title ? `${title} · svc-node` : 'svc-node';
  });
  return router;
}
