/**
 * Tags on blueprints and shelf profiles at the node's door: each one spelled and
 * checked by the shared rule (contract/library-rules.ts, which the UI previews with), the set
 * deduplicated and sorted, and every refusal reported in one 422.
 */
import { normalizeTag, tagCountProblem, tagProblem } from '../../../../contract/library-rules.ts';
import { invalid, type ValidationIssue } from '../../../errors.ts';

/** Trimmed, lower-cased, without empties and duplicates, sorted; 422 for a tag that cannot be one. */
export function normalizeTags(tags: readonly string[], loc: (string | number)[] = ['body', 'tags']): string[] {
  const issues: ValidationIssue[] = [];
  const out = new Set<string>();
  tags.forEach((raw, index) => {
    const tag = normalizeTag(raw);
    if (tag === '') return;
    const problem = tagProblem(tag);
    if (problem) issues.push({ loc: [...loc, index], msg: problem, type: 'value_error' });
    else out.add(tag);
  });
  const tooMany = tagCountProblem(out.size);
  if (tooMany) issues.push({ loc, msg: tooMany, type: 'value_error' });
  if (issues.length > 0) throw invalid('SVC_ERR_VALIDATION', issues);
  return [...out].sort();
}
