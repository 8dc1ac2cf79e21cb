/**
 * Vue components are held to eslint-plugin-vue's recommended tier (not only its correctness rules),
 * while template layout stays a formatter's business: these tests keep both choices from drifting.
 */
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const eslint = new ESLint({ cwd: new URL('../../', import.meta.url).pathname });

const COMPONENT = `<script setup lang="ts">
const props = withDefaults(defineProps<{ label?: string; size?: number }>(), { size: 1 });
</script>

<template>
  <p v-if="props.label" class="x" id="y">{{ props.label }}</p>
</template>
`;

async function ruleIds(code: string, filePath: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).map((m) => m.ruleId ?? m.message);
}

describe('Vue lint tier', () => {
  it('asks for defaults and a settled attribute order, as the recommended tier does', async () => {
    const ids = await ruleIds(COMPONENT, 'renderer/src/components/AppIcon.vue');
    expect(ids).toContain('vue/require-default-prop');
    expect(ids).toContain('vue/attributes-order');
  });

  it('leaves template layout alone', async () => {
    const ids = await ruleIds(COMPONENT, 'renderer/src/components/AppIcon.vue');
    expect(ids.filter((id) => /max-attributes|newline|html-indent|self-closing|linebreak/.test(id))).toEqual([]);
  });
});
