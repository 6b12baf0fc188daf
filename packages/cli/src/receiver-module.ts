import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { HandledTypes } from '@sms-webhooks/ops';
import { CliError } from './cli-error.js';

/** The app's receiver from its module: `<module>` (export `receiver` or default) or `<module>#<name>`. */
export async function loadReceiver<R>(modulePath: string, has: keyof R & string): Promise<R> {
  const [file, name = 'receiver'] = modulePath.split('#') as [string, string?];
  let loaded: Record<string, unknown>;
  try {
    loaded = await import(pathToFileURL(resolve(file)).href);
  } catch (error) {
    throw new CliError(`could not load ${file}: ${(error as Error)?.message ?? String(error)}`, {
      code: 'receiver_unloadable',
    });
  }
  const receiver = (loaded[name] ?? (name === 'receiver' ? loaded.default : undefined)) as
    | Record<string, unknown>
    | undefined;
  if (typeof receiver?.[has] !== 'function') {
    throw new CliError(
      `${file} exports no receiver named ${name}: export it (export const receiver = createReceiver(…)) or name it with ${file}#<export>.`,
      { code: 'receiver_unloadable' },
    );
  }
  return receiver as R;
}

/** The types an app's receiver handles, from its module (see loadReceiver). */
export async function handledBy(modulePath: string): Promise<HandledTypes> {
  const receiver = await loadReceiver<{ handledTypes(): HandledTypes }>(modulePath, 'handledTypes');
  return receiver.handledTypes();
}
