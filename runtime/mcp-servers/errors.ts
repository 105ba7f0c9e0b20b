import { AppError } from '../errors.ts'

export const McpServerNotFound = AppError.define(
  'MCP_SERVER_NOT_FOUND',
  404,
  'MCP server not found',
)
export const McpServerIdTaken = AppError.define(
  'MCP_SERVER_ID_TAKEN',
  409,
  'an MCP server with this id exists',
)
export const McpServerInvalid = AppError.define(
  'MCP_SERVER_INVALID',
  422,
  'the MCP server definition is not allowed',
)
