/** The value of a bench script's `--name=value` option, or `fallback` when it is not given. */
export function arg(name: string, fallback: string): string {
  return process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
}
