-- A chat may also be capped per rolling window (Telegram: 20 messages a minute to a group): a chunk
-- is claimable only while fewer than window_max chunks of its chat were sent in the last
-- window_ms. Null on both: no cap beyond pace_ms.
ALTER TABLE "popagent_channel_outbox" ADD COLUMN "window_max" integer;--> statement-breakpoint
ALTER TABLE "popagent_channel_outbox" ADD COLUMN "window_ms" integer;
