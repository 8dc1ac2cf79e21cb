/**
 * A form's problems, each shown next to its field as "Label: what is wrong", in words:
 * - the client's own checks (the node's exact rules, from contract/), shown as the person types
 *   (a blank field's "enter a name" only once they tried to submit, so a fresh form is not all
 *   red), and gone the moment the value is fixed;
 * - the node's 422 problems for a field (an ApiError's `issues`; one about an item of a list field,
 *   `tags.2`, is the list's), and a refusal whose code is about one field alone (an id already
 *   taken), gone as soon as that field is edited: an error never outlives the fix.
 * Fields are keyed by their wire names (`slug`, `remote_port`, `new_blueprint.name`), the names
 * the node's issues carry.
 */
import { computed, ref, watch } from 'vue';
import type { ErrorCode } from '../../../contract/errors.ts';
import { ApiError, issueSentence } from '../api/errors.ts';
import { errorMessage } from '../lib/format.ts';

export interface FieldSpec {
  label: string;
  /** The value as typed. */
  value: () => string;
  /** Why the value cannot be sent, in words that follow the label; null when it can. */
  check?: (value: string) => string | null;
  /**
   * The field starts filled in (a suggested version): emptied, its check shows at once, as for any
   * other value; a fresh form has nothing blank in it to be red about.
   */
  prefilled?: boolean;
  /** The node's refusals about this field alone, by their code (a taken id): the node's words go under it. */
  codes?: readonly ErrorCode[];
}

export type FieldErrors<K extends string> = ReturnType<typeof useFieldErrors<K>>;

/** Shown with FormField: it puts each problem under its field and wires it to the control. */
export function useFieldErrors<K extends string>(fields: Record<K, FieldSpec>) {
  const keys = Object.keys(fields) as K[];
  const labels = Object.fromEntries(keys.map((key) => [key, fields[key].label])) as Record<string, string>;
  /** True once a submit was tried: the client's checks show from then on. */
  const attempted = ref(false);
  const fromNode = ref<Partial<Record<K, string>>>({});

  for (const key of keys) {
    watch(fields[key].value, () => {
      if (fromNode.value[key] === undefined) return;
      const rest = { ...fromNode.value };
      delete rest[key];
      fromNode.value = rest;
    });
  }

  /** Field → "Label: problem", for the fields that have one now. */
  const errors = computed(() => {
    const found: Partial<Record<K, string>> = {};
    for (const key of keys) {
      const node = fromNode.value[key];
      if (node !== undefined) {
        found[key] = node;
        continue;
      }
      const value = fields[key].value();
      const live = attempted.value || fields[key].prefilled === true || value.trim() !== '';
      const problem = live ? (fields[key].check?.(value) ?? null) : null;
      if (problem !== null) found[key] = issueSentence({ field: key, message: problem }, labels);
    }
    return found;
  });

  /** True while a problem is shown: a form's submit button waits for the fix. */
  const blocked = computed(() => Object.keys(errors.value).length > 0);

  /** Before sending: shows the client's checks; true when nothing stands in the way. */
  function validate(): boolean {
    attempted.value = true;
    return Object.keys(errors.value).length === 0;
  }

  /**
   * A failed send: the node's problems about this form's fields go next to them; what is left
   * (another field, the request as a whole, a sentence) comes back in words for the form's
   * ErrorNote, or null when every problem has its field.
   */
  function take(error: unknown): string | null {
    if (!(error instanceof ApiError)) return errorMessage(error);
    const byCode = error.code === null ? undefined : keys.find((key) => fields[key].codes?.includes(error.code as ErrorCode));
    if (byCode !== undefined) {
      fromNode.value = { [byCode]: error.message } as Partial<Record<K, string>>;
      return null;
    }
    if (error.issues.length === 0) return errorMessage(error);
    const mine: Partial<Record<K, string>> = {};
    const rest: string[] = [];
    for (const issue of error.issues) {
      const field = fieldOf(issue.field);
      const sentence = issueSentence(field === null ? issue : { ...issue, field }, labels);
      if (field !== null) mine[field] ??= sentence;
      else rest.push(sentence);
    }
    fromNode.value = mine;
    return rest.length > 0 ? rest.join('; ') : null;
  }

  /** The form's field an issue is about: its own, or the list an item of belongs to (`tags.2`). */
  function fieldOf(field: string | null): K | null {
    if (field === null) return null;
    if (field in fields) return field as K;
    const list = field.replace(/(\.\d+)+$/, '');
    return list in fields ? (list as K) : null;
  }

  function reset(): void {
    attempted.value = false;
    fromNode.value = {};
  }

  return { errors, blocked, validate, take, reset, values: () => keys.map((key) => fields[key].value()) };
}
