import { Hono } from 'hono'
import {
  CreateMemoryInput,
  ListMemoriesQuery,
  MemoryParams,
  PatchMemoryInput,
} from '../../runtime/contracts/memories.ts'
import * as Memories from '../../runtime/memories/index.ts'
import type { AppEnv } from '../env.ts'
import { validate } from '../validate.ts'

/** Long-term memories (X1). The API is the user: it may write, edit and delete its own memories. */
export const memories = new Hono<AppEnv>()
  .get('/', validate('query', ListMemoriesQuery), async (c) =>
    c.json({ memories: await Memories.list(c.var.db, c.req.valid('query')) }, 200),
  )
  .post('/', validate('json', CreateMemoryInput), async (c) =>
    c.json(await Memories.create(c.var.db, c.req.valid('json')), 201),
  )
  .get('/:id', validate('param', MemoryParams), async (c) =>
    c.json(await Memories.get(c.var.db, c.req.valid('param').id), 200),
  )
  .patch('/:id', validate('param', MemoryParams), validate('json', PatchMemoryInput), async (c) =>
    c.json(await Memories.update(c.var.db, c.req.valid('param').id, c.req.valid('json')), 200),
  )
  .delete('/:id', validate('param', MemoryParams), async (c) => {
    const { id } = c.req.valid('param')
    await Memories.remove(c.var.db, id)
    return c.json({ deleted: id }, 200)
  })
