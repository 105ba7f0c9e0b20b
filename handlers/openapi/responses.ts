import { refTo } from './components.ts'
import type { Operation } from './operations.ts'

const errorContent = (schema: object) => ({ 'application/json': { schema } })
const error = (description: string) => ({
  description,
  content: errorContent({ $ref: refTo('ErrorResponse') }),
})

/**
 * The answers every route can give, in the one error shape (runtime/errors.ts), defined once
 * under `#/components/responses` and referenced by each operation.
 */
export const ERROR_RESPONSES = {
  InvalidInput: {
    description:
      'Invalid input: VALIDATION_FAILED with the problems per field under `data.fields`, or another 400 naming the problem.',
    content: errorContent({
      anyOf: [{ $ref: refTo('ValidationErrorResponse') }, { $ref: refTo('ErrorResponse') }],
    }),
  },
  Unauthorized: error('UNAUTHORIZED: missing or wrong `x-popagent-key`.'),
  NotFound: error('What the path names does not exist.'),
  PayloadTooLarge: error('PAYLOAD_TOO_LARGE: the body is over POPAGENT_MAX_BODY_BYTES.'),
  UnsupportedMediaType: error('UNSUPPORTED_MEDIA_TYPE: send the body as application/json.'),
  Error: error('Any other failure (a conflict, the compute host or a database unavailable).'),
}

export const ERROR_SCHEMAS = ['ErrorResponse', 'ValidationErrorResponse']

const use = (name: keyof typeof ERROR_RESPONSES) => ({ $ref: `#/components/responses/${name}` })

/**
 * One operation's responses. No route declares its success body as a schema yet (handlers answer
 * with `c.json(…)` typed by TypeScript alone), so success is described, not specified; the error
 * answers follow from the route's inputs.
 */
export function responsesOf(operation: Operation) {
  const { inputs, params } = operation
  return {
    '2XX': { description: 'Success. This route declares no response schema.' },
    ...(Object.keys(inputs).length && { '400': use('InvalidInput') }),
    '401': use('Unauthorized'),
    ...(params.length && { '404': use('NotFound') }),
    ...(inputs.json && { '413': use('PayloadTooLarge'), '415': use('UnsupportedMediaType') }),
    default: use('Error'),
  }
}
