import { describeReadmeExamples } from './readme-examples.js';
import { STORE_READMES } from './readmes-stores.js';

// The READMEs of the stores and queue hand-offs (Redis, PostgreSQL, BullMQ, pg-boss, RabbitMQ).
describeReadmeExamples(STORE_READMES.filter((r) => r.path.startsWith('packages/')));
