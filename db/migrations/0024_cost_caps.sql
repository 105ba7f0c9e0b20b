-- Cost caps (issue 41, section 2): a chat turn and a task tree stop before the model call that
-- could pass their cap, priced from popagent_model_prices. The cap is in the price table's unit
-- (USD). Unattended work (tasks, schedules, self-update, evolution) starts lower than chat. The
-- column defaults are the starting values, for an installed singleton and for the seed of a new
-- install alike (the seed, data migration 0001, names only the columns it had when written, so
-- that it runs on a database migrated to any earlier schema); data migration 0006 drops the
-- defaults once the singleton holds them (configurable settings columns carry none).
ALTER TABLE "popagent_agent_runtime_settings" ADD COLUMN "budget_cost_usd" numeric(12, 4) NOT NULL DEFAULT 2;--> statement-breakpoint
ALTER TABLE "popagent_agent_runtime_settings" ADD COLUMN "budget_unattended_cost_usd" numeric(12, 4) NOT NULL DEFAULT 1;
