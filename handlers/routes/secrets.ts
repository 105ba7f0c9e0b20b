import { Hono } from 'hono'
import { createMiddleware } from 'hono/factory'
import {
  CreateSecretInput,
  RotateSecretInput,
  SecretBindingsInput,
  SecretParams,
} from '../../runtime/contracts/secrets.ts'
import * as Secrets from '../../runtime/secrets/index.ts'
import type { AppEnv } from '../env.ts'
import { validate } from '../validate.ts'

/**
 * The secrets vault (X4). Values go in and never come out: every answer is a SecretView (name,
 * version, key id, fingerprint, origins). The compute host holds the key, so writes that encrypt
 * or must update its redactor (create, rotate, delete) go through it; list and bind need only
 * the database. Answers are never cached.
 */
const noStore = createMiddleware<AppEnv>(async (c, next) => {
  await next()
  c.header('cache-control', 'no-store')
})

export const secrets = new Hono<AppEnv>()
  .use(noStore)
  .get('/', async (c) => c.json({ secrets: await Secrets.list(c.var.db) }, 200))
  .post('/', validate('json', CreateSecretInput), async (c) =>
    c.json(await c.var.host.secretCreate(c.req.valid('json')), 201),
  )
  .post(
    '/:id/rotate',
    validate('param', SecretParams),
    validate('json', RotateSecretInput),
    async (c) => {
      const { id } = c.req.valid('param')
      return c.json(await c.var.host.secretRotate({ id, value: c.req.valid('json').value }), 200)
    },
  )
  .put(
    '/:id/bindings',
    validate('param', SecretParams),
    validate('json', SecretBindingsInput),
    async (c) =>
      c.json(await Secrets.bind(c.var.db, c.req.valid('param').id, c.req.valid('json')), 200),
  )
  .delete('/:id', validate('param', SecretParams), async (c) =>
    c.json(await c.var.host.secretDelete({ id: c.req.valid('param').id }), 200),
  )
