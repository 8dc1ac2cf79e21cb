/**
 * axe-core (the engine behind most accessibility checkers) run in a page of the app, for the
 * browser tests: accessibility.test.ts audits every view with it, and a view's own test audits the
 * states only it reaches (a dialog open, a step shown).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

// Its source, evaluated in the page: the app's Content-Security-Policy (rightly) refuses a script tag.
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** One finding of axe, as much of it as the failure message needs. */
interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[] }[];
}

/** Two animation frames: the page after a theme change has been painted. */
export const settled = (target: Page) => target.evaluate('new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))');

/**
 * axe's serious and critical violations on `target` as it is now, one line each: the rule, its
 * impact, its help and the first few elements it found. An ARIA rule axe could not decide
 * ("incomplete": a label on an element without a role, a reference to an id not in the page)
 * counts too: the attribute is then likely lost on a screen reader. axe is loaded once per
 * document (a reload drops it).
 */
export async function seriousViolations(target: Page): Promise<string[]> {
  if (!(await target.evaluate("typeof window.axe === 'object'"))) await target.evaluate(`${AXE}\n;undefined`);
  const results = (await target.evaluate(
    "window.axe.run(document, { resultTypes: ['violations', 'incomplete'] }).then((results) => ({ violations: results.violations, incomplete: results.incomplete }))",
  )) as { violations: Violation[]; incomplete: Violation[] };
  return [...results.violations, ...results.incomplete.filter((undecided) => undecided.id.startsWith('aria-'))]
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => {
      const targets = violation.nodes.slice(0, 4).map((found) => found.target.map(String).join(' > '));
      const more = violation.nodes.length > 4 ? ` (+${violation.nodes.length - 4} more)` : '';
      return `${violation.id} (${violation.impact}): ${violation.help} — ${targets.join(' | ')}${more}`;
    });
}
