import { agentRuntimeSettings } from '../schema/index.ts'
import type { DataMigration } from './types.ts'

// The owner's production route is the local Ornith model on Titan (two 64k llama.cpp contexts);
// every value here is only the starting point and is edited through the settings API.
const LOCAL_MODEL = 'titan/ornith-1.0-9b-mtp-q4_k_m'

export const seedAgentRuntimeSettings: DataMigration = {
  name: '0001-seed-agent-runtime-settings',
  async up(tx) {
    await tx
      .insert(agentRuntimeSettings)
      .values({
        singleton: true,
        modelSource: 'local',
        configuredModel: LOCAL_MODEL,
        localModel: LOCAL_MODEL,
        freeCodingModel: 'auto/coding:free',
        supervisorMaxSteps: 24,
        specialistMaxSteps: 16,
        toolCallConcurrency: 4,
        processorRetries: 2,
        finalResponseFeedback:
          'You have reached your last step. Do not call any more tools: answer the user now with what you have found and done, and say plainly what is unfinished.',
        delegationContextMaxMessages: 8,
        delegationContextMaxChars: 24_000,
        delegationResultMaxChars: 16_000,
        delegationFailureText:
          'The specialist could not finish this delegation. Decide whether to retry with a narrower request, try another specialist, or report the failure to the user.',
        delegationTruncationText:
          '[specialist result truncated to fit the delegation result bound]',
        taskConcurrency: 2,
        taskPollIntervalMs: 5_000,
        taskTimeoutMs: 30 * 60_000,
        taskAbortAckMs: 10_000,
        taskStaleAfterMs: 2 * 60 * 60_000,
        budgetInputTokens: 2_000_000,
        budgetOutputTokens: 200_000,
        budgetToolCalls: 200,
        budgetWallTimeMs: 30 * 60_000,
        budgetDelegationDepth: 1,
        loopRepeatLimit: 3,
        budgetCostUsd: 2,
        budgetUnattendedCostUsd: 1,
      })
      .onConflictDoNothing()
  },
}
