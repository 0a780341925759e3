// The schema every route declares: validation of params, query and body, the response shapes (which also make
// responses fast to serialize), and the words the OpenAPI document shows.
import type { FastifySchema } from 'fastify';
import { errorSchema } from './v3/schemas.ts';

type Schema = Record<string, unknown>;

export interface RouteDoc {
  summary: string;
  tags: string[];
  description?: string;
  params?: Schema;
  querystring?: Schema;
  /** The request body; a POST/PUT/PATCH/DELETE without one refuses any body but an empty one (see server.ts). */
  body?: Schema;
  /** Success responses by status code; `null` for a response without a body (204). */
  ok: Record<number, Schema | null>;
}

export function routeSchema(doc: RouteDoc): FastifySchema {
  const response: Record<string, Schema> = {};
  for (const [code, schema] of Object.entries(doc.ok)) {
    response[code] = schema ?? { type: 'null', description: 'No Content' };
  }
  response['4xx'] = errorSchema;
  response['5xx'] = errorSchema;
  return {
    summary: doc.summary,
    tags: doc.tags,
    ...(doc.description ? { description: doc.description } : {}),
    ...(doc.params ? { params: doc.params } : {}),
    ...(doc.querystring ? { querystring: doc.querystring } : {}),
    ...(doc.body ? { body: doc.body } : {}),
    response,
  };
}

/**
 * For routes that take no body: a request without one passes, and so does `{}` (what `curl -d '{}'` and many
 * HTTP clients send); any other body is refused, so a misspelt parameter is not silently ignored.
 */
export const noBody: Schema = { type: ['null', 'object'], maxProperties: 0, description: 'no body (or {})' };
