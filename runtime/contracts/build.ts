import { z } from 'zod'
import { BUILD_EVIDENCE_KINDS } from '../../db/build-evidence-enums.ts'
import { ModelId, Prompt, Title } from './fields.ts'
import { CreateScheduleInput } from './schedules.ts'

/** AkurAI Build as this host has it (compute-host/build/client.ts `status`). */
export const BuildStatus = z.discriminatedUnion('enabled', [
  z.object({ enabled: z.literal(false), reason: z.string() }),
  z.object({
    enabled: z.literal(true),
    url: z.string(),
    status: z.enum(['idle', 'connecting', 'connected', 'failed', 'closed']),
    lastError: z.object({ code: z.string(), message: z.string(), at: z.string() }).nullable(),
    /** The server's operations as last listed; null before a listing. */
    operations: z.array(z.string()).nullable(),
    /** Each `build-*` tool's operations the server lacks (reported, never imitated). */
    missing: z.record(z.string(), z.array(z.string())),
  }),
])
export type BuildStatus = z.infer<typeof BuildStatus>

/** `POST /api/build/maintenance`: queue one `build-maintenance` task in the AkurAI-Build workspace. */
export const QueueBuildMaintenanceInput = z.strictObject({
  prompt: Prompt,
  model: ModelId.optional(),
  maxAttempts: z.number().int().min(1).max(10).optional(),
})
export type QueueBuildMaintenanceInput = z.infer<typeof QueueBuildMaintenanceInput>

/** One fact a `build-maintenance` attempt recorded (db/schema/build-evidence.ts). */
export const BuildEvidenceItem = z.object({
  attempt: z.number(),
  kind: z.enum(BUILD_EVIDENCE_KINDS),
  reference: z.string(),
  operation: z.string().nullable(),
  detail: z.record(z.string(), z.unknown()).nullable(),
  recordedAt: z.string(),
})

/** `GET /api/tasks/:id/build-evidence`. */
export const TaskBuildEvidence = z.object({
  taskId: z.string(),
  evidence: z.array(BuildEvidenceItem),
})
export type TaskBuildEvidence = z.infer<typeof TaskBuildEvidence>

/**
 * `POST /api/build/maintenance/schedules`: a recurring `build-maintenance` schedule in the
 * AkurAI-Build workspace, with the fields of a schedule of one's own (the workspace is fixed).
 */
export const CreateBuildMaintenanceScheduleInput = CreateScheduleInput.pick({
  cron: true,
  prompt: true,
  model: true,
  maxAttempts: true,
  catchUp: true,
}).extend({ name: Title.optional() })
export type CreateBuildMaintenanceScheduleInput = z.infer<
  typeof CreateBuildMaintenanceScheduleInput
>
