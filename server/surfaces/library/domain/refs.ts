/**
 * The shape of a blueprint_ref or profile_ref (`aweb.team`, `coder`): it names a directory
 * (`profiles/<ref>/`) and appears in URLs, so it is lowercase letters, digits, `.`, `-` and `_`,
 * 1-128 characters, starting with a letter or digit (which also rules out `.` and `..`).
 */
export const REF_PATTERN = /^[a-z0-9][a-z0-9._-]{0,127}$/;

export function isRef(value: string): boolean {
  return REF_PATTERN.test(value);
}
