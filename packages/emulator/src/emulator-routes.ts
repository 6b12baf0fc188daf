import type { IncomingMessage } from 'node:http';
import { type EventType, isKnownEventType } from '@sms-webhooks/core';
import { type FieldError, validationError } from './api-error.js';
import type { RouteResult } from './api-routes.js';
import { readJsonObject } from './http-io.js';
import { requireJson } from './request-guard.js';
import type { EmulatorState } from './state.js';

const PHONE = /^\+[1-9]\d{6,14}$/;
const MAX_RECIPIENTS = 1000;

function stringArray(
  value: unknown,
  field: string,
  errors: FieldError[],
  check?: RegExp,
): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string' || (check && !check.test(v)))) {
    errors.push({
      field,
      message: check ? 'must be an array of numbers like +15555550100' : 'must be an array of strings',
    });
    return undefined;
  }
  return value as string[];
}

function stringRecord(
  value: unknown,
  field: string,
  errors: FieldError[],
): Record<string, string> | undefined {
  if (value === undefined) return undefined;
  if (
    value === null ||
    typeof value !== 'object' ||
    Array.isArray(value) ||
    Object.values(value).some((v) => typeof v !== 'string')
  ) {
    errors.push({ field, message: 'must be an object of string values' });
    return undefined;
  }
  return value as Record<string, string>;
}

function optionalString(value: unknown, field: string, errors: FieldError[]): string | undefined {
  if (value === undefined || typeof value === 'string') return value;
  errors.push({ field, message: 'must be a string' });
  return undefined;
}

async function simulateSend(state: EmulatorState, req: IncomingMessage): Promise<RouteResult> {
  const body = (await readJsonObject(req)) ?? {};
  const errors: FieldError[] = [];
  const to = stringArray(body.to, 'to', errors, PHONE);
  const fail = stringArray(body.fail, 'fail', errors);
  const replies = stringRecord(body.replies, 'replies', errors);
  const metadata = stringRecord(body.metadata, 'metadata', errors);
  const workspaceId = optionalString(body.workspace_id, 'workspace_id', errors);
  const recipients = body.recipients;
  if (
    recipients !== undefined &&
    (!Number.isInteger(recipients) || (recipients as number) < 1 || (recipients as number) > MAX_RECIPIENTS)
  ) {
    errors.push({ field: 'recipients', message: `must be an integer from 1 to ${MAX_RECIPIENTS}` });
  }
  if (to !== undefined && (to.length === 0 || to.length > MAX_RECIPIENTS)) {
    errors.push({ field: 'to', message: `must hold 1 to ${MAX_RECIPIENTS} numbers` });
  }
  if (errors.length > 0) throw validationError(errors);
  const result = state.simulateSend({
    to,
    recipients: recipients as number | undefined,
    fail,
    replies,
    metadata,
    workspaceId,
  });
  return { status: 202, body: result };
}

async function emitEvent(state: EmulatorState, req: IncomingMessage): Promise<RouteResult> {
  const body = (await readJsonObject(req)) ?? {};
  const errors: FieldError[] = [];
  const type = body.type;
  if (typeof type !== 'string' || !isKnownEventType(type)) {
    errors.push({ field: 'type', message: 'must be a known event type' });
  }
  const data = body.data;
  if (data !== undefined && (data === null || typeof data !== 'object' || Array.isArray(data))) {
    errors.push({ field: 'data', message: 'must be an object' });
  }
  const workspaceId = optionalString(body.workspace_id, 'workspace_id', errors);
  if (errors.length > 0) throw validationError(errors);
  const events = state.emit(type as EventType, data as Record<string, unknown> | undefined, workspaceId);
  return { status: 202, body: { events } };
}

/**
 * Routes that only the emulator has, to make events happen. They take no token: the emulator is a
 * local tool, and these stand in for what a phone network would do.
 */
export async function routeEmulator(
  state: EmulatorState,
  req: IncomingMessage,
  path: string,
): Promise<RouteResult | undefined> {
  const method = req.method ?? 'GET';
  if (path === '/_emulator/health' && method === 'GET') {
    return { status: 200, body: { ok: true, pending_deliveries: state.engine.pending } };
  }
  if (method === 'POST' && path.startsWith('/_emulator/')) requireJson(req);
  if (path === '/_emulator/sends' && method === 'POST') return simulateSend(state, req);
  if (path === '/_emulator/events' && method === 'POST') return emitEvent(state, req);
  const redeliver = /^\/_emulator\/events\/(evt_[^/]+)\/redeliver$/.exec(path);
  if (redeliver && method === 'POST') {
    const deliveries = state.redeliver(decodeURIComponentSafe(redeliver[1]!));
    if (deliveries.length === 0)
      throw validationError([{ field: 'event_id', message: 'no such event was sent' }]);
    return { status: 202, body: { object: 'list', data: deliveries } };
  }
  return undefined;
}

function decodeURIComponentSafe(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
