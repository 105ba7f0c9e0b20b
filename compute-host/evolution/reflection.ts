import { Agent } from '@mastra/core/agent'
import { z } from 'zod'
import { STRATEGIES } from '../../db/evolution-enums.ts'
import {
  OVERLAY_CATALOG,
  OVERLAY_IDS,
  SKILL_CATALOG,
  SKILL_CATALOG_IDS,
} from '../../runtime/evolution/catalog.ts'
import type { GatewayModels } from '../models/gateway-models.ts'
import type { RunBudget } from '../runs/budget.ts'
import type { ClaimedSignal } from './types.ts'

/** The marker that opens the reflector's instructions (tests' scripted gateway looks for it). */
export const REFLECTOR_MARKER = 'You are popagent evolution reflector.'

export const FACT_MAX = 300

/** The agent id reflection's calls are reserved and counted under in a pass's budget. */
export const REFLECTOR_AGENT_ID = 'evolution-reflector'

/**
 * A reflection the cost cap did not allow: the model was not asked. The worker puts the
 * signals back like any failed batch (they are tried again after their backoff, and are `dead`
 * with this reason after the last attempt, for the owner to retry once the cap allows it).
 */
export class ReflectionOverCap extends Error {
  override name = 'ReflectionOverCap'
}

/**
 * What reflection may answer: one strategy from the closed enum, and for it at most a catalog id
 * (code-owned text), or one fact under a semantic key. Everything else is the gates' to check.
 */
export const Reflection = z.object({
  strategy: z.enum(STRATEGIES),
  catalogId: z.enum([...OVERLAY_IDS, ...SKILL_CATALOG_IDS]).nullable(),
  factKey: z.string().max(128).nullable(),
  fact: z.string().max(FACT_MAX).nullable(),
  evidenceSignalIds: z.array(z.string().max(80)).max(20),
  confidence: z.number().min(0).max(1),
  rationale: z.string().max(500),
})
export type Reflection = z.infer<typeof Reflection>

const INSTRUCTIONS = `${REFLECTOR_MARKER}
You read evidence that one agent failed (Goal/Failure or Goal/Outcome pairs, with a failure class)
and choose ONE strategy from a closed list. You never write instructions or skill text: you pick a
catalog id, and the text behind it is fixed.

Strategies:
- no-action: the evidence does not show a pattern the catalog answers.
- overlay-apply: give the agent one guidance overlay (catalogId from the overlays below).
- overlay-retire: take back a guidance overlay (catalogId) the evidence shows is not helping.
- skill-install / skill-retire: install or retire one catalog skill (catalogId from the skills below).
- retain-fact: keep one short operational fact (factKey: lowercase words joined by . _ -, fact: at
  most ${FACT_MAX} characters), only when the evidence states it; never a secret or credential.

Cite the ids of the signals your choice rests on in evidenceSignalIds, give a confidence in [0, 1]
and a one-sentence rationale. Answer with the JSON object only.

Overlays:
${OVERLAY_CATALOG.map((o) => `- ${o.id} (for ${o.answers.join(', ')}): ${o.text}`).join('\n')}

Skills:
${SKILL_CATALOG.map((s) => `- ${s.id} (for ${s.answers.join(', ')}): ${s.description}`).join('\n')}`

// The structured output's JSON Schema travels with the prompt; counted for the cost estimate.
const SCHEMA_CHARS = JSON.stringify(z.toJSONSchema(Reflection)).length

/**
 * The reflector: a Mastra agent with no tools and no memory, temperature 0, whose answer is
 * Mastra's structured output against `Reflection`. It consumes the stream (the gateway answers
 * this route with SSE) and fails closed: an answer that does not parse is an error, retried by the
 * worker's backoff like any other.
 *
 * Under a `budget` (a pass's, from the unattended cost cap) the call is priced as the run path
 * prices one (cost-cap.ts): its worst case (the prompt at one token per two characters, the
 * output reserve sent as `maxOutputTokens`) is reserved first, and a call that could pass the cap
 * is not made (`ReflectionOverCap`); what the gateway reports then replaces the reservation.
 */
export function createReflector(deps: { models: GatewayModels; model: () => Promise<string> }) {
  return async function reflect(
    agentId: string,
    signals: readonly ClaimedSignal[],
    signal?: AbortSignal,
    budget?: RunBudget,
  ): Promise<Reflection> {
    const modelId = await deps.model()
    const agent = new Agent({
      id: 'evolution-reflector',
      name: 'Evolution reflector',
      instructions: INSTRUCTIONS,
      model: deps.models.languageModel(modelId),
    })
    const prompt = [
      `Agent: ${agentId}`,
      ...signals.map(
        (s) =>
          `Signal ${s.id} (${s.kind}, class ${s.failureClass}, seen ${s.occurrences} times in ${s.traceIds.length} traces):\n${s.evidence}`,
      ),
    ].join('\n\n')
    let maxOutputTokens: number | undefined
    if (budget?.priced(modelId)) {
      const call = budget.reserveCall({
        agentId: REFLECTOR_AGENT_ID,
        model: modelId,
        stepNumber: 0,
        // The instructions, the evidence, and the answer's JSON Schema sent beside them.
        chars: INSTRUCTIONS.length + prompt.length + SCHEMA_CHARS,
        tools: 0,
      })
      if (call.refused !== undefined) throw new ReflectionOverCap(call.refused)
      maxOutputTokens = call.maxOutputTokens
    }
    let object: unknown
    let usage: Parameters<RunBudget['stepFinished']>[0]
    try {
      const stream = await agent.stream(prompt, {
        structuredOutput: { schema: Reflection },
        modelSettings: { temperature: 0, ...(maxOutputTokens && { maxOutputTokens }) },
        maxSteps: 1,
        ...(signal && { abortSignal: signal }),
      })
      object = await stream.object
      usage = await stream.totalUsage.catch(() => undefined)
    } finally {
      // The reservation is replaced by what the call used (nothing known: nothing counted).
      budget?.stepFinished(usage, { agentId: REFLECTOR_AGENT_ID, model: modelId })
    }
    // Mastra settles an aborted or empty answer as undefined rather than rejecting.
    if (signal?.aborted) throw new Error('reflection aborted: the evolution worker is stopping')
    if (object === undefined) throw new Error('reflection gave no structured answer')
    const parsed = Reflection.safeParse(object)
    if (!parsed.success) {
      throw new Error(
        `reflection answered outside its schema: ${parsed.error.message.slice(0, 300)}`,
      )
    }
    return parsed.data
  }
}
export type Reflect = ReturnType<typeof createReflector>
