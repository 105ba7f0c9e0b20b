import { z } from 'zod'
import type { ChatRequest } from '../runtime/contracts/chat.ts'
import {
  CronPreview,
  CronTimezone,
  HostHealth,
  HostModels,
  HostPaths,
  RepoBriefAnswer,
  ResolvedWorkspace,
} from '../runtime/contracts/host-api.ts'
import { AppError, HostUnavailable } from '../runtime/errors.ts'

/**
 * The handlers' only way to the compute host: its internal HTTP API on loopback, authenticated by
 * the shared host token, with every response parsed against `runtime/contracts/host-api.ts`.
 */
export type HostClient = ReturnType<typeof createHostClient>

const DeletedThreads = z.object({ deleted: z.number() })

export function createHostClient(options: { url: string; token: string; fetch?: typeof fetch }) {
  const doFetch = options.fetch ?? fetch

  async function call<S extends z.ZodType>(
    path: string,
    schema: S,
    init: { signal?: AbortSignal; timeoutMs?: number } = {},
  ): Promise<z.output<S>> {
    const signals = [AbortSignal.timeout(init.timeoutMs ?? 10_000)]
    if (init.signal) signals.push(init.signal)
    let response: Response
    try {
      response = await doFetch(`${options.url}${path}`, {
        headers: { authorization: `Bearer ${options.token}` },
        signal: AbortSignal.any(signals),
      })
    } catch (error) {
      throw new HostUnavailable({ path }, { cause: error, message: describeFetchError(error) })
    }
    if (!response.ok) {
      await response.body?.cancel()
      throw new HostUnavailable(
        { path, status: response.status },
        { message: `the compute host answered ${response.status} for ${path}` },
      )
    }
    const parsed = schema.safeParse(await response.json())
    if (!parsed.success) {
      throw new HostUnavailable(
        { path },
        { message: `the compute host sent an unexpected ${path} body` },
      )
    }
    return parsed.data
  }

  /**
   * Starts a turn and returns the host's response as it is: the UI-message stream, or the host's
   * own JSON error (404 session, 409 archived, 400 …) for the edge to pass on. There is no
   * timeout: a turn streams for as long as it runs, and `signal` (the client's connection) ends it.
   */
  async function chat(body: ChatRequest, signal: AbortSignal): Promise<Response> {
    try {
      return await doFetch(`${options.url}${HostPaths.chat}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${options.token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal,
      })
    } catch (error) {
      if (signal.aborted) throw error
      throw new HostUnavailable(
        { path: HostPaths.chat },
        { cause: error, message: describeFetchError(error) },
      )
    }
  }

  /**
   * A JSON POST whose 400 answers are the caller's fault and keep the host's own code and message
   * (PATH_OUTSIDE_ROOT, …); anything else unexpected means the host could not do the work.
   */
  async function post<S extends z.ZodType>(
    path: string,
    body: unknown,
    schema: S,
    init: { timeoutMs: number; failure: string; signal?: AbortSignal },
  ): Promise<z.output<S>> {
    const signals = [AbortSignal.timeout(init.timeoutMs)]
    if (init.signal) signals.push(init.signal)
    let response: Response
    try {
      response = await doFetch(`${options.url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${options.token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.any(signals),
      })
    } catch (error) {
      if (init.signal?.aborted) throw error
      throw new HostUnavailable({ path }, { cause: error, message: describeFetchError(error) })
    }
    const answer = (await response.json().catch(() => undefined)) as
      { error?: { code?: string; message?: string } } | undefined
    // A 503 with a code is the host saying it is busy (REPO_BRIEF_BUSY), which the client should
    // hear as such rather than as "the host is down".
    const passed = response.status === 400 || response.status === 503
    if (passed && answer?.error?.code && answer.error.message) {
      throw new AppError(answer.error.code, response.status as 400 | 503, answer.error.message)
    }
    const parsed = schema.safeParse(answer)
    if (!response.ok || !parsed.success) {
      throw new HostUnavailable({ path, status: response.status }, { message: init.failure })
    }
    return parsed.data
  }

  /** Asks the host to prove a repository path stays inside the workspace root. */
  const resolveWorkspace = (path: string): Promise<ResolvedWorkspace> =>
    post(HostPaths.resolveWorkspace, { path }, ResolvedWorkspace, {
      timeoutMs: 10_000,
      failure: 'the compute host could not check the workspace path',
    })

  /** Deletes the Mastra threads of these sessions; resolves only once the host confirmed it. */
  const deleteThreads = async (sessionIds: string[]): Promise<void> => {
    await post(HostPaths.threads, { sessionIds }, DeletedThreads, {
      // Sized for a workspace's worth of sessions; the host deletes them in one pass.
      timeoutMs: 120_000,
      failure: 'the compute host could not delete the chat memory',
    })
  }

  /**
   * The repository brief of a workspace path (the host proves the path is contained). `signal`
   * is the client's: when it goes away, the host withdraws or stops the brief and its git.
   */
  const repoBrief = (path: string, query: string, signal?: AbortSignal): Promise<RepoBriefAnswer> =>
    post(HostPaths.repoBrief, { path, query }, RepoBriefAnswer, {
      timeoutMs: 60_000,
      failure: 'the compute host could not build the repository brief',
      ...(signal && { signal }),
    })

  /** Checks a cron expression on the host (croner is Node-only): its next occurrences, or a 400. */
  const cronPreview = (cron: string): Promise<CronPreview> =>
    post(HostPaths.cronPreview, { cron }, CronPreview, {
      timeoutMs: 10_000,
      failure: 'the compute host could not check the cron expression',
    })

  return {
    chat,
    repoBrief,
    cronPreview,
    resolveWorkspace,
    deleteThreads,
    health: (init?: { signal?: AbortSignal; timeoutMs?: number }) =>
      call(HostPaths.health, HostHealth, init),
    models: (init?: { signal?: AbortSignal; timeoutMs?: number }) =>
      call(HostPaths.models, HostModels, init),
    cronTimezone: (init?: { signal?: AbortSignal; timeoutMs?: number }) =>
      call(HostPaths.cronTimezone, CronTimezone, init),
  }
}

function describeFetchError(error: unknown): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
    return 'the compute host did not answer in time'
  }
  return 'the compute host is not reachable'
}
