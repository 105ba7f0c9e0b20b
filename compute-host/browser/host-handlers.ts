import { Readable } from 'node:stream'
import { featureSupport } from '../../runtime/browser/policy.ts'
import { AppError } from '../../runtime/errors.ts'
import type { HostHandlers } from '../host-routes.ts'
import type { HostResources } from '../resources.ts'

type BrowserHandlers = Pick<
  HostHandlers,
  | 'browserHealth'
  | 'browserFeatures'
  | 'browserScreenshot'
  | 'browserRecordingStart'
  | 'browserRecordingStop'
  | 'browserRecordingFile'
  | 'browserRecordingDelete'
>

export const BrowserNotConfigured = AppError.define(
  'BROWSER_NOT_CONFIGURED',
  503,
  'this host has no browser connection',
)
export const BrowserSessionNotLive = AppError.define(
  'BROWSER_SESSION_NOT_LIVE',
  404,
  'that browser session is not open on this host',
)
export const BrowserCallFailed = AppError.define(
  'BROWSER_CALL_FAILED',
  502,
  'the browser server could not do it',
)

/** The host's browser endpoints (runtime/contracts/browser-host-routes.ts). */
export function browserHandlers($: HostResources): BrowserHandlers {
  const browser = () => {
    if (!$.browser) throw new BrowserNotConfigured()
    return $.browser
  }
  const recordings = () => {
    const r = browser().recordings
    if (!r) throw new BrowserNotConfigured(undefined, { message: 'this host keeps no recordings' })
    return r
  }
  return {
    browserHealth: () => browser().server.health(),
    browserFeatures: async () => {
      const catalog = await browser()
        .server.catalog()
        .catch(() => undefined)
      return catalog
        ? { connected: true, features: featureSupport(catalog.names) }
        : { connected: false, features: null }
    },
    browserScreenshot: async ({ id }, c) => {
      const result = await browser()
        .sessions.ownerScreenshot(id, c.req.raw.signal)
        .catch((error: unknown) => {
          throw new BrowserCallFailed(undefined, { message: (error as Error).message })
        })
      if (!result) throw new BrowserSessionNotLive({ id })
      const image = result.content.find((p) => p.type === 'image')
      if (result.isError || image?.type !== 'image') {
        throw new BrowserCallFailed({ id }, { message: 'the server returned no screenshot' })
      }
      return { mimeType: image.mimeType, data: image.data }
    },
    browserRecordingStart: ({ id }) => recordings().start(id),
    browserRecordingStop: ({ id }) => recordings().stop(id),
    browserRecordingFile: async ({ id }) => {
      const { handle, size } = await recordings().file(id)
      // The handle was opened without following links and checked a regular file of its size;
      // the stream closes it when done.
      const body = Readable.toWeb(handle.createReadStream()) as ReadableStream<Uint8Array>
      return new Response(body, {
        headers: { 'content-type': 'application/zip', 'content-length': String(size) },
      })
    },
    browserRecordingDelete: ({ id }) => recordings().delete(id),
  }
}
