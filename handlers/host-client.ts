import type { z } from 'zod'
import { HostHealth, HostModels, HostPaths } from '../runtime/contracts/host-api.ts'
import { HostUnavailable } from '../runtime/errors.ts'

/**
 * The handlers' only way to the compute host: its internal HTTP API on loopback, authenticated by
 * the shared host token, with every response parsed against `runtime/contracts/host-api.ts`.
 */
export type HostClient = ReturnType<typeof createHostClient>

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

  return {
    health: (init?: { signal?: AbortSignal; timeoutMs?: number }) =>
      call(HostPaths.health, HostHealth, init),
    models: (init?: { signal?: AbortSignal; timeoutMs?: number }) =>
      call(HostPaths.models, HostModels, init),
  }
}

function describeFetchError(error: unknown): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
    return 'the compute host did not answer in time'
  }
  return 'the compute host is not reachable'
}
