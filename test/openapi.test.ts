/**
 * The OpenAPI document (handlers/openapi/): it is valid OpenAPI 3.1 as far as its structure goes
 * (every schema is JSON Schema 2020-12 that compiles, every `$ref` resolves, operationIds are
 * unique, path templates match their parameters), it covers every /api route the router knows,
 * and a route added without its schemas is reported, so this test fails on it.
 */
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { Hono } from 'hono'
import { z } from 'zod'
import { app } from '../handlers/app.ts'
import { BODYLESS } from '../handlers/openapi/coverage.ts'
import { buildOpenApi, type OpenApi } from '../handlers/openapi/document.ts'
import { templateOf } from '../handlers/openapi/operations.ts'
import { validate } from '../handlers/validate.ts'
import { createTestApp } from './support/app.ts'

const API_KEY = 'test-api-key-0123456789abcdef'
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']

/** The /api routes as test/api-contract.test.ts enumerates them: from the router itself. */
const routerRoutes = () => [
  ...new Set(
    app.routes
      .filter((r) => r.method !== 'ALL' && r.path.startsWith('/api/'))
      .map((r) => `${r.method} ${r.path.replace(/\/$/, '')}`),
  ),
]

/** The value a JSON pointer (`#/a/b`) names in the document, or undefined. */
function resolve(document: unknown, ref: string): unknown {
  if (!ref.startsWith('#/')) return undefined
  return ref
    .slice(2)
    .split('/')
    .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'))
    .reduce<unknown>(
      (node, key) =>
        node !== null && typeof node === 'object' && Object.hasOwn(node, key)
          ? (node as Record<string, unknown>)[key]
          : undefined,
      document,
    )
}

function refsIn(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(refsIn)
  if (typeof value !== 'object' || value === null) return []
  return Object.entries(value).flatMap(([k, v]) =>
    k === '$ref' && typeof v === 'string' ? [v] : refsIn(v),
  )
}

function operationsIn(document: OpenApi) {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => HTTP_METHODS.includes(method))
      .map(([method, op]) => ({ path, method, op: op as Record<string, unknown> })),
  )
}

/** The structural checks of an OpenAPI 3.1 document; each failure is a line. */
function problemsOf(document: OpenApi): string[] {
  const problems: string[] = []
  if (document.openapi !== '3.1.0') problems.push(`openapi is ${document.openapi}`)
  if (!document.info?.title || !document.info?.version) problems.push('info needs title, version')
  for (const ref of refsIn(document))
    if (resolve(document, ref) === undefined) problems.push(`$ref ${ref} resolves to nothing`)

  // Every schema is JSON Schema 2020-12 (OpenAPI 3.1's dialect): Ajv checks it against the
  // meta-schema and compiles it, resolving its `$ref`s against the whole document.
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false })
  ajv.addSchema({ ...document, $id: 'doc' } as object)
  const schemaPointers = [
    ...Object.keys(document.components.schemas).map((n) => `#/components/schemas/${n}`),
    ...operationsIn(document).flatMap(({ path, method, op }) => [
      ...((op.parameters as unknown[]) ?? []).map(
        (_, i) => `#/paths/${path.replaceAll('/', '~1')}/${method}/parameters/${i}/schema`,
      ),
    ]),
  ]
  for (const pointer of schemaPointers) {
    const schema = resolve(document, pointer)
    if (!ajv.validateSchema(schema as object)) {
      problems.push(`${pointer}: ${ajv.errorsText(ajv.errors)}`)
      continue
    }
    try {
      ajv.compile({ $ref: `doc${pointer}` })
    } catch (error) {
      problems.push(`${pointer}: ${(error as Error).message}`)
    }
  }

  const ids = new Set<string>()
  for (const { path, method, op } of operationsIn(document)) {
    const where = `${method.toUpperCase()} ${path}`
    const id = op.operationId as string
    if (!id) problems.push(`${where} has no operationId`)
    else if (ids.has(id)) problems.push(`operationId ${id} is used twice`)
    ids.add(id)
    const responses = (op.responses ?? {}) as Record<string, unknown>
    if (!Object.keys(responses).length) problems.push(`${where} has no responses`)
    for (const [status, answer] of Object.entries(responses)) {
      const resolved = resolve(document, (answer as { $ref?: string }).$ref ?? '') ?? answer
      if (!(resolved as { description?: string }).description)
        problems.push(`${where} ${status} has no description`)
    }
    const parameters = (op.parameters ?? []) as { name: string; in: string; required?: boolean }[]
    const inPath = parameters.filter((p) => p.in === 'path').map((p) => p.name)
    const templated = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1])
    if (inPath.sort().join() !== templated.sort().join())
      problems.push(`${where}: path parameters [${inPath}] vs template [${templated}]`)
    if (parameters.some((p) => p.in === 'path' && p.required !== true))
      problems.push(`${where}: a path parameter must be required`)
  }
  return problems
}

