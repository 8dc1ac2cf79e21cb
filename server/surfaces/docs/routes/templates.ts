/** Template discovery (ours, research C8): the built-in templates, their slots and an example. */
import type { FastifyInstance } from 'fastify';
import { notFound } from '../../../errors.ts';
import { parseWith } from '../../../http/validate.ts';
import { describeTemplate, LIMITS, listTemplates, templateName } from '../domain/templates.ts';
import { TemplateParams } from '../schemas.ts';
import { memberWith } from './options.ts';

export async function templateRoutes(app: FastifyInstance): Promise<void> {
  app.get('/v1/templates', async (request) => {
    memberWith(request, 'docs:read');
    // Ours: the slot limits, so forms can say what the node would refuse without a copy of them.
    return { templates: listTemplates(), limits: LIMITS };
  });

  app.get('/v1/templates/:name', async (request) => {
    memberWith(request, 'docs:read');
    const { name } = parseWith(TemplateParams, request.params, 'path');
    const known = templateName(name);
    if (known === null) throw notFound(`Unknown template: ${name}`);
    return describeTemplate(known);
  });
}
