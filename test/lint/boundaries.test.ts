/**
 * The process boundaries are lint rules; these tests prove the rules bite, so a refactor of
 * eslint.config.js cannot silently drop them.
 */
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';

// The linted files are made up, so no tsconfig has them: the rules that read types are left out
// here (they have their own checks in lint-types.test.ts), the boundary rules run as configured.
const eslint = new ESLint({ cwd: new URL('../../', import.meta.url).pathname, overrideConfig: tseslint.configs.disableTypeChecked });

async function ruleIds(code: string, filePath: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).map((m) => m.ruleId ?? m.message);
}

describe('architecture lint rules', () => {
  it('forbid electron in server/', async () => {
    expect(await ruleIds("import { app } from 'electron';\nexport const a = app;\n", 'server/x.ts')).toContain('no-restricted-imports');
  });

  it('forbid DOM libraries, DOM globals and the desktop shell in server/', async () => {
    expect(await ruleIds("import { ref } from 'vue';\nexport const r = ref(1);\n", 'server/x.ts')).toContain('no-restricted-imports');
    expect(await ruleIds("import { x } from '../main/index.ts';\nexport const y = x;\n", 'server/x.ts')).toContain('no-restricted-imports');
    expect(await ruleIds('export const title = document.title;\n', 'server/x.ts')).toContain('no-restricted-globals');
  });

  it('forbid Node APIs and server/ in the renderer', async () => {
    expect(await ruleIds("import { readFileSync } from 'node:fs';\nexport const r = readFileSync;\n", 'renderer/src/x.ts')).toContain('no-restricted-imports');
    expect(await ruleIds("import { startNode } from '../../server/index.ts';\nexport const s = startNode;\n", 'renderer/src/x.ts')).toContain(
      'no-restricted-imports',
    );
  });

  it('keep contract/ to zod and its own files, and let server/ and the renderer import it', async () => {
    expect(await ruleIds("import { z } from 'zod';\nexport const s = z.string();\n", 'contract/core/x.ts')).toEqual([]);
    expect(await ruleIds("import { PROJECT_SLUG } from '../core-rules.ts';\nexport const p = PROJECT_SLUG;\n", 'contract/core/x.ts')).toEqual([]);
    expect(await ruleIds("import Fastify from 'fastify';\nexport const f = Fastify;\n", 'contract/core/x.ts')).toContain('no-restricted-imports');
    expect(await ruleIds("import { readFileSync } from 'node:fs';\nexport const r = readFileSync;\n", 'contract/core/x.ts')).toContain('no-restricted-imports');
    expect(await ruleIds("import { startNode } from '../../server/index.ts';\nexport const s = startNode;\n", 'contract/core/x.ts')).toContain(
      'no-restricted-imports',
    );
    expect(await ruleIds("import type { Contact } from '../../../contract/core/contacts.ts';\nexport type C = Contact;\n", 'renderer/src/api/x.ts')).toEqual(
      [],
    );
    expect(await ruleIds("import { Contact } from '../../../../contract/core/contacts.ts';\nexport const c = Contact;\n", 'server/surfaces/core/x.ts')).toEqual(
      [],
    );
  });

  it('let server/ use node: modules', async () => {
    expect(await ruleIds("import { createHash } from 'node:crypto';\nexport const h = createHash;\n", 'server/x.ts')).toEqual([]);
  });
  it('forbid faking a key press in the renderer, outside its tests', async () => {
    const fake = "document.body.dispatchEvent(new KeyboardEvent('keydown', { key: 'c' }));\n";
    expect(await ruleIds(fake, 'renderer/src/components/X.ts')).toContain('no-restricted-syntax');
    expect(await ruleIds(fake, 'renderer/src/lib/x.test.ts')).not.toContain('no-restricted-syntax');
  });
});
