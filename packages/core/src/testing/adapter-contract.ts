import {
  answerRows,
  asSentRows,
  failureRows,
  handoverRows,
  refusalRows,
  tenantRows,
} from './adapter-contract-answers.js';
import { overloadRows, readRows, tooLargeRows } from './adapter-contract-entry.js';
import { contractRows } from './adapter-contract-kit.js';
import type { AdapterContractOptions, AdapterHarness } from './adapter-harness.js';
import { resolveTestApi } from './test-api.js';

/**
 * What every adapter must do, over real HTTP: hand the bytes over unchanged with their headers, write the
 * receiver's answers (status, headers, JSON body), and the Node entry's own duties (405, 413, 408, the close
 * after a refusal, any content type). The receiver's policy (signatures, dedupe, modes) is tested once, in core.
 * `runAdapterContract('express 5', { start: (receiver, { path }) => … })`.
 */
export function runAdapterContract(
  name: string,
  harness: AdapterHarness,
  api?: AdapterContractOptions,
): void {
  const { describe, it } = resolveTestApi(api);
  const rows = contractRows(it, harness, api);
  describe(`adapter contract: ${name}`, () => {
    answerRows(rows);
    handoverRows(rows);
    asSentRows(rows);
    refusalRows(rows);
    failureRows(rows);
    overloadRows(rows);
    tooLargeRows(rows);
    readRows(rows);
    if (api?.routeParams !== false) tenantRows(rows);
  });
}
