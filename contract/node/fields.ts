/**
 * Owner API fields checked by the contract's rules (contract/core-rules.ts), trimmed as the UI
 * trims them: the UI checks its forms with the same functions, and the node's 422 carries the
 * same words.
 */
import { z } from 'zod';
import { addressNameProblem, domainProblem, normalizeDomainName, slugProblem } from '../core-rules.ts';

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

/** A project slug and an identity's (address) name, by the contract's rules. */
export const projectSlug = ruled(slugProblem);
export const identityName = ruled(addressNameProblem);
/**
 * A namespace domain by the contract's rule, read as the node stores it (lower case, no trailing
 * dot). domainProblem refuses whatever normalizeDomainName cannot spell, so the fallback is never taken.
 */
export const domainName = ruled(domainProblem).transform((value) => normalizeDomainName(value) ?? value);
