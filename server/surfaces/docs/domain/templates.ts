/**
 * Declarative templates, as upstream has them: built-in only (team-authored templates would need a
 * safety design first). A template is validated, rendered to plain Markdown and stored as an
 * ordinary version; the template object itself is never stored.
 *
 * - `pitch`: cover, metrics, sections, ask; `memo`: cover, sections; `metrics`: cover, metrics.
 * - `cover` is required everywhere; unknown keys and slots are 422; strings are trimmed.
 * - Rendering: cover (italic eyebrow, `# title`, subtitle), `## Metrics` table (pitch, metrics),
 *   `## heading` + body per section (pitch, memo), `## headline` + body + bullets (pitch). Parts
 *   are joined with blank lines and the result ends with a newline.
 *
 * Our choices where upstream is silent: required strings must be non-empty after trimming; line
 * breaks in one-line fields (titles, headings, items) become spaces; empty lists render nothing.
 */
import type { z } from 'zod';
import { Ask, Cover, SLOT_SCHEMAS, TemplateRequest, type TemplateDetail, type TemplateSummary } from '../../../../contract/docs/templates.ts';
import { TEMPLATE_LIMITS as LIMITS, TEMPLATE_NAMES, type SlotName, type TemplateName } from '../../../../contract/docs/rules.ts';
import { invalid, type ValidationIssue } from '../../../errors.ts';

// The template object, its slots' schemas and limits are the contract's (contract/docs/templates.ts).
export { LIMITS, TEMPLATE_NAMES, TemplateRequest, type TemplateDetail, type TemplateName, type TemplateSummary };
export type TemplateRequestInput = z.output<typeof TemplateRequest>;

const ALLOWED_SLOTS: Record<TemplateName, readonly SlotName[]> = {
  pitch: ['cover', 'metrics', 'sections', 'ask'],
  memo: ['cover', 'sections'],
  metrics: ['cover', 'metrics'],
};

const DESCRIPTIONS: Record<TemplateName, string> = {
  pitch: 'A pitch: cover, a metrics table, sections and a closing ask.',
  memo: 'A memo: cover and sections.',
  metrics: 'A metrics sheet: cover and a metrics table.',
};

interface Slots {
  cover: z.output<typeof Cover>;
  sections?: z.output<(typeof SLOT_SCHEMAS)['sections']>;
  metrics?: z.output<(typeof SLOT_SCHEMAS)['metrics']>;
  ask?: z.output<typeof Ask>;
}

const oneLine = (text: string): string => text.replace(/\r\n|\r|\n/g, ' ');

/** A table cell: line breaks → `<br>`, control characters → spaces, `\` and `|` escaped. */
export function escapeCell(text: string): string {
  return (
    text
      .replace(/\r\n|\r|\n/g, '<br>')
      // eslint-disable-next-line no-control-regex
      .replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ')
      .replace(/\\/g, '\\\\')
      .replace(/\|/g, '\\|')
  );
}

/** The template name as looked up: trimmed and lower-cased; null when unknown. */
export function templateName(name: string): TemplateName | null {
  const normalized = name.trim().toLowerCase();
  return (TEMPLATE_NAMES as readonly string[]).includes(normalized) ? (normalized as TemplateName) : null;
}

function validate(name: TemplateName, slots: Record<string, unknown>, loc: (string | number)[]): Slots {
  const issues: ValidationIssue[] = [];
  const allowed = ALLOWED_SLOTS[name];
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(slots)) {
    if (!(allowed as readonly string[]).includes(key)) {
      issues.push({ loc: [...loc, key], msg: `Slot "${key}" is not allowed in template ${name} (allowed: ${allowed.join(', ')})`, type: 'unrecognized_keys' });
    }
  }
  if (slots.cover === undefined) issues.push({ loc: [...loc, 'cover'], msg: 'The cover slot is required', type: 'missing' });
  for (const slot of allowed) {
    if (slots[slot] === undefined) continue;
    const result = SLOT_SCHEMAS[slot].safeParse(slots[slot]);
    if (result.success) out[slot] = result.data;
    else {
      for (const issue of result.error.issues) {
        issues.push({ loc: [...loc, slot, ...issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p))], msg: issue.message, type: issue.code });
      }
    }
  }
  if (issues.length > 0) throw invalid('SVC_ERR_VALIDATION', issues);
  return out as unknown as Slots;
}

