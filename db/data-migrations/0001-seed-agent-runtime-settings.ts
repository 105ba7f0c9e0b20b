import { sql } from '../drizzle-orm.ts'
import type { DataMigration } from './types.ts'

// The owner's production route is the local Ornith model on Titan (two 64k llama.cpp contexts);
// every value here is only the starting point and is edited through the settings API.
const LOCAL_MODEL = 'titan/ornith-1.0-9b-mtp-q4_k_m'

const FINAL_RESPONSE_FEEDBACK =
  'You have reached your last step. Do not call any more tools: answer the user now with what you have found and done, and say plainly what is unfinished.'
const DELEGATION_FAILURE_TEXT =
  'The specialist could not finish this delegation. Decide whether to retry with a narrower request, try another specialist, or report the failure to the user.'
const DELEGATION_TRUNCATION_TEXT =
  '[specialist result truncated to fit the delegation result bound]'

export const seedAgentRuntimeSettings: DataMigration = {
  name: '0001-seed-agent-runtime-settings',
  // Raw SQL naming only its own columns: drizzle's insert lists every column the table has today
  // (`default` for the rest), which fails on a database migrated only up to an older schema, as
  // the migration tests do (0024 added the cost caps, whose starting values are that migration's
  // column defaults). Same row as before.
  async up(tx) {
    await tx.execute(sql`
      insert into popagent_agent_runtime_settings (
        singleton, model_source, configured_model, local_model, free_coding_model,
        supervisor_max_steps, specialist_max_steps, tool_call_concurrency, processor_retries,
        final_response_feedback, delegation_context_max_messages, delegation_context_max_chars,
        delegation_result_max_chars, delegation_failure_text, delegation_truncation_text,
        task_concurrency, task_poll_interval_ms, task_timeout_ms, task_abort_ack_ms,
        task_stale_after_ms, budget_input_tokens, budget_output_tokens, budget_tool_calls,
        budget_wall_time_ms, budget_delegation_depth, loop_repeat_limit)
      values (
        true, 'local', ${LOCAL_MODEL}, ${LOCAL_MODEL}, 'auto/coding:free',
        24, 16, 4, 2,
        ${FINAL_RESPONSE_FEEDBACK}, 8, 24000,
        16000, ${DELEGATION_FAILURE_TEXT}, ${DELEGATION_TRUNCATION_TEXT},
        2, 5000, ${30 * 60_000}, 10000,
        ${2 * 60 * 60_000}, 2000000, 200000, 200,
        ${30 * 60_000}, 1, 3)
      on conflict do nothing`)
  },
}
