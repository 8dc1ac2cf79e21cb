/** Template discovery (ours, research C8): the built-in templates, their slots and an example. */
import type { FastifyInstance } from 'fastify';
import { notFound } from '../../../errors.ts';
import { parseWith } from '../../../http/validate.ts';
import { describeTemplate, listTemplates, templateName } from '../domain/templates.ts';
import { TemplateParams } from '../schemas.ts';
import { memberWith } from './options.ts';

export async function templateRoutes(app: FastifyInstance): Promise<void> {
  app.get('/v1/templates', async (request) => {
    memberWith(request, 'docs:read');
    return { templates: listTemplates() };
  });

  app.get('/v1/templates/:name', async (request) => {
    memberWith(request, 'docs:read');
    const { name } = parseWith(TemplateParams, request.params, 'path');
    const known = templateName(name);
    if (known === null) throw notFound(`Unknown template: ${name}`);
    return describeTemplate(known);
  });
}
