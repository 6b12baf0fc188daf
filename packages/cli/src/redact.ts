/**
 * Every URL's user info (`redis://:password@host`, `postgres://user:password@host/db`) in `text`, with the
 * password replaced by `***`: connection URLs are echoed by usage errors and by some drivers' messages,
 * and a password must never reach a terminal, a CI log or `--json` output.
 */
export function redactUrls(text: string): string {
  return text.replace(
    /\b([a-z][a-z0-9+.-]*:\/\/)([^\s/?#@'"]*)@/gi,
    (_all, scheme: string, userinfo: string) => {
      const colon = userinfo.indexOf(':');
      return `${scheme}${colon < 0 ? '***' : `${userinfo.slice(0, colon)}:***`}@`;
    },
  );
}
