-- The dedupe table of @sms-webhooks/postgres, under its default name. For another name use
-- migrationSql(table); store.migrate() runs the same statements under an advisory lock.
CREATE TABLE IF NOT EXISTS "sms_webhook_events" (
  key text PRIMARY KEY,
  token text NOT NULL,
  state text NOT NULL CHECK (state IN ('in-flight', 'committed', 'completed')),
  expires_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS "sms_webhook_events_expires_at" ON "sms_webhook_events" (expires_at);
ALTER TABLE "sms_webhook_events" ADD COLUMN IF NOT EXISTS object_key text, ADD COLUMN IF NOT EXISTS version text COLLATE "C";
CREATE UNIQUE INDEX IF NOT EXISTS "sms_webhook_events_object_busy" ON "sms_webhook_events" (object_key)
  WHERE state = 'in-flight' AND object_key IS NOT NULL;
CREATE INDEX IF NOT EXISTS "sms_webhook_events_object_version" ON "sms_webhook_events" (object_key, version)
  WHERE version IS NOT NULL;
CREATE TABLE IF NOT EXISTS "sms_webhook_events_order" (
  key text PRIMARY KEY,
  version text COLLATE "C",
  token text,
  lease_until timestamptz,
  expires_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS "sms_webhook_events_order_exp" ON "sms_webhook_events_order" (expires_at);
CREATE TABLE IF NOT EXISTS "sms_webhook_events_kept" (
  key text PRIMARY KEY,
  delivery text NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS "sms_webhook_events_kept_exp" ON "sms_webhook_events_kept" (expires_at);
