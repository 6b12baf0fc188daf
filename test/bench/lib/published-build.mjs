// `node --import tsx --import ./published-build.mjs …`: every `@sms-webhooks/<package>[/<entry>]` import in
// the process, the bench's own and the packages' imports of each other, resolves to what `pnpm build`
// wrote in packages/<package>/dist (the `import` condition of its exports), as an application installing
// the packages gets them. tsx still compiles the bench's TypeScript; it leaves dist's JavaScript as it is.
import { register } from 'node:module';

register('./published-build-hooks.mjs', import.meta.url);
