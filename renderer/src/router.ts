/**
 * Routes live in the URL fragment (hash history): the same build works at app://svc-node/ and
 * under /ui/ on the headless node, with no server-side fallback route.
 */
import { createRouter, createWebHashHistory } from 'vue-router';
import type { Router } from 'vue-router';
import ChatView from './views/ChatView.vue';
import DocumentsView from './views/DocumentsView.vue';
import IdentitiesView from './views/IdentitiesView.vue';
import MailView from './views/MailView.vue';
import SettingsView from './views/SettingsView.vue';
import ShelfView from './views/ShelfView.vue';

/**
 * Created on demand, not at import: the hash history rewrites the fragment as soon as it exists,
 * and main.ts must first take a `#code=` sign-in code out of it.
 */
export function createAppRouter(): Router {
  const router = createRouter({
    history: createWebHashHistory(),
    routes: [
      // The app opens on Mail; on a node without identities App.vue sends the first visit to Identities.
      { path: '/', redirect: '/mail' },
      { path: '/mail', component: MailView, meta: { title: 'Mail' } },
      { path: '/chat', component: ChatView, meta: { title: 'Chat' } },
      { path: '/documents', component: DocumentsView, meta: { title: 'Documents' } },
      { path: '/shelf', component: ShelfView, meta: { title: 'Shelf' } },
      { path: '/identities', component: IdentitiesView, meta: { title: 'Identities' } },
      { path: '/settings', component: SettingsView, meta: { title: 'Settings' } },
      { path: '/:rest(.*)*', redirect: '/mail' },
    ],
  });
  router.afterEach((to) => {
    const title = typeof to.meta['title'] === 'string' ? to.meta['title'] : null;
    document.title = title ? `${title} · svc-node` : 'svc-node';
  });
  return router;
}
