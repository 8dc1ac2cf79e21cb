/** Renderer entry: apply the appearance, take the one-time code out of the URL, then start Vue, Pinia and the router. */
import { createPinia } from 'pinia';
import { createApp } from 'vue';
import { takeCodeFromFragment } from './api/connect.ts';
import App from './App.vue';
import { startTheme } from './composables/useTheme.ts';
import { createAppRouter } from './router.ts';
import { useSessionStore } from './stores/session.ts';
import './styles/tokens.css';
import './styles/base.css';
import './styles/shared.css';

// First of all, so the first frame is already in the chosen light or dark (Settings → Appearance).
startTheme();

// Before the router reads the fragment: `#code=...` is a sign-in code, not a route.
const code = takeCodeFromFragment({ location: window.location, history: window.history });

const app = createApp(App);
const pinia = createPinia();
app.use(pinia);
app.use(createAppRouter());
void useSessionStore(pinia).start(code);
app.mount('#app');
