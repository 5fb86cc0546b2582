/**
 * The one ownership rule: an instance started by an authenticated client (it has an owner)
 * is that client's alone, so another client and an anonymous caller (`principal`
 * undefined) cannot see it; an instance started anonymously has no owner and is a bearer
 * capability, open to whoever holds its key.
 */
export function isOwnedBy(owner: string | null | undefined, principal: string | undefined): boolean {
  return owner === undefined || owner === null || owner === principal;
}
