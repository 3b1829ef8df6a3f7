// JUnit classnames. Jenkins and GitLab split a classname at its last dot into package and class,
// so `ces-harness.conformance.§5.4, 8` became package `ces-harness.conformance.§5` and class
// `4, 8`. A classname here is one dot-free group: the check family (the id's first word: `token`,
// `tls`, `business`…), or the load scenario, so a CI test tab lists the checks of a family together.

/** `token` for `token.bad-secret-401`: what a check id starts with, before its first dot. */
export function checkFamily(id: string): string {
  return id.split('.')[0] || id;
}

/** A classname no CI tool splits: every dot in `parts` becomes a hyphen, parts joined by one. */
export function junitClassname(...parts: string[]): string {
  return parts.map((p) => p.replace(/\./g, '-')).join('-');
}