function render(name: TemplateName, slots: Slots): string {
  const parts: string[] = [];
  const { cover } = slots;
  if (cover.eyebrow) parts.push(`_${oneLine(cover.eyebrow)}_`);
  parts.push(`# ${oneLine(cover.title)}`);
  if (cover.subtitle) parts.push(cover.subtitle);

  if ((name === 'pitch' || name === 'metrics') && slots.metrics && slots.metrics.length > 0) {
    parts.push('## Metrics');
    const rows = slots.metrics.map((m) => `| ${escapeCell(m.label)} | ${escapeCell(m.value)} | ${escapeCell(m.caption ?? '')} |`);
    parts.push(['| Metric | Value | Notes |', '| --- | --- | --- |', ...rows].join('\n'));
  }

  if ((name === 'pitch' || name === 'memo') && slots.sections) {
    for (const section of slots.sections) {
      parts.push(`## ${oneLine(section.heading)}`);
      if (section.body) parts.push(section.body);
    }
  }

  if (name === 'pitch' && slots.ask) {
    parts.push(`## ${oneLine(slots.ask.headline || 'Ask')}`);
    if (slots.ask.body) parts.push(slots.ask.body);
    if (slots.ask.items && slots.ask.items.length > 0) parts.push(slots.ask.items.map((item) => `- ${oneLine(item)}`).join('\n'));
  }
  return `${parts.join('\n\n')}\n`;
}

/**
 * Validates a template request and renders it to Markdown; a 422 with the issues' locations
 * (under `loc`, e.g. ['body', 'template', 'slots']) otherwise.
 */
export function renderTemplate(request: TemplateRequestInput, loc: (string | number)[]): string {
  const name = templateName(request.name);
  if (name === null)
    throw invalid('SVC_ERR_VALIDATION', [{ loc: [...loc, 'name'], msg: `Unknown template: ${request.name.trim().toLowerCase()}`, type: 'value_error' }]);
  return render(name, validate(name, request.slots ?? {}, [...loc, 'slots']));
}

// ---- Discovery (ours): GET /v1/templates and /v1/templates/{name} ----

const str = (maxLength: number, description?: string) => ({ type: 'string', maxLength, ...(description ? { description } : {}) });

const SLOT_SHAPES: Record<SlotName, Record<string, unknown>> = {
  cover: {
    type: 'object',
    required: ['title'],
    additionalProperties: false,
    properties: { title: str(LIMITS.title), subtitle: str(LIMITS.subtitle), eyebrow: str(LIMITS.eyebrow, 'rendered as an italic line above the title') },
  },
  metrics: {
    type: 'array',
    maxItems: LIMITS.metrics,
    items: {
      type: 'object',
      required: ['label', 'value'],
      additionalProperties: false,
      properties: { label: str(LIMITS.label), value: str(LIMITS.value), caption: str(LIMITS.caption, 'the Notes column') },
    },
  },
  sections: {
    type: 'array',
    maxItems: LIMITS.sections,
    items: {
      type: 'object',
      required: ['heading'],
      additionalProperties: false,
      properties: { heading: str(LIMITS.heading), body: str(LIMITS.sectionBody, 'Markdown') },
    },
  },
  ask: {
    type: 'object',
    additionalProperties: false,
    properties: {
      headline: { ...str(LIMITS.headline), default: 'Ask' },
      body: str(LIMITS.askBody, 'Markdown'),
      items: { type: 'array', maxItems: LIMITS.items, items: str(LIMITS.item) },
    },
  },
};

const EXAMPLE_SLOTS: Record<SlotName, unknown> = {
  cover: { eyebrow: 'Q3 update', title: 'Project Lighthouse', subtitle: 'Where we are and what we need.' },
  metrics: [
    { label: 'Active teams', value: '42', caption: 'up from 30' },
    { label: 'Retention', value: '91%' },
  ],
  sections: [{ heading: 'Progress', body: 'Shipped the document surface.' }],
  ask: { headline: 'Ask', body: 'Two things would unblock us:', items: ['A design review', 'Budget for Q4'] },
};

export function listTemplates(): TemplateSummary[] {
  return TEMPLATE_NAMES.map((name) => ({ name, description: DESCRIPTIONS[name], slots: [...ALLOWED_SLOTS[name]], required_slots: ['cover'] }));
}

export function describeTemplate(name: TemplateName): TemplateDetail {
  const slots = ALLOWED_SLOTS[name];
  const example = { name, slots: Object.fromEntries(slots.map((slot) => [slot, EXAMPLE_SLOTS[slot]])) };
  return {
    name,
    description: DESCRIPTIONS[name],
    slots: [...slots],
    required_slots: ['cover'],
    schema: {
      type: 'object',
      required: ['name', 'slots'],
      additionalProperties: false,
      properties: {
        name: { const: name },
        slots: {
          type: 'object',
          required: ['cover'],
          additionalProperties: false,
          properties: Object.fromEntries(slots.map((slot) => [slot, SLOT_SHAPES[slot]])),
        },
      },
    },
    example,
    example_markdown: renderTemplate(example, []),
  };
}
