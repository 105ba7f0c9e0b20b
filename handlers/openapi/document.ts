import type { z } from 'zod'
import packageJson from '../../package.json' with { type: 'json' }
import { API_KEY_HEADER } from '../middleware/auth.ts'
import { reachable, refsIn, refTo, toJsonSchemas, type JsonSchema } from './components.ts'
import { undeclared } from './coverage.ts'
import { contractNames } from './names.ts'
import {
  operationsOf,
  templateOf,
  type Operation,
  type RouteTable,
  type Target,
} from './operations.ts'
import { ERROR_RESPONSES, ERROR_SCHEMAS, responsesOf } from './responses.ts'

export type Undeclared = { method: string; path: string; problems: string[] }
export type OpenApi = {
  openapi: string
  info: { title: string; version: string; description: string }
  paths: Record<string, Record<string, Record<string, unknown>>>
  components: { schemas: Record<string, JsonSchema> } & Record<string, unknown>
} & Record<string, unknown>

/** `GET /api/tasks/:id/workflow` → `getTasksByIdWorkflow`: readable, and unique per route. */
export function operationIdOf(method: string, path: string, prefix: string): string {
  const words = path
    .slice(prefix.length)
    .split('/')
    .filter(Boolean)
    .map((w) => (w.startsWith(':') ? `by-${w.slice(1)}` : w))
    .join('-')
    .split(/[^A-Za-z0-9]+/)
  return [method.toLowerCase(), ...words.map((w) => w.charAt(0).toUpperCase() + w.slice(1))].join(
    '',
  )
}

// Inputs that travel as OpenAPI parameters, and where.
const PARAMETER_IN: Partial<Record<Target, string>> = {
  param: 'path',
  query: 'query',
  header: 'header',
  cookie: 'cookie',
}

/** An object schema's properties as OpenAPI parameters (a path parameter is always required). */
function parametersOf(schema: JsonSchema | undefined, where: string) {
  const properties = (schema?.properties ?? {}) as Record<string, JsonSchema>
  const required = new Set((schema?.required ?? []) as string[])
  return Object.entries(properties).map(([name, property]) => ({
    name,
    in: where,
    required: where === 'path' || required.has(name),
    schema: property,
  }))
}

function operationOf(
  prefix: string,
  op: Operation,
  id: string,
  names: Map<z.ZodType, string>,
  all: Record<string, JsonSchema>,
) {
  const parameters = Object.entries(PARAMETER_IN).flatMap(([target, where]) => {
    const schema = op.inputs[target as Target]
    return schema ? parametersOf(all[names.get(schema)!], where) : []
  })
  // A path parameter no schema names (reported by coverage.ts) is still a string in the path,
  // so the document stays valid while the gap is reported.
  for (const name of op.params)
    if (!parameters.some((p) => p.in === 'path' && p.name === name))
      parameters.push({ name, in: 'path', required: true, schema: { type: 'string' } })
  const body = op.inputs.json ?? op.inputs.form
  const mediaType = op.inputs.json ? 'application/json' : 'multipart/form-data'
  return {
    operationId: id,
    tags: [op.path.slice(prefix.length).split('/')[0] || 'api'],
    ...(parameters.length && { parameters }),
    ...(body && {
      requestBody: {
        required: true,
        content: { [mediaType]: { schema: { $ref: refTo(names.get(body)!) } } },
      },
    }),
    responses: responsesOf(op),
  }
}

/**
 * The OpenAPI 3.1 document of every route under `prefix`, built from the router and the zod
 * schemas its `validate()` middlewares carry: nothing here restates a shape. `undeclared` lists
 * the routes whose inputs the document cannot describe (coverage.ts); the route that serves the
 * document serves it regardless, and the OpenAPI test fails on any.
 */
export function buildOpenApi(router: RouteTable, prefix = '/api/') {
  const operations = operationsOf(router, prefix)
  const names = contractNames()
  const ids = new Map(operations.map((op) => [op, operationIdOf(op.method, op.path, prefix)]))
  // A schema no contract module exports is named after its route, e.g. `postThingsJson`.
  for (const op of operations)
    for (const [target, schema] of Object.entries(op.inputs))
      if (!names.has(schema))
        names.set(schema, `${ids.get(op)}${target[0]!.toUpperCase()}${target.slice(1)}`)
  const all = toJsonSchemas(names)

  const paths: OpenApi['paths'] = {}
  for (const op of operations) {
    if (op.method === 'ALL') continue
    const item = (paths[templateOf(op.path)] ??= {})
    item[op.method.toLowerCase()] = operationOf(prefix, op, ids.get(op)!, names, all)
  }
  const document: OpenApi = {
    openapi: '3.1.0',
    info: {
      title: 'popagent',
      version: packageJson.version,
      description:
        'The HTTP API of popagent, generated from the zod schemas its routes validate with. Every route needs the API key; errors are always `{ error: { code, message, data? } }`.',
    },
    security: [{ apiKey: [] }],
    tags: [
      ...new Set(
        Object.values(paths).flatMap((item) =>
          Object.values(item).flatMap((o) => o.tags as string[]),
        ),
      ),
    ].map((name) => ({ name })),
    paths,
    components: {
      schemas: reachable(all, [...refsIn(paths), ...ERROR_SCHEMAS.map(refTo)]),
      responses: ERROR_RESPONSES,
      securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: API_KEY_HEADER } },
    },
  }
  const gaps: Undeclared[] = operations
    .map((op) => ({ method: op.method, path: op.path, problems: undeclared(op) }))
    .filter((u) => u.problems.length)
  return { document, undeclared: gaps }
}
