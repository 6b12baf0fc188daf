// `@sms-webhooks/internal`: what only our own packages share. Never published: each package's build
// bundles what it uses, so no published file imports it (test/packaging checks the tarballs).
export { closestName } from './closest-name.js';
export {
  describeValue,
  OPTIONS_ERROR_CODE,
  oneOfOption,
  optionError,
  type PositiveOption,
  positiveOption,
} from './option-checks.js';
export { isPromiseLike } from './promise-like.js';
export { sampleData } from './sample-data.js';
export { withTimeout } from './with-timeout.js';
