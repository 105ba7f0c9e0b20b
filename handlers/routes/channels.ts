import { Hono } from 'hono'
import * as Channels from '../../runtime/channels/index.ts'
import {
  ChannelBindingParams,
  ChannelHistoryQuery,
  ChannelParams,
  ChannelPostInput,
  ChannelSetupInput,
  CreateChannelInput,
  UpdateChannelInput,
} from '../../runtime/contracts/channels.ts'
import type { AppEnv } from '../env.ts'
import { validate } from '../validate.ts'

/**
 * Chat channels (X6), the owner's side: behind the API key like every /api route. Reads come
 * from PostgreSQL here; writes go to the compute host, whose vault stores the secrets (they are
 * never returned: a channel shows how many values each secret role holds). The inbound route,
 * which services call, is channels-inbound.ts.
 */
export const channels = new Hono<AppEnv>()
  .get('/', async (c) => c.json({ channels: await Channels.list(c.var.db) }, 200))
  .post('/', validate('json', CreateChannelInput), async (c) =>
    c.json(await c.var.host.channelCreate(c.req.valid('json')), 201),
  )
  .get('/:id', validate('param', ChannelParams), async (c) =>
    c.json(await Channels.get(c.var.db, c.req.valid('param').id), 200),
  )
  .patch(
    '/:id',
    validate('param', ChannelParams),
    validate('json', UpdateChannelInput),
    async (c) =>
      c.json(
        await c.var.host.channelUpdate({
          id: c.req.valid('param').id,
          change: c.req.valid('json'),
        }),
        200,
      ),
  )
  .delete('/:id', validate('param', ChannelParams), async (c) =>
    c.json(await c.var.host.channelDelete({ id: c.req.valid('param').id }), 200),
  )
  .get(
    '/:id/events',
    validate('param', ChannelParams),
    validate('query', ChannelHistoryQuery),
    async (c) => {
      const { id } = c.req.valid('param')
      return c.json(
        { events: await Channels.events(c.var.db, id, c.req.valid('query').limit) },
        200,
      )
    },
  )
  .get(
    '/:id/outbox',
    validate('param', ChannelParams),
    validate('query', ChannelHistoryQuery),
    async (c) => {
      const { id } = c.req.valid('param')
      return c.json(
        { chunks: await Channels.deliveries(c.var.db, id, c.req.valid('query').limit) },
        200,
      )
    },
  )
  .get('/:id/bindings', validate('param', ChannelParams), async (c) =>
    c.json({ bindings: await Channels.bindings(c.var.db, c.req.valid('param').id) }, 200),
  )
  .post(
    '/:id/post',
    validate('param', ChannelParams),
    validate('json', ChannelPostInput),
    async (c) =>
      c.json(
        await c.var.host.channelPost({ id: c.req.valid('param').id, ...c.req.valid('json') }),
        202,
      ),
  )
  .post('/:id/bindings/:bindingId/cancel', validate('param', ChannelBindingParams), async (c) => {
    const { id, bindingId } = c.req.valid('param')
    return c.json(await c.var.host.channelCancel({ id, bindingId }), 200)
  })
  .post(
    '/:id/setup',
    validate('param', ChannelParams),
    validate('json', ChannelSetupInput),
    async (c) => {
      const { id } = c.req.valid('param')
      // The URL the service will post to, under the address the world reaches this server at.
      const inboundUrl = new URL(
        Channels.inboundPath(id),
        c.req.valid('json').publicBaseUrl,
      ).toString()
      return c.json(await c.var.host.channelSetup({ id, inboundUrl }), 200)
    },
  )
