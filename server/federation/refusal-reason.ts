/**
 * The reason a receiving node gave for refusing a delivery, as the sender's bounce and outbound
 * status may show it.
 *
 * Remote answers are never echoed (DESIGN §7: otherwise anyone could make the node fetch a server
 * of their choosing and show them its answer), and the one exception is deliberate: a refusal's
 * `detail` is the federation protocol's way for the receiving node to tell the sender why (the
 * recipient only takes mail from contacts, the address does not exist), and without it a bounce
 * says nothing useful. It is kept only in the shape a node answers with (a JSON content type and a
 * `{"detail": ...}` object), so a body from anything else, say a `db_password=…` page, is never
 * shown; and it is cleaned (control and format characters out, whitespace collapsed) and capped,
 * so a hostile node can put no more than a short line of its own words in a local inbox. Whatever
 * answered is a node the owner listed or one DNS placed at a public address (the outbound client
 * refuses the rest), so these are that node's words, not an internal service's.
 */
import { answerJson, type RemoteAnswer } from '../net/remote-client.ts';

/**
 * Whether a status refuses for good (the sender bounces the message): a 4xx other than 408 and
 * 429, which only say "not now". The same rule for what a node answers us and what we answer in a
 * batch's results.
 */
export const isRefusalStatus = (status: number): boolean => status >= 400 && status < 500 && status !== 408 && status !== 429;

/** The longest refusal reason kept, in characters. */
export const REFUSAL_REASON_MAX_CHARS = 300;

/** The answer's `detail` as a string: a message, or a validation list as `loc: msg; …`. */
function detailText(detail: unknown): string | null {
  if (typeof detail === 'string') return detail;
  if (!Array.isArray(detail)) return null;
  const issues = (detail as unknown[]).flatMap((item) => {
    if (typeof item !== 'object' || item === null) return [];
    const issue = item as { loc?: unknown; msg?: unknown };
    return typeof issue.msg === 'string' ? [`${Array.isArray(issue.loc) ? `${issue.loc.join('.')}: ` : ''}${issue.msg}`] : [];
  });
  return issues.length > 0 ? issues.join('; ') : null;
}

/** The cleaned, capped reason; null when the answer is not a JSON `{detail}` refusal. */
export function refusalReason(answer: RemoteAnswer): string | null {
  let value: unknown;
  try {
    value = answerJson(answer);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const text = detailText((value as { detail?: unknown }).detail);
  return text === null ? null : cleanRefusal(text);
}

/** A refusal's words as a bounce may show them (a batch result's `detail`, or an answer's): null when nothing is left. */
export function cleanRefusal(text: string): string | null {
  const clean = text
    .replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^Refused: /, '');
  if (clean === '') return null;
  const chars = [...clean];
  return chars.length > REFUSAL_REASON_MAX_CHARS ? `${chars.slice(0, REFUSAL_REASON_MAX_CHARS - 1).join('')}…` : clean;
}
