-- A session's messages move from one jsonb array on its row to a row each: appending a turn
-- rewrote the whole array (65–125 ms at 100 coding turns), and reading the row to learn its
-- workspace or whether a turn was its first decompressed all of it. The row keeps the count.
CREATE TABLE "popagent_session_messages" (
	"session_id" text NOT NULL,
	"position" integer NOT NULL,
	"message" jsonb NOT NULL,
	CONSTRAINT "popagent_session_messages_session_id_position_pk" PRIMARY KEY("session_id","position")
);--> statement-breakpoint
ALTER TABLE "popagent_session_messages" ADD CONSTRAINT "popagent_session_messages_session_id_popagent_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."popagent_sessions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
INSERT INTO "popagent_session_messages" ("session_id", "position", "message")
	SELECT s."id", m."ordinality" - 1, m."value"
	FROM "popagent_sessions" s, jsonb_array_elements(s."messages") WITH ORDINALITY AS m;--> statement-breakpoint
ALTER TABLE "popagent_sessions" ADD COLUMN "message_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
UPDATE "popagent_sessions" SET "message_count" = jsonb_array_length("messages");--> statement-breakpoint
ALTER TABLE "popagent_sessions" ADD CONSTRAINT "popagent_sessions_message_count_nonnegative" CHECK ("popagent_sessions"."message_count" >= 0);--> statement-breakpoint
ALTER TABLE "popagent_sessions" DROP COLUMN "messages";
