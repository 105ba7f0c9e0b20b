-- Per-turn undo (B3): before a chat turn's first write popagent keeps the working tree's files in
-- its own content store (never the user's git index, stash or refs), and records each turn's change
-- set, so undo can restore exactly the files the agent changed and refuse those the user changed
-- after it.
CREATE TABLE "popagent_turn_blobs" (
	"hash" text PRIMARY KEY NOT NULL,
	"size" integer NOT NULL,
	"content" text NOT NULL,
	"last_used_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "popagent_turn_blobs_size_nonnegative" CHECK ("popagent_turn_blobs"."size" >= 0)
);
--> statement-breakpoint
CREATE TABLE "popagent_turn_changes" (
	"turn_id" text PRIMARY KEY NOT NULL,
	"session_id" text NOT NULL,
	"workspace_id" text NOT NULL,
	"repository" text NOT NULL,
	"state" text NOT NULL,
	"files" jsonb,
	"limits" jsonb,
	"undo" jsonb,
	"error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "popagent_turn_changes_state" CHECK ("popagent_turn_changes"."state" in ('recording', 'recorded', 'failed', 'undoing', 'undone'))
);
--> statement-breakpoint
ALTER TABLE "popagent_turn_changes" ADD CONSTRAINT "popagent_turn_changes_session_id_popagent_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."popagent_sessions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "popagent_turn_blobs_last_used_idx" ON "popagent_turn_blobs" USING btree ("last_used_at");--> statement-breakpoint
CREATE INDEX "popagent_turn_changes_session_idx" ON "popagent_turn_changes" USING btree ("session_id");