describe('the OpenAPI document', () => {
  const { document, undeclared } = buildOpenApi(app)

  test('is structurally valid OpenAPI 3.1', () => {
    assert.deepEqual(problemsOf(document), [])
  })

  test('covers every /api route the router knows, with its schemas', () => {
    const documented = new Set(
      operationsIn(document).map(({ method, path }) => `${method.toUpperCase()} ${path}`),
    )
    const routes = routerRoutes()
    assert.ok(routes.length >= 40, `${routes.length} routes`)
    const missing = routes.filter((r) => {
      const [method, path] = r.split(' ')
      return !documented.has(`${method} ${templateOf(path!)}`)
    })
    assert.deepEqual(missing, [])
    assert.equal(documented.size, routes.length, 'nothing documented that the router lacks')
    assert.deepEqual(undeclared, [], 'routes whose inputs the document cannot describe')
  })

  test('the bodyless list names only routes that exist', () => {
    for (const key of Object.keys(BODYLESS)) assert.ok(routerRoutes().includes(key), key)
  })

  test('a route added without its schemas is reported', () => {
    const Params = z.strictObject({ id: z.string() })
    const Body = z.strictObject({ name: z.string() })
    const router = new Hono()
      .get('/api/things/:id', (c) => c.text('no param schema'))
      .post('/api/things', (c) => c.text('no body schema'))
      .put('/api/things/:id', validate('param', z.strictObject({ other: z.string() })), (c) =>
        c.text('a param schema for another name'),
      )
      .patch('/api/things/:id', validate('param', Params), validate('json', Body), (c) =>
        c.text('declared'),
      )
    const { undeclared, document } = buildOpenApi(router)
    assert.deepEqual(
      undeclared.map((u) => `${u.method} ${u.path}`),
      ['GET /api/things/:id', 'POST /api/things', 'PUT /api/things/:id'],
    )
    // A declared schema no contract module exports is still written out, named after its route.
    const patch = document.paths['/api/things/{id}']!.patch as { requestBody: unknown }
    assert.deepEqual(refsIn(patch.requestBody), ['#/components/schemas/patchThingsByIdJson'])
    // The undeclared path parameter is still in the document, so it stays valid; the schema
    // that names another parameter is a structural problem as well.
    assert.deepEqual(problemsOf(document), [
      'PUT /api/things/{id}: path parameters [id,other] vs template [id]',
    ])
  })

  test('the structural checks catch a dangling $ref and a repeated operationId', () => {
    const broken = structuredClone(document)
    const [first, second] = operationsIn(broken)
    second!.op.operationId = first!.op.operationId
    first!.op.requestBody = { content: { 'application/json': { schema: { $ref: '#/nope' } } } }
    const problems = problemsOf(broken).join('\n')
    assert.match(problems, /\$ref #\/nope resolves to nothing/)
    assert.match(problems, /is used twice/)
  })

  test('GET /api/openapi.json serves it, behind the API key like the rest of /api', async () => {
    // The route never touches a database.
    const server = createTestApp({ db: undefined as never, apiKey: API_KEY })
    assert.equal((await server.request('/api/openapi.json')).status, 401)
    const res = await server.request('/api/openapi.json', {
      headers: { 'x-popagent-key': API_KEY },
    })
    assert.equal(res.status, 200)
    assert.match(res.headers.get('content-type') ?? '', /application\/json/)
    assert.deepEqual(await res.json(), JSON.parse(JSON.stringify(document)))
  })
})
