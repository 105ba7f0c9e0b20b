import { AppError } from '../errors.ts'

export const ApprovalNotFound = AppError.define('APPROVAL_NOT_FOUND', 404, 'approval not found')
