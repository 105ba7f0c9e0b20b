import { bodyLimit } from 'hono/body-limit'
import { createMiddleware } from 'hono/factory'
import { errorBody } from '../../runtime/errors.ts'
import type { AppEnv } from '../env.ts'

/**
 * Refuses request bodies over the configured size with 413, whether or not the client declared a
 * Content-Length (a chunked body is counted as it streams).
 */
export const jsonBodyLimit = createMiddleware<AppEnv>((c, next) =>
  bodyLimit({
    maxSize: c.var.config.maxBodyBytes,
    onError: (c) =>
      c.json(
        errorBody(
          'PAYLOAD_TOO_LARGE',
          `request body is larger than ${c.var.config.maxBodyBytes} bytes`,
        ),
        413,
      ),
  })(c, next),
)
