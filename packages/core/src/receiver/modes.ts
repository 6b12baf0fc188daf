/** When the service gets its answer: before the handlers run ('immediately') or after they succeed. */
export type RespondMode = 'immediately' | 'after-handlers';
/** When the dedupe store fails: answer 503 so the service retries ('reject'), or run without dedupe. */
export type StoreErrorMode = 'reject' | 'process';
