import { MODEL_SOURCES } from '../../../runtime/contracts/agent-enums.ts'
import { NOT_BUILT_SETTINGS } from '../../../runtime/contracts/settings-not-built.ts'
import type {
  AgentRuntimeSettingsPatch,
  AutonomySettingsPatch,
  BrowserSettingsPatch,
  MemorySettings,
  MemorySettingsPatch,
} from '../../../runtime/contracts/settings.ts'

/**
 * The four settings singletons as field tables: each drives one form (settings-form.tsx), so a
 * new setting is one line here.
 */
export type Field<K extends string> = {
  key: K
  label: string
  hint?: string
  /** Why the setting does nothing yet: shown, and the input disabled (settings-not-built.ts). */
  notBuilt?: string
  /** An empty input is sent as null (a model picker offers it as `none`). */
  nullable?: true
} & (
  | { type: 'number'; step?: string }
  | { type: 'text' | 'textarea' | 'bool' | 'model' }
  | { type: 'select'; options: readonly string[] }
)
export type Group<K extends string> = { legend: string; fields: Field<K>[] }

export const AGENT_RUNTIME: Group<keyof AgentRuntimeSettingsPatch>[] = [
  {
    legend: 'Default model',
    fields: [
      {
        key: 'modelSource',
        label: 'Model source',
        type: 'select',
        options: MODEL_SOURCES,
        hint: 'Which of the three models below runs when a request names none.',
      },
      { key: 'configuredModel', label: 'Configured model', type: 'model' },
      { key: 'localModel', label: 'Local model', type: 'model' },
      { key: 'freeCodingModel', label: 'Free coding model', type: 'model' },
    ],
  },
  {
    legend: 'Step bounds',
    fields: [
      { key: 'supervisorMaxSteps', label: 'Supervisor max steps', type: 'number' },
      { key: 'specialistMaxSteps', label: 'Specialist max steps', type: 'number' },
      { key: 'toolCallConcurrency', label: 'Tool call concurrency', type: 'number' },
      { key: 'processorRetries', label: 'Processor retries', type: 'number' },
      {
        key: 'finalResponseFeedback',
        label: 'Final response feedback',
        type: 'textarea',
        hint: 'Said to an agent on its last step.',
      },
    ],
  },
  {
    legend: 'Delegation bounds',
    fields: [
      {
        key: 'delegationContextMaxMessages',
        label: 'Delegation context max messages',
        type: 'number',
      },
      { key: 'delegationContextMaxChars', label: 'Delegation context max chars', type: 'number' },
      { key: 'delegationResultMaxChars', label: 'Delegation result max chars', type: 'number' },
      { key: 'delegationFailureText', label: 'Delegation failure text', type: 'textarea' },
      { key: 'delegationTruncationText', label: 'Delegation truncation text', type: 'textarea' },
    ],
  },
  {
    legend: 'Task controls',
    fields: [
      { key: 'taskConcurrency', label: 'Task concurrency', type: 'number' },
      { key: 'taskPollIntervalMs', label: 'Task poll interval (ms)', type: 'number' },
      { key: 'taskTimeoutMs', label: 'Task timeout (ms)', type: 'number' },
      { key: 'taskAbortAckMs', label: 'Task abort acknowledgement (ms)', type: 'number' },
      { key: 'taskStaleAfterMs', label: 'Task stale after (ms)', type: 'number' },
    ],
  },
  {
    legend: 'Budgets of a turn or task tree',
    fields: [
      { key: 'budgetInputTokens', label: 'Input tokens', type: 'number' },
      { key: 'budgetOutputTokens', label: 'Output tokens', type: 'number' },
      { key: 'budgetToolCalls', label: 'Tool calls', type: 'number' },
      { key: 'budgetWallTimeMs', label: 'Wall time (ms)', type: 'number' },
      { key: 'budgetDelegationDepth', label: 'Delegation depth (0 or 1)', type: 'number' },
      {
        key: 'budgetCostUsd',
        label: 'Cost cap of a chat turn (USD)',
        type: 'number',
        step: '0.0001',
        hint: 'Priced from the model prices (Observability); a model with no price counts under the token limits only.',
      },
      {
        key: 'budgetUnattendedCostUsd',
        label: 'Cost cap of a task tree (USD)',
        type: 'number',
        step: '0.0001',
        hint: 'Tasks, schedules and remediations: nobody watches them, so keep it below the chat cap.',
      },
      {
        key: 'loopRepeatLimit',
        label: 'Loop breaker: identical failing calls before the path stops',
        type: 'number',
      },
    ],
  },
]

