/**
 * A form's checks show as the person types (the node's own rules), under the field, while a blank
 * field says "enter…" only once a submit was tried; `blocked` holds the submit until the fix.
 */
import { describe, expect, it } from 'vitest';
import { effectScope, ref } from 'vue';
import { addressNameProblem } from '../../../contract/core-rules.ts';
import { useFieldErrors } from './useFieldErrors.ts';

function holdForm() {
  const name = ref('');
  const scope = effectScope();
  const form = scope.run(() => useFieldErrors({ name: { label: 'Team name', value: () => name.value, check: addressNameProblem } }))!;
  return { name, form };
}

describe('useFieldErrors', () => {
  it('shows a typed value’s problem at once, and drops it with the fix', () => {
    const { name, form } = holdForm();
    expect(form.errors.value).toEqual({});
    name.value = 'Platform Team';
    expect(form.errors.value.name).toBe('Team name: use 1-64 letters, digits, "-" or "_", starting with a letter or digit (no spaces or dots)');
    expect(form.blocked.value).toBe(true);
    name.value = 'platform';
    expect(form.errors.value).toEqual({});
    expect(form.blocked.value).toBe(false);
  });

  it('says a blank field is missing only once a submit was tried', () => {
    const { form } = holdForm();
    expect(form.blocked.value).toBe(false);
    expect(form.validate()).toBe(false);
    expect(form.errors.value.name).toMatch(/^Team name: enter a name/);
  });
});
