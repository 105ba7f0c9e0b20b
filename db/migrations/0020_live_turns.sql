-- The chat turns running now, one row per session: a turn outlives the request that started it,
-- and this row says which sessions are running, refuses a second turn in one, and keeps the
-- user's message until the turn is saved or, after a host stopped without saving it, recovered.
CREATE TABLE "popagent_live_turns" (
	"session_id" text PRIMARY KEY NOT NULL,
	"turn_id" text NOT NULL,
	"host" text NOT NULL,
	"message" jsonb NOT NULL,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"heartbeat_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "popagent_live_turns" ADD CONSTRAINT "popagent_live_turns_session_id_popagent_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."popagent_sessions"("id") ON DELETE cascade ON UPDATE no action;