export * from './workspaces.ts'
export * from './sessions.ts'
export * from './data-migrations.ts'
export * from './agent-runtime-settings.ts'
