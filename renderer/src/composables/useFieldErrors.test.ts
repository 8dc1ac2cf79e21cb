/**
 * A form's checks show as the person types (the node's own rules), under the field, while a blank
 * field says "enter…" only once a submit was tried; `blocked` holds the submit until the fix. The
 * node's refusals go under the field they are about (by the field a problem names, a list item's
 * under its list, or by the refusal's code), what concerns no field comes back for the form's
 * note, and each goes with its field's next edit.
 */
import { describe, expect, it } from 'vitest';
import { effectScope, nextTick, ref } from 'vue';
import { addressNameProblem } from '../../../contract/core-rules.ts';
import { ApiError } from '../api/errors.ts';
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

  it('says at once that a field filled in from the start was emptied', () => {
    const version = ref('1.0.0');
    const scope = effectScope();
    const form = scope.run(() =>
      useFieldErrors({
        version: { label: 'Version', value: () => version.value, check: (v) => (v.trim() === '' ? 'enter a version' : null), prefilled: true },
      }),
    )!;
    expect(form.errors.value).toEqual({});
    version.value = '';
    expect(form.errors.value.version).toBe('Version: enter a version');
  });

  it('puts the node’s problems under their fields, a list item’s under its list, and returns the rest', async () => {
    const name = ref('Support');
    const tags = ref('docs, c++');
    const scope = effectScope();
    const form = scope.run(() =>
      useFieldErrors({
        'new_blueprint.name': { label: 'Blueprint name', value: () => name.value },
        'new_blueprint.tags': { label: 'Tags', value: () => tags.value },
      }),
    )!;
    const refused = new ApiError(422, 'Some fields are not valid.', [
      { field: 'new_blueprint.name', message: 'use at most 200 characters' },
      { field: 'new_blueprint.tags.1', message: 'use a-z, 0-9, ".", "_" and "-"' },
      { field: 'profile_version', message: 'no such version' },
    ]);
    expect(form.take(refused)).toBe('Profile version: no such version');
    expect(form.errors.value).toEqual({
      'new_blueprint.name': 'Blueprint name: use at most 200 characters',
      'new_blueprint.tags': 'Tags: use a-z, 0-9, ".", "_" and "-"',
    });
    tags.value = 'docs';
    await nextTick();
    expect(form.errors.value).toEqual({ 'new_blueprint.name': 'Blueprint name: use at most 200 characters' });
  });

  it('puts a refusal about one field by its code under that field, in the node’s words, until it is edited', async () => {
    const id = ref('taken.team');
    const scope = effectScope();
    const form = scope.run(() => useFieldErrors({ blueprint_ref: { label: 'Blueprint id', value: () => id.value, codes: ['SVC_ERR_BLUEPRINT_EXISTS'] } }))!;
    const taken = new ApiError(409, 'Blueprint taken.team already exists.', [], 'SVC_ERR_BLUEPRINT_EXISTS');
    expect(form.take(taken)).toBeNull();
    expect(form.errors.value).toEqual({ blueprint_ref: 'Blueprint taken.team already exists.' });
    expect(form.blocked.value).toBe(true);
    id.value = 'free.team';
    await nextTick();
    expect(form.errors.value).toEqual({});
    // Another code is the form's as a whole.
    expect(form.take(new ApiError(403, 'The blueprint is owned by another team.', [], 'SVC_ERR_BLUEPRINT_OWNED_BY_OTHER_TEAM'))).toBe(
      'The blueprint is owned by another team.',
    );
    expect(form.errors.value).toEqual({});
  });
});
