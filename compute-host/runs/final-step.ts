import type { AgentExecutionOptions } from '@mastra/core/agent'

// The loop module's own type is not exported; take it from the execution options.
type PrepareStepFunction = NonNullable<AgentExecutionOptions['prepareStep']>

/**
 * Reserves the last step of a run for the answer: on it, tools are switched off and the
 * configured final-response feedback is added, so a run that hits its ceiling still ends with a
 * response instead of a dangling tool call. `ceilingOf` reads the ceiling that applies to this
 * run (the supervisor's from the snapshot, a specialist's as its delegation set it). A run whose
 * budget has ended (`ended` gives the message) gets the same tool-free step, told why.
 */
export function reserveFinalStep(
  ceilingOf: (requestContext: unknown) => number | undefined,
  feedback: (requestContext: unknown) => string,
  ended: (stepNumber: number) => string | undefined = () => undefined,
): PrepareStepFunction {
  return (args) => {
    const budgetEnded = ended(args.stepNumber)
    if (budgetEnded !== undefined) {
      return {
        toolChoice: 'none',
        systemMessages: [...args.systemMessages, { role: 'system', content: budgetEnded }],
      }
    }
    const requestContext = (args as { requestContext?: unknown }).requestContext
    const ceiling = ceilingOf(requestContext)
    if (ceiling === undefined || args.stepNumber < ceiling - 1) return undefined
    return {
      toolChoice: 'none',
      systemMessages: [
        ...args.systemMessages,
        { role: 'system', content: feedback(requestContext) },
      ],
    }
  }
}
