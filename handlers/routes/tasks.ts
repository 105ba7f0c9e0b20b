import { Hono } from 'hono'
import {
  CreateTaskInput,
  ResolveTaskInput,
  TaskListQuery,
  TaskParams,
} from '../../runtime/contracts/tasks.ts'
import * as BuildEvidence from '../../runtime/build/evidence.ts'
import * as Channels from '../../runtime/channels/index.ts'
import * as Tasks from '../../runtime/tasks/index.ts'
import { retry } from '../../runtime/tasks/retry.ts'
import type { AppEnv } from '../env.ts'
import { assertKnownModels } from '../known-models.ts'
import { validate } from '../validate.ts'

/**
 * Background tasks (T7). Everything here is a database change: a new task wakes the runners with
 * a NOTIFY on commit, and a cancellation of running work is marked `cancelling` and announced to
 * the runner that holds it, which records `cancelled` once its executor has settled. Deleting
 * removes only finished work and never touches a repository. A task's model is checked against the
 * gateway's catalog when it is created, not first when the runner reaches it.
 */
export const tasks = new Hono<AppEnv>()
  .get('/', validate('query', TaskListQuery), async (c) =>
    c.json({ tasks: await Tasks.list(c.var.db, c.req.valid('query')) }, 200),
  )
  .post('/', validate('json', CreateTaskInput), async (c) => {
    const input = c.req.valid('json')
    await assertKnownModels(c, { model: input.model })
    await Channels.assertDeliverable(c.var.db, input.deliverTo)
    return c.json(await Tasks.create(c.var.db, input), 201)
  })
  .get('/:id', validate('param', TaskParams), async (c) =>
    c.json(await Tasks.get(c.var.db, c.req.valid('param').id), 200),
  )
  .get('/:id/workflow', validate('param', TaskParams), async (c) =>
    c.json(await Tasks.workflow(c.var.db, c.req.valid('param').id), 200),
  )
  // What a build-maintenance task established: branch, CI run, issue, comment, checkout, commit.
  .get('/:id/build-evidence', validate('param', TaskParams), async (c) =>
    c.json(await BuildEvidence.taskEvidence(c.var.db, c.req.valid('param').id), 200),
  )
  .post('/:id/cancel', validate('param', TaskParams), async (c) =>
    c.json(await Tasks.cancel(c.var.db, c.req.valid('param').id), 200),
  )
  // A new task with the finished one's prompt and settings; the original stays as it is.
  .post('/:id/retry', validate('param', TaskParams), async (c) =>
    c.json(await retry(c.var.db, c.req.valid('param').id), 201),
  )
  .post(
    '/:id/resolve',
    validate('param', TaskParams),
    validate('json', ResolveTaskInput),
    async (c) =>
      c.json(
        await Tasks.resolve(c.var.db, c.req.valid('param').id, c.req.valid('json').evidence),
        200,
      ),
  )
  .delete('/:id', validate('param', TaskParams), async (c) => {
    const { id } = c.req.valid('param')
    await Tasks.remove(c.var.db, id)
    return c.json({ deleted: id }, 200)
  })
