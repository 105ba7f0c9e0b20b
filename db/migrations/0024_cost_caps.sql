-- Cost caps (issue 41, section 2): a chat turn and a task tree stop before the model call that
-- could pass their cap, priced from popagent_model_prices. The cap is in the price table's unit
-- (USD). Unattended work (tasks, schedules, self-update, evolution) starts lower than chat. An
-- installed singleton gets the starting values once (the defaults are dropped again: configurable
-- columns carry none, so a missing value is never filled in silently); new installs get them from
-- the seed.
ALTER TABLE "popagent_agent_runtime_settings" ADD COLUMN "budget_cost_usd" numeric(12, 4) NOT NULL DEFAULT 2;--> statement-breakpoint
ALTER TABLE "popagent_agent_runtime_settings" ADD COLUMN "budget_unattended_cost_usd" numeric(12, 4) NOT NULL DEFAULT 1;--> statement-breakpoint
ALTER TABLE "popagent_agent_runtime_settings" ALTER COLUMN "budget_cost_usd" DROP DEFAULT;--> statement-breakpoint
ALTER TABLE "popagent_agent_runtime_settings" ALTER COLUMN "budget_unattended_cost_usd" DROP DEFAULT;
