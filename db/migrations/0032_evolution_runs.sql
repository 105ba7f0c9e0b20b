-- Agent evolution (issue 39): one row per run and agent that took part, with the failure classes
-- its signals named (none: the run went well as far as evolution can tell). The worker measures
-- each learned change by its agent's failure rate over a window of runs before and after it, and
-- reverts the change when the rate rose.
CREATE TABLE "popagent_evolution_runs" (
	"trace_id" text NOT NULL,
	"agent_id" text NOT NULL,
	"failure_classes" text[] DEFAULT '{}' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "popagent_evolution_runs_pk" PRIMARY KEY("trace_id","agent_id")
);--> statement-breakpoint
CREATE INDEX "popagent_evolution_runs_agent_idx" ON "popagent_evolution_runs" USING btree ("agent_id","created_at");
