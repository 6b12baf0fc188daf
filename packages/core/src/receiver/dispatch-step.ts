import type { Delivery } from './delivery.js';
import { describeError } from './describe-error.js';
import { type DispatchedEvent, pendingDispatch } from './dispatch.js';
import type { ResolvedOptions } from './receiver-options.js';
import type { Refusals } from './refusals.js';
import { RECEIVED, type ReceiverResponse, storeUnavailable } from './responses.js';
import type { StoreSteps } from './store-steps.js';

/** Hands the claimed event to `dispatch`: 200 once it resolves, 503 (and the claim released) if not. */
export async function dispatchStep(
  d: Delivery,
  opts: ResolvedOptions,
  store: StoreSteps,
  refusals: Refusals,
): Promise<ReceiverResponse> {
  const { event, ctx, token, obs } = d;
  const dispatch = opts.dispatch!;
  try {
    const dispatched: DispatchedEvent = { event, ctx, claim: ctx.claim };
    const traceContext = obs?.traceContext?.();
    if (traceContext !== undefined) dispatched.traceContext = traceContext;
    await store.call(obs, 'dispatch', () => dispatch(dispatched));
    return RECEIVED;
  } catch (error) {
    opts.logger.error(
      `sms-webhooks: dispatch failed, answering 503 for ${event.id}: ${describeError(error)}`,
    );
    if (token !== undefined) await releaseAfterDispatch(d, opts, store, error);
    const message = 'The event could not be queued; retry later.';
    return refusals.refuse(storeUnavailable(message));
  }
}

/**
 * Gives a failed dispatch's claims back for the service's retry. A hand-off that may still land
 * (DispatchTimeoutError) keeps them until it settles, since once landed the queued event carries them.
 */
function releaseAfterDispatch(
  d: Delivery,
  opts: ResolvedOptions,
  store: StoreSteps,
  error: unknown,
): Promise<unknown> | undefined {
  const id = d.event.id;
  const token = d.token!;
  const release = () =>
    d.order === undefined
      ? store.release(id, token)
      : store.finish(id, token, false, opts.retainMs, undefined, d.order);
  const pending = pendingDispatch(error);
  if (pending === undefined) return release();
  pending.then(
    () =>
      opts.logger.warn(
        `sms-webhooks: ${id} was handed off after its 503 (the dispatch finished late); its claim stays with the queued event.`,
      ),
    release,
  );
  return undefined;
}
