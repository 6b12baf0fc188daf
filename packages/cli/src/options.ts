import { EVENT_TYPES, type EventType, isKnownEventType } from '@sms-webhooks/core';
import { closestName } from '@sms-webhooks/internal';
import { InvalidArgumentError } from 'commander';

export function integer(name: string, min: number, max: number) {
  return (value: string): number => {
    if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
      throw new InvalidArgumentError(`${name} must be an integer from ${min} to ${max}.`);
    }
    return Number(value);
  };
}

export function positiveNumber(name: string) {
  return (value: string): number => {
    // Allow fractions written as 1/1000, the natural way to say "compress 1000 times".
    const fraction = /^(\d+(?:\.\d+)?)\/(\d+(?:\.\d+)?)$/.exec(value);
    const n = fraction ? Number(fraction[1]) / Number(fraction[2]) : Number(value);
    if (!Number.isFinite(n) || n <= 0)
      throw new InvalidArgumentError(`${name} must be a positive number (e.g. 0.001 or 1/1000).`);
    return n;
  };
}

export function eventType(value: string): EventType {
  if (!isKnownEventType(value)) {
    const close = closestName(value, EVENT_TYPES);
    throw new InvalidArgumentError(
      `unknown event type${close ? `; did you mean ${close}?` : '.'} Use one of ${EVENT_TYPES.join(', ')}.`,
    );
  }
  return value;
}

export function eventTypeList(value: string): EventType[] {
  const types = value
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  if (types.length === 0) throw new InvalidArgumentError('give at least one event type.');
  return types.map(eventType);
}

export function jsonObject(value: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new InvalidArgumentError('must be a JSON object, e.g. \'{"to":"+15555550100"}\'.');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new InvalidArgumentError('must be a JSON object.');
  }
  return parsed as Record<string, unknown>;
}

export function absoluteUrl(name: string) {
  return (value: string): URL => {
    try {
      const url = new URL(value);
      if (url.protocol === 'http:' || url.protocol === 'https:') return url;
    } catch {}
    throw new InvalidArgumentError(
      `${name} must be an absolute http(s) URL, e.g. http://localhost:3000/webhooks/sms.`,
    );
  };
}

export function eventId(value: string): string {
  // The spec gives only the prefix; the emulator and the service issue evt_ followed by letters and digits.
  if (!/^evt_\S+$/.test(value)) throw new InvalidArgumentError('must be an event id, evt_….');
  return value;
}

export function webhookSecret(value: string): string {
  if (!/^whsec_\S+$/.test(value)) {
    throw new InvalidArgumentError('must be a whsec_… secret without whitespace (a stray newline?).');
  }
  return value;
}
