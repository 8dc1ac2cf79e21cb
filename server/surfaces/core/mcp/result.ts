/**
 * Tool results: the service's JSON answer as text and as structured content; a refusal becomes
 * an error result carrying the same `detail` and `code` the HTTP API would give (MCP clients show
 * the detail and may branch on the code).
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import { ServiceError } from '../../../errors.ts';

export async function toolResult(run: () => unknown): Promise<CallToolResult> {
  try {
    const value = (await run()) as Record<string, unknown>;
    return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    const body = { error: error.detail, status: error.statusCode, code: error.code };
    return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }] };
  }
}