const RATIO_OR_TOKENS = 'A ratio in (0, 1] or a whole number of tokens ≥ 1000.'
export const MEMORY: Group<keyof MemorySettingsPatch>[] = [
  {
    legend: 'Observational memory',
    fields: [
      { key: 'enabled', label: 'Memory enabled', type: 'bool' },
      {
        key: 'observationMessageTokens',
        label: 'Observe after (message tokens)',
        type: 'number',
      },
      {
        key: 'reflectionObservationTokens',
        label: 'Reflect after (observation tokens)',
        type: 'number',
      },
      {
        key: 'rawHistoryRetention',
        label: 'Raw history retention',
        type: 'number',
        step: 'any',
        hint: RATIO_OR_TOKENS,
      },
      {
        key: 'previousObserverTokens',
        label: 'Previous observer tokens',
        type: 'number',
      },
      { key: 'temporalMarkers', label: 'Temporal markers', type: 'bool' },
      {
        key: 'observeAttachments',
        label: 'Observe attachments',
        type: 'select',
        options: ['auto', 'on', 'off'] satisfies MemorySettings['observeAttachments'][],
      },
      {
        key: 'retrievalScope',
        label: 'Retrieval scope',
        type: 'select',
        options: ['off', 'thread', 'resource'] satisfies MemorySettings['retrievalScope'][],
      },
    ],
  },
  {
    legend: 'Buffering and activation',
    fields: [
      { key: 'asyncBuffering', label: 'Async buffering', type: 'bool' },
      { key: 'shareTokenBudget', label: 'Share token budget', type: 'bool' },
      {
        key: 'observationBufferTokens',
        label: 'Observation buffer',
        type: 'number',
        step: 'any',
        hint: RATIO_OR_TOKENS,
      },
      {
        key: 'reflectionBufferActivation',
        label: 'Reflection buffer activation',
        type: 'number',
        step: 'any',
        hint: 'A ratio in (0, 1].',
      },
      {
        key: 'observationBlockAfter',
        label: 'Observation block after',
        type: 'number',
        step: 'any',
        hint: 'A multiplier in [1, 100) or tokens ≥ 100.',
      },
      {
        key: 'reflectionBlockAfter',
        label: 'Reflection block after',
        type: 'number',
        step: 'any',
        hint: 'A multiplier in [1, 100) or tokens ≥ 100.',
      },
      {
        key: 'activateAfterIdle',
        label: 'Activate after idle',
        type: 'text',
        hint: 'auto, off, or a duration such as 5m.',
      },
      { key: 'activateOnProviderChange', label: 'Activate on provider change', type: 'bool' },
    ],
  },
  {
    legend: 'Instructions',
    fields: [
      { key: 'observerInstruction', label: 'Observer instruction', type: 'textarea' },
      { key: 'reflectorInstruction', label: 'Reflector instruction', type: 'textarea' },
    ],
  },
  {
    legend: 'Cross-session recall',
    fields: [
      { key: 'recallEnabled', label: 'Recall before each turn', type: 'bool' },
      {
        key: 'recallBudgetTokens',
        label: 'Recall budget (tokens)',
        type: 'number',
        hint: 'The most the recalled notes may add to a request.',
      },
      {
        key: 'embeddingModel',
        label: 'Embedding model',
        type: 'model',
        nullable: true,
        hint: 'The gateway model that embeds recalled notes and imported documents for meaning search (needs pgvector); none: full-text search only.',
      },
      {
        key: 'factRetentionDays',
        label: 'Keep agent facts (days)',
        type: 'number',
        nullable: true,
        hint: 'Agent and evolution facts older than this are pruned; empty keeps them. Your own memories are never pruned.',
      },
    ],
  },
]

export const AUTONOMY: Group<keyof AutonomySettingsPatch>[] = [
  {
    legend: 'What the agents may do on their own',
    fields: [
      {
        key: 'evolutionEnabled',
        label: 'Agent evolution',
        type: 'bool',
        hint: 'Learn code-owned guidance from failed tasks, stops and thumbs-down; the Autonomy page shows every change and reverts it.',
        ...notBuilt('autonomy', 'evolutionEnabled'),
      },
      {
        key: 'skillCreationEnabled',
        label: 'Skill creation',
        type: 'bool',
        hint: 'With evolution on: install or retire catalog skills it manages; a skill you edit is yours and never touched again.',
        ...notBuilt('autonomy', 'skillCreationEnabled'),
      },
      { key: 'automaticFactRetention', label: 'Automatic fact retention', type: 'bool' },
      { key: 'selfUpdateEnabled', label: 'Self-update', type: 'bool' },
      {
        key: 'deploymentEnabled',
        label: 'Deployment',
        type: 'bool',
        hint: 'Adds a deploy step to each self-update run. It refuses every time, with the reason on the task: a self-update commit stays a local ref that no CI has verified, and deploying needs that verification of the exact revision. Nothing is pushed or deployed.',
      },
    ],
  },
]

export const BROWSER: Group<keyof BrowserSettingsPatch>[] = [
  {
    legend: 'Browser automation for agents with browser access',
    fields: [
      { key: 'enabled', label: 'Browser enabled', type: 'bool', ...notBuilt('browser', 'enabled') },
      {
        key: 'allowScriptEvaluation',
        label: 'Interactive agents may run script in pages',
        type: 'bool',
        hint: 'browser_evaluate and browser_run_code_unsafe; off by default.',
      },
      {
        key: 'allowCredentialReaders',
        label: 'Interactive agents may read cookies, storage and request headers',
        type: 'bool',
      },
      {
        key: 'uploadFolder',
        label: 'Upload folder',
        type: 'text',
        hint: 'Absolute folder on the browser server uploads may come from; empty allows none.',
      },
    ],
  },
]

function notBuilt(kind: string, key: string): { notBuilt?: string } {
  const why = NOT_BUILT_SETTINGS[kind]?.[key]
  return why ? { notBuilt: why } : {}
}
