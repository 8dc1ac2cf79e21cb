/**
 * The rules that read types (a promise nobody awaits, a switch missing a case, a check the types
 * prove needless) run on every kind of source file, the renderer's and its Vue components included:
 * each file is linted with the types of the build it belongs to, so a folder that fell out of the
 * typed setup would be caught here rather than pass lint with these rules silently off.
 */
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';

const eslint = new ESLint({ cwd: new URL('../../', import.meta.url).pathname });

const PROBE = `
export function probe(pending: Promise<number>, kind: 'a' | 'b', text: string): number {
  pending.then((n) => n + 1);
  switch (kind) {
    case 'a':
      return 1;
  }
  return (text ?? '').length;
}
`;

const TYPED_RULES = [
  '@typescript-eslint/no-floating-promises',
  '@typescript-eslint/switch-exhaustiveness-check',
  '@typescript-eslint/no-unnecessary-condition',
];

/** The rule ids (or parse errors) for `code` linted as the existing file `filePath`, in place of its contents. */
async function ruleIds(code: string, filePath: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).map((m) => m.ruleId ?? m.message);
}

describe('type-aware lint rules', () => {
  // The first typed lint loads the whole node program; that belongs in the hook's longer budget.
  beforeAll(() => ruleIds('', 'server/self-command.ts'));

  it.each([
    'server/self-command.ts',
    'contract/errors.ts',
    'main/navigate.ts',
    'preload/index.ts',
    'scripts/build-app.ts',
    'bench/run.ts',
    'renderer/src/lib/chat.ts',
    // Tests too: a support file, a test under test/ and one beside the code.
    'test/support/did.ts',
    'test/api/backup.test.ts',
    'server/auth/team-envelope.test.ts',
  ])('run on %s', async (filePath) => {
    const ids = await ruleIds(PROBE, filePath);
    for (const rule of TYPED_RULES) expect(ids).toContain(rule);
  });

  it('run on a Vue component, with the renderer types', async () => {
    const component = `<script setup lang="ts">\n${PROBE}\nprobe(Promise.resolve(1), 'a', document.title);\n</script>\n\n<template>\n  <p>probe</p>\n</template>\n`;
    const ids = await ruleIds(component, 'renderer/src/components/AppIcon.vue');
    for (const rule of TYPED_RULES) expect(ids).toContain(rule);
  });
});
