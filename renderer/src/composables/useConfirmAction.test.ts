/**
 * A confirm dialog's action runs on what the dialog asks about, never without it; the node's
 * refusal stays in words until the dialog asks again or about something else.
 */
import { describe, expect, it } from 'vitest';
import { effectScope, nextTick, ref } from 'vue';
import { ApiError } from '../api/errors.ts';
import { useConfirmAction } from './useConfirmAction.ts';

function holdDialog() {
  const asked = ref<string | null>('member-1');
  const scope = effectScope();
  const action = scope.run(() => useConfirmAction(() => asked.value))!;
  return { asked, action };
}

describe('useConfirmAction', () => {
  it('runs on the subject asked about, and keeps the node’s refusal until another is asked about', async () => {
    const { asked, action } = holdDialog();
    const done: string[] = [];
    expect(await action.confirm(async (subject) => (done.push(subject), 'revoked'))).toBe('revoked');
    expect(done).toEqual(['member-1']);
    expect(
      await action.confirm(() => {
        throw new ApiError(409, 'The member is already revoked.');
      }),
    ).toBeNull();
    expect(action.error.value).toBe('The member is already revoked.');
    expect(action.busy.value).toBe(false);
    asked.value = 'member-2';
    await nextTick();
    expect(action.error.value).toBeNull();
  });

  it('runs nothing while nothing is asked about', async () => {
    const { asked, action } = holdDialog();
    asked.value = null;
    let ran = false;
    expect(await action.confirm(async () => (ran = true))).toBeNull();
    expect(ran).toBe(false);
  });
});
