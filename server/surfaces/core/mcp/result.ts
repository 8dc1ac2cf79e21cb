/**
 * Tool results: the service's answer, read through the tool's output schema (the shape its
 * `outputSchema` advertises, so fields a service keeps for itself never reach the host), as text
 * and as structured content. A refusal becomes an error result carrying the same `detail` and
 * `code` the HTTP API would give (MCP clients show the detail and may branch on the code).
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { z } from 'zod';
import { ServiceError } from '../../../errors.ts';

export async function toolResult(schema: z.ZodType<Record<string, unknown>>, run: () => unknown): Promise<CallToolResult> {
  try {
    const value = schema.parse(await run());
    return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    const body = { error: error.detail, status: error.statusCode, code: error.code };
    return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }] };
  }
}
