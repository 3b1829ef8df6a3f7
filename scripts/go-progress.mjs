// Condenses what `go install -v` prints into a few lines a person watching `npm ci` can follow: a
// line when the downloads start, one when compiling starts, and every few seconds how far it got.
// Go's raw output (hundreds of module and package names) goes to the build log, not the terminal;
// without any of this a cold k6 build is minutes of silence that looks like a hang.

const DOWNLOADING = /^go: downloading (\S+)/;
// With -v, go prints each package's import path as it compiles it; headers ("# pkg") and other
// "go: …" lines are not packages.
const PACKAGE = /^[a-z0-9][\w.-]*(\.[\w-]+)*(\/[\w.~+-]+)*$/i;

/** A line of `go install -v` that only names a package being compiled (no error in it). */
export const isPackageLine = (text) => !text.startsWith('go: ') && !text.startsWith('#') && PACKAGE.test(text);

/**
 * `say` prints one line; `everyMs` is the heartbeat (10 s by default, CES_K6_PROGRESS_EVERY_S
 * overrides it). feed() takes go's stdout/stderr chunks; stop() ends the heartbeat.
 */
export function goProgress(say, everyMs = 10_000) {
  const started = Date.now();
  let modules = 0;
  let packages = 0;
  let last = '';
  let partial = '';
  let reported = '';
  const elapsed = () => `${Math.round((Date.now() - started) / 1000)} s`;
  // A warm Go cache compiles nothing and only links: say so rather than "0 packages compiled".
  const counts = () =>
    modules + packages === 0
      ? "nothing downloaded or compiled (Go's caches have it), linking"
      : `${modules} module${modules === 1 ? '' : 's'} downloaded, ${packages} package${packages === 1 ? '' : 's'} compiled`;
  const line = (text) => {
    const download = DOWNLOADING.exec(text);
    if (download) {
      if (modules++ === 0) say('k6 build: downloading Go modules…');
      last = download[1];
    } else if (isPackageLine(text)) {
      if (packages++ === 0) say('k6 build: compiling…');
      last = text;
    }
  };
  const timer = setInterval(() => {
    // A heartbeat even when nothing moved: a long link step prints nothing, and silence is what
    // looks like a hang.
    const now = `${counts()}${last ? ` (last: ${last})` : ''}`;
    say(`k6 build: ${elapsed()}: ${now}${now === reported ? ', still working' : ''}`);
    reported = now;
  }, everyMs);
  timer.unref();
  return {
    feed(chunk) {
      const lines = (partial + chunk.toString()).split('\n');
      partial = lines.pop() ?? '';
      for (const l of lines) if (l.trim()) line(l.trim());
    },
    stop() {
      clearInterval(timer);
      if (partial.trim()) line(partial.trim());
      partial = '';
      return counts();
    },
  };
}
