/**
 * The consumer program run against the installed tarballs, once as CommonJS and once as ESM. `load`
 * binds core, expressMiddleware, koaMiddleware, fastifyPlugin, webhookHandler, lambdaHandler, RedisStore, http,
 * express, Koa and Fastify. Each adapter gets a real app, one signed delivery and one GET; the handler's
 * line shows the event went through verify, dedupe and dispatch in the packed code.
 */
export const adaptersProgram = (load: string) => `
${load}
const secret = 'whsec_pack';
const lines = [];

function listen(server) {
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const url = 'http://127.0.0.1:' + server.address().port + '/webhooks';
      const close = () => new Promise((done) => { server.close(() => done()); server.closeAllConnections(); });
      resolve({ send: (init) => fetch(url, init), close });
    });
  });
}

async function check(name, start) {
  const receiver = core.createReceiver({ secret, respond: 'after-handlers', logger: { warn() {}, error: console.error } });
  receiver.on('message.delivered', (e) => { lines.push(name + ' handled ' + e.data.to); });
  const app = await start(receiver);
  try {
    const d = core.createTestDelivery('message.delivered', { secret });
    const posted = await app.send({ method: 'POST', headers: d.headers, body: d.body });
    const got = await app.send({ method: 'GET' });
    lines.push(name + ' ' + posted.status + ' ' + got.status);
  } finally {
    await app.close();
  }
}

async function main() {
  await check('express', (receiver) => {
    const app = express();
    app.all('/webhooks', expressMiddleware(receiver));
    return listen(http.createServer(app));
  });
  await check('koa', (receiver) => {
    const app = new Koa();
    app.use(koaMiddleware(receiver, { path: '/webhooks' }));
    return listen(http.createServer(app.callback()));
  });
  await check('fastify', async (receiver) => {
    const app = Fastify();
    await app.register(fastifyPlugin, { receiver, path: '/webhooks' });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const url = 'http://127.0.0.1:' + app.server.address().port + '/webhooks';
    return { send: (init) => fetch(url, init), close: () => app.close() };
  });
  await check('web', (receiver) => {
    const handler = webhookHandler(receiver);
    return { send: (init) => handler(new Request('http://localhost/webhooks', init)), close: async () => {} };
  });
  await check('lambda', (receiver) => {
    // An HTTP API (payload 2.0) event carrying the request, as API Gateway would invoke the function.
    const handler = lambdaHandler(receiver);
    const send = async (init) => {
      const event = { version: '2.0', headers: init.headers ?? {}, body: init.body ?? '', isBase64Encoded: false,
        requestContext: { http: { method: init.method } } };
      return { status: (await handler(event)).statusCode };
    };
    return { send, close: async () => {} };
  });
  const commands = [];
  const store = new RedisStore({ sendCommand: async (...args) => { commands.push(args[0]); return 'claimed'; } });
  // createReceiver checks the store's shape and throws at start-up when it is not a DedupeStore.
  let accepted = true;
  try { core.createReceiver({ secret, store, logger: { warn() {}, error() {} } }); } catch { accepted = false; }
  lines.push('redis ' + accepted + ' ' + (await store.claim('evt_pack', 'token', 1000)) + ' ' + commands[0]);
  console.log(lines.join('\\n'));
}
main().catch((error) => { console.error(error); process.exitCode = 1; });
`;

export const adaptersExpected = `${['express', 'koa', 'fastify', 'web', 'lambda']
  .map((name) => `${name} handled +15555550123\n${name} 200 405`)
  .join('\n')}\nredis true claimed EVALSHA\n`;
