import { z } from 'zod'
import { SCHEDULE_CATCH_UPS, SCHEDULE_OCCURRENCE_OUTCOMES } from '../../db/task-enums.ts'
import { ScheduleId, WorkspaceId } from '../ids.ts'
import { Line, ModelId, Prompt, Title } from './fields.ts'
import { DeliverTo, Task, TaskState } from './tasks.ts'

/**
 * Cron schedules as the API shows and takes them. The cron expression is a standard five-field
 * one, evaluated by the compute host in the server's timezone; the timezone is shown, never taken.
 */
export const MAX_CRON_CHARS = 200

/** The newest task a schedule queued (an occurrence or a run now), for a link to its result. */
export const ScheduleLastTask = z.object({
  id: z.string(),
  state: TaskState,
  createdAt: z.string(),
})
export type ScheduleLastTask = z.infer<typeof ScheduleLastTask>

/**
 * What the scheduler does with occurrences missed while no host ran: `latest` fires the newest
 * and records the others skipped, `each` fires each (the newest 24 at most), `none` fires none
 * that is more than a minute late. The bounds live in compute-host/schedules/catch-up.ts.
 */
export const ScheduleCatchUp = z.enum(SCHEDULE_CATCH_UPS)
export type ScheduleCatchUp = z.infer<typeof ScheduleCatchUp>

export const Schedule = z.object({
  id: z.string(),
  source: Task.shape.source,
  workspaceId: z.string(),
  name: z.string(),
  cron: z.string(),
  prompt: z.string(),
  model: z.string().nullable(),
  enabled: z.boolean(),
  maxAttempts: z.number(),
  catchUp: ScheduleCatchUp,
  /** The next occurrence not yet materialised; null while disabled or until the scheduler sets it. */
  nextRunAt: z.string().nullable(),
  /** The latest occurrence materialised into a task. */
  lastFiredAt: z.string().nullable(),
  /** The server's timezone the cron is read in; null when the compute host could not be asked. */
  timezone: z.string().nullable(),
  /** Null until the schedule has queued a task (or once its tasks are deleted). */
  lastTask: ScheduleLastTask.nullable(),
  /** How many of its occurrences were recorded skipped (its history lists them). */
  skippedCount: z.number(),
  /** The channel binding each of its tasks' results is posted to; null for none. */
  deliverTo: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
})
export type Schedule = z.infer<typeof Schedule>

const Cron = Line(MAX_CRON_CHARS)
const MaxAttempts = z.number().int().min(1).max(10)

/** What a client may set: source is always `user` and the timezone is the server's. */
export const CreateScheduleInput = z.strictObject({
  workspaceId: WorkspaceId,
  name: Title,
  cron: Cron,
  prompt: Prompt,
  model: ModelId.optional(),
  enabled: z.boolean().optional(),
  maxAttempts: MaxAttempts.optional(),
  catchUp: ScheduleCatchUp.optional(),
  deliverTo: DeliverTo.optional(),
})
export type CreateScheduleInput = z.infer<typeof CreateScheduleInput>

/** Any of the editable fields; `model: null` drops the schedule's model override. */
export const PatchScheduleInput = z
  .strictObject({
    name: Title,
    cron: Cron,
    prompt: Prompt,
    model: ModelId.nullable(),
    enabled: z.boolean(),
    maxAttempts: MaxAttempts,
    catchUp: ScheduleCatchUp,
    /** null stops posting its results to a channel. */
    deliverTo: DeliverTo.nullable(),
  })
  .partial()
  .refine((v) => Object.keys(v).length > 0, { message: 'give at least one field to change' })
export type PatchScheduleInput = z.infer<typeof PatchScheduleInput>

export const ScheduleParams = z.strictObject({ id: ScheduleId })

/** The most occurrences one history answer holds. */
export const SCHEDULE_HISTORY_CAP = 200

/** `GET /api/schedules/:id/history?limit=`: the newest occurrences first, 50 unless asked. */
export const ScheduleHistoryQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(SCHEDULE_HISTORY_CAP).default(50),
})
export type ScheduleHistoryQuery = z.infer<typeof ScheduleHistoryQuery>

/** One occurrence the scheduler decided: fired with its task, or skipped with the reason. */
export const ScheduleOccurrence = z.object({
  occurrenceAt: z.string(),
  outcome: z.enum(SCHEDULE_OCCURRENCE_OUTCOMES),
  /** Why it was skipped; null for a fire. */
  reason: z.string().nullable(),
  /** The task it became; null for a skip. */
  taskId: z.string().nullable(),
  /** When the scheduler wrote the decision (after downtime, later than the occurrence). */
  recordedAt: z.string(),
})
export type ScheduleOccurrence = z.infer<typeof ScheduleOccurrence>

/** `POST /api/schedules/preview`: an expression to check before it is saved (nothing is stored). */
export const CronPreviewInput = z.strictObject({ cron: Cron })
export type CronPreviewInput = z.infer<typeof CronPreviewInput>

/** The preview's answer: the next occurrences (ISO, ascending) in the server's timezone. */
export type CronPreviewAnswer = { next: string[]; timezone: string }
