-- Approvals (issue 38): a question a run asks the owner and waits on, today a tool call a
-- PreToolUse hook answered `ask` for. The first answer wins (status leaves 'pending' once), an
-- unanswered one expires (a deny), and binding_id names the channel conversation it is also
-- asked on. summary holds the call's arguments as the redactor left them, cut short.
CREATE TABLE "popagent_approvals" (
	"id" text PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"tool_name" text,
	"summary" text NOT NULL,
	"reason" text,
	"session_id" text,
	"task_id" text,
	"run_id" text,
	"binding_id" text REFERENCES "popagent_channel_bindings"("id") ON DELETE SET NULL,
	"status" text NOT NULL,
	"decided_by" text,
	"decided_at" timestamp with time zone,
	"expires_at" timestamp with time zone NOT NULL,
	"details" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "popagent_approvals_kind" CHECK ("popagent_approvals"."kind" in ('tool-call')),
	CONSTRAINT "popagent_approvals_status" CHECK ("popagent_approvals"."status" in ('pending', 'allowed', 'denied', 'expired')),
	CONSTRAINT "popagent_approvals_decided" CHECK (("popagent_approvals"."status" in ('allowed', 'denied')) = ("popagent_approvals"."decided_by" is not null))
);--> statement-breakpoint
CREATE INDEX "popagent_approvals_pending" ON "popagent_approvals" USING btree ("expires_at") WHERE "popagent_approvals"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "popagent_approvals_recent" ON "popagent_approvals" USING btree ("created_at");
--> statement-breakpoint
-- A PreToolUse hook may answer `ask`: its audit row records that outcome.
ALTER TABLE "popagent_hook_runs" DROP CONSTRAINT "popagent_hook_runs_outcome";--> statement-breakpoint
ALTER TABLE "popagent_hook_runs" ADD CONSTRAINT "popagent_hook_runs_outcome" CHECK ("popagent_hook_runs"."outcome" in ('running', 'allow', 'deny', 'ask', 'failed'));
