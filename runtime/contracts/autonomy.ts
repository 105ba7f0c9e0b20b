import { z } from 'zod'

/** `POST /api/autonomy/reconcile`: each workspace's self-update eligibility and its schedule. */
export const ReconcileReport = z.object({
  workspaces: z.array(
    z.object({
      workspaceId: z.string(),
      eligible: z.boolean(),
      /** Why not, in words; empty when eligible. */
      reasons: z.array(z.string()),
      scheduleId: z.string().nullable(),
      /** True when this reconcile created the schedule (it never changes an existing one). */
      created: z.boolean(),
    }),
  ),
})
export type ReconcileReport = z.infer<typeof ReconcileReport>
