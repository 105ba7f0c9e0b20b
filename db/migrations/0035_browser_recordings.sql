-- Browser recordings (issue 37): a Playwright trace of a browser session the owner started,
-- stored as one zip under POPAGENT_DATA_DIR/browser-recordings once stopped, with its size and
-- digest; at most one recording in progress per session. Deleted with their session, and by the
-- host's retention sweep.
CREATE TABLE "popagent_browser_recordings" (
	"id" text PRIMARY KEY NOT NULL,
	"browser_session_id" text NOT NULL,
	"kind" text DEFAULT 'trace' NOT NULL,
	"state" text DEFAULT 'recording' NOT NULL,
	"bytes" integer,
	"sha256" text,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"stopped_at" timestamp with time zone,
	"stop_reason" text,
	"error" text,
	CONSTRAINT "popagent_browser_recordings_kind" CHECK ("popagent_browser_recordings"."kind" in ('trace')),
	CONSTRAINT "popagent_browser_recordings_state" CHECK ("popagent_browser_recordings"."state" in ('recording', 'ready', 'failed'))
);
--> statement-breakpoint
ALTER TABLE "popagent_browser_recordings" ADD CONSTRAINT "popagent_browser_recordings_browser_session_id_popagent_browser_sessions_id_fk" FOREIGN KEY ("browser_session_id") REFERENCES "public"."popagent_browser_sessions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "popagent_browser_recordings_active" ON "popagent_browser_recordings" USING btree ("browser_session_id") WHERE "popagent_browser_recordings"."state" = 'recording';--> statement-breakpoint
CREATE INDEX "popagent_browser_recordings_started_idx" ON "popagent_browser_recordings" USING btree ("started_at");
