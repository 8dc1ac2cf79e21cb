// Lint rules that keep the architecture visible: server/ is plain Node (never Electron or DOM),
// the renderer talks to the node only over HTTP (never imports server/, main/ or node:*).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import pluginVue from 'eslint-plugin-vue';
import globals from 'globals';
import prettier from 'eslint-config-prettier';

const DOM_GLOBALS = ['window', 'document', 'navigator', 'localStorage', 'sessionStorage', 'HTMLElement', 'location'];

export default tseslint.config(
  { ignores: ['out/**', 'dist/**', 'node_modules/**', 'coverage/**', 'test/e2e/screenshots/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  // Vue's recommended tier: correctness and the conventions that make components read alike.
  ...pluginVue.configs['flat/recommended'],
  {
    files: ['**/*.vue'],
    languageOptions: { parserOptions: { parser: tseslint.parser, extraFileExtensions: ['.vue'] } },
  },
  {
    // Rules that read the types, for every TypeScript and Vue file. The project service picks each
    // file's nearest tsconfig.json: the root one (the node side) or renderer/tsconfig.json (the
    // renderer's DOM build), so a file is checked with the same types it compiles with.
    files: ['**/*.ts', '**/*.vue'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // A switch over a union either names every member or says with a `default` what the rest do.
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      // A promise nobody awaits loses its rejection: it is awaited, returned, or marked `void` on purpose.
      '@typescript-eslint/no-floating-promises': 'error',
      // A check the types prove always true or always false is dead code or a wrong type.
      '@typescript-eslint/no-unnecessary-condition': 'error',
    },
  },
  {
    // The route-auth hook switches over every auth mode: a mode added without its case is an error
    // here (and a compile error at its `never` check), never a route that answers anyone; a
    // `default` does not count.
    files: ['server/http/route-auth.ts'],
    rules: { '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: false }] },
  },
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'vue/multi-word-component-names': 'off',
    },
  },
  {
    // Test bodies are whatever the server answered; asserting on them is the point.
    files: ['test/**/*.ts', '**/*.test.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['server/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'electron', message: 'server/ runs headless too: Electron APIs go behind an interface that main/ fills in.' }],
          patterns: [
            { group: ['electron/*', 'vue', 'pinia', 'vue-router', 'dompurify', '@codemirror/*'], message: 'server/ never imports Electron or DOM code.' },
            { group: ['**/main/**', '**/preload/**', '**/renderer/**'], message: 'server/ does not depend on the desktop shell.' },
          ],
        },
      ],
      'no-restricted-globals': ['error', ...DOM_GLOBALS.map((name) => ({ name, message: 'server/ has no DOM.' }))],
      // SQLite (built with STAT4) reads a bare `LIMIT ?` value while planning, so the statement is
      // prepared again at every run: 25-50 µs, several times a small indexed query. `LIMIT +?` is
      // evaluated at run time and keeps the cached plan.
      'no-restricted-syntax': [
        'error',
        ...['Literal[value=/LIMIT \\?/]', 'TemplateElement[value.raw=/LIMIT \\?/]'].map((selector) => ({
          selector,
          message: 'Write `LIMIT +?`: a bare `LIMIT ?` makes SQLite prepare the statement again at every run.',
        })),
      ],
    },
  },
  {
    // Rules shared by the node and the renderer: plain TypeScript that both builds can take.
    files: ['contract/**/*.ts'],
    ignores: ['contract/**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            // Only zod and contract/'s own files: whatever else it imported, the renderer would bundle.
            { regex: '^(?!zod(/|$)|\\.\\.?/)', message: 'contract/ imports only zod (and its own files).' },
            {
              group: ['**/server/**', '**/main/**', '**/preload/**', '**/renderer/**', '**/test/**'],
              message: 'server/ and renderer/ import contract/, never the other way.',
            },
          ],
        },
      ],
      'no-restricted-globals': ['error', ...DOM_GLOBALS.map((name) => ({ name, message: 'contract/ runs in the node too.' })), 'process', 'Buffer'],
    },
  },
  {
    files: ['renderer/**/*.{ts,vue}'],
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['node:*', 'fs', 'path', 'crypto', 'child_process'], message: 'The renderer has no Node APIs.' },
            {
              group: ['**/server/**', '**/main/**', 'electron'],
              message: 'The renderer talks to the node over HTTP and to the shell through preload/api.d.ts.',
            },
          ],
        },
      ],
    },
  },
  {
    // A command asked for from elsewhere (the palette) runs by name, through the view's own shortcut;
    // a made-up key press would depend on focus, dialogs and timing the caller cannot see.
    files: ['renderer/**/*.{ts,vue}'],
    ignores: ['renderer/**/*.test.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "NewExpression[callee.name='KeyboardEvent']",
          message: 'Run the command by name (composables/useShortcuts.ts runCommand) instead of faking a key press.',
        },
      ],
    },
  },
  // Layout belongs to Prettier (`npm run format`): every rule that would argue with it is off.
  prettier,
);
