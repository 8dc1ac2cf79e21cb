/** Template discovery (ours): the built-in templates, their slots and an example, for forms and agents. */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { TemplateDetail, TemplateList, TemplateParams } from '../../../../contract/docs/templates.ts';
import { notFound } from '../../../errors.ts';
import { describeTemplate, LIMITS, listTemplates, templateName } from '../domain/templates.ts';
import { team } from '../route-options.ts';

const tags = ['templates'];

export async function templateRoutes(app: FastifyInstance): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.get(
    '/v1/templates',
    { config: team('docs:read'), schema: { tags, summary: 'The built-in templates and the limits their slots share', response: { 200: TemplateList } } },
    // Ours: the slot limits, so forms can say what the node would refuse without a copy of them.
    async () => ({ templates: listTemplates(), limits: LIMITS }),
  );

  api.get(
    '/v1/templates/:name',
    {
      config: team('docs:read'),
      schema: { tags, summary: 'A template: its slots, JSON Schema, an example and its Markdown', params: TemplateParams, response: { 200: TemplateDetail } },
    },
    async (request) => {
      const { name } = request.params;
      const known = templateName(name);
      if (known === null) throw notFound('SVC_ERR_TEMPLATE_NOT_FOUND', `Unknown template: ${name}`);
      return describeTemplate(known);
    },
  );
}
