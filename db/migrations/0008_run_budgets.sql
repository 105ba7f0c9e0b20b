-- Budgets (B1): every chat turn and task tree runs under token, tool-call, wall-time and
-- delegation-depth limits, and a loop breaker stops a call repeated with the same failure. An
-- installed singleton gets the starting values once (the defaults are dropped again: configurable
-- columns carry none, so a missing value is never filled in silently); new installs get them from
-- the seed. Tasks keep their own overrides and what their tree has used.
ALTER TABLE "popagent_agent_runtime_settings" ADD COLUMN "budget_input_tokens" integer NOT NULL DEFAULT 2000000;--> statement-breakpoint
ALTER TABLE "popagent_agent_runtime_settings" ADD COLUMN "budget_output_tokens" integer NOT NULL DEFAULT 200000;--> statement-breakpoint
ALTER TABLE "popagent_agent_runtime_settings" ADD COLUMN "budget_tool_calls" integer NOT NULL DEFAULT 200;--> statement-breakpoint
ALTER TABLE "popagent_agent_runtime_settings" ADD COLUMN "budget_wall_time_ms" integer NOT NULL DEFAULT 1800000;--> statement-breakpoint
ALTER TABLE "popagent_agent_runtime_settings" ADD COLUMN "budget_delegation_depth" integer NOT NULL DEFAULT 1;--> statement-breakpoint
ALTER TABLE "popagent_agent_runtime_settings" ADD COLUMN "loop_repeat_limit" integer NOT NULL DEFAULT 3;--> statement-breakpoint
ALTER TABLE "popagent_agent_runtime_settings" ALTER COLUMN "budget_input_tokens" DROP DEFAULT;--> statement-breakpoint
ALTER TABLE "popagent_agent_runtime_settings" ALTER COLUMN "budget_output_tokens" DROP DEFAULT;--> statement-breakpoint
ALTER TABLE "popagent_agent_runtime_settings" ALTER COLUMN "budget_tool_calls" DROP DEFAULT;--> statement-breakpoint
ALTER TABLE "popagent_agent_runtime_settings" ALTER COLUMN "budget_wall_time_ms" DROP DEFAULT;--> statement-breakpoint
ALTER TABLE "popagent_agent_runtime_settings" ALTER COLUMN "budget_delegation_depth" DROP DEFAULT;--> statement-breakpoint
ALTER TABLE "popagent_agent_runtime_settings" ALTER COLUMN "loop_repeat_limit" DROP DEFAULT;--> statement-breakpoint
ALTER TABLE "popagent_agent_tasks" ADD COLUMN "budget" jsonb;--> statement-breakpoint
ALTER TABLE "popagent_agent_tasks" ADD COLUMN "budget_used" jsonb;
