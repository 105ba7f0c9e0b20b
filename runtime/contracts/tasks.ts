import { z } from 'zod'
import { BudgetLimits } from './settings.ts'
import { Line, MAX_PROMPT_CHARS, ModelId, Prompt, Title } from './fields.ts'
import { TASK_KINDS, TASK_SOURCES, TASK_STATES } from '../../db/task-enums.ts'
import { PHASE_STATES, WORKFLOW_PHASES } from '../../db/self-update-enums.ts'
import { idSchema, SessionId, TaskId, WorkspaceId } from '../ids.ts'

export const TaskState = z.enum(TASK_STATES)
export type TaskState = z.infer<typeof TaskState>

/**
 * Why a queued task is not running yet: an earlier attempt failed with a transient error (its
 * class) and the task waits for its dependency until `nextAttemptAt`. Null for work that is
 * simply waiting its turn, and for every other state.
 */
export const TaskWaiting = z.object({
  errorClass: z.string(),
  error: z.string().nullable(),
  nextAttemptAt: z.string(),
})
export type TaskWaiting = z.infer<typeof TaskWaiting>

/**
 * A task's own budget (B1): any of the settings' limits, within the same bounds. A task can
 * only lower a limit; a value above the settings' is held to the settings'.
 */
export const TaskBudget = BudgetLimits.partial()
export type TaskBudget = z.infer<typeof TaskBudget>

export const BudgetUsed = z.object({
  inputTokens: z.number(),
  outputTokens: z.number(),
  toolCalls: z.number(),
  wallTimeMs: z.number(),
  /** What the tree's priced model calls cost (USD); absent on trees recorded before. */
  costUsd: z.number().optional(),
})

/**
 * The channel binding (a conversation on a chat channel) a task's result is posted to when it
 * ends: the answer, or plainly why it failed, through the channel's outbox. The binding must
 * exist and not be blocked when it is named (docs/channels.md).
 */
export const DeliverTo = idSchema('channelBinding')

/** A background task as the API shows it. */
export const Task = z.object({
  id: z.string(),
  source: z.enum(TASK_SOURCES),
  kind: z.enum(TASK_KINDS),
  workspaceId: z.string(),
  sessionId: z.string().nullable(),
  scheduleId: z.string().nullable(),
  occurrenceAt: z.string().nullable(),
  parentTaskId: z.string().nullable(),
  title: z.string(),
  prompt: z.string(),
  model: z.string().nullable(),
  state: TaskState,
  attemptCount: z.number(),
  maxAttempts: z.number(),
  nextAttemptAt: z.string(),
  lastErrorClass: z.string().nullable(),
  lastError: z.string().nullable(),
  waiting: TaskWaiting.nullable(),
  deadLetteredAt: z.string().nullable(),
  result: z.string().nullable(),
  resolutionEvidence: z.string().nullable(),
  resolvedAt: z.string().nullable(),
  claimedBy: z.string().nullable(),
  finishedAt: z.string().nullable(),
  turnId: z.string().nullable(),
  traceId: z.string().nullable(),
  /** This task's own lower budget limits (B1); the settings' apply to the rest. */
  budget: TaskBudget.nullable(),
  /** What this task's tree (the task, its delegations, its remediation) used so far. */
  budgetUsed: BudgetUsed.nullable(),
  /** The channel binding its result is posted to; null when it goes nowhere but here. */
  deliverTo: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
})
export type Task = z.infer<typeof Task>

/** One iteration record of a task's activity transcript. */
export const TaskActivityRecord = z.object({
  id: z.number(),
  attempt: z.number(),
  createdAt: z.string(),
  record: z.record(z.string(), z.unknown()),
})
export type TaskActivityRecord = z.infer<typeof TaskActivityRecord>

export { MAX_PROMPT_CHARS }
export const MAX_EVIDENCE_CHARS = 4_000

/** What a client may set; source is always `user`, the rest is the runner's. */
export const CreateTaskInput = z.strictObject({
  workspaceId: WorkspaceId,
  prompt: Prompt,
  title: Title.optional(),
  model: ModelId.optional(),
  sessionId: SessionId.optional(),
  maxAttempts: z.number().int().min(1).max(10).optional(),
  budget: TaskBudget.optional(),
  deliverTo: DeliverTo.optional(),
})
export type CreateTaskInput = z.infer<typeof CreateTaskInput>

export const ResolveTaskInput = z.strictObject({
  evidence: Line(MAX_EVIDENCE_CHARS),
})

export const TaskParams = z.strictObject({ id: TaskId })

export const TaskListQuery = z.strictObject({
  state: TaskState.optional(),
  workspaceId: WorkspaceId.optional(),
  limit: z.coerce.number().int().min(1).max(500).optional(),
})

/** `GET /api/tasks/:id/workflow`: phases (self-update work only) and the activity transcript. */
export const TaskWorkflow = z.object({
  task: Task,
  phases: z.array(
    z.object({
      name: z.enum(WORKFLOW_PHASES),
      attempt: z.number().int(),
      state: z.enum(PHASE_STATES),
      evidence: z.string(),
      output: z.record(z.string(), z.unknown()).nullable(),
      error: z.string().nullable(),
      startedAt: z.string(),
      finishedAt: z.string().nullable(),
    }),
  ),
  activity: z.array(TaskActivityRecord),
})
export type TaskWorkflow = z.infer<typeof TaskWorkflow>
