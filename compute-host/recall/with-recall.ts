import type { reserveFinalStep } from '../runs/final-step.ts'
import type { RecallOutcome } from './recall.ts'

type PrepareStep = ReturnType<typeof reserveFinalStep>

/**
 * Every step of the supervisor sees the recall block as one system message; the first step
 * waits for recall (it ran beside the rest of preparation). System messages are never saved to
 * the thread, so the thread's memory never observes or compacts recalled text. Nothing
 * qualified: the step's messages are left exactly as they were.
 */
export function withRecall(
  recalling: Promise<RecallOutcome | undefined>,
  next: PrepareStep,
): PrepareStep {
  return async (args) => {
    const block = (await recalling)?.block
    if (!block) return next(args)
    const systemMessages = [...args.systemMessages, { role: 'system' as const, content: block }]
    return (await next({ ...args, systemMessages })) ?? { systemMessages }
  }
}
