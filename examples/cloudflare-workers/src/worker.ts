// A Cloudflare Worker (module syntax). Its secret arrives with each request (env), and a Worker may not
// draw random values or start timers at module load, so the app is made on the first request.
import { type App, createApp, type ExecutionContext } from './app.js';

export interface Env {
  /** whsec_…: `npx wrangler secret put SMS_WEBHOOK_SECRET`, or `.dev.vars` for `wrangler dev`. */
  SMS_WEBHOOK_SECRET: string;
}

let app: App | undefined;

export default {
  fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
    app ??= createApp({ secret: env.SMS_WEBHOOK_SECRET });
    // ctx has waitUntil: the Worker stays up until the handlers of an accepted event finish.
    return app(request, ctx);
  },
};
