import { Hono } from 'hono'
import { ExportSessionParams, ExportSessionQuery } from '../../runtime/contracts/session-export.ts'
import type { AppEnv } from '../env.ts'
import { validate } from '../validate.ts'

/**
 * Session export (B4), mounted under /api/sessions. The host builds the file (it holds the
 * redactor for every secret it knows); the edge sends it as a download.
 */
export const sessionExport = new Hono<AppEnv>().get(
  '/:id/export',
  validate('param', ExportSessionParams),
  validate('query', ExportSessionQuery),
  async (c) => {
    const file = await c.var.host.exportSession({
      sessionId: c.req.valid('param').id,
      format: c.req.valid('query').format,
    })
    return c.body(file.body, 200, {
      'content-type': file.contentType,
      'content-disposition': `attachment; filename="${file.filename}"`,
    })
  },
)
