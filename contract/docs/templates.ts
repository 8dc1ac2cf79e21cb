/**
 * Templates (upstream's built-in ones; discovery is ours): the template object a document is
 * created or appended from, the slots each built-in template takes, and what discovery
 * (`GET /v1/templates…`) answers. Which template takes which slots, and rendering, are the node's
 * (server/surfaces/docs/domain/templates.ts).
 */
import { z } from 'zod';
import { SLOT_NAMES, TEMPLATE_LIMITS as LIMITS, TEMPLATE_NAMES } from './rules.ts';

/** The template object of POST /v1/documents and the body of POST …/versions/template; its slots are checked per template. */
export const TemplateRequest = z.strictObject({ name: z.string().max(64), slots: z.record(z.string(), z.unknown()).optional() });
export type TemplateRequest = z.output<typeof TemplateRequest>;

export const TemplateParams = z.strictObject({ name: z.string().max(64) });

// Slots: strings are trimmed; required ones must not be empty; unknown keys are refused.
const required = (max: number) => z.string().trim().min(1, 'must not be empty').max(max);
const optional = (max: number) => z.string().trim().max(max).optional();

export const Cover = z.strictObject({ title: required(LIMITS.title), subtitle: optional(LIMITS.subtitle), eyebrow: optional(LIMITS.eyebrow) });
export const Section = z.strictObject({ heading: required(LIMITS.heading), body: optional(LIMITS.sectionBody) });
export const Metric = z.strictObject({ label: required(LIMITS.label), value: required(LIMITS.value), caption: optional(LIMITS.caption) });
export const Ask = z.strictObject({
  headline: optional(LIMITS.headline),
  body: optional(LIMITS.askBody),
  items: z.array(required(LIMITS.item)).max(LIMITS.items).optional(),
});

/** Each slot's schema. */
export const SLOT_SCHEMAS = {
  cover: Cover,
  sections: z.array(Section).max(LIMITS.sections),
  metrics: z.array(Metric).max(LIMITS.metrics),
  ask: Ask,
} as const;

// ---------------------------------------------------------------------------------- responses

export const TemplateName = z.enum(TEMPLATE_NAMES);
export const SlotName = z.enum(SLOT_NAMES);

/** The slots' limits, as GET /v1/templates sends them so forms can say what the node would refuse. */
export const TemplateLimits = z.object(
  Object.fromEntries(Object.keys(LIMITS).map((key) => [key, z.number().int()])) as Record<keyof typeof LIMITS, z.ZodNumber>,
);
export type TemplateLimits = z.output<typeof TemplateLimits>;

export const TemplateSummary = z.object({
  name: TemplateName,
  description: z.string(),
  slots: z.array(SlotName),
  required_slots: z.array(SlotName),
});
export type TemplateSummary = z.output<typeof TemplateSummary>;

/** `GET /v1/templates`: the built-in templates and the limits their slots share. */
export const TemplateList = z.object({ templates: z.array(TemplateSummary), limits: TemplateLimits });
export type TemplateList = z.output<typeof TemplateList>;

/** `GET /v1/templates/{name}`: a template with its JSON Schema, an example and the Markdown the example renders to. */
export const TemplateDetail = TemplateSummary.extend({
  schema: z.record(z.string(), z.unknown()),
  example: z.object({ name: TemplateName, slots: z.record(z.string(), z.unknown()) }),
  example_markdown: z.string(),
});
export type TemplateDetail = z.output<typeof TemplateDetail>;
