/**
 * Owner API fields checked by the contract's rules (contract/core-rules.ts), trimmed as the UI
 * trims them: the UI checks its forms with the same functions, and the node's 422 carries the
 * same words.
 */
import { z } from 'zod';
import { addressNameProblem, domainProblem, slugProblem } from '../core-rules.ts';

/** A string checked by a rule that says what is wrong; the rule checks lengths itself, so one bad value is one issue. */
export function ruled(problem: (value: string) => string | null) {
  return z
    .string()
    .trim()
    .superRefine((value, context) => {
      const text = problem(value);
      if (text !== null) context.addIssue({ code: 'custom', message: text });
    });
}

/** A project slug, an identity's (address) name and a namespace domain, by the contract's rules. */
export const projectSlug = ruled(slugProblem);
export const identityName = ruled(addressNameProblem);
export const domainName = ruled(domainProblem);
