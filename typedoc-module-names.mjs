// A TypeDoc plugin: each module is named by the specifier users import (`@sms-webhooks/core/adapter`)
// rather than by its source path (`core/src/adapter`).
import { Converter } from 'typedoc';

export function load(app) {
  app.converter.on(Converter.EVENT_RESOLVE_BEGIN, (context) => {
    for (const module of context.project.children ?? []) {
      module.name = module.name.replace(/^([\w-]+)\/src(\/.+)?$/, '@sms-webhooks/$1$2');
    }
  });
}
