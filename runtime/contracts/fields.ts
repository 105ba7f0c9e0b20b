import { z } from 'zod'
import { isStorable, UNSTORABLE_MESSAGE } from './storable-text.ts'

/**
 * The field rules several contracts share. One definition each, so the same input gets the same
 * error code and message on every route: a NUL in a title is a VALIDATION_FAILED naming the field
 * whether it came through sessions, schedules or agents, never an INVALID_TEXT from PostgreSQL.
 */

export const MODEL_ID_MAX = 200
export const TITLE_MAX = 200
export const MAX_PROMPT_CHARS = 20_000

/** Text that is saved as given: at most `max` characters, and storable (storable-text.ts). */
export const StorableText = (max: number) =>
  z.string().max(max).refine(isStorable, UNSTORABLE_MESSAGE)

/** Saved text that must say something: trimmed, then 1 to `max` characters, storable. */
export const Line = (max: number) =>
  z.string().trim().min(1).max(max).refine(isStorable, UNSTORABLE_MESSAGE)

/** A gateway model id as a client names it (`provider/model`); the gateway decides if it exists. */
export const ModelId = Line(MODEL_ID_MAX)

/** The title of a session or a task, or the name of a schedule. */
export const Title = Line(TITLE_MAX)

/** What an agent is asked to do in a task or a scheduled run. */
export const Prompt = Line(MAX_PROMPT_CHARS)
