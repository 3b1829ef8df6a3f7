// No production by accident: an environment whose name reads like production, yet is not marked
// either way, is refused before any request. Treated as a sandbox it would get the load, the probes
// and the authenticated business calls production never gets without an opt-in; refusing costs the
// user one config line (`production: true` or `production: false`).
//
// The rule, on the lower-cased name split on `-`, `_`, `.` and spaces:
//  - a part holding `prod` or `prd` (prod, prd, production, prod1, euprod, products…) reads like
//    production, unless that `prod` is prefixed by `pre` or `non` in the same part (preprod,
//    nonprod, preproduction) or the part before is `pre` or `non` (pre-prod, non_prod): those are
//    the usual names of a staging environment;
//  - a part starting or ending with `live` (live, live2, golive, eu-live) reads like production.
// Anything else (sandbox, staging, uat, test, dev, qa, preprod…) does not. What is ambiguous is
// refused on purpose: a false refusal costs one line, a false pass production's safety.
// The name `production` itself is production without any key (the contract), and `production:
// false` on it is a contradiction, refused too.
// The base URL is a name too: an environment called sandbox whose URL is https://api.prod.example
// (a copied config, a --base-url pasted from the runbook) is refused the same way, each host label
// and path segment read by the same rule.

const STAGING_PREFIXES = ['pre', 'non'];

export function readsLikeProduction(name: string): boolean {
  const parts = name
    .toLowerCase()
    .split(/[-_.\s]+/)
    .filter(Boolean);
  return parts.some((part, i) => {
    if (/^live|live$/.test(part)) return true;
    const previous = parts[i - 1];
    for (const m of part.matchAll(/prod|prd/g)) {
      const before = part.slice(0, m.index);
      const staging =
        STAGING_PREFIXES.some((p) => before.endsWith(p)) ||
        (m.index === 0 && previous !== undefined && STAGING_PREFIXES.includes(previous));
      if (!staging) return true;
    }
    return false;
  });
}

/**
 * The one line that refuses an unmarked production-like environment, or a contradiction; undefined
 * when the name and its `production` key agree (or the name reads like no production).
 */
export function productionNameProblem(
  name: string,
  production: boolean | undefined,
  where: string,
): string | undefined {
  if (name.toLowerCase() === 'production')
    return production === false
      ? `${where}.production is false on an environment named "${name}", which is always production; rename the environment if it is not production`
      : undefined;
  if (production !== undefined || !readsLikeProduction(name)) return undefined;
  return `environment "${name}" reads like production but ${where}.production is not set; set ${where}.production: true (read-only: no load, probing or business call without an opt-in) or ${where}.production: false if it is a sandbox`;
}

/** The part of a base URL (a host label or path segment) that reads like production, if one does. */
export function productionPartOfUrl(baseUrl: string): string | undefined {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return undefined;
  }
  return [...url.hostname.split('.'), ...url.pathname.split('/')].find(
    (part) => part !== '' && readsLikeProduction(part),
  );
}
