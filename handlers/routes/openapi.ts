import { Hono } from 'hono'
import type { AppEnv } from '../env.ts'
import { buildOpenApi, type OpenApi } from '../openapi/document.ts'
import type { RouteTable } from '../openapi/operations.ts'

/**
 * `GET /api/openapi.json`: the OpenAPI 3.1 document of every /api route, built from the router
 * the first time it is asked for (once per process on Node, per isolate on Workers) and kept.
 *
 * It stays behind the API key like the rest of /api (test/faults/public-routes.json says why):
 * it holds no data, but nothing under /api is public, the one owner's clients all hold the key,
 * and the same description is in the repository for anyone without one.
 *
 * `router` is a function because the document describes the app this route is mounted in.
 */
export function openapi(router: () => RouteTable) {
  let document: OpenApi | undefined
  return new Hono<AppEnv>().get('/', (c) => {
    document ??= buildOpenApi(router()).document
    return c.json(document, 200)
  })
}
