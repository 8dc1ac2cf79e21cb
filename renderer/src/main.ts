/**
 * Renderer entry: apply the appearance; trade a sign-in link's code (if the address bar holds one)
 * for a browser session and only then take it out of the address bar; then start Vue, Pinia and
 * the router. Links opened in this tab later are heard before the router sees them.
 */
import { createPinia } from 'pinia';
import { createApp } from 'vue';
import { clearFragment, codeInFragment, sessionStorageKey, watchSignInLinks } from './api/connect.ts';
import App from './App.vue';
import { startTheme } from './composables/useTheme.ts';
import { ApiError } from './api/errors.ts';
import { forgetFailedLinks, loadViewCode, untilAnswered } from './lib/view-code.ts';
import { createAppRouter } from './router.ts';
import { useSessionStore } from './stores/session.ts';
import './styles/tokens.css';
import './styles/base.css';
import './styles/shared.css';

// First of all, so the first frame is already in the chosen light or dark (Settings → Appearance).
startTheme();

async function boot(): Promise<void> {
  const pinia = createPinia();
  const session = useSessionStore(pinia);
  // Before the router exists, so `#code=...` pasted into this tab is a sign-in, never a route. The
  // router is set when it exists: the tab goes back to the route it showed.
  let route = (): string => '';
  watchSignInLinks(window, (code) => session.signIn(code, route()));
  // Another tab signed in: a window without a working session takes it up.
  window.addEventListener('storage', (event) => {
    if (event.key === sessionStorageKey(window.location.origin) && event.newValue) void session.adopt();
  });

  const code = codeInFragment(window.location);
  if (code !== null) {
    await session.redeem(code);
    clearFragment({ location: window.location, history: window.history });
  }

  // A view opened while the node restarts loads once it answers again (lib/view-code.ts).
  forgetFailedLinks(document);
  const nodeAnswers = (): Promise<void> =>
    untilAnswered(
      () => session.api().info(),
      (error) => error instanceof ApiError && error.status !== 0,
      1_000,
      (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    );
  const app = createApp(App);
  const router = createAppRouter((load) => loadViewCode(load, nodeAnswers));
  route = () => `#${router.currentRoute.value.fullPath}`;
  app.use(pinia);
  app.use(router);
  void session.start();
  app.mount('#app');
}

void boot();
